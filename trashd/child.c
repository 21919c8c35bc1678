/* SPDX-License-Identifier: ISC */
/*
 * The one place trashd forks its children (the front process, a restore
 * as its caller, the wipe worker): what every child must shed of the daemon happens here,
 * so no child can forget one of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "base.h"

/*
 * Fork a child named @name (its comm, as ps shows it), joined to the
 * daemon by a pipe (@chan 0: *@fd is the read end in the parent, the
 * write end in the child) or by a socketpair of type @chan (such as
 * SOCK_SEQPACKET: both ways; *@fd is each side's end).  The child keeps fds 0-2, its end of the pipe and the @n fds
 * of @keep, every other fd closed by number (the listening and clients'
 * sockets, inotify, the event loop's, the index's: a forked child never
 * touches SQLite or libevent state), with syslog's socket forgotten
 * first, so that a later syslog() opens its own rather than write to a
 * number the child may since have reused.  The daemon's signal handlers
 * are reset and no signal is blocked.  The caller then drops what it
 * must (credentials, capabilities) and ends with _exit().
 * Returns the pid in the parent, 0 in the child, or -errno.
 */
pid_t
child_fork(const char *name, int chan, const int *keep, size_t n, int *fd)
{
	/* The daemon's; SIGPIPE stays ignored: a write says EPIPE. */
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGALRM };
	sigset_t set;
	int p[2], *k;
	size_t i;
	pid_t pid;

	if ((chan == 0 ? pipe2(p, O_CLOEXEC) : socketpair(AF_UNIX,
	    chan | SOCK_CLOEXEC, 0, p)) < 0)
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
	caps_keep_fds(k, n + 1);
	free(k);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&set);
	(void)sigprocmask(SIG_SETMASK, &set, NULL);
	(void)prctl(PR_SET_NAME, name, 0, 0, 0);
	*fd = p[1];
	return 0;
}
