/* SPDX-License-Identifier: ISC */
/* config.c: values, units, and FILE:LINE for every kind of bad line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

static char conf_path[PATH_MAX];

static int
setup(void **state)
{
	struct tl *t = xcalloc(1, sizeof(*t));

	tl_setup(t);
	snprintf(conf_path, sizeof(conf_path), "%s/trashd.conf", t->root);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	tl_teardown(*state);
	free(*state);
	return 0;
}

static struct config *
load(const char *text, char *err, size_t len)
{
	tl_write_file(conf_path, text, strlen(text));
	err[0] = '\0';
	return config_load(conf_path, err, len);
}

static void
test_good(void **state)
{
	char err[512];
	struct config *c;

	(void)state;
	c = load("# comment\n"
	    "\n"
	    "database /var/lib/x.db   # trailing comment\n"
	    "filesystem /home\n"
	    "filesystem /srv watermark 5%\n"
	    "create-trash yes\n"
	    "quota 1G\n"
	    "retention 30d\n"
	    "watermark 15%\n"
	    "grace 90s\n"
	    "min-age 2m\n"
	    "\twipe-passes 3\n"
	    "wipe-zero-pass yes\n"
	    "wipe-verify yes\n"
	    "wipe-discard no\n"
	    "wipe-rate 500M\n"
	    "audit-retention 12h\n"
	    "policy-interval 1m\n", err, sizeof(err));
	if (c == NULL)
		fail_msg("%s", err);
	assert_string_equal(c->database, "/var/lib/x.db");
	assert_int_equal(c->nfs, 2);
	assert_string_equal(c->fs[0].path, "/home");
	assert_int_equal(c->fs[0].watermark, -1);
	assert_string_equal(c->fs[1].path, "/srv");
	assert_int_equal(c->fs[1].watermark, 5);
	assert_true(c->create_trash);
	assert_int_equal(c->quota, 1ULL << 30);
	assert_int_equal(c->retention, 30 * 86400);
	assert_int_equal(c->watermark, 15);
	assert_int_equal(c->grace, 90);
	assert_int_equal(c->min_age, 120);
	assert_int_equal(c->wipe_passes, 3);
	assert_true(c->wipe_zero);
	assert_true(c->wipe_verify);
	assert_false(c->wipe_discard);
	assert_int_equal(c->wipe_rate, 500ULL << 20);
	assert_int_equal(c->audit_retention, 12 * 3600);
	assert_int_equal(c->interval, 60);
	config_free(c);
}

static void
test_defaults(void **state)
{
	char err[512];
	struct config *c;

	(void)state;
	c = load("", err, sizeof(err));
	assert_non_null(c);
	assert_string_equal(c->database, TRASHD_DB);
	assert_int_equal(c->nfs, 0);
	assert_int_equal(c->wipe_passes, 1);
	assert_false(c->wipe_zero);
	assert_int_equal(c->grace, 0);
	assert_int_equal(c->min_age, 0);	/* off */
	config_free(c);
}

static void
test_units(void **state)
{
	uint64_t u;
	int64_t s;
	unsigned p;

	(void)state;
	assert_int_equal(config_parse_size("1G", &u), 0);
	assert_int_equal(u, 1073741824ULL);
	assert_int_equal(config_parse_size("500M", &u), 0);
	assert_int_equal(u, 500ULL * 1048576);
	assert_int_equal(config_parse_size("4k", &u), 0);
	assert_int_equal(u, 4096);
	assert_int_equal(config_parse_size("123", &u), 0);
	assert_int_equal(u, 123);
	assert_int_equal(config_parse_size("none", &u), 0);
	assert_int_equal(u, 0);
	assert_true(config_parse_size("1X", &u) < 0);
	assert_true(config_parse_size("", &u) < 0);
	assert_true(config_parse_size("-1", &u) < 0);
	assert_true(config_parse_size("1GG", &u) < 0);
	assert_true(config_parse_size("99999999999999999999", &u) < 0);
	assert_true(config_parse_size("16777216T", &u) < 0);
	assert_int_equal(config_parse_duration("30d", &s), 0);
	assert_int_equal(s, 2592000);
	assert_int_equal(config_parse_duration("12h", &s), 0);
	assert_int_equal(s, 43200);
	assert_int_equal(config_parse_duration("90s", &s), 0);
	assert_int_equal(s, 90);
	assert_int_equal(config_parse_duration("2w", &s), 0);
	assert_int_equal(s, 1209600);
	assert_int_equal(config_parse_duration("forever", &s), 0);
	assert_int_equal(s, 0);
	assert_true(config_parse_duration("10y", &s) < 0);
	assert_true(config_parse_duration("d", &s) < 0);
	assert_true(config_parse_duration("99999999999d", &s) < 0);
	assert_int_equal(config_parse_percent("10%", &p), 0);
	assert_int_equal(p, 10);
	assert_int_equal(config_parse_percent("100%", &p), 0);
	assert_true(config_parse_percent("101%", &p) < 0);
	assert_true(config_parse_percent("10", &p) < 0);
	assert_true(config_parse_percent("%", &p) < 0);
}

/* Each bad config must name the file and the line that is wrong. */
static void
test_bad_lines(void **state)
{
	static const struct {
		const char	*text;
		unsigned	 line;
		const char	*what;
	} cases[] = {
		{ "quota 1G\n\nfrobnicate yes\n", 3, "unknown key \"frobnicate\"" },
		{ "# x\nquota lots\n", 2, "quota: \"lots\" is not a size" },
		{ "retention 30x\n", 1, "retention: \"30x\" is not a duration" },
		{ "retention\n", 1, "retention: expected one value" },
		{ "watermark 10\n", 1, "watermark: \"10\" is not a percentage" },
		{ "watermark 120%\n", 1, "is not a percentage" },
		{ "create-trash maybe\n", 1, "yes or no" },
		{ "wipe-passes 0\n", 1, "wipe-passes" },
		{ "wipe-passes 99\n", 1, "wipe-passes" },
		{ "grace 1h\ngrace 2h\n", 2, "grace: set twice" },
		{ "filesystem home\n", 1, "not an absolute path" },
		{ "filesystem /a\nfilesystem /a\n", 2, "listed twice" },
		{ "filesystem /a watermark x\n", 1, "watermark: \"x\"" },
		{ "filesystem /a colour 5%\n", 1, "unknown option" },
		{ "database relative.db\n", 1, "absolute path" },
		{ "quota 1G 2G\n", 1, "expected one value" },
		{ "a b c d e f g\n", 1, "too many words" },
	};
	char err[512], want[PATH_MAX + 32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config *c = load(cases[i].text, err, sizeof(err));

		if (c != NULL)
			fail_msg("case %zu accepted", i);
		snprintf(want, sizeof(want), "%s:%u: ", conf_path,
		    cases[i].line);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    strstr(err, cases[i].what) == NULL)
			fail_msg("case %zu: got \"%s\", want \"%s...%s\"", i,
			    err, want, cases[i].what);
	}
}

static void
test_long_line(void **state)
{
	char err[512], *text, want[PATH_MAX + 8];
	size_t n = 5000;

	(void)state;
	text = xmalloc(n + 16);
	memcpy(text, "quota 1G\n# ", 11);
	memset(text + 11, 'x', n);
	strcpy(text + 11 + n, "\n");
	assert_null(load(text, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:2: ", conf_path);
	assert_non_null(strstr(err, want));
	free(text);
}

static void
test_missing_file(void **state)
{
	char err[512];

	(void)state;
	assert_null(config_load("/nonexistent/trashd.conf", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/trashd.conf"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_missing_file),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
