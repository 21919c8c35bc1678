/* SPDX-License-Identifier: ISC */
/*
 * Crash recovery: kill -9 of the wipe worker in the middle of a wipe, then
 * a restart: the file is wiped and unlinked, the index consistent.  Also
 * the crash windows around the queue, and the real daemon binary's
 * SIGHUP and SIGTERM.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#define MIB	(1024 * 1024)
#define MARKER	"<trashd-recovery-marker-0123456>"	/* 32 bytes */

static const char *trashd_bin;

static void
msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void
stage_marked(struct tl *t, uint32_t uid, const char *name, size_t len)
{
	struct tl_entry e = { .uid = uid, .name = name, .path = name,
	    .time = 100, .deleter = uid, .flags = FS_SECRM_FL };
	char *buf = xmalloc(len);
	size_t i;

	for (i = 0; i < len; i += 32)
		memcpy(buf + i, MARKER, 32);
	e.data = buf;
	e.len = len;
	tl_stage(t, &e);
	free(buf);
}

static bool
has_marker(const char *p, off_t off)
{
	char buf[32];
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, 32, off), 32);
	close(fd);
	return memcmp(buf, MARKER, 32) == 0;
}

/*
 * Bytes @pid has written (/proc/PID/io wchar): how far a wipe worker got,
 * seen without opening the file, which would break its lease and stop it.
 */
static uint64_t
written(pid_t pid)
{
	char p[64], line[128];
	uint64_t v = 0;
	FILE *f;

	TL_SNPRINTF(p, sizeof(p), "/proc/%d/io", (int)pid);
	if ((f = fopen(p, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "wchar:", 6) == 0)
			v = strtoull(line + 6, NULL, 10);
	fclose(f);
	return v;
}

static bool
wipe_dir_empty(struct tl *t)
{
	char p[PATH_MAX];
	struct stat st;

	tl_path(t, p, sizeof(p), ".trash/.wipe");
	assert_int_equal(stat(p, &st), 0);
	return st.st_nlink == 2 && st.st_size <= 4096 &&
	    rmdir(p) == 0 && mkdir(p, 0700) == 0;
}

static void
test_kill9_mid_wipe(void **state)
{
	struct tl t;
	struct trashd d;
	struct event_base *base;
	struct config *c;
	struct entry e;
	char q[PATH_MAX];
	int64_t id;
	pid_t pid;
	int i;

	(void)state;
	tl_setup(&t);
	stage_marked(&t, 1000, "big", 16 * MIB);
	base = event_base_new();
	c = tl_config(&t);
	c->wipe_rate = 4 * MIB;		/* about 4 s for the file */
	tl_open(&t, &d, c, base);
	assert_int_equal(tl_entry_by_name(&d, 1000, "big", &e), 0);
	id = e.id;
	assert_int_equal(policy_purge(&d, &d.fs[0], &e, "test", 0, 1), 0);
	entry_clear(&e);
	pid = wipe_worker_pid(&d);
	assert_true(pid > 0);
	/* Once its first bytes are overwritten (not a fixed sleep: under
	 * valgrind the worker starts slowly), well before its last. */
	tl_path(&t, q, sizeof(q), ".trash/.wipe/%" PRId64, id);
	for (i = 0; i < 3000 && written(pid) < MIB; i++)
		msleep(10);
	assert_int_equal(kill(pid, SIGKILL), 0);
	for (i = 0; i < 500 && wipe_worker_pid(&d) != 0; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		msleep(10);
	}
	assert_int_equal(wipe_worker_pid(&d), 0);

	/* Killed in the middle: queued, partly overwritten. */
	assert_true(tl_exists(q));
	assert_false(has_marker(q, 0));
	assert_true(has_marker(q, 16 * MIB - 32));
	assert_int_equal(index_get(d.db, id, &e), 0);
	assert_int_equal(e.state, ENTRY_WIPING);
	entry_clear(&e);
	daemon_close(&d);

	/* Restart: recovery wipes the queue again, to the end. */
	tl_open(&t, &d, tl_config(&t), base);
	assert_true(wipe_worker_pid(&d) > 0);
	for (i = 0; i < 3000 && wipe_worker_pid(&d) != 0; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		msleep(10);
	}
	assert_int_equal(wipe_worker_pid(&d), 0);
	assert_false(tl_exists(q));
	assert_true(wipe_dir_empty(&t));
	assert_int_equal(index_get(d.db, id, &e), 0);
	assert_int_equal(e.state, ENTRY_WIPED);
	entry_clear(&e);
	assert_int_equal(tl_count(&d, -1, 0), 1);	/* no duplicate row */
	assert_int_equal(tl_audit_count(&d, "wiped"), 1);
	assert_int_equal(tl_audit_count(&d, "restored"), 0);
	daemon_close(&d);
	event_base_free(base);
	tl_teardown(&t);
}

/*
 * The crash windows: moved into .wipe but the row not yet marked (it must
 * not be taken for a restore), and a row marked wiping whose file a lost
 * record had already unlinked.
 */
static void
test_crash_windows(void **state)
{
	struct tl t;
	struct trashd d;
	struct entry e1, e2;
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	tl_setup(&t);
	stage_marked(&t, 1000, "one", 64 * 1024);
	stage_marked(&t, 1000, "two", 64 * 1024);
	tl_open(&t, &d, tl_config(&t), NULL);
	assert_int_equal(tl_entry_by_name(&d, 1000, "one", &e1), 0);
	assert_int_equal(tl_entry_by_name(&d, 1000, "two", &e2), 0);
	daemon_close(&d);
	/* "one": the move happened, the update did not. */
	tl_path(&t, p, sizeof(p), ".trash/1000/one");
	tl_path(&t, q, sizeof(q), ".trash/.wipe/%" PRId64, e1.id);
	assert_int_equal(rename(p, q), 0);
	/* "two": marked wiping, then wiped and unlinked, record lost. */
	tl_open(&t, &d, tl_config(&t), NULL);
	assert_int_equal(index_set_state(d.db, e2.id, ENTRY_WIPING), 0);
	daemon_close(&d);
	tl_path(&t, p, sizeof(p), ".trash/1000/two");
	assert_int_equal(unlink(p), 0);

	tl_open(&t, &d, tl_config(&t), NULL);	/* recovery drains */
	entry_clear(&e1);
	entry_clear(&e2);
	assert_int_equal(tl_entry_by_name(&d, 1000, "one", &e1), 0);
	assert_int_equal(e1.state, ENTRY_WIPED);
	assert_false(tl_exists(q));
	assert_int_equal(tl_entry_by_name(&d, 1000, "two", &e2), 0);
	assert_int_equal(e2.state, ENTRY_WIPED);
	assert_int_equal(tl_count(&d, -1, 0), 2);
	assert_int_equal(tl_audit_count(&d, "restored"), 0);
	entry_clear(&e1);
	entry_clear(&e2);
	daemon_close(&d);
	tl_teardown(&t);
}

/* The real binary: indexes at start, reloads on SIGHUP, exits 0 on TERM. */
static void
test_daemon_signals(void **state)
{
	struct tl t;
	struct tl_entry te = { .uid = 1000, .name = "kept", .path = "h/k",
	    .time = 100, .deleter = 1000, .flags = FS_UNRM_FL };
	char conf[PATH_MAX], text[2 * PATH_MAX], err[512];
	struct trashd d;
	struct config *c;
	int status, n;
	pid_t pid;

	(void)state;
	if (trashd_bin == NULL)
		skip();
	tl_setup(&t);
	tl_stage(&t, &te);
	TL_SNPRINTF(conf, sizeof(conf), "%s/trashd.conf", t.root);
	n = snprintf(text, sizeof(text), "database %s\nfilesystem %s\n"
	    "retention forever\nwatermark 0%%\n", t.db, t.fs);
	tl_write_file(conf, text, (size_t)n);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(trashd_bin, "trashd", "-d", "-f", conf, (char *)NULL);
		_exit(127);
	}
	msleep(1500);
	assert_int_equal(kill(pid, SIGHUP), 0);
	msleep(500);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);	/* alive */
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	c = config_load(conf, err, sizeof(err));
	assert_non_null(c);
	tl_open(&t, &d, c, NULL);
	assert_int_equal(tl_audit_count(&d, "trashed"), 1);
	assert_int_equal(tl_count(&d, 1000, ENTRY_LIVE), 1);
	daemon_close(&d);
	tl_teardown(&t);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill9_mid_wipe),
		cmocka_unit_test(test_crash_windows),
		cmocka_unit_test(test_daemon_signals),
	};

	if (argc > 1)
		trashd_bin = argv[1];
	log_init(1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
