/* SPDX-License-Identifier: ISC */
/*
 * Policy: the +s grace period, retention, per-user quota and the
 * free-space watermark, each purging oldest first.  Defaults come from the
 * config; per-user and per-group overrides live in the index and are set
 * through policy_set() (the control socket's "policy set").
 *
 * Effective value of a field for a user: the user's override if set;
 * else the most generous override among the user's groups; else the
 * config's default.  0 (none, forever) is the most generous.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "trashd.h"

/* Groups looked at per user; more are ignored (NGROUPS_MAX is 65536). */
#define POLICY_GROUPS_MAX	1024

static const char *
policy_kind_name(enum policy_kind k)
{
	return k == POLICY_USER ? "user" : "group";
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

	if (id > TRASH_UID_MAX || p->quota < -1 || p->retention < -1 ||
	    p->retention > INT64_MAX / NSEC_PER_SEC)
		return -EINVAL;
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
	sqlite3_bind_int64(st, 2, id);
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
	struct policy u = { -1, -1 }, g = { -1, -1 }, p;
	struct passwd pw, *pwp = NULL;
	gid_t groups[POLICY_GROUPS_MAX];
	int ngroups = POLICY_GROUPS_MAX, i, r;
	char buf[4096];

	if ((r = policy_get(d, POLICY_USER, uid, &u)) < 0 && r != -ENOENT)
		return r;
	if ((u.quota < 0 || u.retention < 0) &&
	    getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) == 0 && pwp != NULL) {
		if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &ngroups) < 0)
			ngroups = POLICY_GROUPS_MAX;	/* the first ones */
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
	out->quota = u.quota >= 0 ? u.quota : g.quota >= 0 ? g.quota :
	    (int64_t)d->conf->quota;
	out->retention = u.retention >= 0 ? u.retention : g.retention >= 0 ?
	    g.retention : d->conf->retention;
	return 0;
}

/*
 * Purge one live entry: a +s one (flagged now or when it was indexed) is
 * wiped, any other unlinked.  The entry is re-checked first: if its name
 * no longer holds its inode the index is stale, nothing is touched and
 * the uid dir is rescanned.
 */
int
policy_purge(struct trashd *d, struct tfs *fs, const struct entry *e,
    const char *reason, int64_t actor_uid, int64_t actor_pid)
{
	struct tuid *tu;
	char *target = NULL, result[128];
	int fd, flags = 0, r;

	if (e->state != ENTRY_TRASHED)
		return -EALREADY;
	if ((r = trash_uid(fs, e->trash_uid, &tu)) < 0)
		return r;
	fd = trash_entry_open(fs, tu->fd, e->name, &e->ident, O_RDONLY);
	if (fd < 0) {
		r = fd;
		target = audit_entry_target(fs, e);
		snprintf(result, sizeof(result), "refused: %s", strerror(-r));
		audit_log(d, actor_uid, actor_pid, "purge", target, result);
		(void)scan_uid(d, fs, tu);
		goto out;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		flags = 0;
	close(fd);
	if (((uint32_t)flags | e->flags) & FS_SECRM_FL) {
		if ((r = wipe_stage(d, fs, e, reason)) == 0)
			wipe_kick(d);
		goto out;
	}
	target = audit_entry_target(fs, e);
	if ((r = trash_entry_unlink(fs, tu->fd, e->name, &e->ident)) < 0) {
		snprintf(result, sizeof(result), "failed: %s", strerror(-r));
		audit_log(d, actor_uid, actor_pid, "purge", target, result);
		goto out;
	}
	if ((r = index_set_state(d->db, e->id, ENTRY_PURGED)) < 0)
		goto out;
	snprintf(result, sizeof(result), "ok: %s", reason);
	audit_log(d, actor_uid, actor_pid, "purged", target, result);
out:
	free(target);
	return r;
}

/* The control socket's "purge" of one entry by id. */
int
policy_purge_id(struct trashd *d, int64_t id, int64_t actor_uid,
    int64_t actor_pid)
{
	struct entry e;
	struct tfs *fs;
	int r;

	if ((r = index_get(d->db, id, &e)) < 0)
		return r;
	if ((fs = daemon_fs(d, e.fs_id)) == NULL)
		r = -ENODEV;
	else
		r = policy_purge(d, fs, &e, "request", actor_uid, actor_pid);
	entry_clear(&e);
	return r;
}

static int
policy_purge_list(struct trashd *d, struct tfs *fs, struct entry_list *l,
    const char *reason)
{
	size_t i;
	int r;

	for (i = 0; i < l->n; i++) {
		r = policy_purge(d, fs, &l->v[i], reason, 0, getpid());
		if (r < 0 && r != -ESTALE && r != -ENOENT)
			log_warnx("policy: %s: %s: %s", fs->path, reason,
			    strerror(-r));
	}
	return 0;
}

/* +s entries past the grace period are wiped. */
int
policy_secure(struct trashd *d, struct tfs *fs, int64_t now)
{
	struct index_filter f = { .fs_id = fs->id, .uid = -1,
	    .states = ENTRY_LIVE, .flags_set = FS_SECRM_FL };
	struct entry_list l;
	size_t i;
	int r;

	f.before_ns = now - d->conf->grace * NSEC_PER_SEC + 1;
	if ((r = index_list(d->db, &f, &l)) < 0)
		return r;
	for (i = 0; i < l.n; i++) {
		if ((r = wipe_stage(d, fs, &l.v[i], "secure-delete")) < 0 &&
		    r != -ESTALE && r != -ENOENT)
			log_warnx("policy: %s: wipe: %s", fs->path,
			    strerror(-r));
	}
	if (l.n > 0)
		wipe_kick(d);
	entry_list_free(&l);
	return 0;
}

int
policy_retention(struct trashd *d, struct tfs *fs, int64_t now)
{
	struct index_filter f = { .fs_id = fs->id, .states = ENTRY_LIVE };
	struct entry_list l;
	struct usage *u = NULL;
	struct policy p;
	size_t n = 0, i;
	int r;

	if ((r = index_usage_all(d->db, fs->id, &u, &n)) < 0)
		return r;
	for (i = 0; i < n; i++) {
		if ((r = policy_effective(d, u[i].uid, &p)) < 0)
			goto out;
		if (p.retention == 0)
			continue;
		f.uid = u[i].uid;
		f.before_ns = now - p.retention * NSEC_PER_SEC;
		if ((r = index_list(d->db, &f, &l)) < 0)
			goto out;
		policy_purge_list(d, fs, &l, "retention");
		entry_list_free(&l);
	}
	r = 0;
out:
	free(u);
	return r;
}

int
policy_quota(struct trashd *d, struct tfs *fs)
{
	struct index_filter f = { .fs_id = fs->id, .states = ENTRY_LIVE };
	struct entry_list l;
	struct usage *u = NULL;
	struct policy p;
	size_t n = 0, i, j;
	int64_t bytes;
	int r;

	if ((r = index_usage_all(d->db, fs->id, &u, &n)) < 0)
		return r;
	for (i = 0; i < n; i++) {
		if ((r = policy_effective(d, u[i].uid, &p)) < 0)
			goto out;
		if (p.quota == 0 || u[i].bytes <= p.quota)
			continue;
		f.uid = u[i].uid;
		if ((r = index_list(d->db, &f, &l)) < 0)
			goto out;
		/* Oldest first, until the rest fits. */
		for (j = 0, bytes = u[i].bytes; j < l.n && bytes > p.quota;
		    j++) {
			r = policy_purge(d, fs, &l.v[j], "quota", 0, getpid());
			if (r == 0)
				bytes -= l.v[j].size;
		}
		entry_list_free(&l);
	}
	r = 0;
out:
	free(u);
	return r;
}

/*
 * Free space below the watermark: purge oldest first across users until
 * the space they hold (and what the wipe queue will free) covers the gap.
 * Freed blocks show in statvfs only after the journal commits, so the
 * entries' allocated sizes are counted rather than statvfs re-read.
 */
int
policy_watermark(struct trashd *d, struct tfs *fs, uint64_t total,
    uint64_t avail)
{
	struct index_filter f = { .fs_id = fs->id, .uid = -1,
	    .states = ENTRY_STATE_MASK(ENTRY_WIPING) };
	struct entry_list l;
	long double want;
	int64_t need;
	size_t i;
	int r;

	if (fs->watermark == 0 || total == 0)
		return 0;
	want = (long double)total * fs->watermark / 100;
	if ((long double)avail >= want)
		return 0;
	need = (int64_t)(want - (long double)avail);
	if ((r = index_list(d->db, &f, &l)) < 0)
		return r;
	for (i = 0; i < l.n; i++)
		need -= l.v[i].alloc;
	entry_list_free(&l);
	if (need <= 0)
		return 0;
	log_info("policy: %s: free space below %u%%: purging %" PRId64
	    " bytes", fs->path, fs->watermark, need);
	f.states = ENTRY_LIVE;
	if ((r = index_list(d->db, &f, &l)) < 0)
		return r;
	for (i = 0; i < l.n && need > 0; i++) {
		r = policy_purge(d, fs, &l.v[i], "watermark", 0, getpid());
		if (r == 0)
			need -= l.v[i].alloc;
	}
	entry_list_free(&l);
	return 0;
}

int
policy_run(struct trashd *d, int64_t now)
{
	struct statvfs sv;
	struct tfs *fs;
	size_t i;
	int r, ret = 0;

	for (i = 0; i < d->nfs; i++) {
		fs = &d->fs[i];
		if ((r = db_begin(d->db)) < 0)
			return r;
		if ((r = policy_secure(d, fs, now)) < 0 ||
		    (r = policy_retention(d, fs, now)) < 0 ||
		    (r = policy_quota(d, fs)) < 0)
			log_warnx("policy: %s: %s", fs->path, strerror(-r));
		if (fstatvfs(fs->rootfd, &sv) == 0)
			r = policy_watermark(d, fs,
			    (uint64_t)sv.f_blocks * sv.f_frsize,
			    (uint64_t)sv.f_bavail * sv.f_frsize);
		else
			log_warn("policy: %s: statvfs", fs->path);
		if ((r = db_commit(d->db)) < 0)
			ret = r;
	}
	if ((r = audit_expire(d, now)) < 0)
		ret = r;
	return ret;
}
