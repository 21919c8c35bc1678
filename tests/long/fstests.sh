#!/bin/bash
# fstests with the trash active, patched vs vanilla (the long tier):
# builds both kernels (not --debug) and the fstests image, runs the subset
# (vm/fstests/subset) on each kernel in its own guest, the two at once
# (one vCPU each: one core each), and compares.  The vanilla results are
# cached (keyed on their inputs): a rerun after a series change runs only
# the patched guest, on both cores.  Every test that passes on
# vanilla must pass on the patched kernel, except the deliberate
# differences listed in vm/fstests/expected (each documented in
# trashbin.rst, with a guest test of what the series does instead).
#
#   tests/long/fstests.sh [--line L] [--smp N] [--cached] [OUT]
#
# --line: the kernel line (kernel/line.sh; default kernel/build.sh's), both
# kernels of it.  OUT defaults to $TRASHBIN_CACHE/fstests/last-LINE.
# --smp: the patched guest's vCPUs when the vanilla results are cached (2;
# tests/long/fstests-all.sh runs two lines side by side at 1).  --cached:
# build what is missing, run nothing, and succeed only if the vanilla
# results are cached.
#
# Prints "fstests: N passed, M failed" per kernel and the patched-only
# failures with their diffs.  Fails on a patched-only failure that is not
# expected, on an expected one that passes now (the list would be stale),
# and on a patched run that trashed nothing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kline=() alone_smp=2 cached_only=0
usage="usage: $0 [--line L] [--smp N] [--cached] [OUT]"
while [ $# -gt 0 ]; do
	case "$1" in
	--line) kline=(--line "${2:?$usage}"); shift 2 ;;
	--smp) alone_smp=${2:?$usage}; shift 2 ;;
	--cached) cached_only=1; shift ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
done
here_line=$( . "$top/kernel/line.sh"; echo "${kline[1]:-$kernel_default_line}")
out=${1:-${TRASHBIN_CACHE:-/var/cache/trashbin}/fstests/last-$here_line}
start=$(date +%s)

# Both kernels and the image first, one after the other (each build uses
# both cores), then the two guests side by side.
vkernel=$("$top/kernel/build.sh" "${kline[@]}" --vanilla)
"$top/kernel/build.sh" "${kline[@]}" --patched >/dev/null
img=$("$top/vm/fstests/mkimage.sh")
echo "# kernels and image ready in $(( $(date +%s) - start ))s"
mkdir -p "$out"
# The vanilla run depends on none of the series: its results are kept,
# keyed on the vanilla kernel, the image, the subset and the scripts that
# run it, and a second run reuses them (the patched guest then gets
# --smp vCPUs, both cores unless told otherwise).
vkey=$( {
	sha256sum "$vkernel" "$top/vm/fstests/subset" "$top/vm/fstests/run.sh" | cut -d' ' -f1
	basename "$img"
} | sha256sum | cut -c1-16)
vcache=${TRASHBIN_CACHE:-/var/cache/trashbin}/fstests/vanilla-$here_line-$vkey
t=$(date +%s)
if [ "$cached_only" = 1 ]; then
	[ -f "$vcache/results/result.xml" ]
	exit
fi
vpid= smp=1
rm -rf "$out/vanilla"
if [ -f "$vcache/results/result.xml" ]; then
	echo "# the vanilla results of an earlier run with the same inputs: $vcache"
	cp -a "$vcache" "$out/vanilla"
	smp=$alone_smp
else
	"$top/vm/fstests/run.sh" "${kline[@]}" --vanilla "$out/vanilla" > "$out/vanilla.log" 2>&1 &
	vpid=$!
fi
"$top/vm/fstests/run.sh" "${kline[@]}" --patched --smp "$smp" "$out/patched" 2>&1 | tee "$out/patched.log"
prc=${PIPESTATUS[0]}
vrc=0
[ -z "$vpid" ] || wait "$vpid" || vrc=$?
echo "# the guests done in $(( $(date +%s) - t ))s"
[ "$vrc" = 0 ] || { tail -n 20 "$out/vanilla.log"; echo "not ok - the vanilla run did not finish"; exit 1; }
[ "$prc" = 0 ] || { echo "not ok - the patched run did not finish"; exit 1; }
if [ -n "$vpid" ]; then
	rm -rf "${vcache%/*}"/vanilla-"$here_line"-* "${vcache%/*}"/vanilla-????????????????
	cp -a "$out/vanilla" "$vcache"
fi

tarball=${TRASHBIN_FSTESTS_TARBALL:-$(ls "$top"/../shared/fstests/fstests-*.tar.xz | head -n 1)}
set +e
python3 - "$out" "$top/vm/fstests/expected" "$tarball" <<'PY'
import difflib, os, subprocess, sys, xml.etree.ElementTree as ET
out, expected_file, tarball = sys.argv[1:4]

def results(kind):
    root = ET.parse(os.path.join(out, kind, "results", "result.xml")).getroot()
    res = {}
    for tc in root.iter("testcase"):
        if tc.find("skipped") is not None:
            res[tc.get("name")] = "notrun"
        elif tc.find("failure") is not None or tc.find("error") is not None:
            res[tc.get("name")] = "fail"
        else:
            res[tc.get("name")] = "pass"
    return res

expected = {}
for line in open(expected_file):
    line = line.split("#", 1)[0].strip()
    if line:
        expected[line.split()[0]] = True

ok = True
van, pat = results("vanilla"), results("patched")
for kind, r in (("vanilla", van), ("patched", pat)):
    n = lambda s: sum(1 for v in r.values() if v == s)
    print(f"fstests ({kind}): {n('pass')} passed, {n('fail')} failed, {n('notrun')} not run")
    if n("pass") == 0:
        print(f"not ok - nothing passed on {kind}: the run tested nothing")
        ok = False
p = sum(1 for v in pat.values() if v == "pass")
f = sum(1 for v in pat.values() if v == "fail")
print(f"fstests: {p} passed, {f} failed")

regress = sorted(t for t, v in van.items() if v == "pass" and pat.get(t) != "pass")
for t in regress:
    tag = "expected (trashbin.rst)" if t in expected else "NEW"
    print(f"# patched-only failure: {t} [{tag}]")
    bad = os.path.join(out, "patched", "results", t + ".out.bad")
    if os.path.exists(bad):
        golden = subprocess.run(["tar", "-xJOf", tarball, "--wildcards",
                                 f"*/tests/{t}.out"], capture_output=True,
                                text=True).stdout.splitlines(keepends=True)
        diff = difflib.unified_diff(golden, open(bad).readlines(),
                                    f"{t}.out", f"{t}.out.bad")
        for l in list(diff)[:40]:
            print("#   " + l.rstrip("\n"))
    else:
        print(f"#   (no .out.bad: see {out}/patched/results/{t}.full)")
    if t not in expected:
        print(f"not ok - {t} passes on vanilla and fails on the patched kernel")
        ok = False
for t in sorted(expected):
    if pat.get(t) == "pass":
        print(f"not ok - {t} is listed as a deliberate difference but passes: update vm/fstests/expected")
        ok = False
    elif van.get(t) != "pass":
        print(f"# {t}: listed as expected, and not passing on vanilla either ({van.get(t)})")
print("ok - fstests: no patched-only failure beyond the documented ones" if ok
      else "not ok - fstests")
sys.exit(0 if ok else 1)
PY
rc=$?
set -e
# The guest's lines come through a serial port: CRLF.
grep '^# trash entries on TEST_DEV' "$out/patched/check.log" | tr -d '\r' || true
n=$(tr -d '\r' < "$out/patched/check.log" | sed -n 's/^# trash entries on TEST_DEV: //p')
if [ "${n:-0}" -eq 0 ]; then
	echo "not ok - the patched run trashed nothing on TEST_DEV: the trash was not active"
	rc=1
fi
echo "# fstests compare took $(( $(date +%s) - start ))s in all"
exit $rc
