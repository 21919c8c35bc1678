/* SPDX-License-Identifier: ISC */
/*
 * The control socket's requests, in the privileged daemon.  Clients do
 * not reach this process: the front process (front.c) accepts them on
 * the unix socket (mode 0666) that every local user reaches, reads the
 * peer's uid, gid, pid and supplementary groups once at accept
 * (SO_PEERCRED, SO_PEERGROUPS), checks each request, and hands each client
 * over as one end of a socketpair with those credentials, which are
 * stored on the connection (control_client()); nothing a client says
 * about itself is believed, nor SO_PEERCRED of the pair (the front's).
 * Admins are uid 0 and, with "admin-group", the peers that hold that
 * group at connect time.
 *
 * Connections are capped per uid and in all; a client has client-timeout
 * seconds to send each whole request and to take each reply, or it is
 * closed; nothing a client does blocks another.  Each message is checked
 * before use, here again behind the front's checks: a wrong version or an
 * oversized length gets an error and the connection is closed (its
 * framing cannot be trusted any more); a malformed or unknown request gets
 * an error and the connection goes on (the front closes it first).
 * Every request, allowed or denied, is audited with the peer's uid and pid.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto.h"
#include "control.h"

/* Connections in all and per uid: far above any honest use. */
#define CONTROL_CONNS_MAX	512
#define CONTROL_CONNS_UID	64

/* ---- dispatch ---- */

/* Only an admin (uid 0, or a member of admin-group) may ask. */
#define CONTROL_ADMIN	0x1

/*
 * The requests: each with its name (the protocol's, proto_type_name(), for
 * the audit record), who may ask, and its handler.  A handler replies, or
 * leaves a job (a restore, a list, an empty) that ends the request later.
 * CONTROL_ADMIN is checked before the handler reads anything; the other
 * verbs check what they are asked for (another uid, all users) themselves.
 */
static const struct control_verb {
	uint16_t	 type;
	const char	*name;
	unsigned	 flags;
	void		(*handler)(struct control_conn *,
			    const struct proto_msg *);
} control_verbs[] = {
	{ MSG_STATUS,	"status",	0,		verb_status },
	{ MSG_LIST,	"list",		0,		verb_list },
	{ MSG_RESTORE,	"restore",	0,		verb_restore },
	{ MSG_WIPE,	"wipe",		0,		verb_wipe },
	{ MSG_EMPTY,	"empty",	0,		verb_empty },
	{ MSG_QUOTA,	"quota",	0,		verb_quota },
	{ MSG_POLICY_GET, "policy-get",	CONTROL_ADMIN,	verb_policy_get },
	{ MSG_POLICY_SET, "policy-set",	CONTROL_ADMIN,	verb_policy_set },
	{ MSG_AUDIT,	"audit",	CONTROL_ADMIN,	verb_audit },
};
#define CONTROL_NVERBS	(sizeof(control_verbs) / sizeof(control_verbs[0]))

static const struct control_verb *
control_verb_find(uint16_t type)
{
	size_t i;

	for (i = 0; i < CONTROL_NVERBS; i++)
		if (control_verbs[i].type == type)
			return &control_verbs[i];
	return NULL;
}

static void
control_dispatch(struct control_conn *c, const struct proto_hdr *h,
    const uint8_t *payload)
{
	struct proto_msg *m = xmalloc(sizeof(*m));
	const struct control_verb *v;
	const char *why, *verb = "unknown";
	int r;

	c->target[0] = c->result[0] = '\0';
	c->path = NULL;
	c->trash_uid = -1;
	if ((v = control_verb_find(h->type)) == NULL) {
		snprintf(c->target, sizeof(c->target), "type=%u",
		    (unsigned)h->type);
		conn_reply_error(c, EBADMSG, "unknown request type %u",
		    (unsigned)h->type);
		goto out;
	}
	verb = v->name;
	if ((r = proto_parse(h, payload, m, &why)) < 0) {
		conn_reply_error(c, EBADMSG, "malformed %s request: %s",
		    verb, why);
		goto out;
	}
	c->busy = true;
	if ((v->flags & CONTROL_ADMIN) && conn_need_admin(c) < 0)
		goto out;
	v->handler(c, m);
	/* An empty under way audits itself when it is over. */
	if (c->vops != NULL && c->vops->audits_at_end) {
		free(m);
		return;
	}
out:
	conn_audit(c, verb);
	free(m);
	/* A restore or a list runs on: it ends the request. */
	if (c->job == NULL && c->vops == NULL)
		c->busy = false;
}

/* Take whole messages from the input while no reply is pending. */
static void
control_read(struct bufferevent *bev, void *arg)
{
	struct control_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct proto_hdr h;
	size_t len;
	int r;

	while (!c->busy && !c->closing) {
		len = evbuffer_get_length(in);
		if (len < PROTO_HDR_LEN)
			return;
		evbuffer_copyout(in, c->rbuf, PROTO_HDR_LEN);
		if ((r = proto_parse_hdr(c->rbuf, &h)) < 0) {
			c->target[0] = c->result[0] = '\0';
			snprintf(c->target, sizeof(c->target), "version=%u "
			    "type=%u len=%u", (unsigned)h.version,
			    (unsigned)h.type, (unsigned)h.len);
			if (r == -EPROTONOSUPPORT)
				conn_reply_error(c, EPROTONOSUPPORT,
				    "protocol version %u, trashd speaks %d",
				    (unsigned)h.version, PROTOCOL_VERSION);
			else
				conn_reply_error(c, EMSGSIZE, "request of "
				    "%u bytes, at most %d", (unsigned)h.len,
				    PROTO_MSG_MAX);
			conn_audit(c, "refused");
			conn_close_soon(c);
			return;
		}
		if (len < PROTO_HDR_LEN + h.len)
			return;
		evbuffer_remove(in, c->rbuf, PROTO_HDR_LEN + h.len);
		event_del(c->deadline);
		control_dispatch(c, &h, c->rbuf + PROTO_HDR_LEN);
		if (!c->busy && !c->closing)
			conn_arm(c);
	}
	if (c->busy)
		bufferevent_disable(bev, EV_READ);
}

static void
control_write(struct bufferevent *bev, void *arg)
{
	struct control_conn *c = arg;

	if (c->vops != NULL && c->vops->more != NULL) {
		if (c->vops->more(c))
			conn_request_done(c);
		return;
	}
	if (c->closing && evbuffer_get_length(
	    bufferevent_get_output(bev)) == 0)
		conn_free(c);
}

static void
control_event(struct bufferevent *bev, short what, void *arg)
{
	struct control_conn *c = arg;
	size_t left;

	if (what & BEV_EVENT_EOF) {
		left = evbuffer_get_length(bufferevent_get_input(bev));
		c->eof = true;
		if (c->busy)
			return;	/* the reply goes out, then we close */
		if (left > 0 && !c->closing) {
			c->target[0] = c->result[0] = '\0';
			conn_reply_error(c, EBADMSG, "truncated request: "
			    "%zu bytes, then end of file", left);
			conn_audit(c, "refused");
		}
		conn_close_soon(c);
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		log_info("control: uid %u pid %d: stalled reading its "
		    "reply, closing", (unsigned)c->peer.uid,
		    (int)c->peer.pid);
	/* Errors, timeouts: nobody left to tell. */
	conn_free(c);
}

/* ---- accept ---- */

static bool
control_is_admin(struct trashd *d, const struct peer *p)
{
	int i;

	if (p->uid == 0)
		return true;
	if (d->conf->admin_gid < 0)
		return false;
	if (p->gid == (gid_t)d->conf->admin_gid)
		return true;
	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == (gid_t)d->conf->admin_gid)
			return true;
	return false;
}

static int
control_count_uid(struct control *ctl, uid_t uid)
{
	struct control_conn *c;
	int n = 0;

	TAILQ_FOREACH(c, &ctl->conns, entry)
		if (c->peer.uid == uid)
			n++;
	return n;
}

struct control_conn *
control_conn_new(struct trashd *d, int fd, const struct peer *p)
{
	struct control *ctl = d->control;
	struct control_conn *c = xcalloc(1, sizeof(*c));
	struct timeval wtv = conn_timeout(d);

	c->d = d;
	c->peer = *p;
	c->trash_uid = -1;
	c->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->deadline = evtimer_new(d->base, conn_deadline, c);
	if (c->bev == NULL || c->deadline == NULL)
		fatalx("control: cannot set up a connection");
	bufferevent_setcb(c->bev, control_read, control_write, control_event,
	    c);
	/* Never more than one whole request buffered. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, PROTO_HDR_LEN +
	    PROTO_MSG_MAX);
	/* A client that stops taking its reply is closed. */
	bufferevent_set_timeouts(c->bev, NULL, &wtv);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&ctl->conns, c, entry);
	ctl->nconns++;
	conn_arm(c);
	return c;
}

size_t
control_nconns(struct trashd *d)
{
	return d->control != NULL ? d->control->nconns : 0;
}

/*
 * A client, as the front process hands it over: its end of a socketpair,
 * and its credentials as the front read them at accept (SO_PEERCRED on
 * the pair would name the front).  @p's groups are taken.
 */
void
control_client(struct trashd *d, int fd, struct peer *p)
{
	struct control *ctl = d->control;

	if (ctl->nconns >= CONTROL_CONNS_MAX ||
	    control_count_uid(ctl, p->uid) >= CONTROL_CONNS_UID) {
		log_warnx("control: uid %u pid %d: too many connections",
		    (unsigned)p->uid, (int)p->pid);
		proto_refuse(fd, EUSERS, "too many connections");
		free(p->groups);
		return;
	}
	p->admin = control_is_admin(d, p);
	evutil_make_socket_nonblocking(fd);
	(void)control_conn_new(d, fd, p);
}

/* A request the front refused (malformed): audited as the old ones were. */
void
control_refused(struct trashd *d, uid_t uid, pid_t pid, const char *target,
    const char *result)
{
	struct audit_rec a = { .uid = uid, .pid = pid,
	    .action = "ctl-refused", .result = result, .trash_uid = -1,
	    .owner_uid = -1, .path = NULL,
	    .detail = target[0] ? target : "-" };

	audit_record(d, &a);
}

int
control_init(struct trashd *d)
{
	struct control *ctl;

	if (d->base == NULL)
		return 0;
	ctl = xcalloc(1, sizeof(*ctl));
	TAILQ_INIT(&ctl->conns);
	ctl->started_ns = now_ns();
	d->control = ctl;
	return 0;
}

void
control_close(struct trashd *d)
{
	struct control *ctl = d->control;

	if (ctl == NULL)
		return;
	/*
	 * The connections first: each detaches its restore, which the stop
	 * then frees (the other way round, a connection still pointed at a
	 * freed job: a use after free at exit with a restore running).
	 */
	while (!TAILQ_EMPTY(&ctl->conns))
		conn_free(TAILQ_FIRST(&ctl->conns));
	restore_stop_all(d);
	free(ctl);
	d->control = NULL;
}

