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
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "parse.h"
#include "proto.h"
#include "control.h"

/* Connections in all and per uid: far above any honest use. */
#define CONTROL_CONNS_MAX	512
#define CONTROL_CONNS_UID	64
/* Audit rows one query returns at most, and by default. */
#define CONTROL_AUDIT_MAX	10000
#define CONTROL_AUDIT_DEFAULT	100
/* A list: entries read per page; output bytes above which the next page
 * waits for the client, and below which it is read. */
#define CONTROL_LIST_PAGE	256
#define CONTROL_LIST_HIGH	(256 * 1024)
#define CONTROL_LIST_LOW	(64 * 1024)
/*
 * Entries an "empty" purges per loop turn (some 100 us each, a unlink and
 * an audit row): a large trash is emptied over many turns, one
 * transaction each, and other clients are answered in between.
 */
#define CONTROL_EMPTY_STEP	128
/* Restores running at once, of everyone; more are told to retry.  Each
 * uid has restore-max of them (trashd.conf). */
#define CONTROL_RESTORES_MAX	16

struct control_conn {
	TAILQ_ENTRY(control_conn) entry;
	struct trashd		*d;
	struct bufferevent	*bev;
	struct event		*deadline;	/* the next request is due */
	struct peer		 peer;
	bool			 busy;		/* a reply is still coming */
	bool			 closing;	/* flush, then close */
	bool			 eof;		/* the client shut its side */
	struct restore_job	*job;
	struct control_list	*list;		/* a list being sent */
	struct control_empty	*empty;		/* an empty going on */
	uint8_t			 rbuf[PROTO_HDR_LEN + PROTO_MSG_MAX];
	/*
	 * What the audit row of the current request says: the target in
	 * trashd's own words, the path the client named as its bytes (a
	 * field of its own: audit.c), the result.
	 */
	char			 target[512];
	const char		*path;
	int64_t			 trash_uid;	/* whose trash, -1: none */
	char			 result[256];
};

struct control {
	TAILQ_HEAD(, control_conn) conns;
	size_t			 nconns;
	int64_t			 started_ns;
};

static void	control_conn_free(struct control_conn *);
static void	control_list_free(struct control_conn *);
static void	control_empty_free(struct control_conn *);
static void	control_arm(struct control_conn *);

static struct timeval
control_timeout(const struct trashd *d)
{
	struct timeval tv = { 30, 0 };

	if (d->conf->client_timeout > 0)
		tv.tv_sec = d->conf->client_timeout;
	return tv;
}

/* ---- paths ---- */

/*
 * The managed filesystem that holds absolute path @abs: the longest
 * configured mount point that is a prefix of it, at a component boundary.
 * *@rel is the rest, relative to that filesystem's root ("" for the root).
 */
int
control_path_fs(struct trashd *d, const char *abs, struct tfs **fsp,
    const char **rel)
{
	struct tfs *best = NULL;
	size_t i, len, blen = 0;
	const char *p;

	if (abs[0] != '/')
		return -EINVAL;
	for (i = 0; i < d->nfs; i++) {
		p = d->fs[i].path;
		len = strlen(p);
		while (len > 1 && p[len - 1] == '/')
			len--;
		if (len == 1 && p[0] == '/')
			len = 0;	/* "/" holds everything */
		else if (strncmp(abs, p, len) != 0 ||
		    (abs[len] != '/' && abs[len] != '\0'))
			continue;
		if (best == NULL || len > blen) {
			best = &d->fs[i];
			blen = len;
		}
	}
	if (best == NULL)
		return -ENOENT;
	for (p = abs + blen; *p == '/'; p++)
		;
	*fsp = best;
	*rel = p;
	return 0;
}

/* ---- replies ---- */

void
control_send(struct control_conn *c, struct proto_buf *b)
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
control_reply_error(struct control_conn *c, int err, const char *fmt, ...)
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
	control_send(c, b);
	free(b);
}

static void
control_reply_ok(struct control_conn *c, struct proto_buf *b)
{
	if (c->result[0] == '\0')
		snprintf(c->result, sizeof(c->result), "ok");
	control_send(c, b);
}

/* ---- connection life ---- */

static void
control_close_soon(struct control_conn *c)
{
	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		control_conn_free(c);
}

/* The reply to the current request is complete: take the next one. */
void
control_request_done(struct control_conn *c)
{
	c->busy = false;
	c->job = NULL;
	if (c->closing || c->eof) {
		c->closing = false;
		control_close_soon(c);
		return;
	}
	control_arm(c);
	bufferevent_enable(c->bev, EV_READ);
	/* Requests that arrived meanwhile are in the input buffer. */
	bufferevent_trigger(c->bev, EV_READ, BEV_TRIG_IGNORE_WATERMARKS);
}

/* A restore's replies, to the connection it was started for. */
static void
control_restore_send(void *c, struct proto_buf *b)
{
	control_send(c, b);
}

static void
control_restore_done(void *c)
{
	control_request_done(c);
}

static const struct restore_client control_restore_client = {
	.send = control_restore_send,
	.done = control_restore_done,
};

static void
control_deadline(evutil_socket_t fd, short ev, void *arg)
{
	struct control_conn *c = arg;

	(void)fd;
	(void)ev;
	log_info("control: uid %u pid %d: no request within %" PRId64
	    "s, closing", (unsigned)c->peer.uid, (int)c->peer.pid,
	    (int64_t)control_timeout(c->d).tv_sec);
	control_conn_free(c);
}

/* The client has one timeout to send its whole next request. */
static void
control_arm(struct control_conn *c)
{
	struct timeval tv = control_timeout(c->d);

	evtimer_add(c->deadline, &tv);
}

static void
control_conn_free(struct control_conn *c)
{
	struct control *ctl = c->d->control;

	if (c->job != NULL)
		restore_detach(c->job);
	control_list_free(c);
	control_empty_free(c);
	TAILQ_REMOVE(&ctl->conns, c, entry);
	ctl->nconns--;
	event_free(c->deadline);
	bufferevent_free(c->bev);
	free(c->peer.groups);
	free(c);
}

/* ---- authorisation ---- */

static void
control_audit(struct control_conn *c, const char *verb)
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
static int
control_target_uid(struct control_conn *c, const struct proto_msg *m,
    uint32_t *uid)
{
	*uid = c->peer.uid;
	c->trash_uid = *uid;
	if (!PROTO_HAS(m, A_UID))
		return 0;
	snprintf(c->target, sizeof(c->target), "uid=%" PRId64,
	    m->num[A_UID]);
	if (m->num[A_UID] < 0 || m->num[A_UID] > TRASHBIN_UID_MAX) {
		control_reply_error(c, EINVAL, "uid %" PRId64 " out of range",
		    m->num[A_UID]);
		return -EINVAL;
	}
	/*
	 * The request's record names whose trash, refused or not: audit
	 * --owner finds who tried.
	 */
	c->trash_uid = m->num[A_UID];
	if ((uid_t)m->num[A_UID] != c->peer.uid && !c->peer.admin) {
		control_reply_error(c, EPERM, "only an admin may act on "
		    "another user's trash");
		return -EPERM;
	}
	*uid = (uint32_t)m->num[A_UID];
	return 0;
}

static int
control_need_admin(struct control_conn *c)
{
	if (c->peer.admin)
		return 0;
	control_reply_error(c, EPERM, "only an admin may do that");
	return -EPERM;
}

/* ---- verbs ---- */

/* One MSG_ENTRY, built in @b. */
static void
control_entry_msg(struct control_conn *c, struct proto_buf *b,
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
	control_send(c, b);
}

static void
control_status(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b = xmalloc(sizeof(*b));
	struct statvfs sv;
	struct usage u;
	int64_t count = 0, bytes = 0;
	char msg[64];
	size_t i, n;

	(void)m;
	for (i = 0; i < d->nfs; i++) {
		proto_init(b, MSG_FS);
		proto_str(b, A_FS, d->fs[i].path);
		proto_num(b, A_WATERMARK, policy_fs_watermark(d, &d->fs[i]));
		if (fstatvfs(d->fs[i].rootfd, &sv) == 0) {
			proto_num(b, A_TOTAL, (int64_t)(sv.f_blocks *
			    sv.f_frsize));
			proto_num(b, A_AVAIL, (int64_t)(sv.f_bavail *
			    sv.f_frsize));
		}
		if (index_usage(d->db, d->fs[i].id, c->peer.uid, &u) == 0) {
			proto_num(b, A_COUNT, u.count);
			proto_num(b, A_BYTES, u.bytes);
			count += u.count;
			bytes += u.bytes;
		}
		control_send(c, b);
	}
	proto_init(b, MSG_OK);
	proto_str(b, A_SERVER, "trashd " TRASHBIN_VERSION);
	proto_num(b, A_PID, getpid());
	proto_num(b, A_UPTIME, (now_ns() - d->control->started_ns) /
	    NSEC_PER_SEC);
	proto_num(b, A_UID, c->peer.uid);
	proto_num(b, A_ADMIN, c->peer.admin);
	proto_num(b, A_COUNT, count);
	proto_num(b, A_BYTES, bytes);
	/* Wipes waiting for others to close: the caller's, all for admins. */
	n = wipe_deferred(d, c->peer.admin ? -1 : (int64_t)c->peer.uid);
	if (n > 0) {
		snprintf(msg, sizeof(msg), "wipe deferred: %zu entr%s still "
		    "open", n, n == 1 ? "y" : "ies");
		proto_str(b, A_MESSAGE, msg);
	}
	control_reply_ok(c, b);
	free(b);
}

/*
 * A list is sent a page at a time, each page read from the index only when
 * the client has taken most of the one before: the daemon holds one page
 * and a bounded output buffer, however long the list.
 */
struct control_list {
	struct index_filter	 f;
	char			*prefix;
	int64_t			 left;		/* entries still to send, -1: all */
	int64_t			 count;
	int64_t			 bytes;
};

static void
control_list_free(struct control_conn *c)
{
	if (c->list == NULL)
		return;
	free(c->list->prefix);
	free(c->list);
	c->list = NULL;
	bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
}

/*
 * Send pages while the output is short; the write callback calls again.
 * True: the reply is complete (or cannot be) and the list is freed.
 */
static bool
control_list_more(struct control_conn *c)
{
	struct control_list *l = c->list;
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
			control_reply_error(c, -r, "index: %s", strerror(-r));
			free(b);
			control_list_free(c);
			return true;
		}
		for (i = 0; i < page.n; i++) {
			control_entry_msg(c, b, &page.v[i]);
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
		control_send(c, b);
	}
	free(b);
	if (done || c->closing) {
		control_list_free(c);
		return true;
	}
	return false;
}

static void
control_list(struct control_conn *c, const struct proto_msg *m)
{
	struct control_list *l;
	struct tfs *fs = NULL;
	const char *rel = NULL;
	uint32_t uid;
	int r;

	if (control_target_uid(c, m, &uid) < 0)
		return;
	l = xcalloc(1, sizeof(*l));
	l->f.fs_id = -1;
	l->f.states = ENTRY_LIVE;
	l->f.uid = uid;
	l->left = -1;
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	if (PROTO_HAS(m, A_ALL) && m->num[A_ALL]) {
		if (control_need_admin(c) < 0)
			goto fail;
		l->f.uid = -1;
		c->trash_uid = -1;
		snprintf(c->target, sizeof(c->target), "uid=all");
	}
	if (PROTO_HAS(m, A_PREFIX) &&
	    control_path_fs(c->d, m->str[A_PREFIX], &fs, &rel) < 0) {
		control_reply_error(c, ENOENT, "%s: not on a filesystem "
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
			control_reply_error(c, -r, "index: %s", strerror(-r));
			goto fail;
		}
	}
	snprintf(c->result, sizeof(c->result), "ok");
	c->list = l;
	/* The write callback runs when the output falls to the low mark. */
	bufferevent_setwatermark(c->bev, EV_WRITE, CONTROL_LIST_LOW, 0);
	/* Done at once: control_dispatch() ends the request. */
	(void)control_list_more(c);
	return;
fail:
	free(l->prefix);
	free(l);
}

static void
control_usage_msg(struct control_conn *c, struct proto_buf *b,
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
	control_send(c, b);
}

static void
control_quota(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b;
	struct usage u, *all;
	size_t i, j, n;
	uint32_t uid;
	int r;

	if (control_target_uid(c, m, &uid) < 0)
		return;
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	if (PROTO_HAS(m, A_ALL) && m->num[A_ALL] &&
	    control_need_admin(c) < 0)
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
				control_usage_msg(c, b, &d->fs[i], &all[j]);
			free(all);
			continue;
		}
		if ((r = index_usage(d->db, d->fs[i].id, uid, &u)) < 0)
			goto fail;
		control_usage_msg(c, b, &d->fs[i], &u);
	}
	proto_init(b, MSG_OK);
	control_reply_ok(c, b);
	free(b);
	return;
fail:
	control_reply_error(c, -r, "index: %s", strerror(-r));
	free(b);
}

/*
 * One MSG_POLICY: quota and retention with @p, a watermark @wm (-1: not
 * set) of @fs (NULL: every filesystem) with @with_wm.
 */
static void
control_policy_msg(struct control_conn *c, int kind, int64_t xid,
    const struct policy *p, bool with_wm, const struct tfs *fs, int64_t wm)
{
	struct proto_buf *b = xmalloc(sizeof(*b));

	proto_init(b, MSG_POLICY);
	proto_num(b, A_KIND, kind);
	if (xid >= 0)
		proto_num(b, A_XID, xid);
	if (p != NULL) {
		proto_num(b, A_QUOTA, p->quota);
		proto_num(b, A_RETENTION, p->retention);
		proto_str(b, A_QUOTA_TEXT, p->quota_text);
		proto_str(b, A_RETENTION_TEXT, p->retention_text);
	}
	if (with_wm) {
		if (fs != NULL)
			proto_str(b, A_FS, fs->path);
		proto_num(b, A_WATERMARK, wm);
	}
	control_send(c, b);
	free(b);
}

/*
 * The defaults: those set over the socket (-1: not set), then the config
 * file's, each with its watermarks; the first set of these wins.
 */
static int
control_policy_defaults(struct control_conn *c)
{
	struct trashd *d = c->d;
	struct policy p = { -1, -1, "", "" };
	size_t i;
	int wm, r;

	if ((r = policy_get(d, POLICY_DEFAULT, 0, &p)) < 0 && r != -ENOENT)
		return r;
	control_policy_msg(c, PROTO_KIND_DEFAULT, -1, &p, false, NULL, 0);
	if ((r = policy_get_watermark(d, 0, &wm)) < 0 && r != -ENOENT)
		return r;
	control_policy_msg(c, PROTO_KIND_DEFAULT, -1, NULL, true, NULL,
	    r == 0 ? wm : -1);
	for (i = 0; i < d->nfs; i++) {
		if ((r = policy_get_watermark(d, d->fs[i].id, &wm)) < 0 &&
		    r != -ENOENT)
			return r;
		control_policy_msg(c, PROTO_KIND_DEFAULT, -1, NULL, true,
		    &d->fs[i], r == 0 ? wm : -1);
	}
	/* trashd.conf's values have no text here: shown in their unit. */
	p.quota = (int64_t)d->conf->quota;
	p.retention = d->conf->retention;
	p.quota_text[0] = p.retention_text[0] = '\0';
	control_policy_msg(c, PROTO_KIND_CONFIG, -1, &p, false, NULL, 0);
	for (i = 0; i < d->nfs; i++)
		control_policy_msg(c, PROTO_KIND_CONFIG, -1, NULL, true,
		    &d->fs[i], d->fs[i].watermark);
	return 0;
}

static int
control_policy_kind(struct control_conn *c, const struct proto_msg *m,
    enum policy_kind *kind, uint32_t *xid)
{
	int64_t k = m->num[A_KIND];

	if (k != PROTO_KIND_USER && k != PROTO_KIND_GROUP &&
	    k != PROTO_KIND_DEFAULT) {
		control_reply_error(c, EINVAL, "unknown policy kind");
		return -EINVAL;
	}
	snprintf(c->target, sizeof(c->target), "%s",
	    k == PROTO_KIND_USER ? "user" : k == PROTO_KIND_GROUP ? "group" :
	    "default");
	if (k == PROTO_KIND_DEFAULT)
		return 1;
	if (!PROTO_HAS(m, A_XID) || m->num[A_XID] < 0 ||
	    m->num[A_XID] > TRASHBIN_UID_MAX) {
		control_reply_error(c, EINVAL, "a policy of a %s needs its id",
		    c->target);
		return -EINVAL;
	}
	*kind = k == PROTO_KIND_USER ? POLICY_USER : POLICY_GROUP;
	*xid = (uint32_t)m->num[A_XID];
	snprintf(c->target + strlen(c->target),
	    sizeof(c->target) - strlen(c->target), " %u", *xid);
	return 0;
}

static void
control_policy_get(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b;
	struct policy p = { -1, -1, "", "" };
	enum policy_kind kind = POLICY_USER;
	uint32_t xid = 0;
	int r;

	if ((r = control_policy_kind(c, m, &kind, &xid)) < 0)
		return;
	if (r == 1)
		r = control_policy_defaults(c);
	else if ((r = policy_get(d, kind, xid, &p)) == 0 || r == -ENOENT)
		control_policy_msg(c, (int)m->num[A_KIND], xid, &p, false,
		    NULL, 0);
	if (r < 0 && r != -ENOENT) {
		control_reply_error(c, -r, "index: %s", strerror(-r));
		return;
	}
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	control_reply_ok(c, b);
	free(b);
}

/*
 * policy set default watermark N [fs PATH]: the filesystem in *@fsp; the
 * reply sent on error.
 */
static int
control_policy_set_watermark(struct control_conn *c,
    const struct proto_msg *m, struct tfs **fsp)
{
	const char *rel;
	int wm = (int)m->num[A_WATERMARK], r;

	*fsp = NULL;
	if (PROTO_HAS(m, A_FS) && (control_path_fs(c->d, m->str[A_FS], fsp,
	    &rel) < 0 || rel[0] != '\0')) {
		control_reply_error(c, ENOENT, "%s: not a filesystem trashd "
		    "manages", m->str[A_FS]);
		return -ENOENT;
	}
	snprintf(c->target + strlen(c->target), sizeof(c->target) -
	    strlen(c->target), " watermark %s", *fsp != NULL ?
	    (*fsp)->path : "all");
	if ((r = policy_set_watermark(c->d, *fsp, wm)) < 0) {
		control_reply_error(c, -r, "%s", strerror(-r));
		return r;
	}
	snprintf(c->result, sizeof(c->result), "ok: watermark=%d", wm);
	return 0;
}

/*
 * A value's text as the admin typed it (A_QUOTA_TEXT, A_RETENTION_TEXT):
 * kept only if the shared parser reads it as the very number given, so
 * that what is shown can never differ from what is enforced.  0, or
 * -EINVAL with the reply sent.
 */
static int
control_policy_text(struct control_conn *c, const struct proto_msg *m,
    int num, int text, char *out)
{
	const char *s = m->str[text], *why = "";
	uint64_t bytes;
	int64_t secs, v;
	int r;

	out[0] = '\0';
	if (s == NULL)
		return 0;
	if (!PROTO_HAS(m, num) || m->num[num] < 0) {
		control_reply_error(c, EINVAL, "%s: a text without its value",
		    proto_attr_name(text));
		return -EINVAL;
	}
	if (num == A_QUOTA) {
		r = parse_size_limit(s, &bytes, &why);
		v = (int64_t)bytes;
	} else {
		r = parse_duration_limit(s, &secs, &why);
		v = secs;
	}
	/* PROTO_TEXT_MAX, which clients keep to, fits POLICY_TEXT_MAX. */
	if (r < 0 || v != m->num[num] || strlen(s) >= POLICY_TEXT_MAX) {
		control_reply_error(c, EINVAL, "%s does not say the %s given",
		    proto_attr_name(text), proto_attr_name(num));
		return -EINVAL;
	}
	snprintf(out, POLICY_TEXT_MAX, "%s", s);
	return 0;
}

/*
 * "policy set": all of it or none of it, in one transaction, and one
 * reply, a MSG_POLICY with what was set (the limits, the watermark or
 * both), sent once it is committed.
 */
static void
control_policy_set(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b;
	struct policy p = { -1, -1, "", "" };
	struct tfs *fs = NULL;
	enum policy_kind kind = POLICY_USER;
	char qtext[POLICY_TEXT_MAX], rtext[POLICY_TEXT_MAX];
	bool limits = PROTO_HAS(m, A_QUOTA) || PROTO_HAS(m, A_RETENTION);
	bool wm = PROTO_HAS(m, A_WATERMARK);
	uint32_t xid = 0;
	int r;

	if ((r = control_policy_kind(c, m, &kind, &xid)) < 0)
		return;
	if (r == 1)
		kind = POLICY_DEFAULT;
	if ((wm || PROTO_HAS(m, A_FS)) && kind != POLICY_DEFAULT) {
		control_reply_error(c, EINVAL, "watermarks are per "
		    "filesystem: set them with the default policy");
		return;
	}
	if (!limits && !wm) {
		control_reply_error(c, EINVAL, "nothing to set");
		return;
	}
	if ((PROTO_HAS(m, A_QUOTA) && m->num[A_QUOTA] < -1) ||
	    (PROTO_HAS(m, A_RETENTION) && (m->num[A_RETENTION] < -1 ||
	    m->num[A_RETENTION] > INT64_MAX / NSEC_PER_SEC)) ||
	    (wm && (m->num[A_WATERMARK] < -1 ||
	    m->num[A_WATERMARK] > 100))) {
		control_reply_error(c, EINVAL, "value out of range");
		return;
	}
	if (control_policy_text(c, m, A_QUOTA, A_QUOTA_TEXT, qtext) < 0 ||
	    control_policy_text(c, m, A_RETENTION, A_RETENTION_TEXT,
	    rtext) < 0)
		return;
	if ((r = db_begin(d->db)) < 0) {
		control_reply_error(c, -r, "index: %s", strerror(-r));
		return;
	}
	if (wm && control_policy_set_watermark(c, m, &fs) < 0)
		goto fail;
	if (!limits)
		goto done;
	/* Fields not given keep their value, and their text. */
	if ((r = policy_get(d, kind, xid, &p)) < 0 && r != -ENOENT) {
		c->result[0] = '\0';
		control_reply_error(c, -r, "index: %s", strerror(-r));
		goto fail;
	}
	if (PROTO_HAS(m, A_QUOTA)) {
		p.quota = m->num[A_QUOTA];
		memcpy(p.quota_text, qtext, sizeof(qtext));
	}
	if (PROTO_HAS(m, A_RETENTION)) {
		p.retention = m->num[A_RETENTION];
		memcpy(p.retention_text, rtext, sizeof(rtext));
	}
	if (p.quota < 0 && p.retention < 0) {
		r = policy_unset(d, kind, xid);
		if (r == -ENOENT)
			r = 0;
	} else {
		r = policy_set(d, kind, xid, &p);
	}
	if (r < 0) {
		c->result[0] = '\0';
		control_reply_error(c, -r, "%s", strerror(-r));
		goto fail;
	}
	snprintf(c->result + strlen(c->result), sizeof(c->result) -
	    strlen(c->result), "%s quota=%" PRId64 " retention=%" PRId64,
	    c->result[0] == '\0' ? "ok:" : "", p.quota, p.retention);
done:
	if ((r = db_commit(d->db)) < 0) {
		c->result[0] = '\0';
		control_reply_error(c, -r, "index: %s", strerror(-r));
		return;
	}
	policy_soon(d);
	control_policy_msg(c, (int)m->num[A_KIND], kind == POLICY_DEFAULT ?
	    -1 : (int64_t)xid, limits ? &p : NULL, wm, fs,
	    wm ? m->num[A_WATERMARK] : 0);
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	control_reply_ok(c, b);
	free(b);
	return;
fail:
	db_rollback(d->db);
}

static void
control_audit_query(struct control_conn *c, const struct proto_msg *m)
{
	struct audit_filter f = { .uid = -1, .owner = -1,
	    .limit = CONTROL_AUDIT_DEFAULT };
	struct audit_row *rows = NULL;
	struct proto_buf *b;
	size_t n = 0, i;
	int r;

	/* The filters are the index's, in SQL: see audit_search(). */
	if (PROTO_HAS(m, A_UID))
		f.uid = m->num[A_UID];
	if (PROTO_HAS(m, A_OWNER))
		f.owner = m->num[A_OWNER];
	if (PROTO_HAS(m, A_ACTION))
		f.action = m->str[A_ACTION];
	if (PROTO_HAS(m, A_RESULT))
		f.result = m->str[A_RESULT];
	if (PROTO_HAS(m, A_PREFIX)) {
		if (m->str[A_PREFIX][0] != '/') {
			control_reply_error(c, EINVAL, "a path prefix is "
			    "absolute");
			return;
		}
		f.prefix = m->str[A_PREFIX];
		c->path = f.prefix;
	}
	if ((f.uid < -1 || f.uid > TRASHBIN_UID_MAX) ||
	    (f.owner < -1 || f.owner > TRASHBIN_UID_MAX)) {
		control_reply_error(c, EINVAL, "uid out of range");
		return;
	}
	if (PROTO_HAS(m, A_SINCE))
		f.since_ns = m->num[A_SINCE];
	if (PROTO_HAS(m, A_BEFORE))
		f.before_ns = m->num[A_BEFORE];
	if (PROTO_HAS(m, A_LIMIT) && m->num[A_LIMIT] > 0)
		f.limit = m->num[A_LIMIT] > CONTROL_AUDIT_MAX ?
		    CONTROL_AUDIT_MAX : (size_t)m->num[A_LIMIT];
	snprintf(c->target, sizeof(c->target), "uid=%" PRId64 " owner=%"
	    PRId64 " action=%s result=%s", f.uid, f.owner, f.action != NULL ?
	    "(given)" : "any", f.result != NULL ? "(given)" : "any");
	if ((r = audit_search(c->d, &f, &rows, &n)) < 0) {
		control_reply_error(c, -r, "index: %s", strerror(-r));
		return;
	}
	b = xmalloc(sizeof(*b));
	for (i = 0; i < n; i++) {
		proto_init(b, MSG_AUDIT_ROW);
		proto_num(b, A_ID, rows[i].id);
		proto_num(b, A_TIME, rows[i].time_ns);
		proto_num(b, A_UID, rows[i].uid);
		proto_num(b, A_PID, rows[i].pid);
		proto_str(b, A_ACTION, rows[i].action[0] ?
		    rows[i].action : "-");
		proto_str(b, A_RESULT, rows[i].result[0] ?
		    rows[i].result : "-");
		if (rows[i].entry_id > 0)
			proto_num(b, A_ENTRY, rows[i].entry_id);
		if (rows[i].trash_uid >= 0)
			proto_num(b, A_TRASH, rows[i].trash_uid);
		if (rows[i].owner_uid >= 0)
			proto_num(b, A_OWNER, rows[i].owner_uid);
		proto_str(b, A_FS, rows[i].fs);
		proto_str(b, A_PATH, rows[i].path);
		proto_str(b, A_NAME, rows[i].name);
		proto_str(b, A_TARGET, rows[i].detail);
		control_send(c, b);
	}
	audit_rows_free(rows, n);
	proto_init(b, MSG_OK);
	proto_num(b, A_COUNT, (int64_t)n);
	control_reply_ok(c, b);
	free(b);
}

/* The selection's failure to read the index, to the client. */
static int
control_select_fail(struct control_conn *c, int r)
{
	control_reply_error(c, -r, "index: %s", strerror(-r));
	return r;
}

/* Entry @id, if it is a live one of uid @uid's trash. */
static int
control_select_id(struct control_conn *c, const struct proto_msg *m,
    uint32_t uid, struct entry_list *out, struct tfs **fsp,
    const char **base)
{
	struct trashd *d = c->d;
	struct entry e;

	snprintf(c->target, sizeof(c->target), "id=%" PRId64 " uid=%u",
	    m->num[A_ID], uid);
	if (index_get(d->db, m->num[A_ID], &e) < 0) {
		control_reply_error(c, ENOENT, "no entry %" PRId64,
		    m->num[A_ID]);
		return -ENOENT;
	}
	if (e.trash_uid != uid) {
		entry_clear(&e);
		if (c->peer.admin && !PROTO_HAS(m, A_UID))
			control_reply_error(c, EPERM, "entry %" PRId64 " is "
			    "in the trash of uid %u: name that user "
			    "explicitly", m->num[A_ID], e.trash_uid);
		else
			control_reply_error(c, EPERM, "entry %" PRId64 " is "
			    "not in the trash of uid %u", m->num[A_ID], uid);
		return -EPERM;
	}
	if (e.state != ENTRY_TRASHED) {
		control_reply_error(c, EALREADY, "entry %" PRId64 " is %s",
		    e.id, entry_state_name(e.state));
		entry_clear(&e);
		return -EALREADY;
	}
	if ((*fsp = trash_fs(d, e.fs_id)) == NULL) {
		entry_clear(&e);
		control_reply_error(c, ENODEV, "its filesystem is not "
		    "managed any more");
		return -ENODEV;
	}
	out->v = xmalloc(sizeof(*out->v));
	out->v[0] = e;
	out->n = 1;
	*base = e.orig_path != NULL ? e.orig_path : "";
	return 0;
}

/*
 * The @version-th newest entry deleted from exactly @rel (before @before,
 * 0: any time): 1 with it in @out, 0 if none was ever deleted from there
 * (@rel may be a directory), else -errno with the reply sent.
 */
static int
control_select_version(struct control_conn *c, const struct proto_msg *m,
    const struct tfs *fs, uint32_t uid, const char *rel, int64_t version,
    int64_t before, struct entry_list *out)
{
	struct entry_list l = { 0 };
	size_t i, j, k;
	int r;

	if ((r = index_by_path(c->d->db, fs->id, uid, rel, true, &l)) < 0)
		return control_select_fail(c, r);
	/* Newest first: skip the newer ones. */
	for (i = 0, k = 0; i < l.n; i++) {
		if (before > 0 && l.v[i].deleted_ns >= before)
			continue;
		if (++k == (size_t)version)
			break;
	}
	if (i < l.n) {
		out->v = xmalloc(sizeof(*out->v));
		out->v[0] = l.v[i];
		memset(&l.v[i], 0, sizeof(l.v[i]));
		out->n = 1;
		for (j = 0; j < l.n; j++)
			if (l.v[j].name != NULL)
				entry_clear(&l.v[j]);
		free(l.v);
		return 1;
	}
	if (l.n > 0) {
		entry_list_free(&l);
		control_reply_error(c, ENOENT, "%s: no such version in the "
		    "trash", m->str[A_PATH]);
		return -ENOENT;
	}
	free(l.v);
	return 0;
}

/*
 * Every entry deleted from under @rel (before @before, 0: any time), the
 * newest of each original path.
 */
static int
control_select_dir(struct control_conn *c, const struct proto_msg *m,
    const struct tfs *fs, uint32_t uid, const char *rel, int64_t before,
    struct entry_list *out)
{
	struct entry_list l = { 0 };
	const char *last;
	size_t i;
	int r;

	if ((r = index_by_path(c->d->db, fs->id, uid, rel, false, &l)) < 0)
		return control_select_fail(c, r);
	/*
	 * Sorted by original path, newest first within one: keep the first
	 * of each path deleted before @before.
	 */
	out->v = l.n ? xcalloc(l.n, sizeof(*out->v)) : NULL;
	for (i = 0, last = NULL; i < l.n; i++) {
		if (before > 0 && l.v[i].deleted_ns >= before)
			continue;
		if (l.v[i].orig_path != NULL && last != NULL &&
		    strcmp(last, l.v[i].orig_path) == 0)
			continue;
		out->v[out->n] = l.v[i];
		memset(&l.v[i], 0, sizeof(l.v[i]));
		last = out->v[out->n++].orig_path;
	}
	for (i = 0; i < l.n; i++)
		if (l.v[i].name != NULL)
			entry_clear(&l.v[i]);
	free(l.v);
	if (out->n == 0) {
		entry_list_free(out);
		control_reply_error(c, ENOENT, "%s: nothing in the trash of "
		    "uid %u was deleted from there", m->str[A_PATH], uid);
		return -ENOENT;
	}
	return 0;
}

/*
 * The entries a restore or wipe acts on, in uid @uid's trash: by id, or by
 * path: the newest whose original path is PATH (the @version-th newest,
 * deleted before @before), else every entry under PATH, the newest of
 * each original path.  *@fsp, *@base: the filesystem and the relative
 * path the selection was made by; *@dir: whether PATH was a directory.
 * Returns 0 or -errno with the reply sent.
 */
static int
control_select(struct control_conn *c, const struct proto_msg *m,
    uint32_t uid, struct entry_list *out, struct tfs **fsp,
    const char **base, bool *dir)
{
	int64_t version = 1, before = 0;
	const char *rel;
	int r;

	out->v = NULL;
	out->n = 0;
	*dir = false;
	if (PROTO_HAS(m, A_VERSION))
		version = m->num[A_VERSION];
	if (PROTO_HAS(m, A_BEFORE))
		before = m->num[A_BEFORE];
	if (version < 1) {
		control_reply_error(c, EINVAL, "versions count from 1, the "
		    "newest");
		return -EINVAL;
	}
	if (PROTO_HAS(m, A_ID) == PROTO_HAS(m, A_PATH)) {
		control_reply_error(c, EINVAL, "name an entry by id or by "
		    "path");
		return -EINVAL;
	}
	if (PROTO_HAS(m, A_ID))
		return control_select_id(c, m, uid, out, fsp, base);
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	c->path = m->str[A_PATH];
	if (control_path_fs(c->d, m->str[A_PATH], fsp, &rel) < 0) {
		control_reply_error(c, ENOENT, "%s: not on a filesystem "
		    "trashd manages", m->str[A_PATH]);
		return -ENOENT;
	}
	if (trash_rel_valid(rel, true) < 0) {
		control_reply_error(c, EINVAL, "%s: not a plain absolute "
		    "path", m->str[A_PATH]);
		return -EINVAL;
	}
	*base = rel;
	if (rel[0] != '\0' && (r = control_select_version(c, m, *fsp, uid,
	    rel, version, before, out)) != 0)
		return r < 0 ? r : 0;
	if (version != 1) {
		control_reply_error(c, EINVAL, "--version picks one file, "
		    "not a directory");
		return -EINVAL;
	}
	*dir = true;
	return control_select_dir(c, m, *fsp, uid, rel, before, out);
}

/* Where entry @e goes: its original path, or under --to. */
static char *
control_target(const struct entry *e, const char *base, bool dir,
    const char *to)
{
	const char *tail;
	char *t;

	if (e->orig_path == NULL || trash_rel_valid(e->orig_path,
	    false) < 0)
		return NULL;	/* unknown or unsafe: refused */
	if (to == NULL)
		return xstrdup(e->orig_path);
	if (!dir)
		return to[0] != '\0' ? xstrdup(to) : NULL;
	tail = e->orig_path + strlen(base);
	while (*tail == '/')
		tail++;
	if (to[0] == '\0')
		return xstrdup(tail);
	xasprintf(&t, "%s/%s", to, tail);
	return t;
}

static void
control_restore(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct entry_list l = { 0 };
	struct tfs *fs, *tofs;
	struct tuid *tu;
	struct creds cr = { 0 };
	const char *base, *to = NULL;
	char **targets = NULL;
	mode_t mask = 022;
	uint32_t uid;
	bool dir;
	size_t i, n;
	int r;

	if (control_target_uid(c, m, &uid) < 0)
		return;
	/*
	 * Acting for root would be root's rights at the destination (write
	 * anywhere, replace anything): the admin group is no way to root.
	 */
	if (uid == 0 && c->peer.uid != 0) {
		control_reply_error(c, EPERM, "root's trash is restored by "
		    "root alone: for root, an admin would write as root");
		return;
	}
	/* A user whose restores hang holds their own slots, not others'. */
	if ((n = restore_running_uid(c->peer.uid)) >= d->conf->restore_max) {
		control_reply_error(c, EBUSY, "busy: you have %zu restore%s "
		    "running (at most %u at once); try again when one ends",
		    n, n == 1 ? "" : "s", d->conf->restore_max);
		return;
	}
	if (restore_running() >= CONTROL_RESTORES_MAX) {
		control_reply_error(c, EBUSY, "too many restores running; "
		    "try again");
		return;
	}
	if (control_select(c, m, uid, &l, &fs, &base, &dir) < 0)
		return;
	if (PROTO_HAS(m, A_TO)) {
		if (control_path_fs(d, m->str[A_TO], &tofs, &to) < 0 ||
		    tofs != fs) {
			control_reply_error(c, EXDEV, "%s: not on the "
			    "filesystem of the entries (%s)", m->str[A_TO],
			    fs->path);
			goto out;
		}
		if (trash_rel_valid(to, dir) < 0) {
			control_reply_error(c, EINVAL, "%s: not a plain "
			    "absolute path", m->str[A_TO]);
			goto out;
		}
	}
	/*
	 * Directories a restore makes: the client's umask may take bits away,
	 * never make them group or world writable.  For another user's entries
	 * the admin's umask says nothing of that user's wishes: 0700, theirs
	 * to open up.
	 */
	if (PROTO_HAS(m, A_UMASK))
		mask = (mode_t)(m->num[A_UMASK] & 0777);
	mask |= 022;
	if (uid != c->peer.uid)
		mask = 077;
	if ((r = trash_uid(fs, uid, &tu)) < 0) {
		control_reply_error(c, -r, "%s/%s/%u: %s", fs->path,
		    TRASHBIN_DIR, uid, strerror(-r));
		goto out;
	}
	if ((r = restore_creds(&c->peer, uid, tu->fd, &cr)) < 0) {
		control_reply_error(c, -r, "cannot take the credentials of "
		    "uid %u: %s", uid, strerror(-r));
		goto out;
	}
	targets = xcalloc(l.n, sizeof(*targets));
	for (i = 0; i < l.n; i++)
		targets[i] = control_target(&l.v[i], base, dir, to);
	snprintf(c->result, sizeof(c->result), "ok: %zu entr%s, as uid %u%s",
	    l.n, l.n == 1 ? "y" : "ies", uid, uid != c->peer.uid ?
	    " (on behalf)" : "");
	c->busy = true;
	r = restore_start(d, &control_restore_client, c, &c->peer, fs, uid,
	    &cr, &l, targets, PROTO_HAS(m, A_OVERWRITE) &&
	    m->num[A_OVERWRITE], mask, &c->job);
	/* restore_start took the list and the targets, even on failure. */
	targets = NULL;
	if (r < 0) {
		c->busy = false;
		c->result[0] = '\0';
		control_reply_error(c, -r, "cannot start the restore: %s",
		    strerror(-r));
	}
out:
	restore_creds_free(&cr);
	if (targets != NULL) {
		for (i = 0; i < l.n; i++)
			free(targets[i]);
		free(targets);
	}
	entry_list_free(&l);
}

static void
control_result_msg(struct control_conn *c, const struct entry *e, int err,
    const char *msg)
{
	struct proto_buf *b = xmalloc(sizeof(*b));

	proto_init(b, MSG_RESULT);
	proto_num(b, A_ID, e->id);
	proto_num(b, A_ERRNO, err);
	proto_str(b, A_PATH, e->orig_path);
	proto_num(b, A_SIZE, e->size);
	proto_str(b, A_MESSAGE, msg);
	control_send(c, b);
	free(b);
}

static void
control_wipe(struct control_conn *c, const struct proto_msg *m)
{
	struct entry_list l;
	struct proto_buf *b;
	struct tfs *fs;
	const char *base;
	size_t i, failed = 0;
	uint32_t uid;
	bool dir;
	int r;

	if (control_target_uid(c, m, &uid) < 0)
		return;
	if (control_select(c, m, uid, &l, &fs, &base, &dir) < 0)
		return;
	for (i = 0; i < l.n; i++) {
		r = wipe_request(c->d, l.v[i].id, c->peer.uid, c->peer.pid);
		if (r < 0)
			failed++;
		control_result_msg(c, &l.v[i], -r, r == 0 ? "queued for "
		    "wiping" : strerror(-r));
	}
	snprintf(c->result, sizeof(c->result), "ok: %zu queued, %zu failed",
	    l.n - failed, failed);
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	proto_num(b, A_DONE, (int64_t)(l.n - failed));
	proto_num(b, A_FAILED, (int64_t)failed);
	control_reply_ok(c, b);
	free(b);
	entry_list_free(&l);
}

/*
 * "empty": every live entry of a uid (admins: of every uid), or those
 * deleted before a time, purged, CONTROL_EMPTY_STEP a loop turn, oldest
 * first.  A client that goes away stops it; what was purged stays purged.
 * A dry run walks the same selection, the same way, and sends each entry
 * instead of purging it: what it shows is what the empty would take.
 */
struct control_empty {
	struct event		*ev;
	size_t			 fsi;	/* d->fs[fsi] */
	struct index_filter	 f;	/* its cursor */
	bool			 dry;
	int64_t			 done, failed, bytes;
};

static void
control_empty_free(struct control_conn *c)
{
	if (c->empty == NULL)
		return;
	event_free(c->empty->ev);
	free(c->empty);
	c->empty = NULL;
}

/* A dry run's step: the entries that would go, as a list shows them. */
static void
control_empty_dry(struct control_conn *c, const struct entry_list *l)
{
	struct control_empty *z = c->empty;
	struct proto_buf *b = xmalloc(sizeof(*b));
	size_t i;

	for (i = 0; i < l->n; i++) {
		control_entry_msg(c, b, &l->v[i]);
		z->done++;
		z->bytes += l->v[i].size;
	}
	free(b);
}

/* One step; true when the trash is empty (or cannot be emptied more). */
static bool
control_empty_step(struct control_conn *c)
{
	struct control_empty *z = c->empty;
	struct trashd *d = c->d;
	struct entry_list l = { 0 };
	size_t i;
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
			control_empty_dry(c, &l);
			goto next;
		}
		(void)db_begin(d->db);
		for (i = 0; i < l.n; i++) {
			r = policy_purge(d, &d->fs[z->fsi], &l.v[i], "empty",
			    c->peer.uid, c->peer.pid);
			if (r == 0) {
				z->done++;
				z->bytes += l.v[i].size;
			} else {
				z->failed++;
				control_result_msg(c, &l.v[i], -r,
				    strerror(-r));
			}
		}
		(void)db_commit(d->db);
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
control_empty_turn(evutil_socket_t fd, short ev, void *arg)
{
	static const struct timeval now = { 0, 0 }, later = { 0, 10000 };
	struct control_conn *c = arg;
	struct control_empty *z = c->empty;
	struct proto_buf *b;

	(void)fd;
	(void)ev;
	/* A dry run's entries wait for a slow client, as a list's do. */
	if (z->dry && evbuffer_get_length(bufferevent_get_output(c->bev)) >
	    CONTROL_LIST_HIGH) {
		evtimer_add(z->ev, &later);
		return;
	}
	if (!control_empty_step(c)) {
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
	control_reply_ok(c, b);
	free(b);
	control_empty_free(c);
	control_audit(c, "empty");
	control_request_done(c);
}

static void
control_empty(struct control_conn *c, const struct proto_msg *m)
{
	static const struct timeval now = { 0, 0 };
	struct control_empty *z;
	uint32_t uid;

	if (control_target_uid(c, m, &uid) < 0)
		return;
	z = xcalloc(1, sizeof(*z));
	z->f.uid = uid;
	z->f.states = ENTRY_LIVE;
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	if (PROTO_HAS(m, A_ALL) && m->num[A_ALL]) {
		if (control_need_admin(c) < 0) {
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
	if ((z->ev = evtimer_new(c->d->base, control_empty_turn, c)) == NULL)
		fatalx("control: cannot add the empty timer");
	c->empty = z;
	/* From the loop, the first step too; audited when it is over. */
	evtimer_add(z->ev, &now);
}

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
	{ MSG_STATUS,	"status",	0,		control_status },
	{ MSG_LIST,	"list",		0,		control_list },
	{ MSG_RESTORE,	"restore",	0,		control_restore },
	{ MSG_WIPE,	"wipe",		0,		control_wipe },
	{ MSG_EMPTY,	"empty",	0,		control_empty },
	{ MSG_QUOTA,	"quota",	0,		control_quota },
	{ MSG_POLICY_GET, "policy-get",	CONTROL_ADMIN,	control_policy_get },
	{ MSG_POLICY_SET, "policy-set",	CONTROL_ADMIN,	control_policy_set },
	{ MSG_AUDIT,	"audit",	CONTROL_ADMIN,	control_audit_query },
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
	if (c->empty != NULL) {
		free(m);
		return;
	}
out:
	control_audit(c, verb);
	free(m);
	/* A restore or a list runs on: it ends the request. */
	if (c->job == NULL && c->list == NULL)
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

	if (c->list != NULL) {
		if (control_list_more(c))
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
		control_refuse(fd, EUSERS, "too many connections");
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
	restore_stop_all(d);
	while (!TAILQ_EMPTY(&ctl->conns))
		control_conn_free(TAILQ_FIRST(&ctl->conns));
	free(ctl);
	d->control = NULL;
}
