#!/bin/bash
# Build (once) the fstests guest's root image: Debian bookworm made with
# debootstrap, fstests (xfstests) extracted from ../shared/fstests (or
# $TRASHBIN_FSTESTS_TARBALL) and built in it, its users, and the guest's
# /init (vm/fstests/init).  fstests is GPL-2.0 and not this project's code:
# it is only ever built here, in the cache, never copied into the repo.
#
#   $TRASHBIN_CACHE/fstests/image-KEY.img   the raw ext4 root image
#
# KEY hashes this script, init, mkfs-trash, the tarball's sha256 and the
# mirror; older images are removed.  Prints the image's path on stdout;
# progress goes to stderr.  About 6 minutes cold (debootstrap with a
# compiler, then fstests' make on the host's cores), nothing warm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}/fstests
tarball=${TRASHBIN_FSTESTS_TARBALL:-$(ls "$top"/../shared/fstests/fstests-*.tar.xz 2>/dev/null | head -n 1 || :)}
log() { echo "vm/fstests/mkimage.sh: $*" >&2; }
[ -f "$tarball" ] || {
	log "no fstests source: put fstests-*.tar.xz in ../shared/fstests or set TRASHBIN_FSTESTS_TARBALL"
	exit 2
}
mirror=$("$top/vm/mirror.sh")

# What fstests' README asks for to build and run on ext4, plus xfsprogs
# (xfs_io drives most tests whatever the filesystem) and the tools the
# common/ scripts call.
pkgs=(
	build-essential autoconf automake libtool pkg-config
	xfslibs-dev uuid-dev libattr1-dev libacl1-dev libaio-dev liburing-dev
	libgdbm-dev libcap-dev
	xfsprogs e2fsprogs attr acl quota bc dbench fio psmisc python3 gawk
	util-linux mount procps kmod file libcap2-bin passwd login
	diffutils sed grep coreutils findutils
)

key=$( {
	sha256sum "$0" "$here/init" "$here/mkfs-trash" | cut -d' ' -f1
	sha256sum < "$tarball"
	echo "$mirror"
} | sha256sum | cut -c1-16)
img=$cache/image-$key.img
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi
mkdir -p "$cache"
r=$cache/root.tmp
start=$(date +%s)
log "debootstrap bookworm from $mirror (with a compiler, for fstests)"
"$here/../debootstrap.sh" --variant=minbase \
	--include="$(IFS=,; echo "${pkgs[*]}")" bookworm "$r" "$mirror"
log "debootstrap took $(( $(date +%s) - start ))s"

t=$(date +%s)
mkdir -p "$r/opt"
tar -C "$r/opt" -xJf "$tarball"
mv "$r"/opt/fstests-* "$r/opt/fstests"
# The build runs in the root (its libraries, its headers) on the host's
# cores: native speed, not TCG's.  /proc for configure's probes.
mount -t proc proc "$r/proc"
trap 'umount "$r/proc" 2>/dev/null || true' EXIT
chroot "$r" /bin/bash -c "cd /opt/fstests && make -j$(nproc)" \
	> "$cache/build.log" 2>&1 ||
	{ tail -n 40 "$cache/build.log" >&2; log "fstests did not build"; exit 1; }
umount "$r/proc"
trap - EXIT
log "fstests built in $(( $(date +%s) - t ))s"

# The users fstests' README asks for.
chroot "$r" /bin/bash -e -c '
	useradd -m fsgqa; useradd -m fsgqa2; useradd 123456-fsgqa
	groupadd -f fsgqa'
echo fstests > "$r/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 fstests\n' > "$r/etc/hosts"
# Every ext4 that fstests makes gets a /.trash and +u on its root
# (mkfs-trash): mkfs.ext4 is the wrapper, the real one is a link to
# mke2fs under its usual name elsewhere (mke2fs takes the type from it).
mkdir -p "$r/usr/lib/trashbin"
ln -sf /usr/sbin/mke2fs "$r/usr/lib/trashbin/mkfs.ext4"
rm -f "$r/usr/sbin/mkfs.ext4"
install -m 0755 "$here/mkfs-trash" "$r/usr/sbin/mkfs.ext4"
install -m 0755 "$here/init" "$r/usr/local/sbin/fstests-init"
mkdir -p "$r/mnt/test" "$r/mnt/scratch" "$r/results"
rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*_Packages

rm -f "$cache"/image-*.img
mkfs.ext4 -q -F -L fstestsroot -d "$r" "$img.tmp" 6G >&2
mv "$img.tmp" "$img"
rm -rf "$r"
log "image built in $(( $(date +%s) - start ))s: $img"
echo "$img"
