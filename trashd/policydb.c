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

static void
policy_bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

int
policy_set(struct trashd *d, enum policy_kind kind, uint32_t id,
    const struct policy *p, int64_t actor_uid, int64_t actor_pid)
{
	static const char sql[] =
	    "INSERT INTO policies (kind, xid, quota, retention) "
	    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (kind, xid) DO UPDATE SET "
	    "quota = excluded.quota, retention = excluded.retention";
	char target[64], result[128];
	sqlite3_stmt *st;
	int r;

	if (id > TRASHBIN_UID_MAX || p->quota < -1 || p->retention < -1 ||
	    p->retention > INT64_MAX / NSEC_PER_SEC)
		return -EINVAL;
	if (kind == POLICY_DEFAULT)
		id = 0;
	snprintf(target, sizeof(target), "%s %u", policy_kind_name(kind), id);
	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	db_bind_text(st, 1, policy_kind_name(kind));
	sqlite3_bind_int64(st, 2, id);
	policy_bind_opt(st, 3, p->quota);
	policy_bind_opt(st, 4, p->retention);
	r = db_done(d->db, st);
	snprintf(result, sizeof(result), "%s: quota=%" PRId64 " retention=%"
	    PRId64, r < 0 ? "failed" : "ok", p->quota, p->retention);
	audit_log(d, actor_uid, actor_pid, "policy-set", target, result);
	return r;
}

int
policy_get(struct trashd *d, enum policy_kind kind, uint32_t id,
    struct policy *p)
{
	static const char sql[] = "SELECT quota, retention FROM policies "
	    "WHERE kind = ?1 AND xid = ?2";
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
	sqlite3_reset(st);
	return 0;
}

int
policy_unset(struct trashd *d, enum policy_kind kind, uint32_t id,
    int64_t actor_uid, int64_t actor_pid)
{
	static const char sql[] =
	    "DELETE FROM policies WHERE kind = ?1 AND xid = ?2";
	char target[64];
	sqlite3_stmt *st;
	int r;

	if (kind == POLICY_DEFAULT)
		id = 0;
	snprintf(target, sizeof(target), "%s %u", policy_kind_name(kind), id);
	if ((st = db_stmt(d->db, sql)) == NULL)
		return -EIO;
	db_bind_text(st, 1, policy_kind_name(kind));
	sqlite3_bind_int64(st, 2, id);
	if ((r = db_done(d->db, st)) == 0 && db_changes(d->db) == 0)
		r = -ENOENT;
	audit_log(d, actor_uid, actor_pid, "policy-unset", target,
	    r == 0 ? "ok" : strerror(-r));
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

int
policy_effective(struct trashd *d, uint32_t uid, struct policy *out)
{
	struct policy u = { -1, -1 }, g = { -1, -1 }, def = { -1, -1 }, p;
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
			g.quota = policy_generous(g.quota, p.quota);
			g.retention = policy_generous(g.retention,
			    p.retention);
		}
	}
	if ((u.quota < 0 || u.retention < 0) && (r = policy_get(d,
	    POLICY_DEFAULT, 0, &def)) < 0 && r != -ENOENT)
		return r;
	out->quota = u.quota >= 0 ? u.quota : g.quota >= 0 ? g.quota :
	    def.quota >= 0 ? def.quota : (int64_t)d->conf->quota;
	out->retention = u.retention >= 0 ? u.retention : g.retention >= 0 ?
	    g.retention : def.retention >= 0 ? def.retention :
	    d->conf->retention;
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
 * of filesystem @fs (NULL: the one for every filesystem); audited.
 */
int
policy_set_watermark(struct trashd *d, const struct tfs *fs, int wm,
    int64_t actor_uid, int64_t actor_pid)
{
	static const char set[] =
	    "INSERT INTO watermarks (fs_id, watermark) VALUES (?1, ?2) "
	    "ON CONFLICT (fs_id) DO UPDATE SET watermark = excluded.watermark";
	static const char unset[] = "DELETE FROM watermarks WHERE fs_id = ?1";
	char *target, result[64];
	sqlite3_stmt *st;
	int r;

	if (wm < -1 || wm > 100)
		return -EINVAL;
	xasprintf(&target, "watermark %s", fs != NULL ? fs->path : "all");
	if ((st = db_stmt(d->db, wm < 0 ? unset : set)) == NULL) {
		free(target);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, fs != NULL ? fs->id : 0);
	if (wm >= 0)
		sqlite3_bind_int(st, 2, wm);
	r = db_done(d->db, st);
	if (wm < 0)
		snprintf(result, sizeof(result), "%s: unset",
		    r < 0 ? "failed" : "ok");
	else
		snprintf(result, sizeof(result), "%s: watermark=%d%%",
		    r < 0 ? "failed" : "ok", wm);
	audit_log(d, actor_uid, actor_pid, wm < 0 ? "policy-unset" :
	    "policy-set", target, result);
	free(target);
	return r;
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
