/* SPDX-License-Identifier: ISC */
/*
 * /etc/trashd/trashd.conf: one "key value" per line, '#' starts a comment,
 * "filesystem PATH [watermark N%]", "exclude PATTERN" and "exclude-dir
 * PATTERN" repeatable, every other key at most once.  The first error is
 * reported as "FILE:LINE: message".
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "base.h"

/* Lines longer than this are refused, not silently cut. */
#define CONFIG_LINE_MAX	4096
/* Up to this many words on a line: "filesystem PATH watermark N%". */
#define CONFIG_WORDS	4

enum config_type {
	CT_PATH,
	CT_BOOL,
	CT_SIZE_LIMIT,	/* > 0, or "unlimited" (0) */
	CT_SIZE_MIN,	/* > 0, its unit required */
	CT_SIZE_MAX,	/* > 0, its unit required, or "unlimited" (0) */
	CT_DURATION,	/* 0s is allowed and means what the key says */
	CT_INTERVAL,	/* > 0 */
	CT_DURATION_LIMIT, /* > 0, or "forever" (0) */
	CT_PERCENT,
	CT_COUNT,
	CT_LIMIT,	/* 1 to CONFIG_LIMIT_MAX */
	CT_GROUP,	/* a group name or gid, resolved at load */
};

struct config_key {
	const char	*name;
	enum config_type type;
	size_t		 off;
};

#define K(n, t, f)	{ n, t, offsetof(struct config, f) }
static const struct config_key config_keys[] = {
	K("database",		CT_PATH,	database),
	K("create-trash",	CT_BOOL,	create_trash),
	K("quota",		CT_SIZE_LIMIT,	quota),
	K("retention",		CT_DURATION_LIMIT, retention),
	K("watermark",		CT_PERCENT,	watermark),
	K("grace",		CT_DURATION,	grace),
	K("min-age",		CT_DURATION,	min_age),
	K("wipe-passes",	CT_COUNT,	wipe_passes),
	K("wipe-zero-pass",	CT_BOOL,	wipe_zero),
	K("wipe-verify",	CT_BOOL,	wipe_verify),
	K("wipe-discard",	CT_BOOL,	wipe_discard),
	K("wipe-rate",		CT_SIZE_LIMIT,	wipe_rate),
	K("audit-retention",	CT_DURATION_LIMIT, audit_retention),
	K("policy-interval",	CT_INTERVAL,	interval),
	K("rescan-interval",	CT_DURATION_LIMIT, rescan_interval),
	K("socket",		CT_PATH,	socket),
	K("admin-group",	CT_GROUP,	admin_gid),
	K("client-timeout",	CT_DURATION_LIMIT, client_timeout),
	K("restore-max",	CT_LIMIT,	restore_max),
	K("restore-timeout",	CT_DURATION_LIMIT, restore_timeout),
	K("min-size",		CT_SIZE_MIN,	min_size),
	K("max-size",		CT_SIZE_MAX,	max_size),
};
#undef K
#define CONFIG_NKEYS	(sizeof(config_keys) / sizeof(config_keys[0]))
/* Passes beyond this buy nothing on any disk made since 2001 (SP 800-88). */
#define CONFIG_PASSES_MAX	35
/* A per-user limit: beyond this it would limit nothing. */
#define CONFIG_LIMIT_MAX	1000

struct config *
config_default(void)
{
	struct config *c = xcalloc(1, sizeof(*c));

	c->database = xstrdup(TRASHD_DB);
	c->create_trash = false;
	c->quota = 0;
	c->retention = 30 * 86400;
	c->watermark = 10;
	c->grace = 0;
	c->min_age = 0;
	c->wipe_passes = 1;
	c->audit_retention = 365 * 86400;
	c->interval = 300;
	/*
	 * A stepwise read of every trash dir, 25-50 us an entry (scan.c):
	 * each hour a million-entry trash takes some 30 s of steps, 1%.
	 */
	c->rescan_interval = 3600;
	c->socket = xstrdup(TRASHD_SOCKET);
	c->admin_gid = -1;
	c->client_timeout = 30;
	/*
	 * A user restores one tree at a time, maybe a few: 4 leaves others
	 * most of trashd's 16 slots.  60s restores far more than a million
	 * files on any local disk; a restore stuck longer is stuck.
	 */
	c->restore_max = 4;
	c->restore_timeout = 60;
	return c;
}

void
config_free(struct config *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nfs; i++)
		free(c->fs[i].path);
	free(c->fs);
	for (i = 0; i < c->nexclude; i++)
		free(c->exclude[i]);
	free(c->exclude);
	for (i = 0; i < c->nexclude_dir; i++)
		free(c->exclude_dir[i]);
	free(c->exclude_dir);
	free(c->database);
	free(c->socket);
	free(c);
}

static int
config_parse_bool(const char *s, bool *out)
{
	if (strcmp(s, "yes") == 0)
		*out = true;
	else if (strcmp(s, "no") == 0)
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/*
 * A gid in decimal (as the kernel writes ids: no leading zero, at most
 * TRASHBIN_UID_MAX), or the name of a group of the group database.
 */
static int
config_parse_group(const char *s, int64_t *out)
{
	struct group gr, *grp = NULL;
	char buf[16384];
	const char *why;
	uint64_t gid;

	if ((s[0] != '0' || s[1] == '\0') &&
	    parse_uint(s, TRASHBIN_UID_MAX, &gid, &why) == 0) {
		*out = (int64_t)gid;
		return 0;
	}
	if (getgrnam_r(s, &gr, buf, sizeof(buf), &grp) != 0 || grp == NULL)
		return -ENOENT;
	*out = grp->gr_gid;
	return 0;
}

static const char *
config_type_help(enum config_type t)
{
	switch (t) {
	case CT_PATH:
		return "an absolute path";
	case CT_BOOL:
		return "yes or no";
	case CT_SIZE_LIMIT:
		return "a size such as 500M or 1G, or unlimited";
	case CT_SIZE_MIN:
		return "a size with its unit such as 4K or 1M";
	case CT_SIZE_MAX:
		return "a size with its unit such as 500M or 1G, or unlimited";
	case CT_DURATION:
		return "a duration such as 0s, 90s, 12h or 30d";
	case CT_INTERVAL:
		return "a duration above 0s such as 90s or 5m";
	case CT_DURATION_LIMIT:
		return "a duration such as 90s, 12h or 30d, or forever";
	case CT_PERCENT:
		return "a percentage such as 10%";
	case CT_COUNT:
		return "a number from 1 to 35";
	case CT_LIMIT:
		return "a number from 1 to 1000";
	case CT_GROUP:
		return "an existing group name or a gid";
	}
	return "?";
}

/* 0, or -EINVAL/-ERANGE with *@why saying what is wrong with @v. */
static int
config_set(struct config *c, const struct config_key *k, const char *v,
    const char **why)
{
	char *base = (char *)c + k->off;
	uint64_t u;
	int r;

	*why = config_type_help(k->type);
	switch (k->type) {
	case CT_PATH:
		if (v[0] != '/')
			return -EINVAL;
		free(*(char **)(void *)base);
		*(char **)(void *)base = xstrdup(v);
		return 0;
	case CT_BOOL:
		return config_parse_bool(v, (bool *)(void *)base);
	case CT_SIZE_LIMIT:
		return parse_size_limit(v, (uint64_t *)(void *)base, why);
	case CT_SIZE_MIN:
	case CT_SIZE_MAX:
		if (k->type == CT_SIZE_MAX && strcmp(v, "unlimited") == 0) {
			*(uint64_t *)(void *)base = 0;
			return 0;
		}
		if ((r = parse_size_unit(v, &u, why)) < 0)
			return r;
		if (u == 0) {
			*why = k->type == CT_SIZE_MIN ? "0 would exclude "
			    "nothing: leave min-size out" : "0 is refused: "
			    "say unlimited for no limit";
			return -EINVAL;
		}
		*(uint64_t *)(void *)base = u;
		return 0;
	case CT_DURATION:
		return parse_duration(v, (int64_t *)(void *)base, why);
	case CT_INTERVAL:
		if ((r = parse_duration(v, (int64_t *)(void *)base, why)) < 0)
			return r;
		return *(int64_t *)(void *)base > 0 ? 0 : -EINVAL;
	case CT_DURATION_LIMIT:
		return parse_duration_limit(v, (int64_t *)(void *)base, why);
	case CT_PERCENT:
		return parse_percent(v, (unsigned *)(void *)base, why);
	case CT_COUNT:
	case CT_LIMIT:
		if ((r = parse_uint(v, k->type == CT_COUNT ?
		    CONFIG_PASSES_MAX : CONFIG_LIMIT_MAX, &u, why)) < 0 ||
		    u < 1) {
			*why = config_type_help(k->type);
			return r < 0 ? r : -ERANGE;
		}
		*(unsigned *)(void *)base = (unsigned)u;
		return 0;
	case CT_GROUP:
		return config_parse_group(v, (int64_t *)(void *)base);
	}
	return -EINVAL;
}

/*
 * The quota's and the retention's text, as written: "policy get default"
 * shows "retention 90d" as the file says it, not 7776000 nor 12w.  Not
 * for unlimited and forever (0, which say themselves), nor for a text
 * too long to keep (then shown in the largest exact unit).
 */
static void
config_keep_text(struct config *c, const struct config_key *k, const char *v)
{
	char *text;
	bool zero;

	if (k->off == offsetof(struct config, quota)) {
		text = c->quota_text;
		zero = c->quota == 0;
	} else if (k->off == offsetof(struct config, retention)) {
		text = c->retention_text;
		zero = c->retention == 0;
	} else {
		return;
	}
	if (!zero && strlen(v) < CONFIG_TEXT_MAX)
		snprintf(text, CONFIG_TEXT_MAX, "%s", v);
}

static int
config_add_fs(struct config *c, char **w, size_t nw, char *msg, size_t len)
{
	struct config_fs *f;
	const char *why;
	unsigned wm;
	size_t i;

	if (nw != 2 && nw != 4) {
		snprintf(msg, len, "usage: filesystem PATH [watermark N%%]");
		return -EINVAL;
	}
	if (w[1][0] != '/') {
		snprintf(msg, len, "filesystem: \"%s\" is not an absolute "
		    "path", w[1]);
		return -EINVAL;
	}
	for (i = 0; i < c->nfs; i++) {
		if (strcmp(c->fs[i].path, w[1]) == 0) {
			snprintf(msg, len, "filesystem %s listed twice", w[1]);
			return -EINVAL;
		}
	}
	wm = 0;
	if (nw == 4) {
		if (strcmp(w[2], "watermark") != 0) {
			snprintf(msg, len, "filesystem: unknown option \"%s\"",
			    w[2]);
			return -EINVAL;
		}
		if (parse_percent(w[3], &wm, &why) < 0) {
			snprintf(msg, len, "watermark: \"%s\": %s", w[3], why);
			return -EINVAL;
		}
	}
	c->fs = xreallocarray(c->fs, c->nfs + 1, sizeof(*c->fs));
	f = &c->fs[c->nfs++];
	f->path = xstrdup(w[1]);
	f->watermark = nw == 4 ? (int)wm : -1;
	return 0;
}

/*
 * An exclude (@dir false: of a name, so no '/') or exclude-dir pattern,
 * for fnmatch(3) without flags; 0, or -EINVAL with *@why.  fnmatch()
 * takes any string, reading a '[' without its ']' as a plain '[' and an
 * unknown class as no match: such a pattern does not say what was meant,
 * and is refused here rather than silently matching nothing.
 */
static int
config_pattern(const char *p, bool dir, const char **why)
{
	static const char *const classes[] = { "alnum", "alpha", "blank",
	    "cntrl", "digit", "graph", "lower", "print", "punct", "space",
	    "upper", "xdigit" };
	const char *e;
	size_t i, j, k, n = strlen(p);

	if (n > CONFIG_PATTERN_MAX) {
		*why = "longer than 200 bytes";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f) {
			*why = "holds a control character";
			return -EINVAL;
		}
		if (p[i] == '/' && !dir) {
			*why = "a name holds no '/': exclude-dir takes "
			    "directories";
			return -EINVAL;
		}
	}
	if (dir && strchr(p, '/') != NULL && p[0] != '/' && p[0] != '*') {
		*why = "a path starts with '/' or '*': it is matched against "
		    "absolute paths";
		return -EINVAL;
	}
	if (dir && strspn(p, "/*") == n) {
		*why = "it would exclude every directory";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (p[i] == '\\') {
			if (p[++i] == '\0') {
				*why = "ends in a lone '\\'";
				return -EINVAL;
			}
			continue;
		}
		if (p[i] != '[')
			continue;
		/* A bracket expression: [!...], [^...], a leading ']'. */
		j = i + 1;
		if (p[j] == '!' || p[j] == '^')
			j++;
		if (p[j] == ']')
			j++;
		for (; p[j] != '\0' && p[j] != ']'; j++) {
			if (p[j] == '\\' && p[j + 1] != '\0') {
				j++;
				continue;
			}
			if (p[j] != '[' || p[j + 1] != ':')
				continue;
			if ((e = strstr(p + j + 2, ":]")) == NULL) {
				*why = "'[:' without its ':]'";
				return -EINVAL;
			}
			for (k = 0; k < sizeof(classes) / sizeof(classes[0]);
			    k++)
				if (strlen(classes[k]) ==
				    (size_t)(e - (p + j + 2)) &&
				    strncmp(classes[k], p + j + 2,
				    strlen(classes[k])) == 0)
					break;
			if (k == sizeof(classes) / sizeof(classes[0])) {
				*why = "an unknown character class: [:alpha:], "
				    "[:digit:], [:alnum:], [:upper:], [:lower:]"
				    ", [:space:], [:punct:] ...";
				return -EINVAL;
			}
			j = (size_t)(e - p) + 1;
		}
		if (p[j] != ']') {
			*why = "'[' without its ']' (\\[ for a plain '[')";
			return -EINVAL;
		}
		i = j;
	}
	return 0;
}

/* "exclude PATTERN" or "exclude-dir PATTERN", repeatable. */
static int
config_add_exclude(struct config *c, char **w, size_t nw, char *msg,
    size_t len)
{
	bool dir = strcmp(w[0], "exclude-dir") == 0;
	char ***v = dir ? &c->exclude_dir : &c->exclude;
	size_t *n = dir ? &c->nexclude_dir : &c->nexclude;
	const char *why;
	char *p;
	size_t l;

	if (nw != 2) {
		snprintf(msg, len, "usage: %s PATTERN (one word: a blank in "
		    "a name is matched by ?)", w[0]);
		return -EINVAL;
	}
	p = xstrdup(w[1]);
	/* "DIR/" says "under DIR" as "DIR" does: one spelling is kept. */
	if (dir && (l = strlen(p)) > 1 && p[l - 1] == '/')
		p[l - 1] = '\0';
	if (config_pattern(p, dir, &why) < 0) {
		snprintf(msg, len, "%s: \"%s\": %s", w[0], w[1], why);
		free(p);
		return -EINVAL;
	}
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = p;
	return 0;
}

/*
 * min-size above max-size would exclude every entry: refused on the line
 * that sets the second of them.
 */
static int
config_check_sizes(const struct config *c, char *msg, size_t len)
{
	char lo[32], hi[32];

	if (c->min_size == 0 || c->max_size == 0 || c->min_size <= c->max_size)
		return 0;
	parse_fmt_size(lo, sizeof(lo), c->min_size);
	parse_fmt_size(hi, sizeof(hi), c->max_size);
	snprintf(msg, len, "min-size %s is above max-size %s: every entry "
	    "would be excluded", lo, hi);
	return -EINVAL;
}

/* One line, comment stripped; 0, or -EINVAL with @msg set. */
static int
config_line(struct config *c, bool *seen, char *line, char *msg, size_t len)
{
	char *w[CONFIG_WORDS + 1], *p, *save = NULL;
	const char *why;
	size_t nw = 0, i;

	for (p = strtok_r(line, " \t\r", &save); p != NULL;
	    p = strtok_r(NULL, " \t\r", &save)) {
		if (nw == CONFIG_WORDS + 1) {
			snprintf(msg, len, "too many words");
			return -EINVAL;
		}
		w[nw++] = p;
	}
	if (nw == 0)
		return 0;
	if (strcmp(w[0], "filesystem") == 0)
		return config_add_fs(c, w, nw, msg, len);
	if (strcmp(w[0], "exclude") == 0 || strcmp(w[0], "exclude-dir") == 0)
		return config_add_exclude(c, w, nw, msg, len);
	for (i = 0; i < CONFIG_NKEYS; i++)
		if (strcmp(w[0], config_keys[i].name) == 0)
			break;
	if (i == CONFIG_NKEYS) {
		snprintf(msg, len, "unknown key \"%s\"", w[0]);
		return -EINVAL;
	}
	if (nw != 2) {
		snprintf(msg, len, "%s: expected one value, %s", w[0],
		    config_type_help(config_keys[i].type));
		return -EINVAL;
	}
	if (seen[i]) {
		snprintf(msg, len, "%s: set twice", w[0]);
		return -EINVAL;
	}
	seen[i] = true;
	if (config_set(c, &config_keys[i], w[1], &why) < 0) {
		if (why == config_type_help(config_keys[i].type))
			snprintf(msg, len, "%s: \"%s\" is not %s", w[0], w[1],
			    why);
		else
			snprintf(msg, len, "%s: \"%s\": %s", w[0], w[1], why);
		return -EINVAL;
	}
	config_keep_text(c, &config_keys[i], w[1]);
	return config_check_sizes(c, msg, len);
}

struct config *
config_load(const char *path, char *err, size_t errlen)
{
	struct config *c = NULL;
	bool seen[CONFIG_NKEYS] = { false };
	char line[CONFIG_LINE_MAX + 2], msg[512], *hash;
	FILE *f = NULL;
	unsigned lineno = 0;
	size_t len;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((f = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		goto out;
	}
	c = config_default();
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		len = strlen(line);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			snprintf(err, errlen, "%s:%u: line longer than %d "
			    "bytes", path, lineno, CONFIG_LINE_MAX);
			goto fail;
		}
		if ((hash = strchr(line, '#')) != NULL)
			*hash = '\0';
		if (config_line(c, seen, line, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	goto out;
fail:
	config_free(c);
	c = NULL;
out:
	if (f != NULL)
		fclose(f);
	return c;
}
