/* SPDX-License-Identifier: ISC */
/* trashctl wipe: securely wipe entries now, by id or original path. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashctl.h"

/* An entry's result, in JSON; then the totals. */
static const struct rec_field wipe_fields[] = {
	REC("id", NULL, REC_NUM, A_ID, 0),
	REC("errno", NULL, REC_NUM, A_ERRNO, 0),
	REC("path", NULL, REC_STR, A_PATH, 0),
	REC("message", NULL, REC_STR, A_MESSAGE, 0),
	REC_END
};
static const struct rec_field wipe_total[] = {
	REC("queued", NULL, REC_NUM, A_DONE, 0),
	REC("failed", NULL, REC_NUM, A_FAILED, 0),
	REC_END
};

static int
cmd_wipe_msg(struct ctx *ctx, const struct proto_msg *m, void *arg)
{
	(void)arg;
	if (m->type == MSG_RESULT) {
		if (ctx->json) {
			rec_json_item(ctx, "{\"results\":[", wipe_fields, m);
		} else if (m->num[A_ERRNO] != 0) {
			fprintf(stderr, "trashctl: entry %" PRId64 ": %s\n",
			    m->num[A_ID], m->str[A_MESSAGE]);
		} else {
			printf("entry %" PRId64 " (%s): %s\n", m->num[A_ID],
			    m->str[A_PATH] ? m->str[A_PATH] : "?",
			    m->str[A_MESSAGE]);
		}
		return 0;
	}
	if (m->type != MSG_OK)
		return 0;
	if (ctx->json) {
		json_items_end(ctx, "{\"results\":[");
		rec_json(wipe_total, m, false);
		printf("}\n");
	}
	return m->num[A_FAILED] > 0 ? EXIT_SOME : 0;
}

/* Its own options (cmd.c adds the common ones). */
static const struct cmd_opt cmd_wipe_opts[] = {
	CMD_OPT_USER("an entry of that user's trash (admins)"),
	{ NULL, 0, NULL, NULL }
};

static int
cmd_wipe_exec(struct ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *e = &cmd_wipe_entry;
	struct proto_buf b;
	int64_t v;
	char *p;
	int ch, r;

	proto_init(&b, MSG_WIPE);
	while ((ch = cmd_getopt(ctx, e, argc, argv, &r)) != -1)
		if (ch == CMD_EXIT)
			return r;
	if (ctx->user >= 0)
		proto_num(&b, A_UID, ctx->user);
	if (argc - optind != 1)
		return cmd_usage_error(e, "name one entry id or path");
	/* All digits: an id ("./123" names a file called 123). */
	if (strspn(argv[optind], "0123456789") == strlen(argv[optind])) {
		if (parse_count(argv[optind], &v) < 0)
			return cmd_usage_error(e, "%s: not an entry id (a "
			    "positive decimal number)", argv[optind]);
		proto_num(&b, A_ID, v);
	} else {
		if ((p = abs_path(argv[optind])) == NULL)
			return cmd_usage_error(e, "%s: bad path",
			    argv[optind]);
		proto_str(&b, A_PATH, p);
		free(p);
	}
	return ctl_request(ctx, &b, cmd_wipe_msg, NULL);
}

const struct cmd_entry cmd_wipe_entry = {
	.name = "wipe",
	.usage = "[-u user] [-j] id | path",
	.help = "securely wipe entries now (overwrite, then unlink)",
	.opts = cmd_wipe_opts,
	.exec = cmd_wipe_exec,
};
