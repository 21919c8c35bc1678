/* SPDX-License-Identifier: ISC */
/* trashctl status: is trashd up, which filesystems, my usage. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"
#include "vis.h"

enum { S_FS, S_SIZE, S_FREE, S_WATERMARK, S_MINE, S_ENTRIES };
static const struct tbl_col status_cols[] = {
	[S_FS] =	{ "FILESYSTEM",	TBL_DEFAULT },
	[S_SIZE] =	{ "SIZE",	TBL_DEFAULT | TBL_RIGHT },
	[S_FREE] =	{ "FREE",	TBL_DEFAULT | TBL_RIGHT },
	[S_WATERMARK] =	{ "WATERMARK",	TBL_DEFAULT | TBL_RIGHT },
	[S_MINE] =	{ "MINE",	TBL_DEFAULT | TBL_RIGHT },
	[S_ENTRIES] =	{ "ENTRIES",	TBL_DEFAULT | TBL_RIGHT },
	{ NULL, 0 }
};

struct status_state {
	struct tbl	 t;
};

static int
cmd_status_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct status_state *s = arg;
	char a[16], t[16], user[VIS_LEN(64)];

	if (m->type == MSG_FS) {
		if (ctx->json) {
			json_item(ctx, "{\"filesystems\":[");
			printf("{");
			json_field(stdout, "fs", m->str[A_FS]);
			printf(",\"watermark\":%" PRId64 ",\"total\":%" PRId64
			    ",\"avail\":%" PRId64 ",\"count\":%" PRId64
			    ",\"bytes\":%" PRId64 "}", m->num[A_WATERMARK],
			    m->num[A_TOTAL], m->num[A_AVAIL], m->num[A_COUNT],
			    m->num[A_BYTES]);
			return 0;
		}
		tbl_row(&s->t);
		tbl_str(&s->t, S_FS, m->str[A_FS]);
		fmt_size(a, sizeof(a), m->num[A_TOTAL]);
		tbl_str(&s->t, S_SIZE, a);
		fmt_size(a, sizeof(a), m->num[A_AVAIL]);
		tbl_str(&s->t, S_FREE, a);
		tbl_fmt(&s->t, S_WATERMARK, "%" PRId64 "%%",
		    m->num[A_WATERMARK]);
		fmt_size(a, sizeof(a), m->num[A_BYTES]);
		tbl_str(&s->t, S_MINE, a);
		tbl_fmt(&s->t, S_ENTRIES, "%" PRId64, m->num[A_COUNT]);
		return 0;
	}
	if (m->type != MSG_OK)
		return 0;
	if (ctx->json) {
		json_items_end(ctx, "{\"filesystems\":[");
		printf(",");
		json_field(stdout, "server", m->str[A_SERVER]);
		printf(",\"pid\":%" PRId64 ",\"uptime\":%" PRId64
		    ",\"uid\":%" PRId64, m->num[A_PID], m->num[A_UPTIME],
		    m->num[A_UID]);
		json_user(stdout, "user", m->num[A_UID]);
		printf(",\"admin\":%s,\"protocol\":%d",
		    m->num[A_ADMIN] ? "true" : "false", PROTOCOL_VERSION);
		if (m->str[A_MESSAGE] != NULL) {
			printf(",\"message\":");
			json_str(stdout, m->str[A_MESSAGE]);
		}
		printf("}\n");
		return 0;
	}
	/* The filesystems' table first, as the reply comes. */
	tbl_print(&s->t);
	/* --raw, --noheadings: the table alone, for scripts. */
	if (ctx->raw || ctx->noheadings)
		return 0;
	fmt_duration(a, sizeof(a), m->num[A_UPTIME]);
	fmt_size(t, sizeof(t), m->num[A_BYTES]);
	printf("%s, pid %" PRId64 ", up %s, protocol %d\n",
	    m->str[A_SERVER] ? m->str[A_SERVER] : "trashd", m->num[A_PID], a,
	    PROTOCOL_VERSION);
	printf("you: %s (uid %" PRId64 ")%s, %" PRId64 " entries, %s in the "
	    "trash\n", user_name(m->num[A_UID], user, sizeof(user)),
	    m->num[A_UID], m->num[A_ADMIN] ? " (admin)" : "",
	    m->num[A_COUNT], t);
	/* Such as "wipe deferred: 2 entries still open". */
	if (m->str[A_MESSAGE] != NULL)
		printf("%s\n", m->str[A_MESSAGE]);
	return 0;
}


static int
cmd_status_exec(struct ctx *ctx, int argc, char **argv)
{
	struct status_state s;
	struct proto_buf b;
	int ch, r;

	/* The common options alone. */
	while ((ch = cmd_getopt(ctx, &cmd_status_entry, argc, argv, &r)) !=
	    -1)
		if (ch == CMD_EXIT)
			return r;
	if (optind != argc)
		return cmd_usage_error(&cmd_status_entry, "no arguments");
	if ((r = cmd_tbl_init(ctx, &cmd_status_entry, &s.t, 0)) != 0)
		return r;
	proto_init(&b, MSG_STATUS);
	r = ctl_request(ctx, &b, cmd_status_msg, &s);
	tbl_print(&s.t);
	return r;
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "[-j] [--output cols] [--raw] [--noheadings]",
	.help = "show whether trashd runs, its filesystems and your usage",
	.cols = status_cols,
	.exec = cmd_status_exec,
};
