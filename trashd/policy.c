/* SPDX-License-Identifier: ISC */
/*
 * Policy: the +s grace period, retention, per-user quota and the
 * free-space watermark, each purging oldest first, on a timer: a full
 * run each policy-interval, and runs over just the new entries in
 * between, which also purge the new entries that min-age or an exclusion
 * takes.  The values in force come from the policy tables (policydb.c).
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "parse.h"
#include "services.h"

/* Rows read per page when walking the index: memory stays flat at any size. */
#define POLICY_PAGE		1024
/* New entries queued between runs (16 bytes each); more: a full run. */
#define POLICY_NEW_MAX		65536
/*
 * New entries a run takes, the oldest queued; the rest go to the next run
 * (policy_next()), so that a flood of them does not hold the loop.
 */
#define POLICY_FRESH_STEP	512
/* Coalesce the policy runs that a burst of new entries asks for. */
#define POLICY_DELAY_MS	500

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
	char result[64 + CONFIG_PATTERN_MAX];	/* "ok: " and the reason */
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
		watch_rescan_uid(d, fs, tu);
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

/*
 * Purge the entries @l of @fs (an "empty"'s page) in one transaction.
 * @done is told of each, with 0 or the -errno it failed with.
 */
void
policy_purge_list(struct trashd *d, struct tfs *fs,
    const struct entry_list *l, const char *reason, int64_t actor_uid,
    int64_t actor_pid, void (*done)(void *, const struct entry *, int),
    void *arg)
{
	size_t i;

	(void)db_begin(d->db);
	for (i = 0; i < l->n; i++)
		done(arg, &l->v[i], policy_purge(d, fs, &l->v[i], reason,
		    actor_uid, actor_pid));
	(void)db_commit(d->db);
}

/*
 * A policy set (policy set, one request): the watermark and the limits
 * given change, in one transaction, and the limits not given keep their
 * value and text; both limits unlimited removes the row.  *@out: the
 * limits now in force for that kind and id.  The next run applies them.
 */
int
policy_change(struct trashd *d, const struct policy_change *ch,
    struct policy *out)
{
	int r;

	out->quota = out->retention = -1;
	out->quota_text[0] = out->retention_text[0] = '\0';
	if ((r = db_begin(d->db)) < 0)
		return r;
	if (ch->watermark && (r = policy_set_watermark(d, ch->wm_fs,
	    ch->wm)) < 0)
		goto fail;
	if (ch->quota || ch->retention) {
		if ((r = policy_get(d, ch->kind, ch->xid, out)) < 0 &&
		    r != -ENOENT)
			goto fail;
		if (ch->quota) {
			out->quota = ch->quota_v;
			snprintf(out->quota_text, sizeof(out->quota_text),
			    "%s", ch->quota_text);
		}
		if (ch->retention) {
			out->retention = ch->retention_v;
			snprintf(out->retention_text,
			    sizeof(out->retention_text), "%s",
			    ch->retention_text);
		}
		if (out->quota < 0 && out->retention < 0) {
			if ((r = policy_unset(d, ch->kind, ch->xid)) == -ENOENT)
				r = 0;
		} else {
			r = policy_set(d, ch->kind, ch->xid, out);
		}
		if (r < 0)
			goto fail;
	}
	if ((r = db_commit(d->db)) < 0)
		goto fail;
	policy_soon(d);
	return 0;
fail:
	db_rollback(d->db);
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

/* Has @done reached each goal of @want (a goal of 0 is none)? */
static bool
policy_reached(const struct purge_amount *done, const struct purge_amount *want)
{
	return done->bytes >= want->bytes && done->entries >= want->entries;
}

/* What @want still asks after @done (0: that goal is reached). */
static struct purge_amount
policy_left(const struct purge_amount *want, const struct purge_amount *done)
{
	struct purge_amount l = {
		.bytes = want->bytes > done->bytes ?
		    want->bytes - done->bytes : 0,
		.entries = want->entries > done->entries ?
		    want->entries - done->entries : 0,
	};

	return l;
}

/* Add @one to both @sum and @done. */
static void
policy_add(struct purge_amount *sum, struct purge_amount *done,
    struct purge_amount one)
{
	sum->bytes += one.bytes;
	sum->entries += one.entries;
	if (done != sum) {
		done->bytes += one.bytes;
		done->entries += one.entries;
	}
}

/*
 * Purge the rows of @f oldest first until @want is reached: allocated
 * bytes (what the filesystem gets back), entries (its inodes), or both.
 * What was purged.
 */
static struct purge_amount
policy_purge_upto(struct trashd *d, struct tfs *fs, struct index_filter *f,
    const char *reason, struct purge_amount want)
{
	struct entry_list l = { 0 };
	struct purge_amount done = { 0, 0 };
	size_t i;

	while (!policy_reached(&done, &want) && policy_page(d, f, &l) == 0 &&
	    l.n > 0)
		for (i = 0; i < l.n && !policy_reached(&done, &want); i++) {
			/*
			 * An entry of no blocks frees none: it goes only for
			 * a goal in entries still open (a goal in bytes
			 * alone would empty a trash of empty files).
			 */
			if (l.v[i].alloc <= 0 && done.entries >= want.entries)
				continue;
			if (policy_purge(d, fs, &l.v[i], reason, 0,
			    getpid()) == 0) {
				done.bytes += l.v[i].alloc;
				done.entries++;
			}
		}
	entry_list_free(&l);
	return done;
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
	(void)policy_purge_upto(d, fs, &f, "quota",
	    (struct purge_amount){ .bytes = u->alloc - p.quota });
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

/* The largest users first: by allocated bytes, or by entries. */
static int
policy_by_alloc(const void *a, const void *b)
{
	const struct usage *x = a, *y = b;

	return x->alloc < y->alloc ? 1 : x->alloc > y->alloc ? -1 :
	    x->uid < y->uid ? -1 : x->uid > y->uid;
}

static int
policy_by_count(const void *a, const void *b)
{
	const struct usage *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 :
	    x->uid < y->uid ? -1 : x->uid > y->uid;
}

/*
 * One round of policy_purge_fair() in one unit, allocated bytes or (if
 * @by_count) entries: the users over their share in it, the most first,
 * each oldest first and down to the share, until @need in that unit is
 * reached.  Adds what it purged to *@done.
 */
static void
policy_fair_round(struct trashd *d, struct tfs *fs,
    const struct index_filter *tmpl, const char *reason, bool by_count,
    const struct purge_amount *need, struct purge_amount *done)
{
	struct index_filter f;
	struct usage *u = NULL;
	struct purge_amount want;
	int64_t held = 0, share, over, left;
	size_t i, n = 0;

	if (index_usage_all(d->db, fs->id, &u, &n) < 0)
		return;
	for (i = 0; i < n; i++)
		held += by_count ? u[i].count : u[i].alloc;
	share = n > 0 ? held / (int64_t)n : 0;
	if (n > 1)
		qsort(u, n, sizeof(*u), by_count ? policy_by_count :
		    policy_by_alloc);
	for (i = 0; i < n; i++) {
		left = by_count ? need->entries - done->entries :
		    need->bytes - done->bytes;
		over = (by_count ? u[i].count : u[i].alloc) - share;
		if (left <= 0 || over <= 0)
			break;
		f = *tmpl;
		f.fs_id = fs->id;
		f.uid = u[i].uid;
		want.bytes = by_count ? 0 : over < left ? over : left;
		want.entries = !by_count ? 0 : over < left ? over : left;
		policy_add(done, done, policy_purge_upto(d, fs, &f, reason,
		    want));
	}
	free(u);
}

/*
 * Purge @need of the entries of @fs that @tmpl takes (its states and
 * flags), fairly: the users over their share first.  A user's share is
 * an equal part of what the trash holds on the filesystem: the allocated
 * bytes of its live entries over the number of users who have any, and
 * for a goal in entries, their number likewise (a round in each unit the
 * goal has).  Those over it are purged first, the largest first, each
 * oldest first and down to the share at most; only if that is not
 * enough, everyone, oldest first.  One user filling the disk, or its
 * inodes, through the trash loses their own entries before anyone
 * else's.  What was purged.
 */
static struct purge_amount
policy_purge_fair(struct trashd *d, struct tfs *fs,
    const struct index_filter *tmpl, const char *reason,
    struct purge_amount need)
{
	struct index_filter f;
	struct purge_amount done = { 0, 0 };

	if (need.bytes > 0)
		policy_fair_round(d, fs, tmpl, reason, false, &need, &done);
	if (need.entries > done.entries)
		policy_fair_round(d, fs, tmpl, reason, true, &need, &done);
	if (policy_reached(&done, &need))
		return done;
	f = *tmpl;
	f.fs_id = fs->id;
	f.uid = -1;
	policy_add(&done, &done, policy_purge_upto(d, fs, &f, reason,
	    policy_left(&need, &done)));
	return done;
}

/*
 * Free space below the watermark: purge until the space the trash holds
 * (and what the wipe queue will free) covers the gap, fairly
 * (policy_purge_fair()).  Freed blocks show in statvfs only after the
 * journal commits, so the entries' allocated sizes are counted rather
 * than statvfs re-read.
 */
int
policy_watermark(struct trashd *d, struct tfs *fs, uint64_t total,
    uint64_t avail)
{
	struct index_filter f = { .fs_id = fs->id, .uid = -1,
	    .states = ENTRY_STATE_MASK(ENTRY_WIPING) };
	struct entry_list l = { 0 };
	long double want;
	unsigned wm = policy_fs_watermark(d, fs);
	int64_t need;
	size_t i;
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
	memset(&f, 0, sizeof(f));
	f.states = ENTRY_LIVE;
	(void)policy_purge_fair(d, fs, &f, "watermark",
	    (struct purge_amount){ .bytes = need });
	return 0;
}

/*
 * Space pressure (pressure.c): writers on @fs wait because an allocation
 * found no space (@quota false; @uid the writer, -1 several) or went over
 * uid @uid's quota (@quota true).  Purge @want, in allocated bytes, in
 * entries (the filesystem is out of inodes) or both, oldest first, the
 * entries quick to free before the +s ones, which are overwritten first
 * and free their blocks only when their wipe ends:
 *  - quota: the files @uid owns, in whoever's trash they are;
 *  - space: @uid's own trash first, then fairly (policy_purge_fair()), so
 *    a user who fills the disk on purpose loses their own entries before
 *    anyone else's, and others' only down to their share first.
 * Each purge is audited with @reason.  Returns what was freed now;
 * *@wiping: +s entries were queued, freeing more when their wipes end.
 */
struct purge_amount
policy_pressure(struct trashd *d, struct tfs *fs, bool quota, int64_t uid,
    struct purge_amount want, const char *reason, bool *wiping)
{
	struct index_filter f;
	struct purge_amount freed = { 0, 0 }, queued = { 0, 0 }, done = { 0, 0 },
	    *sum;
	int pass;

	*wiping = false;
	(void)db_begin(d->db);
	for (pass = 0; pass < 2 && !policy_reached(&done, &want); pass++) {
		memset(&f, 0, sizeof(f));
		f.fs_id = fs->id;
		f.states = ENTRY_LIVE;
		/* Quick frees first; then the +s entries, wiped first. */
		if (pass == 0)
			f.flags_clear = FS_SECRM_FL;
		else
			f.flags_set = FS_SECRM_FL;
		sum = pass == 0 ? &freed : &queued;
		if (quota) {
			f.uid = -1;
			f.by_owner = true;
			f.owner = (uint32_t)uid;
			policy_add(sum, &done, policy_purge_upto(d, fs, &f,
			    reason, policy_left(&want, &done)));
			continue;
		}
		if (uid >= 0) {
			f.uid = uid;
			policy_add(sum, &done, policy_purge_upto(d, fs, &f,
			    reason, policy_left(&want, &done)));
		}
		if (!policy_reached(&done, &want))
			policy_add(sum, &done, policy_purge_fair(d, fs, &f,
			    reason, policy_left(&want, &done)));
	}
	(void)db_commit(d->db);
	*wiping = queued.entries > 0;
	return freed;
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
 * The exclusions of trashd.conf(5), vfs_recycle's exclude, exclude_dir,
 * minsize and maxsize: does one take new entry @e of @fs?  The first that
 * does is named in @rule ("excluded by exclude *.swp"), tried in this
 * order: the name patterns, the directory patterns, max-size, min-size.
 *
 * Sizes are allocated bytes, as the quota counts them: what keeping the
 * entry costs the filesystem (a sparse image of a huge apparent size
 * costs its blocks).  Names and directories are those of the recorded
 * original path; an entry without one (moved in by hand, or a path the
 * kernel could only record cut short) is taken by a size rule only.
 *
 * A directory pattern without '/' is matched against the name of each
 * directory along the path ("node_modules"), one with '/' against each
 * directory's absolute path, the mount point joined to the recorded
 * path, with '*' matching '/' too: the shipped rule, a '*' and then
 * "/.local/share/Trash", takes everything under any .local/share/Trash.
 * The file's own name is the name patterns' alone.
 */
static bool
policy_excluded(const struct config *c, const struct tfs *fs,
    const struct entry *e, char *rule, size_t len)
{
	char path[2 * PATH_MAX + 2], sz[32], *p, *comp;
	const char *name, *pat;
	size_t i;
	int n;

	if (e->orig_path != NULL) {
		name = strrchr(e->orig_path, '/');
		name = name != NULL ? name + 1 : e->orig_path;
		for (i = 0; i < c->nexclude; i++) {
			if (fnmatch(c->exclude[i], name, 0) == 0) {
				snprintf(rule, len, "excluded by exclude %s",
				    c->exclude[i]);
				return true;
			}
		}
	}
	if (e->orig_path != NULL && c->nexclude_dir > 0) {
		n = snprintf(path, sizeof(path), "%s/%s",
		    strcmp(fs->path, "/") == 0 ? "" : fs->path, e->orig_path);
		if (n < 0 || (size_t)n >= sizeof(path))
			goto size;
		/* Each directory: the path cut at each '/' but the first. */
		for (comp = p = path + 1; (p = strchr(p, '/')) != NULL;
		    comp = ++p) {
			*p = '\0';
			for (i = 0; i < c->nexclude_dir; i++) {
				pat = c->exclude_dir[i];
				if (fnmatch(pat, strchr(pat, '/') != NULL ?
				    path : comp, 0) == 0) {
					snprintf(rule, len, "excluded by "
					    "exclude-dir %s", pat);
					return true;
				}
			}
			*p = '/';
		}
	}
size:
	if (c->max_size > 0 && e->alloc > (int64_t)c->max_size) {
		parse_fmt_size(sz, sizeof(sz), c->max_size);
		snprintf(rule, len, "excluded by max-size %s", sz);
		return true;
	}
	if (c->min_size > 0 && e->alloc < (int64_t)c->min_size) {
		parse_fmt_size(sz, sizeof(sz), c->min_size);
		snprintf(rule, len, "excluded by min-size %s", sz);
		return true;
	}
	return false;
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
 * only: the min-age purge, the purge of those an exclusion takes (a +s
 * one wiped first, whatever its grace), the wipe of a +s one whose grace
 * is over (0s:
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
	char rule[32 + CONFIG_PATTERN_MAX];
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
		fs = trash_fs(d, e.fs_id);
		if (fs == NULL || e.state != ENTRY_TRASHED) {
			entry_clear(&e);
			continue;
		}
		if (d->fresh[i].young) {
			r = policy_purge(d, fs, &e, "min-age", 0, getpid());
			if (r < 0 && r != -ESTALE && r != -ENOENT)
				log_warnx("policy: %s: min-age: %s", fs->path,
				    strerror(-r));
		} else if (policy_excluded(d->conf, fs, &e, rule,
		    sizeof(rule))) {
			r = policy_purge(d, fs, &e, rule, 0, getpid());
			if (r < 0 && r != -ESTALE && r != -ENOENT)
				log_warnx("policy: %s: %s: %s", fs->path, rule,
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
		policy_next(d);
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
		/* With the kernel's pressure file, it says when (pressure.c). */
		if (fs->press.fd >= 0)
			;
		else if (fstatvfs(fs->rootfd, &sv) == 0)
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

/*
 * The scan indexed entry @id (the scan's entry_new hook): queue it for the
 * next run, which purges it at once if min-age finds it too young.
 */
void
policy_indexed(struct trashd *d, int64_t id, int64_t born_ns,
    int64_t deleted_ns)
{
	policy_new_entry(d, id, d->conf->min_age > 0 && born_ns >= 0 &&
	    policy_too_young(d->conf->min_age, born_ns, deleted_ns));
	policy_next(d);
}

/*
 * The policy timer: a full run (every policy, the whole index) each
 * policy-interval and when one was asked for; in between, runs over just
 * the entries that came since the last one (policy_fresh()), so that a
 * burst of deletions does not pay for runs over the whole index.
 */
static void
policy_timer(evutil_socket_t fd, short ev, void *arg)
{
	struct trashd *d = arg;
	struct timeval tv = { 0, 0 };
	int64_t now = now_ns(), left;

	(void)fd;
	(void)ev;
	if (d->policy_full || now >= d->policy_due) {
		d->policy_full = false;
		if (policy_run(d, now) < 0)
			log_warnx("policy: run failed");
		d->policy_due = now + (d->conf->interval > 0 ?
		    d->conf->interval : 300) * NSEC_PER_SEC;
	} else if (policy_fresh(d, now) < 0) {
		log_warnx("policy: run failed");
	}
	wipe_kick(d);
	left = d->policy_due - now_ns();
	if (left > 0) {
		tv.tv_sec = left / NSEC_PER_SEC;
		tv.tv_usec = left % NSEC_PER_SEC / 1000;
	}
	evtimer_add(d->policy_ev, &tv);
}

/* A full policy run soon: the configuration or a policy changed. */
void
policy_soon(struct trashd *d)
{
	d->policy_full = true;
	policy_next(d);
}

/* A run soon over the entries new since the last one. */
void
policy_next(struct trashd *d)
{
	struct timeval tv = { 0, POLICY_DELAY_MS * 1000 }, left;

	if (d->base == NULL || d->policy_ev == NULL)
		return;
	/* Only bring the next run forward, never push it back. */
	if (evtimer_pending(d->policy_ev, &left)) {
		struct timeval now;

		event_base_gettimeofday_cached(d->base, &now);
		if (left.tv_sec - now.tv_sec <= 0)
			return;
	}
	evtimer_add(d->policy_ev, &tv);
}

/* The timer, in a daemon with an event loop (not in the unit tests). */
void
policy_start(struct trashd *d)
{
	if (d->base == NULL)
		return;
	d->policy_ev = evtimer_new(d->base, policy_timer, d);
	if (d->policy_ev == NULL)
		fatalx("cannot add the policy timer");
}

void
policy_stop(struct trashd *d)
{
	if (d->policy_ev != NULL)
		event_free(d->policy_ev);
	d->policy_ev = NULL;
	free(d->fresh);
	d->fresh = NULL;
	d->nfresh = d->fresh_cap = 0;
}
