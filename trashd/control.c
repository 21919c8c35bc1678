/* SPDX-License-Identifier: ISC */
/*
 * The control socket: a unix stream socket (mode 0666) that every local
 * user reaches.  The peer's uid, gid, pid and supplementary groups are
 * read once at accept (SO_PEERCRED, SO_PEERGROUPS) and stored on the
 * connection; nothing a client says about itself is believed.  Admins
 * are uid 0 and, with "admin-group", the peers that hold that group at
 * connect time.
 *
 * Connections are capped per uid and in all; a client has client-timeout
 * seconds to send each whole request and to take each reply, or it is
 * closed; nothing a client does blocks another.  Each message is checked
 * before use: a wrong version or an oversized length gets an error and
 * the connection is closed (its framing cannot be trusted any more); a
 * malformed or unknown request gets an error and the connection goes on.
 * Every request, allowed or denied, is audited with the peer's uid and pid.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"
#include "control.h"

/* Connections in all and per uid: far above any honest use. */
#define CONTROL_CONNS_MAX	512
#define CONTROL_CONNS_UID	64
/* Groups of a peer we look at; NGROUPS_MAX is 65536 but nobody has so many. */
#define CONTROL_GROUPS_MAX	1024

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
		control_reply_error(c, EBADMSG, "unknown request type %u",
		    (unsigned)h->type);
		goto out;
	}
	verb = v->name;
	if ((r = proto_parse(h, payload, m, &why)) < 0) {
		control_reply_error(c, EBADMSG, "malformed %s request: %s",
		    verb, why);
		goto out;
	}
	c->busy = true;
	if ((v->flags & CONTROL_ADMIN) && control_need_admin(c) < 0)
		goto out;
	v->handler(c, m);
	/* An empty under way audits itself when it is over. */
	if (c->vops != NULL && c->vops->audits_at_end) {
		free(m);
		return;
	}
out:
	control_audit(c, verb);
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
				control_reply_error(c, EPROTONOSUPPORT,
				    "protocol version %u, trashd speaks %d",
				    (unsigned)h.version, PROTOCOL_VERSION);
			else
				control_reply_error(c, EMSGSIZE, "request of "
				    "%u bytes, at most %d", (unsigned)h.len,
				    PROTO_MSG_MAX);
			control_audit(c, "refused");
			control_close_soon(c);
			return;
		}
		if (len < PROTO_HDR_LEN + h.len)
			return;
		evbuffer_remove(in, c->rbuf, PROTO_HDR_LEN + h.len);
		event_del(c->deadline);
		control_dispatch(c, &h, c->rbuf + PROTO_HDR_LEN);
		if (!c->busy && !c->closing)
			control_arm(c);
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
			control_request_done(c);
		return;
	}
	if (c->closing && evbuffer_get_length(
	    bufferevent_get_output(bev)) == 0)
		control_conn_free(c);
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
			control_reply_error(c, EBADMSG, "truncated request: "
			    "%zu bytes, then end of file", left);
			control_audit(c, "refused");
		}
		control_close_soon(c);
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		log_info("control: uid %u pid %d: stalled reading its "
		    "reply, closing", (unsigned)c->peer.uid,
		    (int)c->peer.pid);
	/* Errors, timeouts: nobody left to tell. */
	control_conn_free(c);
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
control_peer_creds(int fd, struct peer *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	gid_t *g;

	memset(p, 0, sizeof(*p));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		return -errno;
	p->uid = uc.uid;
	p->gid = uc.gid;
	p->pid = uc.pid;
	/* The groups the peer held at connect(): as a file check sees them. */
	g = xcalloc(CONTROL_GROUPS_MAX, sizeof(*g));
	len = CONTROL_GROUPS_MAX * sizeof(*g);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) < 0) {
		free(g);
		return errno == ERANGE ? -E2BIG : -errno;
	}
	p->groups = g;
	p->ngroups = (int)(len / sizeof(*g));
	return 0;
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
	struct timeval wtv = control_timeout(d);

	c->d = d;
	c->peer = *p;
	c->trash_uid = -1;
	c->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
	c->deadline = evtimer_new(d->base, control_deadline, c);
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
	control_arm(c);
	return c;
}

size_t
control_nconns(struct trashd *d)
{
	return d->control != NULL ? d->control->nconns : 0;
}

static void
control_refuse(int fd, int err, const char *msg)
{
	struct proto_buf *b = xmalloc(sizeof(*b));
	int len;

	proto_init(b, MSG_ERROR);
	proto_num(b, A_ERRNO, err);
	proto_str(b, A_MESSAGE, msg);
	if ((len = proto_finish(b)) > 0)
		(void)send(fd, b->data, (size_t)len, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	free(b);
	close(fd);
}

static void
control_accept(struct evconnlistener *lev, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct trashd *d = arg;
	struct control *ctl = d->control;
	struct peer p;
	int r;

	(void)lev;
	(void)sa;
	(void)salen;
	if ((r = control_peer_creds(fd, &p)) < 0) {
		log_warnx("control: peer credentials: %s", strerror(-r));
		control_refuse(fd, -r, "cannot read your credentials");
		return;
	}
	if (ctl->nconns >= CONTROL_CONNS_MAX ||
	    control_count_uid(ctl, p.uid) >= CONTROL_CONNS_UID) {
		log_warnx("control: uid %u pid %d: too many connections",
		    (unsigned)p.uid, (int)p.pid);
		control_refuse(fd, EUSERS, "too many connections");
		free(p.groups);
		return;
	}
	p.admin = control_is_admin(d, &p);
	evutil_make_socket_nonblocking(fd);
	(void)control_conn_new(d, fd, &p);
}

static void
control_accept_error(struct evconnlistener *lev, void *arg)
{
	(void)lev;
	(void)arg;
	/* EMFILE and the like: the pending connection waits its turn. */
	log_warn("control: accept");
}

/* Bind the socket, mode 0666, replacing a stale one. */
static int
control_bind(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			close(fd);
			return -EEXIST;
		}
		/* A live trashd answers: never steal its socket. */
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 ||
		    errno == EAGAIN) {
			close(fd);
			return -EADDRINUSE;
		}
		close(fd);
		(void)unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -errno;
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    chmod(path, 0666) < 0 || listen(fd, 128) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int
control_init(struct trashd *d)
{
	struct control *ctl;
	char *dir, *slash;
	int fd;

	if (d->base == NULL)
		return 0;
	ctl = xcalloc(1, sizeof(*ctl));
	TAILQ_INIT(&ctl->conns);
	ctl->started_ns = now_ns();
	d->control = ctl;
	if (d->conf->socket == NULL || d->conf->socket[0] == '\0')
		return 0;	/* fuzzing: connections made by hand */
	ctl->path = xstrdup(d->conf->socket);
	/* /run/trashd: root's, others may only traverse it. */
	dir = xstrdup(ctl->path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) == 0)
			(void)chmod(dir, 0755);
	}
	free(dir);
	if ((fd = control_bind(ctl->path)) < 0) {
		errno = -fd;
		log_warn("control: %s", ctl->path);
		return fd;
	}
	ctl->lev = evconnlistener_new(d->base, control_accept, d,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (ctl->lev == NULL)
		fatalx("control: cannot listen");
	evconnlistener_set_error_cb(ctl->lev, control_accept_error);
	log_info("control: listening on %s", ctl->path);
	return 0;
}

void
control_close(struct trashd *d)
{
	struct control *ctl = d->control;

	if (ctl == NULL)
		return;
	restore_stop_all(d);
	while (!TAILQ_EMPTY(&ctl->conns))
		control_conn_free(TAILQ_FIRST(&ctl->conns));
	if (ctl->lev != NULL) {
		evconnlistener_free(ctl->lev);
		(void)unlink(ctl->path);
	}
	free(ctl->path);
	free(ctl);
	d->control = NULL;
}

