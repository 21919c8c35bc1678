#!/bin/bash
# SPDX-License-Identifier: ISC
# The bash completion of trashctl(1), as installed: every command's every
# option (from "trashctl CMD -h", which lists getopt_long()'s own table)
# is offered, the long ones after "--", the letters after "-", and the
# options of issue 13 by name.
# bash-completion's helpers are stubbed: the words are set here.
#
# usage: completion.sh TRASHCTL COMPLETION-FILE
set -u
[ $# -eq 2 ] || { echo "usage: $0 trashctl completion-file" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)
PATH=$bin:$PATH
fail=0

_init_completion() { cur=${COMP_WORDS[COMP_CWORD]};
	prev=${COMP_WORDS[COMP_CWORD - 1]}; words=("${COMP_WORDS[@]}");
	cword=$COMP_CWORD; }
_filedir() { COMPREPLY=(FILE); }
complete() { :; }
# shellcheck source=/dev/null
. "$2"

# The completions of "trashctl WORD... CUR".
offered() {
	COMP_WORDS=(trashctl "$@")
	COMP_CWORD=$(($# ))
	COMPREPLY=()
	_trashctl
	printf '%s\n' "${COMPREPLY[@]}"
}

want() {	# want WHAT OFFERED... -- WORDS...
	local what=$1 got
	shift
	got=$(offered "$@")
	printf '%s\n' "$got" | grep -qx -- "$what" || {
		echo "not ok: '$what' not offered for: trashctl $*"
		echo "# offered: $(echo $got)"
		fail=1
	}
}

cmds=$(trashctl -h | awk '/^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || { echo "not ok: no commands from trashctl -h"; exit 1; }
# The options section of -h: " -u, --user <user>  what it does".
opts() {
	sed -n '/^options:$/,/^$/p' |
	    grep -o -- '^ [ -][ A-Za-z][ ,] --[a-z-]*'
}
for c in "" $cmds; do
	listed=$(trashctl $c -h | opts)
	[ -n "$listed" ] || { echo "not ok: $c -h lists no options"; fail=1; }
	for w in "--" "-"; do
		got=$(offered $c "$w")
		for o in $(printf '%s\n' "$listed" | tr -d ,); do
			case $o in $w*) ;; *) continue ;; esac
			printf '%s\n' "$got" | grep -qx -- "$o" || {
				echo "not ok: '$o' not offered for: trashctl $c $w"
				fail=1
			}
		done
	done
	# -V and --version are every command's, and trashctl's.
	want -V $c "-"
	want --version $c "--"
done
for o in --owner --actor --path --result --action --since --until; do
	want "$o" audit "--"
done
for o in --older-than --dry-run --yes --all --user; do
	want "$o" empty "--"
done
want -e restore "-"
want --entry-version restore "--"
want -o empty "-"
want -y empty "-"
want -O audit "-"
want -p audit "-"
want -r audit "-"
want denied audit -r ""
want FILE audit --path ""
want root audit --owner "r"
# issue 13 (wt-cli13): the columns of --output, also after a comma.
want PATH list --output ""
want id,SIZE list --output "id,S"
want DETAILS audit --output "D"
[ $fail -eq 0 ] && echo "ok: trashctl's completion offers every option"
exit $fail
