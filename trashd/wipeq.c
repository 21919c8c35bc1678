/* SPDX-License-Identifier: ISC */
/*
 * The wipe queue: secure wipe of +s entries, the daemon's side.
 *
 * An entry is first moved into /.trash/.wipe (root, 0700) under its row id,
 * so no user can reach it, and only then marked "wiping": .wipe is the
 * durable queue, and everything in it is wiped again after a crash.
 * The overwriting itself (wipe.c) runs in a forked worker (wipe-worker.c)
 * that only does file I/O: the daemon keeps serving, and the worker never
 * touches the database.  It reports each job on its channel (chan.c).  An
 * entry still open elsewhere is deferred and retried; each wipe's outcome
 * is recorded here, in the index and the audit.
 */
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "services.h"
/* Jobs handed to one worker; the rest wait for the next one. */
#define WIPE_JOBS_MAX		4096
size_t wipe_jobs_max = WIPE_JOBS_MAX;	/* the tests lower it */
/*
 * An entry still open elsewhere is retried after 1 s, then 2, 4, ... up
 * to this many seconds, as long as some entry stays open.
 */
#define WIPE_RETRY_MAX		30

struct wipe_worker {
	pid_t		 pid;
	int		 fd;
	struct event	*ev;
	struct wipe_job	*jobs;
	size_t		 njobs;
	size_t		 done;
	bool		 again;
};

static int
wipe_id_name(const char *name, int64_t *id)
{
	char *end;
	long long v;

	if (name[0] < '1' || name[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(name, &end, 10);
	if (errno != 0 || *end != '\0' || v <= 0)
		return -EINVAL;
	*id = v;
	return 0;
}

/*
 * Move a live entry into .wipe (the queue), then mark it wiping.  If the
 * name held another inode when it was moved (a user raced us), it goes
 * back where it was and nothing else happens.
 */
int
wipe_stage(struct trashd *d, struct tfs *fs, const struct entry *e,
    const char *reason)
{
	struct tuid *tu;
	struct stat st;
	char qname[32], back[NAME_MAX + 1];
	char result[64 + CONFIG_PATTERN_MAX];	/* "ok: " and the reason */
	int fd, r;

	if (e->state != ENTRY_TRASHED)
		return -EALREADY;
	if ((r = trash_uid(fs, e->trash_uid, &tu)) < 0)
		return r;
	if (fstatat(tu->fd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		goto refused;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != e->ident.dev ||
	    st.st_ino != e->ident.ino) {
		r = -ESTALE;
		goto refused;
	}
	snprintf(qname, sizeof(qname), "%" PRId64, e->id);
	if ((r = trash_wipe_dir(fs)) < 0)
		goto refused;
	if (renameat2(tu->fd, e->name, fs->wipefd, qname,
	    RENAME_NOREPLACE) < 0) {
		r = -errno;
		goto refused;
	}
	fd = trash_entry_open(fs, fs->wipefd, qname, &e->ident, O_RDONLY);
	if (fd < 0) {
		/* Swapped between the check and the move: give it back. */
		r = renameat2(fs->wipefd, qname, tu->fd, e->name,
		    RENAME_NOREPLACE);
		if (r < 0) {
			snprintf(back, sizeof(back), ".trashd-returned-%s",
			    qname);
			r = renameat2(fs->wipefd, qname, tu->fd, back,
			    RENAME_NOREPLACE);
		}
		if (r < 0)
			log_warn("wipe: %s: cannot return a swapped file "
			    "from .wipe/%s", fs->path, qname);
		r = -ESTALE;
		goto refused;
	}
	close(fd);
	if ((r = index_set_state(d->db, e->id, ENTRY_WIPING)) < 0)
		goto out;
	snprintf(result, sizeof(result), "ok: %s", reason);
	audit_entry(d, 0, getpid(), "wipe-queued", fs, e, result);
	goto out;
refused:
	snprintf(result, sizeof(result), "refused: %s", strerror(-r));
	audit_entry(d, 0, getpid(), "wipe-queued", fs, e, result);
	if (r == -ESTALE || r == -ENOENT)
		watch_rescan_uid(d, fs, tu);
out:
	return r;
}

/* The control socket's "wipe now" for one entry. */
int
wipe_request(struct trashd *d, int64_t id, int64_t actor_uid,
    int64_t actor_pid)
{
	struct entry e;
	struct tfs *fs;
	int r;

	if ((r = index_get(d->db, id, &e)) < 0)
		return r;
	if ((fs = trash_fs(d, e.fs_id)) == NULL) {
		r = -ENODEV;
		goto out;
	}
	if ((r = wipe_stage(d, fs, &e, "request")) == 0)
		wipe_kick(d);
	audit_entry(d, actor_uid, actor_pid, "wipe-request", fs, &e,
	    r == 0 ? "ok" : strerror(-r));
out:
	entry_clear(&e);
	return r;
}

/* A job's record: of its entry, or of the file in .wipe it had none of. */
static void
wipe_audit(struct trashd *d, struct tfs *fs, const struct entry *e,
    const char *action, const char *detail, const char *result)
{
	if (e->id != 0)
		audit_entry(d, 0, getpid(), action, fs, e, result);
	else
		audit_log(d, 0, getpid(), action, detail, result);
}

/* A queued file that is open elsewhere, to be tried again (wipe_lease()). */
struct wipe_deferred {
	int64_t		fs_id;
	int64_t		uid;		/* its trash's, -1: an orphan */
	char		name[32];	/* in .wipe */
};

static size_t
wipe_deferred_find(struct trashd *d, int64_t fs_id, const char *name)
{
	size_t i;

	for (i = 0; i < d->wipe_ndeferred; i++)
		if (d->wipe_deferred[i].fs_id == fs_id &&
		    strcmp(d->wipe_deferred[i].name, name) == 0)
			break;
	return i;
}

/* True the first time @name of @fs is deferred, so that it is told once. */
static bool
wipe_defer(struct trashd *d, const struct tfs *fs, const char *name,
    int64_t uid)
{
	struct wipe_deferred *w;

	if (wipe_deferred_find(d, fs->id, name) < d->wipe_ndeferred)
		return false;
	d->wipe_deferred = xreallocarray(d->wipe_deferred,
	    d->wipe_ndeferred + 1, sizeof(*d->wipe_deferred));
	w = &d->wipe_deferred[d->wipe_ndeferred++];
	memset(w, 0, sizeof(*w));
	w->fs_id = fs->id;
	w->uid = uid;
	snprintf(w->name, sizeof(w->name), "%s", name);
	return true;
}

static void
wipe_undefer(struct trashd *d, const struct tfs *fs, const char *name)
{
	size_t i = wipe_deferred_find(d, fs->id, name);

	if (i == d->wipe_ndeferred)
		return;
	d->wipe_deferred[i] = d->wipe_deferred[--d->wipe_ndeferred];
}

/* Queued entries of @uid (-1: anyone's) waiting for others to close them. */
size_t
wipe_deferred(struct trashd *d, int64_t uid)
{
	size_t i, n = 0;

	for (i = 0; i < d->wipe_ndeferred; i++)
		if (uid < 0 || d->wipe_deferred[i].uid == uid)
			n++;
	return n;
}

static void
wipe_result_str(const struct wipe_report *rep, char *buf, size_t len)
{
	switch (rep->result) {
	case -ENOSPC:
		snprintf(buf, len, "refused: its data ranges (%" PRIu64
		    " bytes) exceed what it has allocated (%" PRIu64 " bytes), "
		    "overwriting them would allocate; not overwritten, kept "
		    "in .wipe", rep->mapped, rep->alloc);
		break;
	case -EFBIG:
		snprintf(buf, len, "refused: more than %d data ranges; not "
		    "overwritten, kept in .wipe", WIPE_EXTENTS_MAX);
		break;
	default:
		snprintf(buf, len, "failed: %s; kept in .wipe for the next "
		    "start", strerror(-rep->result));
		break;
	}
}

/* Record one finished job: a wipes row, the entry's state, the audit. */
static void
wipe_record(struct trashd *d, struct tfs *fs, int64_t id, const char *name,
    const struct wipe_report *rep)
{
	char method[128], promises[256], result[256], detail[320], *full;
	struct wipe_opts o;
	struct entry e = { 0 };
	enum entry_state s = ENTRY_WIPED;
	struct wipe_row row;

	wipe_opts_from_config(d->conf, &o);
	wipe_method_str(&o, method, sizeof(method));
	wipe_promises_str(rep->promises, promises, sizeof(promises));
	if (rep->result == -ECANCELED) {
		snprintf(result, sizeof(result), "aborted: extents moved "
		    "during the overwrite; unlinked, data NOT wiped");
		s = ENTRY_PURGED;
	} else if (rep->result < 0) {
		wipe_result_str(rep, result, sizeof(result));
	} else if (rep->nlink > 1) {
		snprintf(result, sizeof(result), "unlinked only: %" PRIu64
		    " other links, its data lives on", rep->nlink - 1);
		snprintf(method, sizeof(method), "none");
	} else {
		snprintf(result, sizeof(result), "ok: %u passes, %" PRIu64
		    " bytes in %.3f s%s%s", rep->passes, rep->bytes,
		    (double)rep->ns / NSEC_PER_SEC,
		    rep->verified ? ", verified" : "",
		    rep->discarded ? ", discarded" : "");
	}
	if (id == 0 || index_get(d->db, id, &e) != 0)
		e.id = 0;
	snprintf(detail, sizeof(detail), "fs=%.200s .wipe/%.64s (no entry)",
	    fs->path, name);
	if (rep->result == -EBUSY) {
		/* Not a failure: retried until its last opener lets go. */
		if (wipe_defer(d, fs, name, e.id != 0 ?
		    (int64_t)e.trash_uid : -1)) {
			log_info("wipe: %s: deferred, still open elsewhere",
			    e.id != 0 ? e.name : detail);
			wipe_audit(d, fs, &e, "wipe-deferred", detail,
			    "deferred: still open elsewhere; retried until "
			    "closed");
		}
		goto out;
	}
	wipe_undefer(d, fs, name);
	if (rep->result < 0 && rep->result != -ECANCELED) {
		log_warnx("wipe: %s: %s", e.id != 0 ? e.name : detail,
		    result);
		wipe_audit(d, fs, &e, "wipe", detail, result);
		goto out;
	}
	row.entry_id = e.id;
	row.time_ns = now_ns();
	row.method = method;
	row.result = result;
	row.passes = rep->passes;
	row.bytes = rep->bytes;
	row.nlink = rep->nlink;
	row.promises = promises;
	(void)index_wipe_record(d->db, &row);
	if (e.id != 0)
		(void)index_set_state(d->db, e.id, s);
	xasprintf(&full, "%s; method: %s; not promised: %s", result, method,
	    promises);
	wipe_audit(d, fs, &e, s == ENTRY_WIPED ? "wiped" : "purged", detail,
	    full);
	free(full);
	/* Writers out of space may wait for this one (pressure.c). */
	if (d->space_freed != NULL && rep->nlink <= 1)
		d->space_freed(d, fs, (int64_t)rep->bytes);
out:
	entry_clear(&e);
}

/*
 * The queue of @fs: the files in its .wipe, with the rows they belong
 * to, up to wipe_jobs_max jobs in all.  A file whose row is still
 * "trashed" (a crash between the move and the update) is marked wiping
 * now.  The first pass (@deferred false) takes the files nobody holds
 * open as far as it knows; the second (@deferred true) the ones deferred
 * because someone did, with the room left: a user who holds thousands of
 * +s entries open must not keep everyone else's queued wipes from ever
 * being collected.
 */
static void
wipe_collect(struct trashd *d, size_t fsi, struct wipe_job **jobs,
    size_t *njobs, bool deferred)
{
	struct tfs *fs = &d->fs[fsi];
	struct wipe_job *j;
	struct dirent *de;
	struct entry e;
	struct stat st;
	DIR *dir;
	int64_t id;
	int fd;

	/* No .wipe yet (a full disk at start-up): nothing queued there. */
	if (fs->wipefd < 0 || *njobs >= wipe_jobs_max)
		return;
	if ((fd = openat(fs->wipefd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || (dir = fdopendir(fd)) == NULL) {
		log_warn("wipe: %s/.trash/.wipe", fs->path);
		if (fd >= 0)
			close(fd);
		return;
	}
	while (*njobs < wipe_jobs_max && (de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strlen(de->d_name) >= sizeof(j->name) ||
		    (wipe_deferred_find(d, fs->id, de->d_name) <
		    d->wipe_ndeferred) != deferred)
			continue;
		*jobs = xreallocarray(*jobs, *njobs + 1, sizeof(**jobs));
		j = &(*jobs)[(*njobs)++];
		memset(j, 0, sizeof(*j));
		j->fs = fsi;
		memcpy(j->name, de->d_name, strlen(de->d_name) + 1);
		if (wipe_id_name(de->d_name, &id) < 0 ||
		    fstatat(fs->wipefd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) < 0 ||
		    index_get(d->db, id, &e) < 0)
			continue;
		if (e.fs_id == fs->id && e.ident.dev == st.st_dev &&
		    e.ident.ino == st.st_ino && (e.state == ENTRY_WIPING ||
		    e.state == ENTRY_TRASHED)) {
			j->id = id;
			j->ident = e.ident;
			if (e.state == ENTRY_TRASHED)
				(void)index_set_state(d->db, id, ENTRY_WIPING);
		}
		entry_clear(&e);
	}
	closedir(dir);
}

/*
 * Start-up: a wiping row of @fs whose file is no longer in .wipe was
 * unlinked by a wipe whose record a crash lost (the unlink comes only
 * after the overwrite): it is marked wiped.  One whose file is still
 * there is queued, whether or not this pass collected it.
 */
static int
wipe_settle(struct trashd *d, struct tfs *fs)
{
	struct index_filter f = { .uid = -1,
	    .states = ENTRY_STATE_MASK(ENTRY_WIPING) };
	struct entry_list l;
	struct stat st;
	char name[32];
	size_t i;
	int r;

	if (fs->wipefd < 0)
		return 0;
	f.fs_id = fs->id;
	if ((r = index_list(d->db, &f, &l)) < 0)
		return r;
	for (i = 0; i < l.n; i++) {
		snprintf(name, sizeof(name), "%" PRId64, l.v[i].id);
		if (fstatat(fs->wipefd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		    errno != ENOENT)
			continue;
		(void)index_set_state(d->db, l.v[i].id, ENTRY_WIPED);
		audit_entry(d, 0, getpid(), "wiped", fs, &l.v[i],
		    "ok: finished before a crash lost its record");
	}
	entry_list_free(&l);
	return 0;
}

static int
wipe_jobs(struct trashd *d, struct wipe_job **jobs, size_t *njobs,
    bool recover)
{
	size_t i;
	int r;

	*jobs = NULL;
	*njobs = 0;
	if ((r = db_begin(d->db)) < 0)
		return r;
	for (i = 0; i < d->nfs; i++)
		wipe_collect(d, i, jobs, njobs, false);
	for (i = 0; i < d->nfs && d->wipe_ndeferred > 0; i++)
		wipe_collect(d, i, jobs, njobs, true);
	for (i = 0; i < d->nfs && recover; i++)
		if ((r = wipe_settle(d, &d->fs[i])) < 0)
			log_warnx("wipe: %s: %s", d->fs[i].path, strerror(-r));
	return db_commit(d->db);
}

/* Start-up: bring the queue's rows in line with .wipe (see above). */
int
wipe_recover(struct trashd *d)
{
	struct wipe_job *jobs;
	size_t n;
	int r;

	r = wipe_jobs(d, &jobs, &n, true);
	free(jobs);
	return r;
}

/*
 * Wipe the whole queue now, in this process (start-up recovery without an
 * event loop, and the tests).  Returns the number of failed jobs; one
 * deferred (still open elsewhere) is not failed, and stays queued.
 */
int
wipe_drain(struct trashd *d)
{
	struct wipe_job *jobs;
	struct wipe_report rep;
	struct wipe_opts o;
	size_t n, i;
	int r, failed = 0;

	wipe_opts_from_config(d->conf, &o);
	if ((r = wipe_jobs(d, &jobs, &n, true)) < 0)
		return r;
	for (i = 0; i < n; i++) {
		wipe_job_run(d, &o, &jobs[i], &rep);
		if (rep.result < 0 && rep.result != -ECANCELED &&
		    rep.result != -EBUSY)
			failed++;
		wipe_record(d, &d->fs[jobs[i].fs], jobs[i].id, jobs[i].name,
		    &rep);
	}
	free(jobs);
	return failed;
}

static void
wipe_worker_free(struct trashd *d)
{
	struct wipe_worker *w = d->worker;

	if (w == NULL)
		return;
	if (w->ev != NULL)
		event_free(w->ev);
	if (w->fd >= 0)
		close(w->fd);
	free(w->jobs);
	free(w);
	d->worker = NULL;
}

/* Wait for the worker and forget it; returns its wait status. */
static int
wipe_worker_wait(struct trashd *d)
{
	int status = 0;

	while (waitpid(d->worker->pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static void
wipe_retry(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	wipe_kick(arg);
}

/* Entries left open elsewhere: another pass soon, later each time. */
static void
wipe_retry_arm(struct trashd *d)
{
	struct timeval tv = { 0, 0 };

	if (d->wipe_ndeferred == 0) {
		d->wipe_backoff = 0;
		return;
	}
	if (d->wipe_retry == NULL &&
	    (d->wipe_retry = evtimer_new(d->base, wipe_retry, d)) == NULL)
		fatalx("wipe: cannot add the retry timer");
	d->wipe_backoff = d->wipe_backoff == 0 ? 1 :
	    d->wipe_backoff * 2 > WIPE_RETRY_MAX ? WIPE_RETRY_MAX :
	    d->wipe_backoff * 2;
	tv.tv_sec = d->wipe_backoff;
	evtimer_add(d->wipe_retry, &tv);
	log_debug("wipe: %zu deferred, next pass in %u s", d->wipe_ndeferred,
	    d->wipe_backoff);
}

static void
wipe_worker_read(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;
	struct wipe_worker *w = d->worker;
	struct chan_msg cm;
	struct wipe_msg m;
	struct wipe_job *j;
	bool again;
	int status, r;

	(void)ev;
	if ((r = chan_recv(fd, &cm, false)) == -EAGAIN)
		return;
	if (r == -EBADMSG || (r == 1 && (cm.type != WIPE_MSG_DONE ||
	    chan_get(&cm, &m, sizeof(m), sizeof(m)) < 0 ||
	    m.job >= w->njobs))) {
		log_warnx("wipe: worker %d: a bad message on its channel",
		    (int)w->pid);
		return;
	}
	if (r == 1) {
		j = &w->jobs[m.job];
		wipe_record(d, &d->fs[j->fs], j->id, j->name, &m.rep);
		w->done++;
		return;
	}
	/* The end: the worker is done, or died. */
	status = wipe_worker_wait(d);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		log_warnx("wipe: worker %d died (status %d) after %zu of %zu; "
		    "the rest stays queued in .wipe", (int)w->pid, status,
		    w->done, w->njobs);
	again = w->again && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	wipe_worker_free(d);
	if (again)
		wipe_kick(d);
	else
		wipe_retry_arm(d);
}

/* Start a worker on the queue, or have the running one's successor. */
void
wipe_kick(struct trashd *d)
{
	struct wipe_worker *w;
	struct wipe_opts o;
	size_t i, n = 0;
	int *keep, fd;

	if (d->base == NULL)
		return;	/* no event loop: the caller drains */
	if (d->worker != NULL) {
		d->worker->again = true;
		return;
	}
	w = xcalloc(1, sizeof(*w));
	w->fd = -1;
	if (wipe_jobs(d, &w->jobs, &w->njobs, false) < 0 || w->njobs == 0) {
		free(w->jobs);
		free(w);
		return;
	}
	wipe_opts_from_config(d->conf, &o);
	keep = xcalloc(2 * d->nfs + 1, sizeof(*keep));
	for (i = 0; i < d->nfs; i++) {
		if (d->fs[i].wipefd >= 0)
			keep[n++] = d->fs[i].wipefd;
		if (o.discard)
			keep[n++] = d->fs[i].rootfd;
	}
	w->pid = child_fork("trashd-wipe", keep, n, &fd);
	free(keep);
	if (w->pid < 0) {
		errno = (int)-w->pid;
		log_warn("wipe: fork");
		free(w->jobs);
		free(w);
		return;
	}
	if (w->pid == 0)
		wipe_worker_main(d, &o, w->jobs, w->njobs, fd);
	w->fd = fd;
	d->worker = w;
	w->ev = event_new(d->base, w->fd, EV_READ | EV_PERSIST,
	    wipe_worker_read, d);
	if (w->ev == NULL || event_add(w->ev, NULL) < 0)
		fatalx("wipe: cannot add the worker event");
	for (i = 0; i < w->njobs; i++)
		log_debug("wipe: worker %d: %s/.trash/.wipe/%s", (int)w->pid,
		    d->fs[w->jobs[i].fs].path, w->jobs[i].name);
}

pid_t
wipe_worker_pid(struct trashd *d)
{
	return d->worker != NULL ? d->worker->pid : 0;
}

/*
 * At exit and reload: stop the worker and the retries; what it did not
 * finish stays queued, and the next pass finds again what is deferred.
 */
void
wipe_worker_reap(struct trashd *d)
{
	if (d->wipe_retry != NULL)
		event_free(d->wipe_retry);
	d->wipe_retry = NULL;
	free(d->wipe_deferred);
	d->wipe_deferred = NULL;
	d->wipe_ndeferred = 0;
	d->wipe_backoff = 0;
	if (d->worker == NULL)
		return;
	kill(d->worker->pid, SIGTERM);
	(void)wipe_worker_wait(d);
	wipe_worker_free(d);
}
