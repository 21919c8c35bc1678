/* SPDX-License-Identifier: ISC */
/*
 * The one place trashd forks its children (the front process, a restore
 * as its caller, the wipe worker): what every child must shed of the
 * daemon happens here, so no child can forget one of them.  Nothing
 * trashd forks ever execs; every fd it opens is O_CLOEXEC all the same.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "base.h"

static int
child_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static bool
child_kept(int fd, const int *keep, size_t n)
{
	return bsearch(&fd, keep, n, sizeof(*keep), child_int_cmp) != NULL;
}

/*
 * Where close_range(2) fails: every open fd from 3 up but @keep's (sorted),
 * by number as /proc/self/fd lists them; without /proc, every number below
 * the fd limit (trashd never lowers it, so no fd lies above).
 */
static void
child_close_each(const int *keep, size_t n)
{
	struct rlimit rl;
	struct dirent *de;
	DIR *dir;
	long fd, max;
	char *end;

	if ((dir = opendir("/proc/self/fd")) != NULL) {
		while ((de = readdir(dir)) != NULL) {
			fd = strtol(de->d_name, &end, 10);
			if (*end != '\0' || end == de->d_name || fd < 3 ||
			    fd == dirfd(dir) || child_kept((int)fd, keep, n))
				continue;
			(void)close((int)fd);
		}
		closedir(dir);
		return;
	}
	max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur !=
	    RLIM_INFINITY && rl.rlim_cur < (1 << 20) ? (long)rl.rlim_cur :
	    1 << 20;
	for (fd = 3; fd < max; fd++)
		if (!child_kept((int)fd, keep, n))
			(void)close((int)fd);
}

/*
 * In the child: close every fd but 0-2 and the @n of @keep (sorted here;
 * a negative one is none), by number, so that no parent state (SQLite,
 * libevent) is touched: the listening and the clients' sockets, the
 * front's channel, inotify, the event loop's, the index's, the trash
 * directories the child was not given.  close_range(2) closes what lies
 * between the kept ones; should it fail (ENOSYS on a kernel before 5.9,
 * EPERM or ENOSYS under a seccomp filter that does not know it), every fd
 * is closed one by one: a child never runs with the daemon's fds.
 */
static void
child_close_fds(int *keep, size_t n)
{
	unsigned lo = 3;
	size_t i;

	qsort(keep, n, sizeof(*keep), child_int_cmp);
	for (i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned)keep[i] < lo)
			continue;
		if ((unsigned)keep[i] > lo && close_range(lo,
		    (unsigned)keep[i] - 1, 0) < 0)
			goto each;
		lo = (unsigned)keep[i] + 1;
	}
	if (close_range(lo, ~0U, 0) == 0)
		return;
each:
	child_close_each(keep, n);
}

/*
 * Fork a child named @name (its comm, as ps shows it), joined to the
 * daemon by a SOCK_SEQPACKET pair, its channel (chan.c): *@fd is each
 * side's end.  The child keeps fds 0-2, its end of the channel and the @n
 * fds of @keep, every other fd closed (child_close_fds()), with syslog's
 * socket forgotten first, so that a later syslog() opens its own rather
 * than write to a number the child may since have reused.  The daemon's
 * signal handlers are reset and no signal is blocked.  The caller then
 * drops what it must (credentials, capabilities) and ends with _exit().
 * Returns the pid in the parent, 0 in the child, or -errno.
 */
pid_t
child_fork(const char *name, const int *keep, size_t n, int *fd)
{
	/* The daemon's; SIGPIPE stays ignored: a write says EPIPE. */
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGALRM };
	sigset_t set;
	int p[2], *k;
	size_t i;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		pid = -errno;
		close(p[0]);
		close(p[1]);
		return pid;
	}
	if (pid > 0) {
		close(p[1]);
		*fd = p[0];
		return pid;
	}
	close(p[0]);
	closelog();
	k = xcalloc(n + 1, sizeof(*k));
	for (i = 0; i < n; i++)
		k[i] = keep[i];
	k[n] = p[1];
	child_close_fds(k, n + 1);
	free(k);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&set);
	(void)sigprocmask(SIG_SETMASK, &set, NULL);
	(void)prctl(PR_SET_NAME, name, 0, 0, 0);
	*fd = p[1];
	return 0;
}
