/* SPDX-License-Identifier: ISC */
/*
 * The quota request: what a trash holds against its policy.
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

static void
verb_quota_msg(struct control_conn *c, struct proto_buf *b,
    const struct tfs *fs, const struct usage *u)
{
	struct policy p;

	proto_init(b, MSG_USAGE);
	proto_str(b, A_FS, fs->path);
	proto_num(b, A_UID, u->uid);
	proto_num(b, A_COUNT, u->count);
	proto_num(b, A_BYTES, u->bytes);
	if (policy_effective(c->d, u->uid, &p) == 0) {
		proto_num(b, A_QUOTA, p.quota);
		proto_num(b, A_RETENTION, p.retention);
		proto_str(b, A_QUOTA_TEXT, p.quota_text);
		proto_str(b, A_RETENTION_TEXT, p.retention_text);
	}
	conn_send(c, b);
}

void
verb_quota(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b;
	struct usage u, *all;
	size_t i, j, n;
	uint32_t uid;
	int r;

	if (conn_target_uid(c, m, &uid) < 0)
		return;
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	if (PROTO_HAS(m, A_ALL) && m->num[A_ALL] &&
	    conn_need_admin(c) < 0)
		return;
	b = xmalloc(sizeof(*b));
	for (i = 0; i < d->nfs; i++) {
		if (PROTO_HAS(m, A_ALL) && m->num[A_ALL]) {
			c->trash_uid = -1;
			snprintf(c->target, sizeof(c->target), "uid=all");
			if ((r = index_usage_all(d->db, d->fs[i].id, &all,
			    &n)) < 0)
				goto fail;
			for (j = 0; j < n; j++)
				verb_quota_msg(c, b, &d->fs[i], &all[j]);
			free(all);
			continue;
		}
		if ((r = index_usage(d->db, d->fs[i].id, uid, &u)) < 0)
			goto fail;
		verb_quota_msg(c, b, &d->fs[i], &u);
	}
	proto_init(b, MSG_OK);
	conn_reply_ok(c, b);
	free(b);
	return;
fail:
	conn_reply_error(c, -r, "index: %s", strerror(-r));
	free(b);
}
