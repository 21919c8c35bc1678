/* SPDX-License-Identifier: ISC */
/*
 * Audit: every state change and every request, as a row of the index and
 * a syslog line.  A row is fields (schema/0005-audit-fields.sql): who
 * (actor uid and pid), what (action), on what (entry id, filesystem,
 * trash uid, owner, name, original path: the user-made ones as their
 * bytes) and how it went (result).  Nothing a user named is formatted
 * into a sentence here, so no name can forge a record; trashctl(1)
 * escapes on output, log.c escapes the syslog line.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* A record's text: a path of PATH_MAX and the rest, as log.c's lines. */
#define AUDIT_LINE_MAX	8192

/* A name as its bytes: never text that SQLite might transcode. */
static void
audit_bind_bytes(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_blob(st, i, s, (int)strlen(s), SQLITE_TRANSIENT);
}

/* A column as a malloc'd NUL-terminated string; NULL for NULL. */
static char *
audit_col_bytes(sqlite3_stmt *st, int i)
{
	const void *p;
	char *s;
	int n;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NULL;
	p = sqlite3_column_blob(st, i);
	n = sqlite3_column_bytes(st, i);
	s = xmalloc((size_t)n + 1);
	if (n > 0)
		memcpy(s, p, (size_t)n);
	s[n] = '\0';
	return s;
}

static int64_t
audit_col_id(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return -1;
	return sqlite3_column_int64(st, i);
}

/*
 * Write @a; the journal gets its fields (journal.c), or else the syslog
 * line says the same, escaped by log.c.
 */
int
audit_record(struct trashd *d, const struct audit_rec *a)
{
	static const char sql[] =
	    "INSERT INTO audit (time_ns, uid, pid, action, result, entry_id, "
	    "fs, trash_uid, owner_uid, name, path, detail) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
	sqlite3_stmt *st;
	char line[AUDIT_LINE_MAX];
	int r;

	if (a->entry_id > 0)
		snprintf(line, sizeof(line), "audit: uid=%" PRId64 " pid=%"
		    PRId64 " %s entry=%"
		    PRId64 " fs=%s uid=%" PRId64 " owner=%" PRId64 " name=%s "
		    "path=%s: %s", a->uid, a->pid, a->action, a->entry_id,
		    a->fs != NULL ? a->fs : "?", a->trash_uid, a->owner_uid,
		    a->name != NULL ? a->name : "?",
		    a->path != NULL ? a->path : "(unknown)", a->result);
	else
		snprintf(line, sizeof(line), "audit: uid=%" PRId64 " pid=%"
		    PRId64 " %s %s%s%s: %s",
		    a->uid, a->pid, a->action, a->detail != NULL ? a->detail :
		    "-", a->path != NULL ? " path=" : "",
		    a->path != NULL ? a->path : "", a->result);
	if (journal_audit(a, line) < 0)
		log_info("%s", line);
	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, now_ns());
	sqlite3_bind_int64(st, 2, a->uid);
	sqlite3_bind_int64(st, 3, a->pid);
	db_bind_text(st, 4, a->action);
	db_bind_text(st, 5, a->result != NULL ? a->result : "");
	db_bind_opt(st, 6, a->entry_id > 0 ? a->entry_id : -1);
	audit_bind_bytes(st, 7, a->fs);
	db_bind_opt(st, 8, a->trash_uid);
	db_bind_opt(st, 9, a->owner_uid);
	audit_bind_bytes(st, 10, a->name);
	audit_bind_bytes(st, 11, a->path);
	db_bind_text(st, 12, a->detail);
	if ((r = db_done(d->db, st)) < 0)
		log_warnx("audit: row lost: %s entry %" PRId64 ": %s",
		    a->action, a->entry_id, a->result);
	return r;
}

/* A record of no entry: @detail is trashd's own words ("uid=1000"). */
int
audit_log(struct trashd *d, int64_t uid, int64_t pid, const char *action,
    const char *detail, const char *result)
{
	struct audit_rec a = { .uid = uid, .pid = pid, .action = action,
	    .result = result, .trash_uid = -1, .owner_uid = -1,
	    .detail = detail };

	return audit_record(d, &a);
}

/* A record of entry @e on @fs (NULL: unknown). */
int
audit_entry(struct trashd *d, int64_t uid, int64_t pid, const char *action,
    const struct tfs *fs, const struct entry *e, const char *result)
{
	struct audit_rec a = { .uid = uid, .pid = pid, .action = action,
	    .result = result, .entry_id = e->id,
	    .fs = fs != NULL ? fs->path : NULL, .trash_uid = e->trash_uid,
	    .owner_uid = e->owner_uid, .name = e->name,
	    .path = e->orig_path };

	return audit_record(d, &a);
}

void
audit_rows_free(struct audit_row *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].action);
		free(v[i].result);
		free(v[i].fs);
		free(v[i].name);
		free(v[i].path);
		free(v[i].detail);
	}
	free(v);
}

#define AUDIT_COLS	"id, time_ns, uid, pid, action, result, entry_id, " \
	"fs, trash_uid, owner_uid, name, path, detail"

/* The rows of @st, selected AUDIT_COLS, appended to *@v. */
static int
audit_rows(struct trashd *d, sqlite3_stmt *st, struct audit_row **out,
    size_t *n)
{
	struct audit_row *v = NULL, *w;
	size_t cap = 0, cnt = 0;
	int r;

	while ((r = db_row(d->db, st)) > 0) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		w = &v[cnt++];
		w->id = sqlite3_column_int64(st, 0);
		w->time_ns = sqlite3_column_int64(st, 1);
		w->uid = sqlite3_column_int64(st, 2);
		w->pid = sqlite3_column_int64(st, 3);
		w->action = xstrdup(db_col_text(st, 4));
		w->result = xstrdup(db_col_text(st, 5));
		w->entry_id = audit_col_id(st, 6);
		w->fs = audit_col_bytes(st, 7);
		w->trash_uid = audit_col_id(st, 8);
		w->owner_uid = audit_col_id(st, 9);
		w->name = audit_col_bytes(st, 10);
		w->path = audit_col_bytes(st, 11);
		w->detail = audit_col_bytes(st, 12);
	}
	if (r < 0) {
		audit_rows_free(v, cnt);
		return r;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/* Rows since @since_ns (0: all), of actor @uid (-1: all), oldest first. */
int
audit_query(struct trashd *d, int64_t since_ns, int64_t uid, size_t limit,
    struct audit_row **out, size_t *n)
{
	static const char sql[] =
	    "SELECT " AUDIT_COLS " FROM audit "
	    "WHERE time_ns >= ?1 AND (?2 < 0 OR uid = ?2) ORDER BY id LIMIT ?3";
	sqlite3_stmt *st;

	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, since_ns);
	sqlite3_bind_int64(st, 2, uid);
	sqlite3_bind_int64(st, 3, limit ? (int64_t)limit : -1);
	return audit_rows(d, st, out, n);
}

/*
 * The audit table's own retention, and the history of entries that left
 * the trash (final states) with it.
 */
int
audit_expire(struct trashd *d, int64_t now)
{
	static const char del_audit[] = "DELETE FROM audit WHERE time_ns < ?1";
	static const char del_wipes[] =
	    "DELETE FROM wipes WHERE time_ns < ?1";
	static const char del_entries[] =
	    "DELETE FROM entries WHERE changed_ns < ?1 AND "
	    "state IN ('restored', 'wiped', 'purged') AND "
	    "id NOT IN (SELECT entry_id FROM wipes WHERE entry_id NOT NULL)";
	sqlite3_stmt *st;
	int64_t cutoff, n;
	int r;

	if (d->conf->audit_retention == 0)
		return 0;
	cutoff = now - d->conf->audit_retention * NSEC_PER_SEC;
	if ((st = db_stmt(d->db, del_audit)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, cutoff);
	if ((r = db_done(d->db, st)) < 0)
		return r;
	n = db_changes(d->db);
	if ((st = db_stmt(d->db, del_wipes)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, cutoff);
	if ((r = db_done(d->db, st)) < 0)
		return r;
	if ((st = db_stmt(d->db, del_entries)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, cutoff);
	if ((r = db_done(d->db, st)) < 0)
		return r;
	if (n > 0)
		log_info("audit: expired %" PRId64 " rows", n);
	return 0;
}

/*
 * The newest @f->limit rows that match @f, returned oldest first.  One
 * statement over the audit table alone (no join: a row is returned once),
 * every criterion a bound parameter that is NULL or -1 for "any".
 *
 * The path is matched as bytes (blobs, never text that SQLite would
 * count in characters) at a component boundary: /home/a is at or under
 * itself and /home/a/x, not /home/ab.  An entry's record holds its path
 * relative to its filesystem's mount point, so its absolute path is the
 * two joined; a request's record holds the absolute path the client
 * named, and no filesystem.
 */
int
audit_search(struct trashd *d, const struct audit_filter *f,
    struct audit_row **out, size_t *n)
{
	static const char sql[] =
	    "SELECT " AUDIT_COLS " FROM ("
	    "SELECT *, CASE WHEN fs IS NULL THEN path "
	    "WHEN path IS NULL THEN NULL "
	    "WHEN fs = X'2F' THEN CAST('/' || path AS BLOB) "
	    "ELSE CAST(fs || '/' || path AS BLOB) END AS abspath FROM audit) "
	    "WHERE (?1 < 0 OR uid = ?1) AND "
	    "(?2 < 0 OR trash_uid = ?2 OR owner_uid = ?2) AND "
	    "(?3 IS NULL OR action = ?3) AND "
	    "(?4 IS NULL OR result = ?4 OR "
	    "substr(result, 1, length(?4) + 1) = ?4 || ':') AND "
	    "(?5 IS NULL OR abspath = ?5 OR "
	    "substr(abspath, 1, length(?6)) = ?6) AND "
	    "time_ns >= ?7 AND (?8 = 0 OR time_ns < ?8) "
	    "ORDER BY id DESC LIMIT ?9";
	struct audit_row *v, tmp;
	sqlite3_stmt *st;
	char *under = NULL;
	size_t i, len;
	int r;

	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, f->uid);
	sqlite3_bind_int64(st, 2, f->owner);
	db_bind_text(st, 3, f->action);
	db_bind_text(st, 4, f->result);
	audit_bind_bytes(st, 5, f->prefix);
	/* What is under it starts with it and a slash; "/" is its own. */
	if (f->prefix != NULL) {
		len = strlen(f->prefix);
		if (len > 0 && f->prefix[len - 1] == '/')
			under = xstrdup(f->prefix);
		else
			xasprintf(&under, "%s/", f->prefix);
	}
	audit_bind_bytes(st, 6, under);
	sqlite3_bind_int64(st, 7, f->since_ns);
	sqlite3_bind_int64(st, 8, f->before_ns);
	sqlite3_bind_int64(st, 9, f->limit ? (int64_t)f->limit : -1);
	r = audit_rows(d, st, &v, n);
	free(under);
	if (r < 0)
		return r;
	for (i = 0; i < *n / 2; i++) {
		tmp = v[i];
		v[i] = v[*n - 1 - i];
		v[*n - 1 - i] = tmp;
	}
	*out = v;
	return 0;
}
