/* SPDX-License-Identifier: ISC */
/*
 * Policy: the +s grace period, retention, per-user quota and the
 * free-space watermark, each purging oldest first.  Defaults come from the
 * config; the admins' defaults, per-user and per-group overrides and
 * watermarks live in the index and are set through policy_set() and
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
/* Rows read per page when walking the index: memory stays flat at any size. */
#define POLICY_PAGE		1024
/* New entries queued between runs (16 bytes each); more: a full run. */
#define POLICY_NEW_MAX		65536
/*
 * New entries a run takes, the oldest queued; the rest go to the next run
 * (daemon_policy_new()), so that a flood of them does not hold the loop.
 */
#define POLICY_FRESH_STEP	512

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
	char result[128];
	int fd, flags = 0, r;

	if (e->state != ENTRY_TRASHED)
		return -EALREADY;
	if ((r = trash_uid(fs, e->trash_uid, &tu)) < 0)
		return r;
	fd = trash_entry_open(fs, tu->fd, e->name, &e->ident, O_RDONLY);
	if (fd < 0) {
		r = fd;
		snprintf(result, sizeof(result), "refused: %s", strerror(-r));
		audit_entry(d, actor_uid, actor_pid, "purge", fs, e, result);
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
	if ((r = trash_entry_unlink(fs, tu->fd, e->name, &e->ident)) < 0) {
		snprintf(result, sizeof(result), "failed: %s", strerror(-r));
		audit_entry(d, actor_uid, actor_pid, "purge", fs, e, result);
		goto out;
	}
	if ((r = index_set_state(d->db, e->id, ENTRY_PURGED)) < 0)
		goto out;
	snprintf(result, sizeof(result), "ok: %s", reason);
	audit_entry(d, actor_uid, actor_pid, "purged", fs, e, result);
out:
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

/*
 * The next page of the rows of @f, oldest first: the rows after the last
 * one of @l, which is freed first (start with it empty).  An empty @l:
 * no more.  Rows change state under a walk; their order does not.
 */
static int
policy_page(struct trashd *d, struct index_filter *f, struct entry_list *l)
{
	if (l->n > 0) {
		f->after = true;
		f->after_ns = l->v[l->n - 1].deleted_ns;
		f->after_id = l->v[l->n - 1].id;
	}
	entry_list_free(l);
	f->limit = POLICY_PAGE;
	return index_list(d->db, f, l);
}

static int
policy_purge_all(struct trashd *d, struct tfs *fs, struct index_filter *f,
    const char *reason)
{
	struct entry_list l = { 0 };
	size_t i;
	int r;

	while ((r = policy_page(d, f, &l)) == 0 && l.n > 0) {
		for (i = 0; i < l.n; i++) {
			r = policy_purge(d, fs, &l.v[i], reason, 0, getpid());
			if (r < 0 && r != -ESTALE && r != -ENOENT)
				log_warnx("policy: %s: %s: %s", fs->path,
				    reason, strerror(-r));
		}
	}
	entry_list_free(&l);
	return r;
}

/* +s entries past the grace period are wiped. */
int
policy_secure(struct trashd *d, struct tfs *fs, int64_t now)
{
	struct index_filter f = { .fs_id = fs->id, .uid = -1,
	    .states = ENTRY_LIVE, .flags_set = FS_SECRM_FL };
	struct entry_list l = { 0 };
	size_t i, n = 0;
	int r;

	f.before_ns = now - d->conf->grace * NSEC_PER_SEC + 1;
	while ((r = policy_page(d, &f, &l)) == 0 && l.n > 0) {
		for (i = 0; i < l.n; i++, n++) {
			r = wipe_stage(d, fs, &l.v[i], "secure-delete");
			if (r < 0 && r != -ESTALE && r != -ENOENT)
				log_warnx("policy: %s: wipe: %s", fs->path,
				    strerror(-r));
		}
	}
	entry_list_free(&l);
	if (n > 0)
		wipe_kick(d);
	return r;
}

int
policy_retention(struct trashd *d, struct tfs *fs, int64_t now)
{
	struct index_filter f;
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
		memset(&f, 0, sizeof(f));
		f.fs_id = fs->id;
		f.states = ENTRY_LIVE;
		f.uid = u[i].uid;
		f.before_ns = now - p.retention * NSEC_PER_SEC;
		if ((r = policy_purge_all(d, fs, &f, "retention")) < 0)
			goto out;
	}
	r = 0;
out:
	free(u);
	return r;
}

/*
 * Purge the rows of @f oldest first until @want bytes (allocated: what
 * the filesystem gets back) are freed; the bytes freed.
 */
static int64_t
policy_purge_upto(struct trashd *d, struct tfs *fs, struct index_filter *f,
    const char *reason, int64_t want)
{
	struct entry_list l = { 0 };
	int64_t freed = 0;
	size_t i;

	while (freed < want && policy_page(d, f, &l) == 0 && l.n > 0)
		for (i = 0; i < l.n && freed < want; i++)
			if (policy_purge(d, fs, &l.v[i], reason, 0,
			    getpid()) == 0)
				freed += l.v[i].alloc;
	entry_list_free(&l);
	return freed;
}

/*
 * A user's trash over quota: oldest first, until the rest fits.  Quotas
 * count allocated bytes, not apparent sizes: a sparse file of a huge
 * size holds only its blocks, and purging for it would empty the trash.
 */
static int
policy_quota_of(struct trashd *d, struct tfs *fs, const struct usage *u)
{
	struct index_filter f = { .fs_id = fs->id, .uid = u->uid,
	    .states = ENTRY_LIVE };
	struct policy p;
	int r;

	if ((r = policy_effective(d, u->uid, &p)) < 0)
		return r;
	if (p.quota == 0 || u->alloc <= p.quota)
		return 0;
	(void)policy_purge_upto(d, fs, &f, "quota", u->alloc - p.quota);
	return 0;
}

int
policy_quota(struct trashd *d, struct tfs *fs)
{
	struct usage *u = NULL;
	size_t n = 0, i;
	int r;

	if ((r = index_usage_all(d->db, fs->id, &u, &n)) < 0)
		return r;
	for (i = 0; i < n; i++)
		if ((r = policy_quota_of(d, fs, &u[i])) < 0)
			break;
	free(u);
	return r < 0 ? r : 0;
}

/* The largest users first. */
static int
policy_by_alloc(const void *a, const void *b)
{
	const struct usage *x = a, *y = b;

	return x->alloc < y->alloc ? 1 : x->alloc > y->alloc ? -1 :
	    x->uid < y->uid ? -1 : x->uid > y->uid;
}

/*
 * Free space below the watermark: purge until the space the trash holds
 * (and what the wipe queue will free) covers the gap, the users over
 * their share first.  A user's share is an equal part of what the trash
 * holds on the filesystem: the allocated bytes of its live entries over
 * the number of users who have any.  Those over it are purged first, the
 * largest first, each oldest first and down to the share at most; only
 * if that is not enough, everyone, oldest first.  One user filling the
 * disk through the trash loses their own entries before anyone else's.
 * Freed blocks show in statvfs only after the journal commits, so the
 * entries' allocated sizes are counted rather than statvfs re-read.
 */
int
policy_watermark(struct trashd *d, struct tfs *fs, uint64_t total,
    uint64_t avail)
{
	struct index_filter f = { .fs_id = fs->id, .uid = -1,
	    .states = ENTRY_STATE_MASK(ENTRY_WIPING) };
	struct entry_list l = { 0 };
	struct usage *u = NULL;
	long double want;
	unsigned wm = policy_fs_watermark(d, fs);
	int64_t need, held = 0, share;
	size_t i, n = 0;
	int r;

	if (wm == 0 || total == 0)
		return 0;
	want = (long double)total * wm / 100;
	if ((long double)avail >= want)
		return 0;
	need = (int64_t)(want - (long double)avail);
	while (need > 0 && (r = policy_page(d, &f, &l)) == 0 && l.n > 0)
		for (i = 0; i < l.n; i++)
			need -= l.v[i].alloc;
	entry_list_free(&l);
	if (need <= 0)
		return 0;
	log_info("policy: %s: free space below %u%%: purging %" PRId64
	    " bytes", fs->path, wm, need);
	if ((r = index_usage_all(d->db, fs->id, &u, &n)) < 0)
		return r;
	for (i = 0; i < n; i++)
		held += u[i].alloc;
	share = n > 0 ? held / (int64_t)n : 0;
	qsort(u, n, sizeof(*u), policy_by_alloc);
	for (i = 0; i < n && need > 0 && u[i].alloc > share; i++) {
		memset(&f, 0, sizeof(f));
		f.fs_id = fs->id;
		f.uid = u[i].uid;
		f.states = ENTRY_LIVE;
		need -= policy_purge_upto(d, fs, &f, "watermark",
		    u[i].alloc - share < need ? u[i].alloc - share : need);
	}
	free(u);
	if (need <= 0)
		return 0;
	memset(&f, 0, sizeof(f));
	f.fs_id = fs->id;
	f.uid = -1;
	f.states = ENTRY_LIVE;
	(void)policy_purge_upto(d, fs, &f, "watermark", need);
	return 0;
}

/*
 * The min-age policy: an entry deleted less than min-age after it was
 * born is purged at once (a +s one wiped).  Only a birth time that the
 * filesystem records counts: the move into the trash resets ctime, and
 * mtime is the last write, not the creation (an old file edited just
 * before its deletion would pass for young).  Without one the entry is
 * kept, and so is one "deleted before it was born" (a clock step).
 */
bool
policy_too_young(int64_t min_age, int64_t born_ns, int64_t deleted_ns)
{
	if (min_age <= 0 || born_ns < 0 || deleted_ns < born_ns)
		return false;
	return deleted_ns - born_ns < min_age * NSEC_PER_SEC;
}

/*
 * Queue new entry @id (the scan may not purge or wipe itself) for the
 * next policy run.  Past the queue's bound a full run is due instead,
 * and a young entry past it is kept (safe, and logged).
 */
void
policy_new_entry(struct trashd *d, int64_t id, bool young)
{
	if (d->nfresh == POLICY_NEW_MAX) {
		if (young)
			log_warnx("policy: min-age: more than %d new entries "
			    "at once: keeping entry %" PRId64, POLICY_NEW_MAX,
			    id);
		d->policy_full = true;
		return;
	}
	if (d->nfresh == d->fresh_cap) {
		d->fresh_cap = d->fresh_cap ? d->fresh_cap * 2 : 64;
		d->fresh = xreallocarray(d->fresh, d->fresh_cap,
		    sizeof(*d->fresh));
	}
	d->fresh[d->nfresh].id = id;
	d->fresh[d->nfresh].young = young;
	d->nfresh++;
}

/* The owners of new entries whose quota is checked, and how many. */
struct policy_user {
	struct tfs	*fs;
	uint32_t	 uid;
};
#define POLICY_USERS_MAX	64

static int
policy_quota_user(struct trashd *d, struct tfs *fs, uint32_t uid)
{
	struct usage u;
	int r;

	if ((r = index_usage(d->db, fs->id, uid, &u)) < 0)
		return r;
	return policy_quota_of(d, fs, &u);
}

/*
 * What entries new since the last run can trigger, for those entries
 * only: the min-age purge, the wipe of a +s one whose grace is over (0s:
 * at once), the quota of the users who got them, the watermark (cheap
 * unless crossed).  Its cost follows the new entries, not the index: a
 * burst of deletions into a large trash does not pay for runs over all
 * of it, and takes POLICY_FRESH_STEP of them a run.  Retention and grace
 * periods ending later are the full run's.
 */
int
policy_fresh(struct trashd *d, int64_t now)
{
	struct policy_user users[POLICY_USERS_MAX];
	struct statvfs sv;
	struct entry e;
	struct tfs *fs;
	size_t nusers = 0, i, k, nwipe = 0, step;
	bool every_user = false;
	int r;

	if (d->nfresh == 0)
		return 0;
	if ((r = db_begin(d->db)) < 0)
		return r;
	step = d->nfresh < POLICY_FRESH_STEP ? d->nfresh : POLICY_FRESH_STEP;
	/* A purge that finds the index stale rescans: the queue may grow. */
	for (i = 0; i < step; i++) {
		if (index_get(d->db, d->fresh[i].id, &e) < 0)
			continue;
		fs = daemon_fs(d, e.fs_id);
		if (fs == NULL || e.state != ENTRY_TRASHED) {
			entry_clear(&e);
			continue;
		}
		if (d->fresh[i].young) {
			r = policy_purge(d, fs, &e, "min-age", 0, getpid());
			if (r < 0 && r != -ESTALE && r != -ENOENT)
				log_warnx("policy: %s: min-age: %s", fs->path,
				    strerror(-r));
		} else if ((e.flags & FS_SECRM_FL) && e.deleted_ns <
		    now - d->conf->grace * NSEC_PER_SEC + 1) {
			r = wipe_stage(d, fs, &e, "secure-delete");
			if (r < 0 && r != -ESTALE && r != -ENOENT)
				log_warnx("policy: %s: wipe: %s", fs->path,
				    strerror(-r));
			nwipe++;
		} else {
			for (k = 0; k < nusers; k++)
				if (users[k].fs == fs &&
				    users[k].uid == e.trash_uid)
					break;
			if (k == nusers && nusers < POLICY_USERS_MAX) {
				users[nusers].fs = fs;
				users[nusers++].uid = e.trash_uid;
			} else if (k == nusers) {
				every_user = true;
			}
		}
		entry_clear(&e);
	}
	/* The queue may have grown past @step meanwhile: keep the rest. */
	memmove(d->fresh, d->fresh + step, (d->nfresh - step) *
	    sizeof(*d->fresh));
	d->nfresh -= step;
	if (d->nfresh > 0)
		daemon_policy_new(d);
	if (nwipe > 0)
		wipe_kick(d);
	for (k = 0; k < nusers && !every_user; k++)
		if ((r = policy_quota_user(d, users[k].fs, users[k].uid)) < 0)
			log_warnx("policy: %s: quota: %s", users[k].fs->path,
			    strerror(-r));
	for (i = 0; i < d->nfs; i++) {
		fs = &d->fs[i];
		if (every_user && (r = policy_quota(d, fs)) < 0)
			log_warnx("policy: %s: quota: %s", fs->path,
			    strerror(-r));
		if (fstatvfs(fs->rootfd, &sv) == 0)
			(void)policy_watermark(d, fs,
			    (uint64_t)sv.f_blocks * sv.f_frsize,
			    (uint64_t)sv.f_bavail * sv.f_frsize);
	}
	return db_commit(d->db);
}

int
policy_run(struct trashd *d, int64_t now)
{
	struct statvfs sv;
	struct tfs *fs;
	size_t i;
	int r, ret = 0;

	/* The new entries first: min-age purges are theirs alone. */
	if ((r = policy_fresh(d, now)) < 0)
		ret = r;
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
