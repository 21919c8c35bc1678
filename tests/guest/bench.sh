#!/bin/sh
# Unlink rates inside the guest, for bench/unlink.sh: unflagged files and
# +u files (trash moves), for 10,000 and 100,000 empty files.  Each round
# creates the files untimed, syncs, then times only the unlinks.  Rounds
# alternate plain and flagged so drift hits both alike.
# bench/unlink.sh sets the sizes and the rounds on the kernel command line:
# trashbin.bench_sizes=N1,N2 (default 10000,100000), trashbin.bench_rounds=R
# (default 3 below 100,000 files, 1 from there).
. ./lib.sh

SIZES="10000 100000"
ROUNDS=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	trashbin.bench_sizes=*) SIZES=$(echo "${arg#*=}" | tr ',' ' ') ;;
	trashbin.bench_rounds=*) ROUNDS=${arg#*=} ;;
	esac
done

reset_trash
round() {	# KIND N
	rm -rf $M/b
	mkdir $M/b
	[ "$1" = flagged ] && tbtool chattr +u $M/b
	r=$(tbtool bench $M/b "$2") || { echo "# bench failed: $1 $2"; return 1; }
	echo "# bench $1 $2 $r"
	if [ "$1" = flagged ] && [ -e /proc/sys/fs/trashbin ]; then
		[ "$(count_entries $T/0)" = "$2" ] ||
			{ echo "# bench lost entries: $(count_entries $T/0) of $2"; return 1; }
	fi
	rm -rf $T/0
	sync
}
t_bench() {
	for n in $SIZES; do
		rounds=3
		[ "$n" -ge 100000 ] && rounds=1
		[ -n "$ROUNDS" ] && rounds=$ROUNDS
		i=0
		while [ $i -lt $rounds ]; do
			round plain "$n" || exit 1
			round flagged "$n" || exit 1
			i=$((i + 1))
		done
	done
}
run_test "unlink benchmark" t_bench
done_testing
