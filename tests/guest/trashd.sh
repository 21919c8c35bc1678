#!/bin/sh
# trashd on the patched kernel: real rm, real chattr flags, real users and
# a real disk (/dev/vda at /mnt).  trashd runs in the background (see
# start_trashd in lib.sh); every test talks to it through trashctl.
. ./lib.sh

A=1000		# alice
B=1001		# bob
trashd_setup

took() { echo "took $((($(tbtool now) - $1) / 1000)) s"; }

# wait_indexed UID PATH T0: wait until PATH shows up in UID's list with
# its original path, owner and deleter; print the ms since T0 (tbtool now).
# An upper bound: each trashctl run costs some 0.3 s on this kernel.
wait_indexed() {
	while :; do
		# Each field on its own: the entry's object holds more (the
		# user's name, after its uid).
		if as "$1" trashctl -j list | grep -o '{[^{}]*}' |
			grep -F "\"fs\":\"/mnt\",\"path\":\"$2\"," |
			grep -F "\"uid\":$1," | grep -F "\"owner\":$1," |
			grep -qF "\"deleter\":$1,"; then
			echo $(($(tbtool now) - $3))
			return 0
		fi
		[ $(($(tbtool now) - $3)) -gt 5000 ] && return 1
		usleep 10000
	done
}

# index_latency UID PATH: ms from the kernel's move into the trash (the
# entry's deleted_ns) to trashd's indexing of it (its "trashed" audit row,
# written in the transaction that adds the entry).
index_latency() {
	e=$(as "$1" trashctl -j list | grep -o '{[^{}]*}' |
		grep -F "\"path\":\"$2\"")
	id=$(echo "$e" | sed -n 's/^{"id":\([0-9]*\),.*/\1/p')
	del=$(echo "$e" | sed -n 's/.*"deleted_ns":\([0-9]*\),.*/\1/p')
	at=$(trashctl -j audit -A trashed | grep -o '{[^{}]*}' |
		grep -F "\"entry\":$id," |
		sed -n 's/.*"time_ns":\([0-9]*\),.*/\1/p')
	[ -n "$id" ] && [ -n "$del" ] && [ -n "$at" ] ||
		die "$2: no entry or no audit row: '$e'"
	echo $(((at - del) / 1000000))
}

# 1. Each rm'd flagged file is in the index, with its original path,
#    owner and deleter, within a second; a user sees their own only.
t_index_latency() {
	tstart=$(tbtool now)
	fresh_state
	start_trashd "grace 1h"
	fresh_dir lat-a $A
	fresh_dir lat-b $B
	worst=0
	for i in 1 2 3 4 5 6; do
		for u in $A $B; do
			flag=u
			[ $((i % 2)) = 0 ] && flag=s
			f=$M/lat-a/file$i.$flag
			[ $u = $B ] && f="$M/lat-b/note $i.$flag"
			as $u sh -c "echo data $i > '$f' && tbtool chattr +$flag '$f'" ||
				die "setup of $f failed"
			t0=$(tbtool now)
			as $u rm "$f" || die "rm $f failed"
			seen=$(wait_indexed $u "$f" "$t0") ||
				die "$f: not listed after 5 s"
			ms=$(index_latency $u "$f") || die "$ms"
			echo "$f: indexed $ms ms after the move; listed by trashctl after $seen ms"
			[ "$ms" -gt "$worst" ] && worst=$ms
			[ "$ms" -le 1000 ] || die "$f: indexed after $ms ms (> 1 s)"
		done
	done
	echo "worst: $worst ms"
	check_eq "alice's entries" 6 "$(indexed_count $A)"
	check_eq "bob's entries seen by alice" 0 \
		"$(as $A trashctl -j list | grep -c 'lat-b')"
	took "$tstart"
}

# 2. rm -rf of many flagged files: none lost, each with its path.  2,000
# in the default tier; the long tier (tests/run-all.sh --long) runs
# 20,000, enough to overflow inotify's queue (trashbin.files=N).
N_BIG=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.files=//p')
N_BIG=${N_BIG:-2000}
t_rm_rf_many() {
	tstart=$(tbtool now)
	fresh_state
	start_trashd
	fresh_dir big $A
	t0=$(tbtool now)
	# Two halves made in parallel (two vCPUs), inheriting +u from tree.
	as $A sh -c "mkdir $M/big/tree && tbtool chattr +u $M/big/tree &&
		mkdir $M/big/tree/a $M/big/tree/b &&
		{ tbtool mkfiles $M/big/tree/a $((N_BIG / 2)) & p=\$!;
		tbtool mkfiles $M/big/tree/b $((N_BIG - N_BIG / 2)) &&
		wait \$p; }" || die "setup failed"
	sync
	echo "created $N_BIG files in $(($(tbtool now) - t0)) ms"
	t0=$(tbtool now)
	as $A rm -rf $M/big/tree || die "rm -rf failed"
	t1=$(tbtool now)
	check_absent $M/big/tree
	n=0
	last=-1
	since=$t1
	while [ "$n" != "$N_BIG" ]; do
		n=$(indexed_count $A)
		now=$(tbtool now)
		if [ "$n" != "$last" ]; then
			last=$n
			since=$now
		fi
		[ $((now - since)) -gt 60000 ] &&
			die "index stuck at $n of $N_BIG for 60 s"
		usleep 200000
	done
	t2=$(tbtool now)
	echo "rm -rf of $N_BIG files: $((t1 - t0)) ms; all indexed" \
		"$((t2 - t0)) ms after its start" \
		"($((N_BIG * 1000 / (t2 - t0))) files/s)"
	echo "inotify overflows: $(grep -c 'queue overflow' $TD_LOG)"
	check_eq "files in /.trash/$A" "$N_BIG" "$(count_entries $T/$A)"
	all=$(trashctl -j list --all)
	check_eq "entries listed (all users)" "$N_BIG" \
		"$(echo "$all" | sed -n 's/.*\],"count":\([0-9]*\),.*/\1/p')"
	check_eq "distinct original paths" "$N_BIG" \
		"$(echo "$all" | grep -o '"path":"/mnt/big/tree/[ab]/f[0-9]*"' |
			sort -u | wc -l)"
	took "$tstart"
}

# 3. Files the kernel trashed while trashd was down are indexed, with
#    their paths, when it starts; those that left meanwhile are not live.
t_down() {
	fresh_state
	start_trashd
	fresh_dir down $A
	as $A sh -c "cd $M/down && tbtool mkfiles . 30 && tbtool chattr +u f* &&
		rm f1 f2 f3" || die "rm failed"
	# The three indexed before the stop (inotify is asynchronous: on a
	# fast kernel the stop can come first, and f1 would never have been
	# known, so there would be nothing to record as gone).
	i=0
	until [ "$(indexed_count $A)" = 3 ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && die "f1-f3 not indexed after 30 s: $(indexed_count $A)"
		usleep 100000
	done
	stop_trashd
	as $A sh -c "cd $M/down && rm f*" ||
		die "rm while trashd was down failed"
	as $A rm $T/$A/f1 || die "emptying an entry failed"
	start_trashd
	check_eq "entries after the restart" 29 "$(indexed_count $A)"
	check_eq "their paths" 29 "$(as $A trashctl -j list |
		grep -o '"path":"/mnt/down/f[0-9]*"' | sort -u | wc -l)"
	check_eq "the one emptied meanwhile, recorded as gone" 1 \
		"$(trashctl -j audit -A restored | grep -o '{[^{}]*}' |
			grep -c "\"path\":\"down/f1\"")"
}

# 4. The wipe reaches the disk: a +s file's bytes are gone from /dev/vda,
#    a +u file's are still there.
t_wipe_on_disk() {
	tstart=$(tbtool now)
	fresh_state
	start_trashd "grace 0s"
	fresh_dir w $A
	sec="TBSECRET-$(cat /proc/sys/kernel/random/uuid)-"
	keep="TBKEEP-$(cat /proc/sys/kernel/random/uuid)-"
	as $A tbtool fill $M/w/secret 1048576 "$sec" || die "fill failed"
	as $A tbtool fill $M/w/kept 1048576 "$keep" || die "fill failed"
	as $A tbtool chattr +s $M/w/secret || die "chattr +s failed"
	as $A tbtool chattr +u $M/w/kept || die "chattr +u failed"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	# "S K": copies of the +s and of the +u marker on the disk
	before=$(echo $(tbtool scan /dev/vda "$sec" "$keep"))
	copies=$((1048576 / ${#sec}))
	[ "${before%% *}" -ge "$copies" ] ||
		die "the +s marker is not all on the disk before: $before"
	as $A rm $M/w/secret $M/w/kept || die "rm failed"
	i=0
	until [ -z "$(ls -A $T/.wipe)" ] && [ ! -e $T/$A/secret ] &&
	    trashctl -j audit -A wiped | grep -q "\"path\":\"w/secret\""; do
		i=$((i + 1))
		[ $i -gt 300 ] && die "not wiped after 30 s: $(ls -A $T/.wipe)"
		usleep 100000
	done
	trashctl -j audit -A wiped | grep -o '"result":"[^"]*"'
	trashctl -j audit -A wiped | grep -q '"result":"ok: 1 passes' ||
		die "the wipe did not report success"
	check_exists $T/$A/kept
	sync
	echo 3 > /proc/sys/vm/drop_caches
	after=$(echo $(tbtool scan /dev/vda "$sec" "$keep"))
	echo "marker copies on /dev/vda (+s +u): before $before, after $after"
	check_eq "+s marker copies after the wipe" 0 "${after%% *}"
	check_eq "+u marker copies after" "${before#* }" "${after#* }"
	took "$tstart"
}

# 5. A /.trash that the kernel would ignore, trashd refuses too: it
#    follows no symlink, fixes no mode, creates nothing; a valid one is
#    taken.
refused() {	# WHAT
	start_trashd
	grep -q 'refusing this filesystem' $TD_LOG ||
		die "$1: not refused: $(cat $TD_LOG)"
	trashctl -j status | grep -q '"fs":"/mnt"' &&
		die "$1: trashd manages /mnt"
	stop_trashd
}
t_refuse_bad_trash() {
	tstart=$(tbtool now)
	fresh_state
	rm -rf $T $M/elsewhere
	mkdir -m 0755 $M/elsewhere
	ln -s elsewhere $T
	refused "/.trash a symlink"
	[ -L $T ] || die "the symlink was replaced"
	check_eq "made behind the symlink" "" "$(ls -A $M/elsewhere)"
	rm $T
	for mode in 0777 0775 0757; do
		reset_trash
		chmod $mode $T
		refused "/.trash mode $mode"
		check_eq "mode left alone" "${mode#0}" "$(stat -c %a $T)"
		check_eq "made in it" "" "$(ls -A $T)"
	done
	reset_trash
	chown $A $T
	refused "/.trash owned by $A"
	reset_trash
	start_trashd
	grep -q "managing $M/.trash" $TD_LOG || die "a valid /.trash refused"
	check_eq ".wipe" 700 "$(stat -c %a $T/.wipe)"
	took "$tstart"
}

# 6. min-age: a file deleted within N s of its creation (btime, which the
#    move into the trash keeps) is purged at once; an older one is kept.
t_min_age() {
	tstart=$(tbtool now)
	fresh_state
	start_trashd "min-age 3s" "grace 1h"
	fresh_dir age $A
	as $A sh -c "cd $M/age && echo old > old && tbtool chattr +u old" ||
		die "setup failed"
	sleep 4
	as $A sh -c "cd $M/age && echo tmp > tmp.swp && tbtool chattr +u tmp.swp &&
		echo sec > sec.swp && tbtool chattr +s sec.swp && rm old tmp.swp sec.swp" ||
		die "rm failed"
	i=0
	until [ ! -e $T/$A/tmp.swp ] && [ ! -e $T/$A/sec.swp ] &&
	    [ -z "$(ls -A $T/.wipe)" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && die "young files still there after 10 s:" \
			"$(ls -A $T/$A $T/.wipe)"
		usleep 100000
	done
	check_exists $T/$A/old
	check_eq "purged for min-age" 1 \
		"$(trashctl -j audit -A purged | grep -o "\"path\":\"age/tmp.swp\"[^}]*min-age" | wc -l)"
	check_eq "wiped, queued for min-age" 1 \
		"$(trashctl -j audit -A wipe-queued | grep -o "\"path\":\"age/sec.swp\"[^}]*min-age" | wc -l)"
	check_eq "alice's list" 1 "$(indexed_count $A)"
	took "$tstart"
}

run_test "rm'd flagged files are indexed with their path within 1 s" t_index_latency
run_test "rm -rf of $N_BIG flagged files: none lost" t_rm_rf_many
run_test "entries trashed while trashd was down are indexed at start" t_down
run_test "+s wiped off the raw disk, +u kept" t_wipe_on_disk
run_test "a /.trash the kernel ignores is refused" t_refuse_bad_trash
run_test "min-age purges files deleted young" t_min_age
stop_trashd
[ $TB_FAILED -gt 0 ] && trashd_logs
done_testing
