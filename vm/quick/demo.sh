#!/bin/bash
# A one-minute look at the kernel side alone (the README's main job is
# vm/demo.sh, the full guest): build what is missing, boot the patched
# kernel in the quick guest and show flagged files going to /.trash/<uid>/ on rm, with their
# original paths, on a real ext4 disk.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bash "$top/tests/deps.sh"
echo "== building the patched kernel (cached in ${TRASHBIN_CACHE:-/var/cache/trashbin})"
TRASHBIN_BZIMAGE=$("$top/kernel/build.sh")
export TRASHBIN_BZIMAGE
echo "== booting it under QEMU (TCG) with a fresh ext4 disk"
"$top/vm/quick/run.sh" --suite demo --timeout 300 | sed 's/^# \{0,1\}//'
