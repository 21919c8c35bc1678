#!/bin/bash
# Boot the full guest (Debian bookworm or trixie, systemd, cloud-init, trashd as a
# service) on the patched kernel under QEMU TCG, run tests/full/NAME.sh in
# it as root and report its TAP.  Fails on any failed or missing test, a
# guest that hangs (killed after --timeout seconds per boot), or any
# kernel BUG, WARNING, lockdep or KASAN report on the console.
#
# What runs in it is what an admin installs: the project's Debian packages
# (tests/install/package.sh --cache: built once per source) and the
# kernel's (kernel/build.sh --deb --line L, or $TRASHBIN_KERNEL_DEB), on the tests
# disk under debs/ and kernel/, installed by the provisioning boot.  The
# guest boots the vmlinuz of that kernel package (with -kernel: the guest
# has no boot loader), whose sha256 goes in as kernel.sha256, so that a
# test can check it is the /boot/vmlinuz-$(uname -r) dpkg installed.
# ($TRASHBIN_BZIMAGE, the quick guests' kernel, is not used here.)
#
#   vm/full/run.sh [--suite NAME] [--timeout SECONDS] [--fresh]
#                  [--provision-first] [--max-boots N] [--keep DIR]
#                  [--interactive] [--release bookworm|trixie] [--line L]
#
# --release: the Debian release of the guest (vm/full/mkroot.sh), its
# packages built for it (tests/install/package.sh --release), the kernel
# package of its kernel line (bookworm: 6.1, trixie: 6.12; --line
# chooses another).  Default: bookworm, Debian 12.
#
# --interactive (vm/demo.sh, with a terminal): the guest's console is
# this terminal, the suite's output is shown there too, and afterwards the
# guest leaves the user at a shell as alice; QEMU's timeout is an hour.
#
# A suite may ask for more boots (vm/full/guest/trashbin-suite): after a
# clean reboot, or after "# trashbin-kill-now", when this script kills
# QEMU hard (SIGKILL) as a power cut would.  Each run gets a fresh qcow2
# overlay over the provisioned root and a copy of the provisioned /home.
#
# Provisioning: the first boot of a root image with the NoCloud seed runs
# cloud-init (users, the site's trashd.conf) and tests/full/provision.sh
# (the packages installed, the PAM profile enabled); when that passes,
# its disks are cached as
#   $TRASHBIN_CACHE/full/prov-KEY/{root.qcow2,home.img}
# (KEY: the image, the seed, provision.sh, the packages) and every later
# run starts from them: cloud-init costs minutes under TCG with the debug
# kernel.
# --fresh provisions anew into the run's own disks, without the cache.
# --provision-first: the suite's first boot is the provisioning boot, as
# an admin's first boot of a new server is (cloud-init, then the packages
# installed): provision.sh runs first in it, then the suite, its tests
# numbered after provision.sh's.  One boot fewer than a provisioning boot
# and then the suite's, and no cache: a change to the packages, what the
# default tier tests, needs a new provisioning anyway (e2e in ctest).
# --append adds to the kernel command line of the suite's boots (not the
# provisioning boot), e.g. --append systemd.unit=emergency.target shows
# that a boot systemd gave up on fails at once with its failed units.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

suite=e2e timeout=900 fresh=0 max_boots=4 keep= interactive=0 append= first=0
release=bookworm kline=
while [ $# -gt 0 ]; do
	case "$1" in
	--release) release=$2; shift ;;
	--line) kline=$2; shift ;;
	--suite) suite=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--fresh) fresh=1 ;;
	--provision-first) first=1 ;;
	--interactive) interactive=1 ;;
	--max-boots) max_boots=$2; shift ;;
	--keep) keep=$2; shift ;;
	--append) append=$2; shift ;;
	*) echo "usage: $0 [--suite NAME] [--timeout S] [--fresh] [--provision-first] [--max-boots N] [--keep DIR] [--append ARGS] [--release bookworm|trixie] [--line L]" >&2
	   exit 2 ;;
	esac
	shift
done
case $release in
bookworm) kline=${kline:-6.1} ;;
trixie) kline=${kline:-6.12} ;;
*) echo "$0: no release '$release' (bookworm, trixie)" >&2; exit 2 ;;
esac
[ -f "$top/tests/full/$suite.sh" ] || { echo "no full-guest suite '$suite'" >&2; exit 2; }
for c in qemu-system-x86_64 qemu-img cloud-localds mkfs.ext4; do
	command -v "$c" >/dev/null || { echo "$0: $c missing (tests/deps.sh)" >&2; exit 2; }
done

t0=$(date +%s)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}/full
kdeb=${TRASHBIN_KERNEL_DEB:-}
[ -n "$kdeb" ] || kdeb=$("$top/kernel/build.sh" --deb --line "$kline")
echo "# kernel package $(basename "$kdeb") ready in $(( $(date +%s) - t0 ))s"
t1=$(date +%s)
debs=$("$top/tests/install/package.sh" --release "$release" --cache "$cache")
echo "# project packages in $debs ready in $(( $(date +%s) - t1 ))s"
t1=$(date +%s)
img=$("$here/mkimage.sh" --release "$release")
echo "# root image $img ready in $(( $(date +%s) - t1 ))s"

# A background job's stdin is /dev/null unless redirected: keep the
# terminal on fd 3 for the interactive guest's console.
[ "$interactive" = 1 ] && exec 3<&0
work=${keep:-$(mktemp -d /tmp/trashbin-full.XXXXXX)}
mkdir -p "$work"
qpid=
cleanup() {
	[ -n "$qpid" ] && kill -9 "$qpid" 2>/dev/null || true
	[ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT
rm -rf "$work"/*.log "$work"/*.txt "$work"/*.img "$work"/*.qcow2 "$work/prov" \
	"$work/tests" "$work/boot"
# The kernel to boot: the one in the package.
mkdir -p "$work/boot"
dpkg-deb --fsys-tarfile "$kdeb" |
	tar -C "$work/boot" --strip-components=2 -xf - --wildcards './boot/vmlinuz-*'
kernel=$(ls "$work"/boot/vmlinuz-*)
# The suites and the packages, on a small read-only disk (label trashtests).
mkdir -p "$work/tests/debs" "$work/tests/kernel"
cp -a "$top/tests/full/." "$work/tests/"
cp "$debs"/trashd_*.deb "$debs"/trashctl_*.deb "$debs"/libpam-trash_*.deb \
	"$work/tests/debs/"
cp "$kdeb" "$work/tests/kernel/"
sha256sum < "$kernel" | cut -d' ' -f1 > "$work/tests/kernel.sha256"
mkfs.ext4 -q -F -L trashtests -d "$work/tests" "$work/tests.img" 64M >/dev/null
printf 'instance-id: trashbin-%s\nlocal-hostname: trashbin\n' \
	"$(date +%s)" > "$work/meta-data"
cloud-localds "$work/seed.img" "$here/seed/user-data" "$work/meta-data"

# Serial output may carry \r and terminal escapes: strip them.
clean() { sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' -e 's/\r$//' "$1"; }
# What systemd prints when it gives up on a boot.
emergency='You are in (emergency|rescue) mode|root account is locked|Give root password for maintenance'

# guest SUITE ROOT.qcow2 HOME.img SEED(0|1) TAPFILE: boot (and boot again
# while the suite asks for it); TAP lines go to TAPFILE.  0 if the guest
# finished on its own, 1 if it hung or crashed (reported as not ok).
guest() {
	local gs=$1 groot=$2 ghome=$3 gseed=$4 gtap=$5 boot=1 tb rc killed extra stuck
	local -a drives
	: > "$gtap"
	while :; do
		drives=(-drive "file=$groot,format=qcow2,if=virtio"
			-drive "file=$ghome,format=raw,if=virtio"
			-drive "file=$work/tests.img,format=raw,if=virtio,readonly=on")
		[ "$gseed" = 1 ] && [ "$boot" = 1 ] &&
			drives+=(-drive "file=$work/seed.img,format=raw,if=virtio,readonly=on")
		echo "# boot $boot: suite '$gs', timeout ${timeout}s"
		extra=
		[ "$gs" = provision ] || extra=$append
		# A suite's boot with the seed is also its provisioning boot.
		[ "$gseed" = 1 ] && [ "$boot" = 1 ] && [ "$gs" != provision ] &&
			extra="trashbin.provision=1 $extra"
		tb=$(date +%s)
		# pci=noacpi: ACPI's _PRT loop times out under TCG with
		# this debug kernel (30 s per device).
		if [ "$interactive" = 1 ] && [ "$gs" != provision ]; then
			# --foreground: QEMU stays in the terminal's process group
			# (else reading the console stops it with SIGTTIN).
			timeout --foreground -k 10 3600 qemu-system-x86_64 -accel tcg -m 2048 -smp 2 \
				-nodefaults -display none -no-reboot \
				-kernel "$kernel" \
				-append "console=ttyS0 root=/dev/vda rw panic=-1 quiet loglevel=1 systemd.show_status=false pci=noacpi trashbin.suite=$gs trashbin.boot=$boot trashbin.interactive=1 $extra" \
				"${drives[@]}" \
				-serial mon:stdio \
				-serial "file:$work/tap.$gs.$boot.log" <&3 &
		else
		timeout -k 10 "$timeout" qemu-system-x86_64 -accel tcg -m 2048 -smp 2 \
			-nodefaults -display none -no-reboot \
			-kernel "$kernel" \
			-append "console=ttyS0 root=/dev/vda rw panic=-1 loglevel=4 pci=noacpi trashbin.suite=$gs trashbin.boot=$boot $extra" \
			"${drives[@]}" \
			-serial "file:$work/console.$gs.$boot.log" \
			-serial "file:$work/tap.$gs.$boot.log" \
			</dev/null &
		fi
		qpid=$!
		killed=0
		stuck=
		# Wait for QEMU, or for the guest to ask for a power cut, or for
		# systemd to give up on the boot: emergency or rescue mode
		# waits for a root password nobody will type, so stop at once
		# and say which units failed rather than sit out the timeout.
		while kill -0 "$qpid" 2>/dev/null; do
			if [ -z "$stuck" ] && grep -aqE "$emergency" "$work/console.$gs.$boot.log" 2>/dev/null; then
				stuck=1
				sleep 2	# the rest of systemd's last words
				pkill -KILL -P "$qpid" 2>/dev/null || true
			fi
			if [ "$killed" = 0 ] && grep -q '^# trashbin-kill-now' "$work/tap.$gs.$boot.log" 2>/dev/null; then
				# QEMU itself (timeout's child), as a power cut.
				pkill -KILL -P "$qpid" 2>/dev/null || true
				killed=1
				echo "# boot $boot: QEMU killed hard, as the guest asked"
			fi
			sleep 0.2
		done
		rc=0
		{ wait "$qpid"; } 2>/dev/null || rc=$?
		qpid=
		clean "$work/tap.$gs.$boot.log" > "$work/tap.$gs.$boot.txt" 2>/dev/null || true
		# (With --interactive the output was on the terminal already.)
		[ "$interactive" = 1 ] && [ "$gs" != provision ] ||
			grep -v '^# trashbin-' "$work/tap.$gs.$boot.txt" | grep -v '^1\.\.' || true
		grep -v '^# trashbin-' "$work/tap.$gs.$boot.txt" >> "$gtap" || true
		echo "# boot $boot: $(( $(date +%s) - tb ))s, qemu status $rc"
		if [ -n "$stuck" ]; then
			echo "not ok - guest boot $boot fell into emergency mode" | tee -a "$gtap"
			echo "# failed units and jobs (console):"
			clean "$work/console.$gs.$boot.log" |
				grep -aE 'FAILED|DEPEND|TIME \]|Timed out|Dependency failed|Failed to' |
				head -n 30 | sed 's/^/#   /'
			echo "# last console lines:"
			clean "$work/console.$gs.$boot.log" | tail -n 25 | sed 's/^/#   /'
			return 1
		fi
		if [ "$killed" = 0 ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
			echo "not ok - guest boot $boot did not finish within ${timeout}s (killed)" | tee -a "$gtap"
			clean "$work/console.$gs.$boot.log" | tail -n 15 | sed 's/^/#   /'
			return 1
		elif [ "$killed" = 0 ] && [ "$rc" != 0 ]; then
			echo "not ok - qemu exited with status $rc" | tee -a "$gtap"
			return 1
		fi
		grep -q '^# trashbin-guest-done' "$work/tap.$gs.$boot.txt" && return 0
		if [ "$killed" = 1 ] || grep -q '^# trashbin-reboot' "$work/tap.$gs.$boot.txt"; then
			boot=$((boot + 1))
			if [ "$boot" -gt "$max_boots" ]; then
				echo "not ok - the suite wanted more than $max_boots boots" | tee -a "$gtap"
				return 1
			fi
			continue
		fi
		echo "not ok - the guest did not report completion (boot $boot)" | tee -a "$gtap"
		echo "# last console lines:"
		clean "$work/console.$gs.$boot.log" | tail -n 25 | sed 's/^/#   /'
		return 1
	done
}

# tap_ok FILE: every test passed and the plan matches.
tap_ok() {
	local p f n
	grep -q '^Bail out!' "$1" && return 1
	p=$(grep -c '^ok ' "$1" || true)
	f=$(grep -c '^not ok ' "$1" || true)
	n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$1" | tail -n 1)
	[ "$f" = 0 ] && [ -n "$n" ] && [ "$n" = "$p" ] && [ "$n" != 0 ]
}

failed=0
provtap=$work/tap.provision.txt
: > "$provtap"
if [ "$first" = 1 ] && [ "$suite" != provision ]; then
	# Provisioned in the suite's own first boot (guest, below).
	prov=
elif [ "$fresh" = 1 ] || [ "$suite" = provision ]; then
	prov=$work/prov
else
	pkey=$( { echo "$img"; cat "$here/seed/user-data" \
		"$top/tests/full/provision.sh" "$top/tests/full/lib.sh"; \
		cd "$work/tests" && sha256sum debs/* kernel/*; } |
		sha256sum | cut -c1-16)
	prov=$cache/prov-$release-$pkey
fi
if [ -n "$prov" ] && [ ! -f "$prov/.done" ]; then
	echo "# provisioning: first boot with the NoCloud seed (cloud-init)"
	tp=$(date +%s)
	rm -rf "$prov.tmp"
	mkdir -p "$prov.tmp"
	qemu-img create -q -f qcow2 -b "$img" -F raw "$prov.tmp/root.qcow2"
	# /home: its own ext4 disk, so that the trash is on a filesystem of
	# its own and a raw scan of it finds what a wipe left.
	mkfs.ext4 -q -F -L trashhome "$prov.tmp/home.img" 512M >/dev/null
	guest provision "$prov.tmp/root.qcow2" "$prov.tmp/home.img" 1 "$provtap" || failed=1
	if [ "$failed" = 0 ] && tap_ok "$provtap"; then
		touch "$prov.tmp/.done"
		rm -rf "$prov"
		mv "$prov.tmp" "$prov"
		# Older provisioned disks belong to older images or seeds.
		if [ "$prov" != "$work/prov" ]; then
			for d in "$cache"/prov-"$release"-* "$cache"/prov-????????????????; do
				[ "$d" = "$prov" ] || rm -rf "$d"
			done
		fi
		echo "# provisioned in $(( $(date +%s) - tp ))s: $prov"
	else
		echo "not ok - provisioning failed"
		failed=1
	fi
fi
tap=$work/tap.txt
if [ "$failed" = 1 ]; then
	cp "$provtap" "$tap"
elif [ "$suite" = provision ]; then
	cp "$provtap" "$tap"
elif [ -z "$prov" ]; then
	echo "# provisioning in the suite's first boot, with the NoCloud seed (cloud-init)"
	qemu-img create -q -f qcow2 -b "$img" -F raw "$work/root.qcow2"
	mkfs.ext4 -q -F -L trashhome "$work/home.img" 512M >/dev/null
	guest "$suite" "$work/root.qcow2" "$work/home.img" 1 "$tap" || failed=1
else
	qemu-img create -q -f qcow2 -b "$prov/root.qcow2" -F qcow2 "$work/root.qcow2"
	cp --sparse=always "$prov/home.img" "$work/home.img"
	guest "$suite" "$work/root.qcow2" "$work/home.img" 0 "$tap" || failed=1
fi

grep -q '^Bail out!' "$tap" && failed=1
pass=$(grep -c '^ok ' "$tap" || true)
fail=$(grep -c '^not ok ' "$tap" || true)
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | tail -n 1)
if [ -z "$plan" ] || [ "$plan" != $((pass + fail)) ] || [ "$plan" = 0 ]; then
	echo "not ok - TAP plan '${plan:-none}' does not match $((pass + fail)) results"
	failed=1
else
	echo "1..$plan"
fi
for log in "$work"/console.*.log; do
	[ -f "$log" ] || continue
	if clean "$log" | grep -nE \
		'BUG:|WARNING:|INFO: possible|INFO: task .* blocked|inconsistent lock state|DEBUG_LOCKS_WARN_ON|suspicious RCU|KASAN|UBSAN|Kernel panic|general protection|Oops' \
		> "$work/oops.txt"; then
		echo "not ok - kernel reported problems on the console ($(basename "$log")):"
		sed 's/^/#   /' "$work/oops.txt" | head -n 40
		clean "$log" | grep -A 30 -m 1 -E 'BUG:|WARNING:|INFO: possible' | sed 's/^/#   /'
		failed=1
	fi
done
[ "$fail" = 0 ] || failed=1
echo "# $pass passed, $fail failed, $(( $(date +%s) - t0 ))s in all"
exit $failed
