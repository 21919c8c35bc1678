#!/bin/bash
# The narrated demo of scenarios 1-3 (vm/demo.sh): each command shown
# as its user would type it, then its output.  Also TAP, so that the
# harness knows it worked.
. ./lib.sh

say() { printf '== %s\n' "$*"; }
# step NAME FUNCTION: run it with its output shown live, then one TAP line.
step() {
	local rc
	TB_N=$((TB_N + 1))
	echo
	( set -e; $2 )
	rc=$?
	if [ $rc -eq 0 ]; then echo "ok $TB_N - $1"; else echo "not ok $TB_N - $1"; fi
}
# run USER COMMAND: show "user$ COMMAND", run it as USER through PAM
# (su -c hides PAM's notice), show the output.
run() {
	local u=$1; shift
	printf '%s@trashbin:~$ %s\n' "$u" "$*"
	su - "$u" -c "$*" 2>&1 | sed 's/^/    /'
	return "${PIPESTATUS[0]}"
}

wait_for 120 trashd_up || { echo "Bail out! trashd is not running"; exit 1; }

demo1() {
	say "1. Undo an rm -rf.  alice logs in: pam_trash sets +u (undelete) on her home,"
	say "   so everything she creates there inherits it."
	run alice 'lsattr -d ~'
	run alice 'mkdir -p ~/project/src && echo "int main(void) { return 0; }" > ~/project/src/main.c && echo "# My project" > ~/project/README && ls -R ~/project'
	run alice 'rm -rf ~/project && ls ~'
	wait_for 30 sh -c "[ \$(ls /home/.trash/$(id -u alice) | wc -l) -ge 2 ]"
	sleep 2
	say "   The kernel moved the files to /home/.trash/$(id -u alice)/; trashd indexed them:"
	run alice 'trashctl list'
	run alice 'trashctl restore ~/project'
	run alice 'cat ~/project/src/main.c ~/project/README'
	[ "$(cat /home/alice/project/README)" = "# My project" ]
}

demo2() {
	say "2. Secure deletion.  bob marks a file +s; once deleted, trashd overwrites it"
	say "   before unlinking (NIST SP 800-88 Clear on a disk that writes in place)."
	run bob 'echo "the launch code is 0000" > ~/secret.txt && chattr +s ~/secret.txt && lsattr ~/secret.txt && sync'
	run bob 'rm ~/secret.txt'
	wait_for 60 sh -c "[ ! -e /home/.trash/$(id -u bob)/secret.txt ] && [ -z \"\$(ls -A /home/.trash/.wipe)\" ]"
	sleep 1
	run root 'trashctl audit -n 20 | grep secret.txt'
	say "   Searching the raw /home disk for the secret (as root):"
	sync; echo 3 > /proc/sys/vm/drop_caches
	printf 'root@trashbin:~# grep -a -c "the launch code" /dev/vdb\n'
	n=$(grep -a -c "the launch code" /dev/vdb || true)
	printf '    %s\n' "$n"
	[ "$n" = 0 ]
}

demo3() {
	say "3. Quotas.  carol (in the admin group trashadm) gives bob a 1 MiB trash quota;"
	say "   bob deletes 5 MiB; trashd purges his oldest entries, and says why."
	run carol 'trashctl policy set user bob quota 1M && trashctl policy get user bob'
	run bob 'mkdir -p ~/data && for i in 1 2 3 4 5; do head -c 1M /dev/urandom > ~/data/part$i; done; for i in 1 2 3 4 5; do rm ~/data/part$i; sleep 1; done'
	wait_for 60 sh -c "su - carol -c 'trashctl audit -A purged -n 10' | grep -q part4"
	run bob 'trashctl list ~/data; trashctl quota'
	run carol 'trashctl audit -A purged -n 5'
	su - carol -c 'trashctl audit -A purged -n 10' | grep -q part1
}

step "demo 1: rm -rf undone with trashctl restore" demo1
step "demo 2: a +s file wiped, not on the raw disk" demo2
step "demo 3: quota set by an admin, oldest purged, audited" demo3
done_testing
