#!/bin/bash
# fstests on every kernel line, the long tier's one fstests test: each
# line's patched kernel against its own vanilla one (tests/long/fstests.sh,
# which prints each line's comparison).  Never more guests than cores:
# when every line's vanilla results are cached, the lines' patched guests
# run side by side at one vCPU each (about 40 minutes for both, against
# 80 one after the other); otherwise the lines go one after the other,
# each with its vanilla guest beside its patched one, and leave their
# vanilla results cached for the next run.
#   tests/long/fstests-all.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
lines=$(kernel_dir=$top/kernel; . "$top/kernel/line.sh"; echo "${kernel_lines[*]}")
warm=1
for l in $lines; do
	# Builds what is missing (kernel/build.sh's lock keeps it one at a time).
	"$top/tests/long/fstests.sh" --line "$l" --cached >&2 || warm=0
done
rc=0
if [ "$warm" = 1 ]; then
	echo "# every line's vanilla results cached: the patched guests side by side"
	logs=$(mktemp -d)
	trap 'rm -rf "$logs"' EXIT
	pids=()
	for l in $lines; do
		"$top/tests/long/fstests.sh" --line "$l" --smp 1 > "$logs/$l" 2>&1 &
		pids+=($!)
	done
	i=0
	for l in $lines; do
		lrc=0
		wait "${pids[$i]}" || lrc=$?
		echo "# ==== line $l"
		cat "$logs/$l"
		[ "$lrc" = 0 ] || { echo "not ok - fstests on the $l line"; rc=1; }
		i=$((i + 1))
	done
else
	for l in $lines; do
		echo "# ==== line $l"
		"$top/tests/long/fstests.sh" --line "$l" ||
			{ echo "not ok - fstests on the $l line"; rc=1; }
	done
fi
[ "$rc" = 0 ] && echo "ok - fstests on every line ($lines)"
exit $rc
