#!/bin/bash
# The unit as generated: systemd's own review of its sandbox scores 2.5
# or better (systemd-analyze security --offline, systemd 252 and later),
# its capability bounding set is exactly what trashd/caps.c keeps, and it
# is Type=notify.  TAP on stdout; exit 77 (skipped) without a
# systemd-analyze that reviews unit files offline.
#   tests/install/unit-security.sh UNIT CAPS_C
set -uo pipefail
unit=${1:?usage: $0 UNIT CAPS_C}
caps_c=${2:?usage: $0 UNIT CAPS_C}
threshold=25	# tenths: 2.5
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

if ! command -v systemd-analyze >/dev/null; then
	echo "1..0 # SKIP systemd-analyze is not installed (Debian: systemd)"
	exit 77
fi
if ! systemd-analyze security --help 2>&1 | grep -q -- --offline; then
	echo "1..0 # SKIP systemd-analyze $(systemd-analyze --version |
		head -n 1) has no security --offline (systemd 252 has)"
	exit 77
fi

# The unit's own name: --offline reviews the file, named as systemd would.
tmp=$(mktemp -d /tmp/trashbin-unit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp "$unit" "$tmp/trashd.service"
out=$(systemd-analyze security --offline=yes --no-pager \
	--threshold=$threshold "$tmp/trashd.service" 2>&1)
rc=$?
score=$(sed -n 's/.*Overall exposure level for trashd.service: \([0-9.]*\).*/\1/p' \
	<<< "$out")
if [ $rc -eq 0 ] && [ -n "$score" ]; then
	ok "systemd-analyze security: $score, at most 2.5"
else
	not_ok "systemd-analyze security: ${score:-no score} (exit $rc), want at most 2.5"
	grep -E '✗|Overall' <<< "$out" | sed 's/^/#   /'
fi

# The array's entries, one a line ("\tCAP_X,"), not its comments.
want=$(sed -n '/caps_kept\[\] = {/,/^};/p' "$caps_c" |
	sed -n 's/^[[:space:]]*\(CAP_[A-Z_]*\),[[:space:]]*$/\1/p' |
	sort | tr '\n' ' ')
got=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr ' ' '\n' |
	grep . | sort | tr '\n' ' ')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "CapabilityBoundingSet= is caps_kept: $got"
else
	not_ok "CapabilityBoundingSet= is '$got', caps.c keeps '$want'"
fi
if grep -qx 'AmbientCapabilities=' "$unit"; then
	ok "no ambient capabilities"
else
	not_ok "AmbientCapabilities= is not empty"
fi
if grep -qx 'Type=notify' "$unit" && grep -qx 'NotifyAccess=main' "$unit"; then
	ok "Type=notify, NotifyAccess=main"
else
	not_ok "not Type=notify with NotifyAccess=main"
fi

echo "1..$n"
[ $fails -eq 0 ]
