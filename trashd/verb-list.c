/* SPDX-License-Identifier: ISC */
/*
 * The list request: a trash's live entries, a page at a time.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verb.h"

/* Entries read from the index per page. */
#define CONTROL_LIST_PAGE	256

/*
 * A list is sent a page at a time, each page read from the index only when
 * the client has taken most of the one before: the daemon holds one page
 * and a bounded output buffer, however long the list.
 */
struct verb_list_state {
	struct index_filter	 f;
	char			*prefix;
	int64_t			 left;		/* entries still to send, -1: all */
	int64_t			 count;
	int64_t			 bytes;
};

static void
verb_list_free(struct control_conn *c)
{
	struct verb_list_state *l = c->vstate;

	free(l->prefix);
	free(l);
	c->vstate = NULL;
	c->vops = NULL;
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
}

/*
 * Send pages while the output is short; the write callback calls again.
 * True: the reply is complete (or cannot be) and the list is freed.
 */
static bool
verb_list_more(struct control_conn *c)
{
	struct verb_list_state *l = c->vstate;
	struct evbuffer *out = bufferevent_get_output(c->bev);
	struct proto_buf *b;
	struct entry_list page;
	size_t i;
	bool done = false;
	int r;

	b = xmalloc(sizeof(*b));
	while (!done && !c->closing &&
	    evbuffer_get_length(out) < CONTROL_LIST_HIGH) {
		l->f.limit = l->left >= 0 && l->left < CONTROL_LIST_PAGE ?
		    (size_t)l->left : CONTROL_LIST_PAGE;
		if ((r = index_list(c->d->db, &l->f, &page)) < 0) {
			/* Entries went out; the error ends the reply. */
			conn_reply_error(c, -r, "index: %s", strerror(-r));
			free(b);
			verb_list_free(c);
			return true;
		}
		for (i = 0; i < page.n; i++) {
			conn_entry_msg(c, b, &page.v[i]);
			l->bytes += page.v[i].size;
			l->count++;
		}
		if (page.n > 0) {
			l->f.after = true;
			l->f.after_ns = page.v[page.n - 1].deleted_ns;
			l->f.after_id = page.v[page.n - 1].id;
			if (l->left > 0)
				l->left -= (int64_t)page.n;
		}
		/* A short page is the last; so is the one that made the
		 * limit (left is 0, never read as "no limit" again). */
		done = page.n < l->f.limit || l->left == 0;
		entry_list_free(&page);
	}
	if (done) {
		proto_init(b, MSG_OK);
		proto_num(b, A_COUNT, l->count);
		proto_num(b, A_BYTES, l->bytes);
		conn_send(c, b);
	}
	free(b);
	if (done || c->closing) {
		verb_list_free(c);
		return true;
	}
	return false;
}

static const struct verb_ops control_list_ops = {
	.more = verb_list_more,
	.free = verb_list_free,
};

void
verb_list(struct control_conn *c, const struct proto_msg *m)
{
	struct verb_list_state *l;
	struct tfs *fs = NULL;
	const char *rel = NULL;
	uint32_t uid;
	int r;

	if (conn_target_uid(c, m, &uid) < 0)
		return;
	l = xcalloc(1, sizeof(*l));
	l->f.fs_id = -1;
	l->f.states = ENTRY_LIVE;
	l->f.uid = uid;
	l->left = -1;
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	if (PROTO_HAS(m, A_ALL) && m->num[A_ALL]) {
		if (conn_need_admin(c) < 0)
			goto fail;
		l->f.uid = -1;
		c->trash_uid = -1;
		snprintf(c->target, sizeof(c->target), "uid=all");
	}
	if (PROTO_HAS(m, A_PREFIX) &&
	    trash_path_fs(c->d, m->str[A_PREFIX], &fs, &rel) < 0) {
		conn_reply_error(c, ENOENT, "%s: not on a filesystem "
		    "trashd manages", m->str[A_PREFIX]);
		goto fail;
	}
	if (fs != NULL) {
		l->f.fs_id = fs->id;
		if (rel[0] != '\0')
			l->f.prefix = l->prefix = xstrdup(rel);
	}
	if (PROTO_HAS(m, A_BEFORE))
		l->f.before_ns = m->num[A_BEFORE] > 0 ? m->num[A_BEFORE] : 1;
	if (PROTO_HAS(m, A_SINCE) && m->num[A_SINCE] > 0)
		l->f.since_ns = m->num[A_SINCE];
	if (PROTO_HAS(m, A_FLAGS))
		l->f.flags_set = (uint32_t)m->num[A_FLAGS] &
		    (FS_SECRM_FL | FS_UNRM_FL);
	/* Oldest first; with a limit, the newest @limit of them. */
	if (PROTO_HAS(m, A_LIMIT) && m->num[A_LIMIT] > 0) {
		l->left = m->num[A_LIMIT];
		r = index_newest(c->d->db, &l->f, (size_t)l->left,
		    &l->f.after_ns, &l->f.after_id);
		if (r == 0) {
			l->f.after = true;
		} else if (r != -ENOENT) {
			conn_reply_error(c, -r, "index: %s", strerror(-r));
			goto fail;
		}
	}
	snprintf(c->result, sizeof(c->result), "ok");
	c->vstate = l;
	c->vops = &control_list_ops;
	/* The write callback runs when the output falls to the low mark. */
	bufferevent_setwatermark(c->bev, EV_WRITE, CONTROL_LIST_LOW, 0);
	/* Done at once: control_dispatch() ends the request. */
	(void)verb_list_more(c);
	return;
fail:
	free(l->prefix);
	free(l);
}
