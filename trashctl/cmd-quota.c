/* SPDX-License-Identifier: ISC */
/* trashctl quota: trash usage against quota and retention. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

struct quota_state {
	int64_t	 n;
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
	char user[64], used[16], quota[40], ret[40], pct[16];
	int64_t q = PROTO_HAS(m, A_QUOTA) ? m->num[A_QUOTA] : -1;
	int64_t r = PROTO_HAS(m, A_RETENTION) ? m->num[A_RETENTION] : -1;

	if (m->type == MSG_OK) {
		if (ctx->json)
			printf("%s]}\n", s->n ? "" : "{\"usage\":[");
		else if (s->n == 0)
			printf("no usage\n");
		return 0;
	}
	if (m->type != MSG_USAGE)
		return 0;
	if (ctx->json) {
		printf("%s{", s->n++ ? "," : "{\"usage\":[");
		json_field(stdout, "fs", m->str[A_FS]);
		printf(",\"uid\":%" PRId64 ",\"count\":%" PRId64 ",\"bytes\":%"
		    PRId64 ",", m->num[A_UID], m->num[A_COUNT],
		    m->num[A_BYTES]);
		json_field(stdout, "quota_text", m->str[A_QUOTA_TEXT]);
		printf(",");
		json_field(stdout, "retention_text",
		    m->str[A_RETENTION_TEXT]);
		printf(",\"quota\":%" PRId64 ",\"retention\":%" PRId64 "}", q,
		    r);
		return 0;
	}
	if (s->n++ == 0)
		printf("%-10s %-20s %7s %7s %7s %5s %9s\n", "USER",
		    "FILESYSTEM", "ENTRIES", "USED", "QUOTA", "USE%",
		    "RETENTION");
	fmt_size(used, sizeof(used), m->num[A_BYTES]);
	quota_limit(quota, sizeof(quota), q, m->str[A_QUOTA_TEXT], true);
	quota_limit(ret, sizeof(ret), r, m->str[A_RETENTION_TEXT], false);
	if (q > 0)
		snprintf(pct, sizeof(pct), "%" PRId64 "%%",
		    m->num[A_BYTES] * 100 / q);
	else
		snprintf(pct, sizeof(pct), "-");
	printf("%-10s %-20s %7" PRId64 " %7s %7s %5s %9s\n",
	    user_name(m->num[A_UID], user, sizeof(user)), m->str[A_FS],
	    m->num[A_COUNT], used, quota, pct, ret);
	return 0;
}

/* The options: getopt_long() reads them, "-h" lists them. */
static const struct option cmd_quota_opts[] = {
	{ "user", required_argument, NULL, 'u' },
	{ "all", no_argument, NULL, 'a' },
	CMD_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int
cmd_quota_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_quota_entry;
	struct quota_state s = { 0 };
	struct proto_buf b;
	int64_t v;
	int ch;

	proto_init(&b, MSG_QUOTA);
	while ((ch = getopt_long(argc, argv, "ahju:", cmd_quota_opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			proto_num(&b, A_ALL, 1);
			break;
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
	return ctl_request(ctx, &b, cmd_quota_msg, &s);
}

const struct cmd_entry cmd_quota_entry = {
	.name = "quota",
	.usage = "[-a] [-u user] [-j]",
	.help = "show trash usage against quota and retention",
	.opts = cmd_quota_opts,
	.exec = cmd_quota_exec,
};
