/* SPDX-License-Identifier: ISC */
/*
 * Audit: every state change and every request, as a row of the index
 * (time, actor uid and pid, action, target, result) and a syslog line.
 * Names come from users: control bytes are escaped before either.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trashd.h"

/* Escape control bytes and backslashes; the result is malloc'd. */
char *
audit_vis(const char *s)
{
	size_t len = strlen(s), i, o = 0;
	char *out = xmalloc(len * 4 + 1);

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '\\') {
			snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return out;
}

char *
audit_entry_target(const struct tfs *fs, const struct entry *e)
{
	char *name = audit_vis(e->name), *path = NULL, *t;

	if (e->orig_path != NULL)
		path = audit_vis(e->orig_path);
	xasprintf(&t, "id=%" PRId64 " fs=%s uid=%u name=%s path=%s", e->id,
	    fs != NULL ? fs->path : "?", e->trash_uid, name,
	    path != NULL ? path : "(unknown)");
	free(name);
	free(path);
	return t;
}

int
audit_log(struct trashd *d, int64_t uid, int64_t pid, const char *action,
    const char *target, const char *result)
{
	static const char sql[] =
	    "INSERT INTO audit (time_ns, uid, pid, action, target, result) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
	sqlite3_stmt *st;
	int r;

	log_info("audit: uid=%" PRId64 " pid=%" PRId64 " %s %s: %s", uid, pid,
	    action, target, result);
	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, now_ns());
	sqlite3_bind_int64(st, 2, uid);
	sqlite3_bind_int64(st, 3, pid);
	db_bind_text(st, 4, action);
	db_bind_text(st, 5, target);
	db_bind_text(st, 6, result);
	if ((r = db_done(d->db, st)) < 0)
		log_warnx("audit: row lost: %s %s: %s", action, target, result);
	return r;
}

void
audit_rows_free(struct audit_row *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].action);
		free(v[i].target);
		free(v[i].result);
	}
	free(v);
}

/* Rows since @since_ns (0: all), of actor @uid (-1: all), oldest first. */
int
audit_query(struct trashd *d, int64_t since_ns, int64_t uid, size_t limit,
    struct audit_row **out, size_t *n)
{
	static const char sql[] =
	    "SELECT id, time_ns, uid, pid, action, target, result FROM audit "
	    "WHERE time_ns >= ?1 AND (?2 < 0 OR uid = ?2) ORDER BY id LIMIT ?3";
	struct audit_row *v = NULL;
	sqlite3_stmt *st;
	size_t cap = 0, cnt = 0;
	int r;

	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, since_ns);
	sqlite3_bind_int64(st, 2, uid);
	sqlite3_bind_int64(st, 3, limit ? (int64_t)limit : -1);
	while ((r = db_row(d->db, st)) > 0) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[cnt].id = sqlite3_column_int64(st, 0);
		v[cnt].time_ns = sqlite3_column_int64(st, 1);
		v[cnt].uid = sqlite3_column_int64(st, 2);
		v[cnt].pid = sqlite3_column_int64(st, 3);
		v[cnt].action = xstrdup(db_col_text(st, 4));
		v[cnt].target = xstrdup(db_col_text(st, 5));
		v[cnt].result = xstrdup(db_col_text(st, 6));
		cnt++;
	}
	if (r < 0) {
		audit_rows_free(v, cnt);
		return r;
	}
	*out = v;
	*n = cnt;
	return 0;
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

/* The newest @f->limit rows that match @f, returned oldest first. */
int
audit_search(struct trashd *d, const struct audit_filter *f,
    struct audit_row **out, size_t *n)
{
	static const char sql[] =
	    "SELECT id, time_ns, uid, pid, action, target, result FROM audit "
	    "WHERE (?1 < 0 OR uid = ?1) AND (?2 IS NULL OR action = ?2) AND "
	    "time_ns >= ?3 AND (?4 = 0 OR time_ns < ?4) "
	    "ORDER BY id DESC LIMIT ?5";
	struct audit_row *v = NULL, tmp;
	sqlite3_stmt *st;
	size_t cap = 0, cnt = 0, i;
	int r;

	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, f->uid);
	db_bind_text(st, 2, f->action);
	sqlite3_bind_int64(st, 3, f->since_ns);
	sqlite3_bind_int64(st, 4, f->before_ns);
	sqlite3_bind_int64(st, 5, f->limit ? (int64_t)f->limit : -1);
	while ((r = db_row(d->db, st)) > 0) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[cnt].id = sqlite3_column_int64(st, 0);
		v[cnt].time_ns = sqlite3_column_int64(st, 1);
		v[cnt].uid = sqlite3_column_int64(st, 2);
		v[cnt].pid = sqlite3_column_int64(st, 3);
		v[cnt].action = xstrdup(db_col_text(st, 4));
		v[cnt].target = xstrdup(db_col_text(st, 5));
		v[cnt].result = xstrdup(db_col_text(st, 6));
		cnt++;
	}
	if (r < 0) {
		audit_rows_free(v, cnt);
		return r;
	}
	for (i = 0; i < cnt / 2; i++) {
		tmp = v[i];
		v[i] = v[cnt - 1 - i];
		v[cnt - 1 - i] = tmp;
	}
	*out = v;
	*n = cnt;
	return 0;
}
