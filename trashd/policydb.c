/* SPDX-License-Identifier: ISC */
/*
 * The policy tables: the values that policy.c enforces.  Defaults come
 * from the config; the admins' defaults, per-user and per-group overrides
 * and watermarks live in the index and are set through policy_set() and
 * policy_set_watermark() (the control socket's "policy set").
 *
 * Effective value of a field for a user: the user's override if set;
 * else the most generous override among the user's groups; else the
 * default set over the socket; else the config's default.  0 (none,
 * forever) is the most generous.  A filesystem's watermark: the one set
 * for it over the socket, else the one set for every filesystem, else
 * the config's for it, else the config's default.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

/* Groups looked at per user; more are ignored (NGROUPS_MAX is 65536). */
#define POLICY_GROUPS_MAX	1024
/*
 * A user's groups from the account database, kept this many seconds:
 * one lookup is dozens of system calls through NSS (nscd, systemd's
 * userdb), and "trashctl quota" asks for it on every request.
 */
#define POLICY_ACCOUNT_TTL	30
/* Users whose groups are kept; the oldest lookup makes room. */
#define POLICY_ACCOUNT_CACHE	64

struct policy_account {
	uint32_t	 uid;
	int64_t		 when_ns;	/* 0: empty slot */
	gid_t		*groups;	/* NULL: no such user */
	int		 ngroups;
};

static struct policy_account policy_accounts[POLICY_ACCOUNT_CACHE];

static const char *
policy_kind_name(enum policy_kind k)
{
	return k == POLICY_USER ? "user" : k == POLICY_GROUP ? "group" :
	    "default";
}

/* A value's text, kept only with the value it goes with. */
static void
policy_bind_text(sqlite3_stmt *st, int i, int64_t v, const char *text)
{
	db_bind_text(st, i, v >= 0 && text[0] != '\0' ? text : NULL);
}

static void
policy_col_text(sqlite3_stmt *st, int i, char *buf)
{
	const char *s = db_col_text(st, i);

	snprintf(buf, POLICY_TEXT_MAX, "%s", s != NULL ? s : "");
}

int
policy_set(struct trashd *d, enum policy_kind kind, uint32_t id,
    const struct policy *p)
{
	static const char sql[] =
	    "INSERT INTO policies (kind, xid, quota, retention, quota_text, "
	    "retention_text) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
	    "ON CONFLICT (kind, xid) DO UPDATE SET "
	    "quota = excluded.quota, retention = excluded.retention, "
	    "quota_text = excluded.quota_text, "
	    "retention_text = excluded.retention_text";
	sqlite3_stmt *st;

	if (id > TRASHBIN_UID_MAX || p->quota < -1 || p->retention < -1 ||
	    p->retention > INT64_MAX / NSEC_PER_SEC)
		return -EINVAL;
	if (kind == POLICY_DEFAULT)
		id = 0;
	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	db_bind_text(st, 1, policy_kind_name(kind));
	sqlite3_bind_int64(st, 2, id);
	db_bind_opt(st, 3, p->quota);
	db_bind_opt(st, 4, p->retention);
	policy_bind_text(st, 5, p->quota, p->quota_text);
	policy_bind_text(st, 6, p->retention, p->retention_text);
	return db_done(d->db, st);
}

int
policy_get(struct trashd *d, enum policy_kind kind, uint32_t id,
    struct policy *p)
{
	static const char sql[] = "SELECT quota, retention, quota_text, "
	    "retention_text FROM policies WHERE kind = ?1 AND xid = ?2";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	db_bind_text(st, 1, policy_kind_name(kind));
	sqlite3_bind_int64(st, 2, kind == POLICY_DEFAULT ? 0 : id);
	if ((r = db_row(d->db, st)) <= 0)
		return r == 0 ? -ENOENT : r;
	p->quota = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 0);
	p->retention = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(st, 1);
	policy_col_text(st, 2, p->quota_text);
	policy_col_text(st, 3, p->retention_text);
	sqlite3_reset(st);
	return 0;
}

int
policy_unset(struct trashd *d, enum policy_kind kind, uint32_t id)
{
	static const char sql[] =
	    "DELETE FROM policies WHERE kind = ?1 AND xid = ?2";
	sqlite3_stmt *st;
	int r;

	if (kind == POLICY_DEFAULT)
		id = 0;
	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	db_bind_text(st, 1, policy_kind_name(kind));
	sqlite3_bind_int64(st, 2, id);
	if ((r = db_done(d->db, st)) == 0 && db_changes(d->db) == 0)
		r = -ENOENT;
	return r;
}

/*
 * The groups of @uid (primary first) from the account database, or
 * -ENOENT for a uid without an entry; cached, see POLICY_ACCOUNT_TTL.
 */
static int
policy_account(uint32_t uid, const gid_t **groups, int *ngroups)
{
	struct policy_account *a, *slot = &policy_accounts[0];
	struct passwd pw, *pwp = NULL;
	int64_t now = now_ns();
	char buf[4096];
	size_t i;
	int n = POLICY_GROUPS_MAX;

	for (i = 0; i < POLICY_ACCOUNT_CACHE; i++) {
		a = &policy_accounts[i];
		if (a->when_ns != 0 && a->uid == uid &&
		    now - a->when_ns < POLICY_ACCOUNT_TTL * NSEC_PER_SEC)
			goto out;
		if (a->when_ns < slot->when_ns)
			slot = a;
	}
	for (i = 0; i < POLICY_ACCOUNT_CACHE; i++)
		if (policy_accounts[i].when_ns != 0 &&
		    policy_accounts[i].uid == uid)
			slot = &policy_accounts[i];
	a = slot;
	free(a->groups);
	a->groups = NULL;
	a->ngroups = 0;
	a->uid = uid;
	a->when_ns = now;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) != 0 || pwp == NULL)
		goto out;
	a->groups = xcalloc(POLICY_GROUPS_MAX, sizeof(*a->groups));
	if (getgrouplist(pw.pw_name, pw.pw_gid, a->groups, &n) < 0)
		n = POLICY_GROUPS_MAX;	/* the first ones */
	a->ngroups = n;
out:
	*groups = a->groups;
	*ngroups = a->ngroups;
	return a->groups != NULL ? 0 : -ENOENT;
}

/* The larger of two limits where 0 means none. */
static int64_t
policy_generous(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	if (a == 0 || b == 0)
		return 0;
	return a > b ? a : b;
}

/* @v (with its @text) into *@acc, if it is the more generous. */
static void
policy_merge(int64_t *acc, char *acc_text, int64_t v, const char *text)
{
	if (v < 0 || policy_generous(*acc, v) == *acc)
		return;
	*acc = v;
	snprintf(acc_text, POLICY_TEXT_MAX, "%s", text);
}

/* The first of @v that is set, with its text; trashd.conf's has none. */
static void
policy_first(int64_t *out, char *out_text, const struct policy *v[],
    size_t n, size_t field, int64_t conf)
{
	const int64_t *num;
	size_t i;

	for (i = 0; i < n; i++) {
		num = field == 0 ? &v[i]->quota : &v[i]->retention;
		if (*num >= 0) {
			*out = *num;
			snprintf(out_text, POLICY_TEXT_MAX, "%s", field == 0 ?
			    v[i]->quota_text : v[i]->retention_text);
			return;
		}
	}
	*out = conf;
	out_text[0] = '\0';
}

int
policy_effective(struct trashd *d, uint32_t uid, struct policy *out)
{
	struct policy u = { -1, -1, "", "" }, g = { -1, -1, "", "" };
	struct policy def = { -1, -1, "", "" }, p;
	const struct policy *order[] = { &u, &g, &def };
	const gid_t *groups;
	int ngroups, i, r;

	if ((r = policy_get(d, POLICY_USER, uid, &u)) < 0 && r != -ENOENT)
		return r;
	if ((u.quota < 0 || u.retention < 0) &&
	    policy_account(uid, &groups, &ngroups) == 0) {
		for (i = 0; i < ngroups; i++) {
			r = policy_get(d, POLICY_GROUP, groups[i], &p);
			if (r == -ENOENT)
				continue;
			if (r < 0)
				return r;
			policy_merge(&g.quota, g.quota_text, p.quota,
			    p.quota_text);
			policy_merge(&g.retention, g.retention_text,
			    p.retention, p.retention_text);
		}
	}
	if ((u.quota < 0 || u.retention < 0) && (r = policy_get(d,
	    POLICY_DEFAULT, 0, &def)) < 0 && r != -ENOENT)
		return r;
	policy_first(&out->quota, out->quota_text, order, 3, 0,
	    (int64_t)d->conf->quota);
	policy_first(&out->retention, out->retention_text, order, 3, 1,
	    d->conf->retention);
	return 0;
}

/*
 * The watermark set over the socket for filesystem @fs_id (0: the one for
 * every filesystem) in *@wm; -ENOENT if none.
 */
int
policy_get_watermark(struct trashd *d, int64_t fs_id, int *wm)
{
	static const char sql[] =
	    "SELECT watermark FROM watermarks WHERE fs_id = ?1";
	sqlite3_stmt *st;
	int r;

	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs_id);
	if ((r = db_row(d->db, st)) <= 0)
		return r == 0 ? -ENOENT : r;
	*wm = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	return 0;
}

/*
 * Set (@wm 0 to 100: percent free, 0 off) or unset (@wm -1) the watermark
 * of filesystem @fs (NULL: the one for every filesystem).
 */
int
policy_set_watermark(struct trashd *d, const struct tfs *fs, int wm)
{
	static const char set[] =
	    "INSERT INTO watermarks (fs_id, watermark) VALUES (?1, ?2) "
	    "ON CONFLICT (fs_id) DO UPDATE SET watermark = excluded.watermark";
	static const char unset[] = "DELETE FROM watermarks WHERE fs_id = ?1";
	sqlite3_stmt *st;

	if (wm < -1 || wm > 100)
		return -EINVAL;
	if ((st = db_stmt(d->db, wm < 0 ? unset : set)) == NULL)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs != NULL ? fs->id : 0);
	if (wm >= 0)
		sqlite3_bind_int(st, 2, wm);
	return db_done(d->db, st);
}

/* The watermark in force on @fs, percent free (0: off). */
unsigned
policy_fs_watermark(struct trashd *d, const struct tfs *fs)
{
	int wm;

	if (policy_get_watermark(d, fs->id, &wm) == 0 ||
	    policy_get_watermark(d, 0, &wm) == 0)
		return (unsigned)wm;
	return fs->watermark;
}
