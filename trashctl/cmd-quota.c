/* SPDX-License-Identifier: ISC */
/* trashctl quota: trash usage against quota and retention. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

struct quota_state {
	struct tbl	 t;
};

/* The limits as they were set: 90d stays 90d, 7d stays 7d. */
static void
quota_limit(struct tbl *t, int col, const struct proto_msg *m, int a,
    int text)
{
	char buf[40];

	if (!PROTO_HAS(m, a) || m->num[a] < 0)
		snprintf(buf, sizeof(buf), "?");
	else
		fmt_limit(buf, sizeof(buf), m->num[a], m->str[text],
		    a == A_QUOTA);
	tbl_str(t, col, buf);
}

static void
quota_quota_cell(struct tbl *t, int col, const struct proto_msg *m)
{
	quota_limit(t, col, m, A_QUOTA, A_QUOTA_TEXT);
}

static void
quota_retention_cell(struct tbl *t, int col, const struct proto_msg *m)
{
	quota_limit(t, col, m, A_RETENTION, A_RETENTION_TEXT);
}

/* USE%: of the quota, if there is one. */
static void
quota_use_cell(struct tbl *t, int col, const struct proto_msg *m)
{
	if (PROTO_HAS(m, A_QUOTA) && m->num[A_QUOTA] > 0)
		tbl_fmt(t, col, "%" PRId64 "%%",
		    m->num[A_BYTES] * 100 / m->num[A_QUOTA]);
	else
		tbl_str(t, col, "-");
}

/* A user's usage of a filesystem, in JSON and in the table. */
static const struct rec_field quota_fields[] = {
	REC("fs", "FILESYSTEM", REC_STR, A_FS, 0),
	REC("uid", "UID", REC_NUM, A_UID, REC_RIGHT),
	REC("user", "USER", REC_USER, A_UID, 0),
	REC("count", "ENTRIES", REC_NUM, A_COUNT, REC_RIGHT),
	REC("bytes", "USED", REC_SIZE, A_BYTES, REC_RIGHT),
	REC("quota_text", NULL, REC_STR, A_QUOTA_TEXT, 0),
	REC("retention_text", NULL, REC_STR, A_RETENTION_TEXT, 0),
	REC("quota", NULL, REC_NUM, A_QUOTA, REC_M1),
	REC("retention", NULL, REC_NUM, A_RETENTION, REC_M1),
	{ NULL, "QUOTA", REC_FN, A_QUOTA, REC_RIGHT,
	    .cell = quota_quota_cell },
	{ NULL, "USE%", REC_FN, A_QUOTA, REC_RIGHT, .cell = quota_use_cell },
	{ NULL, "RETENTION", REC_FN, A_RETENTION, REC_RIGHT,
	    .cell = quota_retention_cell },
	REC_END
};
#define QUOTA_COLS	"USER,FILESYSTEM,ENTRIES,USED,QUOTA,USE%,RETENTION"

static int
cmd_quota_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct quota_state *s = arg;

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
	if (ctx->json)
		rec_json_item(ctx, "{\"usage\":[", quota_fields, m);
	else
		rec_row(&s->t, m);
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
	if ((r = cmd_tbl_init(ctx, e, &s.t, QUOTA_COLS)) != 0)
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
	.cols = quota_fields,
	.defcols = QUOTA_COLS,
	.exec = cmd_quota_exec,
};
