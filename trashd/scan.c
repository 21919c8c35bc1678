/* SPDX-License-Identifier: ISC */
/*
 * Reconcile the index with the trash: one entry (on an inotify event), one
 * per-uid dir, or a whole filesystem (at start-up and after an inotify
 * overflow).  New inodes are indexed once; live rows whose inode left the
 * trash without trashd are marked restored.  Never duplicated: a live row
 * is unique per (filesystem, inode).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "services.h"

/* Names scanned per transaction (see scan_dir()). */
#define SCAN_BATCH	4096

/* "SECONDS.NANOSECONDS" in decimal, as the kernel writes it. */
static int
scan_parse_time(const char *s, size_t len, int64_t *out)
{
	int64_t sec = 0, nsec = 0;
	size_t i = 0, nd = 0;

	if (len == 0 || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > (INT64_MAX / NSEC_PER_SEC - 9) / 10)
			return -ERANGE;
		sec = sec * 10 + (s[i] - '0');
	}
	if (i < len) {
		if (s[i++] != '.')
			return -EINVAL;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (++nd > 9)
				return -EINVAL;
			nsec = nsec * 10 + (s[i] - '0');
		}
		if (i < len || nd == 0)
			return -EINVAL;
		for (; nd < 9; nd++)
			nsec *= 10;
	}
	*out = sec * NSEC_PER_SEC + nsec;
	return 0;
}

/* The kernel's record of a trashed file, as scan_record() reads it. */
struct scan_record {
	int64_t		 time_ns;	/* -1: unknown */
	int64_t		 uid;		/* -1: unknown */
	const char	*path;		/* in the caller's buffer; NULL: none */
};

#define SCAN_RECORD_MAX	(TRASHBIN_RECORD_HEAD_MAX + PATH_MAX)

/*
 * Read the record (TRASHBIN_XATTR, "<time> <uid> <path>", see
 * <linux/trashbin.h>) of the entry at @fd into @buf (SCAN_RECORD_MAX + 1
 * bytes).  A missing or malformed field is unknown; an empty <path> is
 * none.  Returns -ENODATA and all unknown when there is no usable record.
 */
static int
scan_record(int fd, char *buf, struct scan_record *r)
{
	ssize_t n = fgetxattr(fd, TRASHBIN_XATTR, buf, SCAN_RECORD_MAX);
	char *uid, *path;
	uint32_t u;

	r->time_ns = r->uid = -1;
	r->path = NULL;
	/* Not NUL-terminated; one with a NUL in it is bogus. */
	if (n < 0 || memchr(buf, '\0', (size_t)n) != NULL)
		return -ENODATA;
	buf[n] = '\0';
	if ((uid = strchr(buf, ' ')) == NULL)
		return -ENODATA;
	*uid++ = '\0';
	if ((path = strchr(uid, ' ')) == NULL)
		return -ENODATA;
	*path++ = '\0';
	if (scan_parse_time(buf, strlen(buf), &r->time_ns) < 0)
		r->time_ns = -1;
	if (trash_parse_uid(uid, &u) == 0)
		r->uid = u;
	if (*path != '\0')
		r->path = path;
	return 0;
}

static void
scan_read_meta(int fd, const struct stat *st, struct entry *e)
{
	char buf[SCAN_RECORD_MAX + 1];
	struct scan_record r;
	int flags = 0;
	long gen;

	(void)scan_record(fd, buf, &r);
	/*
	 * A path the kernel could only record in its bounded form (marker,
	 * then the last components) is no place to restore to: unknown.
	 */
	e->orig_path = r.path != NULL && strncmp(r.path,
	    TRASHBIN_PATH_TRUNCATED, strlen(TRASHBIN_PATH_TRUNCATED)) != 0 ?
	    xstrdup(r.path) : NULL;
	/* Moved in by hand: the rename into the trash set ctime. */
	e->deleted_ns = r.time_ns >= 0 ? r.time_ns :
	    (int64_t)st->st_ctim.tv_sec * NSEC_PER_SEC + st->st_ctim.tv_nsec;
	e->deleter_uid = r.uid;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		flags = 0;
	e->flags = (uint32_t)flags;
	e->generation = ioctl(fd, FS_IOC_GETVERSION, &gen) < 0 ? -1 :
	    (int64_t)(uint32_t)gen;
}

/*
 * The inode's birth time (statx btime), for the min-age policy; -ENODATA
 * when the filesystem does not record one.
 */
int
scan_birth_ns(int fd, int64_t *out)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_BTIME,
	    &stx) < 0)
		return -errno;
	if (!(stx.stx_mask & STATX_BTIME))
		return -ENODATA;
	*out = stx.stx_btime.tv_sec * NSEC_PER_SEC + stx.stx_btime.tv_nsec;
	return 0;
}

static int	scan_vanished(struct trashd *, struct tfs *, struct entry *);

/*
 * Is the inode open at @fd (@st) still the file of row @old, or a new one
 * that was given its inode number (an entry emptied while trashd was
 * down, a new one trashed)?  A reconcile asks it of every entry, so first
 * the free answer: an inode whose ctime is its deletion's (the kernel's
 * move into the trash is its last change; a hand-moved entry's time is
 * its ctime) is untouched since, the same file.  Else the kernel stamps
 * each deletion's time (ns) on the inode: a different one says new; a
 * file moved in by hand has none, and a different generation says new.
 */
#define SCAN_UNTOUCHED_NS	(100 * 1000 * 1000)

static bool
scan_same_file(int fd, const struct stat *st, const struct entry *old)
{
	char buf[SCAN_RECORD_MAX + 1];
	struct scan_record r;
	int64_t ctime_ns;
	long gen;

	ctime_ns = (int64_t)st->st_ctim.tv_sec * NSEC_PER_SEC +
	    st->st_ctim.tv_nsec;
	if (ctime_ns <= old->deleted_ns + SCAN_UNTOUCHED_NS)
		return true;
	if (scan_record(fd, buf, &r) == 0 && r.time_ns >= 0)
		return r.time_ns == old->deleted_ns;
	return old->generation < 0 ||
	    ioctl(fd, FS_IOC_GETVERSION, &gen) < 0 ||
	    (int64_t)(uint32_t)gen == old->generation;
}

/*
 * Index entry @name of @tu, or refresh its row.  *@id is its row (0 when
 * it is not an entry: not a regular file, gone, replaced meanwhile).
 */
int
scan_entry(struct trashd *d, struct tfs *fs, struct tuid *tu,
    const char *name, int64_t *id)
{
	struct entry e = { 0 }, old = { 0 };
	struct stat st;
	int64_t born = -1;
	int fd = -1, r;

	if (id != NULL)
		*id = 0;
	fd = trash_entry_open(fs, tu->fd, name, NULL, O_RDONLY);
	if (fd == -ENOENT || fd == -EINVAL || fd == -ESTALE || fd == -ELOOP ||
	    fd == -EXDEV) {
		log_debug("scan: %s/.trash/%u: skipping an entry: %s",
		    fs->path, tu->uid, strerror(-fd));
		r = 0;
		goto out;
	}
	if (fd < 0) {
		r = fd;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	r = index_find_live(d->db, fs->id, st.st_ino, &old);
	if (r < 0 && r != -ENOENT)
		goto out;
	if (r == 0 && old.state == ENTRY_TRASHED &&
	    !scan_same_file(fd, &st, &old)) {
		/* Its row's file left; this one is new. */
		if ((r = scan_vanished(d, fs, &old)) < 0)
			goto out;
		entry_clear(&old);
		r = -ENOENT;
	}
	if (r == 0) {
		/* Known inode: it may have been renamed, grown, chattr'd. */
		if (old.state == ENTRY_TRASHED && (strcmp(old.name, name) ||
		    old.trash_uid != tu->uid || old.size != st.st_size ||
		    old.alloc != (int64_t)st.st_blocks * 512 ||
		    old.owner_uid != st.st_uid)) {
			free(old.name);
			old.name = xstrdup(name);
			old.trash_uid = tu->uid;
			old.owner_uid = st.st_uid;
			old.size = st.st_size;
			old.alloc = (int64_t)st.st_blocks * 512;
			if (ioctl(fd, FS_IOC_GETFLAGS, &r) == 0)
				old.flags = (uint32_t)r;
			if ((r = index_refresh(d->db, &old)) < 0)
				goto out;
		}
		if (id != NULL)
			*id = old.id;
		r = 0;
		goto out;
	}
	e.fs_id = fs->id;
	e.trash_uid = tu->uid;
	e.owner_uid = st.st_uid;
	e.name = xstrdup(name);
	e.size = st.st_size;
	e.alloc = (int64_t)st.st_blocks * 512;
	e.state = ENTRY_TRASHED;
	e.ident.dev = st.st_dev;
	e.ident.ino = st.st_ino;
	scan_read_meta(fd, &st, &e);
	if ((r = index_insert(d->db, &e)) < 0)
		goto out;
	if (id != NULL)
		*id = e.id;
	audit_entry(d, e.deleter_uid, 0, "trashed", fs, &e, "ok");
	/* Its birth only for min-age: statx is not free. */
	if (d->conf->min_age <= 0 || scan_birth_ns(fd, &born) < 0)
		born = -1;
	if (d->entry_new != NULL)
		d->entry_new(d, e.id, born, e.deleted_ns);
out:
	if (fd >= 0)
		close(fd);
	entry_clear(&e);
	entry_clear(&old);
	return r;
}

static int
scan_vanished(struct trashd *d, struct tfs *fs, struct entry *e)
{
	int r;

	/* A restore is moving it: its report records who did. */
	if (d->entry_moving != NULL && d->entry_moving(d, e->id))
		return 0;
	if ((r = index_set_state(d->db, e->id, ENTRY_RESTORED)) < 0)
		return r;
	audit_entry(d, -1, 0, "restored", fs, e, "ok: left the trash");
	return 0;
}

/* After IN_DELETE or IN_MOVED_FROM of @name: did its inode leave? */
int
scan_gone(struct trashd *d, struct tfs *fs, struct tuid *tu, const char *name)
{
	struct entry e = { 0 };
	struct stat st;
	int r;

	r = index_find_name(d->db, fs->id, tu->uid, name, &e);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (fstatat(tu->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == e.ident.dev && st.st_ino == e.ident.ino)
		r = 0;	/* still here */
	else
		r = scan_vanished(d, fs, &e);
	entry_clear(&e);
	return r;
}

/*
 * Every name in @tu, marking each row seen.  A scan of its own (not one
 * nested in a caller's transaction) commits every SCAN_BATCH names: a
 * large trash is not indexed in one huge transaction, which SQLite would
 * spill to the WAL over and over.  What is committed is true either way.
 */
static int
scan_dir(struct trashd *d, struct tfs *fs, struct tuid *tu)
{
	struct dirent *de;
	DIR *dir = NULL;
	int64_t id;
	size_t n = 0;
	int fd, r = 0;

	if ((fd = openat(tu->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	if ((dir = fdopendir(fd)) == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((errno = 0, de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((r = scan_entry(d, fs, tu, de->d_name, &id)) < 0) {
			log_warnx("scan: %s/.trash/%u: %s", fs->path, tu->uid,
			    strerror(-r));
			r = 0;
			continue;	/* one bad entry stops nothing */
		}
		if (id != 0 && (r = index_seen(d->db, id)) < 0)
			break;
		if (++n % SCAN_BATCH == 0 && ((r = db_commit(d->db)) < 0 ||
		    (r = db_begin(d->db)) < 0))
			break;
	}
	if (de == NULL && errno != 0)
		r = -errno;
	closedir(dir);
	return r < 0 ? r : 0;
}

/*
 * Live rows of @fs (of @uid, -1: all) not seen by this scan have left.
 * Only their ids are held (the rows of a large trash are not): the
 * select is finished before any of them is updated.
 */
static int
scan_sweep(struct trashd *d, struct tfs *fs, int64_t uid)
{
	struct entry e;
	int64_t *ids;
	size_t n, i;
	int r;

	r = index_unseen(d->db, fs->id, uid, &ids, &n);
	for (i = 0; i < n && r == 0; i++) {
		if ((r = index_get(d->db, ids[i], &e)) < 0)
			break;
		r = scan_vanished(d, fs, &e);
		entry_clear(&e);
	}
	free(ids);
	return r;
}

int
scan_uid(struct trashd *d, struct tfs *fs, struct tuid *tu)
{
	int r;

	if ((r = db_begin(d->db)) < 0)
		return r;
	if ((r = index_seen_reset(d->db)) < 0 ||
	    (r = scan_dir(d, fs, tu)) < 0 ||
	    (r = scan_sweep(d, fs, tu->uid)) < 0) {
		db_rollback(d->db);
		return r;
	}
	return db_commit(d->db);
}

int
scan_fs(struct trashd *d, struct tfs *fs)
{
	struct tuid *tu;
	struct dirent *de;
	DIR *dir = NULL;
	uint32_t uid;
	int fd, r;

	if ((r = db_begin(d->db)) < 0)
		return r;
	if ((r = index_seen_reset(d->db)) < 0)
		goto fail;
	fd = openat(fs->trashfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	while ((errno = 0, de = readdir(dir)) != NULL) {
		if (trash_parse_uid(de->d_name, &uid) < 0)
			continue;	/* ".", "..", ".wipe", strays */
		if ((r = trash_uid(fs, uid, &tu)) < 0) {
			log_warnx("scan: %s/.trash/%s: %s", fs->path,
			    de->d_name, strerror(-r));
			continue;
		}
		/* Watched first, scanned second: nothing slips between. */
		if (d->inotify_fd >= 0 && tu->wd < 0 && d->uid_found != NULL &&
		    (r = d->uid_found(d, fs, tu)) < 0)
			log_warnx("scan: %s/.trash/%u: cannot watch: %s",
			    fs->path, uid, strerror(-r));
		if ((r = scan_dir(d, fs, tu)) < 0) {
			log_warnx("scan: %s/.trash/%u: %s", fs->path, uid,
			    strerror(-r));
			goto fail;
		}
	}
	if (de == NULL && errno != 0) {
		r = -errno;
		goto fail;
	}
	if ((r = scan_sweep(d, fs, -1)) < 0)
		goto fail;
	closedir(dir);
	return db_commit(d->db);
fail:
	if (dir != NULL)
		closedir(dir);
	db_rollback(d->db);
	return r;
}

int
scan_all(struct trashd *d)
{
	size_t i;
	int r, ret = 0;

	for (i = 0; i < d->nfs; i++) {
		if ((r = scan_fs(d, &d->fs[i])) < 0) {
			log_warnx("scan: %s: %s", d->fs[i].path, strerror(-r));
			ret = r;
		} else {
			log_debug("scan: %s: reconciled", d->fs[i].path);
		}
	}
	d->rescan = false;
	return ret;
}

/*
 * The rescan after an inotify overflow, in steps.  A scan_all() of a large
 * trash blocks the event loop for seconds (60,000 entries: 1.4 to 2.9 s)
 * while every other user's request waits.  Instead each step, one event
 * loop turn and one transaction, reads a bounded number of names of one
 * per-uid dir, resuming its readdir, and once every dir of a filesystem is
 * read, checks its live rows the same number at a time.  Events are
 * handled between steps, so the sweep cannot go by what the readdir saw
 * earlier (an entry that arrived meanwhile was never seen): a row has left
 * only if its name does not hold its inode when the row is checked.
 */
struct scan_resume {
	const char	*why;		/* for the service status */
	size_t		 fsi;		/* the filesystem, d->fs[fsi] */
	bool		 listed;	/* its uid dirs are in uids */
	uint32_t	*uids;
	size_t		 nuids, ui;	/* the dir being read: uids[ui] */
	DIR		*dir;		/* it, NULL: not opened yet */
	struct index_filter f;		/* every dir read: the sweep's cursor */
	bool		 one;		/* only uids[0] of d->fs[fsi] */
	bool		 again;		/* everything again once this is over */
};

/*
 * A uid dir whose rows a request found stale (a name that no longer holds
 * its inode), rescanned in steps after the rescan under way.  At most
 * SCAN_DIRQ_MAX wait; past that, everything is rescanned once more.
 */
struct scan_dirq {
	size_t		 fsi;
	uint32_t	 uid;
};
#define SCAN_DIRQ_MAX	256

void
scan_resume_stop(struct trashd *d)
{
	struct scan_resume *z = d->resume;

	if (z == NULL)
		return;
	if (z->dir != NULL)
		closedir(z->dir);
	free(z->uids);
	free(z);
	d->resume = NULL;
}

/*
 * Rescan everything, in steps.  A full rescan under way is not started
 * over (then a user who overflows the inotify queue again and again would
 * keep it from ever reaching the trashes after theirs): it goes on, and
 * another one follows it.  It covers the uid dirs queued for a rescan.
 */
void
scan_resume_start(struct trashd *d, const char *why)
{
	if (d->resume != NULL && !d->resume->one) {
		d->resume->again = true;
		return;
	}
	scan_resume_stop(d);
	d->rescan_ndirs = 0;
	d->resume = xcalloc(1, sizeof(*d->resume));
	d->resume->why = why;
	notify_status("rescanning the trash %s", why);
}

/* Whether a rescan of everything is under way. */
bool
scan_resume_full(const struct trashd *d)
{
	return d->resume != NULL && !d->resume->one;
}

/* A rescan of the uid dir @uid of d->fs[@fsi] alone. */
static void
scan_resume_one(struct trashd *d, size_t fsi, uint32_t uid)
{
	struct scan_resume *z = xcalloc(1, sizeof(*z));

	z->fsi = fsi;
	z->one = true;
	z->listed = true;
	z->uids = xcalloc(1, sizeof(*z->uids));
	z->uids[0] = uid;
	z->nuids = 1;
	d->resume = z;
}

/*
 * Rescan @tu's dir of @fs, in steps, after the rescan under way if any.
 * For a request that found a row stale: reading a whole dir at once, which
 * its user may fill with a million hard links, would hold the loop for
 * seconds while everyone else's requests wait.  A dir queued already is
 * not queued twice.
 */
void
scan_resume_uid(struct trashd *d, struct tfs *fs, struct tuid *tu)
{
	size_t fsi = (size_t)(fs - d->fs), i;

	if (d->resume == NULL) {
		scan_resume_one(d, fsi, tu->uid);
		return;
	}
	if (!d->resume->one && !d->resume->again && (d->resume->fsi < fsi ||
	    (d->resume->fsi == fsi && !d->resume->listed)))
		return;	/* the full rescan under way has yet to read it */
	for (i = 0; i < d->rescan_ndirs; i++)
		if (d->rescan_dirs[i].fsi == fsi &&
		    d->rescan_dirs[i].uid == tu->uid)
			return;
	if (d->rescan_ndirs == SCAN_DIRQ_MAX) {
		scan_resume_start(d, "(too many stale trash dirs)");
		return;
	}
	d->rescan_dirs = xreallocarray(d->rescan_dirs, d->rescan_ndirs + 1,
	    sizeof(*d->rescan_dirs));
	d->rescan_dirs[d->rescan_ndirs].fsi = fsi;
	d->rescan_dirs[d->rescan_ndirs++].uid = tu->uid;
}

/* The uid dirs of @fs, each opened and watched (watched first). */
static void
scan_resume_list(struct trashd *d, struct tfs *fs, struct scan_resume *z)
{
	struct dirent *de;
	struct tuid *tu;
	size_t cap = 0;
	uint32_t uid;
	DIR *dir;
	int fd, r;

	z->nuids = z->ui = 0;
	fd = openat(fs->trashfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
		log_warn("scan: %s/.trash", fs->path);
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		if (trash_parse_uid(de->d_name, &uid) < 0)
			continue;
		if ((r = trash_uid(fs, uid, &tu)) < 0) {
			log_warnx("scan: %s/.trash/%s: %s", fs->path,
			    de->d_name, strerror(-r));
			continue;
		}
		if (d->inotify_fd >= 0 && tu->wd < 0 && d->uid_found != NULL &&
		    (r = d->uid_found(d, fs, tu)) < 0)
			log_warnx("scan: %s/.trash/%u: cannot watch: %s",
			    fs->path, uid, strerror(-r));
		if (z->nuids == cap) {
			cap = cap ? cap * 2 : 16;
			z->uids = xreallocarray(z->uids, cap,
			    sizeof(*z->uids));
		}
		z->uids[z->nuids++] = uid;
	}
	closedir(dir);
}

/* Up to @budget names of the dir being read; how many were. */
static size_t
scan_resume_read(struct trashd *d, struct tfs *fs, struct scan_resume *z,
    size_t budget)
{
	struct dirent *de = NULL;
	struct tuid *tu;
	size_t n = 0;
	int fd, r;

	if ((r = trash_uid(fs, z->uids[z->ui], &tu)) < 0)
		goto next;	/* gone: the sweep finds its rows */
	if (z->dir == NULL) {
		fd = openat(tu->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || (z->dir = fdopendir(fd)) == NULL) {
			if (fd >= 0)
				close(fd);
			goto next;
		}
	}
	while (n < budget && (de = readdir(z->dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		n++;
		if ((r = scan_entry(d, fs, tu, de->d_name, NULL)) < 0)
			log_warnx("scan: %s/.trash/%u: %s", fs->path,
			    tu->uid, strerror(-r));
	}
	if (de != NULL)
		return n;
next:
	if (z->dir != NULL)
		closedir(z->dir);
	z->dir = NULL;
	z->ui++;
	return n + 1;
}

/* Has live row @e left: is its name without its inode? */
static int
scan_resume_check(struct trashd *d, struct tfs *fs, struct entry *e)
{
	struct tuid *tu;
	struct stat st;
	int r;

	if ((r = trash_uid(fs, e->trash_uid, &tu)) < 0)
		return r == -ENOENT ? scan_vanished(d, fs, e) : 0;
	if (fstatat(tu->fd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == e->ident.dev && st.st_ino == e->ident.ino)
		return 0;
	return scan_vanished(d, fs, e);
}

/* Up to @budget live rows of @fs checked; how many, 0: none left. */
static size_t
scan_resume_sweep(struct trashd *d, struct tfs *fs, struct scan_resume *z,
    size_t budget)
{
	struct entry_list l = { 0 };
	size_t i, n;

	z->f.fs_id = fs->id;
	z->f.uid = z->one ? (int64_t)z->uids[0] : -1;
	z->f.states = ENTRY_LIVE;
	z->f.limit = budget;
	if (index_list(d->db, &z->f, &l) < 0)
		return 0;
	for (i = 0; i < l.n; i++)
		(void)scan_resume_check(d, fs, &l.v[i]);
	if ((n = l.n) > 0) {
		z->f.after = true;
		z->f.after_ns = l.v[n - 1].deleted_ns;
		z->f.after_id = l.v[n - 1].id;
	}
	entry_list_free(&l);
	return n;
}

/*
 * One step of the rescan, about @budget names or rows: 1 if more are due,
 * 0 when it is over.
 */
int
scan_resume_step(struct trashd *d, size_t budget)
{
	struct scan_resume *z = d->resume;
	struct tfs *fs;
	size_t n;

	if (z == NULL)
		return 0;
	if (db_begin(d->db) < 0)
		return 1;	/* busy: the next step retries */
	while (budget > 0 && z->fsi < d->nfs) {
		fs = &d->fs[z->fsi];
		if (!z->listed) {
			scan_resume_list(d, fs, z);
			z->listed = true;
			budget -= budget > z->nuids ? z->nuids : budget;
		} else if (z->ui < z->nuids) {
			n = scan_resume_read(d, fs, z, budget);
			budget -= n < budget ? n : budget;
		} else if ((n = scan_resume_sweep(d, fs, z, budget)) > 0) {
			budget -= n;
		} else if (z->one) {
			log_debug("scan: %s/.trash/%u: reconciled", fs->path,
			    z->uids[0]);
			z->fsi = d->nfs;
		} else {
			log_debug("scan: %s: reconciled", fs->path);
			free(z->uids);
			z->uids = NULL;
			z->listed = false;
			z->nuids = z->ui = 0;
			memset(&z->f, 0, sizeof(z->f));
			z->fsi = (size_t)(fs - d->fs) + 1;
		}
	}
	(void)db_commit(d->db);
	if (z->fsi < d->nfs)
		return 1;
	/* Over: everything again, or the next queued dir, or done. */
	if (z->again) {
		const char *why = z->why;

		scan_resume_stop(d);
		scan_resume_start(d, why);
		return 1;
	}
	scan_resume_stop(d);
	while (d->rescan_ndirs > 0) {
		struct scan_dirq q = d->rescan_dirs[0];

		memmove(d->rescan_dirs, d->rescan_dirs + 1,
		    --d->rescan_ndirs * sizeof(*d->rescan_dirs));
		if (q.fsi < d->nfs) {
			scan_resume_one(d, q.fsi, q.uid);
			return 1;
		}
	}
	notify_steady(d);
	return 0;
}
