#!/bin/bash
# Build the guest kernel: Debian's linux-source-6.1 with the trashbin
# series applied (default), or the same source unpatched (--vanilla), both
# with config/guest.config over tinyconfig; --bench adds config/bench.config
# (the same kernel without KASAN and lockdep, for bench/).  The tree and the build live
# in a cache outside the clone ($TRASHBIN_CACHE, default
# /var/cache/trashbin); a second run only rebuilds what changed.
#
# Prints the path of the bzImage on stdout; progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${TRASHBIN_CACHE:-/var/cache/trashbin}
flavor=patched variant=
for arg in "$@"; do
	case "$arg" in
	--vanilla) flavor=vanilla ;;
	--patched) flavor=patched ;;
	--bench) variant=-bench ;;
	*) echo "usage: $0 [--patched|--vanilla] [--bench]" >&2; exit 2 ;;
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

# 4. Build.
log "building $flavor bzImage"
make -s -C "$tree" O="$out" -j"$(nproc)" bzImage >&2
echo "$out/arch/x86/boot/bzImage"
