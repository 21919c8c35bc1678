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

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "version", no_argument, NULL, 'V' },
		CMD_COMMON_OPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct ctx ctx = { .socket = TRASHD_SOCKET,
	    .timeout_ms = TRASHCTL_TIMEOUT_MS, .prog = "trashctl" };
	const struct cmd_entry *e;
	const char *env;
	int ch;

	setlocale(LC_ALL, "");
	if ((env = getenv("TRASHD_SOCKET")) != NULL && env[0] != '\0')
		ctx.socket = env;
	while ((ch = getopt_long(argc, argv, "+hjs:V", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_NDJSON:
			ctx.ndjson = true;
			__attribute__((fallthrough));
		case 'j':
			ctx.json = true;
			break;
		case 's':
			ctx.socket = optarg;
			break;
		case 'h':
			cmd_usage(stdout);
			return EXIT_OK;
		case 'V':
			/* The default socket too: which trashd this one asks. */
			printf("trashctl %s (protocol %d, socket %s)\n",
			    TRASHBIN_VERSION, PROTOCOL_VERSION, TRASHD_SOCKET);
			return EXIT_OK;
		default:
			cmd_usage(stderr);
			return EXIT_USAGE;
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
