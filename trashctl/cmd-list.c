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

/* "path": the absolute path, null if unknown. */
static void
list_path_json(const char *key, const struct proto_msg *m)
{
	char path[PROTO_STR_MAX * 2 + 32];

	list_path(m, path, sizeof(path));
	json_field(stdout, key, m->str[A_PATH] ? path : NULL);
}

static void
list_path_cell(struct tbl *t, int col, const struct proto_msg *m)
{
	char path[PROTO_STR_MAX * 2 + 32];

	list_path(m, path, sizeof(path));
	/* The one that is going says so, where people look. */
	if (strcmp(m->str[A_STATE], "wiping") == 0 && !t->ctx->raw)
		tbl_fmt(t, col, "%s (wiping)", path);
	else
		tbl_str(t, col, path);
}

/* FL: s secure deletion, u undelete. */
static void
list_flags_cell(struct tbl *t, int col, const struct proto_msg *m)
{
	uint32_t fl = (uint32_t)m->num[A_FLAGS];

	tbl_fmt(t, col, "%c%c", fl & FS_SECRM_FL ? 's' : '-',
	    fl & FS_UNRM_FL ? 'u' : '-');
}

/* An entry, in JSON and in the table (trashctl(1)). */
static const struct rec_field list_fields[] = {
	REC("id", "ID", REC_NUM, A_ID, REC_RIGHT),
	REC("uid", "UID", REC_NUM, A_UID, REC_RIGHT),
	REC("user", "USER", REC_USER, A_UID, 0),
	REC("owner", NULL, REC_NUM, A_OWNER, 0),
	REC("deleter", NULL, REC_NUM, A_DELETER, 0),
	REC(NULL, "DELETER", REC_USER, A_DELETER, 0),
	REC("fs", "FS", REC_STR, A_FS, 0),
	{ "path", "PATH", REC_FN, A_PATH, .json = list_path_json,
	    .cell = list_path_cell },
	REC("name", "NAME", REC_STR, A_NAME, 0),
	REC("deleted_ns", "TIME", REC_TIME, A_TIME, 0),
	REC(NULL, "DELETED", REC_AGE, A_TIME, 0),
	REC("size", "SIZE", REC_SIZE, A_SIZE, REC_RIGHT),
	{ "secure", NULL, REC_BOOL, A_FLAGS, .mask = FS_SECRM_FL },
	{ "undelete", NULL, REC_BOOL, A_FLAGS, .mask = FS_UNRM_FL },
	{ NULL, "FL", REC_FN, A_FLAGS, .cell = list_flags_cell },
	REC("state", "STATE", REC_TEXT, A_STATE, 0),
	REC_END
};
/* The columns without --output; with -a, whose too. */
#define LIST_COLS	"ID,DELETED,SIZE,FL,PATH"
#define LIST_COLS_ALL	"ID,DELETED,SIZE,FL,USER,PATH"

/* The totals, after the entries. */
static const struct rec_field list_total[] = {
	REC("count", NULL, REC_NUM, A_COUNT, 0),
	REC("bytes", NULL, REC_NUM, A_BYTES, 0),
	REC_END
};

static int
cmd_list_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct list_state *s = arg;
	char size[16];

	if (m->type == MSG_OK) {
		if (ctx->json) {
			json_items_end(ctx, "{\"entries\":[");
			rec_json(list_total, m, false);
			printf("}\n");
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
	if (ctx->json)
		rec_json_item(ctx, "{\"entries\":[", list_fields, m);
	else
		rec_row(&s->t, m);
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
	if ((r = cmd_tbl_init(ctx, e, &s.t, all ? LIST_COLS_ALL :
	    LIST_COLS)) != 0)
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
	.cols = list_fields,
	.defcols = LIST_COLS,
	.exec = cmd_list_exec,
};
