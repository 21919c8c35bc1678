/*
 * tbrace: races against the trash bin, for the quick guest (run as root;
 * the racing processes drop to the uids given).
 *
 *   tbrace race KIND DIR TRASH N UID1 UID2
 *	N lockstep rounds of one pair of operations on flagged files in DIR
 *	(whose flags the files inherit), the two sides released at once.
 *   tbrace random DIR TRASH SEED SECONDS NPROC UID...
 *	NPROC processes, uids in turn, each seeded SEED+k, for SECONDS:
 *	creat, write, truncate, punch, link, unlink, rename, rename over,
 *	exchange on a shared set of names, a quarter of the removals and
 *	renames through io_uring.
 *
 * Both end with the invariant check, which is also a command of its own:
 *   tbrace check DIR TRASH TAGFILE [MAYBOTH]
 *	every file tagged in TAGFILE (one tag a line: each file's first
 *	line) is live in DIR or in TRASH; no inode has two names in the
 *	trash; every trash entry has a complete trusted.trash record;
 *	no inode is both live and trashed unless MAYBOTH is "both-ok".
 *
 * The xattr names and formats come from the series' UAPI header.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/falloc.h>
#include <linux/io_uring.h>
#include <linux/trashbin.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define TAG_LEN 64		/* every file starts with its tag, padded */

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "tbrace: %s %s: %s\n", what, arg, strerror(errno));
	exit(1);
}

/* ---- a one-entry io_uring ---- */

struct ring {
	int fd;
	struct io_uring_sqe *sqes;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r)
{
	struct io_uring_params p = { 0 };
	char *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries *
		  sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE,
		  MAP_SHARED, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit one SQE and wait: the result as a syscall would give it. */
static int ring_do(struct ring *r, const struct io_uring_sqe *in)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_cqe *cqe;
	int res;

	r->sqes[idx] = *in;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -1;
	if (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == *r->cq_head) {
		errno = EIO;
		return -1;
	}
	cqe = &r->cqes[*r->cq_head & *r->cq_mask];
	res = cqe->res;
	__atomic_store_n(r->cq_head, *r->cq_head + 1, __ATOMIC_RELEASE);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

static int uring_unlink(struct ring *r, const char *path)
{
	struct io_uring_sqe sqe = { .opcode = IORING_OP_UNLINKAT };

	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)path;
	return ring_do(r, &sqe);
}

static int uring_rename(struct ring *r, const char *from, const char *to,
			unsigned int flags)
{
	struct io_uring_sqe sqe = { .opcode = IORING_OP_RENAMEAT };

	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)from;
	sqe.len = AT_FDCWD;
	sqe.addr2 = (unsigned long)to;
	sqe.rename_flags = flags;
	return ring_do(r, &sqe);
}

static int uring_link(struct ring *r, const char *from, const char *to)
{
	struct io_uring_sqe sqe = { .opcode = IORING_OP_LINKAT };

	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)from;
	sqe.len = AT_FDCWD;
	sqe.addr2 = (unsigned long)to;
	return ring_do(r, &sqe);
}

/* ---- tagged files ---- */

static FILE *tagfile;

/* Create PATH holding TAG (padded to TAG_LEN) and SIZE bytes in all. */
static int make_tagged(const char *path, const char *tag, size_t size)
{
	char buf[TAG_LEN];
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, tag, strlen(tag));
	buf[TAG_LEN - 1] = '\n';
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    (size > TAG_LEN && ftruncate(fd, size) < 0)) {
		close(fd);
		return -1;
	}
	close(fd);
	if (tagfile) {
		fprintf(tagfile, "%s\n", tag);
		fflush(tagfile);
	}
	return 0;
}

static int read_tag(int dfd, const char *name, char *tag)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;
	char *sp;

	if (fd < 0)
		return -1;
	n = read(fd, tag, TAG_LEN - 1);
	close(fd);
	if (n <= 0)
		return -1;
	tag[n] = 0;
	sp = strpbrk(tag, " \n");
	if (sp)
		*sp = 0;
	return 0;
}

/* ---- the invariant ---- */

struct seen {
	ino_t ino;
	char tag[TAG_LEN];
	int live, trashed;
};

static struct seen *seen;
static size_t nseen, capseen;

static struct seen *seen_get(ino_t ino)
{
	size_t i;

	for (i = 0; i < nseen; i++)
		if (seen[i].ino == ino)
			return &seen[i];
	if (nseen == capseen) {
		capseen = capseen ? 2 * capseen : 1024;
		seen = realloc(seen, capseen * sizeof(*seen));
		if (!seen)
			die("realloc", "");
	}
	memset(&seen[nseen], 0, sizeof(*seen));
	seen[nseen].ino = ino;
	return &seen[nseen++];
}

static int bad;

static void complain(const char *fmt, const char *a, const char *b)
{
	if (bad++ < 20) {
		fprintf(stderr, "tbrace check: ");
		fprintf(stderr, fmt, a, b);
		fputc('\n', stderr);
	}
}

static size_t nfull;	/* entries without a record that could not fit */

/*
 * An entry's record lacks PART (the record, or its path): a problem,
 * unless the inode's xattr space is full (trashbin.rst: such a file is
 * trashed with a shorter record, or none, as stress-ng's xattr stressor
 * leaves them).  Probe with the shortest record the kernel would have
 * written with PART (a time is always 20 bytes, a uid and a bounded path
 * at least 1); if that does not fit either, the kernel's did not.
 */
static void missing(const char *path, const char *part)
{
	static const char head[] = "0000000000.000000000 0 ";
	static const char tail[] = "0000000000.000000000 0 "
		TRASHBIN_PATH_TRUNCATED "x";
	int whole = !strcmp(part, "record");

	if (setxattr(path, TRASHBIN_XATTR, whole ? head : tail,
		     strlen(whole ? head : tail), whole ? XATTR_CREATE : 0) < 0 &&
	    (errno == ENOSPC || errno == E2BIG || errno == ERANGE)) {
		nfull++;
		fprintf(stderr, "tbrace check: %s: no %s, its xattr space "
			"is full (allowed)\n", path, part);
		return;
	}
	if (whole)
		removexattr(path, TRASHBIN_XATTR);
	complain("%s: no %s", path, part);
}

/*
 * Check an entry's record, VALUE of N bytes: "<time> <uid> <path>" with a
 * time of digits, a dot and nine digits, a decimal uid and a path.
 */
static void check_record(const char *path, char *value, ssize_t n)
{
	char *sp1, *sp2, *p;

	if (n < 0) {
		missing(path, "record");
		return;
	}
	value[n] = '\0';
	sp1 = memchr(value, ' ', n);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', value + n - sp1 - 1) : NULL;
	if (!sp2 || (size_t)n != strlen(value)) {
		complain("%s: malformed record '%s'", path, value);
		return;
	}
	for (p = value; p < sp1 && *p >= '0' && *p <= '9'; p++)
		;
	if (p == value || *p++ != '.' || sp1 - p != 9 ||
	    strspn(p, "0123456789") < 9)
		complain("%s: bad time in '%s'", path, value);
	if (sp2 == sp1 + 1 || strspn(sp1 + 1, "0123456789") !=
	    (size_t)(sp2 - sp1 - 1))
		complain("%s: bad uid in '%s'", path, value);
	if (sp2 + 1 == value + n)
		missing(path, "path");
}

/* Every regular file below PATH; in_trash: entries also get checked. */
static void walk(const char *path, int in_trash, int skip_trash)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char sub[4096], tag[TAG_LEN], v[8192];
	struct stat st;
	struct seen *s;

	if (!d)
		die("opendir", path);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (skip_trash && !strcmp(e->d_name, TRASHBIN_DIR))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (lstat(sub, &st) < 0)
			die("lstat", sub);
		if (S_ISDIR(st.st_mode)) {
			walk(sub, in_trash, 0);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		s = seen_get(st.st_ino);
		if (!s->tag[0] && read_tag(dirfd(d), e->d_name, tag) == 0)
			snprintf(s->tag, sizeof(s->tag), "%s", tag);
		if (!in_trash) {
			s->live++;
			continue;
		}
		s->trashed++;
		check_record(sub, v, getxattr(sub, TRASHBIN_XATTR, v,
					      sizeof(v) - 1));
	}
	closedir(d);
}

static int check(const char *dir, const char *trash, const char *tags,
		 int both_ok)
{
	char line[256];
	size_t i, ntags = 0, live = 0, trashed = 0, both = 0;
	FILE *f = fopen(tags, "r");

	bad = 0;
	nfull = 0;
	nseen = 0;
	walk(dir, 0, 1);
	walk(trash, 1, 0);
	if (!f)
		die("open", tags);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		ntags++;
		for (i = 0; i < nseen; i++)
			if (!strcmp(seen[i].tag, line))
				break;
		if (i == nseen)
			complain("%s: LOST (neither live nor in the trash)%s",
				 line, "");
	}
	fclose(f);
	for (i = 0; i < nseen; i++) {
		if (seen[i].trashed > 1)
			complain("%s: %s", seen[i].tag,
				 "in the trash more than once");
		if (seen[i].trashed && seen[i].live) {
			both++;
			if (!both_ok)
				complain("%s: %s", seen[i].tag,
					 "both live and trashed");
		} else if (seen[i].trashed) {
			trashed++;
		} else {
			live++;
		}
	}
	printf("# check: %zu files made, %zu live, %zu trashed, %zu both, "
	       "%zu record parts that could not fit, %d problems\n", ntags,
	       live, trashed, both, nfull, bad);
	return bad ? 1 : 0;
}

static int cmd_check(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	return check(argv[0], argv[1], argv[2],
		     argc > 3 && !strcmp(argv[3], "both-ok"));
}

/* ---- lockstep races ---- */

struct shared {
	volatile int go;		/* the round both sides may start */
	volatile int done[2];		/* the last round each side finished */
	volatile int stop;
	volatile int lost_names;	/* names a side made that went */
	volatile int restored;		/* rounds whose trash link was moved out */
	volatile int in_window;		/* ... before the other side was done */
};

/* What a side may look at besides its round's files. */
static struct shared *race_sh;
static const char *race_trash;		/* TRASH */
static unsigned int race_owner;		/* the first uid */

static void become(unsigned int uid)
{
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		die("setresuid", "");
}

static void wait_for(volatile int *p, int v)
{
	while (*p < v)
		sched_yield();
}

struct race {
	const char *name;
	int both_ok;	/* a racing link(2) may leave a live name */
	/* Round i's files, made as the owner uid; its two sides. */
	void (*setup)(const char *dir, int i);
	void (*side[2])(struct ring *r, const char *dir, int i);
};

static char *p(const char *dir, const char *fmt, int i)
{
	static char buf[4][4096];
	static int k;
	char name[256];

	k = (k + 1) % 4;
	snprintf(name, sizeof(name), fmt, i);
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void mk(const char *path, const char *fmt, int i)
{
	char tag[TAG_LEN];

	snprintf(tag, sizeof(tag), fmt, i);
	if (make_tagged(path, tag, TAG_LEN) < 0)
		die("create", path);
}

/* Two links in two directories: a/xN and b/yN. */
static void setup_links(const char *dir, int i)
{
	mk(p(dir, "a/x%d", i), "X%d", i);
	if (link(p(dir, "a/x%d", i), p(dir, "b/y%d", i)) < 0)
		die("link", p(dir, "b/y%d", i));
}

static void setup_links_src(const char *dir, int i)
{
	setup_links(dir, i);
	mk(p(dir, "a/s%d", i), "S%d", i);
	mk(p(dir, "b/t%d", i), "T%d", i);
}

static void setup_one_src(const char *dir, int i)
{
	mk(p(dir, "a/x%d", i), "X%d", i);
	mk(p(dir, "a/s%d", i), "S%d", i);
}

static void setup_two(const char *dir, int i)
{
	mk(p(dir, "a/x%d", i), "X%d", i);
	mk(p(dir, "b/y%d", i), "Y%d", i);
}

/* Odd rounds go through io_uring, even ones through the syscalls. */
static void do_unlink(struct ring *r, const char *path, int i)
{
	if (i & 1)
		uring_unlink(r, path);
	else
		unlink(path);
}

static int do_rename(struct ring *r, const char *a, const char *b, int i,
		     unsigned int flags)
{
	if (i & 1)
		return uring_rename(r, a, b, flags);
	return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, flags);
}

static void ul_ax(struct ring *r, const char *d, int i)
{
	do_unlink(r, p(d, "a/x%d", i), i);
}

static void ul_by(struct ring *r, const char *d, int i)
{
	do_unlink(r, p(d, "b/y%d", i), i);
}

static void rn_as_ax(struct ring *r, const char *d, int i)
{
	do_rename(r, p(d, "a/s%d", i), p(d, "a/x%d", i), i, 0);
}

static void rn_bt_by(struct ring *r, const char *d, int i)
{
	do_rename(r, p(d, "b/t%d", i), p(d, "b/y%d", i), i, 0);
}

static void ln_ax_bz(struct ring *r, const char *d, int i)
{
	if (i & 1)
		uring_link(r, p(d, "a/x%d", i), p(d, "b/z%d", i));
	else if (link(p(d, "a/x%d", i), p(d, "b/z%d", i)) < 0)
		errno = 0;	/* ENOENT when the unlink won: expected */
}

static void rn_ax_bw(struct ring *r, const char *d, int i)
{
	/*
	 * Within the directory: no s_vfs_rename_mutex, so she queues on the
	 * directory's lock while his trash link is made, ahead of his retry.
	 */
	do_rename(r, p(d, "a/x%d", i), p(d, "a/w%d", i), i, 0);
}

static void xchg_ax_by(struct ring *r, const char *d, int i)
{
	do_rename(r, p(d, "a/x%d", i), p(d, "b/y%d", i), i, RENAME_EXCHANGE);
}

/* The rename's source goes, so it fails; then the target's live name. */
static void ul_as_ax(struct ring *r, const char *d, int i)
{
	do_unlink(r, p(d, "a/s%d", i), i);
	do_unlink(r, p(d, "a/x%d", i), i);
}

/*
 * The moment the other uid's rename over her file has given it a link in
 * her trash, the owner links that trash link out (a second live name, in
 * the other directory) and restores it (moves it out, as a restore
 * does), both without her file's directory's lock.  The file then has
 * two live names when his rename has replaced hers, so his trash link
 * goes again, but only while it is in the trash: the name she restored
 * must stay.  So she waits for his rename before looking.
 */
static void ln_mv_restore(struct ring *r, const char *d, int i)
{
	char link_[4096], extra[4096], back[4096];
	struct stat st;
	int moved = 0, early, linked;

	snprintf(link_, sizeof(link_), "%s/%u/x%d", race_trash, race_owner, i);
	snprintf(extra, sizeof(extra), "%s", p(d, "b/h%d", i));
	snprintf(back, sizeof(back), "%s", p(d, "b/r%d", i));
	while (race_sh->done[1] < i && stat(link_, &st) < 0)
		sched_yield();
	early = race_sh->done[1] < i;
	if (i & 1)
		linked = uring_link(r, link_, extra) == 0;
	else
		linked = link(link_, extra) == 0;
	if (linked && do_rename(r, link_, back, i, 0) == 0) {
		moved = 1;
		/* Both before his rename was done: the case this is about. */
		race_sh->in_window += early && race_sh->done[1] < i;
	}
	wait_for(&race_sh->done[1], i);
	race_sh->restored += moved;
	if (moved && lstat(back, &st) < 0) {
		fprintf(stderr, "tbrace: round %d: %s, restored by its owner, "
			"was removed by the other uid's rename\n", i, back);
		race_sh->lost_names++;
	}
	errno = 0;
}

static const struct race races[] = {
	{ "unlink-unlink", 0, setup_links, { ul_ax, ul_by } },
	{ "renameover-unlink", 0, setup_links_src, { rn_as_ax, ul_by } },
	{ "renameover-renameover", 0, setup_links_src, { rn_as_ax, rn_bt_by } },
	{ "unlink-link", 1, setup_one_src, { ul_ax, ln_ax_bz } },
	{ "unlink-rename", 0, setup_one_src, { ul_ax, rn_ax_bw } },
	{ "exchange-unlink", 0, setup_two, { xchg_ax_by, ul_ax } },
	{ "failedrename-undo", 0, setup_one_src, { rn_as_ax, ul_as_ax } },
	{ "renameover-renameaway", 0, setup_one_src, { rn_as_ax, rn_ax_bw } },
	/* The other uid renames over the owner's file, which she renames away. */
	{ "renameaway-renameover", 0, setup_one_src, { rn_ax_bw, rn_as_ax } },
	/* The owner restores the trash link his rename over hers made. */
	{ "restore-renameover", 0, setup_one_src,
	  { ln_mv_restore, rn_as_ax } },
};

static int cmd_race(int argc, char **argv)
{
	const struct race *rc = NULL;
	struct shared *sh;
	char tags[4096], sub[4096];
	unsigned int uid[2];
	pid_t pid[2];
	int i, n, k, st, ret = 0;
	size_t j;

	if (argc != 6)
		return 2;
	for (j = 0; j < sizeof(races) / sizeof(races[0]); j++)
		if (!strcmp(argv[0], races[j].name))
			rc = &races[j];
	if (!rc) {
		fprintf(stderr, "tbrace: no race '%s'\n", argv[0]);
		return 2;
	}
	n = atoi(argv[3]);
	uid[0] = atoi(argv[4]);
	uid[1] = atoi(argv[5]);
	snprintf(tags, sizeof(tags), "/tmp/tbrace-%s.tags", rc->name);
	tagfile = fopen(tags, "w");
	if (tagfile)
		tagfile = freopen(tags, "a", tagfile);
	if (!tagfile)
		die("open", tags);
	for (k = 0; k < 2; k++) {
		snprintf(sub, sizeof(sub), "%s/%c", argv[1], "ab"[k]);
		if (mkdir(sub, 0777) < 0 && errno != EEXIST)
			die("mkdir", sub);
		chmod(sub, 0777);
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap", "");
	race_sh = sh;
	race_trash = argv[2];
	race_owner = uid[0];
	for (k = 0; k < 2; k++) {
		pid[k] = fork();
		if (pid[k] < 0)
			die("fork", "");
		if (pid[k] == 0) {
			struct ring r;

			become(uid[k]);
			if (ring_init(&r) < 0)
				die("io_uring_setup", "");
			for (i = 1; i <= n; i++) {
				wait_for(&sh->go, i);
				rc->side[k](&r, argv[1], i);
				sh->done[k] = i;
			}
			_exit(0);
		}
	}
	/* Round i: made by the first uid (the owner), then both released. */
	for (i = 1; i <= n; i++) {
		pid_t mk_pid = fork();

		if (mk_pid == 0) {
			become(uid[0]);
			rc->setup(argv[1], i);
			fflush(tagfile);
			_exit(0);
		}
		if (waitpid(mk_pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "tbrace: setup of round %d failed\n", i);
			sh->go = n + 1;
			ret = 1;
			break;
		}
		sh->go = i;
		wait_for(&sh->done[0], i);
		wait_for(&sh->done[1], i);
	}
	for (k = 0; k < 2; k++)
		waitpid(pid[k], &st, 0);
	fclose(tagfile);
	tagfile = NULL;
	printf("# race %s: %d rounds\n", rc->name, n);
	if (sh->restored)
		printf("# race %s: %d trash links moved out, %d of them while "
		       "the other side's rename was running\n", rc->name,
		       sh->restored, sh->in_window);
	if (sh->lost_names) {
		fprintf(stderr, "tbrace: %d names made by one side were "
			"removed by the other\n", sh->lost_names);
		ret = 1;
	}
	return check(argv[1], argv[2], tags, rc->both_ok) || ret;
}

/* ---- the seeded random workload ---- */

#define RW_DIRS 4
#define RW_NAMES 12

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11) % n;
}

static void rname(char *buf, size_t len, const char *dir)
{
	snprintf(buf, len, "%s/d%u/n%u", dir, rnd(RW_DIRS), rnd(RW_NAMES));
}

static void rw_worker(const char *dir, unsigned int uid, uint64_t seed,
		      time_t end, int k, long *ops)
{
	char a[4096], b[4096], tag[TAG_LEN], buf[512];
	struct ring r;
	long count = 0;
	int fd, uring;

	become(uid);
	if (ring_init(&r) < 0)
		die("io_uring_setup", "");
	rng = seed * 2654435761u + 1;
	memset(buf, 'w', sizeof(buf));
	while (time(NULL) < end) {
		rname(a, sizeof(a), dir);
		rname(b, sizeof(b), dir);
		uring = rnd(4) == 0;
		switch (rnd(10)) {
		case 0:
		case 1:
			snprintf(tag, sizeof(tag), "R%d-%u-%ld", k, uid, count);
			make_tagged(a, tag, rnd(3) ? TAG_LEN : 8192);
			break;
		case 2:
			fd = open(a, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (pwrite(fd, buf, 1 + rnd(sizeof(buf)),
					   TAG_LEN + rnd(8192)) < 0)
					errno = 0;
				close(fd);
			}
			break;
		case 3:
			if (truncate(a, TAG_LEN + rnd(8192)) < 0)
				errno = 0;
			break;
		case 4:
			fd = open(a, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				if (fallocate(fd, FALLOC_FL_PUNCH_HOLE |
					      FALLOC_FL_KEEP_SIZE, 4096,
					      4096) < 0)
					errno = 0;
				close(fd);
			}
			break;
		case 5:
			if (uring)
				uring_link(&r, a, b);
			else if (link(a, b) < 0)
				errno = 0;
			break;
		case 6:
		case 7:
			if (uring)
				uring_unlink(&r, a);
			else if (unlink(a) < 0)
				errno = 0;
			break;
		case 8:	/* rename, over b when it exists */
			if (uring)
				uring_rename(&r, a, b, 0);
			else if (rename(a, b) < 0)
				errno = 0;
			break;
		case 9:
			if (uring)
				uring_rename(&r, a, b, RENAME_EXCHANGE);
			else
				syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD,
					b, RENAME_EXCHANGE);
			break;
		}
		count++;
	}
	*ops = count;
}

static int cmd_random(int argc, char **argv)
{
	char tags[] = "/tmp/tbrace-random.tags", sub[4096];
	long *ops;
	long total = 0;
	uint64_t seed;
	time_t end;
	int nproc, nuid, k, st, ret = 0;

	if (argc < 6)
		return 2;
	seed = strtoull(argv[2], NULL, 10);
	end = time(NULL) + atoi(argv[3]);
	nproc = atoi(argv[4]);
	nuid = argc - 5;
	tagfile = fopen(tags, "w");
	if (tagfile)
		tagfile = freopen(tags, "a", tagfile);
	if (!tagfile)
		die("open", tags);
	setvbuf(tagfile, NULL, _IOLBF, 0);
	for (k = 0; k < RW_DIRS; k++) {
		snprintf(sub, sizeof(sub), "%s/d%d", argv[0], k);
		if (mkdir(sub, 0777) < 0 && errno != EEXIST)
			die("mkdir", sub);
		chmod(sub, 0777);
	}
	ops = mmap(NULL, nproc * sizeof(long), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ops == MAP_FAILED)
		die("mmap", "");
	for (k = 0; k < nproc; k++) {
		if (fork() == 0) {
			rw_worker(argv[0], atoi(argv[5 + k % nuid]),
				  seed + k, end, k, &ops[k]);
			_exit(0);
		}
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			ret = 1;
	fclose(tagfile);
	tagfile = NULL;
	for (k = 0; k < nproc; k++)
		total += ops[k];
	printf("# random: seed %s, %s s, %d processes, %ld operations\n",
	       argv[2], argv[3], nproc, total);
	return check(argv[0], argv[1], tags, 1) || ret;
}

int main(int argc, char **argv)
{
	int rc = 2;

	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "race"))
		rc = cmd_race(argc - 2, argv + 2);
	else if (argc > 1 && !strcmp(argv[1], "random"))
		rc = cmd_random(argc - 2, argv + 2);
	else if (argc > 1 && !strcmp(argv[1], "check"))
		rc = cmd_check(argc - 2, argv + 2);
	if (rc == 2)
		fprintf(stderr, "usage: tbrace race KIND DIR TRASH N UID1 UID2"
			" | random DIR TRASH SEED SECONDS NPROC UID..."
			" | check DIR TRASH TAGFILE [both-ok]\n");
	return rc;
}
