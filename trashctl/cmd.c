/* SPDX-License-Identifier: ISC */
/*
 * The command table, one entry per cmd-*.c file, and the options every
 * command takes: getopt_long()'s tables and "-h" made from each
 * command's struct cmd_opt table and the common ones below.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"	/* TRASHD_SOCKET, TRASHBIN_VERSION */
#include "trashctl.h"

static const struct cmd_entry *const cmd_table[] = {
	&cmd_status_entry,
	&cmd_list_entry,
	&cmd_restore_entry,
	&cmd_wipe_entry,
	&cmd_empty_entry,
	&cmd_quota_entry,
	&cmd_policy_entry,
	&cmd_audit_entry,
	NULL
};

/* What the commands that print a table take (trashctl(1)). */
static const struct cmd_opt cmd_table_opts[] = {
	{ "output", OPT_OUTPUT, "cols",
	    "the columns below, in order; +cols adds to them" },
	{ "raw", OPT_RAW, NULL, "one line a row, fields split by blanks" },
	{ "noheadings", OPT_NOHEADINGS, NULL,
	    "no header line, and nothing after the table" },
	{ NULL, 0, NULL, NULL }
};

/* What every command takes, and trashctl itself. */
static const struct cmd_opt cmd_common_opts[] = {
	{ "json", 'j', NULL, "print JSON, one document" },
	{ "ndjson", OPT_NDJSON, NULL, "print JSON, one object a line" },
	{ "help", 'h', NULL, "print this help and exit" },
	{ "version", 'V', NULL, "print the version and exit" },
	{ NULL, 0, NULL, NULL }
};

/* Enough for the longest table of options, and the common ones. */
#define CMD_OPTS_MAX	32

const struct cmd_entry *
cmd_find(const char *name)
{
	size_t i;

	for (i = 0; cmd_table[i] != NULL; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

void
cmd_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: trashctl [-j] [-s socket] command [arguments]\n"
	    "commands:\n");
	for (i = 0; cmd_table[i] != NULL; i++)
		fprintf(f, "  %-8s %s\n", cmd_table[i]->name,
		    cmd_table[i]->help);
	fprintf(f, "See trashctl(1); \"trashctl COMMAND -h\" for one "
	    "command.\n");
}

/* @e's option tables in the order -h lists them: its own first. */
static void
cmd_opt_tables(const struct cmd_entry *e, const struct cmd_opt *t[3])
{
	t[0] = e->opts;
	t[1] = e->cols != NULL ? cmd_table_opts : NULL;
	t[2] = cmd_common_opts;
}

/* " -u, --user <user>" into @buf; the letter only if @letter. */
static int
cmd_opt_name(char *buf, size_t len, const struct cmd_opt *o, bool letter)
{
	return snprintf(buf, len, " %c%c%c --%s%s%s%s",
	    letter ? '-' : ' ', letter ? o->val : ' ', letter ? ',' : ' ',
	    o->name, o->arg != NULL ? " <" : "", o->arg != NULL ? o->arg : "",
	    o->arg != NULL ? ">" : "");
}

/*
 * Whether @o's letter is shown and taken: it has one, and no option
 * before it has the same (an alias, as audit's --user of --actor).
 */
static bool
cmd_opt_letter(const struct cmd_opt *const t[3], const struct cmd_opt *o)
{
	const struct cmd_opt *p;
	size_t i;

	if (o->val > 0xff)
		return false;
	for (i = 0; i < 3; i++)
		for (p = t[i]; p != NULL && p->name != NULL; p++) {
			if (p == o)
				return true;
			if (p->val == o->val)
				return false;
		}
	return true;
}

/*
 * The usage, the line of help, then each option with what it does, as
 * util-linux's usage() prints them (the bash completion reads them), and
 * the columns of its table.
 */
int
cmd_help(const struct cmd_entry *e)
{
	const struct cmd_opt *t[3], *o;
	char name[80];
	int i, w, width = 0;

	cmd_opt_tables(e, t);
	for (i = 0; i < 3; i++)
		for (o = t[i]; o != NULL && o->name != NULL; o++)
			if ((w = cmd_opt_name(name, sizeof(name), o,
			    cmd_opt_letter(t, o))) > width)
				width = w;
	if (e->name != NULL)
		printf("usage: trashctl %s %s\n%s\n", e->name, e->usage,
		    e->help);
	else
		cmd_usage(stdout);
	printf("\noptions:\n");
	for (i = 0; i < 3; i++)
		for (o = t[i]; o != NULL && o->name != NULL; o++) {
			cmd_opt_name(name, sizeof(name), o,
			    cmd_opt_letter(t, o));
			printf("%-*s  %s\n", width, name, o->help);
		}
	if (e->cols != NULL) {
		printf("\n");
		tbl_help(e->cols, e->defcols);
	}
	return EXIT_OK;
}

int
cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int r;

	if (fmt != NULL) {
		/* It may echo an argument: escaped as any name. */
		va_start(ap, fmt);
		r = vasprintf(&msg, fmt, ap);
		va_end(ap);
		fprintf(stderr, "trashctl%s%s: ", e->name != NULL ? " " : "",
		    e->name != NULL ? e->name : "");
		if (r >= 0) {
			vis_fputs(stderr, msg, 0);
			free(msg);
		}
		fputc('\n', stderr);
	}
	if (e->name != NULL)
		fprintf(stderr, "usage: trashctl %s %s\n", e->name, e->usage);
	else
		cmd_usage(stderr);
	return EXIT_USAGE;
}

/*
 * @t, the table of @e with the columns --output names, else @defcols
 * (tbl_init()); or a usage error (EXIT_USAGE).
 */
int
cmd_tbl_init(struct ctx *ctx, const struct cmd_entry *e, struct tbl *t,
    const char *defcols)
{
	int r;

	if ((r = tbl_init(t, ctx, e->cols, defcols)) == -EINVAL)
		return cmd_usage_error(e, "%.*s: no such column (\"trashctl "
		    "%s -h\" lists them)", t->bad_len, t->bad, e->name);
	if (r < 0)
		return cmd_usage_error(e, "no columns");
	return 0;
}

/*
 * -V, --version.  Alone: "restore -V 2 path" once picked the version of
 * an entry, and must not now print this and exit 0 having restored none.
 */
static int
cmd_version(const struct cmd_entry *e, int argc)
{
	if (argc != 2)
		return cmd_usage_error(e, "-V, --version takes no other "
		    "argument (an entry's nth version: restore -e n)");
	/* The default socket too: which trashd this one asks. */
	printf("trashctl %s (protocol %d, socket %s)\n", TRASHBIN_VERSION,
	    PROTOCOL_VERSION, TRASHD_SOCKET);
	return EXIT_OK;
}

/*
 * getopt_long()'s table and letters for @e, from its cmd_opt tables:
 * made once, the same for each call.
 */
static void
cmd_getopt_tables(const struct cmd_entry *e, struct option *lo, char *so)
{
	const struct cmd_opt *t[3], *o;
	size_t i, n = 0;

	cmd_opt_tables(e, t);
	/* "+": options before the first argument only; ":" none missed. */
	if (e->flags & CMD_INORDER)
		*so++ = '+';
	for (i = 0; i < 3; i++)
		for (o = t[i]; o != NULL && o->name != NULL; o++) {
			if (n == CMD_OPTS_MAX) {
				fprintf(stderr, "trashctl: too many options\n");
				exit(EXIT_ERROR);
			}
			lo[n++] = (struct option){ o->name, o->arg != NULL ?
			    required_argument : no_argument, NULL, o->val };
			if (o->val > 0xff || !cmd_opt_letter(t, o))
				continue;
			*so++ = (char)o->val;
			if (o->arg != NULL)
				*so++ = ':';
		}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	*so = '\0';
}

/*
 * The next option of @e's own, as getopt_long() returns it; those every
 * command takes are taken here: -j, --ndjson, -h, -V, -u (into
 * ctx->user) and the table's.  -1 after the last; CMD_EXIT when the
 * command is done already (-h, -V, a usage error), its exit code in
 * *@exitp.
 */
int
cmd_getopt(struct ctx *ctx, const struct cmd_entry *e, int argc,
    char **argv, int *exitp)
{
	static const struct cmd_entry *made;
	static struct option lo[CMD_OPTS_MAX + 1];
	static char so[CMD_OPTS_MAX * 2 + 2];
	int ch;

	if (made != e) {
		cmd_getopt_tables(e, lo, so);
		made = e;
	}
	for (;;) {
		switch ((ch = getopt_long(argc, argv, so, lo, NULL))) {
		case OPT_NDJSON:
			ctx->ndjson = true;
			__attribute__((fallthrough));
		case 'j':
			ctx->json = true;
			break;
		case OPT_OUTPUT:
			ctx->output = optarg;
			break;
		case OPT_RAW:
			ctx->raw = true;
			break;
		case OPT_NOHEADINGS:
			ctx->noheadings = true;
			break;
		case 'u':
			if (parse_user(optarg, &ctx->user) == 0)
				break;
			*exitp = cmd_usage_error(e, "%s: no such user",
			    optarg);
			return CMD_EXIT;
		case 'h':
			*exitp = cmd_help(e);
			return CMD_EXIT;
		case 'V':
			*exitp = cmd_version(e, argc);
			return CMD_EXIT;
		case '?':
			*exitp = cmd_usage_error(e, NULL);
			return CMD_EXIT;
		default:
			return ch;
		}
	}
}
