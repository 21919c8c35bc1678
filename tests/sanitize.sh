#!/bin/sh
# The host tests again, built with ASan and UBSan (CMAKE_BUILD_TYPE
# Sanitize: any report aborts the program, so the test fails).
#   tests/sanitize.sh BUILD_DIR
# With clang (CC=clang on a new BUILD_DIR): programs and pam_trash.so
# need clang's shared ASan runtime, found through their RUNPATH (the
# top-level CMakeLists.txt).  A program that is not built with ASan and
# loads the module (pamtester, a real login) needs the runtime first:
#   LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
# (gcc's: $(gcc -print-file-name=libasan.so)).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Sanitize > /dev/null
cmake --build "$build" -j"$(nproc)" > /dev/null
# Not the tests labelled "once" (builds of their own, the series):
# nothing in them is compiled with the sanitizers.
exec ctest --test-dir "$build" -L host -LE once --output-on-failure
