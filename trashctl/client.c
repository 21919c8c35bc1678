/* SPDX-License-Identifier: ISC */
/*
 * One request to trashd and its reply, with errors turned into exit codes.
 * For people (not --json), every string of a reply is escaped here, once,
 * before any command sees it: what trashd sends back carries file names,
 * and no command can forget to escape one (trashctl(1), "Escaping").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashctl.h"
#include "vis.h"

/* A reply with its strings escaped for a terminal. */
struct ctl_vis {
	struct proto_msg m;
	char		 buf[VIS_LEN(PROTO_MSG_MAX) + A_MAX];
};

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

/*
 * An error as JSON too: alone, {"error":{...}}; in the middle of a
 * reply's array (trashd gone, the stream cut), the array is closed and
 * the error ends its object: {"entries":[...],"error":{...}}.  Either
 * way one valid JSON document, never half an array.
 */
static void
ctl_print_error(struct ctx *ctx, int err, const char *msg)
{
	if (ctx->json) {
		if (ctx->ndjson) {
			/* A line of its own, and no "end": cut short. */
			if (ctx->json_open && ctx->json_n > 0)
				printf("\n");
			ctx->json_open = false;
			printf("{");
		} else if (ctx->json_open) {
			json_items_end(ctx, "");
			printf(",");
		} else {
			printf("{");
		}
		printf("\"error\":{\"errno\":%d,", err);
		json_field(stdout, "message", msg);
		printf("}}\n");
	}
	fputs("trashctl: ", stderr);
	vis_fputs(stderr, msg, 0);
	fputc('\n', stderr);
}

/* @m with each string escaped by vis_str(@flags) into @v. */
static const struct proto_msg *
ctl_vis(const struct proto_msg *m, struct ctl_vis *v, int flags)
{
	size_t used = 0;
	int a;

	v->m.type = m->type;
	v->m.have = m->have;
	memcpy(v->m.num, m->num, sizeof(v->m.num));
	memset(v->m.str, 0, sizeof(v->m.str));
	for (a = 0; a < A_MAX; a++) {
		if (m->str[a] == NULL)
			continue;
		/*
		 * The strings of one message total PROTO_MSG_MAX bytes at
		 * most: escaped, each takes 4 times its length and a NUL.
		 */
		if (used >= sizeof(v->buf))
			break;
		v->m.str[a] = v->buf + used;
		used += vis_str(v->buf + used, sizeof(v->buf) - used,
		    m->str[a], flags) + 1;
	}
	return &v->m;
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
	struct ctl_vis *v = malloc(sizeof(*v));
	const char *why;
	char msg[512];
	int r, ret;

	if (cl == NULL || m == NULL || v == NULL) {
		free(cl);
		free(m);
		free(v);
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
		/* Bytes as they are for JSON, and for table.c's --raw. */
		if ((ret = fn(ctx, ctx->json || ctx->raw ? m : ctl_vis(m, v,
		    ctx->vis_flags), arg)) != 0 || m->type == MSG_OK)
			break;
	}
out:
	proto_close(cl);
	free(cl);
	free(m);
	free(v);
	return ret;
}
