/* SPDX-License-Identifier: ISC */
/* trashctl quota: trash usage against quota and retention. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

enum { Q_USER, Q_UID, Q_FS, Q_ENTRIES, Q_USED, Q_QUOTA, Q_USE, Q_RETENTION };
static const struct tbl_col quota_cols[] = {
	[Q_USER] =	{ "USER",	TBL_DEFAULT },
	[Q_UID] =	{ "UID",	TBL_RIGHT },
	[Q_FS] =	{ "FILESYSTEM",	TBL_DEFAULT },
	[Q_ENTRIES] =	{ "ENTRIES",	TBL_DEFAULT | TBL_RIGHT },
	[Q_USED] =	{ "USED",	TBL_DEFAULT | TBL_RIGHT },
	[Q_QUOTA] =	{ "QUOTA",	TBL_DEFAULT | TBL_RIGHT },
	[Q_USE] =	{ "USE%",	TBL_DEFAULT | TBL_RIGHT },
	[Q_RETENTION] =	{ "RETENTION",	TBL_DEFAULT | TBL_RIGHT },
	{ NULL, 0 }
};

struct quota_state {
	struct tbl	 t;
};

/* The limits as they were set: 90d stays 90d, 7d stays 7d. */
static void
quota_limit(char *buf, size_t len, int64_t v, const char *text, bool size)
{
	if (v < 0)
		snprintf(buf, len, "?");
	else
		fmt_limit(buf, len, v, text, size);
}

static int
cmd_quota_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct quota_state *s = arg;
	char used[16], quota[40], ret[40], pct[16];
	int64_t q = PROTO_HAS(m, A_QUOTA) ? m->num[A_QUOTA] : -1;
	int64_t r = PROTO_HAS(m, A_RETENTION) ? m->num[A_RETENTION] : -1;

	if (m->type == MSG_OK) {
		if (ctx->json) {
			json_items_end(ctx, "{\"usage\":[");
			printf("}\n");
			return 0;
		}
		tbl_print(&s->t);
		if (s->t.rows == 0 && !ctx->raw && !ctx->noheadings)
			printf("no usage\n");
		return 0;
	}
	if (m->type != MSG_USAGE)
		return 0;
	if (ctx->json) {
		json_item(ctx, "{\"usage\":[");
		printf("{");
		json_field(stdout, "fs", m->str[A_FS]);
		printf(",\"uid\":%" PRId64, m->num[A_UID]);
		json_user(stdout, "user", m->num[A_UID]);
		printf(",\"count\":%" PRId64 ",\"bytes\":%" PRId64 ",",
		    m->num[A_COUNT], m->num[A_BYTES]);
		json_field(stdout, "quota_text", m->str[A_QUOTA_TEXT]);
		printf(",");
		json_field(stdout, "retention_text",
		    m->str[A_RETENTION_TEXT]);
		printf(",\"quota\":%" PRId64 ",\"retention\":%" PRId64 "}", q,
		    r);
		return 0;
	}
	fmt_size(used, sizeof(used), m->num[A_BYTES]);
	quota_limit(quota, sizeof(quota), q, m->str[A_QUOTA_TEXT], true);
	quota_limit(ret, sizeof(ret), r, m->str[A_RETENTION_TEXT], false);
	if (q > 0)
		snprintf(pct, sizeof(pct), "%" PRId64 "%%",
		    m->num[A_BYTES] * 100 / q);
	else
		snprintf(pct, sizeof(pct), "-");
	tbl_row(&s->t);
	tbl_user(&s->t, Q_USER, m->num[A_UID]);
	tbl_fmt(&s->t, Q_UID, "%" PRId64, m->num[A_UID]);
	tbl_str(&s->t, Q_FS, m->str[A_FS]);
	tbl_fmt(&s->t, Q_ENTRIES, "%" PRId64, m->num[A_COUNT]);
	tbl_str(&s->t, Q_USED, used);
	tbl_str(&s->t, Q_QUOTA, quota);
	tbl_str(&s->t, Q_USE, pct);
	tbl_str(&s->t, Q_RETENTION, ret);
	return 0;
}

/* Its own options (cmd.c adds the common ones). */
static const struct cmd_opt cmd_quota_opts[] = {
	CMD_OPT_USER("that user's usage (admins)"),
	{ "all", 'a', NULL, "every user's usage (admins)" },
	{ NULL, 0, NULL, NULL }
};

static int
cmd_quota_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_quota_entry;
	struct quota_state s;
	struct proto_buf b;
	int ch, r;

	proto_init(&b, MSG_QUOTA);
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1) {
		if (ch == CMD_EXIT)
			return r;
		if (ch == 'a')
			proto_num(&b, A_ALL, 1);
	}
	if (ctx->user >= 0)
		proto_num(&b, A_UID, ctx->user);
	if (optind != argc)
		return cmd_usage_error(e, "no arguments");
	if ((r = cmd_tbl_init(ctx, e, &s.t, 0)) != 0)
		return r;
	r = ctl_request(ctx, &b, cmd_quota_msg, &s);
	tbl_print(&s.t);
	return r;
}

const struct cmd_entry cmd_quota_entry = {
	.name = "quota",
	.usage = "[-a] [-u user] [-j] [--output cols] [--raw] [--noheadings]",
	.help = "show trash usage against quota and retention",
	.opts = cmd_quota_opts,
	.cols = quota_cols,
	.exec = cmd_quota_exec,
};
