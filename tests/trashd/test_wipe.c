/* SPDX-License-Identifier: ISC */
/*
 * wipe.c: no byte of a known marker is left in a file's former blocks.
 * The blocks are read back from the block device under the scratch dir
 * (FIEMAP physical offsets, st_dev -> /sys/dev/block/MAJ:MIN/uevent ->
 * /dev/NAME, O_DIRECT, read-only): a control read first proves the reader
 * sees the marker, so a pass can only mean the wipe reached the disk.
 *
 * Where the device may not be opened (some sandboxes refuse even a
 * read-only open of a mounted disk), the same blocks are read through the
 * file with O_DIRECT instead, and the test's own FIEMAP proves they are
 * the same blocks before and after; the report says which was used.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#define MIB		(1024 * 1024)
#define MARKER_LEN	32
#define MAX_EXT		64

struct state {
	struct tl	t;
	int		devfd;
	char		marker[MARKER_LEN + 1];
};

struct ext {
	uint64_t	logical;
	uint64_t	physical;
	uint64_t	length;
};

static int
dev_open(dev_t dev)
{
	char p[128], line[256], name[128] = "";
	FILE *f;

	TL_SNPRINTF(p, sizeof(p), "/sys/dev/block/%u:%u/uevent", major(dev),
	    minor(dev));
	if ((f = fopen(p, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "DEVNAME=", 8) == 0)
			sscanf(line + 8, "%127s", name);
	fclose(f);
	if (name[0] == '\0')
		return -1;
	TL_SNPRINTF(p, sizeof(p), "/dev/%s", name);
	return open(p, O_RDONLY | O_DIRECT | O_CLOEXEC);
}

static int
setup(void **state)
{
	struct state *s = xcalloc(1, sizeof(*s));
	struct stat st;

	tl_setup(&s->t);
	assert_int_equal(stat(s->t.fs, &st), 0);
	s->devfd = dev_open(st.st_dev);
	if (s->devfd < 0)
		fprintf(stderr, "NOTE: block device of %s not readable (%s): "
		    "blocks are read back through the file with O_DIRECT\n",
		    s->t.fs, strerror(errno));
	else
		fprintf(stderr, "NOTE: blocks are read back from the block "
		    "device\n");
	TL_SNPRINTF(s->marker, sizeof(s->marker), "<TRASHD-MARKER-%08x-%06d>",
	    (unsigned)getpid() * 2654435761U, getpid() % 1000000);
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct state *s = *state;

	if (s->devfd >= 0)
		close(s->devfd);
	tl_teardown(&s->t);
	free(s);
	return 0;
}

/* The test's own FIEMAP reader, independent of wipe.c's. */
static size_t
fiemap(int fd, struct ext *out)
{
	struct fiemap *fm = xcalloc(1, sizeof(*fm) +
	    MAX_EXT * sizeof(struct fiemap_extent));
	size_t i, n;

	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXT;
	assert_int_equal(ioctl(fd, FS_IOC_FIEMAP, fm), 0);
	n = fm->fm_mapped_extents;
	assert_true(n < MAX_EXT);
	for (i = 0; i < n; i++) {
		out[i].logical = fm->fm_extents[i].fe_logical;
		out[i].physical = fm->fm_extents[i].fe_physical;
		out[i].length = fm->fm_extents[i].fe_length;
	}
	free(fm);
	return n;
}

/*
 * Count the marker in the disk's copy of extents @v of file @fd;
 * *@zero: all zero bytes.  From the device, or through the file
 * (O_DIRECT, logical offsets) if the device cannot be read.
 */
static size_t
scan_device(struct state *s, int fd, const struct ext *v, size_t n,
    bool *zero)
{
	unsigned char *buf;
	size_t i, count = 0, len, want, k;
	uint64_t off;
	ssize_t got;
	int rfd = s->devfd, ffd = -1;
	char p[64];

	if (rfd < 0) {
		assert_true(fd >= 0);
		TL_SNPRINTF(p, sizeof(p), "/proc/self/fd/%d", fd);
		ffd = open(p, O_RDONLY | O_DIRECT | O_CLOEXEC);
		assert_true(ffd >= 0);
		rfd = ffd;
	}
	assert_int_equal(posix_memalign((void **)&buf, 4096, MIB), 0);
	*zero = true;
	for (i = 0; i < n; i++) {
		for (off = 0; off < v[i].length; off += len) {
			want = v[i].length - off < MIB ? v[i].length - off :
			    MIB;
			got = pread(rfd, buf, want, (off_t)((ffd >= 0 ?
			    v[i].logical : v[i].physical) + off));
			/* Through the file, the last block may be short. */
			assert_true(got == (ssize_t)want || (ffd >= 0 &&
			    got > 0 && i == n - 1));
			len = (size_t)got;
			for (k = 0; k + MARKER_LEN <= len; k++)
				if (buf[k] == '<' && memcmp(buf + k,
				    s->marker, MARKER_LEN) == 0)
					count++;
			for (k = 0; k < len && *zero; k++)
				if (buf[k] != 0)
					*zero = false;
			if (len < want)
				break;	/* end of file */
		}
	}
	free(buf);
	if (ffd >= 0)
		close(ffd);
	return count;
}

/* The file's extents did not move: its blocks are the ones read. */
static void
same_blocks(int fd, const struct ext *v, size_t n)
{
	struct ext w[MAX_EXT];
	size_t m = fiemap(fd, w), i;

	assert_int_equal(m, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(w[i].physical, v[i].physical);
		assert_int_equal(w[i].length, v[i].length);
	}
}

/* A file of @len marker bytes at @off (others left as holes). */
static int
make_marked(struct state *s, const char *rel, off_t off, size_t len)
{
	char p[PATH_MAX], *buf = xmalloc(len);
	size_t i;
	int fd;

	for (i = 0; i < len; i += MARKER_LEN)
		memcpy(buf + i, s->marker, MARKER_LEN);
	tl_path(&s->t, p, sizeof(p), "%s", rel);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, buf, len, off), (ssize_t)len);
	assert_int_equal(fsync(fd), 0);
	free(buf);
	return fd;
}

static void
test_overwrite_random(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 1 };
	struct wipe_report rep = { 0 };
	struct ext v[MAX_EXT];
	size_t n;
	bool zero;
	int fd;

	fd = make_marked(s, "home/random", 0, 4 * MIB);
	n = fiemap(fd, v);
	assert_true(n >= 1);
	/* Control: the reader finds every marker before the wipe. */
	assert_int_equal(scan_device(s, fd, v, n, &zero), 4 * MIB / MARKER_LEN);
	assert_int_equal(wipe_overwrite(fd, &o, &rep), 0);
	assert_int_equal(rep.passes, 1);
	assert_int_equal(rep.bytes, 4 * MIB);
	assert_false(rep.extents_changed);
	same_blocks(fd, v, n);
	assert_int_equal(scan_device(s, fd, v, n, &zero), 0);
	assert_false(zero);	/* random data, not zeros */
	close(fd);
}

static void
test_overwrite_zero_verify(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 2, .zero = true, .verify = true };
	struct wipe_report rep = { 0 };
	struct ext v[MAX_EXT];
	size_t n;
	bool zero;
	int fd;

	fd = make_marked(s, "home/zero", 0, 2 * MIB + 8192);
	n = fiemap(fd, v);
	assert_int_equal(scan_device(s, fd, v, n, &zero),
	    (2 * MIB + 8192) / MARKER_LEN);
	assert_int_equal(wipe_overwrite(fd, &o, &rep), 0);
	assert_int_equal(rep.passes, 3);
	assert_true(rep.verified);
	same_blocks(fd, v, n);
	assert_int_equal(scan_device(s, fd, v, n, &zero), 0);
	assert_true(zero);
	close(fd);
}

static void
test_overwrite_random_verify(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 1, .verify = true };
	struct wipe_report rep = { 0 };
	struct ext v[MAX_EXT];
	size_t n;
	bool zero;
	int fd;

	/* Not a multiple of the block size: the tail block is covered. */
	fd = make_marked(s, "home/rv", 0, 3 * MIB + 100 * MARKER_LEN);
	n = fiemap(fd, v);
	assert_true(scan_device(s, fd, v, n, &zero) > 0);
	assert_int_equal(wipe_overwrite(fd, &o, &rep), 0);
	assert_true(rep.verified);
	same_blocks(fd, v, n);
	assert_int_equal(scan_device(s, fd, v, n, &zero), 0);
	close(fd);
}

/* Holes are not written: the extents stay the same and the wipe holds. */
static void
test_sparse(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 1 };
	struct wipe_report rep = { 0 };
	struct ext v[MAX_EXT], w[MAX_EXT];
	size_t n, m;
	bool zero;
	int fd;

	fd = make_marked(s, "home/sparse", 0, MIB);
	close(fd);
	fd = make_marked(s, "home/sparse", 3 * MIB, MIB);
	n = fiemap(fd, v);
	assert_true(n >= 2);
	assert_int_equal(scan_device(s, fd, v, n, &zero), 2 * MIB / MARKER_LEN);
	assert_int_equal(wipe_overwrite(fd, &o, &rep), 0);
	assert_int_equal(rep.bytes, 2 * MIB);
	m = fiemap(fd, w);
	assert_int_equal(m, n);
	same_blocks(fd, v, n);
	assert_int_equal(scan_device(s, fd, v, n, &zero), 0);
	close(fd);
}

/* A second link: its data lives on, so the name is dropped, no more. */
static void
test_hardlink_unlinked_only(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 1 };
	struct wipe_report rep;
	char p[PATH_MAX], q[PATH_MAX], *data;
	size_t len;
	int fd;

	fd = make_marked(s, "home/shared", 0, 64 * 1024);
	close(fd);
	tl_path(&s->t, p, sizeof(p), "home/shared");
	tl_path(&s->t, q, sizeof(q), ".trash/.wipe-test");
	assert_int_equal(mkdir(q, 0700), 0);
	tl_path(&s->t, q, sizeof(q), ".trash/.wipe-test/1");
	assert_int_equal(link(p, q), 0);
	tl_path(&s->t, q, sizeof(q), ".trash/.wipe-test");
	fd = open(q, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(wipe_file(fd, "1", NULL, 0, -1, &o, &rep), 0);
	assert_int_equal(rep.nlink, 2);
	assert_int_equal(rep.bytes, 0);
	assert_int_equal(faccessat(fd, "1", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	close(fd);
	data = tl_read_file(p, &len);
	assert_int_equal(len, 64 * 1024);
	assert_memory_equal(data, s->marker, MARKER_LEN);
	assert_memory_equal(data + len - MARKER_LEN, s->marker, MARKER_LEN);
	free(data);
}

static void
test_wrong_identity_refused(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 1 };
	struct wipe_report rep;
	struct ident other = { 1, 2 };
	char p[PATH_MAX], *data;
	size_t len;
	int fd, dfd;

	fd = make_marked(s, "home/notme", 0, 8192);
	close(fd);
	tl_path(&s->t, p, sizeof(p), "home");
	dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(wipe_file(dfd, "notme", &other, 0, -1, &o, &rep),
	    -ESTALE);
	close(dfd);
	tl_path(&s->t, p, sizeof(p), "home/notme");
	data = tl_read_file(p, &len);
	assert_int_equal(len, 8192);
	assert_memory_equal(data, s->marker, MARKER_LEN);
	free(data);
}

static void
test_symlink_not_followed(void **state)
{
	struct state *s = *state;
	struct wipe_opts o = { .passes = 1 };
	struct wipe_report rep;
	char p[PATH_MAX], q[PATH_MAX], *data;
	size_t len;
	int fd, dfd;

	fd = make_marked(s, "home/target", 0, 8192);
	close(fd);
	tl_path(&s->t, p, sizeof(p), "home/target");
	tl_path(&s->t, q, sizeof(q), "home/evil-link");
	assert_int_equal(symlink(p, q), 0);
	tl_path(&s->t, q, sizeof(q), "home");
	dfd = open(q, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(wipe_file(dfd, "evil-link", NULL, 0, -1, &o, &rep),
	    0);
	assert_int_equal(rep.bytes, 0);
	assert_int_equal(faccessat(dfd, "evil-link", F_OK,
	    AT_SYMLINK_NOFOLLOW), -1);
	close(dfd);
	data = tl_read_file(p, &len);
	assert_memory_equal(data, s->marker, MARKER_LEN);
	free(data);
}

/* The daemon's path: a +s entry purged, queued, wiped, recorded. */
static void
test_entry_flow(void **state)
{
	struct state *s = *state;
	struct tl_entry te = { .uid = 1000, .name = "secret.doc",
	    .path = "home/alice/secret.doc", .time = 100, .deleter = 1000,
	    .flags = FS_SECRM_FL };
	struct audit_row *rows;
	struct ext v[MAX_EXT];
	struct trashd d;
	struct entry e;
	char p[PATH_MAX], *buf;
	size_t n, nrows, i, found = 0;
	bool zero;
	int fd;

	buf = xmalloc(MIB);
	for (i = 0; i < MIB; i += MARKER_LEN)
		memcpy(buf + i, s->marker, MARKER_LEN);
	te.data = buf;
	te.len = MIB;
	tl_stage(&s->t, &te);
	free(buf);
	tl_path(&s->t, p, sizeof(p), ".trash/1000/secret.doc");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	n = fiemap(fd, v);
	assert_int_equal(scan_device(s, fd, v, n, &zero), MIB / MARKER_LEN);
	close(fd);

	tl_open(&s->t, &d, tl_config(&s->t), NULL);
	d.conf->wipe_verify = true;
	assert_int_equal(tl_entry_by_name(&d, 1000, "secret.doc", &e), 0);
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1), 0);
	entry_clear(&e);
	assert_false(tl_exists(p));
	assert_int_equal(wipe_drain(&d), 0);
	assert_int_equal(tl_entry_by_name(&d, 1000, "secret.doc", &e), 0);
	assert_int_equal(e.state, ENTRY_WIPED);
	entry_clear(&e);
	assert_int_equal(audit_query(&d, 0, -1, 0, &rows, &nrows), 0);
	for (i = 0; i < nrows; i++) {
		if (strcmp(rows[i].action, "wiped") != 0)
			continue;
		found++;
		assert_non_null(strstr(rows[i].result, "ok: 1 passes"));
		assert_non_null(strstr(rows[i].result, "verified"));
		assert_non_null(strstr(rows[i].result, "not promised: "));
		assert_string_equal(rows[i].path,
		    "home/alice/secret.doc");
	}
	audit_rows_free(rows, nrows);
	assert_int_equal(found, 1);
	daemon_close(&d);
	/* The file is gone: only the device can show its former blocks. */
	if (s->devfd >= 0)
		assert_int_equal(scan_device(s, -1, v, n, &zero), 0);
	else
		fprintf(stderr, "NOTE: former blocks of the unlinked file not "
		    "read back: no device access\n");
}

/* ---- issue 12: a sparse file, a file still open ---- */

#define GIB		(1024ULL * MIB)
#define SPARSE_N	300		/* data blocks, a hole after each */
#define SPARSE_STEP	(64 * 1024)	/* one data block per step */

/*
 * A sparse file in @dir: SPARSE_N marked 4 KiB blocks, each followed by a
 * hole, and 1 GiB of apparent size (a hole to the end).  More data ranges
 * than one FIEMAP batch (256) and than wipe_fiemap_max in the test below.
 */
static int
make_sparse(struct state *s, const char *dir, char *path, size_t len)
{
	char buf[4096];
	size_t i;
	int fd;

	for (i = 0; i < sizeof(buf); i += MARKER_LEN)
		memcpy(buf + i, s->marker, MARKER_LEN);
	TL_SNPRINTF(path, len, "%s/sparse", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	for (i = 0; i < SPARSE_N; i++)
		assert_int_equal(pwrite(fd, buf, sizeof(buf),
		    (off_t)(i * SPARSE_STEP)), (ssize_t)sizeof(buf));
	assert_int_equal(ftruncate(fd, (off_t)GIB), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

/* Every data range of @fd is where make_sparse() put one; count them. */
static size_t
check_layout(int fd)
{
	off_t data = 0, hole;
	size_t n = 0;

	while ((data = lseek(fd, data, SEEK_DATA)) >= 0) {
		hole = lseek(fd, data, SEEK_HOLE);
		assert_true(hole > data);
		assert_int_equal(data % SPARSE_STEP, 0);
		assert_true(hole - data <= 4096);
		assert_true(data / SPARSE_STEP < SPARSE_N);
		n++;
		data = hole;
	}
	assert_int_equal(errno, ENXIO);
	return n;
}

/*
 * Overwrite the sparse file: the data blocks lose every marker, the holes
 * stay holes (nothing allocated, the file no bigger), and no more is
 * written than it had allocated.  Before issue 12, a file that FIEMAP
 * could not map was written over its whole apparent size, 1 GiB here.
 */
static void
wipe_sparse(struct state *s, int fd, bool want_fiemap)
{
	struct wipe_opts o = { .passes = 1, .verify = true };
	struct wipe_report rep = { 0 };
	struct stat st0, st1;
	unsigned char *buf = xmalloc(4096);
	size_t i, k;

	assert_int_equal(fstat(fd, &st0), 0);
	assert_true((uint64_t)st0.st_blocks * 512 < 16 * MIB);
	assert_int_equal(check_layout(fd), SPARSE_N);
	assert_int_equal(wipe_overwrite(fd, &o, &rep), 0);
	assert_true(rep.verified);
	assert_int_equal(rep.bytes, SPARSE_N * 4096);
	assert_true(rep.bytes <= (uint64_t)st0.st_blocks * 512);
	assert_int_equal(!(rep.promises & WIPE_LOW_NOFIEMAP), want_fiemap);
	assert_int_equal(fstat(fd, &st1), 0);
	assert_int_equal(st1.st_blocks, st0.st_blocks);
	assert_int_equal(st1.st_size, st0.st_size);
	assert_int_equal(check_layout(fd), SPARSE_N);
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (i = 0; i < SPARSE_N; i++) {
		assert_int_equal(pread(fd, buf, 4096, (off_t)(i * SPARSE_STEP)),
		    4096);
		for (k = 0; k + MARKER_LEN <= 4096; k += MARKER_LEN)
			assert_memory_not_equal(buf + k, s->marker,
			    MARKER_LEN);
	}
	free(buf);
}

/* No FIEMAP at all: tmpfs (/dev/shm), mapped by SEEK_DATA/SEEK_HOLE. */
static void
test_sparse_no_fiemap(void **state)
{
	struct state *s = *state;
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET };
	char dir[] = "/dev/shm/trashd-wipe-XXXXXX", p[PATH_MAX];
	int fd;

	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "NOTE: no /dev/shm: %s\n", strerror(errno));
		skip();
	}
	fd = make_sparse(s, dir, p, sizeof(p));
	if (ioctl(fd, FS_IOC_FIEMAP, &fm) == 0)
		fprintf(stderr, "NOTE: /dev/shm has FIEMAP after all\n");
	wipe_sparse(s, fd, false);
	close(fd);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* FIEMAP, but more extents than the wipe keeps a map of: SEEK_DATA. */
static void
test_sparse_many_extents(void **state)
{
	struct state *s = *state;
	char dir[PATH_MAX], p[PATH_MAX];
	size_t saved = wipe_fiemap_max;
	int fd;

	tl_path(&s->t, dir, sizeof(dir), "home");
	fd = make_sparse(s, dir, p, sizeof(p));
	wipe_fiemap_max = SPARSE_N / 2;
	wipe_sparse(s, fd, false);
	wipe_fiemap_max = saved;
	close(fd);
	/* And within the map: FIEMAP's extents, the same result. */
	fd = make_sparse(s, dir, p, sizeof(p));
	wipe_sparse(s, fd, true);
	close(fd);
}

/*
 * A +s entry still open elsewhere (the temp-file pattern: created,
 * unlinked, still written) is not overwritten: its wipe is deferred,
 * told once, and done by the first pass after the last close.
 */
static void
test_open_deferred(void **state)
{
	struct state *s = *state;
	struct tl_entry te = { .uid = 1000, .name = "tmpfile",
	    .path = "home/alice/tmpfile", .time = 100, .deleter = 1000,
	    .flags = FS_SECRM_FL };
	struct trashd d;
	struct entry e;
	char p[PATH_MAX], *buf;
	int64_t wiped;
	size_t i;
	int fd;

	buf = xmalloc(MIB);
	for (i = 0; i < MIB; i += MARKER_LEN)
		memcpy(buf + i, s->marker, MARKER_LEN);
	te.data = buf;
	te.len = MIB;
	tl_stage(&s->t, &te);
	tl_path(&s->t, p, sizeof(p), ".trash/1000/tmpfile");
	/* The writer: an open file description of its own. */
	fd = open(p, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);

	tl_open(&s->t, &d, tl_config(&s->t), NULL);
	wiped = tl_audit_count(&d, "wiped");
	assert_int_equal(tl_entry_by_name(&d, 1000, "tmpfile", &e), 0);
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1), 0);
	entry_clear(&e);
	for (i = 0; i < 2; i++) {
		assert_int_equal(wipe_drain(&d), 0);	/* deferred, not failed */
		assert_int_equal(tl_entry_by_name(&d, 1000, "tmpfile", &e), 0);
		assert_int_equal(e.state, ENTRY_WIPING);
		entry_clear(&e);
		assert_int_equal(wipe_deferred(&d, 1000), 1);
		assert_int_equal(wipe_deferred(&d, 1001), 0);
		assert_int_equal(wipe_deferred(&d, -1), 1);
	}
	assert_int_equal(tl_audit_count(&d, "wipe-deferred"), 1);
	/* The writer's data is untouched. */
	assert_int_equal(pread(fd, buf, MIB, 0), -1);	/* O_WRONLY */
	tl_path(&s->t, p, sizeof(p), ".trash/.wipe");
	{
		char q[PATH_MAX];
		size_t len;
		char *got;
		int64_t id;

		assert_int_equal(tl_entry_by_name(&d, 1000, "tmpfile", &e), 0);
		id = e.id;
		entry_clear(&e);
		TL_SNPRINTF(q, sizeof(q), "%s/%" PRId64, p, id);
		got = tl_read_file(q, &len);
		assert_int_equal(len, MIB);
		assert_memory_equal(got, buf, MIB);
		free(got);
	}
	/* Its last opener lets go: the next pass wipes it. */
	close(fd);
	assert_int_equal(wipe_drain(&d), 0);
	assert_int_equal(tl_entry_by_name(&d, 1000, "tmpfile", &e), 0);
	assert_int_equal(e.state, ENTRY_WIPED);
	entry_clear(&e);
	assert_int_equal(wipe_deferred(&d, -1), 0);
	assert_int_equal(tl_audit_count(&d, "wiped"), wiped + 1);
	daemon_close(&d);
	free(buf);
}

/* Stage @n +s entries of @uid named PREFIX0.. and queue each for a wipe. */
static void
stage_queued(struct trashd *d, struct tl *t, uint32_t uid,
    const char *prefix, int n, int *fds)
{
	char name[64], path[64], p[PATH_MAX];
	struct entry e;
	int i;

	for (i = 0; i < n; i++) {
		struct tl_entry te = { .uid = uid, .time = 100 + i,
		    .deleter = uid, .flags = FS_SECRM_FL, .data = "secret",
		    .len = 6 };

		TL_SNPRINTF(name, sizeof(name), "%s%d", prefix, i);
		TL_SNPRINTF(path, sizeof(path), "home/%u/%s", uid, name);
		te.name = name;
		te.path = path;
		tl_stage(t, &te);
		if (fds != NULL) {
			/* The holder: an open file description of its own. */
			tl_path(t, p, sizeof(p), ".trash/%u/%s", uid, name);
			fds[i] = open(p, O_RDONLY | O_CLOEXEC);
			assert_true(fds[i] >= 0);
		}
		if (d == NULL)
			continue;
		scan_all(d);
		assert_int_equal(tl_entry_by_name(d, uid, name, &e), 0);
		assert_int_equal(policy_purge(d, &d->fs[0], &e, "test", 0, 1),
		    0);
		entry_clear(&e);
	}
}

/*
 * A user who holds more +s entries open than one pass collects does not
 * keep anyone else's queued wipe from being done: each pass takes the
 * files nobody is known to hold first, the deferred ones with the room
 * left.  (Before: the first names in .wipe's order, deferred or not, every
 * pass; the others waited for ever.)
 */
static void
test_held_open_do_not_starve(void **state)
{
	struct state *s = *state;
	size_t saved = wipe_jobs_max;
	struct trashd d;
	struct entry e;
	char name[16];
	int fds[8], i, pass;

	tl_open(&s->t, &d, tl_config(&s->t), NULL);
	wipe_jobs_max = 4;
	stage_queued(&d, &s->t, 2002, "held", 8, fds);
	stage_queued(&d, &s->t, 2001, "mine", 8, NULL);
	for (pass = 0; pass < 5; pass++)
		assert_int_equal(wipe_drain(&d), 0);
	for (i = 0; i < 8; i++) {
		TL_SNPRINTF(name, sizeof(name), "mine%d", i);
		assert_int_equal(tl_entry_by_name(&d, 2001, name, &e), 0);
		assert_int_equal(e.state, ENTRY_WIPED);
		entry_clear(&e);
	}
	assert_int_equal(wipe_deferred(&d, 2002), 8);
	assert_int_equal(wipe_deferred(&d, 2001), 0);
	for (i = 0; i < 8; i++)
		close(fds[i]);
	/* Let go of: done within two passes of four. */
	for (pass = 0; pass < 2; pass++)
		assert_int_equal(wipe_drain(&d), 0);
	assert_int_equal(wipe_deferred(&d, -1), 0);
	assert_int_equal(tl_count(&d, 2002, ENTRY_STATE_MASK(ENTRY_WIPED)), 8);
	wipe_jobs_max = saved;
	daemon_close(&d);
}

/*
 * Start-up recovery with more queued files than one pass collects: a
 * wiping row is marked wiped only when its file is gone from .wipe, never
 * because this pass did not reach it.  (Before: every row past the pass's
 * cap was recorded "wiped" while its data waited, unwiped, in .wipe.)
 */
static void
test_recover_past_the_cap(void **state)
{
	struct state *s = *state;
	size_t saved = wipe_jobs_max;
	struct index_filter f = { .fs_id = -1, .uid = 2003,
	    .states = ENTRY_STATE_MASK(ENTRY_WIPED) };
	struct entry_list l;
	struct trashd d;
	char p[PATH_MAX];
	int64_t wiped;
	size_t i;
	int pass;

	tl_open(&s->t, &d, tl_config(&s->t), NULL);
	wiped = tl_audit_count(&d, "wiped");
	stage_queued(&d, &s->t, 2003, "q", 6, NULL);
	wipe_jobs_max = 2;
	assert_int_equal(wipe_recover(&d), 0);
	assert_int_equal(index_list(d.db, &f, &l), 0);
	assert_int_equal(l.n, 0);
	entry_list_free(&l);
	assert_int_equal(tl_audit_count(&d, "wiped"), wiped);
	assert_int_equal(tl_count(&d, 2003, ENTRY_STATE_MASK(ENTRY_WIPING)),
	    6);
	/* Each pass wipes two, and says so only for those. */
	for (pass = 1; pass <= 3; pass++) {
		assert_int_equal(wipe_drain(&d), 0);
		assert_int_equal(tl_count(&d, 2003,
		    ENTRY_STATE_MASK(ENTRY_WIPED)), 2 * pass);
		assert_int_equal(index_list(d.db, &f, &l), 0);
		for (i = 0; i < l.n; i++) {
			tl_path(&s->t, p, sizeof(p), ".trash/.wipe/%" PRId64,
			    l.v[i].id);
			assert_false(tl_exists(p));
		}
		entry_list_free(&l);
	}
	assert_int_equal(tl_audit_count(&d, "wiped"), wiped + 6);
	wipe_jobs_max = saved;
	daemon_close(&d);
}

static void
test_strings(void **state)
{
	struct wipe_opts o = { .passes = 3, .zero = true, .verify = true };
	char buf[256];
	int fd;

	(void)state;
	wipe_promises_str(0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	wipe_promises_str(WIPE_LOW_SHARED | WIPE_LOW_NONROT, buf, sizeof(buf));
	assert_string_equal(buf, "shared-extents,non-rotational");
	wipe_method_str(&o, buf, sizeof(buf));
	assert_string_equal(buf, "random x3 +zero +verify");
	/* This host's /tmp: ext4 on a rotational virtio disk, ordered. */
	fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(wipe_fs_promises(fd) & (WIPE_LOW_COW |
	    WIPE_LOW_JOURNAL), 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overwrite_random),
		cmocka_unit_test(test_overwrite_zero_verify),
		cmocka_unit_test(test_overwrite_random_verify),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_hardlink_unlinked_only),
		cmocka_unit_test(test_wrong_identity_refused),
		cmocka_unit_test(test_symlink_not_followed),
		cmocka_unit_test(test_entry_flow),
		cmocka_unit_test(test_sparse_no_fiemap),
		cmocka_unit_test(test_sparse_many_extents),
		cmocka_unit_test(test_open_deferred),
		cmocka_unit_test(test_held_open_do_not_starve),
		cmocka_unit_test(test_recover_past_the_cap),
		cmocka_unit_test(test_strings),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
