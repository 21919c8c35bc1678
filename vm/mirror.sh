#!/bin/bash
# Print the Debian mirror the guests' roots are made from: $TRASHBIN_MIRROR,
# else the first bookworm "deb" URI of this machine's apt sources (it
# reaches Debian's archive only through them), else deb.debian.org.
# Used by vm/full/mkroot.sh, vm/fstests/mkimage.sh and
# tests/install/buildroot.sh.
set -euo pipefail
mirror=${TRASHBIN_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$( { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
		sed -n -e 's/^deb \(\[[^]]*\] \)\{0,1\}\(http[^ ]*\/debian\/\{0,1\}\) bookworm.*/\2/p' \
		-e 's/^URIs: *\(http[^ ]*\/debian\/\{0,1\}\)$/\1/p' | head -n 1)
fi
echo "${mirror:-http://deb.debian.org/debian}"
