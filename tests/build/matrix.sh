#!/bin/bash
# The builds the project documents or uses, each with -Werror, in build
# trees of their own under BUILD_DIR (kept: a second run is incremental).
# One line per build, PASS or FAIL (a failure with its count of
# diagnostics and the files that failed to build); a failed build's
# first errors after the table, a failed link's undefined symbols.
# Fails if any build fails; exit 2 for an unknown compiler or type, 1
# for one that is not installed.
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

# The compilers and types first: a missing one is a setup error, said
# plainly (without dpkg-buildflags a deb build would quietly be one with
# no flags, and pass).
for c in "${combos[@]}"; do
	cc=${c%%:*}
	type=${c#*:}
	case $cc in
	gcc | clang) ;;
	*) echo "$0: unknown compiler '$cc' in '$c' (gcc or clang)" >&2
	   exit 2 ;;
	esac
	case $type in
	default | Debug | Release | RelWithDebInfo | MinSizeRel | Sanitize) ;;
	deb)
		if ! command -v dpkg-buildflags > /dev/null; then
			echo "$0: no dpkg-buildflags for '$c': install" \
				"Debian's 'dpkg-dev' package (tests/deps.sh" \
				"does)" >&2
			exit 1
		fi ;;
	*) echo "$0: unknown build type '$type' in '$c'" >&2; exit 2 ;;
	esac
	if ! command -v "$cc" > /dev/null; then
		echo "$0: no $cc: install Debian's '$cc' package" \
			"(tests/deps.sh does)" >&2
		exit 1
	fi
done

# What a failed build's log is searched for: the compiler's diagnostics,
# the linker's (ld's undefined references have no "error:"), CMake's.
diag='(error|warning):|undefined reference to|multiple definition of|CMake Error'

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
		cflags="$(flags CFLAGS) $(flags CPPFLAGS)"
		args+=(-DCMAKE_BUILD_TYPE=None
			-DCMAKE_C_FLAGS="$cflags"
			-DCMAKE_EXE_LINKER_FLAGS="$ld"
			-DCMAKE_SHARED_LINKER_FLAGS="$ld"
			-DCMAKE_MODULE_LINKER_FLAGS="$ld") ;;
	esac
	t0=$(date +%s)
	log=$out/$cc-$type.log
	if ! cmake "${args[@]}" > "$log" 2>&1; then
		verdict=FAIL
		why="configure failed"
	elif ! cmake --build "$dir" -j"$jobs" \
	    ${targets[@]:+--target "${targets[@]}"} >> "$log" 2>&1; then
		verdict=FAIL
		# How many diagnostics, and the files whose rule failed
		# (make's build.make lines, ninja's FAILED:).
		why="$(grep -c -E "$diag" "$log") diagnostics; failed: $(
		    sed -n -E -e 's/.*build\.make:[0-9]+: ([^]]*)\] Error.*/\1/p' \
			-e 's/^FAILED: (.*)/\1/p' "$log" | sort -u |
		    tr '\n' ' ')"
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
		# A link's hundreds of lines, as the symbols it missed (after
		# a few of them).
		undef=$(grep -o -E "undefined reference to \`[^']*'" "$log" |
			sed -E "s/.*\`(.*)'/\\1/" | sort -u)
		if grep -q -E "$diag" "$log"; then
			grep -E -A 3 "$diag" "$log" |
				head -n "$([ -n "$undef" ] && echo 8 || echo 30)"
		else
			tail -n 20 "$log"
		fi
		if [ -n "$undef" ]; then
			n=$(echo "$undef" | wc -l)
			echo "-- undefined: $n symbols:" \
				"$(echo "$undef" | head -n 12 | tr '\n' ' ')" \
				"$([ "$n" -gt 12 ] && echo ...)"
		fi
	done
	echo
	echo "${#failed[@]} of ${#combos[@]} builds failed"
	exit 1
fi
echo "all ${#combos[@]} builds passed"
