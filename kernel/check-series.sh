#!/bin/bash
# Check the series: every patch in series exists and every file in
# patches/ is listed, each applies in order to the pristine tree without
# fuzz, and each is checkpatch.pl --strict clean.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
pristine=$cache/src/$ver/linux-source-6.1
[ -f "$pristine/.trashbin-extracted" ] ||
	{ echo "no pristine tree: run kernel/build.sh first" >&2; exit 1; }

fail=0
listed=$(grep -v -e '^#' -e '^$' "$here/series")
for f in "$here"/patches/*.patch; do
	grep -qxF "$(basename "$f")" <<<"$listed" ||
		{ echo "not in series: $(basename "$f")"; fail=1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Copy just the files the series touches, then apply it in order.
for p in $listed; do
	[ -f "$here/patches/$p" ] || { echo "missing patch: $p"; fail=1; continue; }
	sed -n 's|^+++ b/||p; s|^--- a/||p' "$here/patches/$p"
done | sort -u | while read -r f; do
	[ -f "$pristine/$f" ] || continue
	mkdir -p "$work/$(dirname "$f")"
	cp "$pristine/$f" "$work/$f"
done
for p in $listed; do
	if ! out=$(patch -d "$work" -p1 -F0 --no-backup-if-mismatch \
			< "$here/patches/$p" 2>&1) ||
	   grep -qiE 'fuzz|offset|hunk.*failed' <<<"$out"; then
		echo "does not apply cleanly: $p"
		echo "$out" | sed 's/^/  /'
		fail=1
	else
		echo "applies: $p"
	fi
	if (cd "$pristine" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q \
		"$here/patches/$p"); then
		echo "checkpatch --strict clean: $p"
	else
		fail=1
	fi
done
exit $fail
