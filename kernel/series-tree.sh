#!/bin/bash
# Developer helper: a small git tree to edit the series in.  It holds only
# the files the series touches (pristine, committed and tagged "base"),
# the kernel's .gitattributes, and the series applied as commits with
# git am; kernel/refresh-patches.sh DIR base turns it back into patches/,
# byte for byte what it was when nothing changed.  Seconds and a few MB,
# instead of a git tree of the whole kernel.
#   kernel/series-tree.sh [--line LINE] DIR
set -euo pipefail
kernel_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kernel/line.sh
. "$kernel_dir/line.sh"
want=$kernel_default_line
if [ "${1:-}" = --line ]; then
	want=${2:?usage: $0 [--line LINE] DIR}
	shift 2
fi
line_set "$want"
dir=${1:?usage: $0 [--line LINE] DIR}
[ ! -e "$dir" ] || { echo "$0: $dir exists" >&2; exit 1; }
line_extract
here=$line_dir
ver=$line_ver
pristine=$line_pristine
mkdir -p "$dir"
cd "$dir"
sed 's/^/patches\//' "$here/series" | (cd "$here" && xargs cat) |
	sed -n 's|^+++ b/||p; s|^--- a/||p' | sort -u |
while read -r f; do
	[ -f "$pristine/$f" ] || continue
	mkdir -p "$(dirname "$f")"
	cp "$pristine/$f" "$f"
done
cp "$pristine/.gitattributes" .
git init -q
git add -A
git -c user.name=base -c user.email=base@localhost commit -q -m "$line_pkg $ver (the files the series touches)"
git tag base
sed 's/^/patches\//' "$here/series" | (cd "$here" && xargs realpath) | xargs git am -q
git log --oneline base..HEAD
