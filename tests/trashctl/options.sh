#!/bin/bash
# SPDX-License-Identifier: ISC
# The options every trashctl command takes, without a trashd (issue 22):
# -V and --version print the version everywhere, and alone only (restore
# -V once picked an entry's version: "restore -V 2 path" must not print a
# version and exit 0 having restored nothing); "-h" lists each option with
# one line of what it does.
#
# usage: options.sh TRASHCTL
set -u
[ $# -eq 1 ] || { echo "usage: $0 trashctl" >&2; exit 2; }
trashctl=$1
fail=0
export TRASHD_SOCKET=/nonexistent/trashd.sock

not_ok() { echo "not ok: $*"; fail=1; }

version=$("$trashctl" --version)
case $version in
"trashctl "[0-9]*" (protocol "*) ;;
*) not_ok "trashctl --version: $version" ;;
esac
cmds=$("$trashctl" -h | awk '/^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || { echo "not ok: no commands from trashctl -h"; exit 1; }

for c in "" $cmds; do
	for v in -V --version; do
		out=$("$trashctl" $c $v 2>&1)
		rc=$?
		[ $rc -eq 0 ] && [ "$out" = "$version" ] ||
			not_ok "trashctl $c $v: exit $rc: $out"
	done
	# With anything else: a usage error, nothing asked of trashd.
	out=$("$trashctl" $c -V 2 /x 2>&1)
	rc=$?
	[ $rc -eq 2 ] && [[ $out == *"takes no other argument"* ]] ||
		not_ok "trashctl $c -V 2 /x: exit $rc: $out"

	# -h: each option on a line of its own, with what it does.
	help=$("$trashctl" $c -h)
	opts=$(printf '%s\n' "$help" | sed -n '/^options:$/,/^$/p' |
	    grep -- '^ [ -]')
	for o in "-h, --help" "-V, --version" "-j, --json" "    --ndjson"; do
		printf '%s\n' "$opts" | grep -q -- "^ $o  " ||
			not_ok "trashctl $c -h lists no $o"
	done
	# " -u, --user <user>", two blanks, then words.
	re='^ (-[A-Za-z],|   ) --[a-z-]+( <[a-z]+>)?   *[a-z].{8,}$'
	while IFS= read -r line; do
		[[ $line =~ $re ]] ||
			not_ok "trashctl $c -h, no description: '$line'"
	done <<< "$opts"
done

# restore's entry version is -e, --entry-version now.
out=$("$trashctl" restore -h)
[[ $out == *" -e, --entry-version <n> "* ]] ||
	not_ok "restore -h: no -e, --entry-version"
out=$("$trashctl" restore -e 0 /x 2>&1)
[ $? -eq 2 ] && [[ $out == *"versions count from 1"* ]] ||
	not_ok "restore -e 0: $out"
out=$("$trashctl" restore --entry-version 2 /x 2>&1)
[ $? -eq 3 ] || not_ok "restore --entry-version 2 /x, no trashd: $out"

[ $fail -eq 0 ] && echo "ok: -V everywhere, -h says what each option does"
exit $fail
