/* SPDX-License-Identifier: ISC */
/* trashctl status: is trashd up, which filesystems, my usage. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"
#include "vis.h"

/* A filesystem, in JSON and in the table. */
static const struct rec_field status_fields[] = {
	REC("fs", "FILESYSTEM", REC_STR, A_FS, 0),
	REC("watermark", "WATERMARK", REC_PCT, A_WATERMARK, REC_RIGHT),
	REC("total", "SIZE", REC_SIZE, A_TOTAL, REC_RIGHT),
	REC("avail", "FREE", REC_SIZE, A_AVAIL, REC_RIGHT),
	REC("count", "ENTRIES", REC_NUM, A_COUNT, REC_RIGHT),
	REC("bytes", "MINE", REC_SIZE, A_BYTES, REC_RIGHT),
	/* Writers that ran out of space or quota and waited for a purge. */
	REC("pressure", "PRESSURE", REC_NUM, A_PRESSURE, REC_RIGHT | REC_OMIT),
	REC("waited_ms", "WAITED-MS", REC_NUM, A_WAITED, REC_RIGHT | REC_OMIT),
	REC("wait_max_ms", "WAIT-MAX-MS", REC_NUM, A_WAIT_MAX,
	    REC_RIGHT | REC_OMIT),
	REC_END
};
#define STATUS_COLS	"FILESYSTEM,SIZE,FREE,WATERMARK,MINE,ENTRIES"

static void
status_protocol_json(const char *key, const struct proto_msg *m)
{
	(void)m;
	printf("\"%s\":%d", key, PROTOCOL_VERSION);
}

/* trashd and the caller, after the filesystems. */
static const struct rec_field status_daemon[] = {
	REC("server", NULL, REC_STR, A_SERVER, 0),
	REC("pid", NULL, REC_NUM, A_PID, 0),
	REC("uptime", NULL, REC_NUM, A_UPTIME, 0),
	REC("uid", NULL, REC_NUM, A_UID, 0),
	REC("user", NULL, REC_USER, A_UID, 0),
	{ "admin", NULL, REC_BOOL, A_ADMIN, .mask = -1 },
	{ "protocol", NULL, REC_FN, A_NONE, .json = status_protocol_json },
	/* Such as "wipe deferred: 2 entries still open". */
	REC("message", NULL, REC_TEXT, A_MESSAGE, REC_OMIT),
	REC_END
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
		if (ctx->json)
			rec_json_item(ctx, "{\"filesystems\":[",
			    status_fields, m);
		else
			rec_row(&s->t, m);
		return 0;
	}
	if (m->type != MSG_OK)
		return 0;
	if (ctx->json) {
		json_items_end(ctx, "{\"filesystems\":[");
		rec_json(status_daemon, m, false);
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
	if ((r = cmd_tbl_init(ctx, &cmd_status_entry, &s.t,
	    STATUS_COLS)) != 0)
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
	.cols = status_fields,
	.defcols = STATUS_COLS,
	.exec = cmd_status_exec,
};
