/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

void
tl_path(const struct tl *t, char *buf, size_t len, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	TL_SNPRINTF(buf, len, "%s/%s", t->fs, rel);
}

void
tl_setup(struct tl *t)
{
	char p[PATH_MAX];

	memset(t, 0, sizeof(*t));
	TL_SNPRINTF(t->root, sizeof(t->root), "/tmp/trashd-test-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	assert_true(snprintf(t->fs, sizeof(t->fs), "%s/fs", t->root) <
	    (int)sizeof(t->fs));
	assert_true(snprintf(t->dbdir, sizeof(t->dbdir), "%s/db", t->root) <
	    (int)sizeof(t->dbdir));
	assert_true(snprintf(t->db, sizeof(t->db), "%s/index.db", t->dbdir) <
	    (int)sizeof(t->db));
	assert_int_equal(mkdir(t->fs, 0755), 0);
	assert_int_equal(mkdir(t->dbdir, 0700), 0);
	tl_path(t, p, sizeof(p), ".trash");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, 0755), 0);
	tl_path(t, p, sizeof(p), "home");
	assert_int_equal(mkdir(p, 01777), 0);
}

static int
tl_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

void
tl_teardown(struct tl *t)
{
	if (t->root[0] != '\0')
		nftw(t->root, tl_rm, 16, FTW_DEPTH | FTW_PHYS);
}

struct config *
tl_config(const struct tl *t)
{
	struct config *c = config_default();

	free(c->database);
	c->database = xstrdup(t->db);
	c->fs = xcalloc(1, sizeof(*c->fs));
	c->fs[0].path = xstrdup(t->fs);
	c->fs[0].watermark = -1;
	c->nfs = 1;
	c->retention = 0;
	c->watermark = 0;
	return c;
}

void
tl_open(struct tl *t, struct trashd *d, struct config *c,
    struct event_base *base)
{
	char err[1024] = "";
	int r;

	(void)t;
	r = daemon_open(d, c, base, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "daemon_open: %s\n", err);
	assert_int_equal(r, 0);
	assert_int_equal(d->nfs, 1);
}

void
tl_mkuid(const struct tl *t, uint32_t uid)
{
	char p[PATH_MAX];

	tl_path(t, p, sizeof(p), ".trash/%u", uid);
	if (mkdir(p, 0700) == 0) {
		assert_int_equal(chown(p, uid, uid), 0);
		assert_int_equal(chmod(p, 0700), 0);
	} else {
		assert_int_equal(errno, EEXIST);
	}
}

void
tl_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

char *
tl_read_file(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = xmalloc((size_t)st.st_size + 1);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	close(fd);
	return buf;
}

/*
 * Write the kernel's record of a trashed file on @fd: TRASHBIN_XATTR,
 * "<time> <uid> <path>" (<linux/trashbin.h>); a @time or @deleter below 0
 * and a NULL @path leave their field empty, and all three no record.
 */
void
tl_set_record(int fd, int64_t time, int64_t deleter, const char *path)
{
	char v[PATH_MAX + 64];
	int n = 0;

	if (time < 0 && deleter < 0 && path == NULL)
		return;
	if (time >= 0)
		n += snprintf(v + n, sizeof(v) - n, "%" PRId64 ".000000000",
		    time);
	n += snprintf(v + n, sizeof(v) - n, " ");
	if (deleter >= 0)
		n += snprintf(v + n, sizeof(v) - n, "%" PRId64, deleter);
	n += snprintf(v + n, sizeof(v) - n, " %s", path != NULL ? path : "");
	assert_true((size_t)n < sizeof(v));
	assert_int_equal(fsetxattr(fd, TRASHBIN_XATTR, v, (size_t)n, 0), 0);
}

/*
 * Stage an entry as the kernel does: the file exists elsewhere, gets its
 * trusted.trash record, and only then is renamed into /.trash/<uid>/.
 */
ino_t
tl_stage(const struct tl *t, const struct tl_entry *e)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	struct stat st;
	int fd, flags;

	tl_mkuid(t, e->uid);
	tl_path(t, tmp, sizeof(tmp), "home/.staging-%s", e->name);
	tl_path(t, dst, sizeof(dst), ".trash/%u/%s", e->uid, e->name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	if (e->len > 0)
		assert_int_equal(write(fd, e->data, e->len), (ssize_t)e->len);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fchown(fd, e->uid, e->uid), 0);
	tl_set_record(fd, e->time, e->deleter, e->path);
	if (e->flags != 0) {
		flags = 0;
		assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &flags), 0);
		flags |= (int)e->flags;
		assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
	}
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(rename(tmp, dst), 0);
	return st.st_ino;
}

bool
tl_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int64_t
tl_count(struct trashd *d, int64_t uid, unsigned states)
{
	struct index_filter f = { .fs_id = -1, .uid = uid, .states = states };
	int64_t n = -1;

	assert_int_equal(index_count(d->db, &f, &n), 0);
	return n;
}

int
tl_entry_by_name(struct trashd *d, uint32_t uid, const char *name,
    struct entry *out)
{
	struct index_filter f = { .fs_id = -1, .uid = uid };
	struct entry_list l;
	size_t i;
	int r = -ENOENT;

	assert_int_equal(index_list(d->db, &f, &l), 0);
	/* The newest row of that name. */
	for (i = l.n; i-- > 0;) {
		if (strcmp(l.v[i].name, name) == 0) {
			*out = l.v[i];
			memset(&l.v[i], 0, sizeof(l.v[i]));
			r = 0;
			break;
		}
	}
	for (i = 0; i < l.n; i++)
		if (l.v[i].name != NULL)
			entry_clear(&l.v[i]);
	free(l.v);
	return r;
}

int64_t
tl_audit_count(struct trashd *d, const char *action)
{
	struct audit_row *rows;
	size_t n, i;
	int64_t c = 0;

	assert_int_equal(audit_query(d, 0, -1, 0, &rows, &n), 0);
	for (i = 0; i < n; i++)
		if (strcmp(rows[i].action, action) == 0)
			c++;
	audit_rows_free(rows, n);
	return c;
}

/* snprintf()'s @n for a buffer of @size bytes: all of it fitted. */
void
tl_fits(int n, size_t size)
{
	assert_true(n >= 0);
	assert_true((size_t)n < size);
}
