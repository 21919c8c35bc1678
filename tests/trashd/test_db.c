/* SPDX-License-Identifier: ISC */
/*
 * db.c: a fresh install and an upgrade from every older version give the
 * same schema; newer, corrupt, lax and symlinked databases are refused
 * with a clear message, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
dbpath(struct tl *t, char *buf, size_t len, const char *name)
{
	TL_SNPRINTF(buf, len, "%s/%s", t->dbdir, name);
}

static void
raw_exec(const char *path, const char *sql)
{
	sqlite3 *h;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* The schema as text: every object's type, name, table and SQL. */
static char *
schema_dump(const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char *out = xstrdup(""), *n;
	int v;

	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT type, name, tbl_name, "
	    "coalesce(sql, '') FROM sqlite_master ORDER BY type, name", -1,
	    &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		xasprintf(&n, "%s%s|%s|%s|%s\n", out,
		    sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
		    sqlite3_column_text(st, 2), sqlite3_column_text(st, 3));
		free(out);
		out = n;
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	xasprintf(&n, "%sversion %d\n", out, v);
	free(out);
	return n;
}

static void
test_embedded(void **state)
{
	size_t i;

	(void)state;
	assert_true(db_nmigrations >= 2);
	for (i = 0; i < db_nmigrations; i++) {
		assert_int_equal(db_migrations[i].version, (int)i + 1);
		assert_non_null(strstr(db_migrations[i].sql,
		    "PRAGMA user_version"));
	}
	assert_int_equal(db_latest_version(), (int)db_nmigrations);
}

static void
test_fresh_vs_upgrade(void **state)
{
	struct tl *t = *state;
	char fresh[PATH_MAX], up[PATH_MAX], err[1024];
	char *want, *got;
	struct db *db;
	int from, v;

	dbpath(t, fresh, sizeof(fresh), "fresh.db");
	assert_int_equal(db_open(fresh, 0, &db, err, sizeof(err)), 0);
	assert_int_equal(db_version(db, &v), 0);
	assert_int_equal(v, db_latest_version());
	db_close(db);
	want = schema_dump(fresh);
	assert_non_null(strstr(want, "table|wipes|wipes|"));
	assert_non_null(strstr(want, "table|entries|entries|"));

	for (from = 1; from < db_latest_version(); from++) {
		TL_SNPRINTF(up, sizeof(up), "%s/up%d.db", t->dbdir, from);
		assert_int_equal(db_open(up, DB_NOMIGRATE, &db, err,
		    sizeof(err)), 0);
		assert_int_equal(db_migrate(db, from, err, sizeof(err)), 0);
		assert_int_equal(db_version(db, &v), 0);
		assert_int_equal(v, from);
		/* Data written by the older version survives. */
		assert_int_equal(db_exec(db, "INSERT INTO filesystems (path) "
		    "VALUES ('/home')"), 0);
		db_close(db);
		assert_int_equal(db_open(up, 0, &db, err, sizeof(err)), 0);
		db_close(db);
		got = schema_dump(up);
		assert_string_equal(got, want);
		free(got);
		raw_exec(up, "SELECT 1");
	}
	free(want);
}

/*
 * Version 5 makes audit rows fields: older rows keep their sentence as
 * the detail, and the entry id that started it becomes a field.
 */
static void
test_audit_rows_migrated(void **state)
{
	struct tl *t = *state;
	char path[PATH_MAX], err[1024];
	struct db *db;
	sqlite3 *h;
	sqlite3_stmt *st;

	dbpath(t, path, sizeof(path), "audit4.db");
	assert_int_equal(db_open(path, DB_NOMIGRATE, &db, err, sizeof(err)),
	    0);
	assert_int_equal(db_migrate(db, 4, err, sizeof(err)), 0);
	assert_int_equal(db_exec(db, "INSERT INTO audit (time_ns, uid, pid, "
	    "action, target, result) VALUES (1, 1000, 9, 'restore', "
	    "'id=57 fs=/home uid=1000 name=a b path=x\\x0ay', 'ok'), "
	    "(2, 0, 1, 'ctl-policy-set', 'uid=1000', 'ok'), "
	    "(3, 0, 1, 'ctl-refused', 'id=', 'error')"), 0);
	db_close(db);
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), 0);
	db_close(db);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT id, time_ns, uid, pid, "
	    "action, result, entry_id, name, path, detail FROM audit ORDER BY "
	    "id", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 1), 1);
	assert_int_equal(sqlite3_column_int64(st, 2), 1000);
	assert_int_equal(sqlite3_column_int64(st, 3), 9);
	assert_string_equal(sqlite3_column_text(st, 4), "restore");
	assert_string_equal(sqlite3_column_text(st, 5), "ok");
	assert_int_equal(sqlite3_column_int64(st, 6), 57);
	assert_int_equal(sqlite3_column_type(st, 7), SQLITE_NULL);
	assert_int_equal(sqlite3_column_type(st, 8), SQLITE_NULL);
	assert_string_equal(sqlite3_column_text(st, 9),
	    "id=57 fs=/home uid=1000 name=a b path=x\\x0ay");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 6), SQLITE_NULL);
	assert_string_equal(sqlite3_column_text(st, 9), "uid=1000");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 6), SQLITE_NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static void
test_newer_refused(void **state)
{
	struct tl *t = *state;
	char path[PATH_MAX], err[1024] = "", sql[64];
	struct db *db = NULL;

	dbpath(t, path, sizeof(path), "newer.db");
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), 0);
	db_close(db);
	TL_SNPRINTF(sql, sizeof(sql), "PRAGMA user_version = %d",
	    db_latest_version() + 1);
	raw_exec(path, sql);
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), -EPROTO);
	assert_null(db);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "newer than this trashd knows"));
}

static void
test_garbage_refused(void **state)
{
	struct tl *t = *state;
	char path[PATH_MAX], err[1024] = "", junk[8192];
	struct db *db = NULL;
	size_t i;

	dbpath(t, path, sizeof(path), "garbage.db");
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 7 + 3);
	tl_write_file(path, junk, sizeof(junk));
	assert_true(db_open(path, 0, &db, err, sizeof(err)) < 0);
	assert_null(db);
	assert_non_null(strstr(err, "not a trashd index or corrupt"));
}

static void
test_corrupt_page_refused(void **state)
{
	struct tl *t = *state;
	char path[PATH_MAX], err[1024] = "", junk[2048];
	struct db *db = NULL;
	struct stat st;
	int fd, i;

	dbpath(t, path, sizeof(path), "corrupt.db");
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), 0);
	for (i = 0; i < 200; i++)
		assert_int_equal(db_exec(db, "INSERT INTO audit (time_ns, uid, "
		    "pid, action, detail, result) VALUES (1, 2, 3, 'a', "
		    "'a fairly long target to fill pages', 'ok')"), 0);
	db_close(db);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 8192);
	/* Smash the second page (a b-tree page), keep the header. */
	memset(junk, 0xa5, sizeof(junk));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 4096), sizeof(junk));
	close(fd);
	db = NULL;
	assert_true(db_open(path, 0, &db, err, sizeof(err)) < 0);
	assert_null(db);
	assert_non_null(strstr(err, "corrupt"));
}

static void
test_lax_refused(void **state)
{
	struct tl *t = *state;
	char path[PATH_MAX], link[PATH_MAX], err[1024] = "";
	struct db *db = NULL;

	dbpath(t, path, sizeof(path), "lax.db");
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), 0);
	db_close(db);

	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0644 is too lax"));
	assert_int_equal(chmod(path, 0600), 0);

	assert_int_equal(chown(path, 1000, 0), 0);
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "owned by uid 1000"));
	assert_int_equal(chown(path, 0, 0), 0);

	dbpath(t, link, sizeof(link), "link.db");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(db_open(link, 0, &db, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "not a regular file"));

	assert_int_equal(chmod(t->dbdir, 0777), 0);
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "no group or other write"));
	assert_int_equal(chmod(t->dbdir, 0700), 0);

	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), 0);
	db_close(db);
}

static void
test_new_file_mode(void **state)
{
	struct tl *t = *state;
	char path[PATH_MAX], err[1024];
	struct db *db;
	struct stat st;
	mode_t old = umask(0);

	dbpath(t, path, sizeof(path), "mode.db");
	assert_int_equal(db_open(path, 0, &db, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	db_close(db);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_embedded),
		cmocka_unit_test(test_fresh_vs_upgrade),
		cmocka_unit_test(test_audit_rows_migrated),
		cmocka_unit_test(test_newer_refused),
		cmocka_unit_test(test_garbage_refused),
		cmocka_unit_test(test_corrupt_page_refused),
		cmocka_unit_test(test_lax_refused),
		cmocka_unit_test(test_new_file_mode),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
