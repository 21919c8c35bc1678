#!/bin/bash
# Build the quick guest's initramfs: busybox-static, the test helper and
# the guest suites, plus any extra binaries named in $TRASHBIN_GUEST_BINS
# (space-separated paths, installed in /usr/local/bin).
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
cc -static -O2 -std=gnu11 -Wall -Wextra -Werror \
	-o "$root/usr/local/bin/tbtool" "$top/tests/guest/tbtool.c"
for b in ${TRASHBIN_GUEST_BINS:-}; do
	install -m 0755 "$b" "$root/usr/local/bin/"
done
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$top"/tests/guest/*.sh "$root/tests/"
printf 'root:x:0:0:root:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 > "$out"
