#!/bin/bash
# bench/trashd: how fast trashd is and what it costs, in one run.  Prints
# each figure beside its target:
#   - files indexed per second during a 100,000-file flagged rm -rf, and
#     that none is lost (quick guest: the patched kernel as
#     kernel/build.sh builds it, without KASAN and lockdep, under QEMU TCG:
#     its rates are far below a host's, compare with the rm -rf rate of
#     the same run)
#   - the time to reconcile 100,000 entries at start-up (host, a staged
#     tree: entries made exactly as the kernel makes them, tbtool stage)
#   - wipe MB/s of a 1 GiB +s file against shred -n 1 on the same disk,
#     with the disk's sequential write rate (dd conv=fdatasync; the best of
#     a new file, in place, and in place with random data from RAM, for a
#     disk that writes zeros faster) as the limit
#   - trashd's peak RSS (VmHWM) with 1,000,000 entries
#   - fairness: user B's status latency (median, max) while user A floods
#     its trash with 20,000 entries (indexing, then empty): the flood
#     tests of tests/trashctl (test_flood_*), on this optimised build
#
#   bash bench/trashd.sh [--no-guest] [--smoke]
# --smoke (or BENCH_SMOKE=1): a check that the bench runs to its end and
# prints every figure, in seconds: 300 entries instead of 100,000 (500
# instead of 1,000,000), a 4 MiB wipe, one round, no guest; the flood is
# the tests' own (20,000 entries, about 20 s).  Its figures mean nothing
# and it says so.  tests/bench/smoke.sh runs it (ctest: bench-trashd-smoke).
# Environment: BENCH_DIR (host scratch dir, default /var/tmp: its disk is
# the one measured), BENCH_ROUNDS (wipe rounds, default 3; the best of
# each is shown), BENCH_BUILD (the optimised build, default
# /var/tmp/trashbin-bench-build), BENCH_PARTS (default "reconcile wipe flood
# guest": a subset runs only those).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
parts=" ${BENCH_PARTS:-reconcile wipe flood guest} "
smoke=${BENCH_SMOKE:-0}
for a in "$@"; do
	case $a in
	--no-guest) parts=${parts/ guest / } ;;
	--smoke) smoke=1 ;;
	*) echo "usage: $0 [--no-guest] [--smoke]" >&2; exit 2 ;;
	esac
done
# The sizes: entries reconciled, then more up to the RSS figure's total;
# the wipe's file in MiB.
n_new=100000 n_all=1000000 wipe_mib=1024
if [ "$smoke" = 1 ]; then
	n_new=300 n_all=500 wipe_mib=4
	parts=${parts/ guest / }
	: "${BENCH_ROUNDS:=1}"
fi
n_more=$((n_all - n_new))
has() { [[ $parts == *" $1 "* ]]; }
guest=0
has guest && guest=1
rounds=${BENCH_ROUNDS:-3}
build=${BENCH_BUILD:-/var/tmp/trashbin-bench-build}
[ "$(id -u)" = 0 ] || { echo "bench/trashd.sh: run as root" >&2; exit 1; }

say() { echo "== $*" >&2; }
# 100000 -> 100,000
commas() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }
[ "$smoke" = 1 ] &&
	say "SMOKE RUN: tiny sizes, to check that the bench runs; its figures mean nothing"
bash "$top/tests/deps.sh" > /dev/null
# The shipped code's figures: an optimised build, not the -O0 test build.
say "building trashd, trashctl and tbtool (Release) in $build"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" -j"$(nproc)" --target trashd trashctl tbtool \
	test_e2e_wipe > /dev/null
trashd=$build/trashd/trashd
trashctl=$build/trashctl/trashctl
tbtool=$build/tests/tbtool

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/trashd-bench.XXXXXX")
chmod 0755 "$work"
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2> /dev/null || true
		wait "$pid" 2> /dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
fs=$work/fs
sock=$work/trashd.sock
log=$work/trashd.log
results=$work/results
mkdir -m 0755 "$fs" "$fs/.trash"
mkdir -m 0700 "$work/db"
: > "$results"

put() { echo "$1 $2" >> "$results"; }
get() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' "$results"; }
best() { awk -v k="$1" '$1 == k && $2 > b { b = $2 } END { print b + 0 }' "$results"; }
now() { date +%s.%N; }
calc() { echo "$*" | bc -l; }

conf() {
	{
		echo "database $work/db/index.db"
		echo "filesystem $fs"
		echo "socket $sock"
		echo "retention forever"
		echo "watermark 0%"
		echo "grace 0s"
	} > "$work/trashd.conf"
}

# Start trashd; $took: the seconds until its socket answered (it is
# opened only once the start-up reconcile is done).
start() {
	local t0
	t0=$(now)
	"$trashd" -d -f "$work/trashd.conf" < /dev/null > "$log" 2>&1 &
	pid=$!
	until "$trashctl" -s "$sock" -j status > /dev/null 2>&1; do
		kill -0 "$pid" 2> /dev/null ||
			{ echo "trashd died:" >&2; tail "$log" >&2; exit 1; }
		sleep 0.01
	done
	took=$(calc "$(now) - $t0")
}
stop() {
	kill "$pid"
	wait "$pid" 2> /dev/null || true
	pid=
}
hwm_mib() { awk '/^VmHWM/ { printf "%.1f\n", $2 / 1024 }' "/proc/$pid/status"; }
count() {	# root's live entries, as trashd reports them
	"$trashctl" -s "$sock" -j status |
		sed -n 's/.*"count":\([0-9]*\).*/\1/p'
}

# ---- reconcile 100,000 at start-up; peak RSS at 1,000,000 (smoke: less) ----
reconcile() {
conf
say "live: $(commas $n_new) entries moved into the trash while trashd runs"
start
t0=$(now)
"$tbtool" stage "$fs" 0 $n_new u live
t1=$(now)
until [ "$(count)" = $n_new ]; do
	sleep 0.2
	[ "$(calc "$(now) - $t0 > 600")" = 1 ] && break
done
t2=$(now)
put live_count "$(count)"
put live_moved "$(calc "$n_new / ($t1 - $t0)")"
put live_indexed "$(calc "$n_new / ($t2 - $t0)")"
put live_overflows "$(grep -c 'queue overflow' "$log" || true)"
stop
rm -rf "$fs/.trash/0" "$fs/.tbstage" "$work/db"
mkdir -m 0700 "$work/db"
say "staging $(commas $n_new) entries in $fs/.trash/0"
"$tbtool" stage "$fs" 0 $n_new u a
say "start-up with $(commas $n_new) entries new to the index"
start
put reconcile_cold "$took"
put count_100k "$(count)"
stop
say "start-up with the $(commas $n_new) already indexed"
start
put reconcile_warm "$took"
stop
say "staging $(commas $n_more) more ($(commas $n_all) in all)"
"$tbtool" stage "$fs" 0 $n_more u b
say "start-up with $(commas $n_more) entries new to the index, $(commas $n_all) in all"
start
put reconcile_1m_cold "$took"
put count_1m "$(count)"
sleep 3		# the policy run that the new entries asked for
put rss_cold "$(hwm_mib)"
stop
say "start-up with $(commas $n_all) indexed; status; list --all -n 1"
start
put reconcile_1m_warm "$took"
sleep 3
"$trashctl" -s "$sock" -j status > /dev/null
put rss_warm "$(hwm_mib)"
"$trashctl" -s "$sock" -j list --all -n 1 > /dev/null
put rss_list "$(hwm_mib)"
stop
say "removing the $(commas $n_all) staged entries"
rm -rf "$fs/.trash/0" "$fs/.tbstage" "$work/db"
mkdir -m 0700 "$work/db"
}
has reconcile && reconcile

# ---- wipe vs shred vs the disk ----
gib=$((wipe_mib * 1048576))	# the wipe's size: 1 GiB but in a smoke run
size=$([ "$wipe_mib" = 1024 ] && echo "1 GiB" || echo "$wipe_mib MiB")
mbps() { calc "$1 / 1048576 / $2" | xargs printf '%.0f\n'; }
timed() {	# COMMAND...: seconds it took
	local t0
	t0=$(now)
	"$@"
	calc "$(now) - $t0"
}
# time_ns of the newest ACTION row of the entry named NAME (its "name"
# field: the target no longer spells it out)
audit_ns() {
	"$trashctl" -s "$sock" -j audit -A "$1" | grep -o '{[^{}]*}' |
		grep -F "\"name\":\"$2\"" | sed -n 's/.*"time_ns":\([0-9]*\).*/\1/p' |
		tail -n 1
}
wipe() {
conf
# Incompressible data for the disk's own rate, made before the clock runs.
head -c $gib /dev/urandom > /dev/shm/trashd-bench-rand.$$
trap 'rm -f /dev/shm/trashd-bench-rand.$$; cleanup' EXIT
start
for r in $(seq "$rounds"); do
	say "round $r of $rounds: dd, dd in place, shred -n 1, trashd's wipe"
	sync
	put dd_new "$(mbps $gib "$(timed dd if=/dev/zero of="$work/dd" \
		bs=1M count=$wipe_mib conv=fdatasync status=none)")"
	put dd_inplace "$(mbps $gib "$(timed dd if=/dev/zero of="$work/dd" \
		bs=1M count=$wipe_mib conv=notrunc,fdatasync status=none)")"
	put dd_random "$(mbps $gib "$(timed dd if=/dev/shm/trashd-bench-rand.$$ \
		of="$work/dd" bs=1M count=$wipe_mib conv=notrunc,fdatasync \
		status=none)")"
	rm -f "$work/dd"
	# shred -n 1: one pass of random data, synced, like trashd's default.
	dd if=/dev/zero of="$fs/victim" bs=1M count=$wipe_mib conv=fdatasync \
		status=none
	put shred "$(mbps $gib "$(timed shred -n 1 "$fs/victim")")"
	rm -f "$fs/victim"
	dd if=/dev/zero of="$fs/victim" bs=1M count=$wipe_mib conv=fdatasync \
		status=none
	put shred_u "$(mbps $gib "$(timed shred -n 1 -u "$fs/victim")")"
	# A 1 GiB (smoke: 4 MiB) +s file, written and synced, moved into
	# the trash as the kernel moves it; trashd indexes it and wipes it
	# (grace 0s).
	"$tbtool" stage "$fs" 0 1 s "w$r-" $gib
	t0=$(now)
	until [ -n "$(audit_ns wiped "w$r-0")" ]; do
		[ "$(calc "$(now) - $t0 > 600")" = 1 ] &&
			{ echo "w$r-0: no wipe audited in 600 s" >&2; exit 1; }
		sleep 0.05
	done
	q=$(audit_ns wipe-queued "w$r-0")
	w=$(audit_ns wiped "w$r-0")
	res=$("$trashctl" -s "$sock" -j audit -A wiped | grep -o '{[^{}]*}' |
		grep -F "\"name\":\"w$r-0\"" | sed -n 's/.*"result":"\([^"]*\)".*/\1/p')
	case $res in
	"ok: 1 passes, $gib bytes in "*) ;;
	*) echo "the wipe of w$r-0 reported: $res" >&2; exit 1 ;;
	esac
	# The overwrite (the passes, synced), as the wipe records it ...
	s=${res#ok: 1 passes, $gib bytes in }
	put wipe "$(mbps $gib "${s%% s*}")"
	# ... and all of it: queued, worker, extents checked, unlinked, freed.
	put wipe_e2e "$(mbps $gib "$(calc "($w - $q) / 1000000000")")"
done
stop
rm -f /dev/shm/trashd-bench-rand.$$
}
has wipe && wipe
disk=$(df --output=source,fstype "$work" | tail -n 1 | tr -s ' ')

# ---- fairness: B's requests during A's flood ----
flood() {
say "fairness: B's status while A floods its trash (test_flood_*)"
TB_TEST_FILTER='test_flood_*' "$build/tests/trashctl/test_e2e_wipe" \
	"$trashd" "$trashctl" > "$work/flood.txt" 2>&1 ||
	{ cat "$work/flood.txt" >&2; echo "the flood tests failed" >&2; exit 1; }
# "flood: indexed in 7458 ms; B's status over 34 requests: median 77 ms,
# max 241 ms"
sed -n 's/^flood: \([a-z]*\) in .*median \([0-9]*\) ms, max \([0-9]*\) ms$/flood_\1_median \2\nflood_\1_max \3/p' \
	"$work/flood.txt" >> "$results"
}
has flood && flood

# ---- the guest: indexing during rm -rf on the patched kernel ----
if [ $guest = 1 ]; then
	say "quick guest: rm -rf of 100,000 flagged files with trashd running"
	bz=${TRASHBIN_BZIMAGE_BENCH:-$("$top/kernel/build.sh")}
	if ! TRASHBIN_BZIMAGE=$bz TRASHBIN_GUEST_BINS="$trashd $trashctl" \
		flock /tmp/trashbin-qemu.lock "$top/vm/quick/run.sh" \
		--suite bench-trashd --disk-size 4G --timeout 3000 \
		> "$work/guest.tap" 2>&1; then
		echo "== the guest run failed:" >&2
		cat "$work/guest.tap" >&2
		guest=failed
	fi
	sed -n 's/^# bench-trashd //p' "$work/guest.tap" > "$work/guest.txt"
fi

# ---- the table ----
echo
[ "$smoke" = 1 ] &&
	echo "SMOKE RUN: tiny sizes; the figures below mean nothing"
echo "trashd bench: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);" \
	"host disk: $disk ($work)"
printf '%-52s %16s  %-26s %s\n' figure value target verdict
row() { printf '%-52s %16s  %-26s %s\n' "$@"; }
verdict() { if [ "$(calc "$1")" = 1 ]; then echo ok; else echo MISSED; fi; }
if [ $guest = failed ]; then
	row "guest: rm -rf of 100,000 flagged files" "-" "keeps up, none lost" \
		"FAILED (the guest run failed, above)"
elif [ $guest = 1 ]; then
	read -r _ n _ rm_ms _ ix_ms _ got _ intrash < "$work/guest.txt"
	ovf=$(awk '$1 == "overflows" { print $2 }' "$work/guest.txt")
	row "guest: rm -rf of $n flagged files (kernel)" \
		"$(calc "$n * 1000 / $rm_ms" | xargs printf '%.0f')/s" \
		"-" "(${rm_ms} ms; TCG, bench kernel)"
	row "guest: files indexed/s during it (all indexed)" \
		"$(calc "$n * 1000 / $ix_ms" | xargs printf '%.0f')/s" \
		"keeps up, none lost" \
		"$(verdict "$got == $n && $intrash == $n") ($got indexed, $intrash in trash, ${ix_ms} ms, $ovf overflows)"
fi
if has reconcile; then
row "host: $(commas $n_new) moved into the trash (rename)" \
	"$(printf '%.0f/s' "$(get live_moved)")" "-" "(as the kernel moves them)"
row "host: files indexed/s while they arrive" \
	"$(printf '%.0f/s' "$(get live_indexed)")" "none lost" \
	"$(verdict "$(get live_count) == $n_new") ($(get live_count) indexed, $(get live_overflows) inotify overflows)"
row "reconcile $(commas $n_new) new entries at start-up" \
	"$(printf '%.2f s' "$(get reconcile_cold)")" "-" \
	"$(verdict "$(get count_100k) == $n_new") ($(get count_100k) indexed)"
row "reconcile $(commas $n_new) known entries at start-up" \
	"$(printf '%.2f s' "$(get reconcile_warm)")" "-" ""
row "reconcile $(commas $n_more) new ($(commas $n_all) in all)" \
	"$(printf '%.2f s' "$(get reconcile_1m_cold)")" "no entry lost" \
	"$(verdict "$(get count_1m) == $n_all") ($(get count_1m) indexed)"
row "reconcile $(commas $n_all) known entries" \
	"$(printf '%.2f s' "$(get reconcile_1m_warm)")" "-" ""
for k in rss_cold rss_warm rss_list; do
	case $k in
	rss_cold) what="peak RSS, start-up indexing $(commas $n_all)" ;;
	rss_warm) what="peak RSS, restart with $(commas $n_all) + status" ;;
	rss_list) what="peak RSS, + trashctl list --all -n 1" ;;
	esac
	row "$what" "$(get $k) MiB" "< 64 MiB" "$(verdict "$(get $k) < 64")"
done
fi
if has wipe; then
limit=$(best dd_new)
[ "$(best dd_inplace)" -gt "$limit" ] && limit=$(best dd_inplace)
[ "$(best dd_random)" -gt "$limit" ] && limit=$(best dd_random)
row "disk: dd $size new file, conv=fdatasync" "$(best dd_new) MB/s" "-" ""
row "disk: dd $size in place, conv=fdatasync" "$(best dd_inplace) MB/s" "-" ""
row "disk: dd $size random data in place, fdatasync" "$(best dd_random) MB/s" "-" ""
row "shred -n 1, $size" "$(best shred) MB/s" "-" ""
row "trashd wipe, $size +s: the pass (1 random, synced)" "$(best wipe) MB/s" \
	">= 90% disk, >= shred" \
	"$(verdict "$(best wipe) >= 0.9 * $limit && $(best wipe) >= $(best shred)") ($(calc "100 * $(best wipe) / $limit" | xargs printf '%.0f')% of $limit MB/s)"
row "shred -n 1 -u (the pass, then remove), $size" "$(best shred_u) MB/s" "-" ""
row "trashd wipe, end to end (queued to unlinked)" "$(best wipe_e2e) MB/s" \
	">= shred -n 1 -u" \
	"$(verdict "$(best wipe_e2e) >= $(best shred_u)")"
fi
if has flood; then
	for w in indexed emptied; do
		row "B's status while A's 20,000 are $w: median" \
			"$(get flood_${w}_median) ms" "<= 100 ms" \
			"$(verdict "$(get flood_${w}_median) <= 100")"
		row "B's status while A's 20,000 are $w: max" \
			"$(get flood_${w}_max) ms" "<= 500 ms" \
			"$(verdict "$(get flood_${w}_max) <= 500")"
	done
fi
echo
echo "raw figures (best of $rounds rounds shown above; MB = MiB):"
sed 's/^/  /' "$results"
[ $guest != 0 ] && sed 's/^/  guest: /' "$work/guest.txt"
[ $guest != failed ]
