/* SPDX-License-Identifier: ISC */
/*
 * Formatting for people and for JSON, parsing of counts, times and names
 * (sizes and durations: common/parse.c).
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trashctl.h"
#include "vis.h"

#define NSEC_PER_SEC	((int64_t)1000000000)

int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* "512B", "1.2K", "34M", "1.0G": three significant figures at most. */
void
fmt_size(char *buf, size_t len, int64_t bytes)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 0) {
		snprintf(buf, len, "-");
		return;
	}
	while (v >= 1024 && u < sizeof(units) - 2) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRId64 "B", bytes);
	else if (v < 10)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

/* "42s", "5m", "3h", "12d", "8w": the largest unit that fits. */
void
fmt_duration(char *buf, size_t len, int64_t s)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, len, "%" PRId64 "s", s);
	else if (s < 2 * 3600)
		snprintf(buf, len, "%" PRId64 "m", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, len, "%" PRId64 "h", s / 3600);
	else if (s < 8 * 7 * 86400)
		snprintf(buf, len, "%" PRId64 "d", s / 86400);
	else
		snprintf(buf, len, "%" PRId64 "w", s / (7 * 86400));
}

/*
 * A quota (@size) or a retention @v >= 0 as it was set: 0 is unlimited or
 * forever; else the text it was typed as (@text, from trashd, which keeps
 * it: 7d stays 7d), else the largest unit that is exact.
 */
void
fmt_limit(char *buf, size_t len, int64_t v, const char *text, bool size)
{
	if (v == 0)
		snprintf(buf, len, "%s", size ? "unlimited" : "forever");
	else if (text != NULL)
		snprintf(buf, len, "%s", text);
	else if (size)
		parse_fmt_size(buf, len, (uint64_t)v);
	else
		parse_fmt_duration(buf, len, v);
}

void
fmt_age(char *buf, size_t len, int64_t then_ns)
{
	char d[32];

	fmt_duration(d, sizeof(d), (now_ns() - then_ns) / NSEC_PER_SEC);
	snprintf(buf, len, "%s ago", d);
}

void
fmt_time(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, len, "%" PRId64, ns / NSEC_PER_SEC);
}

/*
 * A JSON string: valid UTF-8 as it is, but for the characters that
 * vis_cp_unsafe() keeps from a terminal (controls, C1, bidi), which are
 * \u escapes, lossless.  A byte that is not UTF-8 becomes U+FFFD: such a
 * string is lossy, and json_field() adds its bytes in base64.
 */
void
json_str(FILE *f, const char *s)
{
	uint32_t cp;
	size_t n;

	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s != '\0') {
		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if ((n = vis_utf8(s, &cp)) == 0) {
			fputs("\\ufffd", f);
			s++;
		} else if (vis_cp_unsafe(cp)) {
			fprintf(f, "\\u%04x", (unsigned)cp);
			s += n;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

/*
 * "KEY":"VALUE", and when VALUE is not valid UTF-8 (json_str() made it
 * lossy) ,"KEY_b64":"BYTES": its exact bytes in base64, trashctl(1) JSON.
 */
void
json_field(FILE *f, const char *key, const char *s)
{
	char *b;
	size_t len, need;

	fprintf(f, "\"%s\":", key);
	json_str(f, s);
	if (s == NULL || vis_utf8_valid(s))
		return;
	len = strlen(s);
	need = vis_b64(NULL, 0, s, len) + 1;
	if ((b = malloc(need)) == NULL) {
		fprintf(stderr, "trashctl: out of memory\n");
		exit(EXIT_ERROR);
	}
	vis_b64(b, need, s, len);
	fprintf(f, ",\"%s_b64\":\"%s\"", key, b);
	free(b);
}

/*
 * Before each element of a reply's array: @head (such as
 * {"entries":[ ) before the first, a comma before the others.  While the
 * array is open, an error closes it and the object (client.c): the
 * output stays one valid JSON document, however the reply ends.
 */
void
json_item(struct ctx *ctx, const char *head)
{
	ctx->json_open = true;
	/* NDJSON: each element is a line of its own. */
	if (ctx->ndjson) {
		if (ctx->json_n++)
			fputs("\n", stdout);
		return;
	}
	fputs(ctx->json_n++ ? "," : head, stdout);
}

/*
 * The end of the array (@head first if it had no element).  NDJSON: the
 * last element's line ends, and what the caller adds (",\"count\":N}")
 * completes a last line of its own, {"end":true,...}: a reader knows the
 * reply is whole by it.
 */
void
json_items_end(struct ctx *ctx, const char *head)
{
	ctx->json_open = false;
	if (ctx->ndjson) {
		if (ctx->json_n > 0)
			fputs("\n", stdout);
		fputs("{\"end\":true", stdout);
		return;
	}
	if (ctx->json_n == 0)
		fputs(head, stdout);
	fputs("]", stdout);
}

/*
 * @s escaped for a terminal (vis.h) on @f: the one way trashctl prints
 * what it did not write itself.
 */
void
vis_fputs(FILE *f, const char *s, int flags)
{
	char buf[VIS_LEN(256)], *b = buf;
	size_t need;

	need = vis_str(buf, sizeof(buf), s, flags) + 1;
	if (need > sizeof(buf)) {
		if ((b = malloc(need)) == NULL) {
			fprintf(stderr, "trashctl: out of memory\n");
			exit(EXIT_ERROR);
		}
		vis_str(b, need, s, flags);
	}
	fputs(b, f);
	if (b != buf)
		free(b);
}

/*
 * A point in time for -o, -N, -b, -S, -U (common/parse.h: "3d",
 * "3 days ago", "2026-11-30", "yesterday", ...): nanoseconds.
 */
int
parse_when(const char *s, int64_t *ns, const char **why)
{
	int64_t t;
	int r;

	if ((r = parse_time(s, now_ns() / NSEC_PER_SEC, &t, why)) < 0)
		return r;
	/* parse_time() keeps within PARSE_DURATION_MAX: no overflow. */
	*ns = t * NSEC_PER_SEC;
	return 0;
}

/*
 * A count or an entry id: a plain positive decimal integer, no sign, no
 * unit suffix (an id is no size: "1k" is refused, not entry 1024).
 */
int
parse_count(const char *s, int64_t *out)
{
	const char *why;
	uint64_t v;

	if (parse_uint(s, INT64_MAX, &v, &why) < 0 || v == 0)
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

/* A uid or gid: (uid_t)-1 is no id. */
static int
parse_id(const char *s, int64_t *out)
{
	const char *why;
	uint64_t v;

	if (parse_uint(s, 4294967294ULL, &v, &why) < 0)
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

/* A user name or a uid. */
int
parse_user(const char *s, int64_t *uid)
{
	struct passwd *pw;

	if (parse_id(s, uid) == 0)
		return 0;
	if ((pw = getpwnam(s)) == NULL)
		return -ENOENT;
	*uid = pw->pw_uid;
	return 0;
}

int
parse_group(const char *s, int64_t *gid)
{
	struct group *gr;

	if (parse_id(s, gid) == 0)
		return 0;
	if ((gr = getgrnam(s)) == NULL)
		return -ENOENT;
	*gid = gr->gr_gid;
	return 0;
}

/*
 * The user name of @uid as the system has it, not escaped; or NULL.
 * Remembered: an audit of 10000 rows names a few users, and a uid
 * without a name costs a read of all of /etc/passwd (or worse, of a
 * directory service) each time, slow enough for trashd to take this
 * client for stalled.
 */
const char *
user_lookup(int64_t uid)
{
	static struct {
		int64_t	 uid;
		bool	 named;
		char	 name[64];
	} cache[64];
	static bool init;
	struct passwd *pw;
	size_t i;

	if (uid < 0 || uid > UINT32_MAX - 1)
		return NULL;
	if (!init) {
		for (i = 0; i < sizeof(cache) / sizeof(cache[0]); i++)
			cache[i].uid = -1;
		init = true;
	}
	i = (size_t)uid % (sizeof(cache) / sizeof(cache[0]));
	if (cache[i].uid != uid) {
		cache[i].uid = uid;
		pw = getpwuid((uid_t)uid);
		/* A name too long to keep: asked for each time. */
		cache[i].named = pw != NULL &&
		    strlen(pw->pw_name) < sizeof(cache[i].name);
		if (cache[i].named)
			snprintf(cache[i].name, sizeof(cache[i].name), "%s",
			    pw->pw_name);
		else if (pw != NULL) {
			cache[i].uid = -1;
			return pw->pw_name;
		}
	}
	return cache[i].named ? cache[i].name : NULL;
}

/* @uid's name escaped for a terminal, or the number. */
const char *
user_name(int64_t uid, char *buf, size_t len)
{
	const char *name = user_lookup(uid);

	if (name != NULL)
		vis_str(buf, len, name, 0);
	else
		snprintf(buf, len, "%" PRId64, uid);
	return buf;
}

/* Drop ".", "..", empty components, lexically.  @p is absolute. */
static void
abs_clean(char *p)
{
	char *out = p, *in = p, *slash;
	size_t len;

	while (*in != '\0') {
		while (*in == '/')
			in++;
		if (*in == '\0')
			break;
		slash = strchr(in, '/');
		len = slash != NULL ? (size_t)(slash - in) : strlen(in);
		if (len == 1 && in[0] == '.') {
			/* nothing */
		} else if (len == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/*
 * @path made absolute against the cwd and cleaned; its longest existing
 * ancestor resolved by realpath(3), so that a path through a symlinked
 * directory still names the filesystem trashd knows.  malloc'd; NULL on
 * error.
 */
char *
abs_path(const char *path)
{
	char cwd[PATH_MAX], *p, *q, *real, *slash, *out;
	size_t len;

	if (path[0] == '/') {
		p = strdup(path);
	} else {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return NULL;
		len = strlen(cwd) + strlen(path) + 2;
		if ((p = malloc(len)) != NULL)
			snprintf(p, len, "%s/%s", cwd, path);
	}
	if (p == NULL)
		return NULL;
	abs_clean(p);
	q = strdup(p);
	if (q == NULL) {
		free(p);
		return NULL;
	}
	/* Find the longest existing ancestor. */
	for (;;) {
		if ((real = realpath(q, NULL)) != NULL)
			break;
		if ((slash = strrchr(q, '/')) == NULL || slash == q) {
			free(q);
			return p;
		}
		*slash = '\0';
	}
	len = strlen(q);
	out = NULL;
	if (asprintf(&out, "%s%s", strcmp(real, "/") == 0 &&
	    p[len] != '\0' ? "" : real, p + len) < 0)
		out = NULL;
	free(real);
	free(q);
	free(p);
	return out;
}

static bool progress_drawn;

/* A bar on stderr, only for a person watching a terminal. */
void
progress(struct ctx *ctx, int64_t done, int64_t total)
{
	static int64_t last = -1;
	int width = 30, fill;

	if (ctx->json || total < 2 || !isatty(STDERR_FILENO))
		return;
	fill = (int)(done * width / total);
	if (fill == last && done != total)
		return;
	last = fill;
	progress_drawn = true;
	fprintf(stderr, "\r[%.*s%*s] %" PRId64 "/%" PRId64, fill,
	    "##############################", width - fill, "", done, total);
	fflush(stderr);
}

void
progress_end(struct ctx *ctx)
{
	if (ctx->json || !progress_drawn)
		return;
	progress_drawn = false;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
}
