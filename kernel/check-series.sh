#!/bin/bash
# Check the series of each kernel line (kernel/line.sh), or of the one
# given: every patch in series exists and every file in patches/ is
# listed, each applies in order to the pristine tree without fuzz, and
# each is checkpatch.pl --strict clean (the line's own checkpatch).  Then
# that the lines' UAPI headers are byte for byte the same: one trashd and
# one trashctl serve both kernels.
#   kernel/check-series.sh [--line LINE]
set -euo pipefail
kernel_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kernel/line.sh
. "$kernel_dir/line.sh"
lines=()
case "${1:-}" in
--line) lines=("${2:?usage: $0 [--line LINE]}") ;;
'') for l in "${kernel_lines[@]}"; do
	[ -f "$kernel_dir/$l/series" ] && lines+=("$l")
    done ;;
*) echo "usage: $0 [--line LINE]" >&2; exit 2 ;;
esac

fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for l in "${lines[@]}"; do
	line_set "$l"
	line_extract
	echo "# the $line series ($line_pkg $line_ver)"
	listed=$(grep -v -e '^#' -e '^$' "$line_dir/series")
	for f in "$line_dir"/patches/*.patch; do
		grep -qxF "$(basename "$f")" <<<"$listed" ||
			{ echo "not in series: $(basename "$f")"; fail=1; }
	done
	# Copy just the files the series touches, then apply it in order.
	t=$work/$line
	for p in $listed; do
		[ -f "$line_dir/patches/$p" ] || { echo "missing patch: $p"; fail=1; continue; }
		sed -n 's|^+++ b/||p; s|^--- a/||p' "$line_dir/patches/$p"
	done | sort -u | while read -r f; do
		[ -f "$line_pristine/$f" ] || continue
		mkdir -p "$t/$(dirname "$f")"
		cp "$line_pristine/$f" "$t/$f"
	done
	mkdir -p "$t"
	for p in $listed; do
		if ! out=$(patch -d "$t" -p1 -F0 --no-backup-if-mismatch \
				< "$line_dir/patches/$p" 2>&1) ||
		   grep -qiE 'fuzz|offset|hunk.*failed' <<<"$out"; then
			echo "does not apply cleanly: $p"
			echo "$out" | sed 's/^/  /'
			fail=1
		else
			echo "applies: $p"
		fi
		if (cd "$line_pristine" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict -q \
			"$line_dir/patches/$p"); then
			echo "checkpatch --strict clean: $p"
		else
			fail=1
		fi
	done
	h=$t/include/uapi/linux/trashbin.h
	if [ ! -f "$h" ]; then
		echo "the $line series makes no include/uapi/linux/trashbin.h"
		fail=1
	elif [ -f "$work/uapi.h" ]; then
		if cmp -s "$work/uapi.h" "$h"; then
			echo "UAPI header: the same as the ${lines[0]} series'"
		else
			echo "UAPI header: the $line series' differs from the ${lines[0]} series':"
			diff -u "$work/uapi.h" "$h" | sed 's/^/  /' | head -n 40
			fail=1
		fi
	else
		cp "$h" "$work/uapi.h"
	fi
done
exit $fail
