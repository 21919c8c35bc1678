#!/bin/bash
# Build the guest kernel: Debian's linux-source-LINE with the trashbin
# series of kernel/LINE applied (default), or the same source unpatched
# (--vanilla), both with config/guest.config over tinyconfig (a line's own
# kernel/LINE/guest.config, if it has one, instead): the kernel the default tier's
# guests boot and the package an admin installs, measured by bench/ and
# fstests.  --debug adds config/debug.config (KASAN, lockdep and the
# other debugging of the long tier's guests).  The tree and the builds live
# in a cache outside the clone ($TRASHBIN_CACHE, default
# /var/cache/trashbin); a second run only rebuilds what changed.
#
# Prints the path of the bzImage on stdout; progress goes to stderr.
#
# --line LINE: 6.1 or 6.12 (kernel/line.sh; the default is its
# kernel_default_line).
#
# The kernel's release is LINE.N-trashbin, for the plain build too.
# --deb: the same kernel as a Debian package, as an admin installs it:
# `make bindeb-pkg` on the cached build, which packs the bzImage already
# built (the same release and build strings: no second link).  The .debs
# are kept in $TRASHBIN_CACHE/kdeb/FLAVOR.KEY/ (KEY: the source, the
# series, the config, the release name): a second run with the same
# inputs does no make at all.  Prints the linux-image .deb's path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel_dir=$here
# shellcheck source=kernel/line.sh
. "$here/line.sh"
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}
flavor=patched variant= deb=0 want_line=$kernel_default_line
while [ $# -gt 0 ]; do
	case "$1" in
	--vanilla) flavor=vanilla ;;
	--patched) flavor=patched ;;
	--debug) variant=-debug ;;
	--deb) deb=1 ;;
	--line) want_line=${2:-}; shift ;;
	--line=*) want_line=${1#--line=} ;;
	*) echo "usage: $0 [--line ${kernel_lines[*]// /|}] [--patched|--vanilla] [--debug] [--deb]" >&2; exit 2 ;;
	esac
	shift
done
line_set "$want_line"

log() { echo "kernel/build.sh: $*" >&2; }

# One build at a time on this machine: the builds of a line share its
# tree (and 6.1 and 6.12 the source cache, apt and the directory that
# bindeb-pkg writes to), and the long tier runs two tests at once, each
# of which may ask for a kernel.  A second caller waits, then finds the
# build done (make has nothing to do) or does its own.
mkdir -p "$cache"
exec 9>>"$cache/.build.lock"
if ! flock -n 9; then
	log "waiting for another kernel build on this machine"
	flock 9
fi

# 1. A pristine tree, extracted once per package version.
line_extract
ver=$line_ver
pristine=$line_pristine

# 2. The tree to build: pristine for vanilla, pristine plus the series
#    otherwise.  When the series changes, it is applied to copies of the
#    files it touches, and only the files whose content differs from the
#    tree's are written (and files a series no longer touches restored):
#    make then rebuilds exactly what the change affects, and an edit of
#    fs/trashbin.c does not touch include/linux/errno.h, which nearly
#    every object depends on.
tree=$pristine
key=$ver
if [ "$flavor" = patched ]; then
	tree=$cache/tree-patched$line_sfx
	key=$( (echo "$ver"; cd "$line_dir" && cat series &&
		sed 's/^/patches\//' series | xargs cat) | sha256sum | cut -c1-16)
	if [ "$(cat "$tree/.trashbin-series" 2>/dev/null)" != "$key" ]; then
		log "applying the series to $tree"
		if [ ! -f "$tree/.trashbin-files" ]; then
			# First time (or a tree from an older build.sh): a
			# full copy of the pristine tree.
			mkdir -p "$tree"
			rsync -a --delete "$pristine/" "$tree/"
			: > "$tree/.trashbin-files"
		fi
		rm -f "$tree/.trashbin-series"
		stage=$(mktemp -d)
		trap 'rm -rf "$stage"' EXIT
		grep -v -e '^#' -e '^$' "$line_dir/series" |
			sed 's/^/patches\//' | (cd "$line_dir" && xargs cat) |
			sed -n 's|^+++ b/||p; s|^--- a/||p' | sort -u > "$stage.files"
		while read -r f; do
			[ -f "$pristine/$f" ] || continue
			mkdir -p "$stage/$(dirname "$f")"
			cp -p "$pristine/$f" "$stage/$f"
		done < "$stage.files"
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			log "  $p"
			patch -d "$stage" -p1 -s --no-backup-if-mismatch \
				< "$line_dir/patches/$p"
		done < "$line_dir/series"
		sort -u "$stage.files" "$tree/.trashbin-files" |
		while read -r f; do
			if [ -f "$stage/$f" ]; then
				new=$stage/$f
			elif [ -f "$pristine/$f" ]; then
				new=$pristine/$f
			else
				rm -f "$tree/$f"
				continue
			fi
			cmp -s "$new" "$tree/$f" && continue
			mkdir -p "$tree/$(dirname "$f")"
			cp "$new" "$tree/$f"
			log "    changed: $f"
		done
		mv "$stage.files" "$tree/.trashbin-files"
		rm -rf "$stage"
		trap - EXIT
		echo "$key" > "$tree/.trashbin-series"
	fi
fi

# 3. The config (line_configure): tinyconfig plus the fragments, redone
#    when any of them changes; ckey names them.
out=$cache/out$line_sfx-$flavor$variant
line_configure "$tree" "$out" "$flavor" "$variant" || exit 1
ckey=$line_ckey

# 3b. The release and build strings, the same for the plain build and
#     the package: 6.1.N-trashbin (the tree's own is 6.1.N, which any
#     other build of that source has too), build "#1+tbKEY" (KEY names
#     the inputs), and as the build's time the source package's own
#     date (its changelog's last entry), not the time of the build.  So
#     `make bindeb-pkg` finds the bzImage it wants already built and only
#     packs it: one kernel build serves the quick guests and the package.
localversion=-trashbin
stamp=$(zcat "/usr/share/doc/$line_pkg/changelog.Debian.gz" 2>/dev/null |
	sed -n '/^ -- .*>  /{s///p;q}' || true)
date -d "$stamp" >/dev/null 2>&1 || stamp="Thu, 01 Jan 1970 00:00:00 +0000"
dkey=$(echo "$flavor$variant $key $ckey $localversion $stamp" | sha256sum | cut -c1-16)
mk=(make -s -C "$tree" O="$out" -j"$(nproc)" LOCALVERSION="$localversion")
export KBUILD_BUILD_VERSION="1+tb$dkey"
export KBUILD_BUILD_TIMESTAMP="$stamp"
kdeb=$cache/kdeb/$flavor$variant$line_sfx.$dkey
if [ "$deb" = 1 ] && [ -f "$kdeb/.done" ]; then
	ls "$kdeb"/linux-image-*.deb | grep -v -- -dbg_
	exit 0
fi

# 4. Build.
log "building $flavor$variant bzImage"
start=$(date +%s)
"${mk[@]}" bzImage >&2
log "built in $(( $(date +%s) - start ))s"
if [ "$deb" = 0 ]; then
	echo "$out/arch/x86/boot/bzImage"
	exit 0
fi

# 5. --deb: bindeb-pkg on the build above, with the same strings: it
#    rebuilds nothing (checked below: vmlinux is not relinked) and packs.
#    builddeb writes the packages to the build directory's parent; they
#    are moved to $kdeb.
pkgs() {
	find "$cache" -maxdepth 1 -type f \( -name '*.deb' -o -name '*.buildinfo' \
		-o -name '*.changes' \) "$@"
}
kver=$("${mk[@]}" kernelversion)
log "packing the $flavor kernel ($kver$localversion)"
start=$(date +%s)
before=$(stat -c %Y "$out/vmlinux")
pkgs -delete
mkdir -p "$cache/kdeb"
"${mk[@]}" KDEB_PKGVERSION="$kver-$KBUILD_BUILD_VERSION" bindeb-pkg \
	> "$cache/kdeb/build.log" 2>&1 ||
	{ tail -n 40 "$cache/kdeb/build.log" >&2; exit 1; }
[ "$(stat -c %Y "$out/vmlinux")" = "$before" ] ||
	{ log "bindeb-pkg relinked vmlinux: its build strings differ from the plain build's"; exit 1; }
rm -rf "$kdeb"
mkdir -p "$kdeb"
pkgs -exec mv -t "$kdeb" {} +
log "bindeb-pkg took $(( $(date +%s) - start ))s"
touch "$kdeb/.done"
# Packages of older inputs are not used any more.
for old in "$cache"/kdeb/"$flavor$variant$line_sfx".*; do
	[ "$old" = "$kdeb" ] || rm -rf "$old"
done
ls "$kdeb"/linux-image-*.deb | grep -v -- -dbg_
