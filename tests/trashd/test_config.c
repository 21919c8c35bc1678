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
	TL_SNPRINTF(conf_path, sizeof(conf_path), "%s/trashd.conf", t->root);
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

/*
 * The words for "no limit" (common/parse.c has the table of sizes and
 * durations): unlimited (or none) and forever, stored as 0.
 */
static void
test_units(void **state)
{
	struct config *c;
	char err[512];

	(void)state;
	c = load("quota unlimited\nretention forever\nwipe-rate 8M\n"
	    "audit-retention forever\nclient-timeout forever\n"
	    "restore-timeout 2m\ngrace 0s\nmin-age 0s\n", err, sizeof(err));
	if (c == NULL)
		fail_msg("%s", err);
	assert_int_equal(c->quota, 0);
	assert_int_equal(c->retention, 0);
	assert_int_equal(c->wipe_rate, 8 << 20);
	assert_int_equal(c->audit_retention, 0);
	assert_int_equal(c->client_timeout, 0);
	assert_int_equal(c->restore_timeout, 120);
	assert_int_equal(c->grace, 0);
	assert_int_equal(c->rescan_interval, 3600);	/* the default */
	config_free(c);
	c = load("quota none\nwipe-rate unlimited\n"
	    "rescan-interval forever\n", err, sizeof(err));
	if (c == NULL)
		fail_msg("%s", err);
	assert_int_equal(c->quota, 0);
	assert_int_equal(c->wipe_rate, 0);
	assert_int_equal(c->rescan_interval, 0);
	config_free(c);
	c = load("rescan-interval 30m\n", err, sizeof(err));
	if (c == NULL)
		fail_msg("%s", err);
	assert_int_equal(c->rescan_interval, 1800);
	config_free(c);
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
		{ "# x\nquota lots\n", 2, "quota: \"lots\": not a size" },
		{ "retention 30x\n", 1, "retention: \"30x\": not a duration" },
		{ "retention\n", 1, "retention: expected one value" },
		{ "watermark 10\n", 1, "watermark: \"10\": not a percentage" },
		{ "watermark 120%\n", 1, "not a percentage" },
		/* No silent meaning for 0 or for a bare number (issue 13). */
		{ "retention 0\n", 1, "retention: \"0\": 0 is refused: say "
		    "forever" },
		{ "retention 0s\n", 1, "say forever" },
		{ "audit-retention 0d\n", 1, "say forever" },
		{ "quota 0\n", 1, "quota: \"0\": 0 is refused: say unlimited" },
		{ "wipe-rate 0\n", 1, "say unlimited" },
		{ "client-timeout 30\n", 1, "a duration needs a unit" },
		{ "grace 3600\n", 1, "a duration needs a unit" },
		{ "grace forever\n", 1, "not a duration" },
		{ "policy-interval 0s\n", 1, "above 0s" },
		{ "quota 1.5G\n", 1, "not a size" },
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
		TL_SNPRINTF(want, sizeof(want), "%s:%u: ", conf_path,
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
	TL_SNPRINTF(want, sizeof(want), "%s:2: ", conf_path);
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
