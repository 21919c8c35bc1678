# kernel/line.sh, sourced by the kernel scripts (which set kernel_dir): which kernel lines there
# are, and where each one's series, source and caches are.
#
# A line is a Debian kernel source package, linux-source-LINE, with its
# own series in kernel/LINE/ (series, patches/): 6.1, Debian 12's kernel,
# and 6.12, the LTS kernel of Debian 13 (and of Debian 12's security
# archive).  The UAPI header is one for both (kernel/check-series.sh
# compares them byte for byte): trashd and trashctl are built once.
#
# line_set LINE sets:
#   line          the line, e.g. 6.12
#   line_dir      kernel/LINE (series, patches/)
#   line_pkg      linux-source-LINE, line_tarball its tarball
#   line_ver      the package's version (installed by line_install)
#   line_pristine the extracted source in the cache (by line_extract)
#   line_sfx      the suffix of its cache directories: "" for 6.1, which
#                 kept the names it had before there were two lines
#                 (out-patched, tree-patched, ...), "-6.12" for 6.12.

# Oldest first.  The default line is the newest: what kernel/build.sh
# builds without --line, what the quick guests of both tiers and the main
# job boot.  The other lines have their own tests in each tier
# (tests/CMakeLists.txt: guest-kernel-LINE, long-races-LINE, ...).
kernel_lines=(6.1 6.12)
kernel_default_line=6.12

line_set() {
	local l
	line=
	for l in "${kernel_lines[@]}"; do
		[ "$l" = "$1" ] && line=$l
	done
	[ -n "$line" ] || { echo "no kernel line '$1' (there are: ${kernel_lines[*]})" >&2; return 2; }
	line_dir=$kernel_dir/$line
	line_pkg=linux-source-$line
	line_tarball=/usr/src/$line_pkg.tar.xz
	line_sfx=
	[ "$line" = 6.1 ] || line_sfx=-$line
	line_ver=$(dpkg-query -W -f='${Version}' "$line_pkg" 2>/dev/null || true)
	line_pristine=${TRASHBIN_CACHE:-/var/cache/trashbin}/src/$line_ver/$line_pkg
}

# The source package, from Debian's archive (6.12: bookworm-security).
line_install() {
	[ -f "$line_tarball" ] && [ -n "$line_ver" ] && return 0
	echo "kernel: installing $line_pkg" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "$line_pkg" >&2
	line_set "$line"
}

# A pristine tree, extracted once per package version.
line_extract() {
	line_install
	[ -f "$line_pristine/.trashbin-extracted" ] && return 0
	echo "kernel: extracting $line_pkg $line_ver" >&2
	rm -rf "${line_pristine%/*}"
	mkdir -p "${line_pristine%/*}"
	tar -C "${line_pristine%/*}" -xJf "$line_tarball"
	touch "$line_pristine/.trashbin-extracted"
}

# The patches of the line's series, in order, one path per line.
line_patches() {
	grep -v -e '^#' -e '^$' "$line_dir/series" | sed "s|^|$line_dir/patches/|"
}

# line_configure TREE OUT FLAVOR VARIANT [force]: OUT/.config for TREE, tinyconfig
# plus the guest fragments (config/guest.config, and debug.config for
# VARIANT -debug; a line's own fragment of the same name instead), a
# later one overriding an earlier; redone only when they change.  Every
# option they ask for must take, but CONFIG_FS_TRASHBIN where FLAVOR is
# not "patched" (vanilla, or a part of the series that does not add it
# yet).  Sets line_ckey, the key of the config's inputs.  "force": again
# even if they did not change (the tree's Kconfig did).
line_configure() {
	local tree=$1 out=$2 flavor=$3 variant=$4 force=${5:-} f o l bad=0
	local -a frags=()
	local -A want=()
	for f in guest.config ${variant:+debug.config}; do
		if [ -f "$line_dir/$f" ]; then
			frags+=("$line_dir/$f")
		else
			frags+=("$kernel_dir/config/$f")
		fi
	done
	line_ckey=$( (echo "$line_ver"; cat "${frags[@]}") | sha256sum | cut -c1-16)
	mkdir -p "$out"
	if [ -z "$force" ] &&
	   [ "$(cat "$out/.trashbin-config" 2>/dev/null)" = "$line_ckey" ] &&
	   [ -f "$out/.config" ]; then
		return 0
	fi
	echo "kernel: configuring the $flavor kernel in $out" >&2
	make -s -C "$tree" O="$out" tinyconfig >&2
	KCONFIG_CONFIG="$out/.config" "$tree/scripts/kconfig/merge_config.sh" \
		-m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	make -s -C "$tree" O="$out" olddefconfig >&2
	# Every option the fragments ask for (the last word on each) must
	# have taken; "is not set" also holds for an option now hidden.
	while IFS= read -r l; do
		case "$l" in
		CONFIG_*=*) want[${l%%=*}]=$l ;;
		"# CONFIG_"*" is not set") o=${l#\# }; want[${o%% *}]=$l ;;
		esac
	done < <(cat "${frags[@]}")
	for o in "${!want[@]}"; do
		l=${want[$o]}
		[ "$flavor" != patched ] && [ "$o" = CONFIG_FS_TRASHBIN ] && continue
		case "$l" in
		"#"*) ! grep -q "^$o=" "$out/.config" ;;
		*) grep -qxF "$l" "$out/.config" ;;
		esac || { echo "kernel: config option did not take: $l" >&2; bad=1; }
	done
	[ "$bad" = 0 ] || return 1
	echo "$line_ckey" > "$out/.trashbin-config"
}
