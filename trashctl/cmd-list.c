/* SPDX-License-Identifier: ISC */
/* trashctl list: the entries of your trash (admins: anyone's). */
#include <getopt.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashctl.h"

struct list_state {
	bool	 all;
	int64_t	 n;
};

/* The absolute path an entry had, as its owner knew it. */
static void
list_path(const struct proto_msg *m, char *buf, size_t len)
{
	const char *fs = m->str[A_FS];

	if (m->str[A_PATH] == NULL)
		snprintf(buf, len, "(unknown: %s)", m->str[A_NAME]);
	else
		snprintf(buf, len, "%s/%s", strcmp(fs, "/") == 0 ? "" : fs,
		    m->str[A_PATH]);
}

static int
cmd_list_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct list_state *s = arg;
	char path[PROTO_STR_MAX * 2 + 32], age[32], size[16], user[64];
	uint32_t fl = (uint32_t)m->num[A_FLAGS];

	if (m->type == MSG_OK) {
		if (ctx->json) {
			printf("%s],\"count\":%" PRId64 ",\"bytes\":%" PRId64
			    "}\n", s->n ? "" : "{\"entries\":[",
			    m->num[A_COUNT], m->num[A_BYTES]);
		} else if (s->n > 0) {
			fmt_size(size, sizeof(size), m->num[A_BYTES]);
			printf("%" PRId64 " entr%s, %s\n", m->num[A_COUNT],
			    m->num[A_COUNT] == 1 ? "y" : "ies", size);
		} else {
			printf("the trash is empty\n");
		}
		return 0;
	}
	if (m->type != MSG_ENTRY)
		return 0;
	list_path(m, path, sizeof(path));
	if (ctx->json) {
		printf("%s{\"id\":%" PRId64 ",\"uid\":%" PRId64 ",\"owner\":%"
		    PRId64 ",\"deleter\":%" PRId64 ",",
		    s->n++ ? "," : "{\"entries\":[", m->num[A_ID],
		    m->num[A_UID], m->num[A_OWNER], m->num[A_DELETER]);
		json_field(stdout, "fs", m->str[A_FS]);
		printf(",");
		json_field(stdout, "path", m->str[A_PATH] ? path : NULL);
		printf(",");
		json_field(stdout, "name", m->str[A_NAME]);
		printf(",\"deleted_ns\":%" PRId64 ",\"size\":%" PRId64
		    ",\"secure\":%s,\"undelete\":%s,\"state\":",
		    m->num[A_TIME], m->num[A_SIZE],
		    fl & FS_SECRM_FL ? "true" : "false",
		    fl & FS_UNRM_FL ? "true" : "false");
		json_str(stdout, m->str[A_STATE]);
		printf("}");
		return 0;
	}
	if (s->n++ == 0)
		printf("%8s %-10s %6s %-2s %s%s\n", "ID", "DELETED", "SIZE",
		    "FL", s->all ? "USER     " : "", "ORIGINAL PATH");
	fmt_age(age, sizeof(age), m->num[A_TIME]);
	fmt_size(size, sizeof(size), m->num[A_SIZE]);
	if (s->all)
		printf("%8" PRId64 " %-10s %6s %c%c %-8s %s%s\n", m->num[A_ID],
		    age, size, fl & FS_SECRM_FL ? 's' : '-',
		    fl & FS_UNRM_FL ? 'u' : '-',
		    user_name(m->num[A_UID], user, sizeof(user)), path,
		    strcmp(m->str[A_STATE], "wiping") == 0 ? " (wiping)" : "");
	else
		printf("%8" PRId64 " %-10s %6s %c%c %s%s\n", m->num[A_ID], age,
		    size, fl & FS_SECRM_FL ? 's' : '-',
		    fl & FS_UNRM_FL ? 'u' : '-', path,
		    strcmp(m->str[A_STATE], "wiping") == 0 ? " (wiping)" : "");
	return 0;
}

/* The options: getopt_long() reads them, "-h" lists them. */
static const struct option cmd_list_opts[] = {
	{ "user", required_argument, NULL, 'u' },
	{ "all", no_argument, NULL, 'a' },
	{ "older-than", required_argument, NULL, 'o' },
	{ "newer-than", required_argument, NULL, 'N' },
	{ "secure", no_argument, NULL, 'S' },
	{ "undelete", no_argument, NULL, 'U' },
	{ "limit", required_argument, NULL, 'n' },
	CMD_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int
cmd_list_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_list_entry;
	struct list_state s = { 0 };
	struct proto_buf b;
	const char *why;
	int64_t v, flags = 0;
	char *p;
	int ch, r;

	proto_init(&b, MSG_LIST);
	while ((ch = getopt_long(argc, argv, "ahjn:N:o:SUu:", cmd_list_opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			proto_num(&b, A_ALL, 1);
			s.all = true;
			break;
		case 'u':
			if (parse_user(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: no such user",
				    optarg);
			proto_num(&b, A_UID, v);
			break;
		case 'o':
		case 'N':
			if (parse_when(optarg, &v, &why) < 0)
				return cmd_usage_error(e, "%s: %s", optarg,
				    why);
			proto_num(&b, ch == 'o' ? A_BEFORE : A_SINCE, v);
			break;
		case 'S':
			flags |= FS_SECRM_FL;
			break;
		case 'U':
			flags |= FS_UNRM_FL;
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
	if (flags)
		proto_num(&b, A_FLAGS, flags);
	if (argc - optind > 1)
		return cmd_usage_error(e, "one path prefix at most");
	if (optind < argc) {
		if ((p = abs_path(argv[optind])) == NULL)
			return cmd_usage_error(e, "%s: bad path",
			    argv[optind]);
		proto_str(&b, A_PREFIX, p);
		free(p);
	}
	r = ctl_request(ctx, &b, cmd_list_msg, &s);
	return r;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.usage = "[-aSU] [-u user] [-o time] [-N time] [-n count] [-j] "
	    "[path]",
	.help = "list the entries of your trash, newest last",
	.opts = cmd_list_opts,
	.exec = cmd_list_exec,
};
