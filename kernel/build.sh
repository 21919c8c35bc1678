#!/bin/bash
# Build the guest kernel: Debian's linux-source-6.1 with the trashbin
# series applied (default), or the same source unpatched (--vanilla), both
# with config/guest.config over tinyconfig; --bench adds config/bench.config
# (the same kernel without KASAN and lockdep, for bench/).  The tree and the build live
# in a cache outside the clone ($TRASHBIN_CACHE, default
# /var/cache/trashbin); a second run only rebuilds what changed.
#
# Prints the path of the bzImage on stdout; progress goes to stderr.
#
# --deb: the same kernel as a Debian package, as an admin installs it:
# `make bindeb-pkg` on the cached build with the release name
# 6.1.N-trashbin (the tree's own is 6.1.N, which any other build of that
# source has too), then the default build put back as it was.  The .debs
# are kept in $TRASHBIN_CACHE/kdeb/FLAVOR.KEY/ (KEY: the source, the
# series, the config, the release name): a second run with the same
# inputs does no make at all.  Prints the linux-image .deb's path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}
flavor=patched variant= deb=0
for arg in "$@"; do
	case "$arg" in
	--vanilla) flavor=vanilla ;;
	--patched) flavor=patched ;;
	--bench) variant=-bench ;;
	--deb) deb=1 ;;
	*) echo "usage: $0 [--patched|--vanilla] [--bench] [--deb]" >&2; exit 2 ;;
	esac
done

log() { echo "kernel/build.sh: $*" >&2; }
tarball=/usr/src/linux-source-6.1.tar.xz
if [ ! -f "$tarball" ]; then
	log "installing linux-source-6.1"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends linux-source-6.1 >&2
fi
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)

# 1. A pristine tree, extracted once per package version.
pristine=$cache/src/$ver/linux-source-6.1
if [ ! -f "$pristine/.trashbin-extracted" ]; then
	log "extracting linux-source-6.1 $ver"
	rm -rf "$cache/src/$ver"
	mkdir -p "$cache/src/$ver"
	tar -C "$cache/src/$ver" -xJf "$tarball"
	touch "$pristine/.trashbin-extracted"
fi

# 2. The tree to build: pristine for vanilla, pristine plus the series
#    otherwise.  When the series changes, files are restored from the
#    pristine copy and patched again; every file touched gets a new mtime
#    so make rebuilds exactly what the change affects.
tree=$pristine
key=$ver
if [ "$flavor" = patched ]; then
	tree=$cache/tree-patched
	key=$( (echo "$ver"; cd "$here" && cat series &&
		sed 's/^/patches\//' series | xargs cat) | sha256sum | cut -c1-16)
	if [ "$(cat "$tree/.trashbin-series" 2>/dev/null)" != "$key" ]; then
		log "applying the series to $tree"
		mkdir -p "$tree"
		rm -f "$tree/.trashbin-series"
		changed=$(rsync -a --delete --exclude=/.trashbin-series \
			--out-format='%n' "$pristine/" "$tree/")
		(cd "$tree" && printf '%s\n' "$changed" |
			{ grep -v -e '/$' -e '^deleting ' -e '^$' || true; } |
			xargs -r -d '\n' touch --)
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			log "  $p"
			patch -d "$tree" -p1 -s --no-backup-if-mismatch \
				< "$here/patches/$p"
		done < "$here/series"
		echo "$key" > "$tree/.trashbin-series"
	fi
fi

# 3. The config: tinyconfig plus the fragments (a later one overrides an
#    earlier), redone when any of them changes.
out=$cache/out-$flavor$variant
mkdir -p "$out"
frags=("$here/config/guest.config")
[ "$variant" = -bench ] && frags+=("$here/config/bench.config")
ckey=$( (echo "$ver"; cat "${frags[@]}") | sha256sum | cut -c1-16)
if [ "$(cat "$out/.trashbin-config" 2>/dev/null)" != "$ckey" ] ||
   [ ! -f "$out/.config" ]; then
	log "configuring $flavor kernel"
	make -s -C "$tree" O="$out" tinyconfig >&2
	KCONFIG_CONFIG="$out/.config" "$tree/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	make -s -C "$tree" O="$out" olddefconfig >&2
	# Every option the fragments ask for (the last word on each) must
	# have taken; "is not set" also holds for an option now hidden.
	declare -A want=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]=$line ;;
		"# CONFIG_"*" is not set") o=${line#\# }; want[${o%% *}]=$line ;;
		esac
	done < <(cat "${frags[@]}")
	bad=0
	for o in "${!want[@]}"; do
		line=${want[$o]}
		[ "$flavor" = vanilla ] && [ "$o" = CONFIG_FS_TRASHBIN ] && continue
		case "$line" in
		"#"*) ! grep -q "^$o=" "$out/.config" ;;
		*) grep -qxF "$line" "$out/.config" ;;
		esac || { log "config option did not take: $line"; bad=1; }
	done
	[ "$bad" = 0 ] || exit 1
	echo "$ckey" > "$out/.trashbin-config"
fi

# 3b. A packaged kernel already built from these inputs: nothing to make.
localversion=-trashbin
if [ "$deb" = 1 ]; then
	dkey=$(echo "$flavor$variant $key $ckey $localversion" | sha256sum | cut -c1-16)
	kdeb=$cache/kdeb/$flavor$variant.$dkey
	if [ -f "$kdeb/.done" ]; then
		ls "$kdeb"/linux-image-*.deb | grep -v -- -dbg_
		exit 0
	fi
fi

# 4. Build.
log "building $flavor bzImage"
make -s -C "$tree" O="$out" -j"$(nproc)" bzImage >&2
if [ "$deb" = 0 ]; then
	echo "$out/arch/x86/boot/bzImage"
	exit 0
fi

# 5. --deb: bindeb-pkg on the build above, with the release name; then
#    the plain bzImage again, so that the default build finds its tree as
#    it left it and costs what it did.  Each switch of the release string
#    recompiles the few objects that print it (utsrelease.h, version.o)
#    and relinks: two links.  (A build directory of its own would cost a
#    whole kernel build the first time: objtool, which every object
#    depends on, is relinked in a new directory.)  builddeb writes the
#    packages to the build directory's parent; they are moved to $kdeb.
pkgs() {
	find "$cache" -maxdepth 1 -type f \( -name '*.deb' -o -name '*.buildinfo' \
		-o -name '*.changes' \) "$@"
}
kver=$(make -s -C "$tree" O="$out" kernelversion)
log "building the $flavor kernel package ($kver$localversion)"
start=$(date +%s)
pkgs -delete
mkdir -p "$cache/kdeb"
make -s -C "$tree" O="$out" -j"$(nproc)" LOCALVERSION="$localversion" \
	KDEB_PKGVERSION="$kver-1+tb$dkey" bindeb-pkg \
	> "$cache/kdeb/build.log" 2>&1 ||
	{ tail -n 40 "$cache/kdeb/build.log" >&2; exit 1; }
rm -rf "$kdeb"
mkdir -p "$kdeb"
pkgs -exec mv -t "$kdeb" {} +
log "bindeb-pkg took $(( $(date +%s) - start ))s; the plain bzImage again"
make -s -C "$tree" O="$out" -j"$(nproc)" bzImage >&2
log "the package and the switch back took $(( $(date +%s) - start ))s"
touch "$kdeb/.done"
# Packages of older inputs are not used any more.
for old in "$cache"/kdeb/"$flavor$variant".*; do
	[ "$old" = "$kdeb" ] || rm -rf "$old"
done
ls "$kdeb"/linux-image-*.deb | grep -v -- -dbg_
