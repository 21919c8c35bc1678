#!/bin/bash
# The main job: build what is missing (kernel, Debian guest image, the
# project installed into it), boot the full guest (systemd, cloud-init
# users, trashd as a service, pam_trash at login) and narrate scenarios
# 1-3 with each command shown as its user types it.  With a terminal
# attached, it then leaves you at a guest shell as the unprivileged user
# alice (type "exit" to power the guest off).
#
# First run: debootstrap (~1.5 min), the kernel if not cached (~7 min),
# and a provisioning boot with cloud-init (~7 min under TCG); later runs
# reuse all three from /var/cache/trashbin.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/tests/deps.sh"
for p in debootstrap cloud-image-utils qemu-utils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "$p" >&2
done
echo "== building the patched kernel (cached in ${TRASHBIN_CACHE:-/var/cache/trashbin})"
TRASHBIN_BZIMAGE=$("$top/kernel/build.sh")
export TRASHBIN_BZIMAGE
if [ -t 0 ] && [ -t 1 ]; then
	echo "== booting the full guest (QEMU TCG: a few minutes); the demo then runs here"
	exec "$top/vm/full/run.sh" --suite demo --timeout 1800 --interactive
fi
echo "== booting the full guest (QEMU TCG: a few minutes)"
"$top/vm/full/run.sh" --suite demo --timeout 1200 |
	sed -e 's/^# \{0,1\}//' -e '/^time: /d'
