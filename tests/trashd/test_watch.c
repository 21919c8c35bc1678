/* SPDX-License-Identifier: ISC */
/*
 * watch.c: entries arriving while trashd runs are indexed from inotify
 * events; a new per-uid dir is watched and scanned; a rename inside the
 * trash is not a departure; IN_Q_OVERFLOW (events lost) rescans.
 */
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

struct state {
	struct tl		 t;
	struct trashd		 d;
	struct event_base	*base;
};

static int
setup(void **state)
{
	struct state *s = xcalloc(1, sizeof(*s));

	tl_setup(&s->t);
	tl_mkuid(&s->t, 1000);
	s->base = event_base_new();
	assert_non_null(s->base);
	tl_open(&s->t, &s->d, tl_config(&s->t), s->base);
	assert_true(s->d.inotify_fd >= 0);
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct state *s = *state;

	daemon_close(&s->d);
	event_base_free(s->base);
	tl_teardown(&s->t);
	free(s);
	return 0;
}

/* Run the loop until @uid has @n live entries; false after 5 s. */
static bool
settle(struct state *s, int64_t uid, int64_t n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 500; i++) {
		event_base_loop(s->base, EVLOOP_NONBLOCK);
		if (tl_count(&s->d, uid, ENTRY_LIVE) == n)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Run the loop until @uid has a live entry @name; false after 5 s. */
static bool
settle_named(struct state *s, uint32_t uid, const char *name)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct entry e;
	bool ok;
	int i;

	for (i = 0; i < 500; i++) {
		event_base_loop(s->base, EVLOOP_NONBLOCK);
		if (tl_entry_by_name(&s->d, uid, name, &e) == 0) {
			ok = e.state == ENTRY_TRASHED;
			entry_clear(&e);
			if (ok)
				return true;
		}
		nanosleep(&ts, NULL);
	}
	return false;
}

static void
test_new_entry(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 1000, .name = "live.txt",
	    .path = "home/alice/live.txt", .time = 5000, .deleter = 1000,
	    .flags = FS_UNRM_FL, .data = "x", .len = 1 };
	struct entry e;

	tl_stage(&s->t, &n);
	assert_true(settle(s, 1000, 1));
	assert_int_equal(tl_entry_by_name(&s->d, 1000, "live.txt", &e), 0);
	assert_string_equal(e.orig_path, "home/alice/live.txt");
	assert_int_equal(e.deleted_ns, 5000 * NSEC_PER_SEC);
	entry_clear(&e);
}

static void
test_new_uid_dir(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 1005, .name = "first", .path = "p/1",
	    .time = 1, .deleter = 1005, .flags = FS_UNRM_FL };

	/* The dir and its first entry arrive before trashd reads an event. */
	tl_stage(&s->t, &n);
	n.name = "second";
	tl_stage(&s->t, &n);
	assert_true(settle(s, 1005, 2));
	/* And the new dir is watched from then on. */
	n.name = "third";
	tl_stage(&s->t, &n);
	assert_true(settle(s, 1005, 3));
}

static void
test_rename_and_delete(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 1000, .name = "mv-me", .path = "p/mv",
	    .time = 1, .deleter = 1000, .flags = FS_UNRM_FL };
	char p[PATH_MAX], q[PATH_MAX];
	struct entry e;
	int64_t id, live = tl_count(&s->d, 1000, ENTRY_LIVE);

	tl_stage(&s->t, &n);
	assert_true(settle(s, 1000, live + 1));
	assert_int_equal(tl_entry_by_name(&s->d, 1000, "mv-me", &e), 0);
	id = e.id;
	entry_clear(&e);

	tl_path(&s->t, p, sizeof(p), ".trash/1000/mv-me");
	tl_path(&s->t, q, sizeof(q), ".trash/1000/moved");
	assert_int_equal(rename(p, q), 0);
	/* Events are read in batches (watch.c): wait for the new name. */
	assert_true(settle_named(s, 1000, "moved"));
	assert_true(settle(s, 1000, live + 1));
	assert_int_equal(tl_entry_by_name(&s->d, 1000, "moved", &e), 0);
	assert_int_equal(e.id, id);
	assert_int_equal(e.state, ENTRY_TRASHED);
	entry_clear(&e);
	assert_int_equal(tl_count(&s->d, 1000,
	    ENTRY_STATE_MASK(ENTRY_RESTORED)), 0);

	assert_int_equal(unlink(q), 0);
	assert_true(settle(s, 1000, live));
	assert_int_equal(index_get(s->d.db, id, &e), 0);
	assert_int_equal(e.state, ENTRY_RESTORED);
	entry_clear(&e);
}

static void
drain_inotify(struct state *s)
{
	char buf[65536];

	while (read(s->d.inotify_fd, buf, sizeof(buf)) > 0)
		;
}

/* Run the loop until the rescan in steps is over; false after 10 s. */
static bool
rescanned(struct state *s)
{
	int i;

	for (i = 0; i < 10000 && s->d.resume != NULL; i++)
		event_base_loop(s->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	return s->d.resume == NULL;
}

/* Lost events, then the overflow handler: all found again. */
static void
test_overflow_handler(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 1000, .path = "p/o", .time = 1,
	    .deleter = 1000, .flags = FS_UNRM_FL };
	int64_t live = tl_count(&s->d, 1000, ENTRY_LIVE);

	n.name = "lost1";
	tl_stage(&s->t, &n);
	n.name = "lost2";
	tl_stage(&s->t, &n);
	drain_inotify(s);	/* as if the queue had overflowed */
	event_base_loop(s->base, EVLOOP_NONBLOCK);
	assert_int_equal(tl_count(&s->d, 1000, ENTRY_LIVE), live);
	watch_overflow(&s->d);
	assert_true(rescanned(s));
	assert_int_equal(tl_count(&s->d, 1000, ENTRY_LIVE), live + 2);
}

/*
 * The same through the event path: an IN_Q_OVERFLOW record read from the
 * inotify fd (a pipe stands in for it) makes watch_read() rescan.
 */
static void
test_overflow_event(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 1000, .path = "p/o", .time = 1,
	    .deleter = 1000, .flags = FS_UNRM_FL };
	struct inotify_event ev = { .wd = -1, .mask = IN_Q_OVERFLOW };
	int64_t live = tl_count(&s->d, 1000, ENTRY_LIVE);
	int p[2], real;

	n.name = "lost3";
	tl_stage(&s->t, &n);
	drain_inotify(s);
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(write(p[1], &ev, sizeof(ev)), sizeof(ev));
	real = s->d.inotify_fd;
	s->d.inotify_fd = p[0];
	assert_int_equal(watch_read(&s->d), 0);
	s->d.inotify_fd = real;
	close(p[0]);
	close(p[1]);
	assert_false(s->d.rescan);
	assert_true(rescanned(s));
	assert_int_equal(tl_count(&s->d, 1000, ENTRY_LIVE), live + 1);
}

/*
 * Issue 12, finding 7: the rescan after an overflow runs in steps of the
 * loop, so that the loop keeps answering: nothing at once, a bounded part
 * a turn, all in the end.  An entry indexed from an event meanwhile is
 * not taken for one that left; one that did leave is found.
 */
static void
test_overflow_in_steps(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 1001, .path = "p/s", .time = 1,
	    .deleter = 1001, .flags = FS_UNRM_FL };
	struct tuid *tu;
	char name[32], path[PATH_MAX];
	int64_t live, after;
	int i;

	tl_mkuid(&s->t, 1001);
	n.name = "leaves";
	n.time = 2;	/* not the others' time: its inode number is reused */
	tl_stage(&s->t, &n);
	n.time = 1;
	assert_true(settle(s, 1001, 1));
	for (i = 0; i < 2000; i++) {
		TL_SNPRINTF(name, sizeof(name), "many%d", i);
		n.name = name;
		tl_stage(&s->t, &n);
	}
	tl_path(&s->t, path, sizeof(path), ".trash/1001/leaves");
	assert_int_equal(unlink(path), 0);
	drain_inotify(s);	/* as if the queue had overflowed */
	live = tl_count(&s->d, 1001, ENTRY_LIVE);
	assert_int_equal(live, 1);
	watch_overflow(&s->d);
	/* Nothing at once: the loop does it. */
	assert_int_equal(tl_count(&s->d, 1001, ENTRY_LIVE), live);
	assert_non_null(s->d.resume);
	event_base_loop(s->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	after = tl_count(&s->d, 1001, ENTRY_LIVE);
	printf("one rescan step indexed %" PRId64 " of 2000 entries\n",
	    after - live);
	assert_true(after > live);
	assert_true(after - live <= 1000);
	assert_non_null(s->d.resume);
	/* An entry indexed from its event while the rescan goes on. */
	n.name = "meanwhile";
	tl_stage(&s->t, &n);
	assert_int_equal(trash_uid(&s->d.fs[0], 1001, &tu), 0);
	assert_int_equal(scan_entry(&s->d, &s->d.fs[0], tu, "meanwhile",
	    NULL), 0);
	assert_true(rescanned(s));
	assert_int_equal(tl_count(&s->d, 1001, ENTRY_LIVE), 2001);
	assert_true(settle_named(s, 1001, "meanwhile"));
	assert_int_equal(tl_count(&s->d, 1001,
	    ENTRY_STATE_MASK(ENTRY_RESTORED)), 1);
}

/* Of the uid dirs @uids (made now), the first and the last /.trash lists. */
static void
first_and_last(struct state *s, const uint32_t *uids, size_t n,
    uint32_t *first, uint32_t *last)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned long u;
	bool seen = false;
	size_t i;
	DIR *dir;

	for (i = 0; i < n; i++)
		tl_mkuid(&s->t, uids[i]);
	tl_path(&s->t, path, sizeof(path), ".trash");
	assert_non_null(dir = opendir(path));
	while ((de = readdir(dir)) != NULL) {
		u = strtoul(de->d_name, NULL, 10);
		for (i = 0; i < n && uids[i] != u; i++)
			;
		if (i == n)
			continue;
		if (!seen)
			*first = (uint32_t)u;
		seen = true;
		*last = (uint32_t)u;
	}
	closedir(dir);
	assert_true(seen && *first != *last);
}

/*
 * An overflow while the rescan goes on does not start it over: else a user
 * who overflows the queue again and again (churning their own trash) would
 * keep it from ever reaching the trashes listed after theirs, whose new
 * entries would never be indexed.  The pass goes on and another follows.
 */
static void
test_overflow_again_goes_on(void **state)
{
	static const uint32_t uids[] = { 4001, 4002, 4003, 4004 };
	struct state *s = *state;
	struct tl_entry n = { .path = "p/a", .time = 1, .flags = FS_UNRM_FL };
	uint32_t churner, victim;
	char name[32];
	struct entry e;
	int i;

	first_and_last(s, uids, 4, &churner, &victim);
	n.uid = n.deleter = churner;
	for (i = 0; i < 2000; i++) {
		TL_SNPRINTF(name, sizeof(name), "churn%d", i);
		n.name = name;
		tl_stage(&s->t, &n);
	}
	assert_true(settle(s, churner, 2000));
	n.uid = n.deleter = victim;
	n.name = "victim";
	tl_stage(&s->t, &n);
	drain_inotify(s);	/* its event lost in an overflow */
	watch_overflow(&s->d);
	/* An overflow every third step; 3 steps do not read 2,000 names. */
	for (i = 0; i < 300; i++) {
		if (i % 3 == 2)
			watch_overflow(&s->d);
		event_base_loop(s->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		if (tl_entry_by_name(&s->d, victim, "victim", &e) == 0)
			break;
	}
	printf("the entry after 2,000 others indexed in %d steps\n", i);
	assert_true(i < 300);
	entry_clear(&e);
	assert_true(rescanned(s));
}

/*
 * A request that finds a row stale (its name renamed in the trash, the
 * events not read yet) rescans that uid dir in steps of the loop, not at
 * once: a user can fill their own dir with a million hard links, and
 * reading it whole would hold the loop for seconds.
 */
static void
test_stale_request_in_steps(void **state)
{
	struct state *s = *state;
	struct tl_entry n = { .uid = 4005, .deleter = 4005, .path = "p/st",
	    .time = 1, .flags = FS_UNRM_FL };
	char from[PATH_MAX], to[PATH_MAX];
	struct entry e;

	tl_mkuid(&s->t, 4005);
	n.name = "was";
	tl_stage(&s->t, &n);
	assert_true(settle_named(s, 4005, "was"));
	tl_path(&s->t, from, sizeof(from), ".trash/4005/was");
	tl_path(&s->t, to, sizeof(to), ".trash/4005/now");
	assert_int_equal(rename(from, to), 0);
	drain_inotify(s);
	assert_int_equal(tl_entry_by_name(&s->d, 4005, "was", &e), 0);
	assert_true(policy_purge(&s->d, &s->d.fs[0], &e, "test", 0, 1) < 0);
	entry_clear(&e);
	/* Queued, not done at once. */
	assert_non_null(s->d.resume);
	assert_int_not_equal(tl_entry_by_name(&s->d, 4005, "now", &e), 0);
	assert_true(rescanned(s));
	assert_int_equal(tl_entry_by_name(&s->d, 4005, "now", &e), 0);
	assert_int_equal(e.state, ENTRY_TRASHED);
	entry_clear(&e);
	assert_true(tl_entry_by_name(&s->d, 4005, "was", &e) != 0 ||
	    e.state != ENTRY_TRASHED);
	entry_clear(&e);
}

/*
 * An entry grown through a hard link outside the trash (its owner may
 * link it out, write, and remove that name): no event reaches the
 * trash's watches, so the index kept its old size, which quotas and fair
 * shares go by.  The rescan each rescan-interval measures it again, even
 * while another user keeps a rescan of her own dir going (@hostile).
 */
static void
grown_outside(bool hostile)
{
	struct state s2 = { 0 };
	struct tl_entry n = { .uid = 1000, .name = "grow", .path = "p/grow",
	    .time = 1, .deleter = 1000, .flags = FS_UNRM_FL, .data = "x",
	    .len = 1 };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char p[PATH_MAX], q[PATH_MAX], buf[65536];
	struct config *c;
	struct tuid *tu;
	struct entry e;
	int64_t size = -1;
	int fd, i;

	tl_setup(&s2.t);
	tl_mkuid(&s2.t, 1000);
	tl_mkuid(&s2.t, 1001);
	assert_non_null(s2.base = event_base_new());
	c = tl_config(&s2.t);
	c->rescan_interval = 1;
	tl_open(&s2.t, &s2.d, c, s2.base);
	tl_stage(&s2.t, &n);
	assert_true(settle(&s2, 1000, 1));
	n.uid = 1001;
	n.name = "hers";
	tl_stage(&s2.t, &n);
	assert_true(settle(&s2, 1001, 1));
	assert_int_equal(trash_uid(&s2.d.fs[0], 1001, &tu), 0);

	tl_path(&s2.t, p, sizeof(p), ".trash/1000/grow");
	tl_path(&s2.t, q, sizeof(q), "outside");
	assert_int_equal(link(p, q), 0);
	assert_true((fd = open(q, O_WRONLY | O_APPEND | O_CLOEXEC)) >= 0);
	memset(buf, 'g', sizeof(buf));
	for (i = 0; i < 4; i++)
		assert_int_equal(write(fd, buf, sizeof(buf)), sizeof(buf));
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(unlink(q), 0);

	/* Within the interval and its steps: 5 s at most. */
	for (i = 0; i < 500 && size != 1 + 4 * (int64_t)sizeof(buf); i++) {
		/* As a request that finds her rows stale again and again. */
		if (hostile)
			watch_rescan_uid(&s2.d, &s2.d.fs[0], tu);
		event_base_loop(s2.base, EVLOOP_NONBLOCK);
		assert_int_equal(tl_entry_by_name(&s2.d, 1000, "grow", &e), 0);
		size = e.size;
		entry_clear(&e);
		nanosleep(&ts, NULL);
	}
	assert_int_equal(size, 1 + 4 * (int64_t)sizeof(buf));

	daemon_close(&s2.d);
	event_base_free(s2.base);
	tl_teardown(&s2.t);
}

static void
test_grown_outside(void **state)
{
	(void)state;
	grown_outside(false);
}

static void
test_grown_outside_hostile(void **state)
{
	(void)state;
	grown_outside(true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_entry),
		cmocka_unit_test(test_new_uid_dir),
		cmocka_unit_test(test_rename_and_delete),
		cmocka_unit_test(test_overflow_handler),
		cmocka_unit_test(test_overflow_event),
		cmocka_unit_test(test_overflow_in_steps),
		cmocka_unit_test(test_overflow_again_goes_on),
		cmocka_unit_test(test_stale_request_in_steps),
		cmocka_unit_test(test_grown_outside),
		cmocka_unit_test(test_grown_outside_hostile),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
