#!/bin/bash
# Boot the quick guest (busybox initramfs, fresh ext4 disk) under QEMU TCG,
# run one guest suite and report its TAP.  Fails on any failed or missing
# test, a guest that does not finish in time, or any kernel BUG, WARNING,
# lockdep or KASAN report on the console.
#
#   vm/quick/run.sh [--line LINE] [--vanilla] [--debug] [--suite NAME] [--timeout SECONDS]
#                   [--disk-size SIZE] [--keep DIR] [--append 'k=v ...']
#                   [--icount]
#
# --append adds to the kernel command line: suites read their parameters
# there (tests/guest/races.sh: trashbin.seed=, trashbin.seconds=, ...).
# --icount runs the guest on QEMU's instruction counter (one vCPU thread,
# -icount shift=3,sleep=off): guest time is the instructions it executed,
# not the host's clock, so a benchmark's figures do not move with the
# host's load (bench/unlink.sh uses it).
# After the guest, the test disk must pass e2fsck -fn.
#
# The kernel comes from kernel/build.sh ($TRASHBIN_BZIMAGE overrides it;
# $TRASHBIN_BZIMAGE_VANILLA with --vanilla).  --debug boots its --debug
# build instead, with KASAN and lockdep ($TRASHBIN_BZIMAGE_DEBUG).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

flavor=--patched debug= suite=kernel timeout=600 disk_size=2G keep= append=
line=
accel=(-accel tcg) smp=2
while [ $# -gt 0 ]; do
	case "$1" in
	--vanilla) flavor=--vanilla ;;
	--debug) debug=--debug ;;
	--line) line=$2; shift ;;
	--suite) suite=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--disk-size) disk_size=$2; shift ;;
	--keep) keep=$2; shift ;;
	--append) append=$2; shift ;;
	--icount) accel=(-accel tcg,thread=single -icount shift=3,sleep=off)
		smp=1 ;;
	*) echo "usage: $0 [--line LINE] [--vanilla] [--debug] [--suite NAME] [--timeout S] [--disk-size SIZE] [--keep DIR] [--append ARGS] [--icount]" >&2
	   exit 2 ;;
	esac
	shift
done
[ -f "$top/tests/guest/$suite.sh" ] || { echo "no guest suite '$suite'" >&2; exit 2; }

kernel=${TRASHBIN_BZIMAGE:-}
[ "$flavor" = --vanilla ] && kernel=${TRASHBIN_BZIMAGE_VANILLA:-}
[ -n "$debug" ] && kernel=${TRASHBIN_BZIMAGE_DEBUG:-}
[ "$flavor$debug" = --vanilla--debug ] && kernel=
# Another kernel line than the default: its own build, never the
# environment's (which is the default line's).
[ -z "$line" ] || kernel=
[ -n "$kernel" ] || kernel=$("$top/kernel/build.sh" ${line:+--line "$line"} "$flavor" $debug)

work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
# The suites that run trashd get the binaries of the build tree
# ($TRASHBIN_BUILD, default build/: ctest passes them itself), brought
# up to date first, so that one command goes from an edit to a result.
case "$suite" in
control|trashd|pressure|bench-pressure)
	if [ -z "${TRASHBIN_GUEST_BINS:-}" ]; then
		b=${TRASHBIN_BUILD:-$top/build}
		[ -f "$b/CMakeCache.txt" ] || cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Debug >/dev/null
		cmake --build "$b" -j"$(nproc)" --target trashd trashctl >/dev/null
		export TRASHBIN_GUEST_BINS="$b/trashd/trashd $b/trashctl/trashctl"
	fi ;;
esac
# The pressure suites make and check their own small filesystem.
if [ "$suite" = pressure ] || [ "$suite" = bench-pressure ]; then
	export TRASHBIN_GUEST_BINS="${TRASHBIN_GUEST_BINS:-} /sbin/mke2fs /sbin/e2fsck"
fi
# The races suite runs stress-ng (tests/deps.sh installs it).
if [ "$suite" = races ] && [ -x /usr/bin/stress-ng ]; then
	case " ${TRASHBIN_GUEST_BINS:-} " in
	*" /usr/bin/stress-ng "*) ;;
	*) export TRASHBIN_GUEST_BINS="${TRASHBIN_GUEST_BINS:-} /usr/bin/stress-ng" ;;
	esac
fi
# The kernel suite's SMB test runs ksmbd's user-space half, ksmbd-tools'
# ksmbd.mountd (tests/deps.sh unpacks it into the cache); without it that
# test fails, saying so.
ksmbd_tools=${TRASHBIN_CACHE:-/var/cache/trashbin}/ksmbd-tools/usr/libexec/ksmbd.tools
if [ "$suite" = kernel ] && [ -x "$ksmbd_tools" ]; then
	export TRASHBIN_GUEST_BINS="${TRASHBIN_GUEST_BINS:-} $ksmbd_tools"
fi
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz"
boot() {
	rm -f "$work/disk.img" "$work/console.log" "$work/tap.log"
	truncate -s "$disk_size" "$work/disk.img"
	mkfs.ext4 -q -F -N 400000 "$work/disk.img"
	echo "# booting the ${flavor#--} kernel ($kernel), suite '$suite', timeout ${timeout}s"
	rc=0
	timeout -k 10 "$timeout" qemu-system-x86_64 "${accel[@]}" -m 1024 -smp "$smp" \
		-nodefaults -display none -no-reboot \
		-kernel "$kernel" -initrd "$work/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 pci=noacpi trashbin.suite=$suite $append" \
		-drive "file=$work/disk.img,format=raw,if=virtio" \
		-serial "file:$work/console.log" -serial "file:$work/tap.log" \
		</dev/null || rc=$?
}
boot
# The host's QEMU itself crashing (TCG has: SIGSEGV 3 s into a boot,
# 2026-12-08) before the guest said anything is not the guest's doing:
# once more, saying so.  Any other failure, or one after the guest began
# reporting, stands.
if [ "$rc" -gt 128 ] && [ "$rc" != 137 ] && [ ! -s "$work/tap.log" ]; then
	echo "# the host's qemu died of signal $((rc - 128)) before the guest reported anything: booting once more"
	boot
fi

# Serial output may carry \r and terminal escapes: strip them.
clean() { sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' -e 's/\r$//' "$1"; }
clean "$work/tap.log" > "$work/tap.txt" 2>/dev/null || true
cat "$work/tap.txt"

failed=0
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "not ok - guest did not finish within ${timeout}s (killed)"
	failed=1
elif [ "$rc" != 0 ]; then
	echo "not ok - qemu exited with status $rc"
	failed=1
fi
grep -q '^# trashbin-guest-done' "$work/tap.txt" ||
	{ echo "not ok - the guest did not report completion"; failed=1; }
grep -q '^Bail out!' "$work/tap.txt" && failed=1
pass=$(grep -c '^ok ' "$work/tap.txt" || true)
fail=$(grep -c '^not ok ' "$work/tap.txt" || true)
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$work/tap.txt" | tail -n 1)
if [ -z "$plan" ] || [ "$plan" != $((pass + fail)) ] || [ "$plan" = 0 ]; then
	echo "not ok - TAP plan '${plan:-none}' does not match $((pass + fail)) results"
	failed=1
fi
if clean "$work/console.log" | grep -nE \
	'BUG:|WARNING:|INFO: possible|INFO: task .* blocked|inconsistent lock state|DEBUG_LOCKS_WARN_ON|suspicious RCU|KASAN|UBSAN|Kernel panic|general protection|Oops' \
	> "$work/oops.txt"; then
	echo "not ok - kernel reported problems on the console:"
	sed 's/^/#   /' "$work/oops.txt" | head -n 40
	clean "$work/console.log" | grep -A 30 -m 1 -E 'BUG:|WARNING:|INFO: possible' | sed 's/^/#   /'
	failed=1
fi
if ! e2fsck -fn "$work/disk.img" > "$work/fsck.txt" 2>&1; then
	echo "not ok - e2fsck -fn found problems on the test disk:"
	sed 's/^/#   /' "$work/fsck.txt" | head -n 30
	failed=1
fi
[ "$fail" = 0 ] || failed=1
echo "$pass passed, $fail failed"
exit $failed
