#!/bin/sh
# trashd's control socket and trashctl on the real kernel: real users,
# real rm and chattr, the trash filled by the kernel and indexed by trashd.
# The undo of rm -rf; the authorisation matrix, one test per cell; restore
# refusals (conflict, symlinks, unwritable directories) that lose nothing;
# malformed requests that get errors while other clients are served.
. ./lib.sh

ALICE=1000		# user A
BOB=1001		# user B
CAROL=1002		# an admin, by the admin group
DAVE=1003		# in another group: no admin
ADMG=2000		# admin-group of trashd.conf
SOCK=/run/trashd/trashd.sock
H=$M/home

# ---- set-up ----

cat >> /etc/passwd <<EOF
alice:x:$ALICE:$ALICE::/mnt/home/alice:/bin/sh
bob:x:$BOB:$BOB::/mnt/home/bob:/bin/sh
carol:x:$CAROL:$CAROL::/mnt/home/carol:/bin/sh
dave:x:$DAVE:$DAVE::/mnt/home/dave:/bin/sh
EOF
cat >> /etc/group <<EOF
alice:x:$ALICE:
bob:x:$BOB:
carol:x:$CAROL:
dave:x:$DAVE:
trashadm:x:$ADMG:carol
other:x:2001:dave
EOF
cat > /etc/trashd/trashd.conf <<EOF
database /var/lib/trashd/index.db
filesystem $M
socket $SOCK
admin-group trashadm
client-timeout 5s
quota none
retention forever
watermark 0%
grace 1h
EOF
mkdir -p -m 0700 /var/lib/trashd
reset_trash
mkdir -p -m 0755 $H
for u in alice:$ALICE bob:$BOB carol:$CAROL dave:$DAVE; do
	mkdir -p -m 0755 "$H/${u%%:*}"
	chown "${u#*:}:${u#*:}" "$H/${u%%:*}"
done

trashd -d -f /etc/trashd/trashd.conf > /tmp/trashd.log 2>&1 &
TRASHD=$!
i=0
until trashctl status > /dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 300 ] || { echo "Bail out! trashd did not start"; cat /tmp/trashd.log; exit 1; }
	sleep 0.1
done

# Run trashctl as one of the users; carol with her groups.  As a script
# does: standard input is no terminal (the guest's is the console, where
# an admin-wide empty would wait for someone to type yes).
ctl() {	# WHO ARGS...
	w=$1
	shift
	case $w in
	alice) tbtool runas $ALICE $ALICE trashctl "$@" ;;
	bob) tbtool runas $BOB $BOB trashctl "$@" ;;
	carol) tbtool runas-groups $CAROL $CAROL $CAROL,$ADMG trashctl "$@" ;;
	dave) tbtool runas-groups $DAVE $DAVE $DAVE,2001 trashctl "$@" ;;
	root) trashctl "$@" ;;
	esac < /dev/null
}

# check_rc WHAT WANT CMD...: CMD's exit code is WANT; its output in $OUT.
check_rc() {
	w=$1
	want=$2
	shift 2
	OUT=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || die "$w: exit $rc, want $want: $OUT"
}

check_out() {	# WHAT NEEDLE: in $OUT
	case "$OUT" in
	*"$2"*) ;;
	*) die "$1: '$2' not in: $OUT" ;;
	esac
}

# Live entries of a user as trashd indexed them.
indexed() { ctl "$1" status --json | sed -n 's/.*"count":\([0-9]*\).*/\1/p'; }
wait_indexed() {	# WHO N
	i=0
	while [ "$(indexed "$1")" != "$2" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || die "$1: $(indexed "$1") entries indexed, want $2"
		sleep 0.1
	done
}

# A flagged file of WHO's: mkfile WHO PATH CONTENTS
mkfile() {
	tbtool runas "$(id_of "$1")" "$(id_of "$1")" sh -c \
		'printf "%s\n" "$1" > "$2" && tbtool chattr +u "$2"' sh "$3" "$2" ||
		die "cannot make $2"
}
id_of() {
	case $1 in alice) echo $ALICE ;; bob) echo $BOB ;; carol) echo $CAROL ;;
	dave) echo $DAVE ;; esac
}
rm_as() { tbtool runas "$(id_of "$1")" "$(id_of "$1")" rm -rf "$2" || die "rm $2"; }

# ---- the undo of rm -rf ----

# Files and their owners, modes, sizes and sums, relative to DIR.
manifest() {
	(cd "$1" && find . -type f | sort | while read -r f; do
		echo "$f $(stat -c '%u:%g %a %s' "$f") $(md5sum < "$f")"
	done)
}

t_rm_rf_restore() {
	d=$H/alice/proj
	tbtool runas $ALICE $ALICE sh -c "
		mkdir -p $d && tbtool chattr +u $d &&
		mkdir -p $d/src/lib $d/doc $d/empty-later &&
		echo 'int main(void) { return 0; }' > $d/src/main.c &&
		echo 'void lib(void) {}' > $d/src/lib/lib.c &&
		dd if=/dev/urandom of=$d/src/lib/blob bs=1k count=300 2>/dev/null &&
		echo '# notes' > $d/doc/README &&
		echo secret > $d/doc/private && chmod 600 $d/doc/private &&
		printf '#!/bin/sh\necho hi\n' > $d/run.sh && chmod 755 $d/run.sh &&
		echo x > $d/empty-later/x && chmod 640 $d/empty-later/x" ||
		die "cannot make the tree"
	check_eq "inherited +u" u "$(tbtool lsattr $d/src/lib/blob)"
	manifest $d > /tmp/before
	check_eq "files" 7 "$(wc -l < /tmp/before)"
	n0=$(indexed alice)
	rm_as alice $d
	check_absent $d
	wait_indexed alice $((n0 + 7))
	check_rc "restore the tree" 0 ctl alice restore $d
	check_out "restore the tree" "restored 7 of 7"
	manifest $d > /tmp/after
	cmp /tmp/before /tmp/after > /dev/null ||
		die "the tree differs: $(diff /tmp/before /tmp/after)"
	check_eq "directories made as alice" "$ALICE 755" \
		"$(stat -c '%u %a' $d/src/lib)"
	check_eq "left in the trash" "$n0" "$(indexed alice)"
	check_eq "left in the trash dir" "$n0" "$(count_entries $T/$ALICE)"
}

# ---- the authorisation matrix: alice on bob's trash, admin-only verbs ----

BOBF=$H/bob/b
setup_matrix() {
	for f in keep restore wipe empty1 empty2; do
		mkfile bob $BOBF-$f "bob's $f"
		rm_as bob $BOBF-$f
	done
	wait_indexed bob 5
}
setup_matrix

deny() {	# WHO ARGS...: refused with "permission denied" (exit 4)
	who=$1
	shift
	check_rc "$who $*" 4 ctl "$who" "$@"
	check_eq "bob's entries after $who $*" 5 "$(indexed bob)"
}
# Bob's entries as an admin sees them: entry_id PATH
entry_id() { ctl root list -u bob | awk -v p="$1" '$NF == p { print $1 }'; }
BID=$(entry_id "$BOBF-restore")

t_a_list() { deny alice list -u bob; }
t_a_list_all() { deny alice list --all; }
t_a_list_own() {
	check_rc "alice list" 0 ctl alice list
	case "$OUT" in *"$H/bob"*) die "alice sees bob's entries: $OUT" ;; esac
}
t_a_restore_id() { deny alice restore --id "$BID"; }
t_a_restore_user() { deny alice restore -u bob "$BOBF-restore"; }
t_a_restore_path() {
	# By path alice's request looks in her own trash: nothing there.
	check_rc "alice restore bob's path" 5 ctl alice restore "$BOBF-restore"
	check_absent "$BOBF-restore"
}
t_a_wipe() { deny alice wipe "$BID"; }
t_a_wipe_user() { deny alice wipe -u bob "$BID"; }
t_a_empty() { deny alice empty -u bob; }
t_a_quota() { deny alice quota -u bob; }
t_a_quota_all() { deny alice quota -a; }
t_a_policy_user() { deny alice policy set user alice quota 100G; }
t_a_policy_default() { deny alice policy set default retention forever; }
t_a_policy_watermark() { deny alice policy set default watermark 0%; }
t_a_policy_get() { deny alice policy get user bob; }
t_a_audit() { deny alice audit; }
t_d_audit() { deny dave audit; }
t_d_list() { deny dave list -u bob; }

# The admin, by group membership: each verb on bob's trash.
t_c_list() {
	check_rc "carol list -u bob" 0 ctl carol list -u bob
	check_out "carol list -u bob" "$BOBF-keep"
}
t_c_list_all() {
	check_rc "carol list -a" 0 ctl carol list --all
	check_out "carol list -a" "$BOBF-keep"
}
t_c_quota() {
	check_rc "carol quota -u bob" 0 ctl carol quota -u bob
	check_out "carol quota -u bob" "bob"
	check_rc "carol quota -a" 0 ctl carol quota -a
	check_out "carol quota -a" "bob"
}
t_c_restore() {
	check_rc "carol restore --id, bob unnamed" 4 ctl carol restore --id "$BID"
	check_out "carol restore --id" "explicitly"
	check_rc "carol restore -u bob" 0 ctl carol restore -u bob --id "$BID"
	check_eq "restored for bob" "bob's restore" "$(cat "$BOBF-restore")"
	check_eq "owner" "$BOB" "$(stat -c %u "$BOBF-restore")"
}
t_c_wipe() {
	id=$(entry_id "$BOBF-wipe")
	check_rc "carol wipe -u bob" 0 ctl carol wipe -u bob "$id"
	i=0
	while [ -e "$T/$BOB/b-wipe" ] && [ $i -lt 100 ]; do
		i=$((i + 1)); sleep 0.1
	done
	check_absent "$T/$BOB/b-wipe"
}
t_c_empty() {
	n=$(indexed bob)
	[ "${n:-0}" -gt 0 ] || die "bob has no entries to empty"
	check_rc "carol empty -u bob, no --yes" 2 ctl carol empty -u bob
	check_eq "bob's entries after the refusal" "$n" "$(indexed bob)"
	check_rc "carol empty --yes -u bob" 0 ctl carol empty --yes -u bob
	wait_indexed bob 0
}
t_c_policy() {
	check_rc "carol policy set user bob" 0 ctl carol policy set user bob \
		quota 10M retention 400w
	check_rc "carol policy get user bob" 0 ctl carol policy get user bob
	check_out "policy get" "quota 10M, retention 400w"
	check_rc "carol policy set default" 0 ctl carol policy set default \
		quota 1G watermark 1%
	check_rc "bob's quota" 0 ctl bob quota --json
	check_out "bob's quota" '"quota":10485760'
	check_rc "alice's quota: the default" 0 ctl alice quota --json
	check_out "alice's quota" '"quota":1073741824'
	check_rc "status" 0 ctl alice status --json
	check_out "status" '"watermark":1,'
	check_rc "carol policy unset" 0 ctl carol policy set default \
		quota inherit watermark inherit
}
t_c_audit_denied() {
	# Every refusal above is in the audit log, with alice's uid.
	check_rc "carol audit -u alice" 0 ctl carol audit -u alice -n 1000
	n=$(printf '%s\n' "$OUT" | grep -c "denied")
	[ "$n" -ge 14 ] || die "$n denied rows for alice: $OUT"
	for a in ctl-list ctl-restore ctl-wipe ctl-empty ctl-quota \
	    ctl-policy-set ctl-policy-get ctl-audit; do
		printf '%s\n' "$OUT" | grep "$a" | grep -q denied ||
			die "no denied $a row for alice"
	done
	check_rc "carol audit -u dave" 0 ctl carol audit -u dave
	check_out "dave's denial" "denied"
	check_rc "root audit" 0 ctl root audit -A ctl-policy-set
	check_out "policy changes audited" "default"
}

# ---- restore refusals: nothing lost ----

t_conflict() {
	f=$H/alice/conflict.txt
	mkfile alice $f "old"
	n0=$(indexed alice)
	rm_as alice $f
	wait_indexed alice $((n0 + 1))
	tbtool runas $ALICE $ALICE sh -c "echo new > $f"
	check_rc "restore over an existing file" 1 ctl alice restore $f
	check_out "conflict message" "exists: kept in the trash"
	check_eq "the existing file" new "$(cat $f)"
	check_eq "still in the trash" $((n0 + 1)) "$(indexed alice)"
	check_rc "restore --to" 0 ctl alice restore --to $f.old $f
	check_eq "restored elsewhere" old "$(cat $f.old)"
}

# alice's entries deleted from PATH, by id: alice_ids PATH-PATTERN
alice_ids() { ctl alice list | awk -v p="$1" '$NF ~ p { print $1 }'; }

# A directory on the recorded path replaced by a symlink: never followed,
# whether its target is writable by the caller or only by root.  (By id:
# trashctl resolves the symlinks of a path it is given, trashd's walk of
# the recorded path is what is tested.)
t_symlink() {
	d=$H/alice/sw
	mkdir -p -m 0755 $M/rootonly
	tbtool runas $ALICE $ALICE mkdir -p $d/dir $H/alice/elsewhere
	mkfile alice $d/dir/f "behind a symlink"
	n0=$(indexed alice)
	rm_as alice $d/dir
	wait_indexed alice $((n0 + 1))
	id=$(alice_ids "^$d/dir/f\$")
	[ -n "$id" ] || die "no entry for $d/dir/f"
	for target in $H/alice/elsewhere $M/rootonly; do
		tbtool runas $ALICE $ALICE ln -sfn $target $d/dir
		check_rc "restore via a symlink to $target" 1 \
			ctl alice restore --id "$id"
		check_out "symlink message" "a symlink on the way: refused"
		check_absent $target/f
		check_eq "still in the trash" $((n0 + 1)) "$(indexed alice)"
	done
	tbtool runas $ALICE $ALICE rm $d/dir
	check_rc "restore once the symlink is gone" 0 ctl alice restore --id "$id"
	check_eq "restored" "behind a symlink" "$(cat $d/dir/f)"
}

# The same with the symlink swapped in and out while restores run.
t_symlink_race() {
	d=$H/alice/race
	tbtool runas $ALICE $ALICE mkdir -p $d/dir $H/alice/lure
	tbtool runas $ALICE $ALICE sh -c "cd $d/dir && for i in 1 2 3 4 5 6 7 8; do
		echo \$i > f\$i && tbtool chattr +u f\$i; done"
	n0=$(indexed alice)
	rm_as alice $d/dir
	wait_indexed alice $((n0 + 8))
	ids=$(alice_ids "^$d/dir/f[0-9]\$")
	check_eq "entries" 8 "$(echo $ids | wc -w)"
	tbtool runas $ALICE $ALICE mkdir $d/dir
	tbtool runas $ALICE $ALICE sh -c "while [ ! -e $d/stop ]; do
		mv $d/dir $d/real; ln -s $H/alice/lure $d/dir;
		rm -f $d/dir; mv $d/real $d/dir; done" > /dev/null 2>&1 &
	swapper=$!
	for id in $ids; do
		ctl alice restore --id $id > /dev/null 2>&1
	done
	touch $d/stop
	wait $swapper
	check_eq "in the lure" 0 "$(ls -A $H/alice/lure | wc -l)"
	back=$(find $d -name 'f[0-9]' -type f | wc -l)
	check_eq "restored + still trashed" 8 $((back + $(indexed alice) - n0))
}

t_unwritable() {
	d=$M/ro
	mkdir -p $d
	chown $ALICE:$ALICE $d
	mkfile alice $d/f "kept"
	n0=$(indexed alice)
	rm_as alice $d/f
	wait_indexed alice $((n0 + 1))
	chown 0:0 $d
	chmod 0755 $d
	check_rc "restore into root's directory" 1 ctl alice restore $d/f
	check_out "message" "permission denied: kept in the trash"
	check_absent $d/f
	check_rc "restore --to root's directory" 1 ctl alice restore --to $d/g $d/f
	check_absent $d/g
	check_rc "restore --to a missing dir under root's" 1 \
		ctl alice restore --to $d/sub/g $d/f
	check_absent $d/sub
	check_eq "still in the trash" $((n0 + 1)) "$(indexed alice)"
	check_rc "restore --to home" 0 ctl alice restore --to $H/alice/f $d/f
	check_eq "restored" kept "$(cat $H/alice/f)"
}

# ---- the protocol: errors for nonsense, service for the others ----

# A header: hdr VERSION TYPE LENGTH
hdr() { printf '%04x%04x%08x' "$1" "$2" "$3"; }
# PROTOCOL_VERSION, as the trashd under test speaks it.
V=$(trashd --version | sed -n 's/.*(protocol \([0-9]*\),.*/\1/p')
[ -n "$V" ] || { echo "Bail out! no protocol version in: $(trashd --version)"; exit 1; }
EPROTONOSUPPORT=93 EMSGSIZE=90 EBADMSG=74
still_serving() {
	check_rc "bob's status meanwhile" 0 ctl bob status
	check_eq "trashd alive" "" "$(kill -0 $TRASHD 2>&1)"
}

t_proto_garbage() {
	OUT=$(tbtool sock $SOCK "deadbeefcafebabe0123456789")
	check_out "garbage" "201 $EPROTONOSUPPORT "
	check_out "garbage: closed" "eof"
	still_serving
}
t_proto_version() {
	OUT=$(tbtool sock $SOCK "$(hdr 1 100 0)")
	check_out "old version" "201 $EPROTONOSUPPORT protocol version 1"
	still_serving
}
t_proto_oversized() {
	OUT=$(tbtool sock $SOCK "$(hdr $V 101 1048576)00010008")
	check_out "oversized" "201 $EMSGSIZE "
	check_out "oversized: closed" "eof"
	still_serving
}
t_proto_truncated() {
	# 40 bytes announced, 6 sent, then the end of the stream.
	OUT=$(tbtool sock $SOCK "$(hdr $V 101 40)000200080000")
	check_out "truncated" "201 $EBADMSG truncated request"
	still_serving
}
t_proto_malformed() {
	# An unknown attribute, an unknown type, a number of 2 bytes: each an
	# error from the front process, which passes none of them on, and
	# the connection closed; a status before one is answered first.
	OUT=$(tbtool sock $SOCK "$(hdr $V 100 0)$(hdr $V 101 4)00630000$(hdr $V 100 0)")
	check_eq "a status, then the error, closed" \
		"208
200
201 $EBADMSG malformed list request: attribute not allowed in this message
eof" "$OUT"
	OUT=$(tbtool sock $SOCK "$(hdr $V 999 0)$(hdr $V 100 0)")
	check_eq "unknown type: error, closed" \
		"201 $EBADMSG unknown request type 999
eof" "$OUT"
	OUT=$(tbtool sock $SOCK "$(hdr $V 101 6)00020002abcd$(hdr $V 100 0)")
	check_eq "a number of 2 bytes: error, closed" \
		"201 $EBADMSG malformed list request: number not 8 bytes long
eof" "$OUT"
	still_serving
}
t_proto_stalled() {
	# Clients that send half a header and stall, and a crowd of garbage:
	# the others are served meanwhile, the stalled ones dropped later.
	i=0
	while [ $i -lt 8 ]; do
		tbtool sock $SOCK "0002" 8 > /tmp/stall.$i &
		tbtool sock $SOCK "ffffffffffffffffffff" > /dev/null &
		i=$((i + 1))
	done
	sleep 1
	t0=$(date +%s)
	still_serving
	check_rc "alice's list meanwhile" 0 ctl alice list
	[ $(($(date +%s) - t0)) -lt 5 ] || die "others waited for the stalled"
	wait
	# Dropped at client-timeout (5s), before its 8s were up: no reply.
	check_eq "stalled: dropped" "eof" "$(cat /tmp/stall.0)"
}
t_proto_audited() {
	check_rc "audit of refusals" 0 ctl root audit -A ctl-refused -n 1000
	check_out "version refusal audited" "version=1 type=100"
	check_out "size refusal audited" "len=1048576"
}

run_test "rm -rf a +u tree, one trashctl restore DIR: sums, owners, modes" t_rm_rf_restore
run_test "user A cannot list B's trash" t_a_list
run_test "user A cannot list every trash" t_a_list_all
run_test "user A lists only their own" t_a_list_own
run_test "user A cannot restore B's entry by id" t_a_restore_id
run_test "user A cannot restore as B" t_a_restore_user
run_test "user A's restore by B's path finds nothing" t_a_restore_path
run_test "user A cannot wipe B's entry" t_a_wipe
run_test "user A cannot wipe as B" t_a_wipe_user
run_test "user A cannot empty B's trash" t_a_empty
run_test "user A cannot see B's quota" t_a_quota
run_test "user A cannot see every quota" t_a_quota_all
run_test "user A cannot set a user policy" t_a_policy_user
run_test "user A cannot set the default policy" t_a_policy_default
run_test "user A cannot set a watermark" t_a_policy_watermark
run_test "user A cannot read policies" t_a_policy_get
run_test "user A cannot read the audit log" t_a_audit
run_test "another group is no admin: audit" t_d_audit
run_test "another group is no admin: list" t_d_list
run_test "admin lists B's trash" t_c_list
run_test "admin lists every trash" t_c_list_all
run_test "admin sees B's quota and every quota" t_c_quota
run_test "admin restores for B, naming B" t_c_restore
run_test "admin wipes B's entry" t_c_wipe
run_test "admin empties B's trash" t_c_empty
run_test "admin sets user, default and watermark policies" t_c_policy
run_test "denied requests are audited" t_c_audit_denied
run_test "restore conflict: refused, both kept" t_conflict
run_test "symlink on the restore path: not followed" t_symlink
run_test "symlink swapped during restores: never followed" t_symlink_race
run_test "restore into an unwritable directory: refused, kept" t_unwritable
run_test "protocol: garbage gets an error, others served" t_proto_garbage
run_test "protocol: another version refused" t_proto_version
run_test "protocol: oversized request refused" t_proto_oversized
run_test "protocol: truncated request gets an error" t_proto_truncated
run_test "protocol: malformed requests answered by the front, closed" t_proto_malformed
run_test "protocol: stalled clients hold up nobody" t_proto_stalled
run_test "protocol: refusals audited" t_proto_audited

kill $TRASHD
wait $TRASHD
TRASHD_RC=$?
t_clean_exit() {
	[ "$TRASHD_RC" = 0 ] || { tail -n 20 /tmp/trashd.log; exit 1; }
}
run_test "trashd exits cleanly on SIGTERM" t_clean_exit
done_testing
