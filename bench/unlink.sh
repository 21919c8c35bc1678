#!/bin/bash
# bench/unlink: the cost of the trash bin on unlink(2), in the quick guest.
# Boots the patched and the unpatched kernel (same config) one after the
# other on the same machine in one run, and prints:
#   - unflagged unlinks/s, patched vs vanilla (target: within 2%)
#   - flagged unlinks (trash moves) vs plain unlinks on the patched kernel
#     (target: at most 3x the time of a plain unlink)
# for 10,000 and 100,000 empty files.  Rates are the best of the rounds.
#
# Reproduce: bash bench/unlink.sh        (BENCH_SIZES="10000" for a quick one)
# Both kernels are the --bench build (guest.config without KASAN and
# lockdep: those would measure the instrumentation, not the code).
# Figures are under QEMU TCG, far slower than the host: compare ratios.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/tests/deps.sh"
patched=$("$top/kernel/build.sh" --bench)
vanilla=$("$top/kernel/build.sh" --vanilla --bench)
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT

for k in patched vanilla; do
	kern=$patched; flag=
	[ $k = vanilla ] && { kern=$vanilla; flag=--vanilla; }
	echo "== booting the $k kernel" >&2
	TRASHBIN_BZIMAGE=$patched TRASHBIN_BZIMAGE_VANILLA=$vanilla \
		"$top/vm/quick/run.sh" $flag --suite bench --timeout 3000 \
		--disk-size 4G > "$res/$k.tap" || { cat "$res/$k.tap"; exit 1; }
	sed -n 's/^\(# \)*bench //p' "$res/$k.tap" > "$res/$k.txt"
done

best() {	# FILE KIND N -> best rate
	awk -v k="$2" -v n="$3" '$1 == k && $2 == n && $3 > b { b = $3 } END { print b + 0 }' "$1"
}
printf '\n%-8s %-34s %12s %12s %9s %s\n' files measure "A /s" "B /s" "B/A" target
for n in ${BENCH_SIZES:-10000 100000}; do
	pv=$(best "$res/vanilla.txt" plain "$n")
	pp=$(best "$res/patched.txt" plain "$n")
	pf=$(best "$res/patched.txt" flagged "$n")
	awk -v n="$n" -v pv="$pv" -v pp="$pp" -v pf="$pf" 'BEGIN {
		printf "%-8d %-34s %12.0f %12.0f %8.3fx %s\n", n,
			"unflagged: A vanilla, B patched", pv, pp, pp / pv,
			"B/A >= 0.98"
		printf "%-8d %-34s %12.0f %12.0f %8.2fx %s\n", n,
			"patched: A plain, B flagged", pp, pf, pp / pf,
			"time ratio (A/B) <= 3"
	}'
done
echo
echo "raw rounds (kind files unlinks/s seconds):"
for k in patched vanilla; do sed "s/^/  $k: /" "$res/$k.txt"; done
