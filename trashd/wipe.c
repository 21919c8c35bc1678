/* SPDX-License-Identifier: ISC */
/*
 * Secure wipe of one file: the methods, in the filesystem layer.  The
 * queue that stages entries and runs these in a worker is wipeq.c.
 *
 * If the inode has other links its data lives on elsewhere: it is
 * unlinked only, and that is recorded.  Otherwise its extents are
 * overwritten in place (by default one pass of random data, NIST SP 800-88
 * "Clear" on a disk that writes in place), fdatasync after each pass,
 * optionally a zero pass and a read-back verify; FIEMAP before and after
 * must agree or the wipe is aborted; then unlink and optionally FITRIM.
 * What could not be promised (shared, inline, encoded extents, data=journal,
 * flash, ...) is recorded with each wipe: never claim more than was done.
 *
 * Only data is overwritten, never a hole, and never more than the file
 * has allocated (wipe_ranges()); never while another process has the
 * file open (wipe_lease()): such a wipe is deferred and retried.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"

/* One write or read: large enough to stream, small enough to rate-limit. */
#define WIPE_CHUNK		(1024 * 1024)
/* Extents asked for per FIEMAP call. */
#define WIPE_FIEMAP_BATCH	256
/* Written bytes whose writeback is started at once (wipe_behind()). */
#define WIPE_BEHIND		(16 * 1024 * 1024)
/* Chunks of random data made ahead of the writer (wipe_gen). */
#define WIPE_NBUF		4
#define BTRFS_MAGIC		0x9123683EU
#define BCACHEFS_MAGIC		0xca451a4eU
#define ZFS_MAGIC		0x2fc12fc1U

struct wipe_extent {
	uint64_t	logical;
	uint64_t	physical;
	uint64_t	length;
	uint32_t	flags;
};

/* xoshiro256**, seeded from getrandom() per pass: fast, not predictable. */
struct wipe_rng {
	uint64_t	s[4];
};

static uint64_t
wipe_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
wipe_rng_next(struct wipe_rng *g)
{
	uint64_t r = wipe_rotl(g->s[1] * 5, 7) * 9, t = g->s[1] << 17;

	g->s[2] ^= g->s[0];
	g->s[3] ^= g->s[1];
	g->s[1] ^= g->s[2];
	g->s[0] ^= g->s[3];
	g->s[2] ^= t;
	g->s[3] = wipe_rotl(g->s[3], 45);
	return r;
}

static void
wipe_fill(struct wipe_rng *g, unsigned char *buf, size_t len)
{
	struct wipe_rng l;
	uint64_t v;
	size_t i;

	if (g == NULL) {
		memset(buf, 0, len);
		return;
	}
	/*
	 * A local copy: stores to @buf may alias *@g, which would make the
	 * state go through memory for every word (a third of the speed).
	 */
	l = *g;
	for (i = 0; i + 8 <= len; i += 8) {
		v = wipe_rng_next(&l);
		memcpy(buf + i, &v, 8);
	}
	if (i < len) {
		v = wipe_rng_next(&l);
		memcpy(buf + i, &v, len - i);
	}
	*g = l;
}

void
wipe_opts_from_config(const struct config *c, struct wipe_opts *o)
{
	o->passes = c->wipe_passes ? c->wipe_passes : 1;
	o->zero = c->wipe_zero;
	o->verify = c->wipe_verify;
	o->discard = c->wipe_discard;
	o->rate = c->wipe_rate;
}

void
wipe_method_str(const struct wipe_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "random x%u%s%s%s", o->passes,
	    o->zero ? " +zero" : "", o->verify ? " +verify" : "",
	    o->discard ? " +discard" : "");
}

void
wipe_promises_str(uint32_t p, char *buf, size_t len)
{
	static const struct {
		uint32_t	 bit;
		const char	*name;
	} names[] = {
		{ WIPE_LOW_SHARED, "shared-extents" },
		{ WIPE_LOW_INLINE, "inline-data" },
		{ WIPE_LOW_ENCODED, "encoded-extents" },
		{ WIPE_LOW_ENCRYPTED, "encrypted" },
		{ WIPE_LOW_UNKNOWN, "unknown-extents" },
		{ WIPE_LOW_JOURNAL, "data=journal" },
		{ WIPE_LOW_NONROT, "non-rotational" },
		{ WIPE_LOW_COW, "copy-on-write-fs" },
		{ WIPE_LOW_PREALLOC, "prealloc-past-eof" },
		{ WIPE_LOW_NOFIEMAP, "no-fiemap" },
		{ WIPE_LOW_UNLEASED, "openers-unchecked" },
	};
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(p & names[i].bit) || o >= len)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "",
		    names[i].name);
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "none");
}

/* Is "data=journal" among the super options of the mount of @dev? */
static bool
wipe_data_journal(dev_t dev)
{
	char want[32], *line = NULL, *p;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(want, sizeof(want), " %u:%u ", major(dev), minor(dev));
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return false;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, want) == NULL ||
		    (p = strstr(line, " - ")) == NULL)
			continue;
		if (strstr(p, "data=journal") != NULL)
			found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* 1 rotational, 0 not, -1 unknown (no block device, or no queue). */
static int
wipe_rotational(dev_t dev)
{
	char path[128];
	int c = -1;
	FILE *f;

	if (major(dev) == 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/rotational",
	    major(dev), minor(dev));
	if ((f = fopen(path, "re")) == NULL) {
		/* A partition: its disk holds the queue. */
		snprintf(path, sizeof(path),
		    "/sys/dev/block/%u:%u/../queue/rotational", major(dev),
		    minor(dev));
		if ((f = fopen(path, "re")) == NULL)
			return -1;
	}
	c = fgetc(f);
	fclose(f);
	return c == '1' ? 1 : c == '0' ? 0 : -1;
}

uint32_t
wipe_fs_promises(int fd)
{
	struct statfs sf;
	struct stat st;
	uint32_t p = 0;

	if (fstatfs(fd, &sf) == 0 && ((uint32_t)sf.f_type == BTRFS_MAGIC ||
	    (uint32_t)sf.f_type == BCACHEFS_MAGIC ||
	    (uint32_t)sf.f_type == ZFS_MAGIC))
		p |= WIPE_LOW_COW;
	if (fstat(fd, &st) == 0) {
		if (wipe_data_journal(st.st_dev))
			p |= WIPE_LOW_JOURNAL;
		if (wipe_rotational(st.st_dev) == 0)
			p |= WIPE_LOW_NONROT;
	}
	return p;
}

/* FIEMAP extents kept per file: a variable so that the tests can lower it. */
size_t wipe_fiemap_max = WIPE_EXTENTS_MAX;

/*
 * Every extent of @fd, adjacent ones merged; -EOPNOTSUPP without FIEMAP,
 * -EFBIG with more than wipe_fiemap_max.
 */
static int
wipe_fiemap(int fd, struct wipe_extent **out, size_t *n)
{
	struct fiemap *fm;
	struct wipe_extent *v = NULL, *last;
	uint64_t start = 0;
	size_t cnt = 0, cap = 0;
	uint32_t i;
	int r = 0, done = 0;

	fm = xcalloc(1, sizeof(*fm) + WIPE_FIEMAP_BATCH *
	    sizeof(struct fiemap_extent));
	while (!done) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = WIPE_FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			r = errno == ENOTTY || errno == EOPNOTSUPP ?
			    -EOPNOTSUPP : -errno;
			goto out;
		}
		if (fm->fm_mapped_extents == 0)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *fe = &fm->fm_extents[i];

			if (fe->fe_flags & FIEMAP_EXTENT_LAST)
				done = 1;
			start = fe->fe_logical + fe->fe_length;
			last = cnt ? &v[cnt - 1] : NULL;
			if (last != NULL && last->logical + last->length ==
			    fe->fe_logical && last->physical + last->length ==
			    fe->fe_physical) {
				last->length += fe->fe_length;
				last->flags |= fe->fe_flags;
				continue;
			}
			if (cnt == wipe_fiemap_max) {
				r = -EFBIG;
				goto out;
			}
			if (cnt == cap) {
				cap = cap ? cap * 2 : 16;
				v = xreallocarray(v, cap, sizeof(*v));
			}
			v[cnt].logical = fe->fe_logical;
			v[cnt].physical = fe->fe_physical;
			v[cnt].length = fe->fe_length;
			v[cnt].flags = fe->fe_flags;
			cnt++;
		}
	}
out:
	free(fm);
	if (r < 0) {
		free(v);
		return r;
	}
	*out = v;
	*n = cnt;
	return 0;
}

static uint32_t
wipe_extent_promises(const struct wipe_extent *v, size_t n)
{
	uint32_t p = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].flags & FIEMAP_EXTENT_SHARED)
			p |= WIPE_LOW_SHARED;
		if (v[i].flags & (FIEMAP_EXTENT_DATA_INLINE |
		    FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_NOT_ALIGNED))
			p |= WIPE_LOW_INLINE;
		if (v[i].flags & FIEMAP_EXTENT_ENCODED)
			p |= WIPE_LOW_ENCODED;
		if (v[i].flags & FIEMAP_EXTENT_DATA_ENCRYPTED)
			p |= WIPE_LOW_ENCRYPTED;
		if (v[i].flags & (FIEMAP_EXTENT_UNKNOWN |
		    FIEMAP_EXTENT_DELALLOC))
			p |= WIPE_LOW_UNKNOWN;
	}
	return p;
}

static void
wipe_throttle(const struct timespec *t0, uint64_t bytes, uint64_t rate)
{
	struct timespec now, ts;
	int64_t due, spent;

	if (rate == 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	due = (int64_t)((long double)bytes / rate * NSEC_PER_SEC);
	spent = (now.tv_sec - t0->tv_sec) * NSEC_PER_SEC +
	    (now.tv_nsec - t0->tv_nsec);
	if (due <= spent)
		return;
	ts.tv_sec = (due - spent) / NSEC_PER_SEC;
	ts.tv_nsec = (due - spent) % NSEC_PER_SEC;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
wipe_pwrite(int fd, const unsigned char *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len > 0) {
		n = pwrite(fd, buf, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* A byte range to overwrite: an extent clipped to the end of the file. */
struct wipe_range {
	uint64_t	off;
	uint64_t	end;
};

/*
 * A random pass's data is made by a second thread while the first one
 * writes it: making it costs about as much as writing it to a fast disk,
 * and done in turn the two would halve the rate.  The thread makes the
 * very stream that wipe_fill() makes chunk by chunk, so wipe_verify() can
 * make it again.
 */
struct wipe_gen {
	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;
	unsigned char		**buf;		/* WIPE_NBUF chunks */
	uint64_t		 made;		/* chunks made */
	uint64_t		 used;		/* chunks written */
	bool			 stop;
	struct wipe_rng		*g;
	const struct wipe_range	*rv;
	size_t			 nr;
};

static void *
wipe_gen_main(void *arg)
{
	struct wipe_gen *w = arg;
	uint64_t off, len;
	size_t i, k;

	for (i = 0; i < w->nr; i++) {
		for (off = w->rv[i].off; off < w->rv[i].end; off += len) {
			len = w->rv[i].end - off < WIPE_CHUNK ?
			    w->rv[i].end - off : WIPE_CHUNK;
			pthread_mutex_lock(&w->lock);
			while (w->made - w->used == WIPE_NBUF && !w->stop)
				pthread_cond_wait(&w->cond, &w->lock);
			k = w->made % WIPE_NBUF;
			if (w->stop) {
				pthread_mutex_unlock(&w->lock);
				return NULL;
			}
			pthread_mutex_unlock(&w->lock);
			wipe_fill(w->g, w->buf[k], len);
			pthread_mutex_lock(&w->lock);
			w->made++;
			pthread_cond_broadcast(&w->cond);
			pthread_mutex_unlock(&w->lock);
		}
	}
	return NULL;
}

/*
 * Write-behind: the disk writes a pass while it is being made, instead of
 * all of it at the fdatasync() at its end (dd conv=fdatasync's way, which
 * adds the two times up).  Each WIPE_BEHIND written, their writeback is
 * started, and the one of the window before is waited for: the pass's
 * dirty pages stay bounded.  Advisory: a failure here shows at fdatasync.
 */
struct wipe_wb {
	uint64_t	start;		/* not yet handed to writeback */
	uint64_t	prev;		/* the window handed last */
	uint64_t	prev_len;
};

static void
wipe_behind(int fd, struct wipe_wb *wb, uint64_t end)
{
	if (end < wb->start + WIPE_BEHIND)
		return;
	(void)sync_file_range(fd, (off_t)wb->start, (off_t)(end - wb->start),
	    SYNC_FILE_RANGE_WRITE);
	if (wb->prev_len > 0)
		(void)sync_file_range(fd, (off_t)wb->prev, (off_t)wb->prev_len,
		    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
		    SYNC_FILE_RANGE_WAIT_AFTER);
	wb->prev = wb->start;
	wb->prev_len = end - wb->start;
	wb->start = end;
}

/*
 * One pass over the ranges @rv: the stream of @g (made ahead by a
 * wipe_gen thread when one can be had), or zeros (@g NULL).
 */
static int
wipe_pass(int fd, const struct wipe_range *rv, size_t nr,
    struct wipe_rng *g, unsigned char **buf, const struct wipe_opts *o,
    const struct timespec *t0, uint64_t *total, struct wipe_report *rep)
{
	struct wipe_wb wb = { 0, 0, 0 };
	struct wipe_gen w;
	pthread_t tid;
	unsigned char *p = buf[0];
	uint64_t off, len;
	bool threaded = false;
	size_t i, k;
	int r = 0;

	if (g == NULL) {
		memset(buf[0], 0, WIPE_CHUNK);
	} else {
		memset(&w, 0, sizeof(w));
		w.buf = buf;
		w.g = g;
		w.rv = rv;
		w.nr = nr;
		if (pthread_mutex_init(&w.lock, NULL) == 0) {
			if (pthread_cond_init(&w.cond, NULL) == 0) {
				threaded = pthread_create(&tid, NULL,
				    wipe_gen_main, &w) == 0;
				if (!threaded)
					pthread_cond_destroy(&w.cond);
			}
			if (!threaded)
				pthread_mutex_destroy(&w.lock);
		}
	}
	for (i = 0; i < nr; i++) {
		for (off = rv[i].off; off < rv[i].end; off += len) {
			len = rv[i].end - off < WIPE_CHUNK ? rv[i].end - off :
			    WIPE_CHUNK;
			if (threaded) {
				pthread_mutex_lock(&w.lock);
				while (w.made == w.used)
					pthread_cond_wait(&w.cond, &w.lock);
				k = w.used % WIPE_NBUF;
				pthread_mutex_unlock(&w.lock);
				p = buf[k];
			} else if (g != NULL) {
				wipe_fill(g, buf[0], len);
			}
			/* Opened by someone since we looked: stop at once. */
			if (rep->leased && fcntl(fd, F_GETLEASE) != F_WRLCK) {
				r = -EBUSY;
				goto out;
			}
			if ((r = wipe_pwrite(fd, p, len, off)) < 0)
				goto out;
			wipe_behind(fd, &wb, off + len);
			if (threaded) {
				pthread_mutex_lock(&w.lock);
				w.used++;
				pthread_cond_broadcast(&w.cond);
				pthread_mutex_unlock(&w.lock);
			}
			*total += len;
			rep->bytes += len;
			wipe_throttle(t0, *total, o->rate);
		}
	}
out:
	if (threaded) {
		pthread_mutex_lock(&w.lock);
		w.stop = true;
		pthread_cond_broadcast(&w.cond);
		pthread_mutex_unlock(&w.lock);
		pthread_join(tid, NULL);
		pthread_cond_destroy(&w.cond);
		pthread_mutex_destroy(&w.lock);
	}
	return r;
}

/*
 * Read back what the last pass wrote (@seed: its stream, NULL: zeros),
 * past the page cache: O_DIRECT, or dropped pages where it is refused.
 */
static int
wipe_verify(int fd, const struct wipe_range *v, size_t n,
    const struct wipe_rng *seed, unsigned char *want, unsigned char *got)
{
	struct wipe_rng g, *gp = NULL;
	uint64_t off, len;
	int fl, r = 0;
	ssize_t k;
	size_t i;

	if (seed != NULL) {
		g = *seed;
		gp = &g;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) < 0)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (i = 0; i < n && r == 0; i++) {
		for (off = v[i].off; off < v[i].end; off += len) {
			len = v[i].end - off < WIPE_CHUNK ? v[i].end - off :
			    WIPE_CHUNK;
			wipe_fill(gp, want, len);
			k = pread(fd, got, len, (off_t)off);
			if (k < 0) {
				r = -errno;
				break;
			}
			if (memcmp(want, got, (size_t)k) != 0) {
				r = -EIO;
				break;
			}
		}
	}
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl);
	return r;
}

static bool
wipe_same_extents(const struct wipe_extent *a, size_t na,
    const struct wipe_extent *b, size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (a[i].logical != b[i].logical ||
		    a[i].physical != b[i].physical ||
		    a[i].length != b[i].length)
			return false;
	return true;
}

/*
 * The data ranges of @fd by SEEK_DATA/SEEK_HOLE, which every filesystem
 * answers (one that does not track holes calls the whole file data).
 * Holes start on a block (@blksize), but the end of the file need not: a
 * range ending there is rounded up to the rest of its block, no further
 * than @limit.
 */
static int
wipe_seek_ranges(int fd, uint64_t blksize, uint64_t limit,
    struct wipe_range **out, size_t *n)
{
	struct wipe_range *v = NULL;
	size_t cnt = 0, cap = 0;
	off_t data, hole = 0;
	int r = 0;

	while ((uint64_t)hole < limit) {
		if ((data = lseek(fd, hole, SEEK_DATA)) < 0) {
			if (errno != ENXIO)	/* ENXIO: no data after @hole */
				r = -errno;
			break;
		}
		if ((hole = lseek(fd, data, SEEK_HOLE)) < 0) {
			r = -errno;
			break;
		}
		if ((uint64_t)data >= limit)
			break;
		if (cnt == WIPE_EXTENTS_MAX) {
			r = -EFBIG;
			break;
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[cnt].off = (uint64_t)data;
		v[cnt].end = ((uint64_t)hole + blksize - 1) / blksize * blksize;
		if (v[cnt].end > limit)
			v[cnt].end = limit;
		cnt++;
	}
	if (r < 0) {
		free(v);
		return r;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/*
 * What to overwrite: the file's data, never a hole, since writing one
 * allocates the blocks that it does not have (a 10 GiB sparse file would
 * write 10 GiB).  Its FIEMAP extents if it can be mapped (kept in
 * *@before, to be compared after), else its SEEK_DATA ranges.  Blocks
 * preallocated past @limit are not written either (that would grow it)
 * and are recorded.
 */
static int
wipe_ranges(int fd, uint64_t blksize, uint64_t limit,
    struct wipe_extent **before,
    size_t *nbefore, struct wipe_range **out, size_t *nout,
    struct wipe_report *rep)
{
	struct wipe_range *rv = NULL;
	size_t nr = 0, i;
	int r;

	*before = NULL;
	*nbefore = 0;
	r = wipe_fiemap(fd, before, nbefore);
	if (r == -EOPNOTSUPP || r == -EFBIG) {
		rep->promises |= WIPE_LOW_NOFIEMAP;
		return wipe_seek_ranges(fd, blksize, limit, out, nout);
	}
	if (r < 0)
		return r;
	rep->promises |= wipe_extent_promises(*before, *nbefore);
	if (*nbefore > 0)
		rv = xcalloc(*nbefore, sizeof(*rv));
	for (i = 0; i < *nbefore; i++) {
		if ((*before)[i].logical >= limit) {
			rep->promises |= WIPE_LOW_PREALLOC;
			continue;
		}
		rv[nr].off = (*before)[i].logical;
		rv[nr].end = (*before)[i].logical + (*before)[i].length;
		if (rv[nr].end > limit) {
			rep->promises |= WIPE_LOW_PREALLOC;
			rv[nr].end = limit;
		}
		nr++;
	}
	*out = rv;
	*nout = nr;
	return 0;
}

/* What the inode's flags say a wipe cannot promise. */
static void
wipe_inode_promises(int fd, struct wipe_report *rep)
{
	int fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) < 0)
		return;
	if (fl & FS_ENCRYPT_FL)
		rep->promises |= WIPE_LOW_ENCRYPTED;
	if (fl & FS_INLINE_DATA_FL)
		rep->promises |= WIPE_LOW_INLINE;
	if (fl & FS_COMPR_FL)
		rep->promises |= WIPE_LOW_ENCODED;
}

/*
 * The data ranges of @fd (*@rv, and its FIEMAP extents in *@before where
 * they could be listed), refused with -ENOSPC where they add up to more
 * than the file has allocated.
 */
static int
wipe_map(int fd, const struct stat *st, struct wipe_extent **before,
    size_t *nbefore, struct wipe_range **rv, size_t *nr,
    struct wipe_report *rep)
{
	uint64_t blksize = (uint64_t)st->st_blksize, limit, slack;
	size_t i;
	int r;

	limit = ((uint64_t)st->st_size + blksize - 1) / blksize * blksize;
	if ((r = wipe_ranges(fd, blksize, limit, before, nbefore, rv, nr,
	    rep)) < 0)
		return r;
	rep->alloc = (uint64_t)st->st_blocks * 512;
	for (i = 0; i < *nr; i++)
		rep->mapped += (*rv)[i].end - (*rv)[i].off;
	slack = blksize > 4096 ? blksize : 4096;
	if (rep->mapped > rep->alloc + slack)
		return -ENOSPC;
	return 0;
}

/*
 * The random passes, then the zero pass, each synced to the disk; *@seed
 * is the last random pass's, for the verify.
 */
static int
wipe_passes(int fd, const struct wipe_range *rv, size_t nr,
    const struct wipe_opts *o, unsigned char **buf,
    const struct timespec *t0, struct wipe_rng *seed,
    struct wipe_report *rep)
{
	struct wipe_rng g, *gp;
	uint64_t total = 0;
	unsigned pass, npass = o->passes + (o->zero ? 1 : 0);
	int r;

	for (pass = 0; pass < npass; pass++) {
		gp = NULL;
		if (pass < o->passes) {
			if (getrandom(g.s, sizeof(g.s), 0) != sizeof(g.s))
				return -EIO;
			*seed = g;
			gp = &g;
		}
		if ((r = wipe_pass(fd, rv, nr, gp, buf, o, t0, &total,
		    rep)) < 0)
			return r;
		if (fdatasync(fd) < 0)
			return -errno;
		/* The next pass or the verify must not be served from the
		 * cache; after the last, the unlink frees the pages. */
		if (pass + 1 < npass || o->verify)
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		rep->passes++;
	}
	return 0;
}

/*
 * Overwrite every allocated block of @fd in place.  -ECANCELED: the
 * extents moved under us, the data was not overwritten where it lay.
 * -ENOSPC: its data ranges add up to more than it has allocated
 * (st_blocks, and a block of slack for the rounding), nothing written:
 * overwriting them would allocate, so a wipe never writes more than the
 * file holds.  -EBUSY: the file was opened during the overwrite (only
 * seen with rep->leased, see wipe_lease()).
 */
int
wipe_overwrite(int fd, const struct wipe_opts *o, struct wipe_report *rep)
{
	struct wipe_extent *before = NULL, *after = NULL;
	struct wipe_range *rv = NULL;
	struct wipe_rng seed;
	unsigned char *buf[WIPE_NBUF] = { NULL };
	struct timespec t0, t1;
	struct stat st;
	size_t nbefore = 0, nafter = 0, nr = 0, i;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	wipe_inode_promises(fd, rep);
	if ((r = wipe_map(fd, &st, &before, &nbefore, &rv, &nr, rep)) < 0)
		goto out;
	for (i = 0; i < WIPE_NBUF; i++)
		if (posix_memalign((void **)&buf[i], 4096, WIPE_CHUNK) != 0)
			fatalx("wipe: out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((r = wipe_passes(fd, rv, nr, o, buf, &t0, &seed, rep)) < 0)
		goto out;
	if (o->verify) {
		r = wipe_verify(fd, rv, nr, o->zero ? NULL : &seed, buf[0],
		    buf[1]);
		if (r < 0)
			goto out;
		rep->verified = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep->ns = (uint64_t)((t1.tv_sec - t0.tv_sec) * NSEC_PER_SEC +
	    (t1.tv_nsec - t0.tv_nsec));
	if (before != NULL) {
		if ((r = wipe_fiemap(fd, &after, &nafter)) < 0)
			goto out;
		if (!wipe_same_extents(before, nbefore, after, nafter)) {
			rep->extents_changed = true;
			r = -ECANCELED;
			goto out;
		}
	}
	r = 0;
out:
	free(rv);
	for (i = 0; i < WIPE_NBUF; i++)
		free(buf[i]);
	free(before);
	free(after);
	return r;
}

/* Discard the freed extents, so a thin or flash device drops them too. */
static bool
wipe_trim(int rootfd, const struct wipe_extent *v, size_t n)
{
	struct fstrim_range fr;
	size_t i;
	bool ok = n > 0;

	(void)syncfs(rootfd);	/* frees are final at the journal commit */
	for (i = 0; i < n; i++) {
		memset(&fr, 0, sizeof(fr));
		fr.start = v[i].physical;
		fr.len = v[i].length;
		if (ioctl(rootfd, FITRIM, &fr) < 0)
			ok = false;
	}
	return ok;
}

/*
 * Only an inode that nobody else has open is overwritten: a process still
 * writing it (create, unlink, write on: the temp-file pattern) would have
 * its data changed under it.  The kernel grants a write lease only while
 * the inode has no other open file description, readers, writers, mmaps
 * and executions alike, and breaks it when anyone opens the inode while
 * we hold it; wipe_pass() sees that between two chunks and stops.  The
 * break also sends SIGIO, which wipe_file() ignores: F_GETLEASE tells.
 * Taking the lease on a file of another user needs CAP_LEASE.
 * -EBUSY: open elsewhere, try again later.  A filesystem without leases
 * (NFS, FUSE, ...) is wiped unchecked, and that is recorded.
 */
static int
wipe_lease(int fd, struct wipe_report *rep)
{
	if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
		rep->leased = true;
		return 0;
	}
	if (errno == EAGAIN)
		return -EBUSY;
	if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP) {
		rep->promises |= WIPE_LOW_UNLEASED;
		return 0;
	}
	return -errno;
}

/*
 * Wipe @name of @dirfd (a .wipe dir) and unlink it.  With @want, only if
 * it is that inode (-ESTALE otherwise, nothing done).  File I/O only:
 * safe in the worker.  On failure the file stays queued in .wipe; -EBUSY:
 * it is open elsewhere (wipe_lease()), to be tried again later.
 */
int
wipe_file(int dirfd, const char *name, const struct ident *want,
    uint32_t fs_promises, int rootfd, const struct wipe_opts *o,
    struct wipe_report *rep)
{
	struct sigaction ign, sigio;
	struct wipe_extent *ext = NULL;
	struct stat st;
	size_t next = 0;
	int fd, r;

	memset(rep, 0, sizeof(*rep));
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	(void)sigaction(SIGIO, &ign, &sigio);
	fd = -1;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		/* Not a file (swapped in by a race): drop the name only. */
		r = unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
		goto out;
	}
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (want != NULL && (st.st_dev != want->dev ||
	    st.st_ino != want->ino)) {
		r = -ESTALE;
		goto out;
	}
	rep->nlink = st.st_nlink;
	if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
		/* Its data lives on through its other links. */
		r = unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
		goto out;
	}
	rep->promises = fs_promises;
	if ((r = wipe_lease(fd, rep)) < 0)
		goto out;
	if (o->discard && wipe_fiemap(fd, &ext, &next) < 0)
		next = 0;
	if ((r = wipe_overwrite(fd, o, rep)) < 0 && r != -ECANCELED)
		goto out;
	if (rep->leased && fcntl(fd, F_GETLEASE) != F_WRLCK) {
		/* Opened during the last fdatasync or the verify. */
		r = -EBUSY;
		goto out;
	}
	/* Aborted or done, the name goes: an aborted wipe is reported. */
	if (unlinkat(dirfd, name, 0) < 0) {
		r = -errno;
		goto out;
	}
	if (o->discard && r == 0)
		rep->discarded = wipe_trim(rootfd, ext, next);
out:
	if (fd >= 0)
		close(fd);	/* and the lease with it */
	(void)sigaction(SIGIO, &sigio, NULL);
	free(ext);
	rep->result = r;
	return r;
}
