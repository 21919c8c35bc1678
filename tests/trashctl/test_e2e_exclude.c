/* SPDX-License-Identifier: ISC */
/*
 * The exclusions of trashd.conf, end to end (e2e.h has the fixture and
 * says where other tests go): exclude, exclude-dir, min-size and
 * max-size take a new entry as it is indexed (purged, audited with the
 * rule named, a +s one wiped first); the shipped trashd.conf leaves the
 * desktop's own trash out; bad rules are refused with FILE:LINE.  A new
 * kind of rule gets its tests here.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

/*
 * ---- issue 13, everyday churn (wt-churn): exclusions as vfs_recycle's ----
 *
 * exclude, exclude-dir, min-size and max-size in trashd.conf: a new entry
 * one of them takes is purged as it is indexed, audited with the rule
 * named, a +s one wiped first; the shipped trashd.conf leaves the
 * desktop's own trash out; bad rules are refused with FILE:LINE.
 */

/* Is @rel in the trash (of uid @uid)? */
static bool
in_trash(struct env *e, uint32_t uid, const char *name)
{
	char rel[PATH_MAX];

	TL_SNPRINTF(rel, sizeof(rel), ".trash/%u/%s", uid, name);
	return exists_rel(e, rel);
}

/* Wait until @name of @uid has left the trash: purged. */
static void
wait_left(struct env *e, uint32_t uid, const char *name)
{
	char rel[PATH_MAX];

	TL_SNPRINTF(rel, sizeof(rel), ".trash/%u/%s", uid, name);
	if (!wait_gone(e, rel, 5000))
		fail_msg("%s still in the trash", rel);
}

/* Names (exclude): the last component of the recorded path. */
static void
test_exclude_name(void **state)
{
	struct env *e = *state;

	restart_with(e, "exclude .*.sw?\nexclude *.o\n");
	stage_str(e, UA, ".notes.txt.swp", "home/a/.notes.txt.swp", "swap");
	stage_str(e, UA, "main.o", "home/a/src/main.o", "object");
	/* Kept: a name that only contains the pattern's text, a directory
	 * whose name matches (not the file's), no recorded path at all. */
	stage_str(e, UA, "notes.swp.txt", "home/a/notes.swp.txt", "text");
	stage_str(e, UA, "readme", "home/a/x.o/readme", "readme");
	stage_str(e, UA, "lost.o", NULL, "no path");
	wait_left(e, UA, ".notes.txt.swp");
	wait_left(e, UA, "main.o");
	audit_says(e, "purged", "name=\".notes.txt.swp\": ok: excluded by "
	    "exclude .*.sw?", 5000);
	audit_says(e, "purged", "name=\"main.o\": ok: excluded by exclude "
	    "*.o", 5000);
	wait_count(e, UA, 3);
	assert_true(in_trash(e, UA, "notes.swp.txt"));
	assert_true(in_trash(e, UA, "readme"));
	assert_true(in_trash(e, UA, "lost.o"));
}

/* The active exclusion lines of the shipped trashd.conf. */
static char *
shipped_excludes(void)
{
	char line[1024], *out = xcalloc(1, 4096);
	FILE *f;

	assert_non_null(f = fopen(TB_SHIPPED_CONF, "re"));
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "exclude", 7) == 0)
			strncat(out, line, 4096 - strlen(out) - 1);
	fclose(f);
	return out;
}

/*
 * Directories (exclude-dir): a name anywhere on the path, an absolute
 * path with '*' across '/', and the shipped rules for the desktop's own
 * trash, whose files keep +u and would come back a second time.
 */
static void
test_exclude_dir(void **state)
{
	struct env *e = *state;
	char conf[PATH_MAX + 4096], *shipped = shipped_excludes();

	/* The desktop's trash is left out by the shipped file itself. */
	expect_str(shipped, "exclude-dir */.local/share/Trash");
	TL_SNPRINTF(conf, sizeof(conf), "exclude-dir node_modules/\n"
	    "exclude-dir %s/home/b/build\n%s", e->t.fs, shipped);
	free(shipped);
	restart_with(e, conf);
	stage_str(e, UA, "report.odt", "home/a/.local/share/Trash/files/"
	    "report.odt", "emptied from the desktop's trash");
	stage_str(e, UA, "report.odt.trashinfo", "home/a/.local/share/Trash/"
	    "info/report.odt.trashinfo", "[Trash Info]");
	stage_str(e, UA, "topdir", "srv/.Trash-70001/files/topdir", "x");
	stage_str(e, UA, "index.js", "home/a/p/node_modules/lib/index.js",
	    "js");
	stage_str(e, UB, "out.bin", "home/b/build/sub/out.bin", "bin");
	/* Kept: near misses of each. */
	stage_str(e, UA, "keep1", "home/a/.local/share/Trashcan/keep1", "1");
	stage_str(e, UA, "Trash", "home/a/.local/share/Trash", "a file");
	stage_str(e, UA, "keep2", "home/a/node_modules_old/keep2", "2");
	stage_str(e, UA, "out2.bin", "home/a/build/out2.bin", "3");
	wait_left(e, UA, "report.odt");
	wait_left(e, UA, "report.odt.trashinfo");
	wait_left(e, UA, "topdir");
	wait_left(e, UA, "index.js");
	wait_left(e, UB, "out.bin");
	audit_says(e, "purged", "name=\"report.odt\": ok: excluded by "
	    "exclude-dir */.local/share/Trash", 5000);
	audit_says(e, "purged", "name=\"topdir\": ok: excluded by exclude-dir "
	    "*/.Trash-[0-9]*", 5000);
	audit_says(e, "purged", "name=\"index.js\": ok: excluded by "
	    "exclude-dir node_modules", 5000);
	TL_SNPRINTF(conf, sizeof(conf), "name=\"out.bin\": ok: excluded by "
	    "exclude-dir %s/home/b/build", e->t.fs);
	audit_says(e, "purged", conf, 5000);
	wait_count(e, UA, 4);
	wait_count(e, UB, 0);
	assert_true(in_trash(e, UA, "keep1"));
	assert_true(in_trash(e, UA, "Trash"));
	assert_true(in_trash(e, UA, "keep2"));
	assert_true(in_trash(e, UA, "out2.bin"));
}

/*
 * Stage a file of @apparent bytes holding only its last one: allocated,
 * one block.  As the kernel would: the record, then the rename.
 */
static void
stage_sparse(struct env *e, uint32_t uid, const char *name, const char *path,
    off_t apparent)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	int fd;

	tl_mkuid(&e->t, uid);
	tl_path(&e->t, tmp, sizeof(tmp), "home/.staging-%s", name);
	tl_path(&e->t, dst, sizeof(dst), ".trash/%u/%s", uid, name);
	assert_true((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) >= 0);
	assert_int_equal(pwrite(fd, "s", 1, apparent - 1), 1);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fchown(fd, uid, uid), 0);
	tl_set_record(fd, 1700000000, uid, path);
	close(fd);
	assert_int_equal(rename(tmp, dst), 0);
}

/*
 * min-size and max-size count allocated bytes, as the quota does: an
 * empty file holds none, a 100-byte one a block, a sparse 1 GiB one a
 * block too.
 */
static void
test_exclude_size(void **state)
{
	struct env *e = *state;
	const size_t big = 128 * 1024;
	char *data = xcalloc(1, big);

	restart_with(e, "min-size 1K\nmax-size 64K\n");
	memset(data, 'b', big);
	stage(e, UA, "empty", "home/a/empty", 1700000000, "", 0, 0644);
	stage(e, UA, "big", "home/a/big", 1700000000, data, big, 0644);
	stage(e, UA, "small", "home/a/small", 1700000000, data, 100, 0644);
	stage_sparse(e, UA, "sparse", "home/a/sparse", 1024 * 1024 * 1024);
	free(data);
	wait_left(e, UA, "empty");
	wait_left(e, UA, "big");
	audit_says(e, "purged", "name=\"empty\": ok: excluded by min-size 1K",
	    5000);
	audit_says(e, "purged", "name=\"big\": ok: excluded by max-size 64K",
	    5000);
	wait_count(e, UA, 2);
	assert_true(in_trash(e, UA, "small"));
	assert_true(in_trash(e, UA, "sparse"));
}

/*
 * A +s entry an exclusion takes is wiped, not just unlinked, and at once
 * (the test config's grace is 1h): queued for the wipe naming the rule,
 * then overwritten (here with a final zero pass, read back through a
 * handle on the inode) and recorded as wiped.  A +s entry no rule takes
 * stays for its grace.
 */
static void
test_exclude_secure(void **state)
{
	struct env *e = *state;
	const size_t len = 16384;
	struct tl_entry te = { .uid = UA, .name = "secret.tmp",
	    .path = "home/a/secret.tmp", .deleter = UA,
	    .flags = FS_SECRM_FL, .len = len };
	struct tl_entry keep = { .uid = UA, .name = "secret.txt",
	    .path = "home/a/secret.txt", .deleter = UA,
	    .flags = FS_SECRM_FL, .data = "kept", .len = 4 };
	char p[PATH_MAX], *data = xcalloc(1, len), *back = xcalloc(1, len);
	char *zero = xcalloc(1, len);
	int pfd, fd;

	restart_with(e, "exclude *.tmp\nwipe-zero-pass yes\n");
	memset(data, 'S', len);
	te.data = data;
	te.time = keep.time = time(NULL);
	tl_stage(&e->t, &keep);
	tl_stage(&e->t, &te);
	/* A handle on the inode that leases ignore: what is left of it. */
	tl_path(&e->t, p, sizeof(p), ".trash/%u/secret.tmp", UA);
	assert_true((pfd = open(p, O_PATH | O_CLOEXEC)) >= 0);
	wait_left(e, UA, "secret.tmp");
	audit_says(e, "wipe-queued", "name=\"secret.tmp\": ok: excluded by "
	    "exclude *.tmp", 5000);
	audit_says(e, "wiped", "name=\"secret.tmp\": ok: 2 passes, 32768 "
	    "bytes", 10000);
	TL_SNPRINTF(p, sizeof(p), "/proc/self/fd/%d", pfd);
	assert_true((fd = open(p, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_int_equal(pread(fd, back, len, 0), (ssize_t)len);
	assert_memory_equal(back, zero, len);
	close(fd);
	close(pfd);
	wait_count(e, UA, 1);
	assert_true(in_trash(e, UA, "secret.txt"));
	free(data);
	free(back);
	free(zero);
}

/* Bad rules: refused by -n and at start, with FILE:LINE and why. */
static void
test_exclude_conf_bad(void **state)
{
	static const char *const bad[][2] = {
		{ "exclude [abc", "exclude: \"[abc\": '[' without its ']'" },
		{ "exclude [[:nope:]]", "unknown character class" },
		{ "exclude home/*.o", "exclude-dir takes directories" },
		{ "exclude-dir home/x", "a path starts with '/' or '*'" },
		{ "exclude-dir *", "would exclude every directory" },
		{ "min-size 100", "min-size: \"100\": a size needs its unit" },
		{ "max-size 4096", "a size needs its unit" },
		{ "max-size 0M", "say unlimited" },
		{ "max-size 1M\nmin-size 10M",
		    "min-size 10M is above max-size 1M" },
	};
	struct env *e = *state;
	size_t i;

	/* The line of the rule, or of the second size. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		conf_refused(e, "excl", bad[i][0],
		    strchr(bad[i][0], '\n') != NULL ? 5 : 4, bad[i][1]);
	/* The good spellings pass. */
	conf_accepted(e, "excl", "exclude []]x\nexclude \\[literal\n"
	    "exclude-dir build/\nexclude-dir /srv/*/tmp\nmin-size 1K\n"
	    "max-size unlimited");
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exclude_name, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_exclude_dir, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_exclude_size, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_exclude_secure, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_exclude_conf_bad, setup,
		    teardown),
	};

	e2e_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
