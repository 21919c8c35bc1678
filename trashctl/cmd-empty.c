/* SPDX-License-Identifier: ISC */
/* trashctl empty: purge your whole trash; +s entries are wiped. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

static int
cmd_empty_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	char size[16];

	(void)arg;
	if (m->type == MSG_RESULT) {
		if (!ctx->json)
			fprintf(stderr, "trashctl: entry %" PRId64 " (%s): "
			    "%s\n", m->num[A_ID], m->str[A_PATH] ?
			    m->str[A_PATH] : "?", m->str[A_MESSAGE]);
		return 0;
	}
	if (m->type != MSG_OK)
		return 0;
	if (ctx->json) {
		printf("{\"emptied\":%" PRId64 ",\"failed\":%" PRId64
		    ",\"bytes\":%" PRId64 "}\n", m->num[A_DONE],
		    m->num[A_FAILED], m->num[A_BYTES]);
	} else {
		fmt_size(size, sizeof(size), m->num[A_BYTES]);
		printf("emptied %" PRId64 " entr%s (%s)%s\n", m->num[A_DONE],
		    m->num[A_DONE] == 1 ? "y" : "ies", size,
		    m->num[A_FAILED] ? ", some failed" : "");
	}
	return m->num[A_FAILED] > 0 ? EXIT_SOME : 0;
}

static int
cmd_empty_exec(struct ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		CMD_COMMON_OPTS,
		{ NULL, 0, NULL, 0 }
	};
	const struct cmd_entry *e = &cmd_empty_entry;
	struct proto_buf b;
	int64_t v;
	int ch;

	proto_init(&b, MSG_EMPTY);
	while ((ch = getopt_long(argc, argv, "hju:", opts, NULL)) != -1) {
		switch (ch) {
		case 'u':
			if (parse_user(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: no such user",
				    optarg);
			proto_num(&b, A_UID, v);
			break;
		case 'j':
			ctx->json = true;
			break;
		case 'h':
			return cmd_help(e);
		default:
			return cmd_usage_error(e, NULL);
		}
	}
	if (optind != argc)
		return cmd_usage_error(e, "no arguments");
	return ctl_request(ctx, &b, cmd_empty_msg, NULL);
}

const struct cmd_entry cmd_empty_entry = {
	.name = "empty",
	.usage = "[-u user] [-j]",
	.help = "empty your trash for good (+s entries are wiped)",
	.exec = cmd_empty_exec,
};
