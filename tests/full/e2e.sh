#!/bin/bash
# The end-to-end scenarios of issue 5, in the full guest (systemd, users
# made by cloud-init, trashd as a hardened service, pam_trash in the
# session stack), as TAP, on what provisioning installed from the Debian
# packages (in ctest, in this suite's own first boot: vm/full/run.sh
# --provision-first).  Two boots (e2e.sh is run again each boot: TB_BOOT
# says which):
#   boot 1: the packages (the kernel booted is the one dpkg installed),
#           trashd as a service (READY, a reload refused with a broken
#           config and taken with a good one), scenarios 1-4, the first
#           half of 5 (the index recorded, files deleted while trashd is
#           stopped) and of 6 (an rm -rf, and the host kills QEMU hard in
#           the middle of it: a power cut)
#   boot 2: the rest of 5 (index, policies and audit kept across the
#           power cut and the reboot) and of 6, then 7: dpkg --purge
. ./lib.sh
set -o pipefail

H=/home
TR=$H/.trash
uid_of() { id -u "$1"; }

wait_trashd() {
	wait_for 120 trashd_up || die "trashd is not up: $(systemctl is-active trashd)"
	# The socket answers.
	wait_for 60 trashctl status >/dev/null || die "trashctl status fails"
}

# live entries of USER (admin view, through the socket), as JSON
entries() { trashctl -j list -u "$1"; }
# count_under USER PREFIX: the user's own view of the entries under PREFIX
count_under() { asq "$1" "trashctl -j list '$2'" | pyj 'len(d["entries"])'; }
is_count() { [ "$(count_under "$1" "$2")" = "$3" ]; }
wipe_done() {	# wipe_done UID NAME USER PATH
	[ -z "$(ls -A "$TR/.wipe" 2>/dev/null)" ] && [ ! -e "$TR/$1/$2" ] &&
		is_count "$3" "$4" 0
}
bob_usage() { asq bob 'trashctl -j quota' | pyj 'sum(u["bytes"] for u in d["usage"])'; }
under_quota() { [ "$(bob_usage)" -le 1048576 ]; }
wipe_started() { ls -A "$TR/.wipe" | grep -q .; }
wipe_empty() { [ -z "$(ls -A "$TR/.wipe" 2>/dev/null)" ]; }
restarted() {
	local p
	p=$(systemctl show -p MainPID --value trashd)
	[ "$p" != 0 ] && [ "$p" != "$1" ]
}
large_wiped() {
	[ "$(db "SELECT state FROM entries WHERE orig_path LIKE '%large.bin'")" = wiped ]
}

# ---- 0: the packages, and trashd as a service ----

# The kernel booted is the package's: its release is uname -r, and its
# /boot/vmlinuz is byte for byte the image the host booted (kernel.sha256,
# written by vm/full/run.sh).
t_kernel_package() {
	local pkg rel
	pkg=$(dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-*' |
		awk '$NF == "installed" { print $1 }')
	echo "installed: $pkg $(dpkg-query -W -f='${Version}' "$pkg")"
	check_eq "kernel packages installed" 1 "$(echo "$pkg" | wc -w)"
	rel=${pkg#linux-image-}
	check_eq "the package's release" "$rel" "$(uname -r)"
	case "$rel" in *-trashbin) ;; *) die "release $rel is not -trashbin" ;; esac
	dpkg -L "$pkg" | grep -qx "/boot/vmlinuz-$rel" || die "$pkg has no /boot/vmlinuz-$rel"
	check_eq "sha256 of /boot/vmlinuz-$rel" "$(cat kernel.sha256)" \
		"$(sha256sum < "/boot/vmlinuz-$rel" | cut -d' ' -f1)"
	# Nothing the packages installed was changed since, but the site's
	# trashd.conf (a conffile kept at install).
	dpkg -V trashd trashctl libpam-trash "$pkg" > /tmp/verify || true
	cat /tmp/verify
	! grep -v ' c /etc/trashd/trashd.conf$' /tmp/verify | grep -q . ||
		die "dpkg -V: installed files changed"
}

# Type=notify: "active (running)" and systemd's "Started" only after
# READY=1; the status text is the steady one; no restart on the way.
t_service_ready() {
	local st p
	wait_trashd
	st=$(systemctl status --no-pager trashd 2>&1) || true
	echo "$st" | head -n 6
	echo "$st" | grep -q 'Active: active (running)' || die "not active (running)"
	echo "$st" | grep -q 'Status: "managing ' || die "no READY status text"
	p=$(systemctl show -p ActiveState -p SubState -p StatusText -p NRestarts \
		-p Result trashd)
	echo "$p"
	echo "$p" | grep -qx 'ActiveState=active'
	echo "$p" | grep -qx 'NRestarts=0'
	echo "$p" | grep -q '^StatusText=managing '
	journalctl -b -u trashd --no-pager | grep -E 'Started|trashd\[' | head -n 5
	journalctl -b -u trashd --no-pager | grep -q 'Started trashd.service' ||
		die "no 'Started' for trashd in this boot's journal"
}

# The config's retention as the running trashd has it, in seconds.
conf_retention() {
	asq carol 'trashctl -j policy get default' |
		pyj '[p["retention"] for p in d["policies"] if p["kind"] == "config" and "retention" in p][0]'
}
is_retention() { [ "$(conf_retention)" = "$1" ]; }

# ExecReload= runs trashd -t first: a broken trashd.conf fails the
# reload, and the daemon goes on (same pid) with the config it had; a
# good one is then taken without a restart.
t_reload() {
	local conf=/etc/trashd/trashd.conf pid0 rc=0
	wait_trashd
	cp -p "$conf" "$TB_STATE/trashd.conf.good"
	pid0=$(systemctl show -p MainPID --value trashd)
	check_eq "retention in effect" 2592000 "$(conf_retention)"
	# Broken: a new retention, and a key trashd does not know.
	sed 's/^retention .*/retention 7d/' "$TB_STATE/trashd.conf.good" > "$conf"
	echo 'no-such-key yes' >> "$conf"
	systemctl reload trashd 2>&1 || rc=$?
	[ "$rc" != 0 ] || die "the reload with a broken config succeeded"
	journalctl -b -u trashd --no-pager | grep -i 'no-such-key' | tail -n 2
	journalctl -b -u trashd --no-pager | grep -qi 'no-such-key' ||
		die "trashd -t said nothing about the broken line"
	sleep 2
	systemctl is-active -q trashd || die "trashd stopped: $(systemctl is-active trashd)"
	check_eq "MainPID after the refused reload" "$pid0" \
		"$(systemctl show -p MainPID --value trashd)"
	check_eq "retention still in effect" 2592000 "$(conf_retention)"
	# Good again, with another retention: taken by the reload.
	sed 's/^retention .*/retention 14d/' "$TB_STATE/trashd.conf.good" > "$conf"
	systemctl reload trashd || die "the reload with a good config failed"
	wait_for 30 is_retention 1209600 || die "retention now $(conf_retention), not 14d"
	check_eq "MainPID after the reload" "$pid0" \
		"$(systemctl show -p MainPID --value trashd)"
	# And back to the site's.
	cp -p "$TB_STATE/trashd.conf.good" "$conf"
	systemctl reload trashd
	wait_for 30 is_retention 2592000 || die "retention now $(conf_retention), not 30d"
	systemctl is-active trashd
}

# ---- 1: login, rm -rf, list, restore ----
t_restore_tree() {
	wait_trashd
	chattr -u /home/alice
	as alice 'true' >/dev/null
	lsattr -d /home/alice | cut -d' ' -f1 | grep -q u || die "login did not set +u on alice's home"
	as alice '
		set -e
		mkdir -p ~/project/src/lib ~/project/doc ~/project/empty
		for i in $(seq 1 12); do
			printf "source %s\n" $i > ~/project/src/f$i.c
			head -c $((i * 777)) /dev/urandom > ~/project/src/lib/blob$i
		done
		printf "# Project\n" > ~/project/doc/README.md
		printf "#!/bin/sh\necho hi\n" > ~/project/run.sh
		chmod 0750 ~/project/run.sh
		cd ~/project && find . -type f | sort | xargs sha256sum > /tmp/before.sum
		find . -type f -printf "%p %m\n" | sort > /tmp/before.modes
		lsattr -d ~/project/src | cut -d" " -f1 | grep -q u
	'
	n=$(find /home/alice/project -type f | wc -l)
	check_eq "files in the tree" 26 "$n"
	as alice 'rm -rf ~/project'
	check_absent /home/alice/project
	# Every file was trashed and indexed (inotify, asynchronously).
	wait_for 60 is_count alice /home/alice/project 26 ||
		die "trashctl list shows $(as alice 'trashctl list /home/alice/project' | tail -n 1)"
	echo "\$ trashctl list ~/project   (as alice, last lines)"
	asq alice 'trashctl list ~/project' | tail -n 4
	as alice 'trashctl restore ~/project'
	as alice '
		set -e
		cd ~/project
		find . -type f | sort | xargs sha256sum > /tmp/after.sum
		find . -type f -printf "%p %m\n" | sort > /tmp/after.modes
		cmp /tmp/before.sum /tmp/after.sum
		cmp /tmp/before.modes /tmp/after.modes
	' || die "restored tree differs"
	n=$(entries alice | pyj 'len([e for e in d["entries"] if e["path"] and e["path"].startswith("/home/alice/project/")])')
	check_eq "project entries left in the trash" 0 "$n"
}

# ---- 2: a +s file is wiped: none of its bytes left on the raw disk ----
t_wipe_raw() {
	wait_trashd
	local marker uid
	marker="TBMARK-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')-"
	uid=$(uid_of bob)
	as bob "python3 -c 'import sys; sys.stdout.write(sys.argv[1] * 8192)' '$marker' > ~/secret.txt && chattr +s ~/secret.txt && sync"
	lsattr ~bob/secret.txt | cut -d' ' -f1 | grep -q s || die "no +s"
	# The control: before the wipe the marker is on the raw disk.
	sync; echo 3 > /proc/sys/vm/drop_caches
	grep -a -q -F "$marker" /dev/vdb || die "control failed: marker not found on /dev/vdb before the wipe"
	as bob 'rm ~/secret.txt'
	check_absent /home/bob/secret.txt
	# Wiped: gone from the trash, the wipe queue and the live index.
	wait_for 120 wipe_done "$uid" secret.txt bob /home/bob/secret.txt ||
		die "not wiped: $(ls -la $TR/.wipe $TR/$uid 2>&1)"
	trashctl audit -u bob -n 20 2>/dev/null | grep -i wipe | tail -n 3 || true
	trashctl audit -n 50 | grep -i 'secret.txt' | grep -qi wipe || die "no wipe in the audit"
	sync; echo 3 > /proc/sys/vm/drop_caches
	n=$(grep -a -c -F "$marker" /dev/vdb || true)
	check_eq "marker occurrences on /dev/vdb after the wipe" 0 "$n"
}

# ---- 3: an admin's quota; the oldest purged; the audit says why ----
t_quota_purge() {
	wait_trashd
	su - carol -c 'trashctl policy set user bob quota 1M' || die "carol cannot set the policy"
	# An unprivileged user cannot.
	! su - alice -c 'trashctl policy set user bob quota 100M' 2>/dev/null || die "alice could set a policy"
	su - carol -c 'trashctl policy get user bob'
	as bob '
		set -e
		mkdir -p ~/big && chattr +u ~/big
		for i in 1 2 3 4 5; do head -c 1048576 /dev/urandom > ~/big/q$i.bin; done
		sync
		for i in 1 2 3 4 5; do rm ~/big/q$i.bin; sleep 1.1; done
	'
	wait_for 120 under_quota ||
		die "bob's trash above quota: $(as bob 'trashctl quota')"
	asq bob 'trashctl quota'
	left=$(entries bob | pyj 'sorted(e["path"].rsplit("/",1)[1] for e in d["entries"] if e["path"] and "/big/" in e["path"])' | tr '\n' ' ')
	echo "left in the trash: $left"
	# Oldest first: what is left is a suffix of the deletion order.
	case "$left" in ""|"q5.bin "|"q4.bin q5.bin ") ;; *) die "not the oldest purged: left $left" ;; esac
	echo "\$ trashctl audit -A purged   (as carol)"
	su - carol -c 'trashctl audit -A purged -n 20' | tee /tmp/purged.txt
	for i in 1 2 3; do
		grep "q$i.bin" /tmp/purged.txt | grep -qi quota || die "no purge of q$i.bin with reason quota"
	done
}

# ---- 4: trashd killed during a wipe: restarted, wipe completes ----
t_kill_during_wipe() {
	wait_trashd
	local pid0 pid1 uid rows0
	uid=$(uid_of bob)
	pid0=$(systemctl show -p MainPID --value trashd)
	rows0=$(db 'SELECT count(*) FROM entries')
	as bob 'head -c 64M /dev/urandom > ~/large.bin && chattr +s ~/large.bin && sync && rm ~/large.bin'
	wait_for 60 wipe_started || die "the wipe never started"
	db "SELECT id, state FROM entries WHERE orig_path LIKE '%large.bin'"
	systemctl kill -s KILL trashd
	echo "killed trashd ($pid0) during the wipe"
	wait_for 60 restarted "$pid0" ||
		die "trashd did not restart"
	wait_trashd
	echo "restarted: pid $(systemctl show -p MainPID --value trashd), NRestarts=$(systemctl show -p NRestarts --value trashd)"
	wait_for 180 wipe_empty || die "wipe not completed: $(ls -la $TR/.wipe)"
	wait_for 30 large_wiped ||
		die "index: $(db "SELECT id, state FROM entries WHERE orig_path LIKE '%large.bin'")"
	check_eq "index integrity" ok "$(db 'PRAGMA integrity_check')"
	rows1=$(db 'SELECT count(*) FROM entries')
	[ "$rows1" -ge "$rows0" ] || die "index lost rows: $rows0 -> $rows1"
}

# ---- 5: a reboot keeps index, policies and audit; offline deletes ----
# Recorded, then files deleted while trashd is stopped; trashd started
# again indexes them from the trash (its start-up scan); then the power
# cut of 6 is this reboot, the harder kind: what trashd had committed
# before it must all be there after.
t_reboot_prepare() {
	wait_trashd
	db 'SELECT count(*) FROM entries' > "$TB_STATE/s5.entries"
	db 'SELECT count(*) FROM audit' > "$TB_STATE/s5.audit"
	su - carol -c 'trashctl policy get user bob' > "$TB_STATE/s5.policy"
	entries alice | pyj '[e["id"] for e in d["entries"]]' | sort > "$TB_STATE/s5.ids"
	systemctl stop trashd
	as alice 'mkdir -p ~/offline && for i in 1 2 3; do echo offline $i > ~/offline/o$i.txt; done && rm -rf ~/offline'
	ls "$TR/$(uid_of alice)" | grep -c '^o[123]\.txt' | grep -qx 3 || die "offline deletes not in the trash"
	sync
	systemctl start trashd
}

t_reboot_check() {
	wait_trashd
	[ "$(db 'SELECT count(*) FROM entries')" -ge "$(cat "$TB_STATE/s5.entries")" ] || die "entries lost"
	[ "$(db 'SELECT count(*) FROM audit')" -ge "$(cat "$TB_STATE/s5.audit")" ] || die "audit rows lost"
	su - carol -c 'trashctl policy get user bob' > /tmp/policy.now
	cmp "$TB_STATE/s5.policy" /tmp/policy.now || die "policy changed: $(cat /tmp/policy.now)"
	entries alice | pyj '[e["id"] for e in d["entries"]]' | sort > /tmp/ids.now
	comm -23 "$TB_STATE/s5.ids" /tmp/ids.now | grep . && die "entries missing after the reboot"
	wait_for 60 is_count alice /home/alice/offline 3 ||
		die "files deleted while trashd was down are not indexed"
	trashctl list -u alice /home/alice/offline
}

# ---- 6: a power cut during rm -rf: fsck clean, nothing lost ----
t_powercut_prepare() {
	local uid n
	wait_trashd
	uid=$(uid_of alice)
	# Journal commits every second, so that the cut lands after some of
	# the rm -rf is on disk, not only in memory.
	mount -o remount,commit=1 /home
	as alice '
		set -e
		mkdir -p ~/crash && chattr +u ~/crash
		for d in $(seq 1 30); do
			mkdir ~/crash/d$d
			for f in $(seq 1 100); do echo "$d/$f" > ~/crash/d$d/f$f; done
		done
	'
	find /home/alice/crash -type f | sort > "$TB_STATE/s6.files"
	sync
	echo "# $(wc -l < "$TB_STATE/s6.files") flagged files; rm -rf, then a power cut"
	su - alice -c 'rm -rf ~/crash' &
	# Cut once a few hundred files are in the trash, rm still running.
	n=0
	for _ in $(seq 1 600); do
		n=$(ls -f "$TR/$uid" 2>/dev/null | grep -c '^f' || true)
		[ "$n" -ge 400 ] && break
		sleep 0.1
	done
	sleep 1.5
	pgrep -u alice -x rm >/dev/null || echo "# rm -rf finished before the cut"
	echo "# $n files in the trash: cutting the power"
	echo "# trashbin-kill-now"
	sleep 600
}

t_powercut_check() {
	local uid inplace trashed missing n m
	uid=$(uid_of alice)
	systemctl stop trashd
	umount /home || die "cannot unmount /home: $(fuser -vm /home 2>&1)"
	e2fsck -fn /dev/vdb || die "e2fsck -fn found problems"
	mount /home
	systemctl start trashd
	wait_trashd
	# Every file is in place, or in the trash and indexed.
	wait_for 60 wipe_empty
	sleep 3
	asq alice 'trashctl -j list /home/alice/crash' | pyj '[e["path"] for e in d["entries"]]' | sort > /tmp/indexed
	while read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done \
		< "$TB_STATE/s6.files" > /tmp/inplace || true
	grep -vxF -f /tmp/inplace "$TB_STATE/s6.files" > /tmp/gone || true
	grep -xF -f /tmp/indexed /tmp/gone > /tmp/trashed || true
	grep -vxF -f /tmp/indexed /tmp/gone > /tmp/lost || true
	inplace=$(wc -l < /tmp/inplace)
	trashed=$(wc -l < /tmp/trashed)
	missing=$(wc -l < /tmp/lost)
	head -n 5 /tmp/lost | sed 's/^/lost: /'
	echo "in place $inplace, in the trash and indexed $trashed, lost $missing"
	check_eq "files lost" 0 "$missing"
	check_eq "files accounted for" "$(wc -l < "$TB_STATE/s6.files")" $((inplace + trashed))
	[ "$trashed" -gt 0 ] || die "the power cut came before rm -rf did anything: proves nothing"
	# And nothing in alice's trash is unindexed.
	n=$(ls -A "$TR/$uid" | wc -l)
	m=$(trashctl -j list -u alice | pyj 'len(d["entries"])')
	check_eq "entries in /.trash/$uid vs indexed" "$n" "$m"
}

# ---- 7: dpkg --purge removes what the packages made, and only that ----
t_purge() {
	local out
	out=$(dpkg --purge trashctl libpam-trash trashd 2>&1) ||
		{ echo "$out"; die "dpkg --purge failed"; }
	echo "$out" | tail -n 8
	for p in trashd trashctl libpam-trash; do
		! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -qx 'install ok installed' ||
			die "$p still installed"
	done
	! systemctl is-active -q trashd || die "trashd still running"
	check_absent /usr/sbin/trashd
	check_absent /lib/systemd/system/trashd.service
	check_absent /etc/trashd/trashd.conf
	check_absent /var/lib/trashd
	check_absent /run/trashd
	! grep -q pam_trash /etc/pam.d/common-session ||
		die "pam_trash.so still in common-session"
	# The group was the site's (cloud-init made it first): it stays,
	# and so do the users' trashes.
	getent group trashadm || die "purge removed the site's trashadm group"
	check_exists /home/.trash
	# And a login still works without the module.
	as alice 'echo still here' | grep -q 'still here'
}

case "$TB_BOOT" in
1)
	run_test "0a. the booted kernel is the installed linux-image package's: release = uname -r, /boot/vmlinuz = the booted image" t_kernel_package
	run_test "0b. systemctl status trashd: active (running) after READY, the steady status, no restarts" t_service_ready
	run_test "0c. reload with a broken trashd.conf refused (old config kept, same pid), a good one taken" t_reload
	run_test "1. login via PAM sets +u; rm -rf; trashctl list; trashctl restore ~/project gives the same tree" t_restore_tree
	run_test "2. a +s file is wiped: none of its marker bytes left on the raw disk" t_wipe_raw
	run_test "3. 1 MiB quota set by an admin: oldest purged, audit shows why" t_quota_purge
	run_test "4. trashd SIGKILLed during a wipe: restarted, wipe completes, index intact" t_kill_during_wipe
	run_test "5a. record the index, stop trashd, delete files, start trashd" t_reboot_prepare
	t_powercut_prepare
	;;
2)
	run_test "5. after the power cut and reboot: index, policies, audit kept; offline deletes indexed" t_reboot_check
	run_test "6. power cut during rm -rf: e2fsck -fn clean, every file in place or trashed and indexed" t_powercut_check
	run_test "7. dpkg --purge: daemon, unit, config, index, socket dir and PAM profile gone; the site's group and the trashes stay" t_purge
	done_testing
	;;
esac
