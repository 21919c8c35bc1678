#!/bin/bash
# A Debian root of another release to build the project's packages for
# it in (tests/install/package.sh --release): debootstrap's buildd
# variant with debian/control's Build-Depends and that release's lintian,
# cached outside the clone:
#
#   tests/install/buildroot.sh RELEASE        (trixie: Debian 13)
#
#   $TRASHBIN_CACHE/buildroot-RELEASE-KEY/       the tree
#   $TRASHBIN_CACHE/buildroot-RELEASE-KEY/.done  written last: complete
#
# KEY hashes this script, debian/control, the release and the mirror.
# Prints the tree's path; progress goes to stderr.  The builds happen in
# a bind mount (package.sh), so the tree stays as it was made.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
release=${1:?usage: $0 RELEASE}
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}
log() { echo "tests/install/buildroot.sh: $*" >&2; }
mirror=$("$top/vm/mirror.sh")

key=$( { cat "$0" "$top/debian/control"; echo "$release $mirror"; } |
	sha256sum | cut -c1-16)
root=$cache/buildroot-$release-$key
if [ -f "$root/.done" ]; then
	echo "$root"
	exit 0
fi

# Build-Depends (comment lines dropped), each alternative's first choice
# without its version;
# debhelper-compat and dh-sequence-* are debhelper's (virtual packages,
# which debootstrap does not resolve).  perl-openssl-defaults: lintian's
# libnet-ssleay-perl depends on the virtual perl-openssl-abi-3, which
# debootstrap does not resolve either.
deps=$(sed '/^#/d' "$top/debian/control" | sed -n '/^Build-Depends:/,/^[^ ]/p' |
	sed -e '1s/^Build-Depends://' -e '/^[^ ]/d' | tr ',' '\n' |
	sed -e 's/|.*//' -e 's/(.*)//' -e 's/[[:space:]]//g' -e '/^$/d' \
		-e 's/^debhelper-compat$/debhelper/' -e 's/^dh-sequence-.*/debhelper/' |
	sort -u)
[ -n "$deps" ] || { log "no Build-Depends in debian/control"; exit 1; }
rm -rf "$root" "$root.tmp"
mkdir -p "$cache"
log "debootstrap $release (buildd) from $mirror into $root"
start=$(date +%s)
"$top/vm/debootstrap.sh" --variant=buildd \
	--include="$(echo $deps lintian perl-openssl-defaults | tr ' ' ',')" \
	"$release" "$root.tmp" "$mirror"
rm -rf "$root.tmp"/var/cache/apt/archives/*.deb
mkdir -p "$root.tmp/build"
touch "$root.tmp/.done"
mv "$root.tmp" "$root"
log "made in $(( $(date +%s) - start ))s"
for old in "$cache"/buildroot-"$release"-*; do
	[ "$old" = "$root" ] || rm -rf "$old"
done
echo "$root"
