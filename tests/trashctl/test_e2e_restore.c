/* SPDX-License-Identifier: ISC */
/*
 * trashd's restore, end to end (e2e.h has the fixture and says where
 * other tests go): a tree restored by one request, conflicts, symlinks
 * on the way and unsafe recorded paths, directories the caller cannot
 * write or that another user made, the credentials a restore runs with,
 * the per-user cap on restores running and their timeout.  A test of
 * what restore does to the filesystem goes here; what trashctl prints
 * about it goes in test_e2e_cli.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

/* ---- rm -rf, then one restore of the directory ---- */

#define TREE_FILES	40

static void
tree_data(unsigned i, unsigned char **data, size_t *len)
{
	uint32_t x = 2463534242u + i;
	size_t j;

	*len = i % 7 == 0 ? 0 : (size_t)(i * 7919 % 200000);
	*data = xmalloc(*len + 1);
	for (j = 0; j < *len; j++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		(*data)[j] = (unsigned char)x;
	}
}

static void
test_tree_restore(void **state)
{
	static const char *const dirs[] = { "proj", "proj/src",
	    "proj/src/lib", "proj/docs/img", "proj/a b" };
	static const mode_t modes[] = { 0600, 0644, 0640, 0755, 0700 };
	struct env *e = *state;
	char name[64], path[PATH_MAX], home[PATH_MAX], *out = NULL;
	unsigned char *data;
	struct stat st;
	size_t len, got;
	char *buf;
	unsigned i;

	mkdir_as(e, "home/a", UA, 0755);
	for (i = 0; i < TREE_FILES; i++) {
		tree_data(i, &data, &len);
		TL_SNPRINTF(name, sizeof(name), "f%u", i);
		TL_SNPRINTF(path, sizeof(path), "home/a/%s/file-%u.dat",
		    dirs[i % 5], i);
		stage(e, UA, name, path, 1700000000 + i, data, len,
		    modes[i % 5]);
		free(data);
	}
	/* An older version of file 0: the directory restore skips it. */
	stage(e, UA, "old0", "home/a/proj/file-0.dat", 1600000000, "old", 3,
	    0644);
	wait_count(e, UA, TREE_FILES + 1);

	/* Relative to the cwd, as a person types it. */
	tl_path(&e->t, home, sizeof(home), "home/a");
	check_rc(run(e, &(const struct run){ .as = &A, .cwd = home }, &out,
	    ARGS("restore", "proj")), 0, out);
	expect_str(out, "restored 40 of 40 entries");
	free(out);
	for (i = 0; i < TREE_FILES; i++) {
		tree_data(i, &data, &len);
		tl_path(&e->t, path, sizeof(path), "home/a/%s/file-%u.dat",
		    dirs[i % 5], i);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(st.st_mode & 07777, modes[i % 5]);
		assert_int_equal(st.st_uid, UA);
		assert_int_equal(st.st_gid, UA);
		buf = tl_read_file(path, &got);
		assert_int_equal(got, len);
		assert_memory_equal(buf, data, len);
		free(buf);
		free(data);
	}
	for (i = 0; i < 5; i++) {
		tl_path(&e->t, path, sizeof(path), "home/a/%s", dirs[i]);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(st.st_uid, UA);
		assert_int_equal(st.st_mode & 07777, 0755);
	}
	/* The old version stays; the index marked the rest restored. */
	wait_count(e, UA, 1);
	check_rc(ctl(e, &A, &out, "list", "--json"), 0, out);
	expect_str(out, "\"name\":\"old0\"");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restore", "-n", "1000"),
	    0, out);
	assert_int_equal(count_str(out, "ok: restored"), TREE_FILES);
	free(out);
	/* Each left the trash by this request: credited to A, never to an
	 * unknown actor, though inotify saw it leave before the report; and
	 * recorded once, by the restore, not again as "restored". */
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restored", "-n", "1000",
	    "--json"), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 0);
	free(out);
	/* And that older version, by --entry-version 2 of its path... */
	tl_path(&e->t, path, sizeof(path), "home/a/proj/file-0.dat");
	check_rc(ctl(e, &A, &out, "restore", path, "--entry-version", "1"), 1,
	    out);
	expect_str(out, "exists");
	free(out);
	tl_path(&e->t, home, sizeof(home), "home/a/old-file-0");
	check_rc(ctl(e, &A, &out, "restore", path, "--to", home), 0, out);
	free(out);
	buf = read_rel(e, "home/a/old-file-0");
	assert_non_null(buf);
	assert_string_equal(buf, "old");
	free(buf);
}

/* ---- conflicts: skipped, reported, nothing lost ---- */

static void
test_conflict(void **state)
{
	struct env *e = *state;
	char p[PATH_MAX], *out = NULL, *s;

	mkdir_as(e, "home/a", UA, 0755);
	mkdir_as(e, "home/a/c", UA, 0755);
	tl_path(&e->t, p, sizeof(p), "home/a/c/x.txt");
	tl_write_file(p, "live", 4);
	assert_int_equal(chown(p, UA, UA), 0);
	stage_str(e, UA, "x.txt", "home/a/c/x.txt", "trashed x");
	stage_str(e, UA, "y.txt", "home/a/c/y.txt", "trashed y");
	wait_count(e, UA, 2);

	check_rc(ctl(e, &A, &out, "restore", p), 1, out);
	expect_str(out, "exists");
	free(out);
	s = read_rel(e, "home/a/c/x.txt");
	assert_string_equal(s, "live");
	free(s);
	wait_count(e, UA, 2);

	/* The directory: y restored, x skipped and reported. */
	tl_path(&e->t, p, sizeof(p), "home/a/c");
	check_rc(ctl(e, &A, &out, "restore", "--json", p), 1, out);
	expect_str(out, "\"restored\":1,\"failed\":1");
	expect_str(out, "x.txt");
	free(out);
	s = read_rel(e, "home/a/c/y.txt");
	assert_string_equal(s, "trashed y");
	free(s);
	s = read_rel(e, "home/a/c/x.txt");
	assert_string_equal(s, "live");
	free(s);
	wait_count(e, UA, 1);
	assert_true(exists_rel(e, ".trash/70001/x.txt"));

	/* Asked for: replaced. */
	tl_path(&e->t, p, sizeof(p), "home/a/c/x.txt");
	check_rc(ctl(e, &A, &out, "restore", "--overwrite", p), 0, out);
	free(out);
	s = read_rel(e, "home/a/c/x.txt");
	assert_string_equal(s, "trashed x");
	free(s);
	wait_count(e, UA, 0);
}

/* ---- symlinks on the way, and recorded paths that are unsafe ---- */

static size_t
count_tree(const char *dir)
{
	struct dirent *de;
	char p[PATH_MAX];
	struct stat st;
	size_t n = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		TL_SNPRINTF(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			n += count_tree(p);
		else if (S_ISREG(st.st_mode))
			n++;
	}
	closedir(d);
	return n;
}

#define RACE_FILES	150

static void
test_symlink(void **state)
{
	struct env *e = *state;
	char out_dir[PATH_MAX], p[PATH_MAX], q[PATH_MAX], id[32], name[32];
	char *out = NULL;
	int64_t left;
	pid_t sw;
	int i, status;

	/* A place A could write to, outside: only the check stops it. */
	TL_SNPRINTF(out_dir, sizeof(out_dir), "%s/outside", e->t.root);
	assert_int_equal(mkdir(out_dir, 0777), 0);
	assert_int_equal(chmod(out_dir, 0777), 0);
	mkdir_as(e, "home/a", UA, 0755);
	tl_path(&e->t, p, sizeof(p), "home/a/link");
	assert_int_equal(symlink(out_dir, p), 0);
	stage_str(e, UA, "s1", "home/a/link/sub/f", "through a link");
	stage_str(e, UA, "s2", "home/a/link/g", "through a link too");
	/* Forged paths the kernel never writes: refused all the same. */
	stage_str(e, UA, "dotdot", "home/a/../../../../etc/trashbin-test",
	    "up");
	wait_count(e, UA, 3);

	/*
	 * trashctl resolves the symlinks of the path it is given (the
	 * kernel records real paths), so name the directory above the link:
	 * every entry under it is refused by trashd itself.
	 */
	tl_path(&e->t, p, sizeof(p), "home/a");
	check_rc(ctl(e, &A, &out, "restore", p), 1, out);
	if (count_str(out, "a symlink on the way") != 2)
		fprintf(stderr, "output:\n%s\n", out);
	assert_int_equal(count_str(out, "a symlink on the way"), 2);
	assert_int_equal(count_str(out, "unsafe"), 1);
	expect_str(out, "restored 0 of 3 entries");
	free(out);
	assert_int_equal(count_tree(out_dir), 0);
	{
		int64_t did = -1;

		check_rc(ctl(e, &A, &out, "list", "--json"), 0, out);
		for (i = 0; out[i] != '\0'; i++) {
			if (strncmp(out + i, "{\"id\":", 6) == 0 &&
			    strstr(out + i, "\"name\":\"dotdot\"") != NULL &&
			    (strstr(out + i + 1, "{\"id\":") == NULL ||
			    strstr(out + i, "\"name\":\"dotdot\"") <
			    strstr(out + i + 1, "{\"id\":")))
				did = strtoll(out + i + 6, NULL, 10);
		}
		free(out);
		assert_true(did > 0);
		TL_SNPRINTF(id, sizeof(id), "%" PRId64, did);
	}
	check_rc(ctl(e, &ROOT, &out, "restore", "-u", "70001", "--id", id),
	    1, out);
	expect_str(out, "unsafe");
	free(out);
	assert_false(tl_exists("/etc/trashbin-test"));
	wait_count(e, UA, 3);

	/* A symlink swapped in and out mid-path while a tree restores. */
	mkdir_as(e, "home/a/race", UA, 0755);
	mkdir_as(e, "home/a/race/d", UA, 0755);
	for (i = 0; i < RACE_FILES; i++) {
		TL_SNPRINTF(name, sizeof(name), "r%d", i);
		TL_SNPRINTF(p, sizeof(p), "home/a/race/d/f%d", i);
		stage_str(e, UA, name, p, "race");
	}
	wait_count(e, UA, 3 + RACE_FILES);
	tl_path(&e->t, p, sizeof(p), "home/a/race");
	tl_path(&e->t, q, sizeof(q), "home/a/race.real");
	sw = fork();
	assert_true(sw >= 0);
	if (sw == 0) {
		for (;;) {
			if (rename(p, q) == 0) {
				if (symlink(out_dir, p) == 0)
					(void)unlink(p);
				(void)rename(q, p);
			}
		}
	}
	{
		char d[PATH_MAX];

		tl_path(&e->t, d, sizeof(d), "home/a/race/d");
		(void)ctl(e, &A, &out, "restore", d);
		free(out);
	}
	kill(sw, SIGKILL);
	waitpid(sw, &status, 0);
	/* Put the tree back together if the swapper stopped midway. */
	{
		struct stat st;

		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			(void)unlink(p);
		if (lstat(q, &st) == 0 && lstat(p, &st) < 0)
			(void)rename(q, p);
	}
	/* Nothing went through the link; nothing was lost. */
	assert_int_equal(count_tree(out_dir), 0);
	left = raw_count(e, UA, NULL);
	for (i = 0; i < 300; i++) {
		tl_path(&e->t, q, sizeof(q), "home/a");
		if ((int64_t)count_tree(q) + left - 3 == RACE_FILES)
			break;
		msleep(10);
		left = raw_count(e, UA, NULL);
	}
	tl_path(&e->t, q, sizeof(q), "home/a");
	assert_int_equal((int64_t)count_tree(q) + left - 3, RACE_FILES);
	assert_int_equal(count_tree(out_dir), 0);
}

/* ---- a directory the caller cannot write ---- */

static void
test_unwritable(void **state)
{
	struct env *e = *state;
	char p[PATH_MAX], id[32], *out = NULL;

	mkdir_as(e, "home/ro", 0, 0755);
	stage_str(e, UA, "u1", "home/ro/file", "mine");
	stage_str(e, UA, "u2", "home/ro/newdir/file", "mine too");
	wait_count(e, UA, 2);
	tl_path(&e->t, p, sizeof(p), "home/ro/file");
	check_rc(ctl(e, &A, &out, "restore", p), 1, out);
	expect_str(out, "permission denied");
	free(out);
	tl_path(&e->t, p, sizeof(p), "home/ro/newdir/file");
	check_rc(ctl(e, &A, &out, "restore", p), 1, out);
	expect_str(out, "permission denied");
	free(out);
	assert_false(exists_rel(e, "home/ro/file"));
	assert_false(exists_rel(e, "home/ro/newdir"));
	assert_true(exists_rel(e, ".trash/70001/u1"));
	assert_true(exists_rel(e, ".trash/70001/u2"));
	wait_count(e, UA, 2);
	/* Off the filesystem: refused before anything moves. */
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id(e, UA));
	check_rc(ctl(e, &A, &out, "restore", "--id", id, "--to", "/tmp/x"),
	    6, out);
	expect_str(out, "not on the filesystem");
	free(out);
	wait_count(e, UA, 2);
}

/* ==== issue 12, findings 1, 2, 5: the restore path ==== */

/* Restore-timeout of setup_restore()'s trashd, s (times slow). */
#define RS_TIMEOUT	3
/* restore-max's default. */
#define RS_MAX		4
/* Restores user A starts against a mount that never answers. */
#define RS_HUNG		16
_Static_assert(RS_HUNG <= E2E_JOBS, "RS_HUNG runs in the background");

/* ctl() with umask 000, and bounded: a restore that hangs fails alone. */
#define ctl_umask0(e, w, out, ...) \
	run((e), &(const struct run){ .as = (w), .umask = RUN_UMASK(0), \
	    .timeout_ms = 60000 * slow }, (out), ARGS(__VA_ARGS__))

/* The usual trashd, restarted with restore-timeout RS_TIMEOUT*slow s. */
static int
setup_restore(void **state)
{
	char buf[64];

	setup(state);
	TL_SNPRINTF(buf, sizeof(buf), "restore-timeout %ds\n", RS_TIMEOUT * slow);
	restart_with(*state, buf);
	return 0;
}

static void
expect_dir(struct env *e, const char *rel, uid_t uid, mode_t mode)
{
	char p[PATH_MAX];
	struct stat st;

	tl_path(&e->t, p, sizeof(p), "%s", rel);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	if (st.st_uid != uid || (st.st_mode & 07777) != mode)
		fprintf(stderr, "%s: uid %u mode %04o, want uid %u mode "
		    "%04o\n", rel, (unsigned)st.st_uid,
		    (unsigned)(st.st_mode & 07777), (unsigned)uid,
		    (unsigned)mode);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_mode & 07777, mode);
}

/*
 * Finding 1: an admin (by group) never restores with root's rights: root's
 * entries are root's alone to restore; for a user, as that user; and a
 * umask of 000 makes no directory group or world writable.
 */
static void
test_restore_admin_creds(void **state)
{
	struct env *e = *state;
	char p[PATH_MAX], to[PATH_MAX], id[32], *out = NULL, *s;
	struct stat st;

	mkdir_as(e, "home/rootonly", 0, 0700);
	mkdir_as(e, "home/rootdir", 0, 0755);
	tl_path(&e->t, p, sizeof(p), "home/rootdir/passwd");
	tl_write_file(p, "root's", 6);
	stage_str(e, 0, "r1", "home/rootdir/passwd", "forged");
	stage_str(e, 0, "r2", "home/r2", "r2");
	stage_str(e, 0, "r3", "home/r3", "r3");
	stage_str(e, UA, "a1", "home/a/deep/er/a1", "a1");
	stage_str(e, UB, "b1", "home/b/new/b1", "b1");
	wait_count(e, 0, 3);
	wait_count(e, UA, 1);
	wait_count(e, UB, 1);

	/* Over root's file, asked for: refused. */
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id_named(e, 0, "r1"));
	check_rc(ctl_umask0(e, &ADM, &out, "restore", "-u", "0", "--overwrite",
	    "--id", id), 4, out);
	expect_str(out, "root's trash is restored by root alone");
	free(out);
	s = read_rel(e, "home/rootdir/passwd");
	assert_string_equal(s, "root's");
	free(s);
	/* Into a directory only root may write, or anywhere: refused. */
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id_named(e, 0, "r2"));
	tl_path(&e->t, to, sizeof(to), "home/rootonly/r2");
	check_rc(ctl_umask0(e, &ADM, &out, "restore", "-u", "0", "--id", id,
	    "--to", to), 4, out);
	free(out);
	assert_false(exists_rel(e, "home/rootonly/r2"));
	tl_path(&e->t, to, sizeof(to), "home/made/by/adm/r2");
	check_rc(ctl_umask0(e, &ADM, &out, "restore", "-u", "0", "--id", id,
	    "--to", to), 4, out);
	free(out);
	assert_false(exists_rel(e, "home/made"));
	assert_true(exists_rel(e, ".trash/0/r1"));
	assert_true(exists_rel(e, ".trash/0/r2"));
	wait_count(e, 0, 3);
	/* Root itself may; its umask 000 makes 0755 all the same. */
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id_named(e, 0, "r3"));
	tl_path(&e->t, to, sizeof(to), "home/rootonly/made/r3");
	check_rc(ctl_umask0(e, &ROOT, &out, "restore", "--id", id, "--to", to),
	    0, out);
	free(out);
	expect_dir(e, "home/rootonly/made", 0, 0755);
	wait_count(e, 0, 2);

	/* For a user: as that user, 0700 whatever the admin's umask. */
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id_named(e, UA, "a1"));
	check_rc(ctl_umask0(e, &ADM, &out, "restore", "-u", "70001", "--id",
	    id), 0, out);
	free(out);
	expect_dir(e, "home/a", UA, 0700);
	expect_dir(e, "home/a/deep", UA, 0700);
	expect_dir(e, "home/a/deep/er", UA, 0700);
	tl_path(&e->t, p, sizeof(p), "home/a/deep/er/a1");
	assert_int_equal(lstat(p, &st), 0);
	assert_int_equal(st.st_uid, UA);
	/* Their own, umask 000: never group or world writable. */
	tl_path(&e->t, p, sizeof(p), "home/b/new/b1");
	check_rc(ctl_umask0(e, &B, &out, "restore", p), 0, out);
	free(out);
	expect_dir(e, "home/b", UB, 0755);
	expect_dir(e, "home/b/new", UB, 0755);
	wait_count(e, UA, 0);
	wait_count(e, UB, 0);
}

/*
 * Finding 2: a directory on the way that another user made (a squatter in
 * a sticky dir) is refused, for the user, for an admin acting for them,
 * and for root: nothing moves, the entry stays listed.
 */
static void
test_restore_squatted(void **state)
{
	struct env *e = *state;
	char p[PATH_MAX], q[PATH_MAX], want[PATH_MAX + 64], *out = NULL;

	mkdir_as(e, "home/tmpx", UB, 0777);
	mkdir_as(e, "home/a", UA, 0755);
	mkdir_as(e, "home/a/inner", UB, 0777);
	stage_str(e, UA, "sq1", "home/tmpx/f", "A's");
	stage_str(e, UA, "sq2", "home/a/inner/deeper/h", "A's too");
	stage_str(e, 0, "sq3", "home/tmpx/g", "root's");
	wait_count(e, UA, 2);
	wait_count(e, 0, 1);

	tl_path(&e->t, p, sizeof(p), "home/tmpx/f");
	tl_path(&e->t, q, sizeof(q), "home/tmpx");
	check_rc(ctl(e, &A, &out, "restore", p), 1, out);
	TL_SNPRINTF(want, sizeof(want), "parent %s is owned by uid 70002, not "
	    "yours: refusing", q);
	expect_str(out, want);
	free(out);
	check_rc(ctl(e, &ADM, &out, "restore", "-u", "70001", p), 1, out);
	TL_SNPRINTF(want, sizeof(want), "parent %s is owned by uid 70002, not "
	    "uid 70001's: refusing", q);
	expect_str(out, want);
	free(out);
	/* Deeper down, in the user's own tree. */
	tl_path(&e->t, p, sizeof(p), "home/a/inner/deeper/h");
	tl_path(&e->t, q, sizeof(q), "home/a/inner");
	check_rc(ctl(e, &A, &out, "restore", p), 1, out);
	TL_SNPRINTF(want, sizeof(want), "parent %s is owned by uid 70002", q);
	expect_str(out, want);
	free(out);
	/* Root's own restore does not land in a user's directory either. */
	tl_path(&e->t, p, sizeof(p), "home/tmpx/g");
	check_rc(ctl(e, &ROOT, &out, "restore", p), 1, out);
	expect_str(out, "is owned by uid 70002, not yours");
	free(out);

	tl_path(&e->t, q, sizeof(q), "home/tmpx");
	assert_int_equal(count_tree(q), 0);
	tl_path(&e->t, q, sizeof(q), "home/a/inner");
	assert_int_equal(count_tree(q), 0);
	assert_false(exists_rel(e, "home/a/inner/deeper"));
	assert_true(exists_rel(e, ".trash/70001/sq1"));
	assert_true(exists_rel(e, ".trash/70001/sq2"));
	assert_true(exists_rel(e, ".trash/0/sq3"));
	wait_count(e, UA, 2);
	wait_count(e, 0, 1);
	check_rc(ctl(e, &A, &out, "list"), 0, out);
	expect_str(out, "home/tmpx/f");
	free(out);
	/* Elsewhere, it restores. */
	tl_path(&e->t, p, sizeof(p), "home/tmpx/f");
	tl_path(&e->t, q, sizeof(q), "home/a/f");
	check_rc(ctl(e, &A, &out, "restore", p, "--to", q), 0, out);
	free(out);
	wait_count(e, UA, 1);
}

/* Restore children of trashd running as @uid. */
static int
restore_children(struct env *e, uid_t uid)
{
	char p[64], buf[512], *s;
	struct dirent *de;
	struct stat st;
	DIR *d;
	long ppid;
	int fd, n = 0;
	ssize_t len;

	assert_non_null(d = opendir("/proc"));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		TL_SNPRINTF(p, sizeof(p), "/proc/%s", de->d_name);
		if (stat(p, &st) < 0 || st.st_uid != uid)
			continue;
		TL_SNPRINTF(p, sizeof(p), "/proc/%s/stat", de->d_name);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* pid (comm) state ppid: comm may hold anything but ") ". */
		if ((s = strrchr(buf, ')')) == NULL ||
		    sscanf(s + 1, " %*c %ld", &ppid) != 1)
			continue;
		if (ppid == (long)e->pid)
			n++;
	}
	closedir(d);
	return n;
}

/* Start, as @w, the restore by id of @uid's entry @name, in @j. */
static void
restore_id_start(struct env *e, const struct who *w, int64_t uid,
    const char *name, struct job *j)
{
	char id[32];

	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id_named(e, uid, name));
	job_start(e, &(const struct run){ .as = w },
	    ARGS("restore", "--id", id), j);
}

/*
 * Finding 5: user A's restores hang (into a FUSE mount that never
 * answers, as a user can mount with fusermount): A gets RS_MAX of them,
 * and "busy" past that; B's restore goes through at once; A's hung ones
 * end at restore-timeout, "timed out", their entries still in the trash.
 */
static void
test_restore_per_uid(void **state)
{
	struct env *e = *state;
	char p[PATH_MAX], name[32];
	char *out = NULL;
	int rc[RS_HUNG], i, busy = 0, timed = 0, ended;
	int64_t t0;

	mkdir_as(e, "home/a", UA, 0755);
	mkdir_as(e, "home/a/fz", UA, 0755);
	for (i = 0; i < RS_HUNG; i++) {
		TL_SNPRINTF(name, sizeof(name), "h%d", i);
		TL_SNPRINTF(p, sizeof(p), "home/a/fz/h%d", i);
		stage_str(e, UA, name, p, "hung");
	}
	stage_str(e, UA, "free", "home/a/free", "A's, later");
	stage_str(e, UB, "b1", "home/b/b1", "B's");
	wait_count(e, UA, RS_HUNG + 1);
	wait_count(e, UB, 1);
	tl_path(&e->t, p, sizeof(p), "home/a/fz");
	if (!dead_mount(e, p, UA)) {
		fprintf(stderr, "no FUSE here: %s\n", strerror(errno));
		skip();
	}

	/* By id: trashctl itself never looks into the dead mount. */
	for (i = 0; i < RS_HUNG; i++) {
		TL_SNPRINTF(name, sizeof(name), "h%d", i);
		restore_id_start(e, &A, UA, name, &e->jobs[i]);
		rc[i] = -1;
	}
	/* Until each one hangs in a child of trashd or has its answer. */
	t0 = mono_ms();
	for (;;) {
		for (i = 0, ended = 0; i < RS_HUNG; i++) {
			if (rc[i] < 0)
				rc[i] = job_wait(&e->jobs[i], 0);
			if (rc[i] >= 0)
				ended++;
		}
		if (restore_children(e, UA) + ended == RS_HUNG)
			break;
		assert_true(mono_ms() - t0 < 10000 * slow);
		msleep(20);
	}

	/* B is served, at once. */
	tl_path(&e->t, p, sizeof(p), "home/b/b1");
	t0 = mono_ms();
	check_rc(ctl(e, &B, &out, "restore", p), 0, out);
	free(out);
	assert_true(mono_ms() - t0 < 2000 * slow);
	assert_true(exists_rel(e, "home/b/b1"));

	/* A's hung ones end at the timeout, the others were refused. */
	for (i = 0; i < RS_HUNG; i++) {
		if (rc[i] < 0)
			rc[i] = job_wait(&e->jobs[i], (RS_TIMEOUT + 5) * 1000 *
			    slow);
		out = job_output(&e->jobs[i]);
		if (rc[i] == 6 && strstr(out, "busy: you have 4 restores "
		    "running") != NULL)
			busy++;
		else if (rc[i] == 1 && strstr(out, "timed out") != NULL)
			timed++;
		else
			fprintf(stderr, "restore %d: exit %d: %s\n", i, rc[i],
			    out);
		free(out);
	}
	assert_int_equal(busy, RS_HUNG - RS_MAX);
	assert_int_equal(timed, RS_MAX);
	wait_count(e, UA, RS_HUNG + 1);

	/*
	 * Nothing went in; A's slots are free again once its hung children
	 * are gone: at once natively, at the unmount under valgrind (whose
	 * handler keeps SIGALRM from being fatal in the FUSE wait).
	 */
	dead_unmount(e);
	tl_path(&e->t, p, sizeof(p), "home/a/fz");
	assert_int_equal(count_tree(p), 0);
	tl_path(&e->t, p, sizeof(p), "home/a/free");
	for (i = 0; (ended = ctl(e, &A, &out, "restore", p)) == 6 &&
	    i < 100 * slow; i++) {
		free(out);
		msleep(100);
	}
	check_rc_fn(ended, 0, out);
	free(out);
	wait_count(e, UA, RS_HUNG);
}

/* A fifth user, beside A, B, ADM and NOT. */
#define UC	70006
static const struct who C = { UC, UC, { UC }, 1 };
/* The restores all users together run before only newcomers may start. */
#define RS_GLOBAL	16

/*
 * Four users each fill their restore-max with restores that hang (here
 * into a FUSE mount that never answers; a child they SIGSTOP hangs the
 * same): together all RS_GLOBAL.  A fifth user, with nothing running, is still served at
 * once, and one of the four is still told it is busy.
 */
static void
test_restore_hogs_fair(void **state)
{
	const struct who *hog[] = { &A, &B, &ADM, &NOT };
	const size_t nhog = sizeof(hog) / sizeof(hog[0]);
	struct env *e = *state;
	char p[PATH_MAX], name[32];
	char *out = NULL;
	int rc[RS_GLOBAL], i, k, running, ended, timed = 0;
	int64_t t0;

	_Static_assert(sizeof(hog) / sizeof(hog[0]) * RS_MAX == RS_GLOBAL,
	    "the hogs fill the global slots exactly");
	_Static_assert(RS_GLOBAL <= E2E_JOBS, "they run in the background");
	/* Root's, as /tmp: each user's restore hangs in there. */
	mkdir_as(e, "home/dead", 0, 0755);
	for (i = 0; i < RS_GLOBAL; i++) {
		TL_SNPRINTF(name, sizeof(name), "h%d", i);
		TL_SNPRINTF(p, sizeof(p), "home/dead/h%d", i);
		stage_str(e, hog[i / RS_MAX]->uid, name, p, "hung");
	}
	stage_str(e, UC, "c1", "home/c1", "C's");
	for (k = 0; k < (int)nhog; k++)
		wait_count(e, hog[k]->uid, RS_MAX);
	wait_count(e, UC, 1);
	tl_path(&e->t, p, sizeof(p), "home/dead");
	if (!dead_mount(e, p, 0)) {
		fprintf(stderr, "no FUSE here: %s\n", strerror(errno));
		skip();
	}

	for (i = 0; i < RS_GLOBAL; i++) {
		TL_SNPRINTF(name, sizeof(name), "h%d", i);
		restore_id_start(e, hog[i / RS_MAX], hog[i / RS_MAX]->uid, name,
		    &e->jobs[i]);
		rc[i] = -1;
	}
	/* Until every one hangs in a child of trashd (none may end). */
	t0 = mono_ms();
	for (;;) {
		for (i = 0, ended = 0; i < RS_GLOBAL; i++) {
			if (rc[i] < 0)
				rc[i] = job_wait(&e->jobs[i], 0);
			if (rc[i] >= 0)
				ended++;
		}
		for (k = 0, running = 0; k < (int)nhog; k++)
			running += restore_children(e, hog[k]->uid);
		if (running == RS_GLOBAL)
			break;
		if (ended > 0 || mono_ms() - t0 >= 10000 * slow) {
			for (i = 0; i < RS_GLOBAL; i++)
				if (rc[i] >= 0) {
					out = job_output(&e->jobs[i]);
					fprintf(stderr, "restore %d ended: "
					    "%d: %s\n", i, rc[i], out);
					free(out);
				}
			fail_msg("%d of %d restores hang", running, RS_GLOBAL);
		}
		msleep(20);
	}

	/* All slots of the four taken: the fifth user is served at once. */
	tl_path(&e->t, p, sizeof(p), "home/c1");
	t0 = mono_ms();
	check_rc(ctl(e, &C, &out, "restore", p), 0, out);
	free(out);
	assert_true(mono_ms() - t0 < 2000 * slow);
	assert_true(exists_rel(e, "home/c1"));
	/* A hog is not: its own slots are full. */
	stage_str(e, UB, "b-more", "home/b-more", "B's");
	wait_count(e, UB, RS_MAX + 1);
	tl_path(&e->t, p, sizeof(p), "home/b-more");
	check_rc(ctl(e, &B, &out, "restore", p), 6, out);
	expect_str(out, "busy: you have 4 restores running");
	free(out);

	for (i = 0; i < RS_GLOBAL; i++) {
		if (rc[i] < 0)
			rc[i] = job_wait(&e->jobs[i], (RS_TIMEOUT + 5) * 1000 *
			    slow);
		out = job_output(&e->jobs[i]);
		if (rc[i] == 1 && strstr(out, "timed out") != NULL)
			timed++;
		else
			fprintf(stderr, "restore %d: exit %d: %s\n", i, rc[i],
			    out);
		free(out);
	}
	assert_int_equal(timed, RS_GLOBAL);
	dead_unmount(e);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tree_restore, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_restore_hogs_fair,
		    setup_restore, teardown),
		cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwritable, setup,
		    teardown),
		/* issue 12, findings 1, 2, 5: the restore path */
		cmocka_unit_test_setup_teardown(test_restore_admin_creds,
		    setup_restore, teardown),
		cmocka_unit_test_setup_teardown(test_restore_squatted,
		    setup_restore, teardown),
		cmocka_unit_test_setup_teardown(test_restore_per_uid,
		    setup_restore, teardown),
	};

	e2e_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
