#!/bin/bash
# Developer helper: regenerate a line's patches/ and series from a kernel
# git tree whose commits on top of BASE are the trashbin series
# (kernel/series-tree.sh makes a small one), then check it
# (kernel/check-series.sh).
#   kernel/refresh-patches.sh [--line LINE] ~/src/linux base
set -euo pipefail
kernel_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kernel/line.sh
. "$kernel_dir/line.sh"
want=$kernel_default_line
if [ "${1:-}" = --line ]; then
	want=${2:?usage: $0 [--line LINE] KERNEL-GIT-TREE BASE-REV}
	shift 2
fi
line_set "$want"
tree=${1:?usage: $0 [--line LINE] KERNEL-GIT-TREE BASE-REV}
base=${2:?usage: $0 [--line LINE] KERNEL-GIT-TREE BASE-REV}
# A tree kernel/series-tree.sh made names its line in the base commit's
# subject: refuse another line's tree before anything is removed.
subject=$(git -C "$tree" log -1 --format=%s "$base")
case "$subject" in
"$line_pkg "*) ;;
linux-source-*) echo "$0: $tree is a tree of ${subject%% *}, not of $line_pkg (--line?)" >&2
	exit 2 ;;
esac
mkdir -p "$line_dir/patches"
rm -f "$line_dir"/patches/*.patch
git -C "$tree" format-patch -q --zero-commit --no-signature \
	-o "$line_dir/patches" "$base"..HEAD
(cd "$line_dir/patches" && ls -1 *.patch) > "$line_dir/series"
"$kernel_dir/check-series.sh" --line "$line"
