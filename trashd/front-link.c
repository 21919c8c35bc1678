/* SPDX-License-Identifier: ISC */
/*
 * The daemon's end of the front process (front.c): bind the control
 * socket, fork the front before anything else is opened, take the clients
 * it hands over (each a socket passed over the channel with the
 * credentials the front read: control_client()), audit what it refused,
 * log its lines, and fork a new one if it dies.
 *
 * The daemon keeps the listening socket only to hand it to the next
 * front, never accepts on it: if the front dies, its clients are
 * disconnected and a new one is forked, after a backoff.
 */
#include <errno.h>
#include <event2/event.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "front.h"
#include "front-msg.h"

/* Restart delays after a crash: the first, and the most. */
#define FRONT_BACKOFF_MS	200
#define FRONT_BACKOFF_MAX_MS	5000

/* The parent's side. */
struct front {
	struct trashd	*d;
	struct event_base *base;
	char		*path;		/* the socket's */
	int		 lfd;		/* listening, never accepted on here */
	int		 lockfd;	/* "<socket>.lock", held (lock.c) */
	int		 chan;		/* ours of the channel, -1: none */
	pid_t		 pid;
	struct event	*ev;		/* the channel */
	struct event	*restart;
	int64_t		 started_ns;
	int		 backoff_ms;
	int		 client_timeout;
};

static void	front_fork(struct front *);

/* The daemon is open and the socket listens: the front may accept. */
static void
front_go(struct front *f)
{
	int r;

	event_add(f->ev, NULL);
	if ((r = chan_send(f->chan, FRONT_GO, NULL, 0, -1, 0)) < 0) {
		errno = -r;
		log_warn("front: channel");
	}
}

static void
front_restart(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	front_fork(arg);
}

/* The front is gone: collect it, then a new one, after a while. */
static void
front_lost(struct front *f)
{
	struct timeval tv;
	int status;

	event_free(f->ev);
	f->ev = NULL;
	close(f->chan);
	f->chan = -1;
	(void)kill(f->pid, SIGKILL);
	while (waitpid(f->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (now_ns() - f->started_ns > 10 * (int64_t)1000000000)
		f->backoff_ms = FRONT_BACKOFF_MS;
	if (WIFSIGNALED(status))
		log_warnx("front: pid %d killed by signal %d; restarting it "
		    "in %d ms", (int)f->pid, WTERMSIG(status), f->backoff_ms);
	else
		log_warnx("front: pid %d exited with %d; restarting it in "
		    "%d ms", (int)f->pid, WEXITSTATUS(status), f->backoff_ms);
	f->pid = -1;
	tv.tv_sec = f->backoff_ms / 1000;
	tv.tv_usec = (f->backoff_ms % 1000) * 1000;
	evtimer_add(f->restart, &tv);
	f->backoff_ms *= 2;
	if (f->backoff_ms > FRONT_BACKOFF_MAX_MS)
		f->backoff_ms = FRONT_BACKOFF_MAX_MS;
}

static void
front_msg_log(const struct front_msg *m)
{
	if (m->pri == LOG_DEBUG)
		log_debug("%s", m->text);
	else if (m->pri == LOG_INFO || m->pri == LOG_NOTICE)
		log_info("%s", m->text);
	else
		log_warnx("%s", m->text);
}

/* A client: its socket, and who it is as the front read it at accept. */
static void
front_msg_client(struct front *f, const struct front_msg *m, int fd)
{
	struct peer p;

	memset(&p, 0, sizeof(p));
	p.uid = m->uid;
	p.gid = m->gid;
	p.pid = m->pid;
	p.ngroups = m->ngroups;
	if (p.ngroups > 0) {
		p.groups = xcalloc((size_t)p.ngroups, sizeof(gid_t));
		memcpy(p.groups, m->groups, (size_t)p.ngroups * sizeof(gid_t));
	}
	control_client(f->d, fd, &p);
}

static void
front_read(evutil_socket_t fd, short ev, void *arg)
{
	struct front *f = arg;
	struct chan_msg cm;
	struct front_msg m;
	int r;

	(void)ev;
	if ((r = chan_recv(fd, &cm, true)) == -EAGAIN)
		return;
	if (r != 1 && r != -EBADMSG) {
		front_lost(f);
		return;
	}
	/* What the front says is checked like anything that crosses over. */
	if (r == -EBADMSG || chan_get(&cm, &m, FRONT_MSG_LEN(0),
	    sizeof(m)) < 0 || m.ngroups < 0 || m.ngroups > FRONT_GROUPS_MAX ||
	    (cm.type == FRONT_CLIENT) != (cm.fd >= 0) ||
	    (cm.type == FRONT_CLIENT && cm.len != FRONT_MSG_LEN(m.ngroups))) {
		log_warnx("front: a bad message on the channel");
		if (cm.fd >= 0)
			close(cm.fd);
		return;
	}
	m.target[sizeof(m.target) - 1] = '\0';
	m.text[sizeof(m.text) - 1] = '\0';
	switch (cm.type) {
	case FRONT_CLIENT:
		front_msg_client(f, &m, cm.fd);
		break;
	case FRONT_REFUSED:
		control_refused(f->d, m.uid, m.pid, m.target, m.text);
		break;
	case FRONT_LOG:
		front_msg_log(&m);
		break;
	default:
		log_warnx("front: message type %u on the channel",
		    (unsigned)cm.type);
	}
}

static void
front_fork(struct front *f)
{
	pid_t parent = getpid();
	struct timeval tv;
	int fd;

	if ((f->pid = child_fork("trashd-front", &f->lfd, 1, &fd)) < 0) {
		errno = (int)-f->pid;
		log_warn("front: fork");
		goto retry;
	}
	if (f->pid == 0)
		front_main(f->lfd, fd, f->path, f->client_timeout, parent);
	f->chan = fd;
	f->started_ns = now_ns();
	evutil_make_socket_nonblocking(f->chan);
	f->ev = event_new(f->base, f->chan, EV_READ | EV_PERSIST, front_read,
	    f);
	if (f->ev == NULL)
		fatalx("front: cannot add the channel event");
	if (f->d != NULL)
		front_go(f);
	log_debug("front: pid %d", (int)f->pid);
	return;
retry:
	f->pid = -1;
	tv.tv_sec = FRONT_BACKOFF_MAX_MS / 1000;
	tv.tv_usec = 0;
	evtimer_add(f->restart, &tv);
}

/* Bind the socket, mode 0666, replacing a stale one. */
static int
front_bind(const char *path)
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
	/* It listens once the daemon is open: front_attach(). */
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    chmod(path, 0666) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/*
 * Bind the control socket and fork the front, before anything else is
 * opened.  NULL without a socket to listen on (the fuzzer's daemon).
 * The socket listens from front_attach() on: until then a client is
 * refused at once, as when no trashd runs, and one that connects is
 * answered (scripts and the tests wait for that).
 */
struct front *
front_start(const struct config *conf, struct event_base *base)
{
	struct front *f;
	char *dir, *slash, err[PATH_MAX + 256];
	int fd, lockfd;

	if (conf->socket == NULL || conf->socket[0] == '\0')
		return NULL;
	/* /run/trashd: root's, others may only traverse it. */
	dir = xstrdup(conf->socket);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) == 0)
			(void)chmod(dir, 0755);
	}
	free(dir);
	/* Held as long as this process lives; the front does not inherit
	 * it, nor would its close drop it (a POSIX lock is the process's). */
	if ((lockfd = lock_socket(conf->socket, err, sizeof(err))) < 0) {
		log_warnx("control: %s", err);
		return NULL;
	}
	if ((fd = front_bind(conf->socket)) < 0) {
		errno = -fd;
		log_warn("control: %s", conf->socket);
		close(lockfd);
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
	f->base = base;
	f->path = xstrdup(conf->socket);
	f->lfd = fd;
	f->lockfd = lockfd;
	f->chan = -1;
	f->backoff_ms = FRONT_BACKOFF_MS;
	f->client_timeout = conf->client_timeout > 0 ? conf->client_timeout :
	    30;
	if ((f->restart = evtimer_new(base, front_restart, f)) == NULL)
		fatalx("front: evtimer_new");
	front_fork(f);
	log_info("control: listening on %s (front pid %d)", f->path,
	    (int)f->pid);
	return f;
}

/* The daemon is open: take the clients the front hands over. */
void
front_attach(struct front *f, struct trashd *d)
{
	if (f == NULL)
		return;
	f->d = d;
	/* Until now a client was refused, as no trashd: not kept waiting. */
	if (listen(f->lfd, 128) < 0)
		fatal("control: listen %s", f->path);
	if (f->ev != NULL)
		front_go(f);
}

void
front_stop(struct front *f)
{
	if (f == NULL)
		return;
	if (f->ev != NULL)
		event_free(f->ev);
	event_free(f->restart);
	if (f->chan >= 0)
		close(f->chan);
	if (f->pid > 0) {
		(void)kill(f->pid, SIGTERM);
		while (waitpid(f->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(f->lfd);
	(void)unlink(f->path);
	close(f->lockfd);	/* after the unlink: the next one binds anew */
	free(f->path);
	free(f);
}
