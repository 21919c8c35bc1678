/* SPDX-License-Identifier: ISC */
/*
 * caps.c: after caps_drop() the process holds exactly the kept set in
 * every set that matters, no_new_privs is on, a dropped capability is
 * really gone and a kept one still works.  Runs in a child process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

static uint64_t
status_field(const char *name)
{
	char line[256];
	uint64_t v = UINT64_MAX;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/self/status", "re");

	if (f == NULL)
		return v;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, name, len) == 0 && line[len] == ':')
			v = strtoull(line + len + 1, NULL,
			    strcmp(name, "NoNewPrivs") ? 16 : 10);
	fclose(f);
	return v;
}

/* The child's checks; its exit code names the first that failed. */
static int
child(const char *file)
{
	uint64_t want = 0;
	char buf[16];
	size_t i;

	for (i = 0; i < caps_nkept; i++)
		want |= 1ULL << caps_kept[i];
	if (caps_drop() < 0)
		return 10;
	if (status_field("CapEff") != want)
		return 11;
	if (status_field("CapPrm") != want)
		return 12;
	if (status_field("CapBnd") != want)
		return 13;
	if (status_field("CapInh") != 0 || status_field("CapAmb") != 0)
		return 14;
	if (status_field("NoNewPrivs") != 1)
		return 15;
	/* CAP_CHOWN was dropped. */
	if (chown(file, 1000, 1000) == 0 || errno != EPERM)
		return 16;
	/* CAP_SYS_ADMIN was kept: trusted.* is readable. */
	if (getxattr(file, TRASHBIN_XATTR, buf, sizeof(buf)) != 4)
		return 17;
	/* CAP_DAC_OVERRIDE was kept: a 0000 file of another user opens. */
	if (open(file, O_RDONLY | O_CLOEXEC) < 0)
		return 18;
	return 0;
}

/*
 * As under systemd's CapabilityBoundingSet= naming exactly the kept caps:
 * no CAP_SETPCAP, everything else already out of the bounding set and of
 * the permitted set.  caps_drop() must still succeed.
 */
static int
child_bounded(const char *file)
{
	cap_value_t c, last = (cap_value_t)cap_max_bits() - 1;
	cap_t caps;
	size_t i;
	bool kept;

	for (c = 0; c <= last; c++) {
		kept = false;
		for (i = 0; i < caps_nkept; i++)
			kept |= caps_kept[i] == c;
		if (!kept && c != CAP_SETPCAP &&
		    prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			return 20;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0) < 0)
		return 21;
	if ((caps = cap_init()) == NULL ||
	    cap_set_flag(caps, CAP_PERMITTED, (int)caps_nkept, caps_kept,
	    CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, (int)caps_nkept, caps_kept,
	    CAP_SET) < 0 || cap_set_proc(caps) < 0)
		return 22;
	cap_free(caps);
	return child(file);
}

static void
run_child(int (*fn)(const char *))
{
	struct tl t;
	char p[PATH_MAX];
	int status;
	pid_t pid;

	tl_setup(&t);
	tl_path(&t, p, sizeof(p), "home/f");
	tl_write_file(p, "x", 1);
	assert_int_equal(setxattr(p, TRASHBIN_XATTR, "1234", 4, 0), 0);
	assert_int_equal(chown(p, 2000, 2000), 0);
	assert_int_equal(chmod(p, 0), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(p));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tl_teardown(&t);
}

static void
test_drop(void **state)
{
	(void)state;
	run_child(child);
}

static void
test_drop_bounded(void **state)
{
	(void)state;
	run_child(child_bounded);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_drop_bounded),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
