/* SPDX-License-Identifier: ISC */
/*
 * common/parse.c: the one parser of sizes, durations, times and numbers,
 * as a table of what is accepted (and its value) and what is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "parse.h"

#define OK(s, v)	{ s, 0, v }
#define BAD(s)		{ s, -EINVAL, 0 }
#define BIG(s)		{ s, -ERANGE, 0 }

struct row {
	const char	*in;
	int		 r;
	int64_t		 v;
};

/* 2026-12-04 15:00:00 UTC, a Friday. */
#define NOW	((int64_t)1796396400)

static void
check_why(const char *in, int r, const char *why)
{
	if (r == 0)
		return;
	if (why == NULL || why[0] == '\0')
		fail_msg("\"%s\": refused without a reason", in);
}

static void
test_size(void **state)
{
	static const struct row rows[] = {
		OK("0", 0), OK("512", 512), OK("10k", 10240),
		OK("10K", 10240), OK("10M", 10485760),
		OK("1G", 1073741824), OK("2T", 2LL << 40),
		OK("9223372036854775807", INT64_MAX),
		OK("8388607T", 8388607LL << 40),
		BAD(""), BAD("k"), BAD("-1"), BAD("+1"), BAD(" 1"),
		BAD("1 "), BAD("1 G"), BAD("1.5G"), BAD("1GG"), BAD("1X"),
		BAD("1g"), BAD("1m"), BAD("1KB"), BAD("0x10"), BAD("none"),
		BAD("unlimited"), BAD("1\n"),
		BIG("9223372036854775808"), BIG("8388608T"),
		BIG("99999999999999999999"), BIG("18446744073709551616k"),
	};
	const char *why;
	uint64_t v;
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		why = NULL;
		v = 12345;
		r = parse_size(rows[i].in, &v, &why);
		if (r != rows[i].r)
			fail_msg("size \"%s\": %d, not %d", rows[i].in, r,
			    rows[i].r);
		if (r == 0 && v != (uint64_t)rows[i].v)
			fail_msg("size \"%s\": %llu", rows[i].in,
			    (unsigned long long)v);
		check_why(rows[i].in, r, why);
	}
}

static void
test_size_limit(void **state)
{
	const char *why = NULL;
	uint64_t v = 1;

	(void)state;
	assert_int_equal(parse_size_limit("unlimited", &v, &why), 0);
	assert_int_equal(v, 0);
	v = 1;
	assert_int_equal(parse_size_limit("none", &v, &why), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_size_limit("1M", &v, &why), 0);
	assert_int_equal(v, 1048576);
	/* 0 is not a silent "no limit": refused, the word named. */
	assert_int_equal(parse_size_limit("0", &v, &why), -EINVAL);
	assert_non_null(strstr(why, "unlimited"));
	assert_int_equal(parse_size_limit("0M", &v, &why), -EINVAL);
	assert_int_equal(parse_size_limit("Unlimited", &v, &why), -EINVAL);
	assert_int_equal(parse_size_limit("forever", &v, &why), -EINVAL);
}

/* A threshold of trashd.conf (min-size, max-size): the unit required. */
static void
test_size_unit(void **state)
{
	const char *why = NULL;
	uint64_t v = 1;

	(void)state;
	assert_int_equal(parse_size_unit("4K", &v, &why), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size_unit("0M", &v, &why), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_size_unit("100", &v, &why), -EINVAL);
	assert_non_null(strstr(why, "needs its unit"));
	assert_int_equal(parse_size_unit("0", &v, &why), -EINVAL);
	assert_int_equal(parse_size_unit("", &v, &why), -EINVAL);
	assert_int_equal(parse_size_unit("1.5G", &v, &why), -EINVAL);
	assert_int_equal(parse_size_unit("K", &v, &why), -EINVAL);
}

static void
test_duration(void **state)
{
	static const struct row rows[] = {
		OK("0s", 0), OK("90s", 90), OK("15m", 900), OK("3h", 10800),
		OK("3d", 259200), OK("2w", 1209600), OK("90d", 7776000),
		OK("3 days", 259200), OK("3days", 259200),
		OK("1 day", 86400), OK("1 week", 604800),
		OK("5 minutes", 300), OK("10 sec", 10),
		OK("9223372036s", PARSE_DURATION_MAX),
		BAD(""), BAD("3"), BAD("0"), BAD("90"), BAD("d"), BAD("-3d"),
		BAD("+3d"), BAD(" 3d"), BAD("3d "), BAD("3\td"), BAD("3y"),
		BAD("3D"), BAD("3dd"), BAD("3d4h"), BAD("1.5h"),
		BAD("3d ago"), BAD("forever"), BAD("3 days ago"),
		BIG("9223372037s"), BIG("15250285w"),
		BIG("99999999999999999999999d"),
	};
	const char *why;
	int64_t v;
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		why = NULL;
		v = 12345;
		r = parse_duration(rows[i].in, &v, &why);
		if (r != rows[i].r)
			fail_msg("duration \"%s\": %d, not %d", rows[i].in, r,
			    rows[i].r);
		if (r == 0 && v != rows[i].v)
			fail_msg("duration \"%s\": %lld", rows[i].in,
			    (long long)v);
		check_why(rows[i].in, r, why);
	}
	/* A bare number says that the unit is missing. */
	assert_int_equal(parse_duration("3", &v, &why), -EINVAL);
	assert_non_null(strstr(why, "unit"));
}

static void
test_duration_limit(void **state)
{
	const char *why = NULL;
	int64_t v = 1;

	(void)state;
	assert_int_equal(parse_duration_limit("forever", &v, &why), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_duration_limit("30d", &v, &why), 0);
	assert_int_equal(v, 2592000);
	assert_int_equal(parse_duration_limit("0s", &v, &why), -EINVAL);
	assert_non_null(strstr(why, "forever"));
	assert_int_equal(parse_duration_limit("0d", &v, &why), -EINVAL);
	assert_int_equal(parse_duration_limit("0", &v, &why), -EINVAL);
	assert_non_null(strstr(why, "forever"));
	assert_int_equal(parse_duration_limit("30", &v, &why), -EINVAL);
	assert_non_null(strstr(why, "unit"));
	assert_int_equal(parse_duration_limit("unlimited", &v, &why),
	    -EINVAL);
}

static void
test_time(void **state)
{
	static const struct row rows[] = {
		OK("now", NOW), OK("3d", NOW - 259200),
		OK("3 days ago", NOW - 259200), OK("3d ago", NOW - 259200),
		OK("90s", NOW - 90), OK("2 weeks ago", NOW - 1209600),
		OK("1 hour ago", NOW - 3600),
		OK("today", 1796342400), OK("yesterday", 1796256000),
		OK("2026-11-30", 1795996800),
		OK("2026-11-30T12:00", 1796040000),
		OK("2026-11-30 12:00", 1796040000),
		OK("2026-11-30T12:00:30", 1796040030),
		OK("2024-02-29", 1709164800),
		OK("@1700000005", 1700000005), OK("@0", 0),
		/* Before the Epoch is the Epoch: nothing is older. */
		OK("5000w ago", 0),
		BAD(""), BAD("3"), BAD("0"), BAD("3 days"), BAD("days"),
		BAD("3 ago"), BAD("ago"), BAD("3dago"), BAD("3d  ago x"),
		BAD("-3d"), BAD(" 3d"), BAD("3d "), BAD("Today"),
		BAD("2026-11-31"), BAD("2025-02-29"), BAD("2026-13-01"),
		BAD("2026-11-30T24:00"), BAD("2026-11-30T12"),
		BAD("2026-11-30T12:00:"), BAD("2026-11-30x"), BAD("2026-1-3"),
		BAD("26-11-30"), BAD("2026"), BAD("2026-"),
		BAD("@"), BAD("@-1"), BAD("@1x"),
		BIG("99999999999999999999999d"),
	};
	const char *why;
	int64_t v;
	size_t i;
	int r;

	(void)state;
	/* "3 days" is a duration, but as a time it is fine as well. */
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (strcmp(rows[i].in, "3 days") == 0)
			continue;
		why = NULL;
		v = 12345;
		r = parse_time(rows[i].in, NOW, &v, &why);
		if (r != rows[i].r)
			fail_msg("time \"%s\": %d, not %d", rows[i].in, r,
			    rows[i].r);
		if (r == 0 && v != rows[i].v)
			fail_msg("time \"%s\": %lld, not %lld", rows[i].in,
			    (long long)v, (long long)rows[i].v);
		check_why(rows[i].in, r, why);
	}
	assert_int_equal(parse_time("3 days", NOW, &v, &why), 0);
	assert_int_equal(v, NOW - 259200);
	/* "list -o 3 days": the 3 alone is refused, the unit named. */
	assert_int_equal(parse_time("3", NOW, &v, &why), -EINVAL);
	assert_non_null(strstr(why, "unit"));
}

static void
test_uint_percent(void **state)
{
	const char *why = NULL;
	uint64_t v;
	unsigned p;

	(void)state;
	assert_int_equal(parse_uint("500", 60000, &v, &why), 0);
	assert_int_equal(v, 500);
	assert_int_equal(parse_uint("60000", 60000, &v, &why), 0);
	assert_int_equal(parse_uint("60001", 60000, &v, &why), -ERANGE);
	assert_int_equal(parse_uint("18446744073709551616", UINT64_MAX, &v,
	    &why), -ERANGE);
	assert_int_equal(parse_uint("18446744073709551615", UINT64_MAX, &v,
	    &why), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_uint("", 10, &v, &why), -EINVAL);
	assert_int_equal(parse_uint("1k", 10000, &v, &why), -EINVAL);
	assert_int_equal(parse_uint("-1", 10, &v, &why), -EINVAL);
	assert_int_equal(parse_uint(" 1", 10, &v, &why), -EINVAL);
	assert_int_equal(parse_uint("1 ", 10, &v, &why), -EINVAL);
	assert_int_equal(parse_percent("10%", &p, &why), 0);
	assert_int_equal(p, 10);
	assert_int_equal(parse_percent("0%", &p, &why), 0);
	assert_int_equal(parse_percent("100%", &p, &why), 0);
	assert_int_equal(parse_percent("101%", &p, &why), -EINVAL);
	assert_int_equal(parse_percent("10", &p, &why), -EINVAL);
	assert_int_equal(parse_percent("%", &p, &why), -EINVAL);
	assert_int_equal(parse_percent("-1%", &p, &why), -EINVAL);
	assert_int_equal(parse_percent("10%%", &p, &why), -EINVAL);
	assert_int_equal(parse_percent("99999999999999999999%", &p, &why),
	    -EINVAL);
}

/* What is echoed back is what was typed: the largest exact unit. */
static void
test_format(void **state)
{
	static const struct {
		const char	*in;
		const char	*out;
	} d[] = {
		{ "90d", "90d" }, { "2w", "2w" }, { "14d", "2w" },
		{ "90s", "90s" }, { "120s", "2m" }, { "36h", "36h" },
		{ "400w", "400w" }, { "0s", "0s" }, { "61s", "61s" },
	}, z[] = {
		{ "512", "512" }, { "10k", "10K" }, { "1024k", "1M" },
		{ "1536M", "1536M" }, { "2T", "2T" }, { "1000", "1000" },
		{ "0", "0" },
	};
	const char *why;
	char buf[32];
	uint64_t u;
	int64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		assert_int_equal(parse_duration(d[i].in, &v, &why), 0);
		parse_fmt_duration(buf, sizeof(buf), v);
		assert_string_equal(buf, d[i].out);
	}
	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		assert_int_equal(parse_size(z[i].in, &u, &why), 0);
		parse_fmt_size(buf, sizeof(buf), u);
		assert_string_equal(buf, z[i].out);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_size_unit),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_duration_limit),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_uint_percent),
		cmocka_unit_test(test_format),
	};

	/* Dates and midnights are local time: make it one. */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
