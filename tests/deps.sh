#!/bin/bash
# Install the Debian 12 packages the build, the guests and the tests need.
# Does nothing (and needs no network) when they are all there.
set -euo pipefail
pkgs=(
	build-essential cmake pkg-config mandoc valgrind	# the user-space build
	clang					# the build matrix (tests/build/matrix.sh)
	libclang-rt-14-dev			# clang's shared ASan runtime (Sanitize)
	libevent-dev libsqlite3-dev libcap-dev libcmocka-dev	# trashd
	libsystemd-dev				# trashd: sd_notify, the journal
	libsmartcols-dev python3		# trashctl's tables; JSON checked
	linux-source-6.1 linux-source-6.12 flex bison bc libelf-dev libssl-dev cpio rsync kmod
	dpkg-dev fakeroot			# kernel/build.sh --deb (bindeb-pkg)
	python3-ply python3-git			# checkpatch.pl's SPDX check
	qemu-system-x86 busybox-static e2fsprogs	# the quick guest
	stress-ng				# its regression stressors
	libpam0g-dev libaudit-dev debootstrap cloud-image-utils qemu-utils pamtester	# pam, full guest
	debhelper lintian systemd		# the Debian packages (debian/; systemd.pc)
	trash-cli				# bench/restore.sh compares with it
)
missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "tests/deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || {
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
