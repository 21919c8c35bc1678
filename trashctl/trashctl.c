/* SPDX-License-Identifier: ISC */
/*
 * trashctl: the command line client of trashd(8).  Global options, then
 * one command from the table in cmd.c.
 */
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"	/* TRASHD_SOCKET, TRASHBIN_VERSION */
#include "trashctl.h"
#include "vis.h"

/* Replies of a long restore come entry by entry; a stall this long is not. */
#define TRASHCTL_TIMEOUT_MS	120000

/* trashctl's own options, before the command; and the common ones. */
static const struct cmd_opt main_opts[] = {
	{ "socket", 's', "socket", "ask the trashd of this socket" },
	{ NULL, 0, NULL, NULL }
};

static const struct cmd_entry main_entry = {
	.opts = main_opts,
	.flags = CMD_INORDER,
};

int
main(int argc, char *argv[])
{
	struct ctx ctx = { .socket = TRASHD_SOCKET,
	    .timeout_ms = TRASHCTL_TIMEOUT_MS, .prog = "trashctl",
	    .user = -1 };
	const struct cmd_entry *e;
	const char *env;
	int ch, rc;

	setlocale(LC_ALL, "");
	if ((env = getenv("TRASHD_SOCKET")) != NULL && env[0] != '\0')
		ctx.socket = env;
	while ((ch = cmd_getopt(&ctx, &main_entry, argc, argv, &rc)) != -1) {
		switch (ch) {
		case 's':
			ctx.socket = optarg;
			break;
		case CMD_EXIT:
			return rc;
		}
	}
	if (optind == argc) {
		cmd_usage(stderr);
		return EXIT_USAGE;
	}
	if ((e = cmd_find(argv[optind])) == NULL) {
		fputs("trashctl: unknown command \"", stderr);
		vis_fputs(stderr, argv[optind], VIS_DQ);
		fputs("\"\n", stderr);
		cmd_usage(stderr);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* getopt_long afresh, from argv[1] */
	return e->exec(&ctx, argc, argv);
}
