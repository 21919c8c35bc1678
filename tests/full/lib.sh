# TAP helpers for the full guest's suites (bash, run as root by
# vm/full/guest/trashbin-suite).  A suite may span several boots: the test
# counter lives in $TB_STATE, the plan is printed by the last boot.
TB_STATE=${TB_STATE:-/var/lib/trashbin-test}
TB_BOOT=${TB_BOOT:-1}
mkdir -p "$TB_STATE"
TB_N=$(cat "$TB_STATE/n" 2>/dev/null || echo 0)

# run_test NAME FUNCTION: the function runs in a subshell, any failed
# check exits it with a diagnostic.  Prints its duration.
run_test() {
	local out rc t0 t1
	TB_N=$((TB_N + 1))
	echo "$TB_N" > "$TB_STATE/n"
	t0=$(date +%s.%N)
	out=$( ( set -e; $2 ) 2>&1 )
	rc=$?
	t1=$(date +%s.%N)
	if [ $rc -eq 0 ]; then
		echo "ok $TB_N - $1"
	else
		echo "not ok $TB_N - $1"
	fi
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	echo "# time: $1: $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")s"
	return 0
}

done_testing() { echo "1..$TB_N"; }
need_reboot() { touch "$TB_STATE/reboot"; }
die() { echo "FAIL: $*"; exit 1; }
check_eq() { [ "$2" = "$3" ] || die "$1: expected '$2', got '$3'"; }
check_exists() { [ -e "$1" ] || die "missing: $1"; }
check_absent() { [ ! -e "$1" ] && [ ! -L "$1" ] || die "should not exist: $1"; }

# wait_for SECONDS COMMAND...: poll every 0.5 s until COMMAND succeeds.
wait_for() {
	local n=$(($1 * 2))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.5
		n=$((n - 1))
	done
	"$@"
}

# As a user, through PAM (su - runs the session stack, pam_trash included,
# whose notice goes to stdout).
as() { local u=$1; shift; su - "$u" -c "$*"; }
# As a user without PAM (clean stdout, for JSON): uid, gid and groups only.
asq() {
	local u=$1; shift
	setpriv --reuid "$u" --regid "$u" --init-groups \
		env HOME="/home/$u" USER="$u" LOGNAME="$u" bash -c "cd ~ && $*"
}

db() { sqlite3 -readonly -batch /var/lib/trashd/index.db "$@"; }
trashd_up() { systemctl is-active -q trashd && [ -S /run/trashd/trashd.sock ]; }

# pyj EXPR: evaluate a Python expression over the JSON on stdin (as d),
# print the result (lists one item a line).
pyj() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
r = eval(sys.argv[1])
if isinstance(r, (list, tuple, set)):
    for x in r: print(x)
elif isinstance(r, bool):
    print("true" if r else "false")
else:
    print(r)' "$1"
}
