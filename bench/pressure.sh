#!/bin/bash
# bench/pressure: what space pressure costs, in the quick guest.
#   - the time a writer waits at ENOSPC until its retry (trashd's answer,
#     from its log), median and p99, when the trash holds the space in
#     1 MiB files, in 1 KiB files and in +s files of 1 MiB (patched);
#   - unflagged writes that never run out of space, patched (trashd
#     listening) vs vanilla, under QEMU's instruction counter
#     (vm/quick/run.sh --icount: guest time is instructions executed, the
#     same from run to run whatever the host does), end to end (the
#     write and its fsync) and the writes alone into the page cache,
#     writeback held off (where the kernel's watermark test runs, once a
#     page): target none measurable (within 1%).
# One run boots the patched kernel three times (waits; writes with and
# without trashd) and the vanilla one twice (writes; writes with one inotify
# watch on /.trash and no daemon).
#
# Reproduce: bash bench/pressure.sh      (BENCH_FILL=MIB, default 160)
# bash bench/pressure.sh --writes: the unflagged writes only, patched vs
# vanilla (two boots), not the waits at ENOSPC.
# bash bench/pressure.sh --smoke (BENCH_SMOKE=1): a check that it runs to
# its end and prints every figure, not a measurement: 8 MiB, one round,
# both sides boot the suite's kernel ($TRASHBIN_BZIMAGE), nothing built;
# its figures mean nothing.  tests/bench/smoke.sh runs it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=${BENCH_SMOKE:-0} waits=1
case ${1:-} in
--smoke) smoke=1 ;;
--writes) waits=0 ;;
"") ;;
*) echo "usage: $0 [--smoke | --writes]" >&2; exit 2 ;;
esac
bash "$top/tests/deps.sh"
fill=${BENCH_FILL:-160} rounds=${BENCH_ROUNDS:-3} timeout=3000
page_rounds=${BENCH_PAGE_ROUNDS:-21}
if [ "$smoke" = 1 ]; then
	fill=8 rounds=1 timeout=900 page_rounds=3
	patched=${TRASHBIN_BZIMAGE:-$("$top/kernel/build.sh")}
	vanilla=$patched
	echo "== SMOKE RUN: $fill MiB, one round; both sides boot $patched:" \
		"its figures mean nothing" >&2
else
	patched=${BENCH_BZIMAGE:-$("$top/kernel/build.sh")}
	vanilla=${BENCH_BZIMAGE_VANILLA:-$("$top/kernel/build.sh" --vanilla)}
fi
build=${BENCH_BUILD:-$top/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$top" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" --target trashd trashctl >/dev/null
export TRASHBIN_GUEST_BINS="$build/trashd/trashd $build/trashctl/trashctl"
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT

boot() {	# NAME FLAVOR-FLAG APPEND
	echo "== $1" >&2
	TRASHBIN_BZIMAGE=$patched TRASHBIN_BZIMAGE_VANILLA=$vanilla \
		"$top/vm/quick/run.sh" $2 --icount --suite bench-pressure \
		--timeout "$timeout" --append "trashbin.bp_fill=$fill trashbin.bp_rounds=$rounds trashbin.bp_page_rounds=$page_rounds $3" \
		> "$res/$1.tap" || { cat "$res/$1.tap"; exit 1; }
	sed -n 's/^\(# \)*bp //p' "$res/$1.tap" > "$res/$1.txt"
}
if [ "$waits" = 1 ]; then
	# The smoke run on a loaded host: its figures mean nothing, and a
	# wipe's fsync that the host is slow to finish must not outlast the
	# writers' 2 s of instruction-counter time (tests/guest/bench-pressure.sh).
	boot waits "" "$([ "$smoke" = 0 ] || echo trashbin.space_wait_ms=20000)"
else
	: > "$res/waits.txt"
fi
boot write-patched "" "trashbin.bp_mode=write"
boot write-nodaemon "" "trashbin.bp_mode=write trashbin.bp_trashd=0"
if [ "$smoke" = 1 ]; then
	boot write-vanilla "" "trashbin.bp_mode=write"
	boot write-watch "" "trashbin.bp_mode=write trashbin.bp_trashd=inotify"
else
	boot write-vanilla --vanilla "trashbin.bp_mode=write"
	# Vanilla with one inotify watch on /.trash, as trashd holds: what
	# any watch on a filesystem costs its writes, trash or no trash.
	boot write-watch --vanilla "trashbin.bp_mode=write trashbin.bp_trashd=inotify"
fi

# quantile FILE KIND Q: the Q quantile (0-1) of KIND's waits, in ms.
quantile() {
	awk -v k="$2" '$1 == "wait" && $2 == k { print $3 }' "$1" | sort -n |
		awk -v q="$3" '{ v[NR] = $1 } END {
			if (!NR) { print "none"; exit }
			i = int(q * NR + 0.999999); if (i < 1) i = 1
			printf "%.1f\n", v[i] / 1000 }'
}
count() { awk -v k="$2" '$1 == "wait" && $2 == k' "$1" | wc -l; }
# The write's ms, the mean of the rounds; "failed-after-MS" if any failed.
total() { awk -v k="$2" '$1 == "total" && $2 == k { if ($4 ~ /^failed/) f = $4; else { s += $4; n++ } } END { if (f) print f; else printf "%.0f\n", n ? s / n : 0 }' "$1"; }
median_write() { awk '$1 == "write" { print $3 }' "$1" | sort -n |
	awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo
[ "$smoke" = 1 ] && echo "SMOKE RUN: $fill MiB, both sides $patched; the figures below mean nothing"
[ "$waits" = 1 ] || echo "(--writes: the waits at ENOSPC not measured)"
[ "$waits" = 0 ] || printf '%-58s %10s %10s %7s %10s\n' "writer's wait at ENOSPC until its retry" "median ms" "p99 ms" waits "write ms"
for k in 1m 1k s; do
	[ "$waits" = 1 ] || break
	case $k in
	1m) what="trash of $fill MiB in 1 MiB files" ;;
	1k) what="trash of $fill MiB in 1 KiB files" ;;
	s) what="trash of $fill MiB in +s files of 1 MiB" ;;
	esac
	printf '%-58s %10s %10s %7s %10s\n' "$what" \
		"$(quantile "$res/waits.txt" $k 0.5)" \
		"$(quantile "$res/waits.txt" $k 0.99)" \
		"$(count "$res/waits.txt" $k)" "$(total "$res/waits.txt" $k)"
done
best_write() { awk '$1 == "write" { print $3 }' "$1" | sort -n | head -n 1; }
wp=$(median_write "$res/write-patched.txt")
wv=$(median_write "$res/write-vanilla.txt")
bp=$(best_write "$res/write-patched.txt")
bv=$(best_write "$res/write-vanilla.txt")
echo
# Medians and best rounds: background writeback and trashd's own work
# make rounds of one kind spread, icount or not; the best shows the least.
awk -v f="$fill" -v p="$wp" -v v="$wv" -v bp="$bp" -v bv="$bv" 'BEGIN {
	printf "unflagged writes of %d MiB, never out of space (icount ms): vanilla %.0f, patched %.0f, %+.2f%%; best rounds %.0f, %.0f, %+.2f%%  (target: within 1%%)\n",
		f, v, p, (p - v) * 100 / v, bv, bp, (bp - bv) * 100 / bv }'
median_page() { awk '$1 == "page" { print $3 }' "$1" | sort -n |
	awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread_page() { awk '$1 == "page" { print $3 }' "$1" | sort -n |
	awk '{ v[NR] = $1 } END { printf "%.2f\n", (v[NR] - v[1]) * 100 / v[1] }'; }
pp=$(median_page "$res/write-patched.txt")
pn=$(median_page "$res/write-nodaemon.txt")
pv=$(median_page "$res/write-vanilla.txt")
# The precise figure: the writes alone, the same rounds in one process;
# the patched kernel without its daemon (the kernel's cost) and with it
# (trashd watching: what the system costs).
awk -v p="$pp" -v pn="$pn" -v v="$pv" -v sp="$(spread_page "$res/write-patched.txt")" \
	-v sn="$(spread_page "$res/write-nodaemon.txt")" \
	-v sv="$(spread_page "$res/write-vanilla.txt")" -v n="$page_rounds" 'BEGIN {
	printf "unflagged writes of 16 MiB into the page cache (icount us, median of %d): vanilla %.0f, patched without trashd %.0f (%+.2f%%), patched with trashd %.0f (%+.2f%%); rounds spread %.2f%%, %.2f%%, %.2f%%  (target: within 1%%)\n",
		n, v, pn, (pn - v) * 100 / v, p, (p - v) * 100 / v, sv, sn, sp }'
pw=$(median_page "$res/write-watch.txt")
# fsnotify's hook on every write does nothing until the superblock has a
# watch (s_fsnotify_connectors); from then on each write walks to its
# parent dentry and back, whoever watches what.
awk -v w="$pw" -v v="$pv" -v sw="$(spread_page "$res/write-watch.txt")" \
	-v n="$page_rounds" 'BEGIN {
	printf "the same writes on vanilla with one inotify watch on /.trash, no daemon (icount us, median of %d): %.0f (%+.2f%% vs vanilla); rounds spread %.2f%%\n",
		n, w, (w - v) * 100 / v, sw }'
echo
echo "raw (kind value):"
for f in waits write-patched write-nodaemon write-vanilla write-watch; do sed "s/^/  $f: /" "$res/$f.txt"; done
