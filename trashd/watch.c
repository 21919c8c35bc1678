/* SPDX-License-Identifier: ISC */
/*
 * inotify on each /.trash and each /.trash/<uid>.  Watches are added on
 * /proc/self/fd/N of the held dir fds, so a rename of a path can never
 * redirect one.  A new per-uid dir is watched first and scanned second;
 * IN_Q_OVERFLOW means events were lost: everything is scanned again, in
 * steps (scan_resume_step()) so that the loop keeps answering.  Work per
 * loop turn is bounded both ways: WATCH_TURN_EVENTS events, a rescan step
 * of WATCH_RESCAN_STEP names; one user flooding their trash delays the
 * indexing of other trashes, never the answers to other users' requests.
 */
#include <errno.h>
#include <event2/event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "services.h"

#define WATCH_TRASH_MASK	(IN_CREATE | IN_MOVED_TO | IN_DELETE | \
	IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define WATCH_UID_MASK		(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | \
	IN_ATTRIB | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_ONLYDIR)
/* Names that left in one turn, checked once the turn's events are read. */
#define WATCH_GONE_MAX		256

struct watch_gone {
	int	 wd;
	char	 name[NAME_MAX + 1];
};
/*
 * Events are read this long after the first of them arrives, so that a
 * burst of deletions is indexed in a few transactions rather than one per
 * file (each commit costs some 25 system calls): well within the second
 * an entry may take to be indexed.
 */
#define WATCH_BATCH_MS		50
/*
 * Events handled per loop turn (each costs an open, a stat and an index
 * lookup and write, 50 to 200 us: a few ms to 25 ms a turn, however loaded
 * the machine); the rest on the next turn.
 */
#define WATCH_TURN_EVENTS	128
/* Names read or rows checked per step of the rescan: as long a turn. */
#define WATCH_RESCAN_STEP	128

static const struct timeval watch_now = { 0, 0 };

static void
watch_batch(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;
	int r;

	(void)fd;
	(void)ev;
	if ((r = watch_read(d)) < 0)
		log_warnx("watch: %s", strerror(-r));
	/* More queued than a turn takes: the rest on the next turn. */
	if (r == 1) {
		if (evtimer_add(d->inotify_batch, &watch_now) < 0)
			fatalx("watch: cannot add the batch timer");
		return;
	}
	if (d->inotify_ev != NULL && event_add(d->inotify_ev, NULL) < 0)
		fatalx("watch: cannot add the inotify event");
}

/* One step of the rescan per loop turn, until it is over. */
static void
watch_rescan(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;

	(void)fd;
	(void)ev;
	if (scan_resume_step(d, WATCH_RESCAN_STEP) > 0 &&
	    evtimer_add(d->rescan_ev, &watch_now) < 0)
		fatalx("watch: cannot add the rescan timer");
}

/* The inotify fd is readable: read it in WATCH_BATCH_MS. */
static void
watch_dispatch(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;
	struct timeval tv = { 0, WATCH_BATCH_MS * 1000 };

	(void)fd;
	(void)ev;
	if (evtimer_add(d->inotify_batch, &tv) < 0)
		fatalx("watch: cannot add the batch timer");
}

static void watch_periodic(evutil_socket_t, short, void *);

/* The periodic rescan's timer, with the configuration's interval. */
static void
watch_periodic_start(struct trashd *d)
{
	struct timeval tv = { d->conf->rescan_interval, 0 };

	if (d->conf->rescan_interval <= 0)
		return;
	d->periodic_ev = event_new(d->base, -1, EV_PERSIST, watch_periodic, d);
	if (d->periodic_ev == NULL || event_add(d->periodic_ev, &tv) < 0)
		fatalx("watch: cannot add the rescan-interval timer");
}

int
watch_init(struct trashd *d)
{
	d->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->inotify_fd < 0)
		return -errno;
	if (d->base != NULL) {
		/* Not persistent: watch_batch() adds it back once read. */
		d->inotify_ev = event_new(d->base, d->inotify_fd, EV_READ,
		    watch_dispatch, d);
		d->inotify_batch = evtimer_new(d->base, watch_batch, d);
		d->rescan_ev = evtimer_new(d->base, watch_rescan, d);
		if (d->inotify_ev == NULL || d->inotify_batch == NULL ||
		    d->rescan_ev == NULL ||
		    event_add(d->inotify_ev, NULL))
			fatalx("watch: cannot add the inotify event");
		watch_periodic_start(d);
	}
	return 0;
}

void
watch_close(struct trashd *d)
{
	size_t i, j;

	if (d->inotify_ev != NULL)
		event_free(d->inotify_ev);
	d->inotify_ev = NULL;
	if (d->inotify_batch != NULL)
		event_free(d->inotify_batch);
	d->inotify_batch = NULL;
	if (d->rescan_ev != NULL)
		event_free(d->rescan_ev);
	d->rescan_ev = NULL;
	if (d->periodic_ev != NULL)
		event_free(d->periodic_ev);
	d->periodic_ev = NULL;
	scan_resume_stop(d);
	free(d->rescan_dirs);
	d->rescan_dirs = NULL;
	d->rescan_ndirs = 0;
	if (d->inotify_fd >= 0)
		close(d->inotify_fd);
	d->inotify_fd = -1;
	for (i = 0; i < d->nfs; i++) {
		d->fs[i].wd = -1;
		for (j = 0; j < d->fs[i].nuids; j++)
			d->fs[i].uids[j]->wd = -1;
	}
}

static int
watch_add(struct trashd *d, int dirfd, uint32_t mask)
{
	char path[64];
	int wd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
	if ((wd = inotify_add_watch(d->inotify_fd, path, mask)) < 0)
		return -errno;
	return wd;
}

int
watch_fs(struct trashd *d, struct tfs *fs)
{
	int wd = watch_add(d, fs->trashfd, WATCH_TRASH_MASK);

	if (wd < 0)
		return wd;
	fs->wd = wd;
	return 0;
}

int
watch_uid(struct trashd *d, struct tfs *fs, struct tuid *tu)
{
	int wd = watch_add(d, tu->fd, WATCH_UID_MASK);

	(void)fs;
	if (wd < 0)
		return wd;
	tu->wd = wd;
	return 0;
}

/* The filesystem, and the uid dir (NULL: /.trash itself) of @wd. */
static struct tfs *
watch_find(struct trashd *d, int wd, struct tuid **tup)
{
	size_t i, j;

	*tup = NULL;
	for (i = 0; i < d->nfs; i++) {
		if (d->fs[i].wd == wd)
			return &d->fs[i];
		for (j = 0; j < d->fs[i].nuids; j++) {
			if (d->fs[i].uids[j]->wd == wd) {
				*tup = d->fs[i].uids[j];
				return &d->fs[i];
			}
		}
	}
	return NULL;
}

/* The rescan's steps, from the loop (all at once without one). */
static void
watch_rescan_arm(struct trashd *d)
{
	if (d->rescan_ev == NULL) {
		while (scan_resume_step(d, WATCH_RESCAN_STEP) > 0)
			;
		return;
	}
	if (evtimer_add(d->rescan_ev, &watch_now) < 0)
		fatalx("watch: cannot add the rescan timer");
}

/*
 * Everything may have been missed: rescan every filesystem, in steps; a
 * full rescan under way goes on, and another follows it.
 */
void
watch_overflow(struct trashd *d)
{
	log_warnx("watch: inotify queue overflow: rescanning");
	d->rescan = false;
	scan_resume_start(d, "after an inotify overflow");
	watch_rescan_arm(d);
}

/*
 * Every rescan-interval: what inotify on the trash cannot see.  An entry
 * changed through a name outside the trash (a hard link its owner made
 * from it, a descriptor opened before it was trashed and kept open) is
 * measured again, so its size in quotas and fair shares is stale for at
 * most that long.  A rescan under way already does it.
 */
static void
watch_periodic(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;

	(void)fd;
	(void)ev;
	/*
	 * A full rescan under way measures everything already.  A rescan of
	 * one uid's dir is replaced by a full one that covers it: any user
	 * can keep one of those running (her own dir, found stale again and
	 * again), so skipping for it would let her turn this off.
	 */
	if (scan_resume_full(d))
		return;
	log_debug("watch: rescan (rescan-interval)");
	scan_resume_start(d, "(rescan-interval)");
	watch_rescan_arm(d);
}

/* A request found rows of @tu stale: rescan its dir, in steps. */
void
watch_rescan_uid(struct trashd *d, struct tfs *fs, struct tuid *tu)
{
	scan_resume_uid(d, fs, tu);
	watch_rescan_arm(d);
}

static void
watch_new_uid(struct trashd *d, struct tfs *fs, const char *name)
{
	struct tuid *tu;
	uint32_t uid;
	int r;

	if (trash_parse_uid(name, &uid) < 0)
		return;
	if ((r = trash_uid(fs, uid, &tu)) < 0) {
		log_warnx("watch: %s/.trash/%s: %s", fs->path, name,
		    strerror(-r));
		return;
	}
	if (tu->wd < 0 && (r = watch_uid(d, fs, tu)) < 0)
		log_warnx("watch: %s/.trash/%u: cannot watch: %s", fs->path,
		    uid, strerror(-r));
	if ((r = scan_uid(d, fs, tu)) < 0)
		log_warnx("watch: %s/.trash/%u: %s", fs->path, uid,
		    strerror(-r));
}

static void
watch_event(struct trashd *d, const struct inotify_event *ev,
    struct watch_gone *gone, size_t *ngone)
{
	struct tfs *fs;
	struct tuid *tu;
	int r;

	if (ev->mask & IN_Q_OVERFLOW) {
		d->rescan = true;
		return;
	}
	if ((fs = watch_find(d, ev->wd, &tu)) == NULL)
		return;
	if (ev->mask & IN_IGNORED) {
		/* The dir went away; a later scan picks up its successor. */
		if (tu != NULL)
			trash_uid_forget(fs, tu->uid);
		else
			fs->wd = -1;
		return;
	}
	if (tu == NULL) {
		if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
			log_warnx("watch: %s/.trash was removed or moved",
			    fs->path);
			d->rescan = true;
		} else if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) &&
		    (ev->mask & IN_ISDIR) && ev->len > 0) {
			watch_new_uid(d, fs, ev->name);
		} else if ((ev->mask & (IN_DELETE | IN_MOVED_FROM)) &&
		    (ev->mask & IN_ISDIR)) {
			d->rescan = true;
		}
		return;
	}
	if (ev->len == 0 || (ev->mask & IN_ISDIR))
		return;
	if (ev->mask & (IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB)) {
		if ((r = scan_entry(d, fs, tu, ev->name, NULL)) < 0)
			log_warnx("watch: %s/.trash/%u: %s", fs->path, tu->uid,
			    strerror(-r));
	} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		if (*ngone < WATCH_GONE_MAX) {
			gone[*ngone].wd = ev->wd;
			/* NUL-padded by the kernel, within NAME_MAX. */
			snprintf(gone[(*ngone)++].name, sizeof(gone[0].name),
			    "%s", ev->name);
		} else {
			d->rescan = true;
		}
	}
}

/*
 * Read the queued events, WATCH_TURN_EVENTS or a few more: 1 if some may
 * be left for the next turn.  A turn is one transaction; names that left
 * are checked at its end, so that a rename inside the trash (whose
 * IN_MOVED_TO updates the row) is not taken for a departure even when
 * its two events come in different reads.
 */
int
watch_read(struct trashd *d)
{
	/* About 128 events a read (names up to 16 bytes). */
	char buf[4 * 1024]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	static struct watch_gone gone[WATCH_GONE_MAX];
	struct inotify_event *ev;
	struct tuid *tu;
	struct tfs *fs;
	size_t ngone = 0, i, nev = 0;
	ssize_t n;
	char *p;
	int r = 0, e;

	if (db_begin(d->db) < 0)
		return -EIO;
	for (;;) {
		if (nev >= WATCH_TURN_EVENTS) {
			r = 1;
			break;
		}
		n = read(d->inotify_fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				r = -errno;
			break;
		}
		if (n == 0)
			break;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (struct inotify_event *)(void *)p;
			watch_event(d, ev, gone, &ngone);
			nev++;
		}
	}
	for (i = 0; i < ngone; i++) {
		if ((fs = watch_find(d, gone[i].wd, &tu)) == NULL || tu == NULL)
			continue;
		if ((e = scan_gone(d, fs, tu, gone[i].name)) < 0)
			log_warnx("watch: %s/.trash/%u: %s", fs->path, tu->uid,
			    strerror(-e));
	}
	if (db_commit(d->db) < 0)
		r = -EIO;
	if (d->rescan)
		watch_overflow(d);
	return r;
}
