#!/bin/bash
# bench/restore: trashd's index and restores against Debian's trash-cli,
# on the host, side by side in one run, for 10,000 and 100,000 entries in
# one user's trash.  Prints, each beside its target:
#   - time to list the trash: trashctl list vs trash-list
#   - time to restore one file by its original path: trashctl restore PATH
#     vs trash-restore PATH (target: under 20 ms at 100,000 entries, and
#     at least 50x faster than trash-cli)
#   - requests/s of status and quota with 16 concurrent clients, one
#     connection per request as trashctl and pam_trash make (target: at
#     least 5,000)
#
# Reproduce: bash bench/restore.sh     (BENCH_SIZES="10000" for a quick one)
# bash bench/restore.sh --smoke (or BENCH_SMOKE=1): a check that it runs to
# its end and prints every figure, in seconds: 300 entries, 3 restores,
# 1 s of load.  Its figures mean nothing and it says so.
# tests/bench/smoke.sh runs it (ctest: bench-restore-smoke).
# Needs root: the entries are staged as the kernel leaves them, with
# trusted.trash record (restore-helper stage-trashd) in a scratch tree on
# the host disk (/var/tmp), and a private trashd (optimised build, its own
# config, index and socket) indexes them at start-up.  trash-cli's trash
# gets the same entries in its own format (files/ and info/*.trashinfo in
# the user's home trash, on the same disk).  Both run as the same
# unprivileged uid.  Times are wall clock, of the command as the user
# runs it (its process start included), the median of the runs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=${BENCH_SMOKE:-0}
case ${1:-} in
--smoke) smoke=1 ;;
"") ;;
*) echo "usage: $0 [--smoke]" >&2; exit 2 ;;
esac
if [ "$smoke" = 1 ]; then
	: "${BENCH_SIZES:=300}" "${BENCH_RUNS:=3}" "${BENCH_SECONDS:=1}"
	echo "== SMOKE RUN: tiny sizes, to check that the bench runs; its figures mean nothing" >&2
fi
[ "$(id -u)" = 0 ] || { echo "bench/restore.sh: run it as root" >&2; exit 1; }
bash "$top/tests/deps.sh"
command -v trash-restore >/dev/null ||	# tests/deps.sh installs it
	{ echo "bench/restore.sh: no trash-restore (Debian's trash-cli)" >&2; exit 1; }

build=${TRASHBIN_BENCH_BUILD:-${TRASHBIN_CACHE:-/var/cache/trashbin}/build-bench}
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE="${BENCH_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target trashd trashctl >/dev/null
helper=$build/restore-helper
"$top/kernel/uapi-header.sh" "$build/uapi"
cc -O2 -std=gnu11 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 \
	-I"$top/common" -I"$build/uapi" -o "$helper" "$top/bench/restore-helper.c" \
	"$top/common/proto.c" "$top/common/client.c"
trashd=$build/trashd/trashd
trashctl=$build/trashctl/trashctl

U=${BENCH_UID:-64123}		# the user: no account needed
RUNS=${BENCH_RUNS:-5}		# restores timed per tool and size
CLIENTS=16
SECS=${BENCH_SECONDS:-3}	# per load figure

work=$(mktemp -d /var/tmp/trashbin-bench.XXXXXX)
chmod 0755 "$work"
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
printf '0\n' > "$work/zero"
chmod 0644 "$work/zero"

as_user() { setpriv --reuid="$U" --regid="$U" --clear-groups "$@"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
path_of() { printf '%s/d%03d/f%06d' "$1" $(($2 / 1000)) "$2"; }

results=$work/results
: > "$results"
res() { echo "$*" >> "$results"; }	# N KEY VALUE

for n in ${BENCH_SIZES:-10000 100000}; do
	R=$work/$n
	mkdir -p "$R/fs/.trash" "$R/fs/home/u" "$R/db" "$R/run" \
		"$R/tc/home/u" "$R/tchome/.local/share"
	chmod 0755 "$R" "$R/fs" "$R/fs/.trash" "$R/fs/home" "$R/run" "$R/tc" \
		"$R/tc/home"
	chmod 0700 "$R/db"
	chown "$U:$U" "$R/fs/home/u" "$R/tc/home/u" "$R/tchome" \
		"$R/tchome/.local" "$R/tchome/.local/share"
	cat > "$R/trashd.conf" <<-EOF
	database $R/db/index.db
	filesystem $R/fs
	socket $R/run/trashd.sock
	quota none
	retention forever
	watermark 0%
	grace 1h
	EOF
	sock=$R/run/trashd.sock
	echo "== $n entries: staging" >&2
	"$helper" stage-trashd "$R/fs" "$U" "$n"
	"$helper" stage-trashcli "$R/tchome/.local/share/Trash" \
		"$R/tc/home/u" "$U" "$n"
	sync

	echo "== $n entries: trashd indexes them" >&2
	t0=$(date +%s.%N)
	"$trashd" -d -f "$R/trashd.conf" 2> "$R/trashd.log" &
	pid=$!
	for _ in $(seq 6000); do
		c=$(as_user "$trashctl" -s "$sock" status --json 2>/dev/null |
			sed -n 's/.*"count":\([0-9]*\).*/\1/p') || true
		[ "${c:-0}" = "$n" ] && break
		sleep 0.1
	done
	[ "${c:-0}" = "$n" ] || { echo "trashd indexed ${c:-0} of $n" >&2; tail "$R/trashd.log" >&2; exit 1; }
	res "$n" index_s "$(echo "$(date +%s.%N) - $t0" | bc)"

	# Both list every entry, untimed first as a check.
	c=$(as_user "$trashctl" -s "$sock" list | grep -c "/home/u/d") || true
	[ "$c" = "$n" ] || { echo "trashctl list: $c of $n" >&2; exit 1; }
	c=$(as_user env HOME="$R/tchome" trash-list | grep -c "/home/u/d") || true
	[ "$c" = "$n" ] || { echo "trash-list: $c of $n" >&2; exit 1; }
	echo "== $n entries: list" >&2
	for _ in 1 2 3; do
		as_user "$helper" time /dev/null "$trashctl" -s "$sock" list
	done | median > "$R/t"
	res "$n" list_trashd "$(cat "$R/t")"
	for _ in 1 2 3; do
		as_user env HOME="$R/tchome" "$helper" time /dev/null trash-list
	done | median > "$R/t"
	res "$n" list_trashcli "$(cat "$R/t")"

	echo "== $n entries: restore one file by path" >&2
	: > "$R/rt"; : > "$R/rc"
	for k in $(seq "$RUNS"); do
		i=$(( (n / (RUNS + 1)) * k + 7 ))
		p=$(path_of "$R/fs/home/u" $i)
		as_user "$helper" time /dev/null "$trashctl" -s "$sock" \
			restore "$p" >> "$R/rt"
		[ "$(cat "$p")" = "contents of entry $i" ] ||
			{ echo "trashctl restore: $p not back" >&2; exit 1; }
		[ "$(stat -c %u "$p")" = "$U" ] || { echo "$p: owner" >&2; exit 1; }
		p=$(path_of "$R/tc/home/u" $i)
		# It lists the matches and asks which one: the first.
		as_user env HOME="$R/tchome" "$helper" time "$work/zero" \
			trash-restore "$p" >> "$R/rc"
		[ "$(cat "$p")" = "contents of entry $i" ] ||
			{ echo "trash-restore: $p not back" >&2; exit 1; }
	done
	res "$n" restore_trashd "$(median < "$R/rt")"
	res "$n" restore_trashcli "$(median < "$R/rc")"

	echo "== $n entries: $CLIENTS clients" >&2
	for verb in status quota; do
		set -- $(as_user "$helper" load "$sock" "$CLIENTS" "$SECS" "$verb")
		[ "$2" = 0 ] || { echo "$verb: $2 requests failed" >&2; exit 1; }
		res "$n" "rps_$verb" "$1"
	done
	kill "$pid"
	wait "$pid" || { echo "trashd did not exit cleanly" >&2; tail "$R/trashd.log" >&2; exit 1; }
	pid=
	rm -rf "$R"
done

echo
[ "$smoke" = 1 ] && echo "SMOKE RUN: tiny sizes; the figures below mean nothing"
echo "raw figures (entries key value; times in ms):"; sed "s/^/  /" "$results"
get() { awk -v n="$1" -v k="$2" '$1 == n && $2 == k { print $3 }' "$results"; }
echo
printf '%-8s %-36s %12s %12s %9s  %s\n' entries measure trashd trash-cli \
	"speed-up" target
for n in ${BENCH_SIZES:-10000 100000}; do
	awk -v n="$n" -v lt="$(get "$n" list_trashd)" \
		-v lc="$(get "$n" list_trashcli)" \
		-v rt="$(get "$n" restore_trashd)" \
		-v rc="$(get "$n" restore_trashcli)" \
		-v rs="$(get "$n" rps_status)" -v rq="$(get "$n" rps_quota)" \
		-v ix="$(get "$n" index_s)" -v cl="$CLIENTS" 'BEGIN {
		ok = "  ok"; no = "  MISSED"
		printf "%-8d %-36s %10.1fms %10.1fms %8.0fx  %s\n", n,
			"list the trash", lt, lc, lc / lt, "-"
		t = ((n < 100000 || rt < 20) && (rc / rt >= 50))
		printf "%-8d %-36s %10.1fms %10.1fms %8.0fx  %s%s\n", n,
			"restore one file by path", rt, rc, rc / rt,
			"< 20 ms at 100,000, >= 50x", t ? ok : no
		printf "%-8d %-36s %10.0f/s %12s %9s  %s%s\n", n,
			"status, " cl " clients", rs, "-", "", ">= 5,000/s",
			(rs >= 5000) ? ok : no
		printf "%-8d %-36s %10.0f/s %12s %9s  %s%s\n", n,
			"quota, " cl " clients", rq, "-", "", ">= 5,000/s",
			(rq >= 5000) ? ok : no
		printf "%-8d %-36s %11.1fs %12s %9s  %s\n", n,
			"(trashd: index at start-up)", ix, "-", "", "-"
	}'
done
