#!/bin/sh
# Space pressure figures inside the guest, for bench/pressure.sh.
#   wait: a filesystem of FILL + 64 MiB whose trash holds FILL MiB (1 MiB
#         files, 1 KiB files, +s files of 1 MiB) and the rest a plain
#         file but 2 MiB; the same again is written at once; every time
#         a writer waited, trashd logs how long until its answer (the
#         retry): "bp wait KIND US" a wait.
#   write: FILL MiB of unflagged writes that never run out of space, with
#         trashd listening (its pressure file open) on the patched kernel:
#         "bp write MIB MS", timed by the guest's clock (icount: work);
#         then the writes alone, into the page cache, writeback held off
#         (tbtool pagecache): "bp page MIB US" a round.
# The kernel command line: trashbin.bp_fill=MIB (default 160),
# trashbin.bp_kinds=1m,1k,s (wait; default all), trashbin.bp_rounds=R,
# trashbin.bp_page_rounds=R (write; default 21).
. ./lib.sh

FILL=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.bp_fill=//p')
FILL=${FILL:-160}
KINDS=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.bp_kinds=//p' | tr ',' ' ')
KINDS=${KINDS:-1m 1k s}
ROUNDS=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.bp_rounds=//p')
ROUNDS=${ROUNDS:-3}
PAGE_ROUNDS=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.bp_page_rounds=//p')
PAGE_ROUNDS=${PAGE_ROUNDS:-21}
BP_TRASHD=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.bp_trashd=//p')
BP_WM=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.bp_watermark=//p')
# The writers' bound, if given (trashbin.space_wait_ms=): the smoke run
# gives 20 s, as on a loaded host the instruction counter's clock warps
# past a wipe's fsync that the host is slow to finish.
BP_WAIT=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.space_wait_ms=//p')
[ -z "$BP_WAIT" ] || [ ! -e /proc/sys/fs/trashbin/space_wait_ms ] ||
	echo "$BP_WAIT" > /proc/sys/fs/trashbin/space_wait_ms
A=1000
trashd_setup
IMG=$M/bp.img
P=/p
M=$P
T=$P/.trash
mkdir -p $P

fresh_fs() {
	stop_trashd
	rm -f $TD_DB $TD_DB-wal $TD_DB-shm
	umount $P 2>/dev/null
	rm -f $IMG
	truncate -s $((FILL + 64))M $IMG
	/usr/local/bin/mke2fs -q -F -t ext4 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 $IMG || die "mke2fs"
	mount -o loop $IMG $P || die "mount"
	mkdir -m 0755 $T
	mkdir -m 0755 $P/$A
	chown $A:$A $P/$A
}

# The trash holds FILL MiB of allocated space, in files of KIND.
fill() {
	as $A mkdir $P/$A/d
	case $1 in
	1m) tbtool chattr +u $P/$A/d
	    i=0
	    while [ $i -lt "$FILL" ]; do
		as $A tbtool write buffered $P/$A/d/f$i 1 $i > /dev/null || die "fill"
		i=$((i + 1))
	    done ;;
	1k) tbtool chattr +u $P/$A/d
	    # A 1 KiB file takes a 4 KiB block.
	    as $A tbtool mkfiles $P/$A/d $((FILL * 256)) 1024 || die "mkfiles" ;;
	s)  tbtool chattr +s $P/$A/d
	    i=0
	    while [ $i -lt "$FILL" ]; do
		as $A tbtool write buffered $P/$A/d/f$i 1 $i > /dev/null || die "fill"
		i=$((i + 1))
	    done ;;
	esac
	as $A rm -rf $P/$A/d || die "rm -rf"
	# Indexed before the write: the bench measures purges, not the scan.
	i=0
	until [ "$(indexed_count $A)" -gt 0 ] &&
	      [ "$(indexed_count $A)" = "$last" ]; do
		last=$(indexed_count $A)
		i=$((i + 1))
		[ $i -gt 600 ] && die "not indexed"
		sleep 1
	done
}

t_wait() {
	for k in $KINDS; do
		r=0
		while [ $r -lt "$ROUNDS" ]; do
			fresh_fs
			start_trashd "grace 1h"
			fill $k
			free=$(df -m $P | awk 'NR == 2 { print $4 }')
			[ "$free" -gt 2 ] && { as $A tbtool write buffered \
				$P/$A/ballast $((free - 2)) 3 > /dev/null || die "ballast"; }
			t0=$(tbtool now)
			if ! ms=$(as $A tbtool write buffered $P/$A/new "$FILL" 1 2>&1); then
				# A figure too: the writer gave up (its bound).
				echo "$ms"
				ms="failed-after-$(($(tbtool now) - t0))"
				grep pressure $TD_LOG | tail -n 20
			fi
			sed -n 's/.*pressure: [^:]*: answered after \([0-9]*\) us.*/\1/p' \
				$TD_LOG | sed "s/^/bp wait $k /"
			echo "bp total $k $FILL $ms"
			r=$((r + 1))
		done
	done
}

t_write() {
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		fresh_fs
		[ -e /proc/sys/fs/trashbin ] && start_trashd
		sync
		ms=$(as $A tbtool write buffered $P/$A/plain "$FILL" 2) ||
			die "write: $ms"
		echo "bp write $FILL $ms"
		r=$((r + 1))
	done
}

# What the patched kernel adds to a write that finds room is in ext4's
# claim of a delayed allocation's block (ext4_has_free_clusters: the
# watermark's test), once a page: 16 MiB of pages written, no more.  The
# same rounds in one process, trashd listening with a watermark (so the
# kernel's test runs in full), writeback held off so that no flusher's
# work lands in the writer's time.
t_page() {
	fresh_fs
	# trashbin.bp_trashd=0: the patched kernel without its daemon (what
	# the kernel alone costs; with the daemon, also what it does);
	# trashbin.bp_trashd=inotify: no daemon, only an inotify watch on
	# /.trash, trashd's own (what any watch on the filesystem costs a
	# write: fsnotify's per-write hook runs once the superblock has one);
	# trashbin.bp_watermark=N%: the daemon's mark (default 5%).
	watch=
	if [ "$BP_TRASHD" = inotify ]; then
		tbtool watch "$T" > /tmp/watch.out &
		watch=$!
		# The writes are measured with the watch in place, not before.
		until grep -q watching /tmp/watch.out; do
			alive $watch || die "tbtool watch: $(cat /tmp/watch.out)"
			usleep 10000
		done
	elif [ -e /proc/sys/fs/trashbin ] && [ "$BP_TRASHD" != 0 ]; then
		TD_WATERMARK=${BP_WM:-5%} start_trashd
	fi
	sync
	wb=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	dr=$(cat /proc/sys/vm/dirty_ratio)
	dbr=$(cat /proc/sys/vm/dirty_background_ratio)
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	echo 95 > /proc/sys/vm/dirty_ratio
	echo 90 > /proc/sys/vm/dirty_background_ratio
	out=$(as $A tbtool pagecache $P/$A/page 16 "$PAGE_ROUNDS") ||
		die "pagecache: $out"
	echo "$out" | sed 's/^/bp page 16 /'
	[ -z "$watch" ] || kill "$watch"
	echo "$dbr" > /proc/sys/vm/dirty_background_ratio
	echo "$dr" > /proc/sys/vm/dirty_ratio
	echo "$wb" > /proc/sys/vm/dirty_writeback_centisecs
}

case " $(cat /proc/cmdline) " in
*" trashbin.bp_mode=write "*)
	run_test "unflagged writes" t_write
	run_test "unflagged writes into the page cache" t_page ;;
*) run_test "writers' waits at ENOSPC" t_wait ;;
esac
stop_trashd
umount $P 2>/dev/null
done_testing
