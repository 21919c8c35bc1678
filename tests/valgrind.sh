#!/bin/sh
# valgrind memcheck, one set of options for every test that uses it:
#   tests/valgrind.sh PROGRAM ARGS...   run PROGRAM under memcheck
#   TB_VALGRIND_EXE=PROGRAM tests/valgrind.sh ARGS...
#                                       the same, for a test that starts
#                                       the program itself (trashd)
# Any memory error or definite leak makes the program exit 99; a test
# checks that exit status.  Forked children (restores, the wipe worker)
# are checked too: their reports go to the same log.
if [ -n "${TB_VALGRIND_EXE:-}" ]; then
	set -- "$TB_VALGRIND_EXE" "$@"
fi
exec valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite --show-leak-kinds=definite \
	--child-silent-after-fork=no "$@"
