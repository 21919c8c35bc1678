/* SPDX-License-Identifier: ISC */
/*
 * The daemon's state and its life: open the index, the filesystems and
 * their watches, recover the wipe queue, reconcile; reload; close.  Every
 * handler gets the struct trashd: a control.c adds its listener here.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trashd.h"

/* Coalesce the policy runs that a burst of new entries asks for. */
#define DAEMON_POLICY_DELAY_MS	500

struct tfs *
daemon_fs(struct trashd *d, int64_t fs_id)
{
	size_t i;

	for (i = 0; i < d->nfs; i++)
		if (d->fs[i].id == fs_id)
			return &d->fs[i];
	return NULL;
}

/*
 * The policy timer: a full run (every policy, the whole index) each
 * policy-interval and when one was asked for; in between, runs over just
 * the entries that came since the last one (policy_fresh()), so that a
 * burst of deletions does not pay for runs over the whole index.
 */
static void
daemon_policy_timer(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;
	struct timeval tv = { 0, 0 };
	int64_t now = now_ns(), left;

	(void)fd;
	(void)ev;
	if (d->policy_full || now >= d->policy_due) {
		d->policy_full = false;
		if (policy_run(d, now) < 0)
			log_warnx("policy: run failed");
		d->policy_due = now + (d->conf->interval > 0 ?
		    d->conf->interval : 300) * NSEC_PER_SEC;
	} else if (policy_fresh(d, now) < 0) {
		log_warnx("policy: run failed");
	}
	wipe_kick(d);
	left = d->policy_due - now_ns();
	if (left > 0) {
		tv.tv_sec = left / NSEC_PER_SEC;
		tv.tv_usec = left % NSEC_PER_SEC / 1000;
	}
	evtimer_add(d->policy_ev, &tv);
}

/* A full policy run soon: the configuration or a policy changed. */
void
daemon_policy_soon(struct trashd *d)
{
	d->policy_full = true;
	daemon_policy_new(d);
}

/* A run soon over the entries new since the last one. */
void
daemon_policy_new(struct trashd *d)
{
	struct timeval tv = { 0, DAEMON_POLICY_DELAY_MS * 1000 }, left;

	if (d->base == NULL || d->policy_ev == NULL)
		return;
	/* Only bring the next run forward, never push it back. */
	if (evtimer_pending(d->policy_ev, &left)) {
		struct timeval now;

		event_base_gettimeofday_cached(d->base, &now);
		if (left.tv_sec - now.tv_sec <= 0)
			return;
	}
	evtimer_add(d->policy_ev, &tv);
}

static void
daemon_close_fs(struct trashd *d)
{
	size_t i;

	watch_close(d);
	for (i = 0; i < d->nfs; i++)
		trash_close(&d->fs[i]);
	free(d->fs);
	d->fs = NULL;
	d->nfs = 0;
}

/* Open the configured filesystems; one that is refused is skipped. */
static void
daemon_open_fs(struct trashd *d)
{
	const struct config *c = d->conf;
	struct tfs *fs;
	size_t i;
	int r;

	d->fs = c->nfs ? xcalloc(c->nfs, sizeof(*d->fs)) : NULL;
	for (i = 0; i < c->nfs; i++) {
		fs = &d->fs[d->nfs];
		if ((r = trash_open(fs, c->fs[i].path, c->create_trash)) < 0) {
			log_warnx("%s/%s: refusing this filesystem: %s%s",
			    c->fs[i].path, TRASHBIN_DIR, strerror(-r),
			    r == -ENOTDIR ? " (a symlink, or not a directory)" :
			    r == -EPERM ?
			    " (not owned by root)" : r == -EACCES ?
			    " (group or other writable)" : r == -ENOENT ?
			    " (set create-trash yes, or mkdir -m 0755 it)" :
			    "");
			continue;
		}
		if ((r = index_fs_id(d->db, fs->path, &fs->id)) < 0) {
			log_warnx("%s: index: %s", fs->path, strerror(-r));
			trash_close(fs);
			continue;
		}
		fs->watermark = c->fs[i].watermark >= 0 ?
		    (unsigned)c->fs[i].watermark : c->watermark;
		d->nfs++;
		if (d->inotify_fd >= 0 && (r = watch_fs(d, fs)) < 0)
			log_warnx("%s/%s: cannot watch: %s", fs->path,
			    TRASHBIN_DIR, strerror(-r));
		log_info("%s: managing %s/%s", fs->path, fs->path, TRASHBIN_DIR);
	}
}

/*
 * The wipe queue first (its rows are marked wiping, so that the scan does
 * not take them for entries that left), then the scan, then the wipes.
 */
static void
daemon_recover(struct trashd *d)
{
	int r;

	if ((r = wipe_recover(d)) < 0)
		log_warnx("wipe: recovery: %s", strerror(-r));
	(void)scan_all(d);
	if (d->base != NULL) {
		wipe_kick(d);	/* in the worker, the loop keeps going */
		return;
	}
	if ((r = wipe_drain(d)) != 0)
		log_warnx("wipe: recovery: %d failed", r);
}

int
daemon_open(struct trashd *d, struct config *conf, struct event_base *base,
    char *err, size_t errlen)
{
	int r;

	memset(d, 0, sizeof(*d));
	d->conf = conf;
	d->base = base;
	d->inotify_fd = -1;
	umask(077);
	if ((r = db_open(conf->database, 0, &d->db, err, errlen)) < 0)
		goto fail;
	if (base != NULL) {
		if ((r = watch_init(d)) < 0) {
			snprintf(err, errlen, "inotify: %s", strerror(-r));
			goto fail;
		}
		d->policy_ev = evtimer_new(base, daemon_policy_timer, d);
		if (d->policy_ev == NULL)
			fatalx("cannot add the policy timer");
	}
	daemon_open_fs(d);
	daemon_recover(d);
	daemon_policy_soon(d);
	return 0;
fail:
	daemon_close(d);
	return r;
}

void
daemon_close(struct trashd *d)
{
	wipe_worker_reap(d);
	daemon_close_fs(d);
	if (d->policy_ev != NULL)
		event_free(d->policy_ev);
	d->policy_ev = NULL;
	db_close(d->db);
	d->db = NULL;
	config_free(d->conf);
	d->conf = NULL;
	free(d->fresh);
	d->fresh = NULL;
	d->nfresh = d->fresh_cap = 0;
}

/*
 * SIGHUP: take @conf (the caller loaded and checked it).  Filesystems and
 * watches are set up again and rescanned; the index stays open (a new
 * database path takes a restart).
 */
int
daemon_reload(struct trashd *d, struct config *conf)
{
	size_t i;
	int r;

	if (strcmp(conf->database, d->conf->database) != 0)
		log_warnx("reload: a new database path takes a restart; "
		    "keeping %s", d->conf->database);
	free(conf->database);
	conf->database = xstrdup(d->conf->database);
	wipe_worker_reap(d);
	daemon_close_fs(d);
	config_free(d->conf);
	d->conf = conf;
	if (d->base != NULL && (r = watch_init(d)) < 0) {
		log_warnx("reload: inotify: %s", strerror(-r));
		return r;
	}
	daemon_open_fs(d);
	for (i = 0; i < d->nfs; i++)
		log_debug("reload: %s", d->fs[i].path);
	daemon_recover(d);
	daemon_policy_soon(d);
	return 0;
}
