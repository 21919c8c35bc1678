#!/bin/sh
# The kernel contract (Documentation/filesystems/trashbin.rst), one case
# per behaviour, on a fresh ext4 disk mounted at /mnt.
. ./lib.sh

A=1000		# an unprivileged user
B=1001		# another one

# 1. Unflagged files are deleted for real; nothing appears in the trash.
t_unflagged() {
	reset_trash
	fresh_dir t1 $A
	as $A sh -c 'echo data > /mnt/t1/plain && rm /mnt/t1/plain' ||
		die "rm failed"
	check_absent $M/t1/plain
	check_absent $T/$A
	check_eq "trash entries" 0 "$(ls -A $T | wc -l)"
}

# 2. +u and +s files go to /.trash/<uid>/ intact, with their metadata.
trashed_intact() {	# FLAG NAME
	reset_trash
	fresh_dir t2 $A
	f=$M/t2/$2
	as $A sh -c "printf 'contents of %s\n' $2 > $f && chmod 640 $f &&
		touch -d '2021-02-03 04:05:06' $f && tbtool chattr +$1 $f" ||
		die "setup failed"
	before=$(stat -c '%u %g %a %Y %s %i' $f)
	sum=$(md5sum < $f)
	t0=$(date +%s)
	as $A rm $f || die "rm failed"
	t1=$(date +%s)
	check_absent $f
	e=$T/$A/$2
	check_exists $e
	check_eq "owner, mode, mtime, size, inode" "$before" \
		"$(stat -c '%u %g %a %Y %s %i' $e)"
	check_eq "contents" "$sum" "$(md5sum < $e)"
	check_eq "flags kept" "$1" "$(tbtool lsattr $e)"
	check_eq "record path" "t2/$2" "$(xget $e path)"
	check_eq "record uid" "$A" "$(xget $e uid)"
	t=$(xget $e time)
	case "$t" in
	[0-9]*.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) ;;
	*) die "record time '$t' is not SECONDS.NANOSECONDS" ;;
	esac
	[ "${t%.*}" -ge "$t0" ] && [ "${t%.*}" -le "$t1" ] ||
		die "record time $t not within [$t0, $t1]"
	# A user cannot read or forge the trusted.* record.
	as $A tbtool getxattr $e trusted.trash 2>/dev/null &&
		die "user read trusted.trash"
	as $A tbtool setxattr $e trusted.trash "0.000000000 0 etc/shadow" \
		2>/dev/null && die "user forged trusted.trash"
	check_eq "record path after forgery" "t2/$2" "$(xget $e path)"
}
t_trash_u() { trashed_intact u file-u.txt; }
t_trash_s() { trashed_intact s file-s.txt; }

# Root deleting a user's file: it goes to root's trash, owner kept.
t_trash_by_deleter() {
	reset_trash
	fresh_dir t2b $A
	as $A sh -c 'echo x > /mnt/t2b/f && tbtool chattr +u /mnt/t2b/f'
	rm $M/t2b/f || die "rm failed"
	check_exists $T/0/f
	check_eq "owner" $A "$(stat -c %u $T/0/f)"
	check_eq "record uid" 0 "$(xget $T/0/f uid)"
	check_absent $T/$A
}

# Every way of removing a link is caught: unlinkat(2) from rm, unlink(2),
# io_uring's IORING_OP_UNLINKAT.
t_unlink_paths() {
	reset_trash
	fresh_dir t2c $A
	as $A sh -c 'cd /mnt/t2c && for f in a b c; do echo $f > $f; done &&
		tbtool chattr +u a b c && rm a && tbtool unlink b &&
		tbtool uring-unlink c' || die "removal failed"
	for f in a b c; do
		check_absent $M/t2c/$f
		check_eq "$f in trash" $f "$(cat $T/$A/$f)"
		check_eq "$f's path" t2c/$f "$(xget $T/$A/$f path)"
	done
	# io_uring refusals come back through the completion too.
	fresh_dir t2d $B
	as $B sh -c 'echo k > /mnt/t2d/k && tbtool chattr +u /mnt/t2d/k'
	echo squatter > $T/$B
	check_eq "io_uring errno" ENOTDIR "$(as $B tbtool uring-unlink $M/t2d/k)"
	rm $T/$B
	check_eq "kept" k "$(cat $M/t2d/k)"
}

# 3. No usable /.trash: nothing is trashed and nothing is followed.
untrashed() {	# WHAT-THE-TRASH-IS
	fresh_dir t3 $A
	as $A sh -c 'echo x > /mnt/t3/f && tbtool chattr +u /mnt/t3/f'
	as $A rm $M/t3/f || die "rm failed with $1"
	check_absent $M/t3/f
}
t_no_trash() {
	rm -rf $T
	untrashed "no /.trash"
	check_absent $T
}
t_trash_symlink() {
	rm -rf $T $M/elsewhere
	mkdir -m 0755 $M/elsewhere
	ln -s elsewhere $T
	untrashed "/.trash a symlink"
	check_eq "entries behind the symlink" 0 "$(ls -A $M/elsewhere | wc -l)"
	rm $T
}
t_trash_not_root() {
	reset_trash
	chown $A $T
	untrashed "/.trash owned by $A"
	check_eq "entries" 0 "$(ls -A $T | wc -l)"
}
t_trash_writable() {
	for mode in 0775 0757 0777 1777; do
		reset_trash
		chmod $mode $T
		untrashed "/.trash mode $mode"
		check_eq "entries with mode $mode" 0 "$(ls -A $T | wc -l)"
	done
}
t_trash_file() {
	rm -rf $T
	echo not a dir > $T
	untrashed "/.trash a regular file"
	check_eq "/.trash untouched" "not a dir" "$(cat $T)"
	rm $T
}

# 4. The per-uid directory: made on demand, the deleter's, 0700, private.
t_uid_dir() {
	reset_trash
	fresh_dir t4 $A
	as $A sh -c 'echo secret > /mnt/t4/f && tbtool chattr +u /mnt/t4/f &&
		rm /mnt/t4/f' || die "rm failed"
	check_eq "owner and mode" "$A 700 directory" \
		"$(stat -c '%u %a %F' $T/$A)"
	as $B ls $T/$A >/dev/null 2>&1 && die "$B listed $A's trash"
	as $B cat $T/$A/f >/dev/null 2>&1 && die "$B read $A's trash"
	as $A cat $T/$A/f >/dev/null || die "$A cannot read own trash"
	for u in 100000 4294967294; do
		fresh_dir t4u $u
		as $u sh -c 'echo x > /mnt/t4u/g && tbtool chattr +u /mnt/t4u/g &&
			rm /mnt/t4u/g' || die "rm as $u failed"
		check_eq "dir of $u" "$u 700" "$(stat -c '%u %a' $T/$u)"
		check_exists $T/$u/g
		check_eq "record uid of $u" $u "$(xget $T/$u/g uid)"
	done
}

# 5. Collisions: 1,000 deletions of one name, and a 255-byte name.
t_collisions() {
	reset_trash
	fresh_dir t5 $A
	tbtool chattr +u $M/t5
	as $A tbtool churn $M/t5 same 1000 || die "churn failed"
	check_eq "entries" 1000 "$(count_entries $T/$A)"
	tbtool trashls $T/$A > /tmp/t5.ls
	check_eq "entries naming t5/same" 1000 \
		"$(cut -f2 /tmp/t5.ls | grep -cx 't5/same')"
	# Each entry is a different deletion: contents 0..999, once each.
	check_eq "distinct contents" 1000 \
		"$(cat $T/$A/* | sort -un | wc -l)"
	check_eq "first and last" "0 999" \
		"$(cat $T/$A/* | sort -n | sed -n '1p;$p' | tr '\n' ' ' |
		sed 's/ $//')"
	long=$(printf '%0255d' 0 | tr 0 L)
	for i in 1 2 3; do
		as $A sh -c "echo $i > $M/t5/$long" ||
			die "cannot create a 255-byte name"
		as $A rm $M/t5/$long || die "rm of the 255-byte name failed ($i)"
	done
	tbtool trashls $T/$A | awk -F '\t' -v p="t5/$long" '$2 == p' > /tmp/t5.long
	check_eq "long-name entries" 3 "$(wc -l < /tmp/t5.long)"
	cut -f1 /tmp/t5.long | while read -r n; do
		[ ${#n} -le 255 ] || die "entry name of ${#n} bytes"
	done
}

# 6. Hard links: only the last link goes to the trash.
t_hard_links() {
	reset_trash
	fresh_dir t6 $A
	as $A sh -c 'echo linked > /mnt/t6/a && tbtool chattr +u /mnt/t6/a &&
		ln /mnt/t6/a /mnt/t6/b && rm /mnt/t6/a' || die "rm a failed"
	check_eq "entries after first link" 0 "$(count_entries $T/$A)"
	check_eq "b intact" linked "$(cat $M/t6/b)"
	as $A rm $M/t6/b || die "rm b failed"
	check_eq "b in trash" "linked" "$(cat $T/$A/b)"
	check_eq "b's path" "t6/b" "$(xget $T/$A/b path)"
}

# 7. A rename over a flagged file trashes the replaced file.
t_rename_over() {
	reset_trash
	fresh_dir t7 $A
	as $A sh -c 'cd /mnt/t7 && echo old > old && tbtool chattr +u old &&
		echo new > new && mv new old' || die "mv failed"
	check_eq "old now" new "$(cat $M/t7/old)"
	check_absent $M/t7/new
	check_eq "replaced file" old "$(cat $T/$A/old)"
	check_eq "its path" t7/old "$(xget $T/$A/old path)"
	check_eq "its links" 1 "$(stat -c %h $T/$A/old)"
	# rename(2) directly, over a +s file
	as $A sh -c 'cd /mnt/t7 && echo old2 > b && tbtool chattr +s b &&
		echo new2 > a && tbtool rename a b' || die "rename failed"
	check_eq "b now" new2 "$(cat $M/t7/b)"
	check_eq "replaced b" old2 "$(cat $T/$A/b)"
	# Renaming a flagged file itself trashes nothing.
	as $A sh -c 'cd /mnt/t7 && mv old moved' || die "plain mv failed"
	check_eq "entries" 2 "$(count_entries $T/$A)"
}

# 8. A +u directory: files made in it later inherit the flag; rm -rf of
#    the tree trashes every regular file with its path.
t_dir_inherit() {
	reset_trash
	fresh_dir t8 $A
	as $A sh -c 'cd /mnt/t8 && mkdir proj && tbtool chattr +u proj &&
		mkdir -p proj/src/lib proj/doc && echo m > proj/main.c &&
		echo l > proj/src/lib/l.c && echo s > proj/src/s.c &&
		echo d > proj/doc/README && ln -s main.c proj/link &&
		mkfifo proj/fifo' || die "setup failed"
	check_eq "inherited" u "$(tbtool lsattr $M/t8/proj/src/lib/l.c)"
	as $A rm -rf $M/t8/proj || die "rm -rf failed"
	check_absent $M/t8/proj
	tbtool trashls $T/$A | cut -f2 | sort > /tmp/t8.paths
	printf '%s\n' t8/proj/doc/README t8/proj/main.c t8/proj/src/lib/l.c \
		t8/proj/src/s.c > /tmp/t8.want
	check_eq "trashed paths" "$(cat /tmp/t8.want)" "$(cat /tmp/t8.paths)"
}

# 9. Inside /.trash every unlink is real.
t_unlink_in_trash() {
	reset_trash
	fresh_dir t9 $A
	as $A sh -c 'echo x > /mnt/t9/f && tbtool chattr +u /mnt/t9/f &&
		rm /mnt/t9/f' || die "rm failed"
	check_eq "entries" 1 "$(count_entries $T/$A)"
	as $A rm $T/$A/f || die "user could not empty own trash"
	check_eq "entries after emptying" 0 "$(count_entries $T/$A)"
	# Root purging works the same, and so does rm -rf of the whole trash.
	as $A sh -c 'echo y > /mnt/t9/g && tbtool chattr +s /mnt/t9/g &&
		rm /mnt/t9/g'
	rm $T/$A/g || die "root purge failed"
	check_eq "entries after purge" 0 "$(count_entries $T/$A)"
}

# 10. A move that cannot be done fails the unlink; the file stays.  The
#     layout of the trash is the kernel's: a per-uid directory its user
#     made read-only does not stop it.
t_move_fails() {
	reset_trash
	fresh_dir t10 $A
	as $A sh -c 'echo keep > /mnt/t10/f && tbtool chattr +u /mnt/t10/f'
	as $A sh -c 'echo other > /mnt/t10/g'
	echo squatter > $T/$A
	check_eq "errno, trash dir a file" ENOTDIR "$(as $A tbtool unlink $M/t10/f)"
	check_eq "file kept" keep "$(cat $M/t10/f)"
	as $A rm $M/t10/f 2>/dev/null && die "rm succeeded"
	check_eq "file kept after rm" keep "$(cat $M/t10/f)"
	check_eq "no xattr left" "" "$(xget $M/t10/f path)"
	check_eq "errno, rename over" ENOTDIR \
		"$(as $A tbtool rename $M/t10/g $M/t10/f)"
	check_eq "target kept" keep "$(cat $M/t10/f)"
	check_eq "source kept" other "$(cat $M/t10/g)"
	check_eq "target's links" 1 "$(stat -c %h $M/t10/f)"
	rm $T/$A
	# A per-uid directory someone else owns is never used.
	mkdir -m 0700 $T/$A && chown $B:$B $T/$A
	check_eq "errno, trash dir another user's" EPERM \
		"$(as $A tbtool unlink $M/t10/f)"
	check_eq "file kept" keep "$(cat $M/t10/f)"
	check_eq "nothing in it" 0 "$(ls -A $T/$A | wc -l)"
	rmdir $T/$A
	mkdir -m 0500 $T/$A && chown $A:$A $T/$A
	as $A rm $M/t10/f || die "rm failed with a read-only trash dir"
	check_eq "trashed" keep "$(cat $T/$A/f)"
}

# 11. The run-time switches.
t_switches() {
	reset_trash
	fresh_dir t11 $A
	check_eq "enabled by default" 1 "$(cat /proc/sys/fs/trashbin/enabled)"
	echo 0 > /proc/sys/fs/trashbin/enabled
	as $A sh -c 'echo x > /mnt/t11/off && tbtool chattr +u /mnt/t11/off &&
		rm /mnt/t11/off'
	rc=$?
	echo 1 > /proc/sys/fs/trashbin/enabled
	check_eq "rm with the feature off" 0 $rc
	check_absent $M/t11/off
	check_eq "entries with the feature off" 0 "$(count_entries $T/$A)"
	echo 0 > /proc/sys/fs/trashbin/record_path
	as $A sh -c 'echo x > /mnt/t11/nopath && tbtool chattr +u /mnt/t11/nopath &&
		rm /mnt/t11/nopath'
	rc=$?
	echo 1 > /proc/sys/fs/trashbin/record_path
	check_eq "rm with path recording off" 0 $rc
	check_exists $T/$A/nopath
	xget $T/$A/nopath path && die "a path was recorded"
	check_eq "uid still recorded" $A "$(xget $T/$A/nopath uid)"
	echo 2 > /proc/sys/fs/trashbin/enabled 2>/dev/null &&
		die "enabled accepted 2"
	check_eq "enabled after a bad write" 1 \
		"$(cat /proc/sys/fs/trashbin/enabled)"
}

# 12. Stress: many processes, shared names, all accounted for.
t_stress() {
	reset_trash
	fresh_dir t12 $A
	tbtool chattr +u $M/t12
	as $A tbtool stress $M/t12 4 1500 || die "stress failed"
	check_eq "entries" 6000 "$(count_entries $T/$A)"
	check_eq "left behind" 0 "$(find $M/t12 -type f | wc -l)"
	tbtool trashls $T/$A | cut -f2 | sort -u > /tmp/t12.paths
	check_eq "distinct paths" 6000 "$(wc -l < /tmp/t12.paths)"
}

# 13. Refusals change nothing: an unlink or rename refused by the
#     operation's own checks leaves the victim as it was (contents, links,
#     ctime, xattrs) and the trash empty.
refused() {	# UID WHAT EXPECTED-ERRNO COMMAND...
	ru=$1 what=$2 want=$3
	shift 3
	before=$(tbtool snap "$victim")
	check_eq "$what: errno" "$want" "$(as $ru "$@")"
	check_eq "$what: victim unchanged" "$before" "$(tbtool snap "$victim")"
	check_eq "$what: trash untouched" 0 "$(ls -A $T | wc -l)"
}
t_refusals() {
	reset_trash
	fresh_dir t13 $A
	fresh_dir t13b $B
	as $A sh -c 'echo private > /mnt/t13/f && tbtool chattr +u /mnt/t13/f'
	as $B sh -c 'echo mine > /mnt/t13b/s'
	victim=$M/t13/f
	refused $B "unlink in a dir $B may not write" EACCES tbtool unlink $victim
	refused $B "io_uring unlink there" EACCES tbtool uring-unlink $victim
	refused $B "rename over it" EACCES tbtool rename $M/t13b/s $victim
	refused $B "rename it away" EACCES tbtool rename $victim $M/t13b/x
	# A sticky, world-writable directory (/tmp): only the owner removes.
	fresh_dir t13s 0
	chmod 1777 $M/t13s
	as $A sh -c 'echo sticky > /mnt/t13s/g && tbtool chattr +s /mnt/t13s/g'
	victim=$M/t13s/g
	refused $B "unlink in a sticky dir" EPERM tbtool unlink $victim
	refused $B "rename over in a sticky dir" EPERM \
		tbtool rename $M/t13b/s $victim
	# Immutable: nobody, not even its owner.
	fresh_dir t13i $A
	as $A sh -c 'echo frozen > /mnt/t13i/h && tbtool chattr +u /mnt/t13i/h'
	tbtool chattr +i $M/t13i/h
	victim=$M/t13i/h
	refused $A "unlink of an immutable file" EPERM tbtool unlink $victim
	tbtool chattr -i $M/t13i/h
	check_eq "source untouched" mine "$(cat $M/t13b/s)"
}

# 14. Trashing grants nobody a name: another user's file goes to its
#     owner's trash, not the deleter's (protected_hardlinks, setuid files,
#     private files keep their meaning); root's own trash takes what root
#     removes, as root may link anything.
t_owner_trash() {
	reset_trash
	fresh_dir t14 0
	chmod 0777 $M/t14
	tbtool chattr +u $M/t14
	as $A sh -c 'echo a-private > /mnt/t14/p && chmod 600 /mnt/t14/p &&
		echo a-shared > /mnt/t14/w && chmod 666 /mnt/t14/w &&
		echo a-replaced > /mnt/t14/r'
	cp /bin/busybox $M/t14/suid && chmod 4755 $M/t14/suid
	as $B sh -c 'echo b-own > /mnt/t14/o && echo b-new > /mnt/t14/n'
	as $B sh -c 'rm -f /mnt/t14/p /mnt/t14/w /mnt/t14/suid /mnt/t14/o &&
		mv -f /mnt/t14/n /mnt/t14/r' || die "$B's removals failed"
	check_eq "private file: owner's trash" a-private "$(cat $T/$A/p)"
	check_eq "rw file: owner's trash" a-shared "$(cat $T/$A/w)"
	check_eq "replaced file: owner's trash" a-replaced "$(cat $T/$A/r)"
	check_eq "setuid root file: root's trash" 4755 "$(stat -c %a $T/0/suid)"
	check_eq "own file: own trash" b-own "$(cat $T/$B/o)"
	check_eq "$B's trash holds only its own" o "$(ls $T/$B)"
	check_eq "deleter recorded" $B "$(xget $T/$A/p uid)"
	check_eq "deleter recorded (rename)" $B "$(xget $T/$A/r uid)"
	check_eq "path recorded" t14/p "$(xget $T/$A/p path)"
	check_eq "owner's dir" "$A 700" "$(stat -c '%u %a' $T/$A)"
	as $B cat $T/$A/p >/dev/null 2>&1 && die "$B reads $A's trash"
	as $B ln $T/0/suid $M/t14/stolen 2>/dev/null &&
		die "$B linked root's setuid file"
	return 0
}

# 14b. Only the kernel puts files into the trash.  Below /.trash every
#      unlink is real, so a user who may remove another user's file (a
#      shared directory) must not move or link it into their own trash and
#      unlink it there, out of its owner's trash.  rename(2), link(2) and
#      RENAME_EXCHANGE from outside fail with EXDEV, root's too; mv(1)
#      copies then, and the original goes to its owner's trash.
t_into_trash() {
	reset_trash
	fresh_dir t14x 0
	chmod 0777 $M/t14x
	tbtool chattr +u $M/t14x
	as $A sh -c 'echo a-moved > /mnt/t14x/f &&
		echo a-linked > /mnt/t14x/w && chmod 666 /mnt/t14x/w &&
		echo a-swapped > /mnt/t14x/x &&
		mkdir -m 777 /mnt/t14x/d && echo a-in-dir > /mnt/t14x/d/g' ||
		die "setup failed"
	as $B sh -c 'echo b-own > /mnt/t14x/b && rm /mnt/t14x/b' ||
		die "$B's rm failed"
	check_eq "$B's trash" b "$(ls $T/$B)"
	victim=$M/t14x/f
	before=$(tbtool snap $victim)
	check_eq "rename(2) in" EXDEV "$(as $B tbtool rename $victim $T/$B/f)"
	check_eq "rename(2) in: file unchanged" "$before" \
		"$(tbtool snap $victim)"
	check_eq "link(2) in" EXDEV "$(as $B tbtool link $M/t14x/w $T/$B/w)"
	check_eq "exchange with an entry" EXDEV \
		"$(as $B tbtool exchange $M/t14x/x $T/$B/b)"
	check_eq "a directory in" EXDEV \
		"$(as $B tbtool rename $M/t14x/d $T/$B/d)"
	check_eq "root's rename in" EXDEV "$(tbtool rename $M/t14x/x $T/$B/r)"
	check_eq "root's link in" EXDEV "$(tbtool link $M/t14x/x $T/$B/l)"
	check_eq "$B's trash untouched" "b b-own" "$(ls $T/$B) $(cat $T/$B/b)"
	check_eq "links" "1 1 1 1" \
		"$(stat -c %h $victim $M/t14x/w $M/t14x/x $M/t14x/d/g | xargs)"
	# mv(1) copies instead; its unlink of the original trashes that, to
	# its owner's trash, and the copy is $B's own to remove.
	as $B mv $victim $T/$B/f || die "$B's mv failed"
	as $B rm -f $T/$B/f || die "$B's rm of the copy failed"
	check_absent $victim
	check_eq "moved file: owner's trash" a-moved "$(cat $T/$A/f)"
	check_eq "deleter recorded" $B "$(xget $T/$A/f uid)"
	check_eq "path recorded" t14x/f "$(xget $T/$A/f path)"
	# Out of the trash (a restore) and within it stay allowed.
	as $A mv $T/$A/f $T/$A/f2 || die "a rename within the trash failed"
	as $A mv $T/$A/f2 $M/t14x/back || die "a rename out of the trash failed"
	check_eq "restored" a-moved "$(cat $M/t14x/back)"
}

# 15. Fail closed only for fixable reasons: a path deeper than PATH_MAX or
#     too long for the xattr space is recorded in its bounded form (the
#     marker, then its last whole components), and an inode whose xattr
#     space a user filled is trashed without the record that does not fit.
t_long_paths() {
	reset_trash
	fresh_dir t15 0
	tbtool chattr +u $M/t15
	c=$(printf '%0200d' 0 | tr 0 c)
	# 4,065 bytes from the root: fits PATH_MAX, not an xattr block.
	d=$M/t15
	rel=t15
	while [ $(( ${#rel} + 201 + 64 )) -le 4065 ]; do
		d=$d/$c
		rel=$rel/$c
		mkdir $d
	done
	last=$(printf '%0*d' $(( 4065 - ${#rel} - 1 )) 0 | tr 0 L)
	[ ${#last} -le 255 ] || die "test setup: name of ${#last} bytes"
	echo long > "$d/$last" || die "cannot create the long path"
	check_eq "path length" 4065 $(( ${#rel} + 1 + ${#last} ))
	rm "$d/$last" || die "rm of a 4,065-byte path failed"
	e=$(ls $T/0 | head -n 1)
	check_eq "trashed" long "$(cat "$T/0/$e")"
	p=$(xget "$T/0/$e" path)
	case "$p" in
	"/.../"*"/$last") ;;
	*) die "bounded path '$(echo "$p" | cut -c1-40)...' (${#p} bytes)" ;;
	esac
	[ ${#p} -le 512 ] || die "bounded path of ${#p} bytes"
	check_eq "uid recorded" 0 "$(xget "$T/0/$e" uid)"
	# Deeper than PATH_MAX: only the name is left of it.  The tree is
	# made shallow, entered, then moved below $d.
	reset_trash
	mkdir -p $M/t15/x/$c/$c/$c
	cd $M/t15/x/$c/$c/$c || die "cd"
	echo deeper > f
	tbtool rename $M/t15/x "$d/x" || die "cannot move the tree deeper"
	tbtool unlink f || die "unlink deeper than PATH_MAX failed"
	cd /
	check_eq "deep trashed" deeper "$(cat $T/0/f)"
	check_eq "deep path" "/.../f" "$(xget $T/0/f path)"
	tbtool rename "$d/x" $M/t15x && rm -rf $M/t15 $M/t15x
}
t_xattr_full() {
	reset_trash
	fresh_dir t15x $A
	as $A sh -c 'echo stuffed > /mnt/t15x/f && tbtool chattr +u /mnt/t15x/f'
	n=$(as $A tbtool fillxattr $M/t15x/f) || die "fillxattr failed"
	[ "$n" -gt 3000 ] || die "only $n bytes of xattrs went in"
	as $A rm $M/t15x/f || die "rm of a file with full xattrs failed"
	check_eq "trashed" stuffed "$(cat $T/$A/f)"
	as $A tbtool getxattr $T/$A/f user.f0 >/dev/null || die "user.f0 lost"
}

# 15b. The record is one xattr: with a short path it fits in the inode
#      (ext4, 256-byte inodes), so trashing an empty file allocates no
#      xattr block (trashbin.rst, "Why one attribute").
t_record_in_inode() {
	reset_trash
	fresh_dir t15r $A
	as $A sh -c 'touch /mnt/t15r/f && tbtool chattr +u /mnt/t15r/f &&
		rm /mnt/t15r/f' || die "rm failed"
	check_eq "its path" t15r/f "$(xget $T/$A/f path)"
	check_eq "its deleter" $A "$(xget $T/$A/f uid)"
	check_eq "blocks of the empty entry" 0 "$(stat -c %b $T/$A/f)"
}

# 16. overlayfs: removing a flagged file through an overlay sends its upper
#     file to the upper filesystem's trash, whether the upper is removed
#     (a file made in the overlay) or replaced by a whiteout (a lower file
#     copied up), and a rename through the overlay over a flagged upper
#     file keeps it there too.  The upper layer is changed with the
#     mounter's (root's) credentials, so root is the deleter.
t_overlay() {
	reset_trash
	fresh_dir ovl 0
	mkdir $M/ovl/lower $M/ovl/upper $M/ovl/work $M/ovl/merged /tmp/ovl-lo
	echo lower > $M/ovl/lower/l
	tbtool chattr +u $M/ovl/upper
	mount -t overlay overlay -o lowerdir=$M/ovl/lower,upperdir=$M/ovl/upper,workdir=$M/ovl/work \
		$M/ovl/merged || die "cannot mount the overlay"
	echo new > $M/ovl/merged/n
	check_eq "inherited in upper" u "$(tbtool lsattr $M/ovl/upper/n)"
	rm $M/ovl/merged/n || die "rm of an upper file failed"
	check_eq "upper file trashed" new "$(cat $T/0/n)"
	check_eq "its path" ovl/upper/n "$(xget $T/0/n path)"
	tbtool chattr +u $M/ovl/merged/l || die "chattr through the overlay"
	rm $M/ovl/merged/l || die "rm of a copied-up file failed"
	check_absent $M/ovl/merged/l
	check_eq "copied-up file trashed" lower "$(cat $T/0/l)"
	check_eq "its links" 1 "$(stat -c %h $T/0/l)"
	check_eq "its path" ovl/upper/l "$(xget $T/0/l path)"
	check_eq "lower untouched" lower "$(cat $M/ovl/lower/l)"
	check_eq "whiteout" "character special file" \
		"$(stat -c %F $M/ovl/upper/l)"
	echo kept > $M/ovl/merged/k
	echo src > $M/ovl/merged/s
	check_eq "rename over a flagged upper" "" \
		"$(tbtool rename $M/ovl/merged/s $M/ovl/merged/k)"
	check_eq "renamed" src "$(cat $M/ovl/merged/k)"
	check_eq "replaced upper file trashed" kept "$(cat $T/0/k)"
	check_eq "its links" 1 "$(stat -c %h $T/0/k)"
	check_eq "its path" ovl/upper/k "$(xget $T/0/k path)"
	umount $M/ovl/merged || die "cannot unmount the overlay"
	rm -rf $M/ovl
}

# 17. The kernel NFS server: a file an NFSv4 client removes goes to the
#     server's trash under the client user's uid.  The export is loaded
#     into nfsd's caches the way rpc.mountd would answer them; the client
#     is the kernel's own, over loopback.
nfs_up() {
	ip link set lo up || return 1
	mkdir -p /nfs
	grep -q " /proc/fs/nfsd " /proc/mounts ||
		mount -t nfsd nfsd /proc/fs/nfsd || return 1
	# NFSv4 only: no rpcbind to register v2/v3 with.
	for v in -2 -3 +4 +4.1 +4.2; do
		echo "$v" > /proc/fs/nfsd/versions 2>/dev/null
	done
	# ~0 expiry; flags: insecure, root_squash, no_subtree_check, fsid
	echo "nfsd 127.0.0.1 2147483647 tbdom" > /proc/net/rpc/auth.unix.ip/channel || return 1
	echo "tbdom $M 2147483647 9222 65534 65534 0" > /proc/net/rpc/nfsd.export/channel || return 1
	echo 'tbdom 1 \x00000000 2147483647 '"$M" > /proc/net/rpc/nfsd.fh/channel || return 1
	echo "tcp 2049" > /proc/fs/nfsd/portlist 2>/dev/null
	mkdir -p /var/lib/nfs/v4recovery
	echo "${1:-2}" > /proc/fs/nfsd/threads || return 1
	echo Y > /proc/fs/nfsd/v4_end_grace 2>/dev/null
	tbtool mount 127.0.0.1:/ /nfs nfs4 \
		vers=4.0,addr=127.0.0.1,clientaddr=127.0.0.1,sec=sys
}
nfs_down() {
	grep -q " /nfs " /proc/mounts && umount /nfs
	echo 0 > /proc/fs/nfsd/threads
	for c in nfsd.fh nfsd.export auth.unix.ip; do
		echo $(( $(date +%s) + 10 )) > /proc/net/rpc/$c/flush
	done
}
t_nfs() {
	reset_trash
	fresh_dir tn $A
	tbtool chattr +u $M/tn
	nfs_up || { nfs_down; die "cannot export and mount over NFS"; }
	as $A sh -c 'echo over-nfs > /nfs/tn/f && echo old > /nfs/tn/o &&
		echo new > /nfs/tn/n' || { nfs_down; die "cannot write over NFS"; }
	check_eq "inherited on the server" u "$(tbtool lsattr $M/tn/f)"
	as $A rm /nfs/tn/f || { nfs_down; die "rm over NFS failed"; }
	as $A mv -f /nfs/tn/n /nfs/tn/o || { nfs_down; die "mv over NFS failed"; }
	nfs_down
	check_absent $M/tn/f
	check_eq "removed over NFS: in the trash" over-nfs "$(cat $T/$A/f)"
	check_eq "its deleter" $A "$(xget $T/$A/f uid)"
	check_eq "its path" tn/f "$(xget $T/$A/f path)"
	check_eq "replaced over NFS: in the trash" old "$(cat $T/$A/o)"
	check_eq "the new file in place" new "$(cat $M/tn/o)"
	check_eq "links" "1 1" "$(stat -c %h $T/$A/o $M/tn/o | tr '\n' ' ' | sed 's/ $//')"
}

# 17b. A hostile owner cannot pin nfsd: while an NFS client renames over
#     her flagged file, she removes each trash link trashbin_keep() makes
#     for it the moment it appears (big readdirs hold the directory's lock
#     so that the retried rename waits), and the retried rename finds the
#     last link again.  A task ends that loop with a fatal signal; nfsd's
#     threads get none, and before the kernel bounded their lost races
#     this one spun for as long as she won (154 races in one request
#     here).  Now a request gives up after 8 lost races
#     (NFS4ERR_DELAY) and the client sends it again: for every rename,
#     the races she won are at most 8 times the RENAME requests the
#     client sent (its /proc/self/mountstats), and she must have won
#     more than 8 in at least one (the bound was reached): she stops
#     after 17, two requests' worth and one more.
#     trashbin.hostile_renames=N renames (default 2), and more, up to 6,
#     while none has reached the bound (whether she wins 8 in a row
#     depends on how busy the host is: one more try is cheaper than a
#     flaky verdict; a rename that goes round more than 8 fails at once
#     either way).  On the KASAN
#     build she wins only 3 to 7 races in a row (nfsd's retry outruns her
#     there), so it cannot force a give-up: trashbin.hostile_bound=optional
#     (the long tier's debug kernel suite) keeps the per-rename check alone.
#     Each give-up is logged (the task and the trash's uid, never the name).
HOSTILE_RENAMES=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.hostile_renames=//p')
HOSTILE_RENAMES=${HOSTILE_RENAMES:-2}
HOSTILE_BOUND=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.hostile_bound=//p')
# Another rename while: fewer than HOSTILE_RENAMES, or none reached the
# bound yet (where it must) and fewer than 6.
hostile_more() {
	[ "$i" -lt "$HOSTILE_RENAMES" ] || { [ "$reached" = 0 ] &&
		[ "$HOSTILE_BOUND" != optional ] && [ "$i" -lt 6 ]; }
}
# gave_up_mark: a mark in the kernel's log; gave_up TASK UID: the
# give-ups of TASK, moving a file into UID's trash, logged since the mark.
gave_up_mark() {
	gave_up_n=$(( ${gave_up_n:-0} + 1 ))
	echo "trashbin-test: mark $gave_up_n" > /dev/kmsg
}
gave_up() {
	dmesg | sed -n "/trashbin-test: mark $gave_up_n\$/,\$p" |
		grep -c "trashbin: $1\[[0-9]*\] gave up after 8 lost races in directory [0-9]* on [^ ]* (trash of uid $2)"
}
# hostile_dir: $M/tn, alice's, +u, with 12,000 of her files whose
# readdirs hold its lock: made once for the hostile cases (17b, 17c), as
# removing it would trash all 12,000.
hostile_dir() {
	[ -e $M/tn/.hostile ] && return 0
	fresh_dir tn $A
	as $A tbtool mkfiles $M/tn 12000 || return 1
	tbtool chattr +u $M/tn
	touch $M/tn/.hostile
}
# hostile_end TASK: the verdict of a hostile case, from its $reached
# renames that reached the bound and the $won_all races she won.
hostile_end() {
	echo "$reached of $i renames reached the bound; she won $won_all races"
	[ "$reached" -gt 0 ] || [ "$HOSTILE_BOUND" = optional ] ||
		die "no rename reached the bound: the attack did not run"
	[ "$reached" = 0 ] || [ "$(gave_up "$1" $A)" -gt 0 ] ||
		die "$1 gave up and the kernel did not say so"
}
# hostile_start DIR NAME: her readers of DIR and her remover of
# /.trash/<her uid>/NAME (17 wins or 30 s); their pids in $pids.
hostile_start() {
	rm -f /tmp/stop /tmp/eaten
	pids=
	for r in 1 2 3; do
		as $A tbtool readdirs "$1" /tmp/stop &
		pids="$pids $!"
	done
	as $A tbtool eat $T/$A "$2" /tmp/stop 17 30 > /tmp/eaten &
	pids="$pids $!"
	n=0
	until grep -q ready /tmp/eaten 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 100 ] || { touch /tmp/stop; return 1; }
		sleep 0.1
	done
	sleep 0.5
}
nfs_rename_rpcs() {
	awk '$1 == "device" { m = ($5 == "/nfs") }
	     m && $1 == "RENAME:" { print $2; exit }' /proc/self/mountstats
}
t_nfs_hostile() {
	reset_trash
	rm -f $M/tn/o $M/tn/n
	hostile_dir || die "cannot fill the directory"
	mkdir -p $T/$A && chown $A:$A $T/$A && chmod 0700 $T/$A
	nfs_up 1 || { nfs_down; die "cannot export and mount over NFS"; }
	as $A sh -c 'echo old > /nfs/tn/o' ||
		{ nfs_down; die "cannot write over NFS"; }
	reached=0 won_all=0 i=0
	gave_up_mark
	while hostile_more; do
		i=$((i + 1))
		as $A sh -c "echo new$i > /nfs/tn/n" ||
			{ nfs_down; die "cannot write over NFS"; }
		# She stops after 17 wins (two requests' worth and one more,
		# or 30 s): with the bound, the client's retries (after 0.1 s,
		# 0.2 s, ...) succeed once she stops.
		hostile_start $M/tn o ||
			{ nfs_down; die "her remover did not start"; }
		rpcs=$(nfs_rename_rpcs)
		as $A timeout 60 mv -f /nfs/tn/n /nfs/tn/o
		moved=$?
		rpcs=$(( $(nfs_rename_rpcs) - rpcs ))
		touch /tmp/stop
		wait $pids
		# What she removed, but for the entry the rename left.
		won=$(tail -n 1 /tmp/eaten)
		[ -e $T/$A/o ] || won=$((won - 1))
		echo "rename $i: she won $won races, the client sent $rpcs RENAMEs"
		[ "$moved" = 0 ] || { nfs_down; die "rename $i failed"; }
		[ "$won" -le $((8 * rpcs)) ] || { nfs_down;
			die "rename $i: $won lost races in $rpcs requests: nfsd did not give up after 8"; }
		[ "$won" -le 8 ] || reached=$((reached + 1))
		won_all=$((won_all + won))
		check_eq "rename $i: the new file in place" new$i "$(cat $M/tn/o)"
		rm -f $T/$A/*
	done
	nfs_down
	hostile_end nfsd
}

# 17c. Nor a process in user space that nobody sends a fatal signal (Samba's
#     smbd, which serves each client as its user, or another user's job):
#     bob runs mv(1) over her flagged file in a directory they share while
#     she removes each trash link as in 17b (the link is in her trash: bob
#     may not apply her flag, so the file goes to its owner's; a rename by
#     root, CAP_FOWNER, goes to root's trash, out of her reach).  Before
#     the bound, rename(2) went round for as long as she won (17 races in
#     one call: she stops there); now it fails with EAGAIN after her 8th
#     win, having changed nothing, the kernel logs it, and once she stops
#     mv succeeds and her old file is in her trash.
#     trashbin.hostile_renames and hostile_bound as for 17b.
t_owner_pins_syscall() {
	reset_trash
	hostile_dir || die "cannot fill the directory"
	rm -f $M/tn/o $M/tn/n
	chmod 0777 $M/tn
	mkdir -p $T/$A && chown $A:$A $T/$A && chmod 0700 $T/$A
	as $A sh -c "echo old > $M/tn/o" || die "cannot write her file"
	reached=0 won_all=0 i=0
	gave_up_mark
	while hostile_more; do
		i=$((i + 1))
		as $B sh -c "echo new$i > $M/tn/n" || die "cannot write as $B"
		was=$(cat $M/tn/o)
		hostile_start $M/tn o || die "her remover did not start"
		as $B timeout 60 mv -f $M/tn/n $M/tn/o 2> /tmp/mv.err
		moved=$?
		touch /tmp/stop
		wait $pids
		won=$(tail -n 1 /tmp/eaten)
		if [ "$moved" = 0 ]; then
			# What she removed, but for the entry the rename left.
			[ -e $T/$A/o ] || won=$((won - 1))
			echo "rename $i: went through after she won $won races"
			[ "$won" -lt 8 ] ||
				die "rename $i: one rename(2) lost $won races: no bound"
		else
			cat /tmp/mv.err
			echo "rename $i: gave up after she won $won races"
			grep -q "Resource temporarily unavailable" /tmp/mv.err ||
				die "rename $i: mv failed, but not with EAGAIN"
			check_eq "rename $i: her races won before the give-up" 8 "$won"
			check_eq "rename $i: her file unchanged" "$was" "$(cat $M/tn/o)"
			check_eq "rename $i: the new file still there" new$i "$(cat $M/tn/n)"
			check_eq "rename $i: no trash link left" 0 "$(count_entries $T/$A)"
			check_eq "rename $i: links of both files" "1 1" \
				"$(stat -c %h $M/tn/o $M/tn/n | tr '\n' ' ' | sed 's/ $//')"
			reached=$((reached + 1))
			as $B mv -f $M/tn/n $M/tn/o ||
				die "rename $i: mv failed once she stopped"
			check_eq "rename $i: then her old file in her trash" \
				"$was" "$(cat $T/$A/o)"
		fi
		won_all=$((won_all + won))
		check_eq "rename $i: the new file in place" new$i "$(cat $M/tn/o)"
		# The next round's target: hers again.
		chown $A:$A $M/tn/o
		rm -f $T/$A/*
	done
	hostile_end mv
}

# 18. The kernel SMB server (ksmbd): a file an SMB client deletes (delete
#     on close, how clients delete) or renames over goes to the server's
#     trash under the session user's uid.  ksmbd's user-space half is
#     ksmbd-tools' ksmbd.mountd (unpacked on the host, not installed:
#     tests/deps.sh); the client is the kernel's own, over loopback.
smb_up() {
	command -v ksmbd.tools >/dev/null || { echo "no ksmbd.tools in the guest"; return 1; }
	for smb_tool in mountd adduser control; do
		ln -sf ksmbd.tools /usr/local/bin/ksmbd.$smb_tool
	done
	ip link set lo up || return 1
	mkdir -p /etc/ksmbd /smb
	grep -q '^tbsmb:' /etc/passwd || echo "tbsmb:x:$A:$A::/:/bin/sh" >> /etc/passwd
	grep -q '^tbsmb:' /etc/group || echo "tbsmb:x:$A:" >> /etc/group
	printf '[global]\n\tserver min protocol = SMB3\n[ts]\n\tpath = %s\n\tread only = no\n' \
		"$M/ts" > /etc/ksmbd/ksmbd.conf
	ksmbd.adduser -a tbsmb -p tbpass >/dev/null || return 1
	# mountd logs to syslog only.
	syslogd -O /tmp/mountd.log
	ksmbd.mountd || return 1
	# mountd starts the server asynchronously: a few tries.
	for smb_try in 1 2 3 4 5 6 7 8 9 10; do
		tbtool mount //127.0.0.1/ts /smb cifs \
			ip=127.0.0.1,username=tbsmb,password=tbpass,vers=3.1.1 \
			2>/tmp/smb-mount.err && return 0
		sleep 1
	done
	cat /tmp/smb-mount.err
	echo "ksmbd.mountd's log:"
	cat /tmp/mountd.log
	dmesg | grep -i -e ksmbd -e cifs | tail -20
	return 1
}
smb_down() {
	grep -q " /smb " /proc/mounts && umount /smb
	ksmbd.control -s >/dev/null 2>&1
	killall syslogd 2>/dev/null
	:
}
t_smb() {
	reset_trash
	fresh_dir ts $A
	tbtool chattr +u $M/ts
	as $A sh -c "echo over-smb > $M/ts/f && echo old > $M/ts/o &&
		echo new > $M/ts/n && echo held > $M/ts/h" ||
		die "cannot write the files"
	# Another user's directory the session's user may not change.
	fresh_dir ts/ro $B
	tbtool chattr +u $M/ts/ro
	as $B sh -c "echo theirs > $M/ts/ro/x" || die "cannot write as $B"
	smb_up || { smb_down; die "cannot share and mount over SMB"; }
	rm /smb/f || { smb_down; die "rm over SMB failed"; }
	mv -f /smb/n /smb/o || { smb_down; die "mv over SMB failed"; }
	smb_refused=0
	rm /smb/ro/x 2>/dev/null || smb_refused=1
	# Delete on close follows the handle: a file a client deletes while
	# it holds it open goes when the last handle closes; moved into the
	# trash by an rm on the server meanwhile, it stays there.
	exec 3< /smb/h || { smb_down; die "cannot open over SMB"; }
	rm /smb/h || { exec 3<&-; smb_down; die "rm of an open file over SMB failed"; }
	as $A rm $M/ts/h || { exec 3<&-; smb_down; die "rm on the server failed"; }
	exec 3<&-
	smb_down
	check_absent $M/ts/f
	check_eq "deleted over SMB: in the trash" over-smb "$(cat $T/$A/f)"
	check_eq "its deleter" $A "$(xget $T/$A/f uid)"
	check_eq "its path" ts/f "$(xget $T/$A/f path)"
	check_eq "replaced over SMB: in the trash" old "$(cat $T/$A/o)"
	check_eq "the new file in place" new "$(cat $M/ts/o)"
	check_eq "links" "1 1" "$(stat -c %h $T/$A/o $M/ts/o | tr '\n' ' ' | sed 's/ $//')"
	check_eq "rm of another user's file refused" 1 "$smb_refused"
	check_eq "refused: the file stays" theirs "$(cat $M/ts/ro/x)"
	check_eq "moved to the trash while deleted by a handle: kept" held \
		"$(cat $T/$A/h)"
	check_eq "refused: nothing trashed" "0 3" \
		"$(count_entries $T/$B) $(count_entries $T/$A)"
}

# What fstests sees differently (trashbin.rst, "What fstests sees"): a
# file renamed over while a process holds it open keeps a link, its trash
# name, until that goes (generic/035 expects 0 links at once).
t_open_renamed_over() {
	reset_trash
	fresh_dir t35 $A
	as $A sh -c 'cd /mnt/t35 && echo held > dst && tbtool chattr +u dst &&
		echo src > src' || die "setup failed"
	out=$(as $A tbtool renameover-held $M/t35/src $M/t35/dst $T/$A) ||
		die "renameover-held: $out"
	echo "$out"
	check_eq "fstat after the rename" "after rename: nlink 1" \
		"$(echo "$out" | sed -n 1p)"
	check_eq "fstat after the purge" "after purge: nlink 0" \
		"$(echo "$out" | sed -n 3p)"
	check_eq "dst now" src "$(cat $M/t35/dst)"
}

# ... and a file handle taken before the last unlink still opens the
# trashed inode (exportfs: generic/426, 467, 477 expect ESTALE) until the
# trash entry goes; only CAP_DAC_READ_SEARCH opens handles at all, so it
# is no way around the trash's 0700 directories.
t_handle_trashed() {
	reset_trash
	fresh_dir th 0
	echo handled > $M/th/f
	tbtool chattr +u $M/th/f
	out=$(tbtool handle $M/th/f $T/0 $A) || die "handle: $out"
	echo "$out"
	check_eq "as root, trashed" "as root, trashed: ok, same inode" \
		"$(echo "$out" | grep '^as root, trashed')"
	check_eq "as an unprivileged uid" "as the uid, trashed: EPERM" \
		"$(echo "$out" | grep '^as the uid')"
	check_eq "purged" "as root, purged: ESTALE" \
		"$(echo "$out" | grep '^as root, purged')"
}

run_test "unflagged file is deleted, trash untouched" t_unflagged
run_test "+u file trashed intact with path, time and deleter" t_trash_u
run_test "+s file trashed intact with path, time and deleter" t_trash_s
run_test "trash of the deleter, owner kept" t_trash_by_deleter
run_test "rm, unlink(2) and io_uring unlinkat all trash" t_unlink_paths
run_test "no /.trash: deleted for real" t_no_trash
run_test "/.trash a symlink: not followed" t_trash_symlink
run_test "/.trash not owned by root: ignored" t_trash_not_root
run_test "/.trash group/world writable: ignored" t_trash_writable
run_test "/.trash a regular file: ignored" t_trash_file
run_test "per-uid dir on demand, 0700, private; big uids" t_uid_dir
run_test "1,000 collisions and a 255-byte name" t_collisions
run_test "hard links: only the last link is trashed" t_hard_links
run_test "mv and rename(2) over a flagged file trash it" t_rename_over
run_test "+u directory: inherited, rm -rf trashes the tree" t_dir_inherit
run_test "unlink inside /.trash is real" t_unlink_in_trash
run_test "failed move fails the unlink, file kept" t_move_fails
run_test "fs.trashbin.enabled and record_path" t_switches
run_test "stress: 4 processes, 6,000 shared names" t_stress
run_test "refused unlink/rename as another user changes nothing" t_refusals
run_test "another user's file goes to its owner's trash" t_owner_trash
run_test "only the kernel puts files into the trash: rename, link and exchange in fail (EXDEV)" t_into_trash
run_test "4,065-byte and deeper-than-PATH_MAX paths: bounded record" t_long_paths
run_test "xattr space full: trashed anyway" t_xattr_full
run_test "a short record fits in the inode: no xattr block" t_record_in_inode
run_test "overlayfs: upper removed or whited out, trashed" t_overlay
run_test "NFSv4 over loopback: rm and mv by a client trash" t_nfs
run_test "NFSv4: an owner racing nfsd's renames over her file cannot pin it" t_nfs_hostile
run_test "nor another user's mv(1): rename(2) gives up with EAGAIN after 8 lost races" t_owner_pins_syscall
run_test "SMB3 over loopback (ksmbd): rm and mv by a client trash" t_smb
run_test "fstat of an open file renamed over: 1 link (its trash name) until purged" t_open_renamed_over
run_test "a file handle opens the trashed inode (root only) until purged, then ESTALE" t_handle_trashed
done_testing
