/* SPDX-License-Identifier: ISC */
/*
 * The wipe request: entries purged at once, a +s one overwritten first.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verb.h"

void
verb_wipe(struct control_conn *c, const struct proto_msg *m)
{
	struct entry_list l;
	struct proto_buf *b;
	struct where w;
	struct tfs *fs;
	const char *base;
	size_t i, failed = 0;
	uint32_t uid;
	bool dir;
	int r;

	if (conn_target_uid(c, m, &uid) < 0 || conn_where(c, m, &w) < 0)
		return;
	if (select_entries(c, m, uid, &w, &l, &fs, &base, &dir) < 0)
		return;
	for (i = 0; i < l.n; i++) {
		r = wipe_request(c->d, l.v[i].id, c->peer.uid, c->peer.pid);
		if (r < 0)
			failed++;
		conn_result_msg(c, &l.v[i], -r, r == 0 ? "queued for "
		    "wiping" : strerror(-r));
	}
	snprintf(c->result, sizeof(c->result), "ok: %zu queued, %zu failed",
	    l.n - failed, failed);
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	proto_num(b, A_DONE, (int64_t)(l.n - failed));
	proto_num(b, A_FAILED, (int64_t)failed);
	conn_reply_ok(c, b);
	free(b);
	entry_list_free(&l);
}
