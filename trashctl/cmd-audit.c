/* SPDX-License-Identifier: ISC */
/* trashctl audit: the audit log (admins), newest last. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

struct audit_state {
	int64_t	 n;
};

static int
cmd_audit_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct audit_state *s = arg;
	char when[32], user[64];

	if (m->type == MSG_OK) {
		if (ctx->json)
			printf("%s]}\n", s->n ? "" : "{\"audit\":[");
		return 0;
	}
	if (m->type != MSG_AUDIT_ROW)
		return 0;
	if (ctx->json) {
		printf("%s{\"id\":%" PRId64 ",\"time_ns\":%" PRId64 ",\"uid\":%"
		    PRId64 ",\"pid\":%" PRId64 ",\"action\":",
		    s->n++ ? "," : "{\"audit\":[", m->num[A_ID],
		    m->num[A_TIME], m->num[A_UID], m->num[A_PID]);
		json_str(stdout, m->str[A_ACTION]);
		printf(",\"target\":");
		json_str(stdout, m->str[A_TARGET]);
		printf(",\"result\":");
		json_str(stdout, m->str[A_RESULT]);
		printf("}");
		return 0;
	}
	s->n++;
	fmt_time(when, sizeof(when), m->num[A_TIME]);
	printf("%s %-8s %7" PRId64 " %-14s %s: %s\n", when,
	    m->num[A_UID] < 0 ? "-" : user_name(m->num[A_UID], user,
	    sizeof(user)), m->num[A_PID], m->str[A_ACTION], m->str[A_TARGET],
	    m->str[A_RESULT]);
	return 0;
}

static int
cmd_audit_exec(struct ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "action", required_argument, NULL, 'A' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "limit", required_argument, NULL, 'n' },
		CMD_COMMON_OPTS,
		{ NULL, 0, NULL, 0 }
	};
	const struct cmd_entry *e = &cmd_audit_entry;
	struct audit_state s = { 0 };
	struct proto_buf b;
	int64_t v;
	int ch;

	proto_init(&b, MSG_AUDIT);
	while ((ch = getopt_long(argc, argv, "A:hjn:S:U:u:", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'u':
			if (parse_user(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: no such user",
				    optarg);
			proto_num(&b, A_UID, v);
			break;
		case 'A':
			proto_str(&b, A_ACTION, optarg);
			break;
		case 'S':
		case 'U':
			if (parse_time(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: not a time or "
				    "duration", optarg);
			proto_num(&b, ch == 'S' ? A_SINCE : A_BEFORE, v);
			break;
		case 'n':
			if (parse_count(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: not a count "
				    "(a positive decimal number)", optarg);
			proto_num(&b, A_LIMIT, v);
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
	return ctl_request(ctx, &b, cmd_audit_msg, &s);
}

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.usage = "[-u user] [-A action] [-S time] [-U time] [-n count] [-j]",
	.help = "query the audit log (admins)",
	.exec = cmd_audit_exec,
};
