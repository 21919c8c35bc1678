#!/bin/bash
# The kernel, races and pressure suites on the unpatched kernel (same
# config, no series) must fail their trash cases and pass the ones that
# need no trash: proof that the suites test the patch.  A separate target, not part of CI:
#   ctest --test-dir build -L vanilla
# On the default line's vanilla build (6.12): 6.1.192's own ksmbd oopses
# at the SMB case (the 6.1 series carries mainline's fix), which ends
# that guest early.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# The case named $1 ran in $out and failed, as it must without the patch;
# a case that never ran (the guest ended early) proves nothing either.
vanilla_failed() {
	local line
	line=$(grep -F -- "- $1" <<<"$out" || true)
	if [ -z "$line" ]; then
		echo "FAIL: '$1' did not run on the vanilla kernel (the guest ended early?)"
		fail=1
	elif ! grep -qF "not ok" <<<"$line"; then
		echo "FAIL: '$1' passed on the vanilla kernel"
		fail=1
	fi
}
out=$("$top/vm/quick/run.sh" --vanilla --suite kernel --timeout 900 2>&1)
echo "$out"
fail=0
# These need no trash bin: they must pass on any kernel.
for name in "unflagged file is deleted" "no /.trash: deleted for real" \
	    "/.trash a symlink: not followed"; do
	grep -q "^ok [0-9]* - $name" <<<"$out" ||
		{ echo "FAIL: '$name' should pass on the vanilla kernel"; fail=1; }
done
# These are the patch: they must fail without it.
for name in "+u file trashed intact" "+s file trashed intact" \
	    "rm, unlink(2) and io_uring" \
	    "per-uid dir on demand" "1,000 collisions" \
	    "mv and rename(2) over a flagged file" "+u directory: inherited" \
	    "failed move fails the unlink" "fs.trashbin.enabled" "stress:" \
	    "fstat of an open file renamed over" "a file handle opens the trashed inode" \
	    "NFSv4 over loopback" "NFSv4: an owner racing nfsd" "nor another user's mv(1)" \
	    "SMB3 over loopback" "only the kernel puts files into the trash"; do
	vanilla_failed "$name"
done
# The races: every lockstep race loses files without the patch, and
# stress-ng's stressors pass on vanilla exactly as they must on the patch.
out=$("$top/vm/quick/run.sh" \
	--vanilla --suite races --timeout 600 2>&1)
echo "$out"
grep -q "^ok [0-9]* - stress-ng filesystem stressors" <<<"$out" ||
	{ echo "FAIL: stress-ng should pass on the vanilla kernel"; fail=1; }
for name in unlink-unlink renameover-unlink renameover-renameover; do
	grep -q "^not ok [0-9]* - lockstep race $name" <<<"$out" ||
		{ echo "FAIL: race '$name' passed on the vanilla kernel"; fail=1; }
done
# Space pressure: no pressure file, and nothing waits for a purge.
out=$("$top/vm/quick/run.sh" --vanilla --suite pressure --timeout 900 2>&1)
echo "$out"
for name in "only root listens" "full of trash: a buffered write" \
	    "full of trash: an O_DIRECT write" "full of trash: an mmap write" \
	    "over quota: the user's own trash" "ENOSPC no purge helps asks none"; do
	vanilla_failed "$name"
done
[ $fail = 0 ] && echo "vanilla kernel fails the trash cases, as it must"
exit $fail
