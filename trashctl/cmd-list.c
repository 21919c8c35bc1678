/* SPDX-License-Identifier: ISC */
/* trashctl list: the entries of your trash (admins: anyone's). */
#include <getopt.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashctl.h"

/* The columns of its table; the ones marked TBL_DEFAULT without --output. */
enum { L_ID, L_DELETED, L_TIME, L_SIZE, L_FL, L_USER, L_UID, L_DELETER,
    L_STATE, L_FS, L_NAME, L_PATH };
static const struct tbl_col list_cols[] = {
	[L_ID] =	{ "ID",		TBL_DEFAULT | TBL_RIGHT },
	[L_DELETED] =	{ "DELETED",	TBL_DEFAULT },
	[L_TIME] =	{ "TIME",	0 },
	[L_SIZE] =	{ "SIZE",	TBL_DEFAULT | TBL_RIGHT },
	[L_FL] =	{ "FL",		TBL_DEFAULT },
	[L_USER] =	{ "USER",	TBL_ALL },
	[L_UID] =	{ "UID",	TBL_RIGHT },
	[L_DELETER] =	{ "DELETER",	0 },
	[L_STATE] =	{ "STATE",	0 },
	[L_FS] =	{ "FS",		0 },
	[L_NAME] =	{ "NAME",	0 },
	[L_PATH] =	{ "PATH",	TBL_DEFAULT },
	{ NULL, 0 }
};

struct list_state {
	struct tbl	 t;
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

static void
list_json(struct ctx *ctx, const struct proto_msg *m, const char *path)
{
	uint32_t fl = (uint32_t)m->num[A_FLAGS];

	json_item(ctx, "{\"entries\":[");
	printf("{\"id\":%" PRId64 ",\"uid\":%" PRId64, m->num[A_ID],
	    m->num[A_UID]);
	json_user(stdout, "user", m->num[A_UID]);
	printf(",\"owner\":%" PRId64 ",\"deleter\":%" PRId64 ",",
	    m->num[A_OWNER], m->num[A_DELETER]);
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
}

static void
list_row(struct tbl *t, const struct proto_msg *m, const char *path)
{
	char buf[32];
	uint32_t fl = (uint32_t)m->num[A_FLAGS];

	tbl_row(t);
	tbl_fmt(t, L_ID, "%" PRId64, m->num[A_ID]);
	fmt_age(buf, sizeof(buf), m->num[A_TIME]);
	tbl_str(t, L_DELETED, buf);
	fmt_time(buf, sizeof(buf), m->num[A_TIME]);
	tbl_str(t, L_TIME, buf);
	fmt_size(buf, sizeof(buf), m->num[A_SIZE]);
	tbl_str(t, L_SIZE, buf);
	tbl_fmt(t, L_FL, "%c%c", fl & FS_SECRM_FL ? 's' : '-',
	    fl & FS_UNRM_FL ? 'u' : '-');
	tbl_user(t, L_USER, m->num[A_UID]);
	tbl_fmt(t, L_UID, "%" PRId64, m->num[A_UID]);
	tbl_user(t, L_DELETER, m->num[A_DELETER]);
	tbl_str(t, L_STATE, m->str[A_STATE]);
	tbl_str(t, L_FS, m->str[A_FS]);
	tbl_str(t, L_NAME, m->str[A_NAME]);
	/* The one that is going says so, where people look. */
	if (strcmp(m->str[A_STATE], "wiping") == 0 && !t->ctx->raw)
		tbl_fmt(t, L_PATH, "%s (wiping)", path);
	else
		tbl_str(t, L_PATH, path);
}

static int
cmd_list_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct list_state *s = arg;
	char path[PROTO_STR_MAX * 2 + 32], size[16];

	if (m->type == MSG_OK) {
		if (ctx->json) {
			json_items_end(ctx, "{\"entries\":[");
			printf(",\"count\":%" PRId64 ",\"bytes\":%" PRId64
			    "}\n", m->num[A_COUNT], m->num[A_BYTES]);
			return 0;
		}
		tbl_print(&s->t);
		/* --raw, --noheadings: the table alone, for scripts. */
		if (ctx->raw || ctx->noheadings)
			return 0;
		if (s->t.rows > 0) {
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
	if (ctx->json)
		list_json(ctx, m, path);
	else
		list_row(&s->t, m, path);
	return 0;
}

/* Its own options (cmd.c adds the common ones). */
static const struct cmd_opt cmd_list_opts[] = {
	CMD_OPT_USER("that user's trash (admins)"),
	{ "all", 'a', NULL, "every user's trash (admins), and whose" },
	{ "older-than", 'o', "time", "only what was deleted before time" },
	{ "newer-than", 'N', "time", "only what was deleted at or after time" },
	{ "secure", 'S', NULL, "only +s entries (secure deletion)" },
	{ "undelete", 'U', NULL, "only +u entries (undelete)" },
	{ "limit", 'n', "count", "only the newest count entries" },
	{ NULL, 0, NULL, NULL }
};

static int
cmd_list_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_list_entry;
	struct list_state s;
	struct proto_buf b;
	const char *why;
	int64_t v, flags = 0;
	bool all = false;
	char *p;
	int ch, r;

	proto_init(&b, MSG_LIST);
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1) {
		switch (ch) {
		case 'a':
			proto_num(&b, A_ALL, 1);
			all = true;
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
		case CMD_EXIT:
			return r;
		}
	}
	if (ctx->user >= 0)
		proto_num(&b, A_UID, ctx->user);
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
	if ((r = cmd_tbl_init(ctx, e, &s.t, all ? TBL_ALL : 0)) != 0)
		return r;
	r = ctl_request(ctx, &b, cmd_list_msg, &s);
	/* Cut short (trashd gone): what came is still shown. */
	tbl_print(&s.t);
	return r;
}

const struct cmd_entry cmd_list_entry = {
	.name = "list",
	.usage = "[-aSU] [-u user] [-o time] [-N time] [-n count] [-j] "
	    "[--output cols] [--raw] [--noheadings] [path]",
	.help = "list the entries of your trash, newest last",
	.opts = cmd_list_opts,
	.cols = list_cols,
	.exec = cmd_list_exec,
};
