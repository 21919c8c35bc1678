#!/bin/bash
# debootstrap, installed first if missing, and run at most twice: a mirror
# that drops one download ("Couldn't download packages: adduser", seen
# once) fails the whole debootstrap.  The arguments are debootstrap's own,
# ending in SUITE TARGET MIRROR as usual; TARGET is removed before each
# try, and after a failed one the end of debootstrap's log goes to stderr.
# Its output goes to stderr too: the callers print only paths on stdout.
# Used by vm/full/mkroot.sh, vm/fstests/mkimage.sh and
# tests/install/buildroot.sh; their cache keys do not hash it, as it does
# not change what a root holds.
#   vm/debootstrap.sh [OPTION...] SUITE TARGET MIRROR
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 [OPTION...] SUITE TARGET MIRROR" >&2; exit 2; }
target=${*: -2:1}
log() { echo "vm/debootstrap.sh: $*" >&2; }
command -v debootstrap >/dev/null || {
	log "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends debootstrap >&2
}
for try in 1 2; do
	rm -rf "$target"
	debootstrap "$@" >&2 && exit 0
	tail -n 30 "$target/debootstrap/debootstrap.log" >&2 || true
	[ "$try" = 1 ] || break
	log "debootstrap failed; once more"
done
rm -rf "$target"
exit 1
