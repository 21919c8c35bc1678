#!/bin/bash
# Check the series of each kernel line (kernel/line.sh), or of the one
# given: every patch in series exists and every file in patches/ is
# listed, each applies in order to the pristine tree without fuzz, and
# each is checkpatch.pl --strict clean (the line's own checkpatch).  Then
# that the lines' UAPI headers are byte for byte the same: one trashd and
# one trashctl serve both kernels.
#   kernel/check-series.sh [--line LINE] [--build]
#
# --build: then every prefix of each series builds (the series is
# bisectable): a tree of its own in the cache ($TRASHBIN_CACHE/bisect-LINE,
# out-bisect-LINE) gets the patches one at a time, and the guest kernel
# (kernel/build.sh's config, line_configure) is built after each, make
# rebuilding what the patch touched.  For a series change, before it is
# called done; long: the first build is a cold one (about 10 minutes on
# 2 cores), and each patch that touches a header much of the kernel
# includes (include/linux/fs.h) costs nearly as much again.
set -euo pipefail
kernel_dir=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=kernel/line.sh
. "$kernel_dir/line.sh"
lines=() build=0
usage() { echo "usage: $0 [--line LINE] [--build]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--line) [ -n "${2:-}" ] || usage; lines=("$2"); shift ;;
	--build) build=1 ;;
	*) usage ;;
	esac
	shift
done
if [ ${#lines[@]} = 0 ]; then
	for l in "${kernel_lines[@]}"; do
		[ -f "$kernel_dir/$l/series" ] && lines+=("$l")
	done
fi
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}

# build_prefixes: every prefix of $line's series builds.
build_prefixes() {
	local bt=$cache/bisect-$line bo=$cache/out-bisect-$line p n=0 t0
	mkdir -p "$cache"
	exec 9>>"$cache/.build.lock"
	flock 9	# kernel/build.sh's: one build at a time on this machine
	echo "# every prefix of the $line series builds ($bt)"
	rsync -a --delete "$line_pristine/" "$bt/"
	line_configure "$bt" "$bo" prefix "" || { fail=1; return; }
	for p in $listed; do
		n=$((n + 1))
		patch -d "$bt" -p1 -s -F0 --no-backup-if-mismatch \
			< "$line_dir/patches/$p" || { fail=1; return; }
		# A Kconfig option a patch adds: the fragments' value for it.
		if grep -q '^+++ b/.*Kconfig' "$line_dir/patches/$p"; then
			line_configure "$bt" "$bo" prefix "" force ||
				{ fail=1; return; }
		fi
		t0=$(date +%s)
		if make -s -C "$bt" O="$bo" -j"$(nproc)" bzImage \
				> "$bo/build-$n.log" 2>&1 &&
		   ! grep -E 'warning:|error:' "$bo/build-$n.log"; then
			echo "builds, warning-free ($(( $(date +%s) - t0 ))s): 1-$n ($p)"
		else
			echo "does not build, or warns: 1-$n ($p)"
			grep -E -A3 'warning:|error:' "$bo/build-$n.log" |
				head -n 20 | sed 's/^/  /'
			fail=1
			return
		fi
	done
	flock -u 9
}

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
	[ "$build" = 0 ] || build_prefixes
done
exit $fail
