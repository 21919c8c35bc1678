/* SPDX-License-Identifier: ISC */
/*
 * trash.c and the trust rules: a bad /.trash is refused, and a user who
 * renames entries or plants symlinks or hard links in their own trash
 * never makes trashd touch another file.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#define VICTIM	"victim data: must survive"

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
victim(struct tl *t, char *p, size_t len, uint32_t flags)
{
	int fd, fl = 0;

	tl_path(t, p, len, "home/victim");
	tl_write_file(p, VICTIM, strlen(VICTIM));
	if (flags) {
		fd = open(p, O_RDONLY | O_CLOEXEC);
		assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &fl), 0);
		fl |= (int)flags;
		assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &fl), 0);
		close(fd);
	}
}

static void
victim_intact(const char *p)
{
	size_t len;
	char *data = tl_read_file(p, &len);

	assert_int_equal(len, strlen(VICTIM));
	assert_memory_equal(data, VICTIM, len);
	free(data);
}

static void
test_open_checks(void **state)
{
	struct tl *t = *state;
	struct tfs fs;
	struct stat st;
	char p[PATH_MAX], q[PATH_MAX];

	tl_path(t, p, sizeof(p), ".trash");
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(trash_open(&fs, t->fs, false), -ENOENT);
	/* A symlink to a dir that would pass is never followed. */
	tl_path(t, q, sizeof(q), "home/fake");
	assert_int_equal(mkdir(q, 0755), 0);
	assert_int_equal(symlink(q, p), 0);
	/* O_DIRECTORY | O_NOFOLLOW on a symlink: ENOTDIR. */
	assert_int_equal(trash_open(&fs, t->fs, true), -ENOTDIR);
	assert_int_equal(unlink(p), 0);
	tl_write_file(p, "x", 1);
	assert_int_equal(trash_open(&fs, t->fs, true), -ENOTDIR);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chown(p, 1000, 1000), 0);
	assert_int_equal(trash_open(&fs, t->fs, true), -EPERM);
	assert_int_equal(chown(p, 0, 0), 0);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(trash_open(&fs, t->fs, true), -EACCES);
	assert_int_equal(rmdir(p), 0);

	/* create-trash: made root 0755, with a 0700 .wipe. */
	assert_int_equal(trash_open(&fs, t->fs, true), 0);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(st.st_uid, 0);
	tl_path(t, q, sizeof(q), ".trash/.wipe");
	assert_int_equal(lstat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	trash_close(&fs);

	/* A .wipe that is a symlink is refused too. */
	assert_int_equal(rmdir(q), 0);
	assert_int_equal(symlink("/tmp", q), 0);
	assert_int_equal(trash_open(&fs, t->fs, true), -ENOTDIR);
	assert_int_equal(unlink(q), 0);
}

static void
test_uid_names(void **state)
{
	uint32_t u;

	(void)state;
	assert_int_equal(trash_parse_uid("0", &u), 0);
	assert_int_equal(u, 0);
	assert_int_equal(trash_parse_uid("1000", &u), 0);
	assert_int_equal(u, 1000);
	assert_int_equal(trash_parse_uid("4294967294", &u), 0);
	assert_int_equal(u, 4294967294U);
	assert_true(trash_parse_uid("4294967295", &u) < 0);
	assert_true(trash_parse_uid("99999999999", &u) < 0);
	assert_true(trash_parse_uid("01000", &u) < 0);
	assert_true(trash_parse_uid("+1", &u) < 0);
	assert_true(trash_parse_uid("", &u) < 0);
	assert_true(trash_parse_uid(".wipe", &u) < 0);
}

/* /.trash/<uid> a symlink (as root could leave): not entered. */
static void
test_uid_dir_symlink(void **state)
{
	struct tl *t = *state;
	struct trashd d;
	char p[PATH_MAX], q[PATH_MAX];

	tl_path(t, q, sizeof(q), "home/elsewhere");
	assert_int_equal(mkdir(q, 0755), 0);
	tl_path(t, p, sizeof(p), "home/elsewhere/file");
	tl_write_file(p, "x", 1);
	tl_path(t, p, sizeof(p), ".trash/1500");
	assert_int_equal(symlink(q, p), 0);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_count(&d, 1500, 0), 0);
	daemon_close(&d);
	assert_int_equal(unlink(p), 0);
}

/* Rename the entry away and plant a symlink to a victim in its place. */
static void
test_rename_symlink_attack(void **state)
{
	struct tl *t = *state;
	struct tl_entry te = { .uid = 1000, .name = "a", .path = "home/a",
	    .time = 1, .deleter = 1000, .flags = FS_UNRM_FL, .data = "a",
	    .len = 1 };
	struct trashd d;
	struct entry e;
	char v[PATH_MAX], p[PATH_MAX], q[PATH_MAX];
	int64_t id;

	victim(t, v, sizeof(v), FS_UNRM_FL);
	tl_stage(t, &te);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_entry_by_name(&d, 1000, "a", &e), 0);
	id = e.id;
	/* The user's move, unseen by trashd (no event loop here). */
	tl_path(t, p, sizeof(p), ".trash/1000/a");
	tl_path(t, q, sizeof(q), ".trash/1000/a-moved");
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink(v, p), 0);
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1),
	    -EINVAL);
	entry_clear(&e);
	victim_intact(v);
	assert_true(tl_exists(p));	/* the planted link is left alone */
	/* The refusal rescanned: the row follows its inode. */
	assert_int_equal(index_get(d.db, id, &e), 0);
	assert_string_equal(e.name, "a-moved");
	assert_int_equal(e.state, ENTRY_TRASHED);
	entry_clear(&e);
	/* And a plain rename over it: a stale name purges nothing. */
	assert_int_equal(tl_entry_by_name(&d, 1000, "a-moved", &e), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(rename(q, p), 0);
	tl_write_file(q, "other", 5);
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1),
	    -ESTALE);
	entry_clear(&e);
	assert_true(tl_exists(q));
	assert_true(tl_exists(p));
	daemon_close(&d);
	assert_int_equal(unlink(v), 0);
}

/* Swap a +s entry for a hard link to a victim: the wipe refuses. */
static void
test_hardlink_swap_attack(void **state)
{
	struct tl *t = *state;
	struct tl_entry te = { .uid = 1001, .name = "s", .path = "home/s",
	    .time = 1, .deleter = 1001, .flags = FS_SECRM_FL, .data = "s",
	    .len = 1 };
	struct trashd d;
	struct entry e;
	struct stat st;
	char v[PATH_MAX], p[PATH_MAX], q[PATH_MAX];

	victim(t, v, sizeof(v), FS_SECRM_FL);
	tl_stage(t, &te);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_entry_by_name(&d, 1001, "s", &e), 0);
	tl_path(t, p, sizeof(p), ".trash/1001/s");
	tl_path(t, q, sizeof(q), ".trash/1001/s-saved");
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(link(v, p), 0);
	assert_int_equal(wipe_stage(&d, &d.fs[0], &e, "test"), -ESTALE);
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1),
	    -ESTALE);
	entry_clear(&e);
	assert_int_equal(wipe_drain(&d), 0);
	victim_intact(v);
	assert_int_equal(stat(v, &st), 0);
	assert_int_equal(st.st_nlink, 2);	/* the link was not moved */
	assert_true(tl_exists(p));
	daemon_close(&d);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(unlink(v), 0);
}

/* A hard link planted as an entry: its data lives on, unlink only. */
static void
test_planted_hardlink_entry(void **state)
{
	struct tl *t = *state;
	struct trashd d;
	struct entry e;
	struct audit_row *rows;
	char v[PATH_MAX], p[PATH_MAX];
	size_t n, i, found = 0;

	victim(t, v, sizeof(v), FS_SECRM_FL);
	tl_mkuid(t, 1002);
	tl_path(t, p, sizeof(p), ".trash/1002/planted");
	assert_int_equal(link(v, p), 0);
	tl_open(t, &d, tl_config(t), NULL);
	assert_int_equal(tl_entry_by_name(&d, 1002, "planted", &e), 0);
	assert_true(e.flags & FS_SECRM_FL);
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1), 0);
	entry_clear(&e);
	assert_int_equal(wipe_drain(&d), 0);
	victim_intact(v);
	assert_false(tl_exists(p));
	assert_int_equal(audit_query(&d, 0, -1, 0, &rows, &n), 0);
	for (i = 0; i < n; i++)
		if (strcmp(rows[i].action, "wiped") == 0 &&
		    strstr(rows[i].result, "its data lives on") != NULL)
			found++;
	audit_rows_free(rows, n);
	assert_int_equal(found, 1);
	daemon_close(&d);
	assert_int_equal(unlink(v), 0);
}

static void
test_entry_open(void **state)
{
	struct tl *t = *state;
	struct tfs fs;
	struct tuid *tu;
	struct ident want;
	struct stat st;
	char p[PATH_MAX];
	int fd;

	tl_mkuid(t, 1003);
	assert_int_equal(trash_open(&fs, t->fs, false), 0);
	assert_int_equal(trash_uid(&fs, 1003, &tu), 0);
	tl_path(t, p, sizeof(p), ".trash/1003/f");
	tl_write_file(p, "f", 1);
	assert_int_equal(stat(p, &st), 0);
	want.dev = st.st_dev;
	want.ino = st.st_ino;
	fd = trash_entry_open(&fs, tu->fd, "f", &want, O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	want.ino++;
	assert_int_equal(trash_entry_open(&fs, tu->fd, "f", &want, O_RDONLY),
	    -ESTALE);
	assert_int_equal(trash_entry_unlink(&fs, tu->fd, "f", &want), -ESTALE);
	assert_true(tl_exists(p));
	tl_path(t, p, sizeof(p), ".trash/1003/l");
	assert_int_equal(symlink("/etc/passwd", p), 0);
	assert_int_equal(trash_entry_open(&fs, tu->fd, "l", NULL, O_RDONLY),
	    -EINVAL);
	trash_close(&fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_checks),
		cmocka_unit_test(test_uid_names),
		cmocka_unit_test(test_uid_dir_symlink),
		cmocka_unit_test(test_rename_symlink_attack),
		cmocka_unit_test(test_hardlink_swap_attack),
		cmocka_unit_test(test_planted_hardlink_entry),
		cmocka_unit_test(test_entry_open),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
