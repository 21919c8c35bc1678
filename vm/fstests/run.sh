#!/bin/bash
# Run fstests (xfstests) in a guest on ext4, on the patched or the vanilla
# kernel of kernel/build.sh (not --debug: KASAN makes fstests several
# times slower under TCG).  Every ext4 the tests make, TEST_DEV and each
# SCRATCH_DEV, has a /.trash and +u on its root (vm/fstests/mkfs-trash),
# on both kernels; on the patched one a trash daemon listens for space
# pressure and purges (vm/fstests/purger.c).  The results (check's xunit report, the .out.bad and
# .full of each test) are left in OUT.
#
#   vm/fstests/run.sh [--line L] [--vanilla] [--tests 'generic/001 ...']
#                     [--smp N] [--timeout SECONDS] OUT
#
# --line: the kernel line (kernel/line.sh; default kernel/build.sh's).
#
# The tests default to vm/fstests/subset (see there for why each is in).
# Prints check's progress as it runs; exits 0 when the guest finished and
# left a report, whatever the tests' results: tests/long/fstests.sh
# compares the two kernels' reports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

flavor=--patched tests= smp=1 timeout=5400 kline=()
while [ $# -gt 1 ]; do
	case "$1" in
	--line) kline=(--line "$2"); shift ;;
	--vanilla) flavor=--vanilla ;;
	--patched) flavor=--patched ;;
	--tests) tests=$2; shift ;;
	--smp) smp=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# = 1 ] || {
	echo "usage: $0 [--line L] [--vanilla] [--tests LIST] [--smp N] [--timeout S] OUT" >&2
	exit 2
}
out=$1
[ -n "$tests" ] || tests=$(sed -e 's/#.*//' "$here/subset" | xargs)

kernel=$("$top/kernel/build.sh" "${kline[@]}" "$flavor")
img=$("$here/mkimage.sh")
rm -rf "$out"
mkdir -p "$out/results"
work=$(mktemp -d /tmp/trashbin-fstests.XXXXXX)
trap 'rm -rf "$work"' EXIT
qemu-img create -q -f qcow2 -b "$img" -F raw "$work/root.qcow2"
truncate -s 6G "$work/test.img" "$work/scratch.img"
truncate -s 256M "$work/results.img"
mkdir "$work/ctl"
echo "$tests" > "$work/ctl/tests"
# The trash daemon of the patched guest (see purger.c), static: the
# image need not be rebuilt when it changes.
"$top/kernel/uapi-header.sh" "$work/uapi"
gcc -std=gnu11 -Wall -Wextra -Werror -O2 -static -I"$work/uapi" \
	-o "$work/ctl/purger" "$here/purger.c"
tar -C "$work/ctl" -cf "$work/ctl.tar" .
truncate -s 4M "$work/ctl.tar"

echo "# fstests on the ${flavor#--} kernel ($kernel), $(echo "$tests" | wc -w) tests, timeout ${timeout}s"
start=$(date +%s)
rc=0
timeout -k 10 "$timeout" qemu-system-x86_64 -accel tcg -m 2048 -smp "$smp" \
	-nodefaults -display none -no-reboot \
	-kernel "$kernel" \
	-append "console=ttyS0 root=/dev/vda rw panic=-1 pci=noacpi init=/usr/local/sbin/fstests-init" \
	-drive "file=$work/root.qcow2,format=qcow2,if=virtio" \
	-drive "file=$work/test.img,format=raw,if=virtio" \
	-drive "file=$work/scratch.img,format=raw,if=virtio" \
	-drive "file=$work/ctl.tar,format=raw,if=virtio,readonly=on" \
	-drive "file=$work/results.img,format=raw,if=virtio" \
	-serial "file:$out/console.log" -serial "file:$out/check.log" \
	</dev/null &
qpid=$!
# check's output as it comes (the guest writes it line by line).
tail -n +1 -F --pid="$qpid" "$out/check.log" 2>/dev/null |
	sed -u -e 's/\r$//' -e 's/^/  /' || true
wait "$qpid" || rc=$?
echo "# guest ran $(( $(date +%s) - start ))s, qemu status $rc"
tar -C "$out/results" -xf "$work/results.img" 2>/dev/null || true
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "fstests: the guest did not finish within ${timeout}s" >&2
	exit 1
fi
grep -q '^# fstests-done' "$out/check.log" ||
	{ echo "fstests: the guest did not finish (see $out/console.log)" >&2; exit 1; }
[ -f "$out/results/result.xml" ] ||
	{ echo "fstests: no xunit report from check" >&2; exit 1; }
