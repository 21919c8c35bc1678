#!/bin/bash
# The cmake way with a prefix that is not the default: configure, build
# and `cmake --install` into a DESTDIR, then check that what was installed
# agrees with itself: the unit's ExecStart= is the installed trashd, the
# configuration trashd compiles in is the installed one, the index and
# socket directories of the unit and of tmpfiles.d are trashd's, trashctl
# asks trashd's socket, and pam_trash.so is in PAM's own directory (not
# under the prefix).  TAP on stdout.
#   tests/install/install.sh WORKDIR
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: $0 WORKDIR}
prefix=/opt/trashbin-test
dest=$work/dest
build=$work/build
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
# check DESC WANT GOT
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1"; echo "#   want: $2"; echo "#   got:  $3"; fi
}
# exists DESC PATH
exists() { if [ -e "$2" ]; then ok "$1"; else not_ok "$1: no $2"; fi; }

rm -rf "$work"
mkdir -p "$work"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
	-DCMAKE_INSTALL_PREFIX=$prefix > "$work/configure.log" 2>&1 ||
	{ cat "$work/configure.log"; echo "Bail out! configure failed"; exit 1; }
# Only what is installed: the tests' programs are not.
cmake --build "$build" -j2 --target trashd trashctl pam_trash \
	> "$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log"; echo "Bail out! build failed"; exit 1; }
DESTDIR=$dest cmake --install "$build" > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; echo "Bail out! install failed"; exit 1; }

trashd=$dest$prefix/sbin/trashd
exists "trashd in the prefix's sbin" "$trashd"
exists "trashctl in the prefix's bin" "$dest$prefix/bin/trashctl"
unit=$dest$prefix/lib/systemd/system/trashd.service
exists "the unit where systemd reads a $prefix/lib one" "$unit"

# The unit runs the installed trashd, and -t before a start or a reload.
check "ExecStart= is the installed trashd" "$prefix/sbin/trashd" \
	"$(sed -n 's/^ExecStart=//p' "$unit")"
check "ExecStartPre= checks with it" "$prefix/sbin/trashd -t" \
	"$(sed -n 's/^ExecStartPre=//p' "$unit")"
check "ExecReload= checks with it first" "$prefix/sbin/trashd -t" \
	"$(sed -n 's/^ExecReload=//p' "$unit" | head -n 1)"
check "nothing in the unit names /usr/sbin" "" \
	"$(grep -n '/usr/sbin' "$unit" || true)"

# What the installed trashd compiled in (--help) is what was installed.
help=$("$trashd" --help) && ok "trashd --help" || not_ok "trashd --help"
path() { echo "$help" | awk -v k="$1" '$1 == k { print $2 }'; }
conf=$(path configuration)
db=$(path index)
sock=$(path socket)
case $db:$sock in
/*/index.db:/*/trashd.sock) ok "trashd --help shows the index and socket" ;;
*) not_ok "trashd --help shows the index and socket: '$db' '$sock'" ;;
esac
# GNUInstallDirs puts an /opt prefix's configuration in /etc/opt (FHS).
check "compiled-in configuration is the one installed" \
	"/etc$prefix/trashd/trashd.conf" \
	"$(cd "$dest" && find . -path '*/trashd/trashd.conf' | cut -c2-)"
check "and the prefix's" "/etc$prefix/trashd/trashd.conf" "$conf"
if "$trashd" -n -f "$dest$conf" 2> "$work/n.log"; then
	ok "the installed configuration is valid (-n)"
else
	not_ok "the installed configuration is valid (-n)"; cat "$work/n.log"
fi
check "the unit's state directory is the index's" "${db%/*}" \
	"$(sed -n 's/^RequiresMountsFor=//p' "$unit")"
check "the unit may write the index's and the socket's directories" \
	"${db%/*} ${sock%/*}" \
	"$(sed -n 's/^ReadWritePaths=//p' "$unit")"
tmpf=$dest$prefix/lib/tmpfiles.d/trashd.conf
check "tmpfiles.d makes the index's and the socket's directories" \
	"${db%/*} 0700|${sock%/*} 0755" \
	"$(awk '$1 == "d" { printf "%s%s %s", s, $2, $3; s = "|" }' "$tmpf")"
exists "sysusers.d makes the admin group" "$dest$prefix/lib/sysusers.d/trashd.conf"
check "trashctl asks trashd's socket" "$sock" \
	"$("$dest$prefix/bin/trashctl" --version | sed -n 's/.*socket \(.*\))$/\1/p')"
check "trashd --version" "trashd $(sed -n 's/^project(trashbin VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")" \
	"$("$trashd" --version | cut -d' ' -f1-2)"

# PAM reads its modules from its own directory, whatever our prefix.
pamdir=$(pkg-config --variable=libdir pam)/security
exists "pam_trash.so in PAM's directory $pamdir" "$dest$pamdir/pam_trash.so"
check "no pam_trash.so under the prefix" "" \
	"$(cd "$dest$prefix" && find . -name pam_trash.so)"
exists "man pages in the prefix's" "$dest$prefix/share/man/man8/trashd.8"
exists "bash completion in the prefix's" \
	"$dest$prefix/share/bash-completion/completions/trashctl"

# State elsewhere than /var/lib: no StateDirectory=, and the unit and
# tmpfiles.d follow (configure only: they are generated then).
cmake -S "$top" -B "$work/build2" -DCMAKE_INSTALL_PREFIX=$prefix \
	-DCMAKE_INSTALL_LOCALSTATEDIR=$prefix/var > "$work/configure2.log" 2>&1 ||
	{ cat "$work/configure2.log"; echo "Bail out! configure failed"; exit 1; }
unit2=$work/build2/trashd/trashd.service
exists "state in $prefix/var: a unit" "$unit2"
check "state in $prefix/var: no StateDirectory=" "" \
	"$(grep '^StateDirectory' "$unit2" || true)"
check "state in $prefix/var: the unit may write it" \
	"$prefix/var/lib/trashd /run/trashd" \
	"$(sed -n 's/^ReadWritePaths=//p' "$unit2")"
check "state in $prefix/var: compiled in" \
	"#define TRASHD_DB		\"$prefix/var/lib/trashd/index.db\"" \
	"$(grep 'define TRASHD_DB' "$work/build2/gen/buildinfo.h")"

echo "1..$n"
[ $fails -eq 0 ]
