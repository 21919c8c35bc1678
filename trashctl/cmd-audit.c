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
#include <string.h>

#include "trashctl.h"
#include "vis.h"

/*
 * The columns.  DETAILS is the record as people read it: the fields that
 * apply (entry=, trash=, owner=, fs="...", path="...", name="...", any
 * other target) then after ": " the result.  What a user named is quoted
 * with its quotes and control bytes escaped (VIS_DQ), so nothing in it
 * can end the field or the line.  --raw shows each field in a column of
 * its own instead (its encoding escapes blanks: DETAILS would be one
 * word there, and its quotes prove nothing).
 */
static void audit_details_cell(struct tbl *, int, const struct proto_msg *);

/* A record, in JSON and in the table (trashctl(1)). */
static const struct rec_field audit_fields[] = {
	REC("id", "ID", REC_NUM, A_ID, REC_RIGHT),
	REC("time_ns", "TIME", REC_TIME, A_TIME, 0),
	REC("uid", "UID", REC_NUM, A_UID, REC_RIGHT),
	REC("user", "USER", REC_USER, A_UID, 0),
	REC("pid", "PID", REC_NUM, A_PID, REC_RIGHT),
	REC("action", "ACTION", REC_STR, A_ACTION, 0),
	REC("entry", "ENTRY", REC_NUM, A_ENTRY, REC_RIGHT | REC_OPT),
	REC("trash_uid", NULL, REC_NUM, A_TRASH, REC_OPT),
	REC("trash_user", "TRASH", REC_USER, A_TRASH, REC_OPT),
	REC("owner_uid", NULL, REC_NUM, A_OWNER, REC_OPT),
	REC("owner", "OWNER", REC_USER, A_OWNER, REC_OPT),
	REC("fs", "FS", REC_STR, A_FS, 0),
	REC("path", "PATH", REC_STR, A_PATH, 0),
	REC("name", "NAME", REC_STR, A_NAME, 0),
	REC("target", "TARGET", REC_STR, A_TARGET, 0),
	REC("result", "RESULT", REC_STR, A_RESULT, 0),
	{ NULL, "DETAILS", REC_FN, A_NONE, .cell = audit_details_cell },
	REC_END
};
/* DETAILS, the last field. */
#define AUDIT_DETAILS \
	((int)(sizeof(audit_fields) / sizeof(audit_fields[0])) - 2)
/* The columns without --output; with --raw, the fields of DETAILS. */
#define AUDIT_COLS	"TIME,USER,PID,ACTION,DETAILS"
#define AUDIT_COLS_RAW	"TIME,USER,PID,ACTION,ENTRY,TRASH,OWNER,FS,PATH," \
	"NAME,TARGET,RESULT"

struct audit_state {
	struct tbl	 t;
};

/* The DETAILS of a record (see above), malloc'd. */
static char *
audit_details(const struct proto_msg *m)
{
	char user[VIS_LEN(64)], *buf = NULL;
	size_t len = 0;
	bool any = false;
	FILE *f;

	if ((f = open_memstream(&buf, &len)) == NULL) {
		fprintf(stderr, "trashctl: out of memory\n");
		exit(EXIT_ERROR);
	}
	if (PROTO_HAS(m, A_ENTRY)) {
		fprintf(f, " entry=%" PRId64, m->num[A_ENTRY]);
		any = true;
	}
	if (PROTO_HAS(m, A_TRASH)) {
		fprintf(f, " trash=%s", user_name(m->num[A_TRASH], user,
		    sizeof(user)));
		any = true;
	}
	if (PROTO_HAS(m, A_OWNER)) {
		fprintf(f, " owner=%s", user_name(m->num[A_OWNER], user,
		    sizeof(user)));
		any = true;
	}
	if (m->str[A_FS] != NULL) {
		fprintf(f, " fs=\"%s\"", m->str[A_FS]);
		any = true;
	}
	if (m->str[A_PATH] != NULL) {
		fprintf(f, " path=\"%s\"", m->str[A_PATH]);
		any = true;
	}
	if (m->str[A_NAME] != NULL) {
		fprintf(f, " name=\"%s\"", m->str[A_NAME]);
		any = true;
	}
	if (m->str[A_TARGET] != NULL) {
		fprintf(f, " %s", m->str[A_TARGET]);
		any = true;
	}
	fprintf(f, "%s: %s", any ? "" : " -", m->str[A_RESULT]);
	if (fclose(f) != 0 || buf == NULL) {
		fprintf(stderr, "trashctl: out of memory\n");
		exit(EXIT_ERROR);
	}
	/* Without the blank that led each field. */
	memmove(buf, buf + 1, len);
	return buf;
}

/* Its strings escaped by client.c (no --raw: see above). */
static void
audit_details_cell(struct tbl *t, int col, const struct proto_msg *m)
{
	char *d = audit_details(m);

	tbl_str(t, col, d);
	free(d);
}

static int
cmd_audit_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct audit_state *s = arg;

	if (m->type == MSG_OK) {
		if (ctx->json) {
			json_items_end(ctx, "{\"audit\":[");
			printf("}\n");
		}
		return 0;
	}
	if (m->type != MSG_AUDIT_ROW)
		return 0;
	if (ctx->json)
		rec_json_item(ctx, "{\"audit\":[", audit_fields, m);
	else
		rec_row(&s->t, m);
	return 0;
}

/* Its own options (cmd.c adds the common ones); the filters. */
static const struct cmd_opt cmd_audit_opts[] = {
	{ "actor", 'u', "user", "who acted, or on whose behalf trashd did" },
	CMD_OPT_USER("the same as --actor"),
	{ "owner", 'O', "user", "whose trash or whose file" },
	{ "path", 'p', "path", "at or under path, component by component" },
	{ "action", 'A', "action", "exactly this action (ctl-restore, ...)" },
	{ "result", 'r', "result", "the result's first word (ok, denied, ...)" },
	{ "since", 'S', "time", "at or after time" },
	{ "until", 'U', "time", "before time" },
	{ "limit", 'n', "count", "the newest count rows (100, 10000 at most)" },
	{ NULL, 0, NULL, NULL }
};

static int
cmd_audit_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_audit_entry;
	struct audit_state s;
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
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1) {
		switch (ch) {
		case 'O':
			if (parse_user(optarg, &v) < 0) {
				free(path);
				return cmd_usage_error(e, "%s: no such user",
				    optarg);
			}
			num[A_OWNER] = v;
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
		case CMD_EXIT:
			free(path);
			return r;
		}
	}
	num[A_UID] = ctx->user;
	if (optind != argc) {
		free(path);
		return cmd_usage_error(e, "no arguments");
	}
	if ((r = cmd_tbl_init(ctx, e, &s.t, ctx->raw ?
	    AUDIT_COLS_RAW : AUDIT_COLS)) != 0 ||
	    (ctx->raw && s.t.map[AUDIT_DETAILS] >= 0)) {
		free(path);
		return r != 0 ? r : cmd_usage_error(e, "DETAILS is not for "
		    "--raw, which has its fields in columns");
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
	tbl_print(&s.t);
	return r;
}

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.usage = "[-u actor] [-O owner] [-p path] [-A action] [-r result] "
	    "[-S time] [-U time] [-n count] [-j] [--output cols] [--raw] "
	    "[--noheadings]",
	.help = "query the audit log (admins)",
	.opts = cmd_audit_opts,
	.cols = audit_fields,
	.defcols = AUDIT_COLS,
	.exec = cmd_audit_exec,
};
