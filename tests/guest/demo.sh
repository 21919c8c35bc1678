#!/bin/sh
# The quick guest's demo (vm/quick/demo.sh), a one-minute look at the
# kernel side alone: on a real ext4 disk, flagged files going to
# /.trash/<uid>/ on rm, with their original paths.  The README's main
# job is vm/demo.sh: the full Debian guest, with trashd and trashctl.
. ./lib.sh

say() { echo "#"; echo "# $*"; }
show() {
	echo "#   \$ $*"
	sh -c "$*" 2>&1 | sed 's/^/#     /'
}
user() {	# run as alice (uid 1000), shown as she would type it
	echo "#   alice\$ $*"
	as 1000 sh -c "cd /mnt/home/alice && $*" 2>&1 | sed 's/^/#     /'
}

reset_trash
rm -rf $M/home && mkdir -p $M/home/alice && chown 1000:1000 $M/home/alice
say "The admin opts the filesystem in: a root-owned /.trash, mode 0755."
show "ls -ld /mnt/.trash"
say "alice marks her project undeletable (+u) and her key secure-delete (+s)."
user "mkdir project && echo 'int main(void) { return 0; }' > project/main.c"
user "tbtool chattr +u project && echo 'notes' > project/notes.txt"
user "echo 'ssh key' > id_ed25519 && tbtool chattr +s id_ed25519"
user "echo 'scratch' > scratch.txt"
say "She deletes all of it with plain rm."
user "rm -rf project id_ed25519 scratch.txt && ls -A"
say "The flagged files are in her trash, private to her; scratch.txt is gone."
show "ls -la /mnt/.trash/1000"
say "The kernel recorded where each came from (trusted.trash: time, deleter, path; root only)."
for f in $T/1000/*; do
	show "tbtool getxattr $f trusted.trash"
done
say "Restoring is a move back out of the trash (trashctl will do it by path)."
user "mv /mnt/.trash/1000/main.c . && cat main.c"

t_demo_paths() {
	check_eq "notes.txt's path" home/alice/project/notes.txt \
		"$(xget $T/1000/notes.txt path)"
	check_eq "id_ed25519's path" home/alice/id_ed25519 \
		"$(xget $T/1000/id_ed25519 path)"
	check_eq "restored main.c" 'int main(void) { return 0; }' \
		"$(cat $M/home/alice/main.c)"
}
run_test "project files trashed with their paths" t_demo_paths
done_testing
