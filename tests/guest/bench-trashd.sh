#!/bin/sh
# trashd's indexing rate during a flagged rm -rf, for bench/trashd.sh:
# BENCH_FILES (100,000) empty files in a +u directory of alice, created
# untimed and synced; then rm -rf, timed, while trashd indexes.  Prints
#   # bench-trashd files N rm_ms R indexed_ms I indexed N' in_trash T
#   # bench-trashd overflows O
# where I is when the index first held all N (from the start of rm -rf).
. ./lib.sh

N=${BENCH_FILES:-100000}
trashd_setup

t_bench() {
	fresh_state
	start_trashd
	fresh_dir b 1000
	as 1000 sh -c "mkdir $M/b/tree && tbtool chattr +u $M/b/tree &&
		tbtool mkfiles $M/b/tree $N" || die "setup failed"
	sync
	t0=$(tbtool now)
	as 1000 rm -rf $M/b/tree &
	rmpid=$!
	n=0
	last=-1
	since=$t0
	t1=
	t2=
	while [ "$n" != "$N" ] || [ -z "$t1" ]; do
		sleep 1
		if [ -z "$t1" ] && ! alive $rmpid; then
			wait $rmpid || die "rm -rf failed"
			t1=$(tbtool now)
		fi
		n=$(indexed_count 1000)
		now=$(tbtool now)
		[ "$n" = "$N" ] && [ -z "$t2" ] && t2=$now
		if [ "$n" != "$last" ]; then
			last=$n
			since=$now
		fi
		[ $((now - since)) -gt 120000 ] &&
			die "index stuck at $n of $N for 120 s"
	done
	echo "bench-trashd files $N rm_ms $((t1 - t0)) indexed_ms $((t2 - t0))" \
		"indexed $n in_trash $(count_entries $T/1000)"
	echo "bench-trashd overflows $(grep -c 'queue overflow' $TD_LOG)"
	stop_trashd
}
run_test "trashd indexing during rm -rf of $N files" t_bench
[ $TB_FAILED -gt 0 ] && trashd_logs
done_testing
