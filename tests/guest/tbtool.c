/*
 * tbtool: the small static helper the quick guest's tests use for what
 * busybox lacks (chattr, lsattr, getfattr, setuid) and for the loops that
 * would be too slow in shell under TCG.  Errors name the errno symbol so
 * tests can match them exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static const char *errname(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EEXIST: return "EEXIST";
	case ENOSPC: return "ENOSPC";
	case EDQUOT: return "EDQUOT";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENODATA: return "ENODATA";
	case EXDEV: return "EXDEV";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case EOVERFLOW: return "EOVERFLOW";
	default: return "E?";
	}
}

static int fail(const char *what, const char *arg)
{
	int e = errno;

	fprintf(stderr, "tbtool: %s %s: %s (%s)\n", what, arg, errname(e),
		strerror(e));
	return 1;
}

static int getflags(const char *path, unsigned int *flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	int r;

	if (fd < 0)
		return -1;
	r = ioctl(fd, FS_IOC_GETFLAGS, flags);
	close(fd);
	return r;
}

/* tbtool chattr [+-][us]... FILE... */
static int cmd_chattr(int argc, char **argv)
{
	unsigned int set = 0, clr = 0, flags;
	int i, rc = 0, mode = 0;

	if (argc < 2)
		return 2;
	for (const char *p = argv[0]; *p; p++) {
		if (*p == '+' || *p == '-') {
			mode = *p;
			continue;
		}
		unsigned int bit = *p == 'u' ? FS_UNRM_FL :
				   *p == 's' ? FS_SECRM_FL : 0;
		if (!bit || !mode)
			return 2;
		if (mode == '+')
			set |= bit;
		else
			clr |= bit;
	}
	for (i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC |
				       O_NOFOLLOW);
		if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
			rc = fail("chattr", argv[i]);
		} else {
			flags = (flags | set) & ~clr;
			if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
				rc = fail("chattr", argv[i]);
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}

/* tbtool lsattr FILE: prints "u", "s", "us" or "-" */
static int cmd_lsattr(int argc, char **argv)
{
	unsigned int flags;

	if (argc != 1)
		return 2;
	if (getflags(argv[0], &flags) < 0)
		return fail("lsattr", argv[0]);
	printf("%s%s%s\n", flags & FS_UNRM_FL ? "u" : "",
	       flags & FS_SECRM_FL ? "s" : "",
	       flags & (FS_UNRM_FL | FS_SECRM_FL) ? "" : "-");
	return 0;
}

/* tbtool getxattr FILE NAME: prints the value, or fails with ENODATA */
static int cmd_getxattr(int argc, char **argv)
{
	char buf[65536];
	ssize_t n;

	if (argc != 2)
		return 2;
	n = lgetxattr(argv[0], argv[1], buf, sizeof(buf));
	if (n < 0)
		return fail("getxattr", argv[0]);
	fwrite(buf, 1, n, stdout);
	putchar('\n');
	return 0;
}

/* tbtool setxattr FILE NAME VALUE */
static int cmd_setxattr(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	if (lsetxattr(argv[0], argv[1], argv[2], strlen(argv[2]), 0) < 0)
		return fail("setxattr", argv[0]);
	return 0;
}

/* tbtool runas UID GID CMD [ARG...]: no supplementary groups */
static int cmd_runas(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 3)
		return 2;
	uid = strtoul(argv[0], NULL, 10);
	gid = strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0)
		return fail("runas", argv[0]);
	execvp(argv[2], argv + 2);
	return fail("exec", argv[2]);
}

/* tbtool unlink FILE / tbtool rename OLD NEW: print the errno symbol */
static int cmd_unlink(int argc, char **argv)
{
	if (argc != 1)
		return 2;
	if (unlink(argv[0]) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	return 0;
}

static int cmd_rename(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	if (rename(argv[0], argv[1]) < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	return 0;
}

/*
 * tbtool uring-unlink FILE: unlink through io_uring's IORING_OP_UNLINKAT,
 * with raw system calls (no liburing in a static busybox guest).  Prints
 * the errno symbol on failure, like tbtool unlink.
 */
static int cmd_uring_unlink(int argc, char **argv)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes, *sqe;
	struct io_uring_cqe *cqe;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail;
	unsigned int *cq_mask, tail;
	void *sq, *cq;
	int fd, res;

	if (argc != 1)
		return 2;
	fd = syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0)
		return fail("io_uring_setup", argv[0]);
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(*cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return fail("io_uring mmap", argv[0]);
	sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	sq_mask = (unsigned int *)((char *)sq + p.sq_off.ring_mask);
	sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	cq_tail = (unsigned int *)((char *)cq + p.cq_off.tail);
	cq_mask = (unsigned int *)((char *)cq + p.cq_off.ring_mask);

	tail = *sq_tail;
	sqe = &sqes[tail & *sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_UNLINKAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)argv[0];
	sq_array[tail & *sq_mask] = tail & *sq_mask;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return fail("io_uring_enter", argv[0]);
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head) {
		fprintf(stderr, "tbtool: io_uring: no completion\n");
		return 1;
	}
	cqe = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes) +
	      (*cq_head & *cq_mask);
	res = cqe->res;
	__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	close(fd);
	if (res < 0) {
		printf("%s\n", errname(-res));
		return 1;
	}
	return 0;
}

static int make_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (data && write(fd, data, strlen(data)) != (ssize_t)strlen(data)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * tbtool churn DIR NAME N: N times, create DIR/NAME (flags inherited from
 * DIR), write its index into it and unlink it.
 */
static int cmd_churn(int argc, char **argv)
{
	char path[4096], data[32];
	long i, n;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	snprintf(path, sizeof(path), "%s/%s", argv[0], argv[1]);
	for (i = 0; i < n; i++) {
		snprintf(data, sizeof(data), "%ld\n", i);
		if (make_file(path, data) < 0)
			return fail("create", path);
		if (unlink(path) < 0)
			return fail("unlink", path);
	}
	return 0;
}

/*
 * tbtool stress DIR NPROC N: NPROC processes, each in DIR/p<k>, create and
 * unlink N files named f<i> (the same names in every process).
 */
static int cmd_stress(int argc, char **argv)
{
	int nproc, k, rc = 0, st;
	long n;

	if (argc != 3)
		return 2;
	nproc = atoi(argv[1]);
	n = atol(argv[2]);
	for (k = 0; k < nproc; k++) {
		if (fork() == 0) {
			char dir[4096], path[4200];
			long i;

			snprintf(dir, sizeof(dir), "%s/p%d", argv[0], k);
			if (mkdir(dir, 0755) < 0)
				_exit(fail("mkdir", dir));
			for (i = 0; i < n; i++) {
				snprintf(path, sizeof(path), "%s/f%ld", dir, i);
				if (make_file(path, NULL) < 0)
					_exit(fail("create", path));
			}
			for (i = 0; i < n; i++) {
				snprintf(path, sizeof(path), "%s/f%ld", dir, i);
				if (unlink(path) < 0)
					_exit(fail("unlink", path));
			}
			_exit(0);
		}
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	return rc;
}

/*
 * tbtool trashls DIR: one line per entry of DIR, sorted by the caller:
 * "NAME<TAB>PATH<TAB>UID<TAB>NLINK", PATH "-" when the xattr is absent.
 */
static int cmd_trashls(int argc, char **argv)
{
	char path[4200], val[4200], uid[32];
	struct dirent *de;
	struct stat st;
	ssize_t n;
	DIR *d;

	if (argc != 1)
		return 2;
	d = opendir(argv[0]);
	if (!d)
		return fail("opendir", argv[0]);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[0], de->d_name);
		if (lstat(path, &st) < 0)
			return fail("lstat", path);
		n = lgetxattr(path, "trusted.trash.path", val, sizeof(val) - 1);
		if (n < 0)
			strcpy(val, "-");
		else
			val[n] = 0;
		n = lgetxattr(path, "trusted.trash.uid", uid, sizeof(uid) - 1);
		if (n < 0)
			strcpy(uid, "-");
		else
			uid[n] = 0;
		printf("%s\t%s\t%s\t%lu\n", de->d_name, val, uid,
		       (unsigned long)st.st_nlink);
	}
	closedir(d);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * tbtool bench DIR N: create N empty files in DIR (untimed, then synced),
 * unlink them all (timed); prints "unlinks/s seconds".
 */
static int cmd_bench(int argc, char **argv)
{
	char path[4200];
	double t0, t1;
	long i, n;

	if (argc != 2)
		return 2;
	n = atol(argv[1]);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/b%ld", argv[0], i);
		if (make_file(path, NULL) < 0)
			return fail("create", path);
	}
	sync();
	t0 = now();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/b%ld", argv[0], i);
		if (unlink(path) < 0)
			return fail("unlink", path);
	}
	t1 = now();
	printf("%.0f %.3f\n", n / (t1 - t0), t1 - t0);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
} cmds[] = {
	{ "chattr", cmd_chattr, "[+-][us] FILE..." },
	{ "lsattr", cmd_lsattr, "FILE" },
	{ "getxattr", cmd_getxattr, "FILE NAME" },
	{ "setxattr", cmd_setxattr, "FILE NAME VALUE" },
	{ "runas", cmd_runas, "UID GID CMD [ARG...]" },
	{ "unlink", cmd_unlink, "FILE" },
	{ "rename", cmd_rename, "OLD NEW" },
	{ "uring-unlink", cmd_uring_unlink, "FILE" },
	{ "churn", cmd_churn, "DIR NAME N" },
	{ "stress", cmd_stress, "DIR NPROC N" },
	{ "trashls", cmd_trashls, "DIR" },
	{ "bench", cmd_bench, "DIR N" },
};

int main(int argc, char **argv)
{
	size_t i;
	int rc;

	for (i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		rc = cmds[i].fn(argc - 2, argv + 2);
		if (rc == 2)
			fprintf(stderr, "usage: tbtool %s %s\n", cmds[i].name,
				cmds[i].usage);
		return rc;
	}
	fprintf(stderr, "usage: tbtool COMMAND ARGS (commands:");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(stderr, " %s", cmds[i].name);
	fprintf(stderr, ")\n");
	return 2;
}
