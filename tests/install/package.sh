#!/bin/bash
# The Debian packages as a user builds them: dpkg-buildpackage -b -us -uc
# on a copy of the tree under OUTDIR (never in the checkout), then lintian
# on the .changes.  Fails on a build failure or on any lintian error; the
# warnings are printed.  The .debs stay in OUTDIR.
#   tests/install/package.sh [OUTDIR]      (default /tmp/trashbin-package)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/trashbin-package}
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/trashbin-$ver

for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null ||
		{ echo "package.sh: $t missing (tests/deps.sh installs it)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$src"
# What a clone has, plus files not yet committed; no build trees.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"; done) |
		tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . |
		tar -C "$src" -xf -
fi

start=$(date +%s)
(cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1 || {
	tail -n 60 "$out/build.log" >&2
	echo "package.sh: dpkg-buildpackage failed; log: $out/build.log" >&2
	exit 1
}
echo "# dpkg-buildpackage: $(($(date +%s) - start)) s"
changes=$(ls "$out"/trashbin_"$ver"_*.changes)
for deb in "$out"/*.deb; do
	echo "# $(basename "$deb")"
	dpkg-deb -c "$deb" | awk '!/\/$/ { print "#   " $NF }'
done
# --fail-on error: exit non-zero on errors only; warnings are listed.
lintian --fail-on error --tag-display-limit 0 --info "$changes" \
	> "$out/lintian.log" 2>&1 || lrc=$?
sed 's/^/# lintian: /' "$out/lintian.log"
if [ "${lrc:-0}" -ne 0 ] || grep -q '^E: ' "$out/lintian.log"; then
	echo "package.sh: lintian reports errors" >&2
	exit 1
fi
echo "package.sh: packages in $out, lintian: no errors"
