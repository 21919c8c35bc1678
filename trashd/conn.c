/* SPDX-License-Identifier: ISC */
/*
 * A client's connection to the control socket, below the verbs: the
 * replies (each whole message or nothing), the deadline of the next
 * request, the audit record of each, the checks every verb makes of
 * whom it acts for, and the connection's end.  control.c makes the
 * connections and reads their requests; the verbs answer through here.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verb.h"

struct timeval
conn_timeout(const struct trashd *d)
{
	struct timeval tv = { 30, 0 };

	if (d->conf->client_timeout > 0)
		tv.tv_sec = d->conf->client_timeout;
	return tv;
}

/* ---- replies ---- */

void
conn_send(struct control_conn *c, struct proto_buf *b)
{
	int len;

	if (c == NULL || c->closing)
		return;
	if ((len = proto_finish(b)) < 0) {
		/* Our own bug: a reply too large.  Say so, not garbage. */
		log_warnx("control: reply %s too large",
		    proto_type_name((uint16_t)(b->data[2] << 8 | b->data[3])));
		proto_init(b, MSG_ERROR);
		proto_num(b, A_ERRNO, EMSGSIZE);
		proto_str(b, A_MESSAGE, "reply too large");
		len = proto_finish(b);
	}
	if (bufferevent_write(c->bev, b->data, (size_t)len) < 0)
		c->closing = true;
}

void
conn_reply_error(struct control_conn *c, int err, const char *fmt, ...)
{
	struct proto_buf *b;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->result[0] == '\0')
		snprintf(c->result, sizeof(c->result), "%s: %.200s",
		    err == EPERM ? "denied" : "error", msg);
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_ERROR);
	proto_num(b, A_ERRNO, err);
	proto_str(b, A_MESSAGE, msg);
	conn_send(c, b);
	free(b);
}

void
conn_reply_ok(struct control_conn *c, struct proto_buf *b)
{
	if (c->result[0] == '\0')
		snprintf(c->result, sizeof(c->result), "ok");
	conn_send(c, b);
}

/* ---- connection life ---- */

void
conn_close_soon(struct control_conn *c)
{
	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_free(c);
}

/* The reply to the current request is complete: take the next one. */
void
conn_request_done(struct control_conn *c)
{
	c->busy = false;
	c->job = NULL;
	if (c->closing || c->eof) {
		c->closing = false;
		conn_close_soon(c);
		return;
	}
	conn_arm(c);
	bufferevent_enable(c->bev, EV_READ);
	/* Requests that arrived meanwhile are in the input buffer. */
	bufferevent_trigger(c->bev, EV_READ, BEV_TRIG_IGNORE_WATERMARKS);
}

void
conn_deadline(evutil_socket_t fd, short ev, void *arg)
{
	struct control_conn *c = arg;

	(void)fd;
	(void)ev;
	log_info("control: uid %u pid %d: no request within %" PRId64
	    "s, closing", (unsigned)c->peer.uid, (int)c->peer.pid,
	    (int64_t)conn_timeout(c->d).tv_sec);
	conn_free(c);
}

/* The client has one timeout to send its whole next request. */
void
conn_arm(struct control_conn *c)
{
	struct timeval tv = conn_timeout(c->d);

	evtimer_add(c->deadline, &tv);
}

/* The state of a verb running on (a list, an empty), if any, freed. */
void
conn_verb_free(struct control_conn *c)
{
	if (c->vops != NULL)
		c->vops->free(c);
	c->vops = NULL;
	c->vstate = NULL;
}

void
conn_free(struct control_conn *c)
{
	struct control *ctl = c->d->control;

	if (c->job != NULL)
		restore_detach(c->job);
	conn_verb_free(c);
	TAILQ_REMOVE(&ctl->conns, c, entry);
	ctl->nconns--;
	event_free(c->deadline);
	bufferevent_free(c->bev);
	free(c->peer.groups);
	free(c);
}

/* ---- authorisation ---- */

void
conn_audit(struct control_conn *c, const char *verb)
{
	char action[32];
	struct audit_rec a = { .uid = c->peer.uid, .pid = c->peer.pid,
	    .action = action, .result = c->result, .trash_uid = c->trash_uid,
	    .owner_uid = -1, .path = c->path,
	    .detail = c->target[0] ? c->target : "-" };

	snprintf(action, sizeof(action), "ctl-%s", verb);
	audit_record(c->d, &a);
	c->path = NULL;
	c->trash_uid = -1;
}

/*
 * The uid a request acts on: the caller's own, or with A_UID another's,
 * which only an admin may name.  -EPERM with the reply sent.
 */
int
conn_target_uid(struct control_conn *c, const struct proto_msg *m,
    uint32_t *uid)
{
	*uid = c->peer.uid;
	c->trash_uid = *uid;
	if (!PROTO_HAS(m, A_UID))
		return 0;
	snprintf(c->target, sizeof(c->target), "uid=%" PRId64,
	    m->num[A_UID]);
	if (m->num[A_UID] < 0 || m->num[A_UID] > TRASHBIN_UID_MAX) {
		conn_reply_error(c, EINVAL, "uid %" PRId64 " out of range",
		    m->num[A_UID]);
		return -EINVAL;
	}
	/*
	 * The request's record names whose trash, refused or not: audit
	 * --owner finds who tried.
	 */
	c->trash_uid = m->num[A_UID];
	if ((uid_t)m->num[A_UID] != c->peer.uid && !c->peer.admin) {
		conn_reply_error(c, EPERM, "only an admin may act on "
		    "another user's trash");
		return -EPERM;
	}
	*uid = (uint32_t)m->num[A_UID];
	return 0;
}

int
conn_where(struct control_conn *c, const struct proto_msg *m,
    struct where *w)
{
	memset(w, 0, sizeof(*w));
	/* By id, or both named: select_entries() says which is wrong. */
	if (PROTO_HAS(m, A_PATH) && !PROTO_HAS(m, A_ID)) {
		c->path = m->str[A_PATH];
		if (trash_path_fs(c->d, m->str[A_PATH], &w->fs, &w->rel) < 0) {
			conn_reply_error(c, ENOENT, "%s: not on a filesystem "
			    "trashd manages", m->str[A_PATH]);
			return -ENOENT;
		}
		if (trash_rel_valid(w->rel, true) < 0) {
			conn_reply_error(c, EINVAL, "%s: not a plain "
			    "absolute path", m->str[A_PATH]);
			return -EINVAL;
		}
	}
	if (PROTO_HAS(m, A_TO)) {
		/* Off every managed filesystem: tofs NULL, the caller's EXDEV. */
		if (trash_path_fs(c->d, m->str[A_TO], &w->tofs, &w->to) < 0)
			w->to = "";
		else if (trash_rel_valid(w->to, true) < 0) {
			conn_reply_error(c, EINVAL, "%s: not a plain "
			    "absolute path", m->str[A_TO]);
			return -EINVAL;
		}
	}
	return 0;
}

int
conn_need_admin(struct control_conn *c)
{
	if (c->peer.admin)
		return 0;
	conn_reply_error(c, EPERM, "only an admin may do that");
	return -EPERM;
}

/* One MSG_ENTRY, built in @b. */
void
conn_entry_msg(struct control_conn *c, struct proto_buf *b,
    const struct entry *e)
{
	struct tfs *fs = trash_fs(c->d, e->fs_id);

	proto_init(b, MSG_ENTRY);
	proto_num(b, A_ID, e->id);
	proto_num(b, A_UID, e->trash_uid);
	proto_num(b, A_OWNER, e->owner_uid);
	proto_num(b, A_DELETER, e->deleter_uid);
	proto_str(b, A_FS, fs != NULL ? fs->path : "?");
	proto_str(b, A_PATH, e->orig_path);
	proto_str(b, A_NAME, e->name[0] ? e->name : "?");
	proto_num(b, A_TIME, e->deleted_ns);
	proto_num(b, A_SIZE, e->size);
	proto_num(b, A_FLAGS, e->flags);
	proto_str(b, A_STATE, entry_state_name(e->state));
	conn_send(c, b);
}

void
conn_result_msg(struct control_conn *c, const struct entry *e, int err,
    const char *msg)
{
	struct proto_buf *b = xmalloc(sizeof(*b));

	proto_init(b, MSG_RESULT);
	proto_num(b, A_ID, e->id);
	proto_num(b, A_ERRNO, err);
	proto_str(b, A_PATH, e->orig_path);
	proto_num(b, A_SIZE, e->size);
	proto_str(b, A_MESSAGE, msg);
	conn_send(c, b);
	free(b);
}
