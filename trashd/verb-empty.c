/* SPDX-License-Identifier: ISC */
/*
 * The empty request: a trash emptied over many loop turns.
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

/*
 * Entries an "empty" purges per loop turn (some 100 us each, a unlink and
 * an audit row): a large trash is emptied over many turns, one
 * transaction each, and other clients are answered in between.
 */
#define CONTROL_EMPTY_STEP	128

/*
 * "empty": every live entry of a uid (admins: of every uid), or those
 * deleted before a time, purged, CONTROL_EMPTY_STEP a loop turn, oldest
 * first.  A client that goes away stops it; what was purged stays purged.
 * A dry run walks the same selection, the same way, and sends each entry
 * instead of purging it: what it shows is what the empty would take.
 */
struct verb_empty_state {
	struct event		*ev;
	size_t			 fsi;	/* d->fs[fsi] */
	struct index_filter	 f;	/* its cursor */
	bool			 dry;
	int64_t			 done, failed, bytes;
};

static void
verb_empty_free(struct control_conn *c)
{
	struct verb_empty_state *z = c->vstate;

	event_free(z->ev);
	free(z);
	c->vstate = NULL;
	c->vops = NULL;
}

/* A dry run's step: the entries that would go, as a list shows them. */
static void
verb_empty_dry(struct control_conn *c, const struct entry_list *l)
{
	struct verb_empty_state *z = c->vstate;
	struct proto_buf *b = xmalloc(sizeof(*b));
	size_t i;

	for (i = 0; i < l->n; i++) {
		conn_entry_msg(c, b, &l->v[i]);
		z->done++;
		z->bytes += l->v[i].size;
	}
	free(b);
}

/* One entry purged, or not: counted, a failure told. */
static void
verb_empty_done(void *arg, const struct entry *e, int r)
{
	struct control_conn *c = arg;
	struct verb_empty_state *z = c->vstate;

	if (r == 0) {
		z->done++;
		z->bytes += e->size;
	} else {
		z->failed++;
		conn_result_msg(c, e, -r, strerror(-r));
	}
}

/* One step; true when the trash is empty (or cannot be emptied more). */
static bool
verb_empty_step(struct control_conn *c)
{
	struct verb_empty_state *z = c->vstate;
	struct trashd *d = c->d;
	struct entry_list l = { 0 };
	int r;

	while (z->fsi < d->nfs) {
		z->f.fs_id = d->fs[z->fsi].id;
		z->f.limit = CONTROL_EMPTY_STEP;
		if ((r = index_list(d->db, &z->f, &l)) < 0) {
			log_warnx("control: empty: index: %s", strerror(-r));
			return true;
		}
		if (l.n == 0) {
			entry_list_free(&l);
			z->fsi++;
			z->f.after = false;
			continue;
		}
		if (z->dry) {
			verb_empty_dry(c, &l);
			goto next;
		}
		policy_purge_list(d, &d->fs[z->fsi], &l, "empty", c->peer.uid,
		    c->peer.pid, verb_empty_done, c);
next:
		z->f.after = true;
		z->f.after_ns = l.v[l.n - 1].deleted_ns;
		z->f.after_id = l.v[l.n - 1].id;
		entry_list_free(&l);
		return false;
	}
	return true;
}

static void
verb_empty_turn(evutil_socket_t fd, short ev, void *arg)
{
	static const struct timeval now = { 0, 0 }, later = { 0, 10000 };
	struct control_conn *c = arg;
	struct verb_empty_state *z = c->vstate;
	struct proto_buf *b;

	(void)fd;
	(void)ev;
	/* A dry run's entries wait for a slow client, as a list's do. */
	if (z->dry && evbuffer_get_length(bufferevent_get_output(c->bev)) >
	    CONTROL_LIST_HIGH) {
		evtimer_add(z->ev, &later);
		return;
	}
	if (!verb_empty_step(c)) {
		evtimer_add(z->ev, &now);
		return;
	}
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	if (z->dry) {
		snprintf(c->result, sizeof(c->result), "ok: dry run, %"
		    PRId64 " would go", z->done);
		proto_num(b, A_COUNT, z->done);
		proto_num(b, A_DONE, 0);
	} else {
		wipe_kick(c->d);
		snprintf(c->result, sizeof(c->result), "ok: %" PRId64
		    " emptied, %" PRId64 " failed", z->done, z->failed);
		proto_num(b, A_DONE, z->done);
	}
	proto_num(b, A_FAILED, z->failed);
	proto_num(b, A_BYTES, z->bytes);
	conn_reply_ok(c, b);
	free(b);
	verb_empty_free(c);
	conn_audit(c, "empty");
	conn_request_done(c);
}

static const struct verb_ops verb_empty_ops = {
	.free = verb_empty_free,
	.audits_at_end = true,
};

void
verb_empty(struct control_conn *c, const struct proto_msg *m)
{
	static const struct timeval now = { 0, 0 };
	struct verb_empty_state *z;
	uint32_t uid;

	if (conn_target_uid(c, m, &uid) < 0)
		return;
	z = xcalloc(1, sizeof(*z));
	z->f.uid = uid;
	z->f.states = ENTRY_LIVE;
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	if (PROTO_HAS(m, A_ALL) && m->num[A_ALL]) {
		if (conn_need_admin(c) < 0) {
			free(z);
			return;
		}
		z->f.uid = -1;
		c->trash_uid = -1;
		snprintf(c->target, sizeof(c->target), "uid=all");
	}
	/* As list -o: deleted before that time. */
	if (PROTO_HAS(m, A_BEFORE)) {
		z->f.before_ns = m->num[A_BEFORE] > 0 ? m->num[A_BEFORE] : 1;
		snprintf(c->target + strlen(c->target), sizeof(c->target) -
		    strlen(c->target), " before=%" PRId64, m->num[A_BEFORE]);
	}
	z->dry = PROTO_HAS(m, A_DRY_RUN) && m->num[A_DRY_RUN];
	if (z->dry)
		snprintf(c->target + strlen(c->target), sizeof(c->target) -
		    strlen(c->target), " dry-run");
	if ((z->ev = evtimer_new(c->d->base, verb_empty_turn, c)) == NULL)
		fatalx("control: cannot add the empty timer");
	c->vstate = z;
	c->vops = &verb_empty_ops;
	/* From the loop, the first step too; audited when it is over. */
	evtimer_add(z->ev, &now);
}
