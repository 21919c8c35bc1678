/* SPDX-License-Identifier: ISC */
/*
 * scan.c: the index built from a staged tree, and reconciled after
 * entries were added, removed, renamed and moved out while trashd was
 * stopped.  Never a duplicate.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

static int
setup(void **state)
{
	struct tl *t = xcalloc(1, sizeof(*t));

	tl_setup(t);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	tl_teardown(*state);
	free(*state);
	return 0;
}

static void
stage_tree(struct tl *t, ino_t *ino_a)
{
	struct tl_entry e = { .uid = 1000, .name = "a.txt",
	    .path = "home/alice/a.txt", .time = 1000, .deleter = 1000,
	    .flags = FS_UNRM_FL, .data = "alpha", .len = 5 };
	char p[PATH_MAX];

	*ino_a = tl_stage(t, &e);
	e.name = "b.bin";
	e.path = "home/alice/dir/b.bin";
	e.time = 2000;
	e.flags = FS_SECRM_FL;
	e.data = "bravo!";
	e.len = 6;
	tl_stage(t, &e);
	/* Moved in by hand: no xattrs at all. */
	e.name = "byhand";
	e.path = NULL;
	e.time = -1;
	e.deleter = -1;
	e.flags = 0;
	tl_stage(t, &e);
	e = (struct tl_entry){ .uid = 1001, .name = "d", .path = "srv/d",
	    .time = 1500, .deleter = 0, .flags = FS_UNRM_FL };
	tl_stage(t, &e);
	/* Not entries: a symlink, a FIFO, a dir, a stray top-level dir. */
	tl_path(t, p, sizeof(p), ".trash/1000/link");
	assert_int_equal(symlink("/etc/passwd", p), 0);
	tl_path(t, p, sizeof(p), ".trash/1000/fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	tl_path(t, p, sizeof(p), ".trash/1000/subdir");
	assert_int_equal(mkdir(p, 0700), 0);
	tl_path(t, p, sizeof(p), ".trash/notauid");
	assert_int_equal(mkdir(p, 0700), 0);
	tl_path(t, p, sizeof(p), ".trash/notauid/x");
	tl_write_file(p, "x", 1);
}

static void
test_index_staged_tree(void **state)
{
	struct tl *t = *state;
	struct trashd d;
	struct entry e;
	struct stat st;
	char p[PATH_MAX];
	ino_t ino_a;

	stage_tree(t, &ino_a);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_count(&d, -1, 0), 4);
	assert_int_equal(tl_count(&d, 1000, ENTRY_LIVE), 3);
	assert_int_equal(tl_count(&d, 1001, ENTRY_LIVE), 1);

	assert_int_equal(tl_entry_by_name(&d, 1000, "a.txt", &e), 0);
	assert_string_equal(e.orig_path, "home/alice/a.txt");
	assert_int_equal(e.deleted_ns, 1000 * NSEC_PER_SEC);
	assert_int_equal(e.deleter_uid, 1000);
	assert_int_equal(e.owner_uid, 1000);
	assert_int_equal(e.size, 5);
	assert_true(e.flags & FS_UNRM_FL);
	assert_false(e.flags & FS_SECRM_FL);
	assert_int_equal(e.ident.ino, ino_a);
	assert_int_equal(e.state, ENTRY_TRASHED);
	entry_clear(&e);

	assert_int_equal(tl_entry_by_name(&d, 1000, "b.bin", &e), 0);
	assert_true(e.flags & FS_SECRM_FL);
	assert_string_equal(e.orig_path, "home/alice/dir/b.bin");
	entry_clear(&e);

	assert_int_equal(tl_entry_by_name(&d, 1000, "byhand", &e), 0);
	assert_null(e.orig_path);
	assert_int_equal(e.deleter_uid, -1);
	tl_path(t, p, sizeof(p), ".trash/1000/byhand");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(e.deleted_ns, st.st_ctim.tv_sec * NSEC_PER_SEC +
	    st.st_ctim.tv_nsec);
	entry_clear(&e);

	assert_int_equal(tl_entry_by_name(&d, 1001, "d", &e), 0);
	assert_int_equal(e.deleter_uid, 0);
	entry_clear(&e);
	assert_int_equal(tl_entry_by_name(&d, 1000, "link", &e), -ENOENT);
	assert_int_equal(tl_entry_by_name(&d, 1000, "fifo", &e), -ENOENT);
	assert_int_equal(tl_audit_count(&d, "trashed"), 4);

	/* Scanning again changes nothing. */
	assert_int_equal(scan_all(&d), 0);
	assert_int_equal(scan_all(&d), 0);
	assert_int_equal(tl_count(&d, -1, 0), 4);
	assert_int_equal(tl_audit_count(&d, "trashed"), 4);
	daemon_close(&d);
}

static void
test_reconcile_while_stopped(void **state)
{
	struct tl *t = *state;
	struct tl_entry n = { .uid = 1000, .name = "new", .path = "home/n",
	    .time = 3000, .deleter = 1000, .flags = FS_UNRM_FL };
	struct trashd d;
	struct entry e;
	char p[PATH_MAX], q[PATH_MAX];
	int64_t id_b, id_d;

	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_count(&d, -1, ENTRY_LIVE), 4);
	assert_int_equal(tl_entry_by_name(&d, 1000, "b.bin", &e), 0);
	id_b = e.id;
	entry_clear(&e);
	assert_int_equal(tl_entry_by_name(&d, 1001, "d", &e), 0);
	id_d = e.id;
	entry_clear(&e);
	daemon_close(&d);

	/* While stopped: one added, one emptied, one renamed, one moved
	 * out (a restore), and a new user's trash with an entry. */
	tl_stage(t, &n);
	tl_path(t, p, sizeof(p), ".trash/1000/a.txt");
	assert_int_equal(unlink(p), 0);
	tl_path(t, p, sizeof(p), ".trash/1000/b.bin");
	tl_path(t, q, sizeof(q), ".trash/1000/b renamed");
	assert_int_equal(rename(p, q), 0);
	tl_path(t, p, sizeof(p), ".trash/1001/d");
	tl_path(t, q, sizeof(q), "home/d-restored");
	assert_int_equal(rename(p, q), 0);
	n.uid = 1002;
	n.name = "f";
	tl_stage(t, &n);

	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_count(&d, -1, ENTRY_LIVE), 4);
	assert_int_equal(tl_count(&d, -1, 0), 6);
	assert_int_equal(tl_count(&d, -1,
	    ENTRY_STATE_MASK(ENTRY_RESTORED)), 2);
	assert_int_equal(tl_entry_by_name(&d, 1000, "a.txt", &e), 0);
	assert_int_equal(e.state, ENTRY_RESTORED);
	entry_clear(&e);
	assert_int_equal(index_get(d.db, id_d, &e), 0);
	assert_int_equal(e.state, ENTRY_RESTORED);
	entry_clear(&e);
	/* The renamed one is the same row, not a new one. */
	assert_int_equal(tl_entry_by_name(&d, 1000, "b renamed", &e), 0);
	assert_int_equal(e.id, id_b);
	assert_int_equal(e.state, ENTRY_TRASHED);
	entry_clear(&e);
	assert_int_equal(tl_entry_by_name(&d, 1000, "new", &e), 0);
	assert_string_equal(e.orig_path, "home/n");
	entry_clear(&e);
	assert_int_equal(tl_entry_by_name(&d, 1002, "f", &e), 0);
	entry_clear(&e);
	assert_int_equal(tl_audit_count(&d, "restored"), 2);

	/* Again: stable. */
	assert_int_equal(scan_all(&d), 0);
	assert_int_equal(tl_count(&d, -1, 0), 6);
	daemon_close(&d);
}

static void
test_bad_xattrs(void **state)
{
	struct tl *t = *state;
	static const struct {
		const char	*name, *value, *path;
		size_t		 len;
	} c[] = {
		/* A record with a NUL in it: ignored whole. */
		{ "nul", "1000.5 7 a\0b", NULL, 12 },
		/* Only two fields: no record. */
		{ "two", "1000.5 7", NULL, 8 },
		/*
		 * A bad time and a bad uid are unknown, the path still
		 * counts, and it is the whole rest of the value: spaces and
		 * newlines included.
		 */
		{ "odd", "12x.5 -1 home/a b\nc ", "home/a b\nc ", 20 },
	};
	struct tl_entry n = { .uid = 1003, .path = NULL, .time = -1,
	    .deleter = -1 };
	struct trashd d;
	struct entry e;
	char p[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		n.name = c[i].name;
		tl_stage(t, &n);
		tl_path(t, p, sizeof(p), ".trash/1003/%s", c[i].name);
		assert_int_equal(setxattr(p, TRASHBIN_XATTR, c[i].value,
		    c[i].len, 0), 0);
	}
	tl_open(t, &d, tl_config(t), NULL);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(tl_entry_by_name(&d, 1003, c[i].name, &e), 0);
		if (c[i].path == NULL)
			assert_null(e.orig_path);
		else
			assert_string_equal(e.orig_path, c[i].path);
		assert_int_equal(e.deleter_uid, -1);
		/* Unknown: the ctime of the move, not 1000 or 12. */
		assert_true(e.deleted_ns > 1000 * NSEC_PER_SEC);
		entry_clear(&e);
	}
	daemon_close(&d);
}

/*
 * A path the kernel could only record in its bounded form (too deep, or
 * no room in the inode's xattrs) is no original path: unknown, so that a
 * restore needs a destination.  Deletion time and deleter still count.
 */
static void
test_bounded_path(void **state)
{
	struct tl *t = *state;
	struct tl_entry n = { .uid = 1005, .name = "f",
	    .path = TRASHBIN_PATH_TRUNCATED "deep/dir/f", .time = 2000,
	    .deleter = 1005 };
	struct trashd d;
	struct entry e;

	tl_stage(t, &n);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_entry_by_name(&d, 1005, "f", &e), 0);
	assert_null(e.orig_path);
	assert_int_equal(e.deleter_uid, 1005);
	assert_int_equal(e.deleted_ns, 2000 * NSEC_PER_SEC);
	entry_clear(&e);
	daemon_close(&d);
}

/*
 * While trashd was down an entry was emptied and a new file, trashed, got
 * its inode number: the new file is a new row, not the old one renamed
 * (which would restore it to the old one's path).
 */
static void
test_inode_reused(void **state)
{
	struct tl *t = *state;
	struct tl_entry n = { .uid = 1004, .name = "old", .path = "home/old",
	    .time = 1000, .deleter = 1004 };
	struct trashd d;
	struct entry e;
	char p[PATH_MAX], q[PATH_MAX];
	int64_t id_old;

	tl_stage(t, &n);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_entry_by_name(&d, 1004, "old", &e), 0);
	id_old = e.id;
	entry_clear(&e);
	daemon_close(&d);

	/* The same inode, as the kernel leaves a new deletion. */
	tl_path(t, p, sizeof(p), ".trash/1004/old");
	tl_path(t, q, sizeof(q), ".trash/1004/new");
	assert_int_equal(setxattr(p, TRASHBIN_XATTR,
	    "2000.000000000 1004 home/other", 30, 0), 0);
	assert_int_equal(rename(p, q), 0);

	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(index_get(d.db, id_old, &e), 0);
	assert_int_equal(e.state, ENTRY_RESTORED);
	assert_string_equal(e.orig_path, "home/old");
	entry_clear(&e);
	assert_int_equal(tl_entry_by_name(&d, 1004, "new", &e), 0);
	assert_true(e.id != id_old);
	assert_string_equal(e.orig_path, "home/other");
	assert_int_equal(e.deleted_ns, 2000 * NSEC_PER_SEC);
	assert_int_equal(e.state, ENTRY_TRASHED);
	entry_clear(&e);
	assert_int_equal(tl_count(&d, 1004, 0), 2);
	/* Again: stable, the new row is the same file. */
	assert_int_equal(scan_all(&d), 0);
	assert_int_equal(tl_count(&d, 1004, 0), 2);
	assert_int_equal(tl_count(&d, 1004, ENTRY_LIVE), 1);
	daemon_close(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_staged_tree),
		cmocka_unit_test(test_reconcile_while_stopped),
		cmocka_unit_test(test_bad_xattrs),
		cmocka_unit_test(test_inode_reused),
		cmocka_unit_test(test_bounded_path),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
