#!/bin/bash
# The test suite, from a fresh Debian 12 machine: installs what is missing,
# builds the patched kernel and the guest images (cached in
# $TRASHBIN_CACHE, default /var/cache/trashbin, keyed on their inputs),
# builds the user space, then runs the tests through ctest.
#
#   bash tests/run-all.sh [CTEST-ARGS]          the default tier (CI's)
#   bash tests/run-all.sh --long [CTEST-ARGS]   the long tier
#
# The default tier: the host tests (as built, the unit suites under
# valgrind, all under ASan and UBSan, a Release and a clang build, the
# Debian packages and lintian), the quick-guest suites on the patched
# kernel of the default line, 6.12 (the kernel contract with nfsd, ksmbd
# and overlayfs, also on 6.1; races, trashd, the control socket, space
# pressure) and the full Debian 12 guest that installs the packages, the
# 6.1 kernel's among them (end-to-end, two boots, the first one
# provisioning).  Two at a time (ctest -j2), the
# longest first: the full guest beside the space pressure guest, then the
# other quick guests and the host tests in two lanes.
#
# The long tier, before a kernel change is called done: the kernel suite
# on the --debug kernel (KASAN, lockdep), the races and the random
# workload at length on it with stress-ng for 4 minutes, trashd under
# 20,000 deletes on it, the end-to-end suite with trashd under valgrind,
# the kernel suite on vanilla (it must fail), the 6.1 line's pressure
# suite and races at length, the full guest of Debian 13 (trixie, the
# 6.12 kernel package) and fstests patched vs vanilla on both lines.
# Two at a time as well, the longest first; fstests, which runs two guests at once
# (tests/long/fstests-all.sh), takes both cores (PROCESSORS 2).
# README.md says what each costs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tier=default
if [ "${1:-}" = --long ]; then
	tier=long
	shift
fi
t0=$(date +%s)
stamp() { echo "# run-all: $* at $(( $(date +%s) - t0 ))s"; }
bash tests/deps.sh
stamp "dependencies installed"

# The full guest's Debian root (debootstrap: mostly the network and the
# disk) while the kernel builds on the cores.
img_log=$(mktemp)
img_pid=
if [ "$tier" = default ]; then
	vm/full/mkimage.sh > "$img_log" 2>&1 &
	img_pid=$!
fi
build=${TRASHBIN_BUILD:-$top/build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
stamp "user space built"
# The default line's kernel (kernel/line.sh: the newest), which the
# quick guests boot, then each other line's: 6.1's kernel suite
# (guest-kernel-6.1) and its package (kernel-package, packed from this
# build), which the Debian 12 full guest installs.
TRASHBIN_BZIMAGE=$(kernel/build.sh)
export TRASHBIN_BZIMAGE
stamp "kernel built"
others=$(. kernel/line.sh; for l in "${kernel_lines[@]}"; do
	[ "$l" = "$kernel_default_line" ] || echo "$l"; done)
for l in $others; do
	kernel/build.sh --line "$l" >/dev/null
	stamp "the $l line's kernel built"
done
if [ "$tier" = long ]; then
	# The long tier's kernels, each build on both cores, before its
	# tests run two at a time: the debug one for the quick guests, the
	# vanilla one for vanilla-fails and fstests (whose patched side is
	# the default tier's kernel), the package for the Debian 13 full
	# guest (long-full-trixie), and the debug and vanilla ones of each
	# other line.  A test that asks for one then finds it built.
	TRASHBIN_BZIMAGE_DEBUG=$(kernel/build.sh --debug)
	TRASHBIN_BZIMAGE_VANILLA=$(kernel/build.sh --vanilla)
	export TRASHBIN_BZIMAGE_DEBUG TRASHBIN_BZIMAGE_VANILLA
	kernel/build.sh --line 6.12 --deb >/dev/null
	for l in $others; do
		for k in --debug --vanilla; do
			kernel/build.sh --line "$l" "$k" >/dev/null
		done
	done
	stamp "debug and vanilla kernels of every line built"
fi
if [ -n "$img_pid" ]; then
	wait "$img_pid" || { cat "$img_log"; echo "run-all: the full guest's image failed" >&2; exit 1; }
	tail -n 3 "$img_log"
	stamp "full guest image ready"
fi
rm -f "$img_log"

rc=0
if [ "$tier" = default ]; then
	ctest --test-dir "$build" --output-on-failure -j2 -LE 'vanilla|long' "$@" || rc=$?
else
	ctest --test-dir "$build" --output-on-failure -j2 -L long "$@" || rc=$?
fi
stamp "$tier tier done (status $rc)"
exit $rc
