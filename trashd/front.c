/* SPDX-License-Identifier: ISC */
/*
 * The front process, "trashd-front": privilege separation, as OpenBSD's
 * smtpd and ntpd do it.  Every byte a client sends is read and checked
 * here, in a process that holds nothing worth taking:
 *
 *   - it is forked (front-link.c) before the index and the trash
 *     directories are open (and, forked again after a crash, keeps of
 *     what it inherited only the listening socket and its channel);
 *   - it chroots into an empty directory, takes the unprivileged user
 *     _trashd (else nobody, else uid 65534), no groups, no capabilities,
 *     PR_SET_NO_NEW_PRIVS; its log lines go to the parent over the channel.
 *
 * It accepts the clients, reads their credentials (SO_PEERCRED,
 * SO_PEERGROUPS), and for each makes a socketpair whose one end goes to the
 * parent over the channel (chan.c: SOCK_SEQPACKET, SCM_RIGHTS) with those
 * credentials; the parent believes no others.  Requests are relayed to
 * the parent only whole and well-formed (proto_parse_hdr(), a request
 * type, proto_parse()); replies are relayed back as they come.  A bad
 * request is answered here with an ERROR, after what the parent was still
 * saying, and the connection is closed; the parent is told, to audit it.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto.h"
#include "front-msg.h"

/* The user the front runs as, and the ones it falls back to. */
#define FRONT_USER		"_trashd"
#define FRONT_USER_FALLBACK	"nobody"
#define FRONT_UID_LAST		65534
/* Clients at once: above the parent's own limits (control.c), which
 * answer with a reason; this one only bounds the front's fds. */
#define FRONT_CONNS_MAX		1024
/* Bytes buffered one way for a client before the other side waits. */
#define FRONT_HIGH		(64 * 1024)
/* Messages waiting for the parent to take them, beyond which log lines
 * are dropped. */
#define FRONT_QUEUE_MAX		4096

struct fclient {
	TAILQ_ENTRY(fclient) entry;
	struct bufferevent *cbev;	/* the client */
	struct bufferevent *pbev;	/* its pair, to the parent */
	uid_t		 uid;
	pid_t		 pid;
	bool		 cl_eof;	/* the client shut its side */
	bool		 shut;		/* the parent was told: no more */
	bool		 p_eof;		/* the parent is done */
	bool		 closing;	/* flush to the client, then close */
	struct proto_buf *err;		/* our own last word, after the parent's */
};

static struct {
	struct event_base *base;
	struct chan	 chan;		/* to the parent, with its queue */
	struct event	*chan_ev;
	struct evconnlistener *lev;
	struct timeval	 timeout;
	TAILQ_HEAD(, fclient) clients;
	size_t		 nclients;
	struct proto_msg *msg;		/* a request being checked */
} fp;

static void	fclient_free(struct fclient *);
static void	fclient_read(struct bufferevent *, void *);
static void	front_chan(evutil_socket_t, short, void *);

/* Watch the channel for its end, and for room when @write. */
static void
front_chan_watch(bool write)
{
	if (fp.chan_ev == NULL)
		return;		/* before the loop: front_main() flushes */
	event_del(fp.chan_ev);
	event_assign(fp.chan_ev, fp.base, fp.chan.fd, EV_READ | EV_PERSIST |
	    (write ? EV_WRITE : 0), front_chan, NULL);
	event_add(fp.chan_ev, NULL);
}

/* Send what is queued, in order; what the parent cannot take yet waits. */
static void
front_flush(void)
{
	int r;

	if ((r = chan_flush(&fp.chan)) == -EAGAIN)
		front_chan_watch(true);	/* the parent is busy: it says when */
	else if (r < 0)
		_exit(1);		/* the parent is gone */
}

/* Queue @m (freed) and the fd passed with it; a log line may be dropped. */
static void
front_send(enum front_type type, struct front_msg *m, int fd)
{
	size_t len = type == FRONT_CLIENT ? FRONT_MSG_LEN(m->ngroups) :
	    FRONT_MSG_LEN(0);

	if (fd < 0 && fp.chan.nout >= FRONT_QUEUE_MAX) {
		free(m);
		return;
	}
	chan_queue(&fp.chan, type, m, len, fd);
	free(m);
	if (fp.chan.nout == 1)
		front_flush();
}

static void
front_log_sink(int pri, const char *line)
{
	struct front_msg *m = xcalloc(1, sizeof(*m));

	m->pri = pri;
	/* A longer line than the message holds ends in "...". */
	if ((size_t)snprintf(m->text, sizeof(m->text), "%s", line) >=
	    sizeof(m->text))
		log_cut(m->text, sizeof(m->text));
	front_send(FRONT_LOG, m, -1);
}

/* The channel: writable again, or the parent closed it (it exited). */
static void
front_chan(evutil_socket_t fd, short ev, void *arg)
{
	struct chan_msg cm;
	int r;

	(void)arg;
	if (ev & EV_READ) {
		/* The parent's one word: the socket listens, take clients. */
		r = chan_recv(fd, &cm, false);
		if (r == 1 && cm.type == FRONT_GO && cm.len == 0)
			evconnlistener_enable(fp.lev);
		else if (r != -EAGAIN)
			_exit(0);	/* the parent is gone */
	}
	if (ev & EV_WRITE) {
		front_chan_watch(false);
		front_flush();
	}
}

/* ---- one client ---- */

static void
fclient_free(struct fclient *fc)
{
	TAILQ_REMOVE(&fp.clients, fc, entry);
	fp.nclients--;
	bufferevent_free(fc->cbev);
	if (fc->pbev != NULL)
		bufferevent_free(fc->pbev);
	free(fc->err);
	free(fc);
	if (fp.nclients == FRONT_CONNS_MAX - 1)
		evconnlistener_enable(fp.lev);
}

/* Everything for the client is out: close it. */
static void
fclient_maybe_close(struct fclient *fc)
{
	if (fc->closing && evbuffer_get_length(
	    bufferevent_get_output(fc->cbev)) == 0)
		fclient_free(fc);
}

/* No more requests for the parent: once the last is out, say so. */
static void
fclient_shut(struct fclient *fc)
{
	fc->shut = true;
	if (fc->pbev != NULL && !fc->p_eof && evbuffer_get_length(
	    bufferevent_get_output(fc->pbev)) == 0)
		(void)shutdown(bufferevent_getfd(fc->pbev), SHUT_WR);
}

/* The parent said its last: ours follows, then the client is closed. */
static void
fclient_parent_done(struct fclient *fc)
{
	fc->p_eof = true;
	if (fc->err != NULL) {
		bufferevent_write(fc->cbev, fc->err->data, fc->err->len);
		free(fc->err);
		fc->err = NULL;
	}
	bufferevent_disable(fc->cbev, EV_READ);
	fc->closing = true;
	fclient_maybe_close(fc);
}

/*
 * A request refused here: the parent finishes the replies it owes, then
 * the client reads @err's ERROR and is closed.  The parent audits it.
 */
static void __attribute__((format(printf, 4, 5)))
fclient_refuse(struct fclient *fc, int err, const char *target,
    const char *fmt, ...)
{
	struct front_msg *m = xcalloc(1, sizeof(*m));
	struct evbuffer *in = bufferevent_get_input(fc->cbev);
	va_list ap;
	char msg[512];
	int len;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m->uid = fc->uid;
	m->pid = fc->pid;
	snprintf(m->target, sizeof(m->target), "%s", target);
	snprintf(m->text, sizeof(m->text), "error: %s", msg);
	front_send(FRONT_REFUSED, m, -1);

	fc->err = xmalloc(sizeof(*fc->err));
	proto_init(fc->err, MSG_ERROR);
	proto_num(fc->err, A_ERRNO, err);
	proto_str(fc->err, A_MESSAGE, msg);
	len = proto_finish(fc->err);
	fc->err->len = len > 0 ? (size_t)len : 0;
	bufferevent_disable(fc->cbev, EV_READ);
	evbuffer_drain(in, evbuffer_get_length(in));
	if (fc->p_eof)
		fclient_parent_done(fc);
	else
		fclient_shut(fc);
}

/*
 * The next whole request in the client's input: 1 passed on, 0 not whole
 * yet, -1 refused.  Only what the parent would accept is passed on.
 */
static int
fclient_request(struct fclient *fc)
{
	struct evbuffer *in = bufferevent_get_input(fc->cbev);
	uint8_t hbuf[PROTO_HDR_LEN], *p;
	struct proto_hdr h;
	const char *why;
	char target[64];
	size_t len = evbuffer_get_length(in);
	int r;

	if (len < PROTO_HDR_LEN)
		return 0;
	evbuffer_copyout(in, hbuf, PROTO_HDR_LEN);
	if ((r = proto_parse_hdr(hbuf, &h)) < 0) {
		snprintf(target, sizeof(target), "version=%u type=%u len=%u",
		    (unsigned)h.version, (unsigned)h.type, (unsigned)h.len);
		if (r == -EPROTONOSUPPORT)
			fclient_refuse(fc, EPROTONOSUPPORT, target,
			    "protocol version %u, trashd speaks %d",
			    (unsigned)h.version, PROTOCOL_VERSION);
		else
			fclient_refuse(fc, EMSGSIZE, target, "request of %u "
			    "bytes, at most %d", (unsigned)h.len,
			    PROTO_MSG_MAX);
		return -1;
	}
	if (len < PROTO_HDR_LEN + h.len)
		return 0;
	snprintf(target, sizeof(target), "type=%u", (unsigned)h.type);
	if (h.type < MSG_STATUS || h.type > MSG_REQ_LAST) {
		fclient_refuse(fc, EBADMSG, target, "unknown request type %u",
		    (unsigned)h.type);
		return -1;
	}
	if ((p = evbuffer_pullup(in, (ssize_t)(PROTO_HDR_LEN + h.len))) ==
	    NULL)
		fatalx("front: evbuffer_pullup");
	if (proto_parse(&h, p + PROTO_HDR_LEN, fp.msg, &why) < 0) {
		fclient_refuse(fc, EBADMSG, target, "malformed %s request: %s",
		    proto_type_name(h.type), why);
		return -1;
	}
	evbuffer_remove_buffer(in, bufferevent_get_output(fc->pbev),
	    PROTO_HDR_LEN + h.len);
	return 1;
}

/* Requests from the client: each checked, then on to the parent. */
static void
fclient_read(struct bufferevent *bev, void *arg)
{
	struct fclient *fc = arg;

	(void)bev;
	while (!fc->shut && fc->pbev != NULL) {
		if (evbuffer_get_length(bufferevent_get_output(fc->pbev)) >=
		    FRONT_HIGH) {
			/* The parent is behind: it says when it caught up. */
			bufferevent_disable(fc->cbev, EV_READ);
			return;
		}
		if (fclient_request(fc) <= 0)
			return;
	}
}

/* Out to the client: flushed.  Take more of the parent's reply. */
static void
fclient_cwrite(struct bufferevent *bev, void *arg)
{
	struct fclient *fc = arg;

	(void)bev;
	if (fc->closing) {
		fclient_maybe_close(fc);
		return;
	}
	if (fc->pbev != NULL && !fc->p_eof)
		bufferevent_enable(fc->pbev, EV_READ);
}

static void
fclient_cevent(struct bufferevent *bev, short what, void *arg)
{
	struct fclient *fc = arg;
	size_t left;

	if (what & BEV_EVENT_EOF) {
		left = evbuffer_get_length(bufferevent_get_input(bev));
		fc->cl_eof = true;
		bufferevent_disable(bev, EV_READ);
		if (fc->shut)
			return;
		if (left > 0)
			fclient_refuse(fc, EBADMSG, "truncated",
			    "truncated request: %zu bytes, then end of file",
			    left);
		else
			fclient_shut(fc);
		return;
	}
	/* Errors, a client that stopped reading: nobody left to tell. */
	fclient_free(fc);
}

/* The parent's replies: on to the client, as fast as it takes them. */
static void
fclient_pread(struct bufferevent *bev, void *arg)
{
	struct fclient *fc = arg;
	struct evbuffer *out = bufferevent_get_output(fc->cbev);

	evbuffer_add_buffer(out, bufferevent_get_input(bev));
	if (evbuffer_get_length(out) >= FRONT_HIGH)
		bufferevent_disable(bev, EV_READ);
}

/* Requests to the parent: flushed.  Take more, or say there is none. */
static void
fclient_pwrite(struct bufferevent *bev, void *arg)
{
	struct fclient *fc = arg;

	if (fc->shut) {
		if (!fc->p_eof)
			(void)shutdown(bufferevent_getfd(bev), SHUT_WR);
		return;
	}
	if (!fc->cl_eof) {
		bufferevent_enable(fc->cbev, EV_READ);
		fclient_read(fc->cbev, fc);
	}
}

static void
fclient_pevent(struct bufferevent *bev, short what, void *arg)
{
	struct fclient *fc = arg;
	struct evbuffer *out = bufferevent_get_output(fc->cbev);

	(void)what;
	/*
	 * An end, or an error: a write after the parent refused the
	 * client (EPIPE) comes before its answer is read.  Take what it
	 * said, then stop.
	 */
	evbuffer_add_buffer(out, bufferevent_get_input(bev));
	while (evbuffer_read(out, bufferevent_getfd(bev), 65536) > 0)
		;
	bufferevent_free(bev);
	fc->pbev = NULL;
	fclient_parent_done(fc);
}

/* ---- accept ---- */

static int
front_peer_creds(int fd, struct front_msg *m)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		return -errno;
	m->uid = uc.uid;
	m->gid = uc.gid;
	m->pid = uc.pid;
	/* The groups the peer held at connect(): as a file check sees them. */
	len = sizeof(m->groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, m->groups, &len) < 0)
		return errno == ERANGE ? -E2BIG : -errno;
	m->ngroups = (int32_t)(len / sizeof(gid_t));
	return 0;
}

static void
front_accept(struct evconnlistener *lev, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct front_msg *m = xcalloc(1, sizeof(*m));
	struct fclient *fc;
	int sv[2], r;

	(void)sa;
	(void)salen;
	(void)arg;
	if ((r = front_peer_creds(fd, m)) < 0) {
		errno = -r;
		log_warn("control: peer credentials");
		proto_refuse(fd, -r, "cannot read your credentials");
		free(m);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0, sv) < 0) {
		log_warn("front: socketpair");
		proto_refuse(fd, errno, "trashd is out of resources");
		free(m);
		return;
	}
	fc = xcalloc(1, sizeof(*fc));
	fc->uid = m->uid;
	fc->pid = m->pid;
	evutil_make_socket_nonblocking(fd);
	fc->cbev = bufferevent_socket_new(fp.base, fd, BEV_OPT_CLOSE_ON_FREE);
	fc->pbev = bufferevent_socket_new(fp.base, sv[1],
	    BEV_OPT_CLOSE_ON_FREE);
	if (fc->cbev == NULL || fc->pbev == NULL)
		fatalx("front: cannot set up a connection");
	bufferevent_setcb(fc->cbev, fclient_read, fclient_cwrite,
	    fclient_cevent, fc);
	bufferevent_setcb(fc->pbev, fclient_pread, fclient_pwrite,
	    fclient_pevent, fc);
	/* Never more than one whole request read ahead. */
	bufferevent_setwatermark(fc->cbev, EV_READ, 0, PROTO_HDR_LEN +
	    PROTO_MSG_MAX);
	/* A client that stops taking its reply is closed. */
	bufferevent_set_timeouts(fc->cbev, NULL, &fp.timeout);
	bufferevent_enable(fc->cbev, EV_READ | EV_WRITE);
	bufferevent_enable(fc->pbev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&fp.clients, fc, entry);
	if (++fp.nclients >= FRONT_CONNS_MAX)
		evconnlistener_disable(lev);
	front_send(FRONT_CLIENT, m, sv[0]);
}

static void
front_accept_error(struct evconnlistener *lev, void *arg)
{
	(void)lev;
	(void)arg;
	/* EMFILE and the like: the pending connection waits its turn. */
	log_warn("control: accept");
}

/* ---- the jail ---- */

/*
 * An empty directory only root may change: /var/empty if it is one,
 * else "empty" beside the socket (its directory is root's, 0755).
 */
static int
front_empty_ok(const char *path)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int n = 0;

	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0 || (dir = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	closedir(dir);
	return n == 0 ? 0 : -1;
}

static char *
front_empty_dir(const char *sock)
{
	char *dir, *slash;

	if (front_empty_ok("/var/empty") == 0)
		return xstrdup("/var/empty");
	dir = xmalloc(strlen(sock) + sizeof("/empty"));
	strcpy(dir, sock);
	if ((slash = strrchr(dir, '/')) == NULL)
		return NULL;
	strcpy(slash, "/empty");
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		log_warn("front: %s", dir);
		free(dir);
		return NULL;
	}
	if (front_empty_ok(dir) < 0) {
		log_warnx("front: %s: not an empty directory of root's, "
		    "mode 0755", dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/* _trashd, else nobody, else 65534; looked up before the chroot. */
static void
front_user(uid_t *uid, gid_t *gid, const char **name)
{
	struct passwd *pw;

	if ((pw = getpwnam(FRONT_USER)) == NULL)
		pw = getpwnam(FRONT_USER_FALLBACK);
	if (pw != NULL && pw->pw_uid != 0) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		*name = strcmp(pw->pw_name, FRONT_USER) == 0 ? FRONT_USER :
		    FRONT_USER_FALLBACK;
		return;
	}
	*uid = FRONT_UID_LAST;
	*gid = FRONT_UID_LAST;
	*name = NULL;
}

/* Chroot, no groups, the user, no capabilities at all. */
static void
front_jail(const char *empty, uid_t uid, gid_t gid, const char *name)
{
	bool root = geteuid() == 0;
	cap_t caps;

	if (!root) {
		log_info("front: not root: no chroot, no user change, "
		    "running as uid %u", (unsigned)geteuid());
	} else {
		if (empty == NULL)
			fatalx("front: no empty directory to chroot into");
		if (chroot(empty) < 0 || chdir("/") < 0)
			fatal("front: chroot %s", empty);
		if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			fatal("front: cannot become uid %u", (unsigned)uid);
	}
	if ((caps = cap_init()) == NULL || cap_set_proc(caps) < 0)
		fatal("front: cannot clear the capabilities");
	cap_free(caps);
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fatal("front: no_new_privs");
	if (!root)
		return;
	if (name != NULL)
		log_info("front: chroot %s, user %s (uid %u)", empty, name,
		    (unsigned)uid);
	else if (empty != NULL)
		log_info("front: chroot %s, uid %u: neither %s nor %s is a "
		    "user here", empty, (unsigned)uid, FRONT_USER,
		    FRONT_USER_FALLBACK);
}

void
front_main(int lfd, int chan, const char *sock, int client_timeout,
    pid_t parent)
{
	const char *name;
	char *empty;
	uid_t uid;
	gid_t gid;

	/* child_fork() left it the socket and the channel, default signal
	 * handlers but SIGPIPE's (ignored), and its name for ps(1). */
	chan_init(&fp.chan, chan);
	log_sink(front_log_sink);
	front_user(&uid, &gid, &name);
	empty = geteuid() == 0 ? front_empty_dir(sock) : NULL;
	fp.timeout.tv_sec = client_timeout;
	TAILQ_INIT(&fp.clients);
	fp.msg = xmalloc(sizeof(*fp.msg));
	/* libevent's own fds and random seed, while /dev is there. */
	if ((fp.base = event_base_new()) == NULL)
		fatalx("front: event_base_new");
	fp.chan_ev = event_new(fp.base, fp.chan.fd, EV_READ | EV_PERSIST,
	    front_chan, NULL);
	/* Backlog 0: libevent leaves listen() to front_attach(). */
	fp.lev = evconnlistener_new(fp.base, front_accept, NULL,
	    LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_DISABLED, 0, lfd);
	if (fp.chan_ev == NULL || fp.lev == NULL ||
	    event_add(fp.chan_ev, NULL) < 0)
		fatalx("front: cannot listen");
	evconnlistener_set_error_cb(fp.lev, front_accept_error);
	front_flush();
	front_jail(empty, uid, gid, name);
	free(empty);
	/* Credentials changed: the death signal is set again, after. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(0);
	(void)event_base_dispatch(fp.base);
	_exit(0);
}
