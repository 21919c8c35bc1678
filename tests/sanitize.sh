#!/bin/sh
# The host tests again, built with ASan and UBSan (CMAKE_BUILD_TYPE
# Sanitize: any report aborts the program, so the test fails).
#   tests/sanitize.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Sanitize > /dev/null
cmake --build "$build" -j"$(nproc)" > /dev/null
# Not the tests labelled "once" (builds of their own, the series):
# nothing in them is compiled with the sanitizers.
exec ctest --test-dir "$build" -L host -LE once --output-on-failure
