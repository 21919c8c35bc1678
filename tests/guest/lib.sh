# TAP helpers for the quick guest's suites (busybox ash).
# A test is a shell function run in a subshell; any failed check exits
# that subshell with a diagnostic, and the test is reported "not ok".

TB_N=0
TB_FAILED=0
M=/mnt			# the test filesystem's root
T=$M/.trash

# run_test NAME FUNCTION
run_test() {
	TB_N=$((TB_N + 1))
	out=$( ( $2 ) 2>&1 )
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok $TB_N - $1"
	else
		TB_FAILED=$((TB_FAILED + 1))
		echo "not ok $TB_N - $1"
	fi
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	return 0
}

done_testing() {
	echo "1..$TB_N"
}

die() {
	echo "FAIL: $*"
	exit 1
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
	[ "$2" = "$3" ] || die "$1: expected '$2', got '$3'"
}

check_exists() { [ -e "$1" ] || die "missing: $1"; }
check_absent() { [ ! -e "$1" ] && [ ! -L "$1" ] || die "should not exist: $1"; }

# Run a command as UID (gid = uid, no supplementary groups).
as() {
	u=$1
	shift
	tbtool runas "$u" "$u" "$@"
}

xget() { tbtool getxattr "$1" "trusted.trash.$2" 2>/dev/null; }

# A fresh, valid /.trash (real unlinks: everything below it goes).
reset_trash() {
	rm -rf "$T"
	mkdir "$T"
	chown 0:0 "$T"
	chmod 0755 "$T"
}

# A fresh test directory owned by UID: fresh_dir NAME [UID]
fresh_dir() {
	rm -rf "${M:?}/$1"
	mkdir -p "$M/$1"
	chown "${2:-0}:${2:-0}" "$M/$1"
}

# Number of entries in a trash directory (0 when it does not exist).
count_entries() {
	if [ -d "$1" ]; then ls -A "$1" | wc -l; else echo 0; fi
}
