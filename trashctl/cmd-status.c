/* SPDX-License-Identifier: ISC */
/* trashctl status: is trashd up, which filesystems, my usage. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

struct status_state {
	int	 nfs;
};

static int
cmd_status_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct status_state *s = arg;
	char a[16], b[16], t[16];

	if (m->type == MSG_FS) {
		if (ctx->json) {
			printf("%s{", s->nfs++ ? "," : "{\"filesystems\":[");
			json_field(stdout, "fs", m->str[A_FS]);
			printf(",\"watermark\":%" PRId64 ",\"total\":%" PRId64
			    ",\"avail\":%" PRId64 ",\"count\":%" PRId64
			    ",\"bytes\":%" PRId64 "}", m->num[A_WATERMARK],
			    m->num[A_TOTAL], m->num[A_AVAIL], m->num[A_COUNT],
			    m->num[A_BYTES]);
			return 0;
		}
		if (s->nfs++ == 0)
			printf("%-24s %7s %7s %9s %7s %s\n", "FILESYSTEM",
			    "SIZE", "FREE", "WATERMARK", "MINE", "ENTRIES");
		fmt_size(a, sizeof(a), m->num[A_TOTAL]);
		fmt_size(b, sizeof(b), m->num[A_AVAIL]);
		fmt_size(t, sizeof(t), m->num[A_BYTES]);
		printf("%-24s %7s %7s %8" PRId64 "%% %7s %" PRId64 "\n",
		    m->str[A_FS], a, b, m->num[A_WATERMARK], t,
		    m->num[A_COUNT]);
		return 0;
	}
	if (m->type != MSG_OK)
		return 0;
	if (ctx->json) {
		printf("%s],", s->nfs ? "" : "{\"filesystems\":[");
		json_field(stdout, "server", m->str[A_SERVER]);
		printf(",\"pid\":%" PRId64 ",\"uptime\":%" PRId64
		    ",\"uid\":%" PRId64 ",\"admin\":%s,\"protocol\":%d",
		    m->num[A_PID], m->num[A_UPTIME], m->num[A_UID],
		    m->num[A_ADMIN] ? "true" : "false", PROTOCOL_VERSION);
		if (m->str[A_MESSAGE] != NULL) {
			printf(",\"message\":");
			json_str(stdout, m->str[A_MESSAGE]);
		}
		printf("}\n");
		return 0;
	}
	fmt_duration(a, sizeof(a), m->num[A_UPTIME]);
	fmt_size(t, sizeof(t), m->num[A_BYTES]);
	printf("%s, pid %" PRId64 ", up %s, protocol %d\n",
	    m->str[A_SERVER] ? m->str[A_SERVER] : "trashd", m->num[A_PID], a,
	    PROTOCOL_VERSION);
	printf("you: uid %" PRId64 "%s, %" PRId64 " entries, %s in the "
	    "trash\n", m->num[A_UID], m->num[A_ADMIN] ? " (admin)" : "",
	    m->num[A_COUNT], t);
	/* Such as "wipe deferred: 2 entries still open". */
	if (m->str[A_MESSAGE] != NULL)
		printf("%s\n", m->str[A_MESSAGE]);
	return 0;
}

/* The options: getopt_long() reads them, "-h" lists them. */
static const struct option cmd_status_opts[] = {
	CMD_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int
cmd_status_exec(struct ctx *ctx, int argc, char **argv)
{
	struct status_state s = { 0 };
	struct proto_buf b;
	int ch;

	while ((ch = getopt_long(argc, argv, "hj", cmd_status_opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			return cmd_help(&cmd_status_entry);
		default:
			return cmd_usage_error(&cmd_status_entry, NULL);
		}
	}
	if (optind != argc)
		return cmd_usage_error(&cmd_status_entry, "no arguments");
	proto_init(&b, MSG_STATUS);
	return ctl_request(ctx, &b, cmd_status_msg, &s);
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.usage = "[-j]",
	.help = "show whether trashd runs, its filesystems and your usage",
	.opts = cmd_status_opts,
	.exec = cmd_status_exec,
};
