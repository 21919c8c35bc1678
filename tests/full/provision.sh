#!/bin/bash
# The provisioning boot (vm/full/run.sh runs it with the seed, once per
# image, seed and packages, and caches the result): cloud-init made the
# users and the site's trashd.conf; here the packages are installed from
# the tests disk as an admin installs them (apt, offline: their
# dependencies are in the root already, vm/full/mkroot.sh), the kernel's
# with dpkg, and the PAM profile enabled with pam-auth-update; then trashd
# runs as a hardened service and pam_trash is in the session stack.
# Run alone (--suite provision, cached by vm/full/run.sh for the suites
# that start from its disks) or as the first part of a suite's first boot
# (vm/full/run.sh --provision-first: e2e), numbered with that suite's
# tests.
. ./lib.sh

# The project's packages: apt resolves their Depends from what is
# installed (no network, no package lists); the postinsts make the
# group, the directories and start trashd.  --force-confold: the site's
# trashd.conf (written by cloud-init first, as configuration management
# does) stays, as dpkg would ask at a terminal.
t_install_packages() {
	local d out
	ls debs/*.deb
	out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends \
		-o Dpkg::Options::=--force-confdef \
		-o Dpkg::Options::=--force-confold \
		"$PWD"/debs/*.deb 2>&1) ||
		{ echo "$out" | tail -n 40; die "apt-get install failed"; }
	echo "$out" | tail -n 25
	for d in trashd trashctl libpam-trash; do
		check_eq "dpkg status of $d" "install ok installed" \
			"$(dpkg-query -W -f='${Status}' "$d")"
	done
	dpkg -L trashd | grep -qx /usr/sbin/trashd || die "trashd has no /usr/sbin/trashd"
	grep -q '^# Written by the NoCloud seed' /etc/trashd/trashd.conf ||
		die "the site's trashd.conf was replaced"
	systemctl is-enabled trashd
	wait_for 60 trashd_up || die "the package did not start trashd: $(systemctl status trashd 2>&1 | tail -n 20)"
}

# The kernel's package, as built by kernel/build.sh --deb; the suites
# check that what they boot is its /boot/vmlinuz (tests/full/e2e.sh).
t_install_kernel() {
	local deb pkg
	deb=$(ls kernel/linux-image-*.deb)
	pkg=$(dpkg-deb -f "$deb" Package)
	dpkg -i "$deb" || die "dpkg -i $deb failed"
	check_eq "dpkg status of $pkg" "install ok installed" \
		"$(dpkg-query -W -f='${Status}' "$pkg")"
	ls -l /boot
	check_eq "the running kernel's release" "${pkg#linux-image-}" "$(uname -r)"
}

# Enabled the Debian way, not by editing /etc/pam.d.
t_pam_profile() {
	DEBIAN_FRONTEND=noninteractive pam-auth-update --enable trash
	grep -n 'pam_trash' /etc/pam.d/common-session ||
		die "pam_trash.so not in common-session"
	grep -q '^session[[:space:]].*pam_trash\.so' /etc/pam.d/common-session
	! grep -q pam_trash /etc/pam.d/common-session-noninteractive ||
		die "pam_trash in the non-interactive sessions"
}

t_cloud_init() {
	local rc=0
	cloud-init status --wait >/dev/null || true
	# 0: done; 2 (cloud-init 23.4 and later, Debian 13): done but
	# degraded, with recoverable errors (listed above); 1: failed.
	cloud-init status --long || rc=$?
	[ "$rc" = 0 ] || die "cloud-init status $rc: degraded or failed, see above"
	cloud-init status | grep -q 'status: done' || die "cloud-init not done"
	! grep -E 'schema.py\[WARNING\]|Traceback|\[ERROR\]' /var/log/cloud-init.log | head -n 5 | grep . ||
		die "cloud-init logged the problems above"
	for u in alice bob carol; do id "$u" >/dev/null || die "no user $u"; done
	id -nG carol | grep -qw trashadm || die "carol not in trashadm"
	! id -nG alice | grep -qw trashadm || die "alice in trashadm"
	grep -q '^admin-group trashadm' /etc/trashd/trashd.conf
}

t_home_disk() {
	findmnt -n -o SOURCE,FSTYPE /home | grep -q '^/dev/vdb ext4' ||
		die "/home is $(findmnt -n -o SOURCE,FSTYPE /home)"
	wait_for 30 trashd_up || die "trashd: $(systemctl is-active trashd)"
	check_eq "/.trash owner and mode" "0 755 directory" \
		"$(stat -c '%u %a %F' /home/.trash)"
}

t_unit_hardened() {
	local p
	p=$(systemctl show trashd -p ProtectSystem -p PrivateTmp \
		-p NoNewPrivileges -p Restart -p CapabilityBoundingSet \
		-p Type -p StatusText)
	echo "$p"
	# full, not strict, and no private /tmp: trashd.service.in says why.
	echo "$p" | grep -q '^ProtectSystem=full'
	echo "$p" | grep -q '^PrivateTmp=no'
	# Type=notify: active means READY=1 came; then the steady status.
	echo "$p" | grep -q '^Type=notify'
	echo "$p" | grep -q '^StatusText=managing '
	systemd-analyze security --threshold=25 trashd | tail -n 1
	echo "$p" | grep -q '^NoNewPrivileges=yes'
	echo "$p" | grep -q '^Restart=on-failure'
	# What the running daemon holds: only what caps.c keeps.
	grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/"$(systemctl show -p MainPID --value trashd)"/status
	grep -q '^NoNewPrivs:[[:space:]]*1' /proc/"$(systemctl show -p MainPID --value trashd)"/status
	journalctl -u trashd -b --no-pager | grep -q 'started' || die "no start in the journal"
}

# (su -c hides PAM's info messages, the notice among them: pamtester
# below shows it.)
t_pam_login() {
	chattr -u /home/bob
	lsattr -d /home/bob | cut -d' ' -f1 | grep -q u && die "bob already +u"
	out=$(su - bob -c 'echo logged-in as $(id -un)' 2>&1)
	echo "$out"
	echo "$out" | grep -q 'logged-in as bob'
	lsattr -d /home/bob
	lsattr -d /home/bob | cut -d' ' -f1 | grep -q u || die "bob's home not +u"
}

t_pamtester() {
	chattr -u /home/alice
	out=$(timeout 60 pamtester -v login alice open_session close_session 2>&1)
	echo "$out" | grep -E 'pamtester|Trash'
	echo "$out" | grep -q '^Trash: /home [0-9]* files*, .* of .*, kept 30 days\.$' ||
		{ journalctl -b --no-pager | grep -i 'pam_trash' | tail -n 5; die "no trash notice"; }
	lsattr -d /home/alice | cut -d' ' -f1 | grep -q u
}

run_test "cloud-init made the users, the admin group and the config" t_cloud_init
run_test "apt-get install ./trashd ./trashctl ./libpam-trash .debs, offline: installed, trashd started" t_install_packages
run_test "dpkg -i the kernel's .deb: installed, its release is the running kernel's" t_install_kernel
run_test "pam-auth-update --enable trash: pam_trash.so in common-session" t_pam_profile
run_test "/home is the data disk, trashd created /.trash" t_home_disk
run_test "trashd runs hardened, keeps its caps, logs to the journal" t_unit_hardened
run_test "su - bob goes through pam_trash: +u on the home" t_pam_login
run_test "pamtester: a login session for alice gets +u and the trash notice" t_pamtester
# Provisioned once, as a server is: later boots need no cloud-init (its
# four stages cost about a minute a boot under TCG with the debug kernel).
touch /etc/cloud/cloud-init.disabled
[ "${TB_SUITE:-provision}" = provision ] && done_testing
exit 0
