#!/bin/bash
# trashd's and trashctl's options an admin and a unit use: --help and
# --version exit 0 on stdout, -t checks the configuration and the index's
# directory and exits 0 or 1 with a clear message, a bad option exits 2.
# TAP on stdout.
#   tests/install/options.sh TRASHD TRASHCTL
set -uo pipefail
trashd=${1:?usage: $0 TRASHD TRASHCTL}
trashctl=${2:?usage: $0 TRASHD TRASHCTL}
tmp=$(mktemp -d /tmp/trashbin-options.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0

# run WANT_RC PATTERN DESC CMD...: exit status and a line of its output.
run() {
	local want=$1 pat=$2 desc=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	n=$((n + 1))
	if [ $rc -eq "$want" ] && grep -qE -- "$pat" <<< "$out"; then
		echo "ok $n - $desc"
	else
		fails=$((fails + 1))
		echo "not ok $n - $desc (exit $rc, want $want /$pat/)"
		sed 's/^/#   /' <<< "$out"
	fi
}

run 0 '^usage: trashd ' "trashd --help" "$trashd" --help
run 0 '^  -t ' "trashd --help lists -t" "$trashd" --help
run 0 '^  configuration  /.*/trashd\.conf$' \
	"trashd --help shows the compiled-in configuration" "$trashd" --help
run 0 '^  -V, --version' "trashd -h" "$trashd" -h
run 0 '^trashd [0-9]+\.[0-9]+\.[0-9]+ \(protocol [0-9]+, index schema [0-9]+\)$' \
	"trashd --version" "$trashd" --version
run 0 '^trashd [0-9]' "trashd -V" "$trashd" -V
run 0 '^trashctl [0-9]+\.[0-9]+\.[0-9]+ \(protocol [0-9]+, socket /.*\)$' \
	"trashctl --version" "$trashctl" --version
run 2 '^usage: trashd ' "trashd: a bad option is a usage error" \
	"$trashd" --bogus
run 2 '^usage: trashd ' "trashd: an operand is a usage error" \
	"$trashd" -t extra

# -t: the configuration, then the index's directory and files.
mkdir -m 0700 "$tmp/state"
echo "database $tmp/state/index.db" > "$tmp/good.conf"
run 0 "^trashd: $tmp/good.conf: configuration OK, index $tmp/state/index.db OK\$" \
	"-t: a good configuration and index directory" \
	"$trashd" -t -f "$tmp/good.conf"
[ ! -e "$tmp/state/index.db" ] && echo "ok $((n += 1)) - -t creates no index" ||
	{ echo "not ok $((n += 1)) - -t creates no index"; fails=$((fails + 1)); }
printf 'database %s/state/index.db\nquota 10 parsecs\n' "$tmp" > "$tmp/bad.conf"
run 1 "^trashd: $tmp/bad.conf:2: " "-t: a bad configuration names FILE:LINE" \
	"$trashd" -t -f "$tmp/bad.conf"
echo "database $tmp/nowhere/index.db" > "$tmp/nodir.conf"
run 1 "index: $tmp/nowhere: No such file or directory" \
	"-t: the index's directory is missing" "$trashd" -t -f "$tmp/nodir.conf"
run 0 "configuration OK\$" "-n: the configuration alone" \
	"$trashd" -n -f "$tmp/nodir.conf"
mkdir -m 0777 "$tmp/lax"
echo "database $tmp/lax/index.db" > "$tmp/lax.conf"
run 1 "index: $tmp/lax: refusing it: mode 0777 is too lax" \
	"-t: a world-writable index directory" "$trashd" -t -f "$tmp/lax.conf"
ln -s /etc/passwd "$tmp/state/index.db"
run 1 "index: $tmp/state/index.db: refusing it: not a regular file" \
	"-t: an index that is a symlink" "$trashd" -t -f "$tmp/good.conf"

echo "1..$n"
[ $fails -eq 0 ]
