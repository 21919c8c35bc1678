#!/bin/bash
# Build (once) the pristine Debian root of the full guest with
# debootstrap, and cache it outside the clone:
#
#   vm/full/mkroot.sh [--release bookworm|trixie]     (default bookworm)
#
#   $TRASHBIN_CACHE/full/root-RELEASE-KEY/       the tree (root-owned, as
#                                 debootstrap left it, plus the settings below)
#   $TRASHBIN_CACHE/full/root-RELEASE-KEY/.done  written last: it is complete
#
# bookworm is Debian 12 (the 6.1 kernel line), trixie Debian 13 (6.12).
# KEY is a hash of this script (the package lists and every setting are
# in it), the release and the apt mirror.  Prints the tree's path on
# stdout; progress goes to stderr.  The project is NOT in this tree: the
# provisioning boot installs its packages (tests/full/provision.sh), so a
# rebuild of them never needs a new debootstrap.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}/full
release=bookworm
case "${1:-}" in
--release) release=${2:?usage: $0 [--release bookworm|trixie]} ;;
"") ;;
*) echo "usage: $0 [--release bookworm|trixie]" >&2; exit 2 ;;
esac

mirror=$("$here/../mirror.sh")

# Everything the guest needs at run time.  python3-cffi-backend: debootstrap
# does not resolve the virtual package that cloud-init's deps need.  The
# last line: the Depends of the project's packages (debian/control's
# shlibs), which apt must find installed, the guest being offline:
# their names differ by release (trixie's 64-bit time_t transition).
pkgs=(
	systemd systemd-sysv udev dbus-broker
	cloud-init python3-cffi-backend
	e2fsprogs attr util-linux mount procps
	libpam-modules libpam-runtime login passwd pamtester sqlite3
	libsqlite3-0 libcap2 libsystemd0 libpam0g libsmartcols1
)
case $release in
bookworm) pkgs+=(libevent-2.1-7) ;;
# iproute2: trixie's cloud-init reports its status "degraded" without ip.
trixie) pkgs+=(libevent-2.1-7t64 iproute2) ;;
*) echo "$0: no release '$release' (bookworm, trixie)" >&2; exit 2 ;;
esac

key=$( { cat "$0"; echo "$release $mirror"; } | sha256sum | cut -c1-16)
root=$cache/root-$release-$key
log() { echo "vm/full/mkroot.sh: $*" >&2; }
if [ -f "$root/.done" ]; then
	echo "$root"
	exit 0
fi

mkdir -p "$cache"
rm -rf "$root" "$root.tmp"
log "debootstrap $release from $mirror into $root (about 2 minutes)"
start=$(date +%s)
"$here/../debootstrap.sh" --variant=minbase \
	--include="$(IFS=,; echo "${pkgs[*]}")" "$release" "$root.tmp" "$mirror"
log "debootstrap took $(( $(date +%s) - start ))s"

r=$root.tmp
# A small, quiet, offline guest.
echo trashbin > "$r/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 trashbin\n' > "$r/etc/hosts"
: > "$r/etc/machine-id"
rm -f "$r/var/lib/dbus/machine-id"
# / is the image on vda; /home is the data disk (label trashhome) with
# /.trash on it.  fsck pass 0: the tests run e2fsck themselves and must see
# what a crash left, not what a boot-time fsck repaired.
# x-systemd.device-timeout: systemd waits 90 s for the disk's label to
# appear, which udev under TCG on a loaded host can take longer than (seen:
# "Timed out waiting for device .../by-label/trashhome", home.mount and
# local-fs.target failed, the guest in emergency mode).
cat > "$r/etc/fstab" <<'FSTAB'
/dev/vda		/	ext4	defaults,errors=remount-ro	0 0
LABEL=trashhome		/home	ext4	defaults,x-systemd.device-timeout=15min	0 0
FSTAB
# No gettys but the serial console (the demo's login goes there).
ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
ln -sf /dev/null "$r/etc/systemd/system/systemd-networkd-wait-online.service"
# apt's timers would only wake up to fail offline.
ln -sf /dev/null "$r/etc/systemd/system/apt-daily.timer"
ln -sf /dev/null "$r/etc/systemd/system/apt-daily-upgrade.timer"
ln -sf /dev/null "$r/etc/systemd/system/e2scrub_all.timer"
ln -sf /dev/null "$r/etc/systemd/system/fstrim.timer"
# The journal persists across the reboots the tests do.
mkdir -p "$r/var/log/journal"
rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*_Packages
touch "$r/.done"
mv "$r" "$root"
# Trees of this release made by older versions of this script are not
# used any more (nor those named before there were two releases).
for old in "$cache"/root-"$release"-* "$cache"/root-????????????????; do
	[ "$old" = "$root" ] || rm -rf "$old"
done
echo "$root"
