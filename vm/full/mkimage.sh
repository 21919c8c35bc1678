#!/bin/bash
# Build the full guest's root disk image: the pristine debootstrap tree
# (mkroot.sh, cached) plus the project installed by `cmake --install`
# with DESTDIR, plus the test runner in guest/.  Prints the image's path.
#
#   $TRASHBIN_CACHE/full/build/          the project, built for the guest
#                                        (RelWithDebInfo, prefix /usr)
#   $TRASHBIN_CACHE/full/install/        its `cmake --install` DESTDIR
#   $TRASHBIN_CACHE/full/image-KEY.img   the raw ext4 root image
#
# KEY hashes the pristine tree's key, every installed file (content, mode)
# and guest/: a rebuild of the binaries makes a new image in seconds and
# never a new debootstrap.  Older images are removed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}/full
log() { echo "vm/full/mkimage.sh: $*" >&2; }

root=$("$here/mkroot.sh")
build=${TRASHBIN_FULL_BUILD:-$cache/build}
inst=$cache/install
mkdir -p "$cache"

# One build tree, for whichever clone asks last: a tree configured from
# another checkout is rebuilt from scratch (cmake refuses to switch).
if [ -f "$build/CMakeCache.txt" ] &&
   ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$top" "$build/CMakeCache.txt"; then
	log "build tree $build belongs to another checkout: rebuilding it"
	rm -rf "$build"
fi
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_INSTALL_PREFIX=/usr >/dev/null
# Only what is installed: the guest needs no test binaries.
targets=(trashd pam_trash)
cmake --build "$build" --target help | grep -w trashctl >/dev/null &&
	targets+=(trashctl)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" \
	> "$cache/build.log" 2>&1 ||
	{ tail -n 40 "$cache/build.log" >&2; exit 1; }
rm -rf "$inst"
DESTDIR=$inst cmake --install "$build" --prefix /usr >/dev/null
for f in usr/sbin/trashd etc/trashd/trashd.conf \
	lib/systemd/system/trashd.service \
	lib/x86_64-linux-gnu/security/pam_trash.so; do
	[ -e "$inst/$f" ] || [ -e "$inst/usr/$f" ] ||
		{ log "cmake --install did not install $f"; exit 1; }
done

key=$( {
	echo "$root"
	cd "$inst" && find . -print0 | sort -z |
		xargs -0 stat -c '%n %a %F' && find . -type f -print0 |
		sort -z | xargs -0 sha256sum
	cd "$here/guest" && sha256sum ./*
	sha256sum "$here/mkimage.sh"
} | sha256sum | cut -c1-16)
img=$cache/image-$key.img
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

start=$(date +%s)
stage=$cache/stage
rm -rf "$stage"
cp -a "$root" "$stage"
rm -f "$stage/.done"
# tar, not cp: the root has merged /usr (/lib a symlink to usr/lib), and
# what is installed into /lib must go through that link, not replace it.
tar -C "$inst" -cf - . | tar -C "$stage" --keep-directory-symlink -xf -
install -m 0755 "$here/guest/trashbin-suite" "$stage/usr/local/sbin/trashbin-suite"
install -m 0644 "$here/guest/cloud.cfg" \
	"$stage/etc/cloud/cloud.cfg.d/90-trashbin.cfg"
install -m 0644 "$here/guest/trashbin-suite.service" \
	"$stage/etc/systemd/system/trashbin-suite.service"
mkdir -p "$stage/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/trashbin-suite.service \
	"$stage/etc/systemd/system/multi-user.target.wants/trashbin-suite.service"
rm -f "$cache"/image-*.img
mkfs.ext4 -q -F -L trashroot -d "$stage" "$img.tmp" 2G >&2
mv "$img.tmp" "$img"
rm -rf "$stage"
log "image built in $(( $(date +%s) - start ))s: $img"
echo "$img"
