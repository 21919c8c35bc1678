#!/bin/sh
# The kernel's promise under concurrency: every flagged inode whose last
# name goes ends up exactly once in /.trash/<uid>/ with a complete
# trusted.trash record; none disappears; none is both live and trashed
# unless it really still has a live name.  Lockstep races, one per pair of
# operations, then a seeded random multi-uid workload (a quarter of it
# through io_uring).  tbrace checks the invariant after each; the runner
# checks the console for kernel reports and the disk with e2fsck -fn.
#
# Kernel command line (vm/quick/run.sh --append): trashbin.rounds=N
# lockstep rounds per race (default 150), trashbin.seed=S and
# trashbin.seconds=T for the random workload (default 20260101 and 60).
. ./lib.sh

A=1000
B=1001
ROUNDS=150
SEED=20260101
SECONDS_=60
STRESS_SECONDS=15
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	trashbin.rounds=*) ROUNDS=${arg#*=} ;;
	trashbin.seed=*) SEED=${arg#*=} ;;
	trashbin.seconds=*) SECONDS_=${arg#*=} ;;
	trashbin.stress_seconds=*) STRESS_SECONDS=${arg#*=} ;;
	esac
done

race() {	# KIND [MODE of $A's trash dir, made before]
	fresh_dir r 0
	reset_trash
	chmod 0777 $M/r
	tbtool chattr +u $M/r
	if [ -n "${2:-}" ]; then
		mkdir $T/$A && chown $A:$A $T/$A && chmod "$2" $T/$A
	fi
	tbrace race "$1" $M/r $T "$ROUNDS" $A $B || die "invariant broken"
}

for kind in unlink-unlink renameover-unlink renameover-renameover \
	unlink-link unlink-rename exchange-unlink failedrename-undo \
	renameover-renameaway; do
	eval "t_$(echo $kind | tr - _)() { race $kind; }"
	run_test "lockstep race $kind, $ROUNDS rounds, uids $A and $B" \
		"t_$(echo $kind | tr - _)"
done
# $B renames over $A's file (its trash link goes to her trash) while she
# renames it away, in a trash dir she made sticky (she may: it is hers):
# the link $B's rename made must still go again, the file is live.
t_renameaway_sticky() { race renameaway-renameover 1700; }
run_test "lockstep race renameaway-renameover, $ROUNDS rounds, $A's trash sticky" \
	t_renameaway_sticky
# $B renames over $A's file while she links its new trash link out and
# restores it (moves it out of her trash) before his rename is done: his
# rename's clean-up of that link must not remove the name she restored.
t_restore_renameover() { race restore-renameover 0700; }
run_test "lockstep race restore-renameover, $ROUNDS rounds, uids $A and $B" \
	t_restore_renameover

t_random() {
	fresh_dir w 0
	reset_trash
	chmod 0777 $M/w
	tbtool chattr +u $M/w
	tbrace random $M/w $T "$SEED" "$SECONDS_" 4 $A $B ||
		die "invariant broken (seed $SEED: rerun with trashbin.seed=$SEED)"
}
run_test "random workload, seed $SEED, ${SECONDS_}s, 4 processes, 2 uids" t_random

# A regression suite nobody on this project wrote: stress-ng's filesystem
# stressors, on a +u tree, must pass as they do on the vanilla kernel
# (ctest -L vanilla runs them there), with every trash entry recorded.
t_stress_ng() {
	command -v stress-ng >/dev/null ||
		die "no stress-ng in the guest (TRASHBIN_GUEST_BINS=/usr/bin/stress-ng)"
	fresh_dir sng 0
	reset_trash
	[ -d /proc/sys/fs/trashbin ] && tbtool chattr +u $M/sng
	cd $M/sng
	stress-ng --temp-path $M/sng --timeout ${STRESS_SECONDS}s --metrics-brief \
		--rename 1 --link 1 --symlink 1 --dentry 1 --dir 1 \
		--filename 1 --xattr 1 --chattr 1 \
		--fallocate 1 --fallocate-bytes 1m --hdd 1 --hdd-bytes 1m --sync-file 1 \
		--sync-file-bytes 1m --verify > /tmp/sng.log 2>&1
	rc=$?
	cd /
	sed 's/^/stress-ng: /' /tmp/sng.log | tail -n 30
	[ "$rc" = 0 ] || die "stress-ng failed with status $rc"
	[ -d /proc/sys/fs/trashbin ] || return 0
	n=$(find $T -type f | wc -l)
	echo "trash entries from stress-ng: $n"
	[ "$n" -gt 0 ] || die "nothing trashed: the tree was not flagged?"
	: > /tmp/none.tags
	tbrace check $M/sng $T /tmp/none.tags || die "incomplete trash records"
}
run_test "stress-ng filesystem stressors on a +u tree, ${STRESS_SECONDS}s" t_stress_ng
done_testing
