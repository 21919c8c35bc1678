#!/bin/bash
# Build the full guest's root disk image: the pristine debootstrap tree
# (mkroot.sh, cached) plus the test runner in guest/.  Prints the image's
# path.  The project is NOT in it: the provisioning boot installs its
# Debian packages (tests/full/provision.sh), as an admin would, so that
# what the suites test is what users install.
#
#   vm/full/mkimage.sh [--release bookworm|trixie]    (default bookworm)
#
#   $TRASHBIN_CACHE/full/image-RELEASE-KEY.img   the raw ext4 root image
#
# KEY hashes the pristine tree's key, guest/ and this script; older
# images of the release are removed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}/full
log() { echo "vm/full/mkimage.sh: $*" >&2; }
release=bookworm
case "${1:-}" in
--release) release=${2:?usage: $0 [--release bookworm|trixie]} ;;
"") ;;
*) echo "usage: $0 [--release bookworm|trixie]" >&2; exit 2 ;;
esac

root=$("$here/mkroot.sh" --release "$release")
mkdir -p "$cache"

key=$( {
	echo "$root"
	cd "$here/guest" && sha256sum ./*
	sha256sum "$here/mkimage.sh"
} | sha256sum | cut -c1-16)
img=$cache/image-$release-$key.img
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

start=$(date +%s)
stage=$cache/stage-$release
rm -rf "$stage"
cp -a "$root" "$stage"
rm -f "$stage/.done"
install -m 0755 "$here/guest/trashbin-suite" "$stage/usr/local/sbin/trashbin-suite"
install -m 0644 "$here/guest/cloud.cfg" \
	"$stage/etc/cloud/cloud.cfg.d/90-trashbin.cfg"
install -m 0644 "$here/guest/trashbin-suite.service" \
	"$stage/etc/systemd/system/trashbin-suite.service"
mkdir -p "$stage/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/trashbin-suite.service \
	"$stage/etc/systemd/system/multi-user.target.wants/trashbin-suite.service"
rm -f "$cache"/image-"$release"-*.img "$cache"/image-????????????????.img
# What older versions of this script built and installed the project in.
rm -rf "$cache/build" "$cache/install" "$cache/build.log"
mkfs.ext4 -q -F -L trashroot -d "$stage" "$img.tmp" 2G >&2
mv "$img.tmp" "$img"
rm -rf "$stage"
log "image built in $(( $(date +%s) - start ))s: $img"
echo "$img"
