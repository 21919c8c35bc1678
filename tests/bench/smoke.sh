#!/bin/bash
# A bench's smoke run (bench/NAME.sh --smoke: tiny sizes, seconds): it
# must run to its end, say it is a smoke run, and print every one of its
# figure lines with a number in it; a figure gone missing, a rate of 0, an
# empty value or a shell or bc or awk error on the way fails.  Its figures
# themselves mean nothing and are not judged (a smoke run misses targets).
#
#   tests/bench/smoke.sh trashd|restore|unlink|pressure WORKDIR
#
# WORKDIR keeps the bench's optimised build (a second run is
# incremental) and the run's output (NAME.out, NAME.err).  $SMOKE_BUILD
# names a Release build tree to use instead (ctest gives the one the
# build-release-clang test made, so that the default tier builds Release
# once).  The expected
# lines below follow the benches' --smoke sizes: change both together.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
name=${1:?usage: $0 trashd|restore|unlink|pressure WORKDIR}
work=${2:?usage: $0 trashd|restore|unlink|pressure WORKDIR}
mkdir -p "$work"
out=$work/$name.out
err=$work/$name.err

num='[0-9]+(\.[0-9]+)?'			# any number, 0 included
pos='(0*[1-9][0-9]*(\.[0-9]+)?|0*\.[0-9]*[1-9][0-9]*|0\.[0-9]*[1-9][0-9]*)'	# > 0
gap=' +'
case $name in
trashd)
	run=(env BENCH_BUILD="${SMOKE_BUILD:-$work/build-trashd}" BENCH_DIR=/var/tmp
		bash "$top/bench/trashd.sh" --smoke)
	expect=(
	"^host: 300 moved into the trash \(rename\)$gap$pos/s "
	"^host: files indexed/s while they arrive$gap$pos/s "
	"^reconcile 300 new entries at start-up$gap$num s "
	"^reconcile 300 known entries at start-up$gap$num s"
	"^reconcile 200 new \(500 in all\)$gap$num s "
	"^reconcile 500 known entries$gap$num s"
	"^peak RSS, start-up indexing 500$gap$pos MiB "
	"^peak RSS, restart with 500 \+ status$gap$pos MiB "
	"^peak RSS, \+ trashctl list --all -n 1$gap$pos MiB "
	"^disk: dd 4 MiB new file, conv=fdatasync$gap$pos MB/s"
	"^disk: dd 4 MiB in place, conv=fdatasync$gap$pos MB/s"
	"^disk: dd 4 MiB random data in place, fdatasync$gap$pos MB/s"
	"^shred -n 1, 4 MiB$gap$pos MB/s"
	"^trashd wipe, 4 MiB \+s: the pass \(1 random, synced\)$gap$pos MB/s "
	"^shred -n 1 -u \(the pass, then remove\), 4 MiB$gap$pos MB/s"
	"^trashd wipe, end to end \(queued to unlinked\)$gap$pos MB/s "
	"^B's status while A's 20,000 are indexed: median$gap$num ms "
	"^B's status while A's 20,000 are indexed: max$gap$num ms "
	"^B's status while A's 20,000 are emptied: median$gap$num ms "
	"^B's status while A's 20,000 are emptied: max$gap$num ms "
	) ;;
restore)
	run=(env TRASHBIN_BENCH_BUILD="${SMOKE_BUILD:-$work/build-restore}"
		BENCH_BUILD_TYPE="${SMOKE_BUILD:+Release}"
		bash "$top/bench/restore.sh" --smoke)
	expect=(
	"^300$gap""list the trash$gap${pos}ms$gap${pos}ms$gap${num}x "
	"^300$gap""restore one file by path$gap${pos}ms$gap${pos}ms$gap${num}x "
	"^300$gap""status, 16 clients$gap$pos/s "
	"^300$gap""quota, 16 clients$gap$pos/s "
	"^300$gap\(trashd: index at start-up\)$gap${num}s "
	) ;;
unlink)
	# Both sides on the given kernel ($TRASHBIN_BZIMAGE): see
	# bench/unlink.sh --smoke.
	run=(bash "$top/bench/unlink.sh" --smoke)
	expect=(
	"^100$gap""unflagged/s: A vanilla, B patched$gap$pos$gap$pos$gap${num}x$gap$pos$gap$pos$gap${num}x "
	"^100$gap""patched/s: A plain, B flagged$gap$pos$gap$pos$gap${num}x$gap$pos$gap$pos$gap${num}x "
	) ;;
pressure)
	# Both sides on the given kernel ($TRASHBIN_BZIMAGE): see
	# bench/pressure.sh --smoke.
	run=(env BENCH_BUILD="${SMOKE_BUILD:-$work/build-pressure}"
		bash "$top/bench/pressure.sh" --smoke)
	expect=(
	"^trash of 8 MiB in 1 MiB files$gap$num$gap$num$gap$pos$gap$pos$"
	"^trash of 8 MiB in 1 KiB files$gap$num$gap$num$gap$pos$gap$pos$"
	"^trash of 8 MiB in \+s files of 1 MiB$gap$num$gap$num$gap$pos$gap($pos|failed-after-$pos)$"
	"^unflagged writes of 8 MiB, never out of space \(icount ms\): vanilla $pos, patched $pos, [-+]$num%; best rounds $pos, $pos, [-+]$num% "
	"^unflagged writes of 16 MiB into the page cache \(icount us, median of 3\): vanilla $pos, patched without trashd $pos \([-+]$num%\), patched with trashd $pos \([-+]$num%\); rounds spread $num%, $num%, $num% "
	"^the same writes on vanilla with one inotify watch on /\.trash, no daemon \(icount us, median of 3\): $pos \([-+]$num% vs vanilla\); rounds spread $num%$"
	) ;;
*)
	echo "$0: no bench '$name' (trashd, restore, unlink or pressure)" >&2
	exit 2 ;;
esac

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
t0=$(date +%s)
"${run[@]}" > "$out" 2> "$err"
rc=$?
echo "# bench/$name.sh --smoke: exit $rc after $(($(date +%s) - t0)) s"
[ $rc = 0 ] || fail "bench/$name.sh --smoke exited with status $rc"
grep -q 'SMOKE RUN' "$out" ||
	fail "its table does not say that it is a smoke run"
for re in "${expect[@]}"; do
	if line=$(grep -E -m 1 -e "$re" "$out"); then
		echo "ok: $line"
	else
		fail "no figure line matching: $re"
	fi
done
# Errors the table's arithmetic would hide behind a 0 or a blank.
if grep -n -E 'invalid number|syntax error|division by zero|parse error|unbound variable|command not found|[^a-z](-?nan|inf)[^a-z]' \
    "$out" "$err"; then
	fail "errors in its output (above)"
fi
if [ $fails -gt 0 ]; then
	echo "== its stdout ($out):"
	cat "$out"
	echo "== the end of its stderr ($err):"
	tail -n 40 "$err"
	echo "$fails failures"
	exit 1
fi
echo "all ${#expect[@]} figure lines there"
