/* SPDX-License-Identifier: ISC */
/*
 * trashctl restore: put entries back where they were deleted from, or
 * under --to.  A directory restores everything deleted under it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trashctl.h"

/* An entry's result, in JSON; then the totals. */
static const struct rec_field restore_fields[] = {
	REC("id", NULL, REC_NUM, A_ID, 0),
	REC("errno", NULL, REC_NUM, A_ERRNO, 0),
	REC("to", NULL, REC_STR, A_TO, 0),
	REC("message", NULL, REC_STR, A_MESSAGE, 0),
	REC_END
};
static const struct rec_field restore_total[] = {
	REC("restored", NULL, REC_NUM, A_DONE, 0),
	REC("failed", NULL, REC_NUM, A_FAILED, 0),
	REC_END
};

struct restore_state {
	int64_t	 total;
	int64_t	 seen;
	int64_t	 failed;
	bool	 first;
};

static int
cmd_restore_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	struct restore_state *s = arg;
	const char *what;
	int64_t err;

	switch (m->type) {
	case MSG_PROGRESS:
		s->total = m->num[A_TOTAL];
		s->first = true;
		return 0;
	case MSG_RESULT:
		err = m->num[A_ERRNO];
		what = m->str[A_TO] ? m->str[A_TO] : m->str[A_PATH] ?
		    m->str[A_PATH] : "(unknown path)";
		s->seen++;
		if (err != 0)
			s->failed++;
		if (ctx->json) {
			rec_json_item(ctx, "{\"results\":[", restore_fields,
			    m);
			s->first = false;
			return 0;
		}
		if (err != 0) {
			progress_end(ctx);
			fprintf(stderr, "trashctl: %s: %s\n", what,
			    m->str[A_MESSAGE] ? m->str[A_MESSAGE] : "failed");
		} else if (s->total <= 1) {
			printf("restored %s\n", what);
		}
		progress(ctx, s->seen, s->total);
		return 0;
	case MSG_OK:
		progress_end(ctx);
		if (ctx->json) {
			json_items_end(ctx, "{\"results\":[");
			rec_json(restore_total, m, false);
			printf("}\n");
		} else if (s->total > 1 || m->num[A_FAILED] > 0) {
			printf("restored %" PRId64 " of %" PRId64 " entr%s",
			    m->num[A_DONE], s->total, s->total == 1 ? "y" :
			    "ies");
			if (m->num[A_FAILED] > 0)
				printf(", %" PRId64 " kept in the trash",
				    m->num[A_FAILED]);
			printf("\n");
		}
		return m->num[A_FAILED] > 0 ? EXIT_SOME : 0;
	}
	return 0;
}

/* Its own options (cmd.c adds the common ones). */
static const struct cmd_opt cmd_restore_opts[] = {
	CMD_OPT_USER("from that user's trash, as that user (admins)"),
	{ "id", 'i', "id", "the entry with this id, not a path" },
	{ "to", 't', "dest", "restore to dest, on the same filesystem" },
	{ "before", 'b', "time", "the newest deleted before time" },
	{ "entry-version", 'e', "n",
	    "the nth newest version of the path (1: the newest)" },
	{ "overwrite", 'f', NULL, "replace an existing file" },
	{ NULL, 0, NULL, NULL }
};

static int
cmd_restore_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_restore_entry;
	struct restore_state s = { 0 };
	struct proto_buf b;
	const char *why;
	int64_t v;
	mode_t mask;
	bool byid = false;
	char *p;
	int ch, r;

	proto_init(&b, MSG_RESTORE);
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1) {
		switch (ch) {
		case 'i':
			if (parse_count(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: not an entry id "
				    "(a positive decimal number)", optarg);
			proto_num(&b, A_ID, v);
			byid = true;
			break;
		case 't':
			if ((p = abs_path(optarg)) == NULL)
				return cmd_usage_error(e, "%s: bad path",
				    optarg);
			proto_str(&b, A_TO, p);
			free(p);
			break;
		case 'b':
			if (parse_when(optarg, &v, &why) < 0)
				return cmd_usage_error(e, "%s: %s", optarg,
				    why);
			proto_num(&b, A_BEFORE, v);
			break;
		case 'e':
			if (parse_count(optarg, &v) < 0)
				return cmd_usage_error(e, "%s: versions count "
				    "from 1, the newest", optarg);
			proto_num(&b, A_VERSION, v);
			break;
		case 'f':
			proto_num(&b, A_OVERWRITE, 1);
			break;
		case CMD_EXIT:
			return r;
		}
	}
	if (ctx->user >= 0)
		proto_num(&b, A_UID, ctx->user);
	if (byid == (optind < argc) || argc - optind > 1)
		return cmd_usage_error(e, "name one path, or --id");
	if (!byid) {
		if ((p = abs_path(argv[optind])) == NULL)
			return cmd_usage_error(e, "%s: bad path",
			    argv[optind]);
		proto_str(&b, A_PATH, p);
		free(p);
	}
	/* Directories are made as the caller would make them. */
	mask = umask(022);
	umask(mask);
	proto_num(&b, A_UMASK, mask);
	return ctl_request(ctx, &b, cmd_restore_msg, &s);
}

const struct cmd_entry cmd_restore_entry = {
	.name = "restore",
	.usage = "[-f] [-u user] [-t dest] [-b time] [-e n] [-j] "
	    "path | -i id",
	.help = "restore a file, or everything deleted under a directory",
	.opts = cmd_restore_opts,
	.exec = cmd_restore_exec,
};
