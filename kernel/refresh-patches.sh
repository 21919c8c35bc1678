#!/bin/bash
# Developer helper: regenerate patches/ and series from a kernel git tree
# whose commits on top of BASE are the trashbin series (kernel/series-tree.sh
# makes a small one), then check it (kernel/check-series.sh).
#   kernel/refresh-patches.sh ~/src/linux base
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=${1:?usage: $0 KERNEL-GIT-TREE BASE-REV}
base=${2:?usage: $0 KERNEL-GIT-TREE BASE-REV}
rm -f "$here"/patches/*.patch
git -C "$tree" format-patch -q --zero-commit --no-signature \
	-o "$here/patches" "$base"..HEAD
(cd "$here/patches" && ls -1 *.patch) > "$here/series"
"$here/check-series.sh"
