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
	libglib2.0-0 libnl-3-200 libnl-genl-3-200	# ksmbd.mountd, unpacked below
	libpam0g-dev libaudit-dev debootstrap cloud-image-utils qemu-utils pamtester	# pam, full guest
	debhelper lintian systemd		# the Debian packages (debian/; systemd.pc)
	trash-cli				# bench/restore.sh compares with it
)
missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	echo "tests/deps.sh: installing ${missing[*]}" >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || {
		apt-get update -qq >&2
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
	}
fi
# ksmbd's user-space half (ksmbd.mountd) for the quick guest's SMB test:
# the package unpacked into the cache, never installed, since its service
# would start the SMB server in this machine's own kernel.  Debian 13's
# (3.5.3): with Debian 12's (3.4.7) every tree connect to the 6.1.192
# kernel's ksmbd fails (BAD_NETWORK_NAME: its share-config messages are
# older than the kernel's stable backports); 3.5.3 needs only glibc 2.34
# and the libraries in pkgs above, so it runs on Debian 12 as it is.
ksmbd=${TRASHBIN_CACHE:-/var/cache/trashbin}/ksmbd-tools
if [ ! -x "$ksmbd/usr/libexec/ksmbd.tools" ]; then
	echo "tests/deps.sh: unpacking Debian 13's ksmbd-tools into $ksmbd" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
	echo "deb http://deb.debian.org/debian trixie main" > "$tmp/sources.list"
	trixie=(-o Dir::Etc::SourceList="$tmp/sources.list"
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$tmp/lists"
		-o Dir::Cache="$tmp/cache" -o APT::Sandbox::User=root)
	apt-get -qq "${trixie[@]}" update >&2
	(cd "$tmp" && apt-get -qq "${trixie[@]}" download ksmbd-tools > "$tmp/log" 2>&1) ||
		{ cat "$tmp/log" >&2; exit 1; }
	dpkg-deb -x "$tmp"/ksmbd-tools_*.deb "$tmp/root"
	"$tmp/root/usr/sbin/ksmbd.mountd" -V >&2
	rm -rf "$ksmbd"
	mkdir -p "${ksmbd%/*}"
	mv "$tmp/root" "$ksmbd"
fi
