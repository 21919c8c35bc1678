/* SPDX-License-Identifier: ISC */
/*
 * The daemon's state and its life: open the index, the filesystems and
 * their watches, recover the wipe queue, reconcile; reload; close.  Every
 * handler gets the struct trashd: a control.c adds its listener here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

static void
daemon_close_fs(struct trashd *d)
{
	size_t i;

	watch_close(d);
	for (i = 0; i < d->nfs; i++) {
		pressure_close(&d->fs[i]);
		trash_close(&d->fs[i]);
	}
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
		if ((r = pressure_fs(d, fs)) == -ENOTTY)
			log_info("%s: no space pressure in this kernel: the "
			    "watermark is checked on the policy timer",
			    fs->path);
		else if (r < 0)
			log_warnx("%s: space pressure: %s", fs->path,
			    strerror(-r));
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
	/* What the scan learns, the services above it act on. */
	d->uid_found = watch_uid;
	d->entry_new = policy_indexed;
	d->entry_moving = restore_owns;
	d->space_freed = pressure_wiped;
	umask(077);
	if ((r = db_open(conf->database, 0, &d->db, err, errlen)) < 0)
		goto fail;
	if (base != NULL) {
		if ((r = watch_init(d)) < 0) {
			snprintf(err, errlen, "inotify: %s", strerror(-r));
			goto fail;
		}
	}
	policy_start(d);
	daemon_open_fs(d);
	daemon_recover(d);
	policy_soon(d);
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
	policy_stop(d);
	db_close(d->db);
	d->db = NULL;
	config_free(d->conf);
	d->conf = NULL;
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
	policy_soon(d);
	return 0;
}
