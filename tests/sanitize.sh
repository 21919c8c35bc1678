#!/bin/sh
# The host tests again, built with ASan and UBSan (CMAKE_BUILD_TYPE
# Sanitize: any report aborts the program, so the test fails).
#   tests/sanitize.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Sanitize > /dev/null
cmake --build "$build" -j"$(nproc)" > /dev/null
exec ctest --test-dir "$build" -L host --output-on-failure
