/* SPDX-License-Identifier: ISC */
/*
 * /etc/trashd/trashd.conf: one "key value" per line, '#' starts a comment,
 * "filesystem PATH [watermark N%]" repeatable, every other key at most once.
 * The first error is reported as "FILE:LINE: message".
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
	K("socket",		CT_PATH,	socket),
	K("admin-group",	CT_GROUP,	admin_gid),
	K("client-timeout",	CT_DURATION_LIMIT, client_timeout),
	K("restore-max",	CT_LIMIT,	restore_max),
	K("restore-timeout",	CT_DURATION_LIMIT, restore_timeout),
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
	return 0;
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
