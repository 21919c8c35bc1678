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

# Oldest first.  The default line is what the default tier tests and
# the main job boots: the newest line once its series passes the same
# suites as the older one.
kernel_lines=(6.1 6.12)
kernel_default_line=6.1

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
