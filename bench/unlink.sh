#!/bin/bash
# bench/unlink: the cost of the trash bin on unlink(2), in the quick guest.
# Boots the patched and the unpatched kernel (same config) one after the
# other on the same machine in one run, and prints:
#   - unflagged unlinks/s, patched vs vanilla (target: within 2%)
#   - flagged unlinks (trash moves) vs plain unlinks on the patched kernel
#     (target: at most 3x the time of a plain unlink)
# for 10,000 and 100,000 empty files.  The two kernels are booted in
# turn, BENCH_BOOTS times each (default 1), and each boot runs several
# rounds of each kind; the table shows the best and the median round.
#
# The clock: by default the guests run on QEMU's instruction counter
# (vm/quick/run.sh --icount), where guest time is the instructions the
# guest executed, 8 ns each: the figures are the same from run to run
# whatever else the host is doing (rounds of one kind agree to 0.1%),
# which a shared 2-core machine cannot give a wall clock (rounds there
# spread 3x).  They count work, not caches or memory stalls.
# BENCH_CLOCK=wall boots plain TCG and times with the host's clock.
#
# Reproduce: bash bench/unlink.sh        (BENCH_SIZES="10000" for a quick one)
# BENCH_BZIMAGE and BENCH_BZIMAGE_VANILLA boot the kernels given instead
# of building them (kernel/build.sh, patched and --vanilla).
#
# bash bench/unlink.sh --smoke (or BENCH_SMOKE=1): a check that the bench
# runs to its end and prints every figure, not a measurement: 100 files,
# one round, one boot, and both sides boot the same kernel,
# $TRASHBIN_BZIMAGE (the suite's kernel; kernel/build.sh's if unset), so
# nothing is built.  Its output says that its figures mean
# nothing.  tests/bench/smoke.sh runs it (ctest: bench-unlink-smoke).
# Both kernels are kernel/build.sh's, not --debug (KASAN and lockdep
# would measure the instrumentation, not the code).
# Figures are under QEMU TCG, far slower than the host: compare ratios.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=${BENCH_SMOKE:-0}
case ${1:-} in
--smoke) smoke=1 ;;
"") ;;
*) echo "usage: $0 [--smoke]" >&2; exit 2 ;;
esac
bash "$top/tests/deps.sh"
sizes=${BENCH_SIZES:-10000 100000}
boots=${BENCH_BOOTS:-1}
rounds=			# the guest's default (tests/guest/bench.sh)
timeout=3000
if [ "$smoke" = 1 ]; then
	sizes=100 boots=1 rounds=1 timeout=900
	patched=${TRASHBIN_BZIMAGE:-$("$top/kernel/build.sh")}
	vanilla=$patched
	echo "== SMOKE RUN: $sizes files, one round; both sides boot $patched:" \
		"its figures mean nothing" >&2
else
	patched=${BENCH_BZIMAGE:-$("$top/kernel/build.sh")}
	vanilla=${BENCH_BZIMAGE_VANILLA:-$("$top/kernel/build.sh" --vanilla)}
fi
[ -f "$patched" ] && [ -f "$vanilla" ] ||
	{ echo "bench/unlink.sh: no kernel at '$patched' or '$vanilla'" >&2; exit 1; }
# The guest reads its sizes and rounds on the kernel command line.
append="trashbin.bench_sizes=$(echo $sizes | tr ' ' ',')"
[ -n "$rounds" ] && append="$append trashbin.bench_rounds=$rounds"
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT

: > "$res/patched.txt"
: > "$res/vanilla.txt"
clock=--icount
[ "${BENCH_CLOCK:-icount}" = wall ] && clock=
echo "== clock: ${BENCH_CLOCK:-icount}" >&2
for b in $(seq "$boots"); do
	for k in patched vanilla; do
		flag=
		[ $k = vanilla ] && flag=--vanilla
		echo "== boot $b: the $k kernel" >&2
		TRASHBIN_BZIMAGE=$patched TRASHBIN_BZIMAGE_VANILLA=$vanilla \
			"$top/vm/quick/run.sh" $flag $clock --suite bench \
			--timeout "$timeout" --append "$append" \
			--disk-size 4G > "$res/$k.tap" ||
			{ cat "$res/$k.tap"; exit 1; }
		sed -n 's/^\(# \)*bench //p' "$res/$k.tap" >> "$res/$k.txt"
	done
done

rates() {	# FILE KIND N -> the rates of its rounds, one a line, sorted
	awk -v k="$2" -v n="$3" '$1 == k && $2 == n { print $3 }' "$1" | sort -n
}
best() { rates "$@" | tail -n 1; }
median() { rates "$@" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Best and median of the rounds: on a shared machine a round can run
# several times slower or faster than its neighbours (a vanilla round
# of plain unlinks has come out 4x above the others); the median shows
# what the best hides.
echo
[ "$smoke" = 1 ] &&
	echo "SMOKE RUN: $sizes files, A and B both $patched; the figures below mean nothing"
printf '%-7s %-32s %9s %9s %7s %9s %9s %7s  %s\n' files measure \
	"A best" "B best" "ratio" "A median" "B median" "ratio" target
for n in $sizes; do
	for m in best median; do
		eval "${m}_pv=\$($m "$res/vanilla.txt" plain "$n")"
		eval "${m}_pp=\$($m "$res/patched.txt" plain "$n")"
		eval "${m}_pf=\$($m "$res/patched.txt" flagged "$n")"
	done
	awk -v n="$n" -v pv="$best_pv" -v pp="$best_pp" -v pf="$best_pf" \
	    -v mv="$median_pv" -v mp="$median_pp" -v mf="$median_pf" 'BEGIN {
		printf "%-7d %-32s %9.0f %9.0f %6.3fx %9.0f %9.0f %6.3fx  %s\n",
			n, "unflagged/s: A vanilla, B patched", pv, pp, pp / pv,
			mv, mp, mp / mv, "B/A >= 0.98"
		printf "%-7d %-32s %9.0f %9.0f %6.2fx %9.0f %9.0f %6.2fx  %s\n",
			n, "patched/s: A plain, B flagged", pp, pf, pp / pf,
			mp, mf, mp / mf, "time ratio A/B <= 3"
	}'
done
echo
echo "raw rounds (kind files unlinks/s seconds):"
for k in patched vanilla; do sed "s/^/  $k: /" "$res/$k.txt"; done
