/* SPDX-License-Identifier: ISC */
/*
 * The wipe worker, "trashd-wipe": wipeq.c forks it with the queue's jobs;
 * it overwrites each file (wipe.c) and reports each on its channel
 * (chan.c).  Of fds it has only its channel and each filesystem's .wipe
 * (its root too for FITRIM), of capabilities only what file I/O on the
 * queue needs (wipe_worker_sandbox()).
 */
#include <errno.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "services.h"

/* Wipe one queued file: in the worker, or in the daemon (wipe_drain()). */
void
wipe_job_run(struct trashd *d, const struct wipe_opts *o,
    const struct wipe_job *j, struct wipe_report *rep)
{
	struct tfs *fs = &d->fs[j->fs];
	int r;

	r = wipe_file(fs->wipefd, j->name, j->id ? &j->ident : NULL,
	    fs->promises, fs->rootfd, o, rep);
	if (r == -ESTALE)
		/* Not the entry's inode after all: wipe it as an orphan. */
		(void)wipe_file(fs->wipefd, j->name, NULL, fs->promises,
		    fs->rootfd, o, rep);
}

/*
 * What the worker keeps of what the fork gave it (wipeq.c names the
 * fds, child_fork() closes every other): its channel to the
 * daemon, each filesystem's .wipe, and its root only for FITRIM; 0-2
 * stay (stderr is the log under -d).  Gone are the listening and the
 * clients' sockets, inotify, the event loop's, and the index's, whose
 * SQLite handle a forked child must never use, not even to close it.
 * Then only the capabilities file I/O on the queue needs:
 *   CAP_DAC_OVERRIDE	open the users' files in .wipe for writing
 *   CAP_LEASE		a write lease on a file it does not own
 *			(wipe_lease())
 *   CAP_SYS_ADMIN	only with wipe-discard: FITRIM
 * The worker never reads trusted.* (the daemon did, before it queued the
 * file), never changes ids and never restores: no CAP_SYS_ADMIN without
 * FITRIM, no CAP_SETUID or CAP_SETGID.  Its permitted set goes with them,
 * and no_new_privs holds from caps_drop(): there is no way back.
 */
static int
wipe_worker_sandbox(const struct wipe_opts *o)
{
	static const int caps[] = { CAP_DAC_OVERRIDE, CAP_LEASE,
	    CAP_SYS_ADMIN };

	return caps_limit(caps, o->discard ? 3 : 2);
}

/*
 * The worker: sandboxed, it runs @n @jobs and reports each on the channel
 * @fd.  @d is the daemon's state as forked, read only for its
 * filesystems' fds and promises; nothing of it is used or freed.
 */
void
wipe_worker_main(struct trashd *d, const struct wipe_opts *o,
    struct wipe_job *jobs, size_t n, int fd)
{
	struct wipe_msg m;
	size_t i;
	int r;

	if ((r = wipe_worker_sandbox(o)) < 0) {
		errno = -r;
		log_warn("wipe: worker: capabilities");
		_exit(1);
	}
	for (i = 0; i < n; i++) {
		memset(&m, 0, sizeof(m));
		m.job = (uint32_t)i;
		wipe_job_run(d, o, &jobs[i], &m.rep);
		if (chan_send(fd, WIPE_MSG_DONE, &m, sizeof(m), -1, 0) < 0)
			_exit(1);
	}
	_exit(0);
}
