# TAP helpers for the quick guest's suites (busybox ash).
# A test is a shell function run in a subshell; any failed check exits
# that subshell with a diagnostic, and the test is reported "not ok".

TB_N=0
TB_FAILED=0
M=/mnt			# the test filesystem's root
T=$M/.trash

# trashbin.only=F1,F2 on the kernel command line (vm/quick/run.sh
# --append) runs only those test functions; the others are skipped.
TB_ONLY=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^trashbin\.only=//p')

# run_test NAME FUNCTION
run_test() {
	TB_N=$((TB_N + 1))
	case ",$TB_ONLY," in
	,,|*,$2,*) ;;
	*) echo "ok $TB_N - $1 # SKIP not in trashbin.only"; return 0 ;;
	esac
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

# A field (time, uid, path) of an entry's trusted.trash record.
xget() { tbtool record "$1" "$2" 2>/dev/null; }

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

# ---- trashd in the guest (trashd.sh, bench-trashd.sh) ----
# trashd runs in the background managing /mnt, its index in
# /var/lib/trashd, its socket in /run/trashd.  The log of its current
# start is $TD_LOG; of all starts, /tmp/trashd-all.log.
TD_CONF=/etc/trashd/trashd.conf
TD_LOG=/tmp/trashd.log
TD_PIDF=/tmp/trashd.pid
TD_DB=/var/lib/trashd/index.db

# Users alice (1000) and bob (1001), and trashd's directories.
trashd_setup() {
	printf 'alice:x:1000:1000::/:/bin/sh\nbob:x:1001:1001::/:/bin/sh\n' \
		>> /etc/passwd
	printf 'alice:x:1000:\nbob:x:1001:\n' >> /etc/group
	mkdir -p /var/lib/trashd /etc/trashd
	chmod 0700 /var/lib/trashd
}

# Is PID alive?  A zombie is not (an orphan of a test's subshell).
alive() {
	[ -r "/proc/$1/status" ] &&
		! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

stop_trashd() {
	[ -f $TD_PIDF ] || return 0
	pid=$(cat $TD_PIDF)
	rm -f $TD_PIDF
	kill "$pid" 2>/dev/null
	i=0
	while alive "$pid"; do
		i=$((i + 1))
		[ $i -gt 200 ] && { kill -9 "$pid"; break; }
		usleep 50000
	done
	cat $TD_LOG >> /tmp/trashd-all.log 2>/dev/null
	return 0
}

# start_trashd [CONFIG LINE...]: (re)start trashd on /mnt and wait until
# its socket answers.  The index is kept; fresh_state drops it.
start_trashd() {
	stop_trashd
	{
		echo "filesystem $M"
		echo "create-trash yes"
		echo "retention forever"
		echo "watermark ${TD_WATERMARK:-0%}"
		for l in "$@"; do echo "$l"; done
	} > $TD_CONF
	: > $TD_LOG
	trashd -d -f $TD_CONF < /dev/null >> $TD_LOG 2>&1 &
	echo $! > $TD_PIDF
	i=0
	until trashctl -j status > /dev/null 2>&1; do
		i=$((i + 1))
		alive "$(cat $TD_PIDF)" ||
			die "trashd exited: $(tail -n 5 $TD_LOG)"
		[ $i -gt 400 ] &&
			die "trashd did not answer in 20 s: $(tail -n 5 $TD_LOG)"
		usleep 50000
	done
}

# No daemon, no index, an empty valid /.trash.
fresh_state() {
	stop_trashd
	rm -f $TD_DB $TD_DB-wal $TD_DB-shm
	reset_trash
}

# The number of UID's live entries on /mnt, as trashd reports it.
indexed_count() {
	as "$1" trashctl -j status |
		sed -n "s|.*\"fs\":\"$M\",[^}]*\"count\":\([0-9]*\).*|\1|p"
}

# Print trashd's logs (after a failure).
trashd_logs() {
	cat $TD_LOG >> /tmp/trashd-all.log 2>/dev/null
	: > $TD_LOG
	echo "# trashd logs (last 80 lines):"
	tail -n 80 /tmp/trashd-all.log | sed 's/^/#   /'
}
