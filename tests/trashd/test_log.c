/* SPDX-License-Identifier: ISC */
/*
 * log.c: a line longer than a log line is cut visibly ("..." at its end),
 * never inside a character, and log_warn's ": strerror" survives the cut;
 * the same once escaped, where a name of control bytes grows 4 times.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

/* log.c's LOG_LINE_MAX: the longest line, its NUL included. */
#define LINE_MAX_	8192

static char got[2 * LINE_MAX_];

static void
sink(int pri, const char *line)
{
	(void)pri;
	TL_SNPRINTF(got, sizeof(got), "%s", line);
}

static bool
ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && strcmp(s + n - m, end) == 0;
}

static void
test_short_whole(void **state)
{
	(void)state;
	log_sink(sink);
	log_warnx("a short line %d", 42);
	assert_string_equal(got, "a short line 42");
	errno = ENOENT;
	log_warn("open %s", "/x");
	assert_string_equal(got, "open /x: No such file or directory");
	log_sink(NULL);
}

static void
test_long_cut(void **state)
{
	static char big[3 * LINE_MAX_];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	log_sink(sink);
	log_warnx("%s", big);
	assert_int_equal(strlen(got), LINE_MAX_ - 1);
	assert_true(ends_with(got, "aaa..."));

	/* The error is kept whole, the line cut before it. */
	errno = EACCES;
	log_warn("%s", big);
	assert_int_equal(strlen(got), LINE_MAX_ - 1);
	assert_true(ends_with(got, "aaa...: Permission denied"));

	/* A line that just fits is not cut. */
	big[LINE_MAX_ - 1] = '\0';
	log_warnx("%s", big);
	assert_int_equal(strlen(got), LINE_MAX_ - 1);
	assert_true(ends_with(got, "aaaaaa"));
	log_sink(NULL);
}

/* The cut backs off to the start of a character: no half of a "é". */
static void
test_cut_utf8(void **state)
{
	static char big[2 * LINE_MAX_];
	size_t i;

	(void)state;
	for (i = 0; i + 2 < sizeof(big); i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[i] = '\0';
	log_sink(sink);
	log_warnx("x%s", big);	/* odd: a cut at LINE_MAX_ - 4 splits one */
	assert_true(ends_with(got, "\xc3\xa9..."));
	assert_true(strlen(got) < LINE_MAX_);
	log_sink(NULL);
}

/* What stderr shows: escaped, 4 bytes a control byte, cut with "...". */
static void
test_escaped_cut(void **state)
{
	static char big[LINE_MAX_];
	char out[4 * LINE_MAX_];
	FILE *f;
	int saved;
	size_t n;

	(void)state;
	memset(big, '\x01', 4000);
	big[4000] = '\0';
	f = tmpfile();
	assert_non_null(f);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	errno = EIO;
	log_warn("%s", big);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	fclose(f);
	out[n] = '\0';
	assert_true(n < LINE_MAX_ + 1);
	/* Whole escapes only, the mark, and the error whole. */
	assert_true(ends_with(out, "\\x01...: Input/output error\n"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_whole),
		cmocka_unit_test(test_long_cut),
		cmocka_unit_test(test_cut_utf8),
		cmocka_unit_test(test_escaped_cut),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
