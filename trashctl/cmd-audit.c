/* SPDX-License-Identifier: ISC */
/*
 * trashctl audit: the audit log (admins), newest last.  Every filter is
 * sent to trashd, which applies them all in its query (and its limit
 * after them): nothing is filtered here.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

/* The options: getopt_long() reads them, "-h" lists them. */
static const struct option cmd_audit_opts[] = {
	{ "user", required_argument, NULL, 'u' },
	{ "actor", required_argument, NULL, 'u' },
	{ "owner", required_argument, NULL, 'O' },
	{ "path", required_argument, NULL, 'p' },
	{ "action", required_argument, NULL, 'A' },
	{ "result", required_argument, NULL, 'r' },
	{ "since", required_argument, NULL, 'S' },
	{ "until", required_argument, NULL, 'U' },
	{ "limit", required_argument, NULL, 'n' },
	CMD_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int
cmd_audit_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_audit_entry;
	struct audit_state s = { 0 };
	struct proto_buf b;
	/* The last of each option wins: a message has each filter once. */
	int64_t num[A_MAX];
	const char *str[A_MAX] = { NULL };
	const char *why;
	char *path = NULL;
	int64_t v;
	int ch, a, r;

	for (a = 0; a < A_MAX; a++)
		num[a] = -1;
	while ((ch = getopt_long(argc, argv, "A:hjn:O:p:r:S:U:u:",
	    cmd_audit_opts, NULL)) != -1) {
		switch (ch) {
		case 'u':
		case 'O':
			if (parse_user(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: no such user",
				    optarg);
			num[ch == 'u' ? A_UID : A_OWNER] = v;
			break;
		case 'p':
			/* As list's: absolute, through existing symlinks. */
			free(path);
			if ((path = abs_path(optarg)) == NULL)
				return cmd_usage_error(e, "%s: bad path",
				    optarg);
			break;
		case 'A':
		case 'r':
			if (optarg[0] == '\0')
				return cmd_usage_error(e, "an empty %s",
				    ch == 'A' ? "action" : "result");
			str[ch == 'A' ? A_ACTION : A_RESULT] = optarg;
			break;
		case 'S':
		case 'U':
			if (parse_when(optarg, &v, &why) < 0)
				return cmd_usage_error(e, "%s: %s", optarg,
				    why);
			num[ch == 'S' ? A_SINCE : A_BEFORE] = v;
			break;
		case 'n':
			if (parse_count(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: not a count "
				    "(a positive decimal number)", optarg);
			num[A_LIMIT] = v;
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
	if (optind != argc) {
		free(path);
		return cmd_usage_error(e, "no arguments");
	}
	proto_init(&b, MSG_AUDIT);
	for (a = 0; a < A_MAX; a++) {
		if (num[a] >= 0)
			proto_num(&b, a, num[a]);
		if (str[a] != NULL)
			proto_str(&b, a, str[a]);
	}
	proto_str(&b, A_PREFIX, path);
	free(path);
	ctx->vis_flags |= VIS_DQ;
	r = ctl_request(ctx, &b, cmd_audit_msg, &s);
	return r;
}

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.usage = "[-u actor] [-O owner] [-p path] [-A action] [-r result] "
	    "[-S time] [-U time] [-n count] [-j]",
	.help = "query the audit log (admins)",
	.opts = cmd_audit_opts,
	.exec = cmd_audit_exec,
};
