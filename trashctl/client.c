/* SPDX-License-Identifier: ISC */
/* One request to trashd and its reply, with errors turned into exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashctl.h"

int
ctl_exit_code(int err)
{
	switch (err) {
	case 0:
		return EXIT_OK;
	case EPERM:
	case EACCES:
		return EXIT_DENIED;
	case ENOENT:
		return EXIT_NOTFOUND;
	default:
		return EXIT_ERROR;
	}
}

static void
ctl_print_error(struct ctx *ctx, int err, const char *msg)
{
	if (ctx->json) {
		printf("{\"error\":{\"errno\":%d,\"message\":", err);
		json_str(stdout, msg);
		printf("}}\n");
	}
	fprintf(stderr, "trashctl: %s\n", msg);
}

/*
 * Send @b, hand each data message to @fn (which returns 0 or an exit
 * code to stop with), and end at OK (handed to @fn too) or ERROR.
 */
int
ctl_request(struct ctx *ctx, struct proto_buf *b, ctl_msg_fn fn, void *arg)
{
	struct proto_client *cl = malloc(sizeof(*cl));
	struct proto_msg *m = malloc(sizeof(*m));
	const char *why;
	char msg[512];
	int r, ret;

	if (cl == NULL || m == NULL) {
		free(cl);
		free(m);
		fprintf(stderr, "trashctl: out of memory\n");
		return EXIT_ERROR;
	}
	if ((r = proto_connect(cl, ctx->socket, ctx->timeout_ms)) < 0) {
		snprintf(msg, sizeof(msg), "cannot reach trashd at %s: %s",
		    ctx->socket, r == -ENOENT || r == -ECONNREFUSED ?
		    "is the trashd service running?" : strerror(-r));
		ctl_print_error(ctx, -r, msg);
		ret = EXIT_NODAEMON;
		goto out;
	}
	if ((r = proto_send(cl, b)) < 0) {
		snprintf(msg, sizeof(msg), "sending to trashd: %s",
		    strerror(-r));
		ctl_print_error(ctx, -r, msg);
		ret = EXIT_NODAEMON;
		goto out;
	}
	for (;;) {
		if ((r = proto_recv(cl, m, &why)) < 0) {
			snprintf(msg, sizeof(msg), "reading from trashd: %s",
			    why != NULL ? why : strerror(-r));
			ctl_print_error(ctx, -r, msg);
			ret = r == -EPROTONOSUPPORT ? EXIT_ERROR :
			    EXIT_NODAEMON;
			break;
		}
		if (m->type == MSG_ERROR) {
			ctl_print_error(ctx, (int)m->num[A_ERRNO],
			    m->str[A_MESSAGE]);
			ret = ctl_exit_code((int)m->num[A_ERRNO]);
			break;
		}
		if ((ret = fn(ctx, m, arg)) != 0 || m->type == MSG_OK)
			break;
	}
out:
	proto_close(cl);
	free(cl);
	free(m);
	return ret;
}
