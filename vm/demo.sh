#!/bin/bash
# The main job: build what is missing (the kernel's and the project's
# Debian packages, the Debian guest image, a provisioning boot that
# installs the packages), boot the full guest (systemd, cloud-init
# users, trashd as a service, pam_trash at login) and narrate scenarios
# 1-3 with each command shown as its user types it.  With a terminal
# attached, it then leaves you at a guest shell as the unprivileged user
# alice (type "exit" to power the guest off).
#
# First run: debootstrap (~2-4 min), the kernel package if not cached
# (a kernel build), the project's packages (~1.5 min) and a provisioning
# boot with cloud-init (~7 min under TCG); later runs reuse them all from
# /var/cache/trashbin.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/tests/deps.sh"
for p in debootstrap cloud-image-utils qemu-utils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "$p" >&2
done
# The guest is Debian 12 (bookworm): its own kernel line, 6.1, as the
# suite's full guest installs it (vm/full/run.sh), so the two share the
# package and the provisioned image in the cache.
echo "== building the patched kernel's package (cached in ${TRASHBIN_CACHE:-/var/cache/trashbin})"
TRASHBIN_KERNEL_DEB=$("$top/kernel/build.sh" --deb --line 6.1)
export TRASHBIN_KERNEL_DEB
if [ -t 0 ] && [ -t 1 ]; then
	echo "== booting the full guest (QEMU TCG: a few minutes); the demo then runs here"
	exec "$top/vm/full/run.sh" --suite demo --timeout 1800 --interactive
fi
echo "== booting the full guest (QEMU TCG: a few minutes)"
"$top/vm/full/run.sh" --suite demo --timeout 1200 |
	sed -e 's/^# \{0,1\}//' -e '/^time: /d'
