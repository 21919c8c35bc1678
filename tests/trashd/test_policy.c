/* SPDX-License-Identifier: ISC */
/*
 * policy.c: the override API the control socket will call, and the
 * quota, retention, watermark and +s purges, each oldest first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

struct state {
	struct tl	t;
	struct trashd	d;
};

static int
setup(void **state)
{
	struct state *s = xcalloc(1, sizeof(*s));

	tl_setup(&s->t);
	tl_open(&s->t, &s->d, tl_config(&s->t), NULL);
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct state *s = *state;

	daemon_close(&s->d);
	tl_teardown(&s->t);
	free(s);
	return 0;
}

static void
stage(struct state *s, uint32_t uid, const char *name, int64_t t,
    uint32_t flags, size_t len)
{
	struct tl_entry e = { .uid = uid, .name = name, .path = name,
	    .time = t, .deleter = uid, .flags = flags };
	char *buf = xmalloc(len ? len : 1);

	memset(buf, 'q', len);
	e.data = buf;
	e.len = len;
	tl_stage(&s->t, &e);
	free(buf);
}

static bool
in_trash(struct state *s, uint32_t uid, const char *name)
{
	char p[PATH_MAX];

	tl_path(&s->t, p, sizeof(p), ".trash/%u/%s", uid, name);
	return tl_exists(p);
}

static enum entry_state
state_of(struct state *s, uint32_t uid, const char *name)
{
	struct entry e;
	enum entry_state st;

	assert_int_equal(tl_entry_by_name(&s->d, uid, name, &e), 0);
	st = e.state;
	entry_clear(&e);
	return st;
}

/* The allocated size the index holds for an entry (0 for an empty file). */
static int64_t
alloc_any(struct state *s, uint32_t uid, const char *name)
{
	struct entry e;
	int64_t a;

	assert_int_equal(tl_entry_by_name(&s->d, uid, name, &e), 0);
	a = e.alloc;
	entry_clear(&e);
	return a;
}

/* The same for an entry that holds blocks. */
static int64_t
alloc_of(struct state *s, uint32_t uid, const char *name)
{
	int64_t a = alloc_any(s, uid, name);

	assert_true(a > 0);
	return a;
}

static void
test_overrides_api(void **state)
{
	struct state *s = *state;
	struct policy p = { .quota = 100, .retention = 3600 }, g;

	assert_int_equal(policy_get(&s->d, POLICY_USER, 1000, &g), -ENOENT);
	assert_int_equal(policy_set(&s->d, POLICY_USER, 1000, &p), 0);
	assert_int_equal(policy_get(&s->d, POLICY_USER, 1000, &g), 0);
	assert_int_equal(g.quota, 100);
	assert_int_equal(g.retention, 3600);
	p.retention = -1;	/* inherit */
	assert_int_equal(policy_set(&s->d, POLICY_USER, 1000, &p), 0);
	assert_int_equal(policy_get(&s->d, POLICY_USER, 1000, &g), 0);
	assert_int_equal(g.retention, -1);
	p.quota = -5;
	assert_int_equal(policy_set(&s->d, POLICY_USER, 1000, &p),
	    -EINVAL);
	assert_int_equal(policy_unset(&s->d, POLICY_USER, 1000), 0);
	assert_int_equal(policy_unset(&s->d, POLICY_USER, 1000),
	    -ENOENT);
	/*
	 * The store records nothing: the control socket's request record
	 * is the one (a second was the same fact twice, issue 13).
	 */
	assert_int_equal(tl_audit_count(&s->d, "policy-set"), 0);
	assert_int_equal(tl_audit_count(&s->d, "policy-unset"), 0);
}

/* User override > most generous group override > config default. */
static void
test_effective(void **state)
{
	struct state *s = *state;
	struct policy p, e;

	s->d.conf->quota = 1000;
	s->d.conf->retention = 86400;
	assert_int_equal(policy_effective(&s->d, 0, &e), 0);
	assert_int_equal(e.quota, 1000);
	assert_int_equal(e.retention, 86400);
	/* root is in group 0. */
	p = (struct policy){ .quota = 5000, .retention = -1 };
	assert_int_equal(policy_set(&s->d, POLICY_GROUP, 0, &p), 0);
	assert_int_equal(policy_effective(&s->d, 0, &e), 0);
	assert_int_equal(e.quota, 5000);
	assert_int_equal(e.retention, 86400);
	p = (struct policy){ .quota = 200, .retention = 60 };
	assert_int_equal(policy_set(&s->d, POLICY_USER, 0, &p), 0);
	assert_int_equal(policy_effective(&s->d, 0, &e), 0);
	assert_int_equal(e.quota, 200);
	assert_int_equal(e.retention, 60);
	/* A uid without a passwd entry has no groups. */
	assert_int_equal(policy_effective(&s->d, 3999999, &e), 0);
	assert_int_equal(e.quota, 1000);
	assert_int_equal(policy_unset(&s->d, POLICY_USER, 0), 0);
	assert_int_equal(policy_unset(&s->d, POLICY_GROUP, 0), 0);
	s->d.conf->quota = 0;
	s->d.conf->retention = 0;
}

static void
test_quota_oldest_first(void **state)
{
	struct state *s = *state;
	struct policy p = { .quota = -1, .retention = -1 };

	/* Staged newest first: the order comes from the deletion time. */
	stage(s, 2000, "q4", 400, FS_UNRM_FL, 4096);
	stage(s, 2000, "q3", 300, FS_UNRM_FL, 4096);
	stage(s, 2000, "q1", 100, FS_UNRM_FL, 4096);
	stage(s, 2000, "q2", 200, FS_UNRM_FL, 4096);
	stage(s, 2001, "other", 50, FS_UNRM_FL, 4096);
	assert_int_equal(scan_all(&s->d), 0);
	/* Quotas count allocated bytes (xattr blocks and all): 2.5 entries. */
	p.quota = alloc_of(s, 2000, "q1") * 5 / 2;
	assert_int_equal(policy_set(&s->d, POLICY_USER, 2000, &p), 0);
	assert_int_equal(policy_quota(&s->d, &s->d.fs[0]), 0);
	assert_false(in_trash(s, 2000, "q1"));
	assert_false(in_trash(s, 2000, "q2"));
	assert_true(in_trash(s, 2000, "q3"));
	assert_true(in_trash(s, 2000, "q4"));
	assert_true(in_trash(s, 2001, "other"));	/* no quota for 2001 */
	assert_int_equal(state_of(s, 2000, "q1"), ENTRY_PURGED);
	assert_int_equal(state_of(s, 2000, "q2"), ENTRY_PURGED);
	assert_int_equal(state_of(s, 2000, "q3"), ENTRY_TRASHED);
	assert_int_equal(tl_audit_count(&s->d, "purged"), 2);
	/* Within quota now: nothing more goes. */
	assert_int_equal(policy_quota(&s->d, &s->d.fs[0]), 0);
	assert_true(in_trash(s, 2000, "q3"));
}

static void
test_retention(void **state)
{
	struct state *s = *state;
	int64_t now = time(NULL);

	stage(s, 2002, "old", now - 10 * 86400, FS_UNRM_FL, 10);
	stage(s, 2002, "older", now - 20 * 86400, FS_UNRM_FL, 10);
	stage(s, 2002, "recent", now - 3600, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	s->d.conf->retention = 7 * 86400;
	assert_int_equal(policy_retention(&s->d, &s->d.fs[0],
	    now * NSEC_PER_SEC), 0);
	s->d.conf->retention = 0;
	assert_false(in_trash(s, 2002, "old"));
	assert_false(in_trash(s, 2002, "older"));
	assert_true(in_trash(s, 2002, "recent"));
	assert_int_equal(state_of(s, 2002, "recent"), ENTRY_TRASHED);
	assert_int_equal(state_of(s, 2002, "old"), ENTRY_PURGED);
}

/*
 * Below the watermark, every user at their share (in a trash of its
 * own): oldest first across users, just enough.
 */
static void
test_watermark(void **state)
{
	struct state *s = *state;
	struct tfs *fs = &s->d.fs[0];
	int64_t alloc;

	stage(s, 3000, "w1", 10, FS_UNRM_FL, 4096);
	stage(s, 3001, "w2", 20, FS_UNRM_FL, 4096);
	stage(s, 3000, "w3", 30, FS_UNRM_FL, 4096);
	stage(s, 3001, "w4", 40, FS_UNRM_FL, 4096);
	assert_int_equal(scan_all(&s->d), 0);
	alloc = alloc_of(s, 3000, "w1");
	assert_true(alloc >= 4096);
	fs->watermark = 50;
	/* Above the watermark: nothing happens. */
	assert_int_equal(policy_watermark(&s->d, fs, 1000000, 600000), 0);
	assert_true(in_trash(s, 3000, "w1"));
	/* Short by 1.5 entries: the two oldest go, across both users. */
	assert_int_equal(policy_watermark(&s->d, fs, 1000000,
	    (uint64_t)(500000 - alloc - alloc / 2)), 0);
	fs->watermark = 0;
	assert_false(in_trash(s, 3000, "w1"));
	assert_false(in_trash(s, 3001, "w2"));
	assert_true(in_trash(s, 3000, "w3"));
	assert_true(in_trash(s, 3001, "w4"));
	assert_int_equal(state_of(s, 3001, "w2"), ENTRY_PURGED);
}

/* A +s entry purged is wiped, never just unlinked. */
static void
test_secure_purge_wipes(void **state)
{
	struct state *s = *state;
	struct policy p = { .quota = 1, .retention = -1 };
	char q[PATH_MAX];
	struct entry e;

	stage(s, 4000, "secret", 100, FS_SECRM_FL, 8192);
	stage(s, 4000, "plain", 200, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	assert_int_equal(policy_set(&s->d, POLICY_USER, 4000, &p), 0);
	assert_int_equal(policy_quota(&s->d, &s->d.fs[0]), 0);
	assert_int_equal(tl_entry_by_name(&s->d, 4000, "secret", &e), 0);
	assert_int_equal(e.state, ENTRY_WIPING);
	/* Queued in .wipe under its id, out of the user's reach. */
	tl_path(&s->t, q, sizeof(q), ".trash/.wipe/%lld", (long long)e.id);
	assert_true(tl_exists(q));
	assert_false(in_trash(s, 4000, "secret"));
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_false(tl_exists(q));
	entry_clear(&e);
	assert_int_equal(state_of(s, 4000, "secret"), ENTRY_WIPED);
	assert_int_equal(state_of(s, 4000, "plain"), ENTRY_PURGED);
	assert_int_equal(tl_audit_count(&s->d, "wiped"), 1);
}

static void
test_secure_grace(void **state)
{
	struct state *s = *state;
	int64_t now = time(NULL);

	stage(s, 4001, "fresh", now - 10, FS_SECRM_FL, 10);
	stage(s, 4001, "aged", now - 7200, FS_SECRM_FL, 10);
	stage(s, 4001, "plain", now - 7200, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	s->d.conf->grace = 3600;
	assert_int_equal(policy_secure(&s->d, &s->d.fs[0],
	    now * NSEC_PER_SEC), 0);
	assert_int_equal(state_of(s, 4001, "aged"), ENTRY_WIPING);
	assert_int_equal(state_of(s, 4001, "fresh"), ENTRY_TRASHED);
	assert_int_equal(state_of(s, 4001, "plain"), ENTRY_TRASHED);
	s->d.conf->grace = 0;
	assert_int_equal(policy_secure(&s->d, &s->d.fs[0],
	    now * NSEC_PER_SEC), 0);
	assert_int_equal(state_of(s, 4001, "fresh"), ENTRY_WIPING);
	assert_int_equal(state_of(s, 4001, "plain"), ENTRY_TRASHED);
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_int_equal(state_of(s, 4001, "fresh"), ENTRY_WIPED);
	assert_int_equal(state_of(s, 4001, "aged"), ENTRY_WIPED);
}

/* The control socket's verbs by id: purge, wipe now, mark restored. */
static void
test_control_api(void **state)
{
	struct state *s = *state;
	struct entry a, b, c;
	struct audit_row *rows;
	int64_t a_id;
	size_t n;

	stage(s, 5000, "ca", 10, FS_UNRM_FL, 10);
	stage(s, 5000, "cb", 20, FS_UNRM_FL, 10);
	stage(s, 5000, "cc", 30, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	assert_int_equal(tl_entry_by_name(&s->d, 5000, "ca", &a), 0);
	assert_int_equal(tl_entry_by_name(&s->d, 5000, "cb", &b), 0);
	assert_int_equal(tl_entry_by_name(&s->d, 5000, "cc", &c), 0);
	a_id = a.id;
	/* As the socket's "empty" purges: the entry as the index has it. */
	assert_int_equal(policy_purge(&s->d, trash_fs(&s->d, a.fs_id), &a,
	    "empty", 5000, 99), 0);
	assert_false(in_trash(s, 5000, "ca"));
	entry_clear(&a);
	assert_int_equal(index_get(s->d.db, a_id, &a), 0);
	assert_int_equal(policy_purge(&s->d, trash_fs(&s->d, a.fs_id), &a,
	    "empty", 5000, 99), -EALREADY);
	/* "wipe now" wipes even a +u entry: the user asked for it. */
	assert_int_equal(wipe_request(&s->d, b.id, 5000, 99), 0);
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_int_equal(state_of(s, 5000, "cb"), ENTRY_WIPED);
	assert_int_equal(index_mark_restored(&s->d, c.id, 5000, 99), 0);
	assert_int_equal(state_of(s, 5000, "cc"), ENTRY_RESTORED);
	assert_int_equal(index_mark_restored(&s->d, c.id, 5000, 99),
	    -EALREADY);
	assert_int_equal(audit_query(&s->d, 0, 5000, 0, &rows, &n), 0);
	/*
	 * 3 trashed (the deleter), purged, wipe-request; marking an entry
	 * restored records nothing: its restore's report does, once.
	 */
	assert_int_equal(n, 5);
	audit_rows_free(rows, n);
	entry_clear(&a);
	entry_clear(&b);
	entry_clear(&c);
}

/* The min-age rule alone: off, unknown birth, clock steps, the edge. */
static void
test_too_young(void **state)
{
	(void)state;
	assert_false(policy_too_young(0, 0, 1));
	assert_false(policy_too_young(60, -1, 5 * NSEC_PER_SEC));
	assert_false(policy_too_young(60, 100 * NSEC_PER_SEC,
	    50 * NSEC_PER_SEC));
	assert_true(policy_too_young(60, 0, 0));
	assert_true(policy_too_young(60, 0, 60 * NSEC_PER_SEC - 1));
	assert_false(policy_too_young(60, 0, 60 * NSEC_PER_SEC));
}

static size_t
young_queued(struct state *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->d.nfresh; i++)
		n += s->d.fresh[i].young;
	return n;
}

static int64_t
audit_results_with(struct state *s, const char *action, const char *what)
{
	struct audit_row *rows;
	size_t n, i;
	int64_t c = 0;

	assert_int_equal(audit_query(&s->d, 0, -1, 0, &rows, &n), 0);
	for (i = 0; i < n; i++)
		if (strcmp(rows[i].action, action) == 0 &&
		    strstr(rows[i].result, what) != NULL)
			c++;
	audit_rows_free(rows, n);
	return c;
}

/*
 * min-age: an entry deleted within N seconds of its birth (statx btime)
 * is purged at the next policy run, a +s one wiped; the others stay.
 */
static void
test_min_age(void **state)
{
	struct state *s = *state;
	int64_t now = time(NULL), born;
	char p[PATH_MAX];
	int fd;

	tl_path(&s->t, p, sizeof(p), ".trash");
	assert_true((fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	if (scan_birth_ns(fd, &born) < 0) {
		close(fd);
		skip();		/* no btime here: the policy keeps all */
	}
	close(fd);
	s->d.conf->min_age = 60;
	s->d.conf->grace = 3600;	/* only min-age may wipe "swp" */
	/* Born now (staged now), deleted 2 s later: young. */
	stage(s, 6000, "tmp~", now + 2, FS_UNRM_FL, 10);
	stage(s, 6000, "swp", now + 2, FS_SECRM_FL, 8192);
	/* Deleted an hour after its birth: kept. */
	stage(s, 6000, "kept", now + 3600, FS_UNRM_FL, 10);
	/* "Deleted" before its birth (a clock step): kept. */
	stage(s, 6000, "odd", 10, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	/* The scan only queues them. */
	assert_int_equal(young_queued(s), 2);
	assert_true(in_trash(s, 6000, "tmp~"));
	assert_int_equal(policy_fresh(&s->d, now * NSEC_PER_SEC), 0);
	assert_int_equal(s->d.nfresh, 0);
	assert_false(in_trash(s, 6000, "tmp~"));
	assert_int_equal(state_of(s, 6000, "tmp~"), ENTRY_PURGED);
	assert_int_equal(state_of(s, 6000, "swp"), ENTRY_WIPING);
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_int_equal(state_of(s, 6000, "swp"), ENTRY_WIPED);
	assert_true(in_trash(s, 6000, "kept"));
	assert_int_equal(state_of(s, 6000, "kept"), ENTRY_TRASHED);
	assert_true(in_trash(s, 6000, "odd"));
	assert_int_equal(audit_results_with(s, "purged", "min-age"), 1);
	assert_int_equal(audit_results_with(s, "wipe-queued", "min-age"), 1);
	/* Off (0s): a young entry stays. */
	s->d.conf->min_age = 0;
	stage(s, 6000, "young-but-off", now + 2, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	assert_int_equal(young_queued(s), 0);
	assert_int_equal(policy_run(&s->d, now * NSEC_PER_SEC), 0);
	assert_true(in_trash(s, 6000, "young-but-off"));
	s->d.conf->grace = 0;
}

/*
 * The run over new entries only: a +s one with grace 0 is wiped, its
 * owner's quota enforced; retention waits for the full run.
 */
static void
test_fresh(void **state)
{
	struct state *s = *state;
	struct policy q = { .quota = -1, .retention = 0 };
	struct policy r = { .quota = 0, .retention = 60 };
	int64_t now = time(NULL);

	assert_int_equal(policy_fresh(&s->d, now * NSEC_PER_SEC), 0);
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_int_equal(policy_set(&s->d, POLICY_USER, 7001, &r), 0);
	stage(s, 7000, "q-old", 10, FS_UNRM_FL, 80);
	stage(s, 7000, "q-new", now, FS_UNRM_FL, 80);
	stage(s, 7000, "q-sec", now, FS_SECRM_FL, 10);
	stage(s, 7001, "r-old", 10, FS_UNRM_FL, 10);
	assert_int_equal(scan_all(&s->d), 0);
	/* Quotas count allocated bytes: more than one entry, not two. */
	q.quota = alloc_of(s, 7000, "q-old") * 3 / 2;
	assert_int_equal(policy_set(&s->d, POLICY_USER, 7000, &q), 0);
	assert_int_equal(s->d.nfresh, 4);
	assert_int_equal(policy_fresh(&s->d, now * NSEC_PER_SEC), 0);
	assert_int_equal(s->d.nfresh, 0);
	assert_int_equal(state_of(s, 7000, "q-sec"), ENTRY_WIPING);
	assert_int_equal(state_of(s, 7000, "q-old"), ENTRY_PURGED);
	assert_int_equal(state_of(s, 7000, "q-new"), ENTRY_TRASHED);
	assert_int_equal(state_of(s, 7001, "r-old"), ENTRY_TRASHED);
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_int_equal(state_of(s, 7000, "q-sec"), ENTRY_WIPED);
	/* Nothing new: nothing done, nothing scanned. */
	assert_int_equal(policy_fresh(&s->d, now * NSEC_PER_SEC), 0);
	assert_int_equal(state_of(s, 7001, "r-old"), ENTRY_TRASHED);
	assert_int_equal(policy_run(&s->d, now * NSEC_PER_SEC), 0);
	assert_int_equal(state_of(s, 7001, "r-old"), ENTRY_PURGED);
	assert_int_equal(state_of(s, 7000, "q-new"), ENTRY_TRASHED);
}

/*
 * Issue 12, finding 6: one user's big trash over the watermark is purged
 * (oldest first, down to an equal share) before another user's small
 * trash is touched, however old its entries.
 */
static void
test_watermark_fair(void **state)
{
	struct state *s = *state;
	struct tfs *fs = &s->d.fs[0];
	struct usage u;
	struct entry e;
	char name[32];
	int64_t big, small;
	int i;

	stage(s, 3100, "small", 10, 0, 4096);
	for (i = 0; i < 8; i++) {
		TL_SNPRINTF(name, sizeof(name), "big%d", i);
		stage(s, 3101, name, 20 + i, 0, 64 * 1024);
	}
	assert_int_equal(scan_all(&s->d), 0);
	/* Allocated sizes, xattr blocks and all. */
	assert_int_equal(tl_entry_by_name(&s->d, 3101, "big0", &e), 0);
	big = e.alloc;
	entry_clear(&e);
	assert_int_equal(tl_entry_by_name(&s->d, 3100, "small", &e), 0);
	small = e.alloc;
	entry_clear(&e);
	assert_true(big >= 64 * 1024 && small < big);
	assert_int_equal(index_usage(s->d.db, fs->id, 3101, &u), 0);
	assert_int_equal(u.alloc, 8 * big);
	fs->watermark = 50;
	/* Short by three big entries, less than 3101 holds over its share. */
	assert_int_equal(policy_watermark(&s->d, fs, 10000000,
	    (uint64_t)(5000000 - 3 * big)), 0);
	assert_true(in_trash(s, 3100, "small"));
	assert_int_equal(state_of(s, 3100, "small"), ENTRY_TRASHED);
	assert_false(in_trash(s, 3101, "big0"));
	assert_false(in_trash(s, 3101, "big2"));
	assert_true(in_trash(s, 3101, "big3"));
	/* Short by more than 3101 holds over its share: then everyone. */
	assert_int_equal(policy_watermark(&s->d, fs, 10000000,
	    (uint64_t)(5000000 - 4 * big - 1)), 0);
	fs->watermark = 0;
	assert_false(in_trash(s, 3101, "big5"));
	assert_false(in_trash(s, 3100, "small"));
	assert_true(in_trash(s, 3101, "big7"));
}

/*
 * Issue 12, finding 6: quotas count allocated blocks.  A sparse file of
 * 10 GiB apparent size holding a few KiB is within a 1 MiB quota, and
 * the user's other entries stay.
 */
static void
test_quota_sparse(void **state)
{
	struct state *s = *state;
	struct policy p = { .quota = 1024 * 1024, .retention = -1 };
	struct usage u;
	char path[PATH_MAX];
	int fd;

	stage(s, 3200, "older", 10, 0, 4096);
	stage(s, 3200, "sparse", 20, 0, 4096);
	tl_path(&s->t, path, sizeof(path), ".trash/3200/sparse");
	assert_true((fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0);
	assert_int_equal(ftruncate(fd, (off_t)10 << 30), 0);
	close(fd);
	assert_int_equal(scan_all(&s->d), 0);
	assert_int_equal(index_usage(s->d.db, s->d.fs[0].id, 3200, &u), 0);
	assert_true(u.bytes > (int64_t)10 << 30);
	assert_true(u.alloc < p.quota);
	assert_int_equal(policy_set(&s->d, POLICY_USER, 3200, &p), 0);
	assert_int_equal(policy_quota(&s->d, &s->d.fs[0]), 0);
	assert_true(in_trash(s, 3200, "older"));
	assert_true(in_trash(s, 3200, "sparse"));
	/* And the new-entry path (policy_fresh) agrees. */
	stage(s, 3200, "newer", 30, 0, 4096);
	assert_int_equal(scan_all(&s->d), 0);
	assert_int_equal(policy_fresh(&s->d, (int64_t)time(NULL) *
	    NSEC_PER_SEC), 0);
	assert_true(in_trash(s, 3200, "older"));
	assert_true(in_trash(s, 3200, "sparse"));
}

/*
 * A goal in bytes passes over entries that hold no blocks: a quota purge
 * of a user whose oldest entry is an empty file takes the oldest that
 * frees space, and the empty ones stay (purging them frees nothing; with
 * a trash of empty files it emptied the trash).  A goal in entries takes
 * them, oldest first.
 */
static void
test_bytes_goal_skips_empty(void **state)
{
	struct state *s = *state;
	struct policy p = { .quota = -1, .retention = -1 };

	stage(s, 3300, "e1", 10, FS_UNRM_FL, 0);
	stage(s, 3300, "q1", 20, FS_UNRM_FL, 4096);
	stage(s, 3300, "e2", 30, FS_UNRM_FL, 0);
	stage(s, 3300, "q2", 40, FS_UNRM_FL, 4096);
	assert_int_equal(scan_all(&s->d), 0);
	if (alloc_any(s, 3300, "e1") != 0)
		skip();	/* the record did not fit in the inode here */
	/* Over by half an entry: one entry of blocks must go. */
	p.quota = alloc_of(s, 3300, "q1") * 3 / 2;
	assert_int_equal(policy_set(&s->d, POLICY_USER, 3300, &p), 0);
	assert_int_equal(policy_quota(&s->d, &s->d.fs[0]), 0);
	assert_true(in_trash(s, 3300, "e1"));
	assert_false(in_trash(s, 3300, "q1"));
	assert_true(in_trash(s, 3300, "e2"));
	assert_true(in_trash(s, 3300, "q2"));
	assert_int_equal(tl_audit_count(&s->d, "purged"), 1);
}

/*
 * Issue 12, finding 7: a flood of new entries is taken a bounded number
 * per run (the rest on the next), not all in one turn of the loop.
 */
static void
test_fresh_bounded(void **state)
{
	struct state *s = *state;
	int64_t now = time(NULL) * NSEC_PER_SEC;
	size_t left;
	int i, runs = 0;

	for (i = 0; i < 1500; i++)
		policy_new_entry(&s->d, 1000000 + i, false);	/* no rows */
	assert_int_equal(s->d.nfresh, 1500);
	while (s->d.nfresh > 0 && runs < 100) {
		left = s->d.nfresh;
		assert_int_equal(policy_fresh(&s->d, now), 0);
		assert_true(left - s->d.nfresh <= 512);
		runs++;
	}
	assert_int_equal(s->d.nfresh, 0);
	assert_int_equal(runs, 3);
}

/*
 * Space pressure (pressure.c asks, policy_pressure() chooses): out of
 * space, the writer's own trash goes first, oldest first, quick frees
 * before +s entries; over quota, the files the user owns, in whoever's
 * trash they are; +s entries are queued for their wipe, never unlinked.
 */
static void
test_pressure(void **state)
{
	struct state *s = *state;
	struct tfs *fs = &s->d.fs[0];
	char path[PATH_MAX];
	struct purge_amount freed, one = { .bytes = 1 },
	    all = { .bytes = 1 << 30 };
	bool wiping;

	stage(s, 3301, "b1", 1, FS_UNRM_FL, 8192);
	stage(s, 3301, "b2", 2, FS_UNRM_FL, 8192);
	stage(s, 3301, "b-own", 4, FS_UNRM_FL, 8192);
	stage(s, 3300, "a-sec", 5, FS_SECRM_FL, 8192);
	stage(s, 3300, "a-old", 10, FS_UNRM_FL, 8192);
	/* 3300's file that 3301 deleted: in 3301's trash, on 3300's quota. */
	tl_path(&s->t, path, sizeof(path), ".trash/3301/b-own");
	assert_int_equal(chown(path, 3300, 3300), 0);
	assert_int_equal(scan_all(&s->d), 0);

	/* Out of space, 3300 writing: its own quick entry, not older b1. */
	freed = policy_pressure(&s->d, fs, false, 3300, one, "pressure",
	    &wiping);
	assert_true(freed.bytes >= 8192);
	assert_int_equal(freed.entries, 1);
	assert_false(wiping);
	assert_false(in_trash(s, 3300, "a-old"));
	assert_true(in_trash(s, 3300, "a-sec"));
	assert_true(in_trash(s, 3301, "b1"));
	assert_int_equal(state_of(s, 3300, "a-old"), ENTRY_PURGED);
	assert_int_equal(tl_audit_count(&s->d, "purged"), 1);

	/* Over 3300's quota: what 3300 owns, wherever; +s last. */
	freed = policy_pressure(&s->d, fs, true, 3300, one, "quota-pressure",
	    &wiping);
	assert_true(freed.bytes >= 8192);
	assert_false(wiping);
	assert_false(in_trash(s, 3301, "b-own"));
	assert_true(in_trash(s, 3300, "a-sec"));
	assert_true(in_trash(s, 3301, "b1"));
	assert_int_equal(tl_audit_count(&s->d, "purged"), 2);

	/* Everything: the quick ones, then the +s one, queued for a wipe. */
	freed = policy_pressure(&s->d, fs, false, 3300, all, "pressure",
	    &wiping);
	assert_true(freed.bytes >= 2 * 8192);
	assert_int_equal(freed.entries, 2);
	assert_true(wiping);
	assert_false(in_trash(s, 3301, "b1"));
	assert_false(in_trash(s, 3301, "b2"));
	assert_int_equal(state_of(s, 3300, "a-sec"), ENTRY_WIPING);
	assert_int_equal(wipe_drain(&s->d), 0);
	assert_int_equal(state_of(s, 3300, "a-sec"), ENTRY_WIPED);
}

/*
 * Out of inodes (pressure.c asks in entries): empty files free no bytes,
 * so a goal in bytes would purge the whole trash and free "nothing".  A
 * goal in entries purges that many: the writer's own first, then the
 * users over their share in number of entries, the most first.
 */
static void
test_pressure_entries(void **state)
{
	struct state *s = *state;
	struct tfs *fs = &s->d.fs[0];
	struct purge_amount freed, three = { .entries = 3 };
	char name[16];
	bool wiping;
	int i;

	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		stage(s, 3300, name, 10 + i, FS_UNRM_FL, 0);
	}
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		stage(s, 3301, name, 1 + i, FS_UNRM_FL, 0);
	}
	stage(s, 3302, "c0", 2, FS_UNRM_FL, 0);
	assert_int_equal(scan_all(&s->d), 0);

	/* 3302 writing: its one entry, then 3300's, the most over share. */
	freed = policy_pressure(&s->d, fs, false, 3302, three, "pressure",
	    &wiping);
	assert_int_equal(freed.entries, 3);
	assert_int_equal(freed.bytes, 0);
	assert_false(wiping);
	assert_false(in_trash(s, 3302, "c0"));
	assert_false(in_trash(s, 3300, "a0"));
	assert_false(in_trash(s, 3300, "a1"));
	assert_true(in_trash(s, 3300, "a2"));
	assert_true(in_trash(s, 3301, "b0"));
	assert_int_equal(tl_audit_count(&s->d, "purged"), 3);

	/*
	 * Anyone writing: 3300's down to the share (6 left over 2 users:
	 * 3), then everyone's oldest first: 3301's two.
	 */
	freed = policy_pressure(&s->d, fs, false, -1, three, "pressure",
	    &wiping);
	assert_int_equal(freed.entries, 3);
	assert_false(in_trash(s, 3300, "a2"));
	assert_false(in_trash(s, 3301, "b0"));
	assert_false(in_trash(s, 3301, "b1"));
	assert_true(in_trash(s, 3300, "a3"));
	assert_int_equal(tl_audit_count(&s->d, "purged"), 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overrides_api),
		cmocka_unit_test(test_effective),
		cmocka_unit_test(test_quota_oldest_first),
		cmocka_unit_test(test_retention),
		cmocka_unit_test_setup_teardown(test_watermark, setup,
		    teardown),
		cmocka_unit_test(test_secure_purge_wipes),
		cmocka_unit_test(test_secure_grace),
		cmocka_unit_test(test_control_api),
		cmocka_unit_test(test_too_young),
		cmocka_unit_test(test_min_age),
		cmocka_unit_test(test_fresh),
		cmocka_unit_test_setup_teardown(test_pressure, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pressure_entries, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_watermark_fair, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_quota_sparse, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bytes_goal_skips_empty,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fresh_bounded, setup,
		    teardown),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
