#!/bin/bash
# Build the quick guest's initramfs: busybox-static, the test helper and
# the guest suites, plus any extra binaries named in $TRASHBIN_GUEST_BINS
# (space-separated paths, installed in /usr/local/bin).  Dynamically linked
# extras (trashd, trashctl) bring the shared libraries ldd names for them,
# at the same paths, so the guest runs the very binaries the host built.
#   vm/quick/mkinitramfs.sh OUT.cpio.gz
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:?usage: $0 OUT.cpio.gz}

root=$(mktemp -d)
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,etc,usr/local/bin,tests}
cp /bin/busybox "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
# tbtool and tbrace include the series' UAPI header, the one copy of its
# names.
"$top/kernel/uapi-header.sh" "$root/tmp/uapi"
cc -static -O2 -std=gnu11 -Wall -Wextra -Werror -I "$root/tmp/uapi" \
	-o "$root/usr/local/bin/tbtool" "$top/tests/guest/tbtool.c"
cc -static -O2 -std=gnu11 -Wall -Wextra -Werror -I "$root/tmp/uapi" \
	-o "$root/usr/local/bin/tbrace" "$top/tests/guest/tbrace.c"
rm -rf "$root/tmp/uapi"
for b in ${TRASHBIN_GUEST_BINS:-}; do
	[ -x "$b" ] || { echo "mkinitramfs: $b: not an executable" >&2; exit 1; }
	install -m 0755 "$b" "$root/usr/local/bin/"
	# "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and the loader
	for lib in $(ldd "$b" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$top"/tests/guest/*.sh "$root/tests/"
printf 'root:x:0:0:root:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
mkdir -p "$root/run" "$root/var/lib" "$root/etc/trashd"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$out"
