#!/bin/bash
# The builds the project documents or uses, each with -Werror, in build
# trees of their own under BUILD_DIR (kept: a second run is incremental).
# One line per build, PASS or FAIL; a failed build's first errors after
# the table.  Fails if any build fails.
#
#   tests/build/matrix.sh BUILD_DIR [COMPILER:TYPE ...]
#
# COMPILER: gcc or clang.  TYPE: default (no CMAKE_BUILD_TYPE), Debug,
# Release, RelWithDebInfo, MinSizeRel, Sanitize (tests/sanitize.sh), or
# deb: what debian/rules builds with (dh's CMAKE_BUILD_TYPE=None,
# dpkg-buildflags' CFLAGS and CPPFLAGS with hardening=+all and -Wall,
# its LDFLAGS), here with -Werror, which debian/rules leaves off.
# Without builds: every compiler with every type (about 12 minutes on 2
# cores from nothing).  MATRIX_TARGETS="t1 t2" builds only those targets
# (default: all, the tests' programs included).  MATRIX_JOBS (default 2).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: $0 BUILD_DIR [COMPILER:TYPE ...]}
shift
combos=("$@")
if [ ${#combos[@]} -eq 0 ]; then
	for cc in gcc clang; do
		for t in default Debug Release RelWithDebInfo MinSizeRel \
		    Sanitize deb; do
			combos+=("$cc:$t")
		done
	done
fi
jobs=${MATRIX_JOBS:-2}
read -r -a targets <<< "${MATRIX_TARGETS:-}"
mkdir -p "$out"

# The compilers first: a missing one is a setup error, said plainly.
for c in "${combos[@]}"; do
	cc=${c%%:*}
	case $cc in
	gcc | clang) ;;
	*) echo "$0: unknown compiler '$cc' in '$c' (gcc or clang)" >&2
	   exit 2 ;;
	esac
	if ! command -v "$cc" > /dev/null; then
		echo "$0: no $cc: install Debian's '$cc' package" \
			"(tests/deps.sh does)" >&2
		exit 1
	fi
done

failed=()
for c in "${combos[@]}"; do
	cc=${c%%:*}
	type=${c#*:}
	dir=$out/$cc-$type
	args=(-S "$top" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DTRASHBIN_WERROR=ON)
	case $type in
	default) ;;
	Debug | Release | RelWithDebInfo | MinSizeRel | Sanitize)
		args+=(-DCMAKE_BUILD_TYPE="$type") ;;
	deb)
		# As dh_auto_configure passes them (CMake reads no CPPFLAGS:
		# debhelper appends them to CFLAGS).
		flags() {
			DEB_BUILD_MAINT_OPTIONS=hardening=+all \
			DEB_CFLAGS_MAINT_APPEND=-Wall dpkg-buildflags --get "$1"
		}
		ld=$(flags LDFLAGS)
		args+=(-DCMAKE_BUILD_TYPE=None
			-DCMAKE_C_FLAGS="$(flags CFLAGS) $(flags CPPFLAGS)"
			-DCMAKE_EXE_LINKER_FLAGS="$ld"
			-DCMAKE_SHARED_LINKER_FLAGS="$ld"
			-DCMAKE_MODULE_LINKER_FLAGS="$ld") ;;
	*) echo "$0: unknown build type '$type' in '$c'" >&2; exit 2 ;;
	esac
	t0=$(date +%s)
	log=$out/$cc-$type.log
	if ! cmake "${args[@]}" > "$log" 2>&1; then
		verdict=FAIL
		why="configure failed"
	elif ! cmake --build "$dir" -j"$jobs" \
	    ${targets[@]:+--target "${targets[@]}"} >> "$log" 2>&1; then
		verdict=FAIL
		why="$(grep -c -E '(error|warning):' "$log") diagnostics"
	else
		verdict=PASS
		why=
	fi
	[ $verdict = PASS ] || failed+=("$c")
	printf '%-6s %-15s %s  %3ss  %s\n' "$cc" "$type" "$verdict" \
		"$(($(date +%s) - t0))" "$why"
done

if [ ${#failed[@]} -gt 0 ]; then
	for c in "${failed[@]}"; do
		log=$out/${c%%:*}-${c#*:}.log
		echo
		echo "== $c (all of it in $log):"
		if grep -q -E '(error|warning):' "$log"; then
			grep -E -A 3 '(error|warning):' "$log" | head -n 30
		else
			tail -n 20 "$log"
		fi
	done
	echo
	echo "${#failed[@]} of ${#combos[@]} builds failed"
	exit 1
fi
echo "all ${#combos[@]} builds passed"
