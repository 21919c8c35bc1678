/* SPDX-License-Identifier: ISC */
/* Sizes, durations, times and numbers as people type them: see parse.h. */
#define _POSIX_C_SOURCE 200809L	/* localtime_r */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "parse.h"

#define WHY_NUMBER	"not a number: digits only"
#define WHY_SIZE	"not a size: 512, 10k, 10M, 1G or 2T (whole numbers: " \
			"1536M, not 1.5G)"
#define WHY_DURATION	"not a duration: a number and its unit, s, m, h, d " \
			"or w (90s, 15m, 3h, 3d, 2w)"
#define WHY_NOUNIT	"a duration needs a unit: s, m, h, d or w (90s, " \
			"15m, 3h, 3d, 2w)"
#define WHY_TIME	"not a time: 3d, \"3 days ago\", 2026-11-30, " \
			"2026-11-30T12:00, yesterday, today or @SECONDS"
#define WHY_TIME_NOUNIT	"a time needs a unit (3d, \"3 days ago\") or a " \
			"date (2026-11-30)"
#define WHY_PERCENT	"not a percentage: 0% to 100%"
#define WHY_RANGE	"too large"

/* Leading decimal digits of @s into *@v: where they end, NULL on overflow. */
static const char *
parse_digits(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	for (; isdigit((unsigned char)*s); s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return NULL;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*v = n;
	return s;
}

static int
parse_fail(const char **why, const char *msg, int err)
{
	*why = msg;
	return err;
}

/* Digits only: counts, uids, milliseconds.  No sign, no unit, no blank. */
int
parse_uint(const char *s, uint64_t max, uint64_t *out, const char **why)
{
	const char *p;
	uint64_t v;

	if (!isdigit((unsigned char)s[0]))
		return parse_fail(why, WHY_NUMBER, -EINVAL);
	if ((p = parse_digits(s, &v)) == NULL || (*p == '\0' && v > max))
		return parse_fail(why, WHY_RANGE, -ERANGE);
	if (*p != '\0')
		return parse_fail(why, WHY_NUMBER, -EINVAL);
	*out = v;
	return 0;
}

int
parse_size(const char *s, uint64_t *out, const char **why)
{
	static const char units[] = "kKMGT";
	static const unsigned shift[] = { 10, 10, 20, 30, 40 };
	const char *p, *u;
	unsigned sh = 0;
	uint64_t v;

	if (!isdigit((unsigned char)s[0]))
		return parse_fail(why, WHY_SIZE, -EINVAL);
	if ((p = parse_digits(s, &v)) == NULL)
		return parse_fail(why, WHY_RANGE, -ERANGE);
	if (*p != '\0') {
		if ((u = strchr(units, *p)) == NULL || p[1] != '\0')
			return parse_fail(why, WHY_SIZE, -EINVAL);
		sh = shift[u - units];
	}
	/* trashctl and the index carry sizes as int64. */
	if (v > (uint64_t)INT64_MAX >> sh)
		return parse_fail(why, WHY_RANGE, -ERANGE);
	*out = v << sh;
	return 0;
}

/*
 * A quota or a rate: 0 would read as "nothing allowed" but has always
 * meant "no limit"; it is refused, and "unlimited" (or its older spelling
 * "none") says so.
 */
int
parse_size_limit(const char *s, uint64_t *out, const char **why)
{
	int r;

	if (strcmp(s, "unlimited") == 0 || strcmp(s, "none") == 0) {
		*out = 0;
		return 0;
	}
	if ((r = parse_size(s, out, why)) < 0)
		return r;
	if (*out == 0)
		return parse_fail(why, "0 is refused: say unlimited for no "
		    "limit", -EINVAL);
	return 0;
}

/*
 * A size whose unit is required: a threshold an admin sets in trashd.conf
 * (min-size, max-size), where a bare "100" could be read as bytes,
 * blocks or megabytes and is refused.
 */
int
parse_size_unit(const char *s, uint64_t *out, const char **why)
{
	if (s[0] != '\0' && s[strspn(s, "0123456789")] == '\0')
		return parse_fail(why, "a size needs its unit: K, M, G or T "
		    "(10K, 500M, 1G)", -EINVAL);
	return parse_size(s, out, why);
}

static const struct parse_unit {
	const char	*name;
	int64_t		 secs;
} parse_units[] = {
	{ "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 },
	{ "seconds", 1 },
	{ "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 },
	{ "minutes", 60 },
	{ "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
	{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
	{ "w", 604800 }, { "week", 604800 }, { "weeks", 604800 },
};

/*
 * NUMBER [spaces] UNIT, and with @ago a trailing [spaces] "ago": seconds.
 * -ENOMSG for a bare number, so that the callers can say what it lacks.
 */
static int
parse_rel(const char *s, bool ago, int64_t *out)
{
	const struct parse_unit *pu = NULL;
	const char *p, *u, *q;
	uint64_t v;
	size_t i, n;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	if ((p = parse_digits(s, &v)) == NULL)
		return -ERANGE;
	if (*p == '\0')
		return -ENOMSG;
	while (*p == ' ')
		p++;
	for (u = p; isalpha((unsigned char)*p); p++)
		;
	n = (size_t)(p - u);
	for (i = 0; i < sizeof(parse_units) / sizeof(parse_units[0]); i++)
		if (strlen(parse_units[i].name) == n &&
		    strncmp(parse_units[i].name, u, n) == 0)
			pu = &parse_units[i];
	if (pu == NULL)
		return -EINVAL;
	if (ago) {
		for (q = p; *q == ' '; q++)
			;
		if (q > p && strcmp(q, "ago") == 0)
			p = q + 3;
	}
	if (*p != '\0')
		return -EINVAL;
	if (v > (uint64_t)(PARSE_DURATION_MAX / pu->secs))
		return -ERANGE;
	*out = (int64_t)v * pu->secs;
	return 0;
}

int
parse_duration(const char *s, int64_t *out, const char **why)
{
	int r;

	if ((r = parse_rel(s, false, out)) == -ENOMSG)
		return parse_fail(why, WHY_NOUNIT, -EINVAL);
	if (r == -ERANGE)
		return parse_fail(why, WHY_RANGE, -ERANGE);
	if (r < 0)
		return parse_fail(why, WHY_DURATION, -EINVAL);
	return 0;
}

/*
 * A retention or a timeout: 0s would read as "at once" but has always
 * meant "never"; it is refused, and "forever" says so.
 */
int
parse_duration_limit(const char *s, int64_t *out, const char **why)
{
	const char *w;
	uint64_t zero;
	int r;

	if (strcmp(s, "forever") == 0) {
		*out = 0;
		return 0;
	}
	/* A bare 0 (the old spelling) is told of forever, not of units. */
	if (((r = parse_duration(s, out, why)) == 0 && *out == 0) ||
	    parse_uint(s, 0, &zero, &w) == 0)
		return parse_fail(why, "0 is refused: say forever for no "
		    "limit", -EINVAL);
	return r;
}

int
parse_percent(const char *s, unsigned *out, const char **why)
{
	const char *p;
	uint64_t v;

	if (!isdigit((unsigned char)s[0]) ||
	    (p = parse_digits(s, &v)) == NULL || strcmp(p, "%") != 0 ||
	    v > 100)
		return parse_fail(why, WHY_PERCENT, -EINVAL);
	*out = (unsigned)v;
	return 0;
}

/* Exactly @n digits at @s. */
static bool
parse_fixed(const char *s, int n, int *out)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

/* YYYY-MM-DD[(T| )HH:MM[:SS]], local time; a day that is not is refused. */
static int
parse_date(const char *s, int64_t *out)
{
	struct tm tm;
	int y, mo, d, h = 0, mi = 0, sec = 0;
	time_t t;

	if (!parse_fixed(s, 4, &y) || s[4] != '-' ||
	    !parse_fixed(s + 5, 2, &mo) || s[7] != '-' ||
	    !parse_fixed(s + 8, 2, &d))
		return -EINVAL;
	s += 10;
	if (*s == 'T' || *s == ' ') {
		if (!parse_fixed(s + 1, 2, &h) || s[3] != ':' ||
		    !parse_fixed(s + 4, 2, &mi))
			return -EINVAL;
		s += 6;
		if (*s == ':') {
			if (!parse_fixed(s + 1, 2, &sec))
				return -EINVAL;
			s += 3;
		}
	}
	if (*s != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return -EINVAL;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	/* mktime() makes February 30 March 2: not what was typed. */
	if (tm.tm_mday != d || tm.tm_mon != mo - 1)
		return -EINVAL;
	if (t < 0 || (int64_t)t > PARSE_DURATION_MAX)
		return -ERANGE;
	*out = (int64_t)t;
	return 0;
}

/* Local midnight @days before the day of @now. */
static int
parse_midnight(int64_t now, int days, int64_t *out)
{
	time_t t = (time_t)now;
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return -EINVAL;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t)-1)
		return -EINVAL;
	*out = (int64_t)t;
	return 0;
}

/* A point in time, seconds since the Epoch; @now is the present. */
int
parse_time(const char *s, int64_t now, int64_t *out, const char **why)
{
	uint64_t v;
	int64_t d;
	int r;

	if (strcmp(s, "now") == 0) {
		*out = now;
		return 0;
	}
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		if (parse_midnight(now, s[0] == 'y', out) < 0)
			return parse_fail(why, WHY_TIME, -EINVAL);
		return 0;
	}
	if (s[0] == '@') {
		if (parse_uint(s + 1, PARSE_DURATION_MAX, &v, why) < 0)
			return parse_fail(why, WHY_TIME, -EINVAL);
		*out = (int64_t)v;
		return 0;
	}
	if (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
	    isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) &&
	    s[4] == '-') {
		if ((r = parse_date(s, out)) == -ERANGE)
			return parse_fail(why, WHY_RANGE, r);
		if (r < 0)
			return parse_fail(why, WHY_TIME, r);
		return 0;
	}
	if ((r = parse_rel(s, true, &d)) == -ENOMSG)
		return parse_fail(why, WHY_TIME_NOUNIT, -EINVAL);
	if (r == -ERANGE)
		return parse_fail(why, WHY_RANGE, -ERANGE);
	if (r < 0)
		return parse_fail(why, WHY_TIME, -EINVAL);
	/* Nothing is older than the Epoch. */
	*out = now > d ? now - d : 0;
	return 0;
}

void
parse_fmt_duration(char *buf, size_t len, int64_t secs)
{
	static const struct { char c; int64_t secs; } u[] = {
		{ 'w', 604800 }, { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 },
	};
	size_t i;

	for (i = 0; secs > 0 && i < sizeof(u) / sizeof(u[0]); i++) {
		if (secs % u[i].secs == 0) {
			snprintf(buf, len, "%" PRId64 "%c", secs / u[i].secs,
			    u[i].c);
			return;
		}
	}
	snprintf(buf, len, "%" PRId64 "s", secs < 0 ? 0 : secs);
}

void
parse_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "TGMK";
	static const unsigned shift[] = { 40, 30, 20, 10 };
	size_t i;

	for (i = 0; bytes > 0 && i < sizeof(shift) / sizeof(shift[0]); i++) {
		if ((bytes & ((1ULL << shift[i]) - 1)) == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes >> shift[i],
			    units[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
}
