/* SPDX-License-Identifier: ISC */
/*
 * trashctl policy get|set: quota and retention per user, per group and by
 * default, and the free-space watermarks (admins).  What is set here is
 * kept in trashd's index and takes precedence over trashd.conf(5).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashctl.h"

static const char *const policy_kinds[] = { "user", "group", "default",
    "config" };

/* Its kind; one trashd does not know is the default. */
static int64_t
policy_kind(const struct proto_msg *m)
{
	return m->num[A_KIND] >= 0 && m->num[A_KIND] <= 3 ? m->num[A_KIND] :
	    PROTO_KIND_DEFAULT;
}

static void
policy_kind_json(const char *key, const struct proto_msg *m)
{
	printf("\"%s\":\"%s\"", key, policy_kinds[policy_kind(m)]);
}

/* A policy in JSON: the limits if it has them, the watermark if any. */
static const struct rec_field policy_fields[] = {
	{ "kind", NULL, REC_FN, A_KIND, .json = policy_kind_json },
	REC("id", NULL, REC_NUM, A_XID, REC_OMIT),
	{ "quota_text", NULL, REC_STR, A_QUOTA_TEXT, .when = A_QUOTA },
	{ "retention_text", NULL, REC_STR, A_RETENTION_TEXT,
	    .when = A_QUOTA },
	REC("quota", NULL, REC_NUM, A_QUOTA, REC_OMIT),
	{ "retention", NULL, REC_NUM, A_RETENTION, .when = A_QUOTA },
	{ "fs", NULL, REC_STR, A_FS, REC_OMIT, .when = A_WATERMARK },
	REC("watermark", NULL, REC_NUM, A_WATERMARK, REC_OMIT),
	REC_END
};

struct policy_state {
	int64_t	 n;
};

static void
policy_val(char *buf, size_t len, const struct proto_msg *m, int a)
{
	int64_t v = PROTO_HAS(m, a) ? m->num[a] : -1;

	if (v < 0)
		snprintf(buf, len, "inherit");
	else if (a == A_WATERMARK && v == 0)
		snprintf(buf, len, "off");
	else if (a == A_WATERMARK)
		snprintf(buf, len, "%" PRId64 "%% free", v);
	/* As typed: 90d stays 90d, 7d stays 7d, 1536M stays 1536M. */
	else if (a == A_QUOTA)
		fmt_limit(buf, len, v, m->str[A_QUOTA_TEXT], true);
	else
		fmt_limit(buf, len, v, m->str[A_RETENTION_TEXT], false);
}

static int
cmd_policy_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct policy_state *s = arg;
	int64_t k = policy_kind(m);
	const char *kind = policy_kinds[k];
	char q[40], r[40], w[32];
	bool limits = PROTO_HAS(m, A_QUOTA);

	if (m->type == MSG_OK) {
		if (ctx->json) {
			json_items_end(ctx, "{\"policies\":[");
			printf("}\n");
		}
		return 0;
	}
	if (m->type != MSG_POLICY)
		return 0;
	if (ctx->json) {
		rec_json_item(ctx, "{\"policies\":[", policy_fields, m);
		return 0;
	}
	/*
	 * One line per message: a set that changed the limits and a
	 * watermark is answered by one message, and printed once.
	 */
	s->n++;
	if (k == PROTO_KIND_CONFIG)
		kind = "trashd.conf";
	if (limits) {
		policy_val(q, sizeof(q), m, A_QUOTA);
		policy_val(r, sizeof(r), m, A_RETENTION);
		if (PROTO_HAS(m, A_XID))
			printf("%s %" PRId64 ": quota %s, retention %s", kind,
			    m->num[A_XID], q, r);
		else
			printf("%s: quota %s, retention %s", kind, q, r);
	}
	if (PROTO_HAS(m, A_WATERMARK)) {
		policy_val(w, sizeof(w), m, A_WATERMARK);
		printf("%s watermark on %s: %s", limits ? ";" : kind,
		    PROTO_HAS(m, A_FS) ? m->str[A_FS] : "every filesystem",
		    w);
	}
	printf("\n");
	return 0;
}

/* "15%", "off" (0) or "inherit" (-1). */
static int
policy_parse_watermark(const char *s, int64_t *out, const char **why)
{
	unsigned v;

	if (strcmp(s, "inherit") == 0) {
		*out = -1;
		return 0;
	}
	if (strcmp(s, "off") == 0) {
		*out = 0;
		return 0;
	}
	if (parse_percent(s, &v, why) < 0)
		return -1;
	*out = v;
	return 0;
}


static int
cmd_policy_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_policy_entry;
	struct policy_state s = { 0 };
	struct proto_buf b;
	const char *why;
	uint64_t u;
	int64_t kind, v;
	bool set, fs = false, wm = false;
	char *p;
	int ch, i, r;

	/* The common options alone, before get or set (CMD_INORDER). */
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1)
		if (ch == CMD_EXIT)
			return r;
	argc -= optind;
	argv += optind;
	if (argc < 2)
		return cmd_usage_error(e, "get or set, and user, group or "
		    "default");
	if (strcmp(argv[0], "get") == 0)
		set = false;
	else if (strcmp(argv[0], "set") == 0)
		set = true;
	else
		return cmd_usage_error(e, "%s: neither get nor set", argv[0]);
	if (strcmp(argv[1], "user") == 0)
		kind = PROTO_KIND_USER;
	else if (strcmp(argv[1], "group") == 0)
		kind = PROTO_KIND_GROUP;
	else if (strcmp(argv[1], "default") == 0)
		kind = PROTO_KIND_DEFAULT;
	else
		return cmd_usage_error(e, "%s: not user, group or default",
		    argv[1]);
	proto_init(&b, set ? MSG_POLICY_SET : MSG_POLICY_GET);
	proto_num(&b, A_KIND, kind);
	i = 2;
	if (kind != PROTO_KIND_DEFAULT) {
		if (argc < 3)
			return cmd_usage_error(e, "name the %s", argv[1]);
		if ((kind == PROTO_KIND_USER ? parse_user(argv[2], &v) :
		    parse_group(argv[2], &v)) < 0)
			return cmd_usage_error(e, "%s: no such %s", argv[2],
			    argv[1]);
		proto_num(&b, A_XID, v);
		i = 3;
	}
	if (!set && i != argc)
		return cmd_usage_error(e, "too many arguments");
	for (; set && i < argc; i += 2) {
		if (i + 1 >= argc)
			return cmd_usage_error(e, "%s: needs a value",
			    argv[i]);
		/* 0 is refused: "unlimited", "forever" (0 on the wire). */
		if (strcmp(argv[i], "quota") == 0) {
			if (strcmp(argv[i + 1], "inherit") == 0)
				v = -1;
			else if (parse_size_limit(argv[i + 1], &u, &why) < 0)
				return cmd_usage_error(e, "quota %s: %s",
				    argv[i + 1], why);
			else
				v = (int64_t)u;
			proto_num(&b, A_QUOTA, v);
			/* Kept by trashd and shown back as typed. */
			if (v > 0 && strlen(argv[i + 1]) <= PROTO_TEXT_MAX)
				proto_str(&b, A_QUOTA_TEXT, argv[i + 1]);
		} else if (strcmp(argv[i], "retention") == 0) {
			if (strcmp(argv[i + 1], "inherit") == 0)
				v = -1;
			else if (parse_duration_limit(argv[i + 1], &v,
			    &why) < 0)
				return cmd_usage_error(e, "retention %s: %s",
				    argv[i + 1], why);
			proto_num(&b, A_RETENTION, v);
			if (v > 0 && strlen(argv[i + 1]) <= PROTO_TEXT_MAX)
				proto_str(&b, A_RETENTION_TEXT, argv[i + 1]);
		} else if (strcmp(argv[i], "watermark") == 0 &&
		    kind == PROTO_KIND_DEFAULT) {
			if (policy_parse_watermark(argv[i + 1], &v, &why) < 0)
				return cmd_usage_error(e, "watermark %s: %s, "
				    "off or inherit", argv[i + 1], why);
			proto_num(&b, A_WATERMARK, v);
			wm = true;
		} else if (strcmp(argv[i], "fs") == 0 &&
		    kind == PROTO_KIND_DEFAULT) {
			if ((p = abs_path(argv[i + 1])) == NULL)
				return cmd_usage_error(e, "%s: bad path",
				    argv[i + 1]);
			proto_str(&b, A_FS, p);
			free(p);
			fs = true;
		} else {
			return cmd_usage_error(e, "%s: not quota, retention%s",
			    argv[i], kind == PROTO_KIND_DEFAULT ?
			    ", watermark or fs" : " (watermarks are set with "
			    "the default policy)");
		}
	}
	if (fs && !wm)
		return cmd_usage_error(e, "fs names the filesystem of a "
		    "watermark");
	return ctl_request(ctx, &b, cmd_policy_msg, &s);
}

const struct cmd_entry cmd_policy_entry = {
	.name = "policy",
	.usage = "[-j] get user|group name | get default | "
	    "set user|group name [quota size|unlimited|inherit] "
	    "[retention duration|forever|inherit] | "
	    "set default [quota ...] [retention ...] "
	    "[watermark N%|off|inherit [fs path]]",
	.help = "show or set quota, retention and watermarks (admins)",
	.flags = CMD_INORDER,
	.exec = cmd_policy_exec,
};
