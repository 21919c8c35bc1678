#!/bin/bash
# The whole test suite, from a fresh Debian 12 machine: installs what is
# missing, builds the patched kernel (cached in $TRASHBIN_CACHE, default
# /var/cache/trashbin), builds the user space, then runs every test
# through ctest: host tests first, then the quick guest suites.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash tests/deps.sh
TRASHBIN_BZIMAGE=$(kernel/build.sh)
export TRASHBIN_BZIMAGE
build=${TRASHBIN_BUILD:-$top/build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -LE vanilla "$@"
