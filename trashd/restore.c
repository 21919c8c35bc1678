/* SPDX-License-Identifier: ISC */
/*
 * Restores, done as the caller: the daemon's side.  For each restore
 * request a child is forked that takes the caller's uid, gid and
 * supplementary groups (or, for an admin acting on behalf of a user, that
 * user's), so it can only write where the caller could.  A forked child, not setfsuid() in the
 * daemon: the ids are the whole process's, the kernel clears every
 * capability when a root process takes a non-zero uid, and a restore
 * that blocks (a FUSE mount, a stopped child) blocks only itself.  Only
 * root restores root's entries: an admin acting for root would have
 * root's rights at the destination, and the admin's own cannot take the
 * entry out of root's 0700 trash dir.
 *
 * The child (restore-child.c) moves each entry out of the trash to its
 * target as the caller and reports each entry's outcome on its channel
 * (chan.c); the daemon, here, records it in the index and the audit and
 * tells the client, without ever blocking.
 *
 * Each uid may run restore-max restores at once, and a restore that
 * takes longer than restore-timeout dies of the alarm(2) it set itself:
 * the daemon keeps no CAP_KILL, so it cannot signal a child that took a
 * user's ids, while the kernel's SIGALRM needs no permission, is fatal
 * (its default action), and so ends even a stopped child or one in a
 * killable wait (FUSE, NFS).  What the child did not report stays in the
 * trash, and the client is told it timed out.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"
#include "services.h"

/* Groups taken from the account database for an on-behalf restore. */
#define RESTORE_GROUPS_MAX	1024
/*
 * Seconds a timed-out child has to die of its alarm before the client is
 * told anyway (a task in uninterruptible sleep does not die at once).
 */
#define RESTORE_KILL_GRACE	2

struct restore_id {
	int64_t		 id;
	size_t		 idx;
};

struct restore_job {
	LIST_ENTRY(restore_job) entry;
	struct trashd		*d;
	const struct restore_client *cl;
	void			*c;		/* NULL: the client left */
	int64_t			 fs_id;
	char			*fs_path;
	uint32_t		 uid;		/* whose trash */
	uid_t			 as;		/* the child's uid */
	uid_t			 actor;
	pid_t			 actor_pid;
	struct entry_list	 l;
	char			**targets;	/* NULL: refused up front */
	pid_t			 pid;
	int			 fd;
	struct event		*ev;
	struct event		*timer;		/* restore-timeout */
	bool			 killed;	/* timed out */
	bool			*reported;
	/* The entries' ids, sorted, with their index in l: restore_owns(). */
	struct restore_id	*ids;
	size_t			 done;
	size_t			 failed;
};

size_t
restore_running(struct trashd *d)
{
	return d->nrestores;
}

/* Restores that uid @uid asked for and whose child is not gone yet. */
size_t
restore_running_uid(struct trashd *d, uid_t uid)
{
	struct restore_job *j;
	size_t n = 0;

	LIST_FOREACH(j, &d->restores, entry)
		if (j->actor == uid)
			n++;
	return n;
}

static int
restore_id_cmp(const void *a, const void *b)
{
	const struct restore_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Is entry @id being moved out by a restore that has not reported it yet?
 * Its departure is then the restore's to record, with the actor's uid:
 * inotify sees it leave before the child's report is read.
 */
bool
restore_owns(struct trashd *d, int64_t id)
{
	struct restore_job *j;
	struct restore_id key = { id, 0 }, *hit;

	LIST_FOREACH(j, &d->restores, entry) {
		if (j->ids == NULL)
			continue;
		hit = bsearch(&key, j->ids, j->l.n, sizeof(*j->ids),
		    restore_id_cmp);
		if (hit != NULL && !j->reported[hit->idx])
			return true;
	}
	return false;
}

void
restore_creds_free(struct creds *cr)
{
	free(cr->groups);
	cr->groups = NULL;
	cr->ngroups = 0;
}

/*
 * The credentials to restore into uid @uid's name: the peer's own as read
 * at accept when it is the peer's trash; else that user's from the account
 * database (uid, primary gid, getgrouplist()), and for a uid without a
 * passwd entry the group of its trash dir and no supplementary groups.
 * Root's are never taken for another peer: control.c refuses that.
 */
int
restore_creds(const struct peer *p, uint32_t uid, int tudirfd,
    struct creds *cr)
{
	struct passwd pw, *pwp = NULL;
	struct stat st;
	char buf[16384];
	int n = RESTORE_GROUPS_MAX;

	memset(cr, 0, sizeof(*cr));
	if (uid == 0 && p->uid != 0)
		return -EPERM;
	if (uid == p->uid) {
		cr->uid = p->uid;
		cr->gid = p->gid;
		cr->ngroups = p->ngroups;
		cr->groups = xcalloc((size_t)p->ngroups + 1,
		    sizeof(*cr->groups));
		memcpy(cr->groups, p->groups, (size_t)p->ngroups *
		    sizeof(*cr->groups));
		return 0;
	}
	cr->uid = uid;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) != 0 ||
	    pwp == NULL) {
		if (fstat(tudirfd, &st) < 0)
			return -errno;
		cr->gid = st.st_gid;
		cr->groups = xcalloc(1, sizeof(*cr->groups));
		return 0;
	}
	cr->gid = pw.pw_gid;
	cr->groups = xcalloc(RESTORE_GROUPS_MAX, sizeof(*cr->groups));
	if (getgrouplist(pw.pw_name, pw.pw_gid, cr->groups, &n) < 0)
		n = RESTORE_GROUPS_MAX;	/* the first ones */
	cr->ngroups = n;
	return 0;
}

static const char *
restore_errstr(int err)
{
	switch (err) {
	case 0:
		return "restored";
	case EEXIST:
		return "exists: kept in the trash (--overwrite replaces it)";
	case ELOOP:
		return "a symlink on the way: refused, kept in the trash";
	case ENOTDIR:
		return "not a directory on the way: kept in the trash";
	case EXDEV:
		return "leads off its filesystem: refused, kept in the trash";
	case EACCES:
	case EPERM:
		return "permission denied: kept in the trash";
	case ESTALE:
	case ENOENT:
		return "the trash entry changed or left: not restored";
	case EINVAL:
		return "original path unknown or unsafe (.., empty "
		    "components): refused, use --to";
	case EISDIR:
		return "a directory is in the way: kept in the trash";
	case ETIMEDOUT:
		return "timed out (restore-timeout): stopped, kept in the "
		    "trash";
	default:
		return strerror(err);
	}
}

/*
 * What the client and the audit are told of one entry: @owner, when not
 * NO_OWNER, owns the directory that the first @plen bytes of its target
 * name.
 */
static void
restore_message(const struct restore_job *j, size_t idx, int err,
    uint32_t owner, size_t plen, char *buf, size_t len)
{
	const char *t = j->targets[idx];
	char whose[32];

	if (err != EPERM || owner == NO_OWNER || t == NULL ||
	    plen > strlen(t)) {
		snprintf(buf, len, "%s", restore_errstr(err));
		return;
	}
	if (j->as == j->actor)
		snprintf(whose, sizeof(whose), "yours");
	else
		snprintf(whose, sizeof(whose), "uid %u's", (unsigned)j->as);
	snprintf(buf, len, "parent %s/%.*s is owned by uid %u, not %s: "
	    "refusing, kept in the trash", strcmp(j->fs_path, "/") == 0 ?
	    "" : j->fs_path, (int)plen, t, owner, whose);
}

/* One entry's result to the client, if it is still there. */
static void
restore_tell(struct restore_job *j, size_t idx, int err, const char *msg)
{
	struct entry *e = &j->l.v[idx];
	struct proto_buf *b;
	char *to = NULL;

	if (j->c == NULL)
		return;
	if (j->targets[idx] != NULL)
		xasprintf(&to, "%s%s%s", strcmp(j->fs_path, "/") == 0 ? "" :
		    j->fs_path, "/", j->targets[idx]);
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_RESULT);
	proto_num(b, A_ID, e->id);
	proto_num(b, A_ERRNO, err);
	proto_str(b, A_PATH, e->orig_path);
	proto_str(b, A_TO, to);
	proto_num(b, A_SIZE, e->size);
	proto_str(b, A_MESSAGE, msg);
	j->cl->send(j->c, b);
	free(b);
	free(to);
}

/* One entry's outcome: index, audit, the client. */
static void
restore_report(struct restore_job *j, size_t idx, int err, uint32_t owner,
    size_t plen)
{
	struct trashd *d = j->d;
	struct entry *e = &j->l.v[idx];
	struct tfs *fs = trash_fs(d, j->fs_id);
	char msg[PATH_MAX + 128], result[sizeof(msg) + 64];
	int r;

	if (j->reported[idx])
		return;
	j->reported[idx] = true;
	if (err == 0) {
		r = index_mark_restored(d, e->id, j->actor, j->actor_pid);
		if (r < 0 && r != -EALREADY)
			log_warnx("restore: index: entry %" PRId64 ": %s",
			    e->id, strerror(-r));
		j->done++;
	} else {
		j->failed++;
	}
	restore_message(j, idx, err, owner, plen, msg, sizeof(msg));
	snprintf(result, sizeof(result), "%s: %s, as uid %u%s",
	    err == 0 ? "ok" : "failed", msg, j->uid,
	    j->uid != j->actor ? " on behalf" : "");
	audit_entry(d, j->actor, j->actor_pid, "restore", fs, e, result);
	restore_tell(j, idx, err, msg);
}

static void
restore_free(struct restore_job *j)
{
	size_t i;

	LIST_REMOVE(j, entry);
	j->d->nrestores--;
	if (j->ev != NULL)
		event_free(j->ev);
	if (j->timer != NULL)
		event_free(j->timer);
	if (j->fd >= 0)
		close(j->fd);
	for (i = 0; i < j->l.n; i++)
		free(j->targets[i]);
	free(j->targets);
	free(j->reported);
	free(j->ids);
	entry_list_free(&j->l);
	free(j->fs_path);
	free(j);
}

/*
 * The reply ends with its counts; the client is detached and returned,
 * for the caller to pass to its client's done() once the job is freed
 * or is to stay (its next request may be another restore, which counts
 * the jobs).
 */
static void *
restore_end_reply(struct restore_job *j, size_t failed)
{
	void *c = j->c;
	struct proto_buf *b;

	if (c == NULL)
		return NULL;
	j->c = NULL;
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	proto_num(b, A_DONE, (int64_t)j->done);
	proto_num(b, A_FAILED, (int64_t)(j->failed + failed));
	j->cl->send(c, b);
	free(b);
	return c;
}

/*
 * The child's channel is closed: reap it (@block: it is exiting; else, at
 * trashd's exit, one that does not die is left to its alarm) and end the
 * job.
 */
static void
restore_finish(struct restore_job *j, bool block)
{
	const struct restore_client *cl = j->cl;
	struct tfs *fs;
	struct tuid *tu;
	int status = 0;
	void *c;
	size_t i;
	pid_t r;

	while ((r = waitpid(j->pid, &status, block ? 0 : WNOHANG)) < 0 &&
	    errno == EINTR)
		;
	if (r == j->pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		j->killed = true;
	else if (r == j->pid && !j->killed && (!WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0))
		log_warnx("restore: child %d died (status %d)", (int)j->pid,
		    status);
	/*
	 * What the child did not report, it may or may not have done: failed
	 * for the client, and whatever left the trash is recorded as gone
	 * (the departure restore_owns() held back).
	 */
	if ((fs = trash_fs(j->d, j->fs_id)) == NULL ||
	    trash_uid(fs, j->uid, &tu) < 0)
		tu = NULL;
	for (i = 0; i < j->l.n; i++) {
		if (j->reported[i])
			continue;
		restore_report(j, i, j->killed ? ETIMEDOUT : EIO, NO_OWNER, 0);
		if (tu != NULL)
			(void)scan_gone(j->d, fs, tu, j->l.v[i].name);
	}
	c = restore_end_reply(j, 0);
	restore_free(j);
	if (c != NULL)
		cl->done(c);
}

static void
restore_read(evutil_socket_t fd, short ev, void *arg)
{
	struct restore_job *j = arg;
	struct chan_msg cm;
	struct restore_msg m;
	int r;

	(void)ev;
	if ((r = chan_recv(fd, &cm, false)) == -EAGAIN)
		return;
	if (r == -EBADMSG || (r == 1 && (cm.type != RESTORE_MSG_ENTRY ||
	    chan_get(&cm, &m, sizeof(m), sizeof(m)) < 0))) {
		log_warnx("restore: child %d: a bad message on its channel",
		    (int)j->pid);
		return;
	}
	if (r == 1) {
		if (m.idx < j->l.n && j->targets[m.idx] != NULL)
			restore_report(j, m.idx, m.err > 0 ? EIO :
			    m.err == INT32_MIN ? EIO : -m.err, m.owner,
			    m.plen);
		return;
	}
	restore_finish(j, true);
}

/*
 * restore-timeout ran out: the child dies of its own alarm (and of
 * SIGKILL, where it is root's), and its channel closing ends the job.
 * Should it not die within RESTORE_KILL_GRACE (stuck where a fatal
 * signal waits), the client is told now that what is left timed out; the
 * job, and so its uid's slot, stays until the child is gone.
 */
static void
restore_timeout(evutil_socket_t fd, short ev, void *arg)
{
	struct restore_job *j = arg;
	struct timeval tv = { RESTORE_KILL_GRACE, 0 };
	size_t i, left = 0;

	(void)fd;
	(void)ev;
	if (!j->killed) {
		log_warnx("restore: child %d (uid %u, for uid %u): no end "
		    "after %" PRId64 "s: stopped", (int)j->pid,
		    (unsigned)j->actor, j->uid, j->d->conf->restore_timeout);
		j->killed = true;
		/* EPERM but for root's own: the alarm is what kills. */
		(void)kill(j->pid, SIGKILL);
		evtimer_add(j->timer, &tv);
		return;
	}
	if (j->c == NULL)
		return;
	log_warnx("restore: child %d does not die: the client is told",
	    (int)j->pid);
	for (i = 0; i < j->l.n; i++) {
		if (j->reported[i])
			continue;
		restore_tell(j, i, ETIMEDOUT, restore_errstr(ETIMEDOUT));
		left++;
	}
	j->cl->done(restore_end_reply(j, left));
}

/*
 * Start restoring @l (taken, with @targets, in every case) from uid
 * @uid's trash on @fs as @cr, for client @c of peer @p, which @cl tells.
 * The reply is a PROGRESS, one RESULT per entry, then OK; @cl's done()
 * ends it.  The job is *@jp, for restore_detach().
 */
int
restore_start(struct trashd *d, const struct restore_client *cl, void *c,
    const struct peer *p, struct tfs *fs, uint32_t uid,
    const struct creds *cr, struct entry_list *l, char **targets,
    bool overwrite, mode_t mask, struct restore_job **jp)
{
	struct restore_job *j = xcalloc(1, sizeof(*j));
	struct timeval tv = { d->conf->restore_timeout, 0 };
	struct proto_buf *b;
	struct tuid *tu;
	size_t i;
	int keep[2], fd, r;

	j->d = d;
	j->cl = cl;
	j->c = c;
	j->fs_id = fs->id;
	j->fs_path = xstrdup(fs->path);
	j->uid = uid;
	j->as = cr->uid;
	j->actor = p->uid;
	j->actor_pid = p->pid;
	j->l = *l;
	l->v = NULL;
	l->n = 0;
	j->targets = targets;
	j->reported = xcalloc(j->l.n + 1, sizeof(*j->reported));
	if (j->l.n > 0) {
		j->ids = xcalloc(j->l.n, sizeof(*j->ids));
		for (i = 0; i < j->l.n; i++) {
			j->ids[i].id = j->l.v[i].id;
			j->ids[i].idx = i;
		}
		qsort(j->ids, j->l.n, sizeof(*j->ids), restore_id_cmp);
	}
	j->fd = -1;
	LIST_INSERT_HEAD(&d->restores, j, entry);
	d->nrestores++;
	if ((r = trash_uid(fs, uid, &tu)) < 0)
		goto fail;
	keep[0] = fs->rootfd;
	keep[1] = tu->fd;
	if ((j->pid = child_fork("trashd-restore", keep, 2, &fd)) < 0) {
		r = (int)j->pid;
		goto fail;
	}
	if (j->pid == 0)
		restore_child(fd, fs->rootfd, tu->fd, cr, &j->l, targets,
		    overwrite, mask, d->conf->restore_timeout);
	j->fd = fd;
	j->ev = event_new(d->base, j->fd, EV_READ | EV_PERSIST, restore_read,
	    j);
	if (j->ev == NULL || event_add(j->ev, NULL) < 0)
		fatalx("restore: cannot add the child's event");
	if ((j->timer = evtimer_new(d->base, restore_timeout, j)) == NULL)
		fatalx("restore: cannot make the child's timer");
	if (d->conf->restore_timeout > 0 && evtimer_add(j->timer, &tv) < 0)
		fatalx("restore: cannot add the child's timer");
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_PROGRESS);
	proto_num(b, A_TOTAL, (int64_t)j->l.n);
	cl->send(c, b);
	free(b);
	/* Refused up front: reported now, never sent to the child. */
	for (i = 0; i < j->l.n; i++)
		if (targets[i] == NULL)
			restore_report(j, i, EINVAL, NO_OWNER, 0);
	*jp = j;
	log_debug("restore: child %d: %zu entries of uid %u as uid %u",
	    (int)j->pid, j->l.n, uid, (unsigned)cr->uid);
	return 0;
fail:
	j->c = NULL;
	restore_free(j);
	return r;
}

/* The client went away: the restore goes on, its results are recorded. */
void
restore_detach(struct restore_job *j)
{
	j->c = NULL;
}

/*
 * At exit: end the jobs; what the children did not do stays in the trash.
 * trashd cannot signal a child that took a user's ids (no CAP_KILL), so
 * one that has not finished is left to its alarm, not waited for.
 */
void
restore_stop_all(struct trashd *d)
{
	struct restore_job *j;

	while ((j = LIST_FIRST(&d->restores)) != NULL) {
		(void)kill(j->pid, SIGKILL);
		j->c = NULL;
		restore_finish(j, false);
	}
}
