/* SPDX-License-Identifier: ISC */
/*
 * The index database: SQLite in WAL mode, owned by root, mode 0600.
 * Migrations are the embedded schema/NNNN-*.sql, one transaction per
 * version with PRAGMA user_version set in the same transaction.  Every
 * value is bound; no SQL is ever built from strings.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

/* Distinct SQL statements in trashd; a larger need is a programming error. */
#define DB_STMT_CACHE	128

struct db_cached {
	const char	*sql;		/* a literal: compared by address */
	sqlite3_stmt	*st;
};

struct db {
	sqlite3		*h;
	char		*path;
	struct db_cached cache[DB_STMT_CACHE];
	size_t		 ncache;
	unsigned	 depth;		/* nested db_begin()s */
};

int
db_latest_version(void)
{
	return db_migrations[db_nmigrations - 1].version;
}

/*
 * The index names other users' deleted files: it must be ours alone.
 * @must_exist: 0 for files that may be absent.
 */
static int
db_check_file(const char *path, bool is_dir, bool must_exist, char *err,
    size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT && !must_exist)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: refusing it: not a %s (a symlink?)",
		    path, is_dir ? "directory" : "regular file");
		return -EPERM;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: refusing it: owned by uid %u, not "
		    "by uid %u", path, (unsigned)st.st_uid,
		    (unsigned)geteuid());
		return -EPERM;
	}
	if (is_dir ? (st.st_mode & 022) : (st.st_mode & 077)) {
		snprintf(err, errlen, "%s: refusing it: mode %04o is too lax "
		    "(want %s)", path, (unsigned)(st.st_mode & 07777),
		    is_dir ? "no group or other write" : "0600");
		return -EPERM;
	}
	return 0;
}

/*
 * The index's directory, and the index and its WAL files where they exist:
 * what db_open will accept, checked without creating anything (trashd -t).
 */
int
db_check(const char *path, char *err, size_t errlen)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char buf[PATH_MAX];
	size_t i;
	int r;

	if (strlen(path) + 5 >= sizeof(buf)) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	if ((r = db_check_file(dirname(buf), true, true, err, errlen)) < 0)
		return r;
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", path, sfx[i]);
		if ((r = db_check_file(buf, false, false, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int
db_check_paths(const char *path, char *err, size_t errlen)
{
	int fd, r;

	if ((r = db_check(path, err, errlen)) < 0)
		return r;
	/* Created here so that it is 0600 from its first byte. */
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	close(fd);
	return db_check_file(path, false, true, err, errlen);
}

static const char *
db_errmsg(struct db *db)
{
	return sqlite3_errmsg(db->h);
}

sqlite3_stmt *
db_stmt(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	size_t i;

	for (i = 0; i < db->ncache; i++) {
		if (db->cache[i].sql == sql) {
			st = db->cache[i].st;
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return st;
		}
	}
	if (db->ncache == DB_STMT_CACHE)
		fatalx("db: more than %d statements", DB_STMT_CACHE);
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st,
	    NULL) != SQLITE_OK) {
		log_warnx("index: %s: %s", sql, db_errmsg(db));
		return NULL;
	}
	db->cache[db->ncache].sql = sql;
	db->cache[db->ncache].st = st;
	db->ncache++;
	return st;
}

/* 1: a row, 0: done (statement reset), -EIO: error (logged, reset). */
int
db_row(struct db *db, sqlite3_stmt *st)
{
	int r = sqlite3_step(st);

	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE) {
		sqlite3_reset(st);
		return 0;
	}
	log_warnx("index: %s", db_errmsg(db));
	sqlite3_reset(st);
	return (r & 0xff) == SQLITE_CONSTRAINT ? -EEXIST : -EIO;
}

int
db_done(struct db *db, sqlite3_stmt *st)
{
	int r = db_row(db, st);

	if (r > 0) {
		sqlite3_reset(st);
		return 0;
	}
	return r;
}

int
db_exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		log_warnx("index: %s: %s", sql, msg ? msg : "?");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

int64_t
db_changes(struct db *db)
{
	return sqlite3_changes64(db->h);
}

int64_t
db_last_id(struct db *db)
{
	return sqlite3_last_insert_rowid(db->h);
}

void
db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* An optional integer: below 0 is NULL. */
void
db_bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

const char *
db_col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Transactions nest: only the outermost begin and commit reach SQLite. */
int
db_begin(struct db *db)
{
	int r;

	if (db->depth++ > 0)
		return 0;
	if ((r = db_exec(db, "BEGIN IMMEDIATE")) < 0)
		db->depth = 0;
	return r;
}

int
db_commit(struct db *db)
{
	int r;

	if (db->depth == 0)
		return -EIO;	/* rolled back below us */
	if (--db->depth > 0)
		return 0;
	if ((r = db_exec(db, "COMMIT")) < 0)
		db_rollback(db);
	return r;
}

void
db_rollback(struct db *db)
{
	db->depth = 0;
	if (!sqlite3_get_autocommit(db->h))
		(void)db_exec(db, "ROLLBACK");
}

int
db_version(struct db *db, int *v)
{
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(db, "PRAGMA user_version")) == NULL)
		return -EIO;
	if ((r = db_row(db, st)) <= 0)
		return r == 0 ? -EIO : r;
	*v = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	return 0;
}

int
db_migrate(struct db *db, int target, char *err, size_t errlen)
{
	char *msg = NULL;
	size_t i;
	int v, r;

	if ((r = db_version(db, &v)) < 0) {
		snprintf(err, errlen, "%s: cannot read schema version: %s",
		    db->path, db_errmsg(db));
		return r;
	}
	for (i = 0; i < db_nmigrations; i++) {
		const struct db_migration *m = &db_migrations[i];

		if (m->version <= v || m->version > target)
			continue;
		if (db_begin(db) < 0 ||
		    sqlite3_exec(db->h, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
			snprintf(err, errlen, "%s: migration %s failed: %s",
			    db->path, m->name, msg ? msg : db_errmsg(db));
			sqlite3_free(msg);
			db_rollback(db);
			return -EIO;
		}
		if ((r = db_version(db, &v)) < 0 || v != m->version) {
			snprintf(err, errlen, "%s: migration %s did not set "
			    "user_version to %d", db->path, m->name,
			    m->version);
			db_rollback(db);
			return -EIO;
		}
		if (db_commit(db) < 0) {
			snprintf(err, errlen, "%s: migration %s: commit: %s",
			    db->path, m->name, db_errmsg(db));
			db_rollback(db);
			return -EIO;
		}
		log_info("index: %s: migrated to version %d (%s)", db->path,
		    m->version, m->name);
	}
	return 0;
}

/* One text result of a pragma, into @out. */
static int
db_pragma(struct db *db, const char *sql, char *out, size_t len)
{
	sqlite3_stmt *st = NULL;
	int r = -EIO;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW)
		goto out;
	snprintf(out, len, "%s", sqlite3_column_text(st, 0) ?
	    (const char *)sqlite3_column_text(st, 0) : "");
	r = 0;
out:
	sqlite3_finalize(st);
	return r;
}

int
db_open(const char *path, int flags, struct db **dbp, char *err,
    size_t errlen)
{
	struct db *db;
	char buf[256];
	int v, r;

	*dbp = NULL;
	if ((r = db_check_paths(path, err, errlen)) < 0)
		return r;
	db = xcalloc(1, sizeof(*db));
	db->path = xstrdup(path);
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
		    db->h ? db_errmsg(db) : "out of memory");
		r = -EIO;
		goto fail;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, 5000);
	/* The first read of the file: garbage fails here. */
	if (db_pragma(db, "PRAGMA user_version", buf, sizeof(buf)) < 0) {
		snprintf(err, errlen, "%s: not a trashd index or corrupt: %s; "
		    "move it away to start a new index", path, db_errmsg(db));
		r = -EIO;
		goto fail;
	}
	v = atoi(buf);
	if (v > db_latest_version()) {
		snprintf(err, errlen, "%s: schema version %d is newer than "
		    "this trashd knows (%d): refusing to use it; run a newer "
		    "trashd or restore a backup", path, v,
		    db_latest_version());
		r = -EPROTO;
		goto fail;
	}
	if (v < 0) {
		snprintf(err, errlen, "%s: bad schema version %d", path, v);
		r = -EPROTO;
		goto fail;
	}
	if (db_pragma(db, "PRAGMA quick_check", buf, sizeof(buf)) < 0 ||
	    strcmp(buf, "ok") != 0) {
		snprintf(err, errlen, "%s: corrupt: %s; move it away to start "
		    "a new index", path, buf[0] ? buf : db_errmsg(db));
		r = -EIO;
		goto fail;
	}
	if (db_pragma(db, "PRAGMA journal_mode = WAL", buf, sizeof(buf)) < 0 ||
	    strcmp(buf, "wal") != 0) {
		snprintf(err, errlen, "%s: cannot use WAL mode: %s", path,
		    db_errmsg(db));
		r = -EIO;
		goto fail;
	}
	if (db_exec(db, "PRAGMA foreign_keys = ON") < 0 ||
	    db_exec(db, "PRAGMA synchronous = NORMAL") < 0 ||
	    /* Sorts (a list of 100,000 entries) in memory, not temp files. */
	    db_exec(db, "PRAGMA temp_store = MEMORY") < 0 ||
	    db_exec(db, "CREATE TEMP TABLE scan_seen "
	    "(id INTEGER PRIMARY KEY)") < 0) {
		snprintf(err, errlen, "%s: %s", path, db_errmsg(db));
		r = -EIO;
		goto fail;
	}
	if (!(flags & DB_NOMIGRATE) &&
	    (r = db_migrate(db, db_latest_version(), err, errlen)) < 0)
		goto fail;
	*dbp = db;
	return 0;
fail:
	db_close(db);
	return r;
}

void
db_close(struct db *db)
{
	size_t i;

	if (db == NULL)
		return;
	for (i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].st);
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}
