/* SPDX-License-Identifier: ISC */
/* The command table: one entry per cmd-*.c file. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * The usage, the line of help, and every long option from the table that
 * getopt_long() reads: the bash completion takes them from here, so they
 * cannot go stale.
 */
int
cmd_help(const struct cmd_entry *e)
{
	const struct option *o;

	printf("usage: trashctl %s %s\n%s\noptions:", e->name, e->usage,
	    e->help);
	for (o = e->opts; o != NULL && o->name != NULL; o++)
		printf(" --%s%s", o->name, o->has_arg == required_argument ?
		    "=" : "");
	printf("\n");
	if (e->cols != NULL)
		tbl_help(e->cols);
	return EXIT_OK;
}

/* --output, --raw, --noheadings: true if @ch was one of them. */
bool
cmd_table_opt(struct ctx *ctx, int ch)
{
	switch (ch) {
	case OPT_OUTPUT:
		ctx->output = optarg;
		return true;
	case OPT_RAW:
		ctx->raw = true;
		return true;
	case OPT_NOHEADINGS:
		ctx->noheadings = true;
		return true;
	}
	return false;
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
		fprintf(stderr, "trashctl %s: ", e->name);
		if (r >= 0) {
			vis_fputs(stderr, msg, 0);
			free(msg);
		}
		fputc('\n', stderr);
	}
	fprintf(stderr, "usage: trashctl %s %s\n", e->name, e->usage);
	return EXIT_USAGE;
}
