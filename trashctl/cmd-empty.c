/* SPDX-License-Identifier: ISC */
/*
 * trashctl empty: purge your whole trash, or what was deleted before a
 * time; +s entries are wiped.  A dry run shows what would go and touches
 * nothing.  Emptying another user's trash, or everyone's, is confirmed
 * first.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trashctl.h"

struct empty_state {
	bool	 dry;
	int64_t	 n;
};

/* A dry run's entry in JSON (its path relative to fs); the totals. */
static const struct rec_field empty_fields[] = {
	REC("id", NULL, REC_NUM, A_ID, 0),
	REC("uid", NULL, REC_NUM, A_UID, 0),
	REC("user", NULL, REC_USER, A_UID, 0),
	REC("fs", NULL, REC_STR, A_FS, 0),
	REC("path", NULL, REC_STR, A_PATH, 0),
	REC("name", NULL, REC_STR, A_NAME, 0),
	REC("deleted_ns", NULL, REC_NUM, A_TIME, 0),
	REC("size", NULL, REC_NUM, A_SIZE, 0),
	REC_END
};
static const struct rec_field empty_total[] = {
	REC("count", NULL, REC_NUM, A_COUNT, 0),
	REC("bytes", NULL, REC_NUM, A_BYTES, 0),
	REC_END
};
/* Not a dry run. */
static const struct rec_field empty_done[] = {
	REC("emptied", NULL, REC_NUM, A_DONE, 0),
	REC("failed", NULL, REC_NUM, A_FAILED, 0),
	REC("bytes", NULL, REC_NUM, A_BYTES, 0),
	REC_END
};

/* A dry run's entry: what a list shows of it. */
static void
empty_dry_entry(struct ctx *ctx, struct empty_state *s,
    const struct proto_msg *m)
{
	const char *fs = m->str[A_FS], *sep = strcmp(fs, "/") == 0 ? "" : "/";
	char size[16], user[64];

	if (ctx->json) {
		rec_json_item(ctx, "{\"dry_run\":true,\"entries\":[",
		    empty_fields, m);
		return;
	}
	s->n++;
	fmt_size(size, sizeof(size), m->num[A_SIZE]);
	if (m->str[A_PATH] != NULL)
		printf("would empty %8" PRId64 " %6s %-8s %s%s%s\n",
		    m->num[A_ID], size, user_name(m->num[A_UID], user,
		    sizeof(user)), strcmp(fs, "/") == 0 ? "" : fs, "/",
		    m->str[A_PATH]);
	else
		printf("would empty %8" PRId64 " %6s %-8s (unknown: %s%s%s)\n",
		    m->num[A_ID], size, user_name(m->num[A_UID], user,
		    sizeof(user)), fs, sep, m->str[A_NAME]);
}

static int
cmd_empty_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct empty_state *s = arg;
	char size[16];

	if (m->type == MSG_ENTRY) {
		empty_dry_entry(ctx, s, m);
		return 0;
	}
	if (m->type == MSG_RESULT) {
		if (!ctx->json)
			fprintf(stderr, "trashctl: entry %" PRId64 " (%s): "
			    "%s\n", m->num[A_ID], m->str[A_PATH] ?
			    m->str[A_PATH] : "?", m->str[A_MESSAGE]);
		return 0;
	}
	if (m->type != MSG_OK)
		return 0;
	if (s->dry && ctx->json) {
		json_items_end(ctx, "{\"dry_run\":true,\"entries\":[");
		rec_json(empty_total, m, false);
		printf("}\n");
	} else if (s->dry) {
		fmt_size(size, sizeof(size), m->num[A_BYTES]);
		printf("would empty %" PRId64 " entr%s (%s); nothing was "
		    "touched\n", m->num[A_COUNT], m->num[A_COUNT] == 1 ? "y" :
		    "ies", size);
	} else if (ctx->json) {
		printf("{");
		rec_json(empty_done, m, true);
		printf("}\n");
	} else {
		fmt_size(size, sizeof(size), m->num[A_BYTES]);
		printf("emptied %" PRId64 " entr%s (%s)%s\n", m->num[A_DONE],
		    m->num[A_DONE] == 1 ? "y" : "ies", size,
		    m->num[A_FAILED] ? ", some failed" : "");
	}
	return m->num[A_FAILED] > 0 ? EXIT_SOME : 0;
}

/* status's reply: whether trashd takes the caller for an admin. */
static int
empty_admin_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	(void)ctx;
	if (m->type == MSG_OK)
		*(bool *)arg = PROTO_HAS(m, A_ADMIN) && m->num[A_ADMIN];
	return 0;
}

/*
 * An admin emptying another user's trash or everyone's: only with --yes,
 * or when a person at a terminal types "yes".  Anything else is a usage
 * error (exit 2) and nothing is sent: a script that forgot --yes must not
 * empty a trash because nobody was there to say no.  Whether the caller
 * is an admin is trashd's to say (the admin group is its config's); one
 * who is not is sent on, to be refused and audited as such.
 */
static int
empty_confirm(struct ctx *ctx, const struct cmd_entry *e, const char *whose)
{
	struct proto_buf b;
	char line[16];
	bool admin = false;
	int r;

	proto_init(&b, MSG_STATUS);
	if ((r = ctl_request(ctx, &b, empty_admin_msg, &admin)) != 0)
		return r;
	if (!admin)
		return 0;

	if (!isatty(STDIN_FILENO))
		return cmd_usage_error(e, "emptying %s is confirmed with "
		    "--yes (standard input is not a terminal)", whose);
	fprintf(stderr, "Empty %s for good (+s entries are wiped)? "
	    "Type yes to go on: ", whose);
	fflush(stderr);
	if (fgets(line, sizeof(line), stdin) == NULL ||
	    strcmp(line, "yes\n") != 0)
		return cmd_usage_error(e, "not confirmed: nothing was "
		    "emptied");
	return 0;
}

/* Its own options (cmd.c adds the common ones). */
enum { OPT_DRY_RUN = OPT_CMD };
static const struct cmd_opt cmd_empty_opts[] = {
	CMD_OPT_USER("empty that user's trash (admins)"),
	{ "all", 'a', NULL, "empty every user's trash (admins)" },
	{ "older-than", 'o', "time", "only what was deleted before time" },
	{ "dry-run", OPT_DRY_RUN, NULL,
	    "show what would go, and touch nothing" },
	{ "yes", 'y', NULL, "do not ask before emptying others' trash" },
	{ NULL, 0, NULL, NULL }
};

static int
cmd_empty_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_empty_entry;
	struct empty_state s = { 0 };
	struct proto_buf b;
	const char *why;
	char whose[96], user[64];
	bool all = false, yes = false, other = false;
	int64_t v, uid;
	int ch, r;

	proto_init(&b, MSG_EMPTY);
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1) {
		switch (ch) {
		case 'a':
			proto_num(&b, A_ALL, 1);
			all = true;
			break;
		case 'o':
			/* As list -o: list -o TIME shows what this takes. */
			if (parse_when(optarg, &v, &why) < 0)
				return cmd_usage_error(e, "%s: %s", optarg,
				    why);
			proto_num(&b, A_BEFORE, v);
			break;
		case OPT_DRY_RUN:
			proto_num(&b, A_DRY_RUN, 1);
			s.dry = true;
			break;
		case 'y':
			yes = true;
			break;
		case CMD_EXIT:
			return r;
		}
	}
	if ((uid = ctx->user) >= 0) {
		proto_num(&b, A_UID, uid);
		other = uid != (int64_t)getuid();
	}
	if (optind != argc)
		return cmd_usage_error(e, "no arguments");
	if (all && uid >= 0)
		return cmd_usage_error(e, "-a or -u, not both");
	if ((all || other) && !yes && !s.dry) {
		if (all)
			snprintf(whose, sizeof(whose), "the trash of every "
			    "user");
		else
			snprintf(whose, sizeof(whose), "the trash of %s",
			    user_name(uid, user, sizeof(user)));
		if ((r = empty_confirm(ctx, e, whose)) != 0)
			return r;
	}
	return ctl_request(ctx, &b, cmd_empty_msg, &s);
}

const struct cmd_entry cmd_empty_entry = {
	.name = "empty",
	.usage = "[-ay] [-u user] [-o time] [--dry-run] [-j]",
	.help = "empty your trash for good (+s entries are wiped)",
	.opts = cmd_empty_opts,
	.exec = cmd_empty_exec,
};
