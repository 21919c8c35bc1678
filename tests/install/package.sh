#!/bin/bash
# The Debian packages as a user builds them: dpkg-buildpackage -b -us -uc
# on a copy of the tree under OUTDIR (never in the checkout), then lintian
# on the .changes.  Fails on a build failure or on any lintian error; the
# warnings are printed.  The .debs stay in OUTDIR.
#   tests/install/package.sh [OUTDIR]      (default /tmp/trashbin-package)
#
# --cache DIR (the full guest, vm/full/run.sh): the same build, into
# DIR/debs-KEY, KEY a hash of the sources it copies (content and mode;
# but vm/, bench/ and tests/full/, which the build never reads, so that
# editing a guest suite builds nothing) and of this script; when
# DIR/debs-KEY is complete it is not built again, and the copy of the
# tree it was built in is removed.  The report goes to stderr, the
# directory's path to stdout.
#   tests/install/package.sh --cache DIR
#
# --release RELEASE (first): for another Debian release than this
# machine's (trixie, Debian 13, on a Debian 12 machine): the same build
# and that release's lintian in a root of it (tests/install/buildroot.sh,
# cached), so that the packages depend on its libraries (trixie's 64-bit
# time_t names) and install where it keeps units and PAM modules.
#   tests/install/package.sh --release trixie [OUTDIR | --cache DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
host_release=$(. /etc/os-release && echo "$VERSION_CODENAME")
release=$host_release
if [ "${1:-}" = --release ]; then
	release=${2:?usage: $0 [--release RELEASE] [OUTDIR | --cache DIR]}
	shift 2
fi

# What a clone has, plus files not yet committed; no build trees.
# NUL-separated, relative to $top.
sources() {
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			(cd "$top" && while IFS= read -r -d '' f; do
				[ -e "$f" ] && printf '%s\0' "$f"; done)
	else
		(cd "$top" && find . \( -path ./build -o -path ./.git \) -prune \
			-o ! -type d -printf '%P\0')
	fi
}

if [ "${1:-}" = --cache ]; then
	[ $# = 2 ] || { echo "usage: $0 [--release RELEASE] [OUTDIR | --cache DIR]" >&2; exit 2; }
	inputs() {
		sources | sort -z | grep -zv -e '^vm/' -e '^bench/' -e '^tests/full/'
	}
	key=$( { inputs | (cd "$top" && xargs -0 stat -c '%n %a') &&
		inputs | (cd "$top" && xargs -0 sha256sum) &&
		sha256sum < "$0" && echo "$release"; } | sha256sum | cut -c1-16)
	out=$2/debs-$release-$key
	if [ ! -f "$out/.done" ]; then
		"$0" --release "$release" "$out" >&2
		rm -rf "$out/trashbin-$ver"
		touch "$out/.done"
		# Packages of older sources are not used any more (nor
		# those named before there were two releases).
		for old in "$2"/debs-"$release"-* "$2"/debs-????????????????; do
			[ "$old" = "$out" ] || rm -rf "$old"
		done
	fi
	echo "$out"
	exit 0
fi

out=${1:-/tmp/trashbin-package}
src=$out/trashbin-$ver

# in_release CMD...: CMD in $out (the build's parent), on this machine or
# in a root of the release, where $out is bind-mounted on /build.
if [ "$release" = "$host_release" ]; then
	for t in dpkg-buildpackage dh lintian; do
		command -v $t >/dev/null ||
			{ echo "package.sh: $t missing (tests/deps.sh installs it)" >&2; exit 1; }
	done
	in_release() { (cd "$out" && "$@"); }
else
	broot=$("$top/tests/install/buildroot.sh" "$release")
	in_release() {
		# A mount namespace of its own: the mounts go when it ends.
		unshare --mount --propagation private sh -ec '
			root=$1 out=$2; shift 2
			mount -t proc proc "$root/proc"
			mount --bind "$out" "$root/build"
			exec chroot "$root" sh -c "cd /build && exec \"\$@\"" sh "$@"
		' sh "$broot" "$out" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"
	}
fi
rm -rf "$out"
mkdir -p "$src"
sources | tar -C "$top" --null -T - -cf - | tar -C "$src" -xf -
out=$(cd "$out" && pwd)

start=$(date +%s)
in_release sh -c "cd trashbin-$ver && exec dpkg-buildpackage -b -us -uc" \
	> "$out/build.log" 2>&1 || {
	tail -n 60 "$out/build.log" >&2
	echo "package.sh: dpkg-buildpackage failed; log: $out/build.log" >&2
	exit 1
}
echo "# dpkg-buildpackage ($release): $(($(date +%s) - start)) s"
changes=$(cd "$out" && ls trashbin_"$ver"_*.changes)
for deb in "$out"/*.deb; do
	echo "# $(basename "$deb")"
	dpkg-deb -c "$deb" | awk '!/\/$/ { print "#   " $NF }'
done
# --fail-on error: exit non-zero on errors only; warnings are listed.
in_release lintian --fail-on error --tag-display-limit 0 --info "$changes" \
	> "$out/lintian.log" 2>&1 || lrc=$?
sed 's/^/# lintian: /' "$out/lintian.log"
if [ "${lrc:-0}" -ne 0 ] || grep -q '^E: ' "$out/lintian.log"; then
	echo "package.sh: lintian reports errors" >&2
	exit 1
fi
echo "package.sh: packages in $out, lintian: no errors"
