/* SPDX-License-Identifier: ISC */
/* trashctl audit: the audit log (admins), newest last. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"
#include "vis.h"

struct audit_state {
	int64_t	 n;
};

/* ,"KEY":N or ,"KEY":null for an optional number. */
static void
audit_json_num(const struct proto_msg *m, int a, const char *key)
{
	if (PROTO_HAS(m, a))
		printf(",\"%s\":%" PRId64, key, m->num[a]);
	else
		printf(",\"%s\":null", key);
}

/*
 * A record is fields, never a sentence: what a user named (the entry's
 * path and name) is quoted, with its quotes and control bytes escaped
 * (ctx->vis_flags), so nothing in it can end the field or the line.
 */
static void
audit_print(const struct proto_msg *m)
{
	char when[32], user[64];
	bool any = false;

	fmt_time(when, sizeof(when), m->num[A_TIME]);
	printf("%s %-8s %7" PRId64 " %-14s", when, m->num[A_UID] < 0 ? "-" :
	    user_name(m->num[A_UID], user, sizeof(user)), m->num[A_PID],
	    m->str[A_ACTION]);
	if (PROTO_HAS(m, A_ENTRY)) {
		printf(" entry=%" PRId64, m->num[A_ENTRY]);
		any = true;
	}
	if (PROTO_HAS(m, A_TRASH)) {
		printf(" trash=%s", user_name(m->num[A_TRASH], user,
		    sizeof(user)));
		any = true;
	}
	if (PROTO_HAS(m, A_OWNER)) {
		printf(" owner=%s", user_name(m->num[A_OWNER], user,
		    sizeof(user)));
		any = true;
	}
	if (m->str[A_FS] != NULL) {
		printf(" fs=\"%s\"", m->str[A_FS]);
		any = true;
	}
	if (m->str[A_PATH] != NULL) {
		printf(" path=\"%s\"", m->str[A_PATH]);
		any = true;
	}
	if (m->str[A_NAME] != NULL) {
		printf(" name=\"%s\"", m->str[A_NAME]);
		any = true;
	}
	if (m->str[A_TARGET] != NULL) {
		printf(" %s", m->str[A_TARGET]);
		any = true;
	}
	printf("%s: %s\n", any ? "" : " -", m->str[A_RESULT]);
}

static int
cmd_audit_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct audit_state *s = arg;

	if (m->type == MSG_OK) {
		if (ctx->json)
			printf("%s]}\n", s->n ? "" : "{\"audit\":[");
		return 0;
	}
	if (m->type != MSG_AUDIT_ROW)
		return 0;
	if (!ctx->json) {
		s->n++;
		audit_print(m);
		return 0;
	}
	printf("%s{\"id\":%" PRId64 ",\"time_ns\":%" PRId64 ",\"uid\":%"
	    PRId64 ",\"pid\":%" PRId64 ",", s->n++ ? "," : "{\"audit\":[",
	    m->num[A_ID], m->num[A_TIME], m->num[A_UID], m->num[A_PID]);
	json_field(stdout, "action", m->str[A_ACTION]);
	audit_json_num(m, A_ENTRY, "entry");
	audit_json_num(m, A_TRASH, "trash_uid");
	audit_json_num(m, A_OWNER, "owner_uid");
	printf(",");
	json_field(stdout, "fs", m->str[A_FS]);
	printf(",");
	json_field(stdout, "path", m->str[A_PATH]);
	printf(",");
	json_field(stdout, "name", m->str[A_NAME]);
	printf(",");
	json_field(stdout, "target", m->str[A_TARGET]);
	printf(",");
	json_field(stdout, "result", m->str[A_RESULT]);
	printf("}");
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
	const char *why;
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
			if (parse_when(optarg, &v, &why) < 0)
				return cmd_usage_error(e, "%s: %s", optarg,
				    why);
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
	ctx->vis_flags |= VIS_DQ;
	return ctl_request(ctx, &b, cmd_audit_msg, &s);
}

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.usage = "[-u user] [-A action] [-S time] [-U time] [-n count] [-j]",
	.help = "query the audit log (admins)",
	.exec = cmd_audit_exec,
};
