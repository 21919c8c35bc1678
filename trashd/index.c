/* SPDX-License-Identifier: ISC */
/*
 * Entries of the index: one row per inode that entered a trash.  Only the
 * database is touched here; scan.c and policy.c decide and audit.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

static const char *const entry_states[] = {
	[ENTRY_TRASHED] = "trashed",
	[ENTRY_RESTORED] = "restored",
	[ENTRY_WIPING] = "wiping",
	[ENTRY_WIPED] = "wiped",
	[ENTRY_PURGED] = "purged",
};
#define ENTRY_NSTATES	(sizeof(entry_states) / sizeof(entry_states[0]))

#define ENTRY_COLS "id, fs_id, trash_uid, owner_uid, deleter_uid, name, " \
	"orig_path, deleted_ns, size, alloc, flags, state, dev, ino, " \
	"generation"

const char *
entry_state_name(enum entry_state s)
{
	if ((size_t)s >= ENTRY_NSTATES)
		return "?";
	return entry_states[s];
}

int
entry_state_parse(const char *s, enum entry_state *out)
{
	size_t i;

	for (i = 0; s != NULL && i < ENTRY_NSTATES; i++) {
		if (strcmp(s, entry_states[i]) == 0) {
			*out = (enum entry_state)i;
			return 0;
		}
	}
	return -EINVAL;
}

void
entry_clear(struct entry *e)
{
	free(e->name);
	free(e->orig_path);
	memset(e, 0, sizeof(*e));
}

void
entry_list_free(struct entry_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		entry_clear(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
index_read_row(sqlite3_stmt *st, struct entry *e)
{
	memset(e, 0, sizeof(*e));
	e->id = sqlite3_column_int64(st, 0);
	e->fs_id = sqlite3_column_int64(st, 1);
	e->trash_uid = (uint32_t)sqlite3_column_int64(st, 2);
	e->owner_uid = (uint32_t)sqlite3_column_int64(st, 3);
	e->deleter_uid = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 4);
	e->name = xstrdup(db_col_text(st, 5) ? db_col_text(st, 5) : "");
	e->orig_path = db_col_text(st, 6) ? xstrdup(db_col_text(st, 6)) :
	    NULL;
	e->deleted_ns = sqlite3_column_int64(st, 7);
	e->size = sqlite3_column_int64(st, 8);
	e->alloc = sqlite3_column_int64(st, 9);
	e->flags = (uint32_t)sqlite3_column_int64(st, 10);
	if (entry_state_parse(db_col_text(st, 11), &e->state) < 0)
		return -EINVAL;
	e->ident.dev = (uint64_t)sqlite3_column_int64(st, 12);
	e->ident.ino = (uint64_t)sqlite3_column_int64(st, 13);
	e->generation = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 14);
	return 0;
}

/* Read the single row of @st into @e; -ENOENT if none. */
static int
index_one(struct db *db, sqlite3_stmt *st, struct entry *e)
{
	int r = db_row(db, st);

	if (r == 0)
		return -ENOENT;
	if (r < 0)
		return r;
	r = index_read_row(st, e);
	sqlite3_reset(st);
	if (r < 0)
		entry_clear(e);
	return r;
}

int
index_fs_id(struct db *db, const char *path, int64_t *id)
{
	static const char ins[] =
	    "INSERT INTO filesystems (path) VALUES (?1) "
	    "ON CONFLICT (path) DO NOTHING";
	static const char sel[] = "SELECT id FROM filesystems WHERE path = ?1";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(db, ins)) == NULL)
		return -EIO;
	db_bind_text(st, 1, path);
	if ((r = db_done(db, st)) < 0)
		return r;
	if ((st = db_stmt(db, sel)) == NULL)
		return -EIO;
	db_bind_text(st, 1, path);
	if ((r = db_row(db, st)) <= 0)
		return r == 0 ? -ENOENT : r;
	*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return 0;
}

int
index_insert(struct db *db, struct entry *e)
{
	static const char sql[] =
	    "INSERT INTO entries (fs_id, trash_uid, owner_uid, deleter_uid, "
	    "name, orig_path, deleted_ns, size, alloc, flags, state, dev, ino, "
	    "generation, changed_ns) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, e->fs_id);
	sqlite3_bind_int64(st, 2, e->trash_uid);
	sqlite3_bind_int64(st, 3, e->owner_uid);
	if (e->deleter_uid >= 0)
		sqlite3_bind_int64(st, 4, e->deleter_uid);
	db_bind_text(st, 5, e->name);
	db_bind_text(st, 6, e->orig_path);
	sqlite3_bind_int64(st, 7, e->deleted_ns);
	sqlite3_bind_int64(st, 8, e->size);
	sqlite3_bind_int64(st, 9, e->alloc);
	sqlite3_bind_int64(st, 10, e->flags);
	db_bind_text(st, 11, entry_state_name(e->state));
	sqlite3_bind_int64(st, 12, (int64_t)e->ident.dev);
	sqlite3_bind_int64(st, 13, (int64_t)e->ident.ino);
	if (e->generation >= 0)
		sqlite3_bind_int64(st, 14, e->generation);
	sqlite3_bind_int64(st, 15, now_ns());
	if ((r = db_done(db, st)) < 0)
		return r;
	e->id = db_last_id(db);
	return 0;
}

int
index_get(struct db *db, int64_t id, struct entry *e)
{
	static const char sql[] = "SELECT " ENTRY_COLS
	    " FROM entries WHERE id = ?1";
	sqlite3_stmt *st;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	return index_one(db, st, e);
}

int
index_find_live(struct db *db, int64_t fs_id, uint64_t ino, struct entry *e)
{
	static const char sql[] = "SELECT " ENTRY_COLS
	    " FROM entries WHERE fs_id = ?1 AND ino = ?2 AND "
	    "state IN ('trashed', 'wiping')";
	sqlite3_stmt *st;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	sqlite3_bind_int64(st, 2, (int64_t)ino);
	return index_one(db, st, e);
}

int
index_find_name(struct db *db, int64_t fs_id, uint32_t uid, const char *name,
    struct entry *e)
{
	static const char sql[] = "SELECT " ENTRY_COLS
	    " FROM entries WHERE fs_id = ?1 AND trash_uid = ?2 AND name = ?3 "
	    "AND state = 'trashed' LIMIT 1";
	sqlite3_stmt *st;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	sqlite3_bind_int64(st, 2, uid);
	db_bind_text(st, 3, name);
	return index_one(db, st, e);
}

/* What may change while an inode sits in the trash: where, size, flags. */
int
index_refresh(struct db *db, const struct entry *e)
{
	static const char sql[] =
	    "UPDATE entries SET trash_uid = ?2, owner_uid = ?3, name = ?4, "
	    "size = ?5, alloc = ?6, flags = ?7, changed_ns = ?8 WHERE id = ?1";
	sqlite3_stmt *st;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, e->id);
	sqlite3_bind_int64(st, 2, e->trash_uid);
	sqlite3_bind_int64(st, 3, e->owner_uid);
	db_bind_text(st, 4, e->name);
	sqlite3_bind_int64(st, 5, e->size);
	sqlite3_bind_int64(st, 6, e->alloc);
	sqlite3_bind_int64(st, 7, e->flags);
	sqlite3_bind_int64(st, 8, now_ns());
	return db_done(db, st);
}

int
index_set_state(struct db *db, int64_t id, enum entry_state s)
{
	static const char sql[] =
	    "UPDATE entries SET state = ?2, changed_ns = ?3 WHERE id = ?1";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, entry_state_name(s));
	sqlite3_bind_int64(st, 3, now_ns());
	if ((r = db_done(db, st)) < 0)
		return r;
	return db_changes(db) == 1 ? 0 : -ENOENT;
}

/*
 * One fixed condition for every filter: an unused one is bound to a value
 * that makes it true.  The (deleted_ns, id) cursor is a row value, so the
 * entries_deleted index serves it and the order: a page costs the rows it
 * returns, not a scan and a sort.
 */
#define INDEX_WHERE " FROM entries WHERE (?1 < 0 OR fs_id = ?1)" \
    " AND (?2 < 0 OR trash_uid = ?2)" \
    " AND (?3 = 0 OR ((1 << CASE state WHEN 'trashed' THEN 0" \
    " WHEN 'restored' THEN 1 WHEN 'wiping' THEN 2 WHEN 'wiped' THEN 3" \
    " ELSE 4 END) & ?3) != 0)" \
    " AND (?4 = 0 OR deleted_ns < ?4) AND (flags & ?5) = ?5" \
    " AND (deleted_ns, id) > (?8, ?7) AND deleted_ns >= ?9" \
    " AND (?10 IS NULL OR orig_path = ?10" \
    " OR (orig_path >= ?10 || '/' AND orig_path < ?10 || '0'))" \
    " AND (flags & ?11) = 0 AND (?12 < 0 OR owner_uid = ?12)"

/* Oldest first. */
static const char index_list_sql[] = "SELECT " ENTRY_COLS INDEX_WHERE
    " ORDER BY deleted_ns, id LIMIT ?6";

static void
index_bind_filter(sqlite3_stmt *st, const struct index_filter *f)
{
	sqlite3_bind_int64(st, 1, f->fs_id);
	sqlite3_bind_int64(st, 2, f->uid);
	sqlite3_bind_int64(st, 3, f->states);
	sqlite3_bind_int64(st, 4, f->before_ns);
	sqlite3_bind_int64(st, 5, f->flags_set);
	sqlite3_bind_int64(st, 6, f->limit ? (int64_t)f->limit : -1);
	sqlite3_bind_int64(st, 7, f->after ? f->after_id : INT64_MIN);
	sqlite3_bind_int64(st, 8, f->after ? f->after_ns : INT64_MIN);
	sqlite3_bind_int64(st, 9, f->since_ns ? f->since_ns : INT64_MIN);
	/* '/' + 1 is '0': the range holds exactly the paths under it. */
	if (f->prefix != NULL && f->prefix[0] != '\0')
		sqlite3_bind_text(st, 10, f->prefix, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 10);
	sqlite3_bind_int64(st, 11, f->flags_clear);
	sqlite3_bind_int64(st, 12, f->by_owner ? (int64_t)f->owner : -1);
}

/*
 * Read every row of @st (bound, not yet stepped) into @l, which must be
 * empty.  On error @l is freed and emptied again.
 */
static int
index_collect(struct db *db, sqlite3_stmt *st, struct entry_list *l)
{
	size_t cap = 0;
	int r;

	while ((r = db_row(db, st)) > 0) {
		if (l->n == cap) {
			cap = cap ? cap * 2 : 16;
			l->v = xreallocarray(l->v, cap, sizeof(*l->v));
		}
		if ((r = index_read_row(st, &l->v[l->n])) < 0) {
			entry_clear(&l->v[l->n]);
			sqlite3_reset(st);
			break;
		}
		l->n++;
	}
	if (r < 0)
		entry_list_free(l);
	return r;
}

int
index_list(struct db *db, const struct index_filter *f, struct entry_list *l)
{
	sqlite3_stmt *st;

	l->v = NULL;
	l->n = 0;
	if ((st = db_stmt(db, index_list_sql)) == NULL)
		return -EIO;
	index_bind_filter(st, f);
	return index_collect(db, st, l);
}

/*
 * The cursor that starts the newest @n rows of @f (@f's own cursor and
 * limit are not looked at): paging from it with after set lists exactly
 * them, oldest first.  -ENOENT: fewer than @n rows match, list them all.
 */
int
index_newest(struct db *db, const struct index_filter *f, size_t n,
    int64_t *after_ns, int64_t *after_id)
{
	static const char sql[] = "SELECT deleted_ns, id" INDEX_WHERE
	    " ORDER BY deleted_ns DESC, id DESC LIMIT 1 OFFSET ?11";
	struct index_filter g = *f;
	sqlite3_stmt *st;
	int r;

	if (n == 0)
		return -EINVAL;
	g.after = false;
	g.limit = 0;
	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	index_bind_filter(st, &g);
	sqlite3_bind_int64(st, 11, (int64_t)n - 1);
	if ((r = db_row(db, st)) <= 0)
		return r == 0 ? -ENOENT : r;
	/* Just before that row: ids are integers. */
	*after_ns = sqlite3_column_int64(st, 0);
	*after_id = sqlite3_column_int64(st, 1) - 1;
	sqlite3_reset(st);
	return 0;
}

int
index_count(struct db *db, const struct index_filter *f, int64_t *n)
{
	static const char sql[] = "SELECT count(*) FROM (SELECT id"
	    INDEX_WHERE " LIMIT ?6)";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	index_bind_filter(st, f);
	if ((r = db_row(db, st)) <= 0)
		return r == 0 ? -EIO : r;
	*n = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return 0;
}

int
index_usage(struct db *db, int64_t fs_id, uint32_t uid, struct usage *u)
{
	/* One row of the table the triggers of schema/0003, 0006 keep. */
	static const char sql[] =
	    "SELECT count, bytes, alloc FROM usage WHERE fs_id = ?1 AND "
	    "trash_uid = ?2";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	sqlite3_bind_int64(st, 2, uid);
	u->uid = uid;
	u->count = 0;
	u->bytes = 0;
	u->alloc = 0;
	if ((r = db_row(db, st)) <= 0)
		return r;
	u->count = sqlite3_column_int64(st, 0);
	u->bytes = sqlite3_column_int64(st, 1);
	u->alloc = sqlite3_column_int64(st, 2);
	sqlite3_reset(st);
	return 0;
}

int
index_usage_all(struct db *db, int64_t fs_id, struct usage **out, size_t *n)
{
	static const char sql[] =
	    "SELECT trash_uid, sum(count), sum(bytes), sum(alloc) FROM usage "
	    "WHERE (?1 < 0 OR fs_id = ?1) AND count > 0 "
	    "GROUP BY trash_uid ORDER BY trash_uid";
	struct usage *v = NULL;
	sqlite3_stmt *st;
	size_t cap = 0, cnt = 0;
	int r;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	while ((r = db_row(db, st)) > 0) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[cnt].uid = (uint32_t)sqlite3_column_int64(st, 0);
		v[cnt].count = sqlite3_column_int64(st, 1);
		v[cnt].bytes = sqlite3_column_int64(st, 2);
		v[cnt].alloc = sqlite3_column_int64(st, 3);
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
 * The control socket's restore moves the file out as the caller; then the
 * row is marked here.  Only a live entry can be restored.  The caller's
 * "restore" record says who did it and how it went: one record per
 * restore, not a second "restored" one from here.
 */
int
index_mark_restored(struct trashd *d, int64_t id, int64_t actor_uid,
    int64_t actor_pid)
{
	struct entry e;
	int r;

	(void)actor_uid;
	(void)actor_pid;

	if ((r = index_get(d->db, id, &e)) < 0)
		return r;
	if (e.state != ENTRY_TRASHED) {
		entry_clear(&e);
		return -EALREADY;
	}
	r = index_set_state(d->db, id, ENTRY_RESTORED);
	entry_clear(&e);
	return r;
}

/*
 * Live entries of @uid on @fs_id by original path: with @exact, those
 * whose path is @rel, newest first; else those under directory @rel
 * (every entry with a known path when @rel is ""), sorted by path and
 * newest first within one.  No LIKE: '%' and '_' are valid in names.
 * Both walk the index entries_path: "under DIR" is the range of paths
 * from "DIR/" up to "DIR0" ('0' follows '/'), compared bytewise.
 */
int
index_by_path(struct db *db, int64_t fs_id, uint32_t uid, const char *rel,
    bool exact, struct entry_list *l)
{
	static const char sql_exact[] = "SELECT " ENTRY_COLS
	    " FROM entries WHERE fs_id = ?1 AND trash_uid = ?2 AND "
	    "state = 'trashed' AND orig_path = ?3 "
	    "ORDER BY deleted_ns DESC, id DESC";
	static const char sql_under[] = "SELECT " ENTRY_COLS
	    " FROM entries WHERE fs_id = ?1 AND trash_uid = ?2 AND "
	    "state = 'trashed' AND orig_path >= ?3 AND orig_path < ?4 "
	    "ORDER BY orig_path, deleted_ns DESC, id DESC";
	static const char sql_all[] = "SELECT " ENTRY_COLS
	    " FROM entries WHERE fs_id = ?1 AND trash_uid = ?2 AND "
	    "state = 'trashed' AND orig_path IS NOT NULL "
	    "ORDER BY orig_path, deleted_ns DESC, id DESC";
	sqlite3_stmt *st;
	size_t len = strlen(rel);
	char *lo = NULL, *hi = NULL;
	int r;

	l->v = NULL;
	l->n = 0;
	st = db_stmt(db, exact ? sql_exact : len > 0 ? sql_under : sql_all);
	if (st == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	sqlite3_bind_int64(st, 2, uid);
	if (exact) {
		db_bind_text(st, 3, rel);
	} else if (len > 0) {
		xasprintf(&lo, "%s/", rel);
		xasprintf(&hi, "%s0", rel);
		db_bind_text(st, 3, lo);
		db_bind_text(st, 4, hi);
	}
	r = index_collect(db, st, l);
	free(lo);
	free(hi);
	return r;
}

/*
 * The scan's marks (a temp table, per connection): which live rows this
 * scan saw; index_unseen() lists the rest.
 */
int
index_seen_reset(struct db *db)
{
	return db_exec(db, "DELETE FROM temp.scan_seen");
}

int
index_seen(struct db *db, int64_t id)
{
	static const char sql[] =
	    "INSERT OR IGNORE INTO temp.scan_seen (id) VALUES (?1)";
	sqlite3_stmt *st;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	return db_done(db, st);
}

/*
 * The ids of the live rows of @fs_id (of @uid, -1: all) not marked seen,
 * into *@ids (malloc'd, *@n of them).  Only ids: the rows of a large
 * trash are not held, and the select is finished when this returns.
 */
int
index_unseen(struct db *db, int64_t fs_id, int64_t uid, int64_t **ids,
    size_t *n)
{
	static const char sql[] =
	    "SELECT id FROM entries WHERE fs_id = ?1 AND "
	    "(?2 < 0 OR trash_uid = ?2) AND state = 'trashed' AND "
	    "id NOT IN (SELECT id FROM temp.scan_seen)";
	sqlite3_stmt *st;
	size_t cap = 0;
	int r;

	*ids = NULL;
	*n = 0;
	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	sqlite3_bind_int64(st, 2, uid);
	while ((r = db_row(db, st)) > 0) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			*ids = xreallocarray(*ids, cap, sizeof(**ids));
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	return r;
}

/* A wipe's row (@w->entry_id 0: of no entry), beside its audit record. */
int
index_wipe_record(struct db *db, const struct wipe_row *w)
{
	static const char sql[] =
	    "INSERT INTO wipes (entry_id, time_ns, method, result, passes, "
	    "bytes, nlink, promises) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	sqlite3_stmt *st;

	if ((st = db_stmt(db, sql)) == NULL)
		return -EIO;
	if (w->entry_id != 0)
		sqlite3_bind_int64(st, 1, w->entry_id);
	sqlite3_bind_int64(st, 2, w->time_ns);
	db_bind_text(st, 3, w->method);
	db_bind_text(st, 4, w->result);
	sqlite3_bind_int64(st, 5, w->passes);
	sqlite3_bind_int64(st, 6, (int64_t)w->bytes);
	sqlite3_bind_int64(st, 7, (int64_t)w->nlink);
	db_bind_text(st, 8, w->promises);
	return db_done(db, st);
}
