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
#include <linux/trashbin.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* The control socket's numbers: the one shared header, never a copy. */
#include "../../common/proto.h"

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
	case ESTALE: return "ESTALE";
	case EMLINK: return "EMLINK";
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
				   *p == 's' ? FS_SECRM_FL :
				   *p == 'i' ? FS_IMMUTABLE_FL : 0;
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

/*
 * tbtool snap FILE: what a refused unlink or rename must not change, on one
 * line: inode, links, mode, owner, size, ctime in ns, a checksum of the
 * contents, then every xattr as NAME=HEX (run as root to see trusted.*).
 */
static int cmd_snap(int argc, char **argv)
{
	char names[65536], val[65536];
	unsigned long sum = 5381;
	ssize_t n, i, k;
	struct stat st;
	int fd;

	if (argc != 1)
		return 2;
	if (lstat(argv[0], &st) < 0)
		return fail("lstat", argv[0]);
	fd = open(argv[0], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail("open", argv[0]);
	while ((n = read(fd, val, sizeof(val))) > 0)
		for (i = 0; i < n; i++)
			sum = sum * 33 + (unsigned char)val[i];
	close(fd);
	printf("ino=%lu links=%lu mode=%o uid=%u size=%lld ctime=%lld.%09ld "
	       "sum=%lx", (unsigned long)st.st_ino,
	       (unsigned long)st.st_nlink, st.st_mode, st.st_uid,
	       (long long)st.st_size, (long long)st.st_ctim.tv_sec,
	       st.st_ctim.tv_nsec, sum);
	n = llistxattr(argv[0], names, sizeof(names));
	for (i = 0; n > 0 && i < n; i += strlen(names + i) + 1) {
		ssize_t v = lgetxattr(argv[0], names + i, val, sizeof(val));

		printf(" %s=", names + i);
		for (k = 0; k < v; k++)
			printf("%02x", (unsigned char)val[k]);
	}
	putchar('\n');
	return 0;
}

/*
 * tbtool fillxattr FILE: fill FILE's xattr space with user.* attributes
 * (in-inode and its xattr block) until the filesystem refuses even a
 * one-byte value.  Prints how many bytes went in.
 */
static int cmd_fillxattr(int argc, char **argv)
{
	static const size_t sizes[] = { 1024, 256, 64, 16, 1 };
	char name[32], val[1024];
	size_t total = 0, k;
	int i = 0;

	if (argc != 1)
		return 2;
	memset(val, 'x', sizeof(val));
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (;;) {
			snprintf(name, sizeof(name), "user.f%d", i);
			if (lsetxattr(argv[0], name, val, sizes[k],
				      XATTR_CREATE) < 0)
				break;
			total += sizes[k];
			i++;
		}
		if (errno != ENOSPC && errno != E2BIG)
			return fail("setxattr", argv[0]);
	}
	printf("%zu\n", total);
	return 0;
}

/*
 * tbtool mount SOURCE TARGET TYPE OPTIONS: mount(2) with OPTIONS as its
 * data, as is (busybox's mount rewrites NFS mounts into the legacy binary
 * form, which NFSv4 refuses).
 */
static int cmd_mount(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	if (mount(argv[0], argv[1], argv[2], 0, argv[3]) < 0)
		return fail("mount", argv[1]);
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

/*
 * tbtool runas-groups UID GID G1,G2,... CMD [ARG...]: with those
 * supplementary groups
 */
static int cmd_runas_groups(int argc, char **argv)
{
	gid_t groups[64];
	size_t n = 0;
	char *p = argv[2], *end;

	if (argc < 4)
		return 2;
	while (*p && n < 64) {
		groups[n++] = strtoul(p, &end, 10);
		p = *end == ',' ? end + 1 : end;
		if (end == p && *p)
			return 2;
	}
	if (setgroups(n, groups) < 0 ||
	    setresgid(strtoul(argv[1], NULL, 10), strtoul(argv[1], NULL, 10),
		      strtoul(argv[1], NULL, 10)) < 0 ||
	    setresuid(strtoul(argv[0], NULL, 10), strtoul(argv[0], NULL, 10),
		      strtoul(argv[0], NULL, 10)) < 0)
		return fail("runas-groups", argv[0]);
	execvp(argv[3], argv + 3);
	return fail("exec", argv[3]);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned int get_be(const unsigned char *p, int n)
{
	unsigned int v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/*
 * tbtool sock PATH HEX [HOLD]: a raw control socket client.  Connects,
 * sends the bytes HEX (spaces allowed), waits HOLD seconds (default 0),
 * shuts its side and prints every reply message until the daemon closes
 * or 20 s pass: "TYPE ERRNO MESSAGE" for errors, "TYPE" for the others,
 * then "eof" or "timeout".
 */
static int cmd_sock(int argc, char **argv)
{
	static unsigned char out[PROTO_HDR_LEN + PROTO_MSG_MAX + 4096];
	static unsigned char in[1 << 20];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = 0, len = 0, off;
	struct pollfd pfd;
	const char *h;
	ssize_t r;
	int fd, hi, lo;

	if (argc < 2 || argc > 3 || strlen(argv[0]) >= sizeof(sun.sun_path))
		return 2;
	for (h = argv[1]; *h; h++) {
		if (*h == ' ')
			continue;
		hi = hexval(h[0]);
		lo = h[1] ? hexval(h[1]) : -1;
		if (hi < 0 || lo < 0 || n == sizeof(out))
			return 2;
		out[n++] = (unsigned char)(hi << 4 | lo);
		h++;
	}
	strcpy(sun.sun_path, argv[0]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		return fail("connect", argv[0]);
	if (n > 0 && send(fd, out, n, MSG_NOSIGNAL) != (ssize_t)n)
		return fail("send", argv[0]);
	if (argc == 3)
		sleep(atoi(argv[2]));
	shutdown(fd, SHUT_WR);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, 20000) <= 0) {
			printf("timeout\n");
			break;
		}
		r = recv(fd, in + len, sizeof(in) - len, 0);
		if (r <= 0) {
			printf("eof\n");
			break;
		}
		len += (size_t)r;
		/* Whole messages, as they come. */
		while (len >= PROTO_HDR_LEN &&
		       len - PROTO_HDR_LEN >= get_be(in + 4, 4)) {
			unsigned int type = get_be(in + 2, 2);
			unsigned int mlen = get_be(in + 4, 4);
			long long err = 0;
			const char *msg = "";
			char mbuf[PROTO_STR_MAX + 1];

			for (off = 0; off + 4 <= mlen;) {
				unsigned int tag = get_be(in + 8 + off, 2);
				unsigned int alen = get_be(in + 10 + off, 2);
				const unsigned char *v = in + 12 + off;

				if (off + 4 + alen > mlen)
					break;
				if (tag == A_ERRNO && alen == 8)
					err = (long long)(((unsigned long long)
						get_be(v, 4) << 32) |
						get_be(v + 4, 4));
				if (tag == A_MESSAGE && alen <= PROTO_STR_MAX) {
					memcpy(mbuf, v, alen);
					mbuf[alen] = 0;
					msg = mbuf;
				}
				off += 4 + alen;
			}
			if (type == MSG_ERROR)
				printf("%u %lld %s\n", type, err, msg);
			else
				printf("%u\n", type);
			memmove(in, in + PROTO_HDR_LEN + mlen,
				len - PROTO_HDR_LEN - mlen);
			len -= PROTO_HDR_LEN + mlen;
		}
	}
	close(fd);
	return 0;
}

/* A system call's result for the commands below: its errno symbol printed. */
static int said(long rc)
{
	if (rc < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	return 0;
}

/*
 * tbtool unlink FILE, rename OLD NEW, link OLD NEW, exchange A B
 * (renameat2's RENAME_EXCHANGE): print the errno symbol on failure.
 */
static int cmd_unlink(int argc, char **argv)
{
	return argc != 1 ? 2 : said(unlink(argv[0]));
}

static int cmd_rename(int argc, char **argv)
{
	return argc != 2 ? 2 : said(rename(argv[0], argv[1]));
}

static int cmd_link(int argc, char **argv)
{
	return argc != 2 ? 2 : said(link(argv[0], argv[1]));
}

static int cmd_exchange(int argc, char **argv)
{
	return argc != 2 ? 2 : said(syscall(SYS_renameat2, AT_FDCWD, argv[0],
					    AT_FDCWD, argv[1], RENAME_EXCHANGE));
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
 * tbtool linkfill DIR: hard links with 250-byte names in DIR until link(2)
 * fails, a new source file (DIR/s<k>) each time one reaches EMLINK; prints
 * "N ERRNO": how many links were made, and the error that ended it.  Fills
 * a directory's index without using up inodes or many blocks.
 */
static int cmd_linkfill(int argc, char **argv)
{
	char src[4200], path[4400], name[251];
	long n = 0, k = 0;
	int e;

	if (argc != 1)
		return 2;
	snprintf(src, sizeof(src), "%s/s%ld", argv[0], k);
	if (make_file(src, NULL) < 0)
		return fail("create", src);
	for (;;) {
		snprintf(name, sizeof(name), "%0250ld", n);
		snprintf(path, sizeof(path), "%s/%s", argv[0], name);
		if (link(src, path) == 0) {
			n++;
			continue;
		}
		e = errno;
		if (e != EMLINK)
			break;
		snprintf(src, sizeof(src), "%s/s%ld", argv[0], ++k);
		if (make_file(src, NULL) < 0) {
			e = errno;
			break;
		}
	}
	printf("%ld %s\n", n, errname(e));
	return 0;
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
 * The fields of PATH's record (TRASHBIN_XATTR, "<time> <uid> <path>"):
 * pointers into VAL (LEN bytes), NUL-terminated.  -1 when it has none or
 * it is malformed.
 */
static int read_record(const char *path, char *val, size_t len,
		       char **time, char **uid, char **rpath)
{
	ssize_t n = lgetxattr(path, TRASHBIN_XATTR, val, len - 1);
	char *sp;

	if (n < 0)
		return -1;
	val[n] = 0;
	*time = val;
	sp = strchr(val, ' ');
	if (!sp)
		return -1;
	*sp = 0;
	*uid = sp + 1;
	sp = strchr(*uid, ' ');
	if (!sp)
		return -1;
	*sp = 0;
	*rpath = sp + 1;
	return 0;
}

/*
 * tbtool record FILE FIELD: print FIELD (time, uid or path) of FILE's
 * record; fails when it has no record or the field is empty.
 */
static int cmd_record(int argc, char **argv)
{
	char val[8192], *f[3], *v;

	if (argc != 2)
		return 2;
	if (read_record(argv[0], val, sizeof(val), &f[0], &f[1], &f[2]) < 0)
		return 1;
	if (!strcmp(argv[1], "time"))
		v = f[0];
	else if (!strcmp(argv[1], "uid"))
		v = f[1];
	else if (!strcmp(argv[1], "path"))
		v = f[2];
	else
		return 2;
	if (!*v)
		return 1;
	puts(v);
	return 0;
}

/*
 * tbtool trashls DIR: one line per entry of DIR, sorted by the caller:
 * "NAME<TAB>PATH<TAB>UID<TAB>NLINK", PATH and UID "-" when there is no
 * record.
 */
static int cmd_trashls(int argc, char **argv)
{
	char path[4200], val[8192], *t, *uid, *rpath;
	struct dirent *de;
	struct stat st;
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
		if (read_record(path, val, sizeof(val), &t, &uid, &rpath) < 0)
			uid = rpath = "-";
		else if (!*rpath)
			rpath = "-";
		printf("%s\t%s\t%s\t%lu\n", de->d_name, rpath, uid,
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

/* tbtool now: a monotonic clock in milliseconds, for timing in shell */
static int cmd_now(int argc, char **argv)
{
	(void)argv;
	if (argc != 0)
		return 2;
	printf("%.0f\n", now() * 1000);
	return 0;
}

/* tbtool mkfiles DIR N [SIZE]: DIR/f0..f<N-1>, empty or of SIZE bytes. */
static int cmd_mkfiles(int argc, char **argv)
{
	static char data[65536];
	char path[4200];
	long i, n, size = 0;
	int fd;

	if (argc != 2 && argc != 3)
		return 2;
	n = atol(argv[1]);
	if (argc == 3)
		size = atol(argv[2]);
	if (size < 0 || size > (long)sizeof(data))
		return 2;
	memset(data, 'k', sizeof(data));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[0], i);
		if (!size) {
			if (make_file(path, NULL) < 0)
				return fail("create", path);
			continue;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, data, size) != size || close(fd) < 0)
			return fail("create", path);
	}
	return 0;
}

/* tbtool fill FILE SIZE TEXT: FILE holds TEXT repeated to SIZE bytes */
static int cmd_fill(int argc, char **argv)
{
	size_t len, size, off, k;
	char buf[65536];
	int fd;

	if (argc != 3 || !(len = strlen(argv[2])) || len > sizeof(buf))
		return 2;
	size = strtoul(argv[1], NULL, 10);
	for (off = 0; off < sizeof(buf); off++)
		buf[off] = argv[2][off % len];
	fd = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("open", argv[0]);
	/* Whole repeats of TEXT per write, so that no copy is split. */
	k = sizeof(buf) / len * len;
	for (off = 0; off < size; off += k) {
		size_t n = size - off < k ? size - off : k;

		if (write(fd, buf, n) != (ssize_t)n)
			return fail("write", argv[0]);
	}
	if (fsync(fd) < 0 || close(fd) < 0)
		return fail("fsync", argv[0]);
	return 0;
}

/*
 * tbtool scan DEV TEXT...: how many times each TEXT occurs on DEV (one
 * count a line), read with O_DIRECT: what is on the disk, not in the
 * page cache.  The TEXTs share their first byte; one memchr() pass finds
 * the candidates (a mostly empty disk is skimmed, not searched).
 */
static int cmd_scan(int argc, char **argv)
{
	const size_t chunk = 8 << 20;
	unsigned long long hits[16] = { 0 };
	size_t len[16], keep = 0, have, maxlen = 0;
	char *buf, *p, *end, *start;
	int fd, i, np = argc - 1;
	ssize_t n;

	if (np < 1 || np > 16)
		return 2;
	for (i = 0; i < np; i++) {
		len[i] = strlen(argv[i + 1]);
		if (!len[i] || len[i] > 4096 || argv[i + 1][0] != argv[1][0])
			return 2;
		if (len[i] > maxlen)
			maxlen = len[i];
	}
	fd = open(argv[0], O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return fail("open", argv[0]);
	/* The 4096 bytes before the aligned read area carry the last tail. */
	if (posix_memalign((void **)&buf, 4096, chunk + 4096))
		return fail("posix_memalign", argv[0]);
	for (;;) {
		n = read(fd, buf + 4096, chunk);
		if (n < 0)
			return fail("read", argv[0]);
		if (n == 0)
			break;
		have = keep + (size_t)n;
		start = buf + 4096 - keep;
		end = buf + 4096 + n;
		/* A match wholly inside the old tail was counted: the tail is
		 * maxlen - 1 bytes, so every match here ends past it. */
		for (p = start; (p = memchr(p, argv[1][0], end - p)); p++)
			for (i = 0; i < np; i++)
				if ((size_t)(end - p) >= len[i] &&
				    !memcmp(p, argv[i + 1], len[i]) &&
				    (p + len[i] > buf + 4096 || !keep))
					hits[i]++;
		keep = maxlen - 1 < have ? maxlen - 1 : have;
		memmove(buf + 4096 - keep, buf + 4096 + n - keep, keep);
	}
	close(fd);
	free(buf);
	for (i = 0; i < np; i++)
		printf("%llu\n", hits[i]);
	return 0;
}

/* Write @size bytes of a pattern to @fd and sync them. */
static int write_data(int fd, unsigned long long size)
{
	static char buf[1 << 20];
	static int filled;
	unsigned long long off;
	size_t k;

	if (!size)
		return 0;
	for (k = 0; !filled && k < sizeof(buf); k++)
		buf[k] = "tbtool-stage-data-"[k % 18];
	filled = 1;
	for (off = 0; off < size; off += k) {
		k = size - off < sizeof(buf) ? size - off : sizeof(buf);
		if (write(fd, buf, k) != (ssize_t)k)
			return -1;
	}
	return fdatasync(fd);
}

/*
 * tbtool stage ROOT UID N FLAGS PREFIX [SIZE]: N entries in
 * ROOT/.trash/UID, made as the kernel makes them: a file of UID elsewhere
 * on the same filesystem (SIZE bytes, synced) gets FLAGS (u, s or -) and
 * its trusted.trash record, and only then is renamed in as PREFIX<i>.
 * The host benches use it (no patched kernel there).
 */
static int cmd_stage(int argc, char **argv)
{
	char stage[4200], tdir[4200], src[4300], dst[4300], val[4400];
	unsigned long long size = 0;
	unsigned int set = 0, flags;
	struct timespec ts;
	long i, n;
	uid_t uid;
	int fd;

	if (argc != 5 && argc != 6)
		return 2;
	if (argc == 6)
		size = strtoull(argv[5], NULL, 10);
	uid = strtoul(argv[1], NULL, 10);
	n = atol(argv[2]);
	if (strchr(argv[3], 'u'))
		set |= FS_UNRM_FL;
	if (strchr(argv[3], 's'))
		set |= FS_SECRM_FL;
	snprintf(stage, sizeof(stage), "%s/.tbstage", argv[0]);
	snprintf(tdir, sizeof(tdir), "%s/.trash/%s", argv[0], argv[1]);
	if (mkdir(stage, 0700) < 0 && errno != EEXIST)
		return fail("mkdir", stage);
	if (mkdir(tdir, 0700) < 0 && errno != EEXIST)
		return fail("mkdir", tdir);
	if (chown(tdir, uid, uid) < 0)
		return fail("chown", tdir);
	for (i = 0; i < n; i++) {
		snprintf(src, sizeof(src), "%s/%s%ld", stage, argv[4], i);
		snprintf(dst, sizeof(dst), "%s/%s%ld", tdir, argv[4], i);
		fd = open(src, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 || fchown(fd, uid, uid) < 0)
			return fail("create", src);
		if (write_data(fd, size) < 0)
			return fail("write", src);
		if (set && ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
			return fail("chattr", src);
		flags |= set;
		if (set && ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
			return fail("chattr", src);
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(val, sizeof(val), "%lld.%09ld %s bench/%s%ld",
			 (long long)ts.tv_sec, ts.tv_nsec, argv[1], argv[4], i);
		if (fsetxattr(fd, TRASHBIN_XATTR, val, strlen(val), 0))
			return fail("setxattr", src);
		close(fd);
		if (rename(src, dst) < 0)
			return fail("rename", src);
	}
	return 0;
}

/* The inode number's entry in DIR (a trash's per-uid dir), or -1. */
static int find_ino(const char *dir, ino_t ino, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_ino != ino)
			continue;
		snprintf(path, len, "%s/%s", dir, e->d_name);
		found = 0;
		break;
	}
	closedir(d);
	return found;
}

/*
 * tbtool renameover-held SRC DST TRASHDIR: open DST, rename SRC over it,
 * and report what fstat(2) of the still-open DST says: "nlink N" after
 * the rename, the trash entry with its inode number, then "nlink N" once
 * that entry is unlinked (a purge).  fstests' generic/035 expects 0 at
 * once; with the trash the inode keeps its link in the trash until then.
 */
static int cmd_renameover_held(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	int fd;

	if (argc != 3)
		return 2;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open", argv[1]);
	if (rename(argv[0], argv[1]) < 0)
		return fail("rename", argv[0]);
	if (fstat(fd, &st) < 0)
		return fail("fstat", argv[1]);
	printf("after rename: nlink %u\n", (unsigned int)st.st_nlink);
	if (find_ino(argv[2], st.st_ino, path, sizeof(path)) < 0) {
		printf("not in the trash\n");
		return 1;
	}
	printf("trash entry: %s\n", path);
	if (unlink(path) < 0)
		return fail("unlink", path);
	if (fstat(fd, &st) < 0)
		return fail("fstat", argv[1]);
	printf("after purge: nlink %u\n", (unsigned int)st.st_nlink);
	close(fd);
	return 0;
}

/*
 * tbtool handle FILE TRASHDIR UID: take FILE's file handle
 * (name_to_handle_at), unlink FILE, then open the handle
 * (open_by_handle_at) as root, as UID, and again as root once the trash
 * entry is unlinked.  Prints one line for each: "ok" and whether it is the
 * same inode, or the errno symbol.
 */
static void try_handle(const char *who, int mfd, struct file_handle *fh,
		       ino_t ino)
{
	struct stat st;
	int fd = open_by_handle_at(mfd, fh, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("%s: %s\n", who, errname(errno));
		return;
	}
	fstat(fd, &st);
	printf("%s: ok, %s inode\n", who, st.st_ino == ino ? "same" : "another");
	close(fd);
}

static int cmd_handle(int argc, char **argv)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	char path[4096], *slash, dir[4096];
	struct stat st;
	int mid, mfd;
	pid_t pid;

	if (argc != 3)
		return 2;
	if (stat(argv[0], &st) < 0)
		return fail("stat", argv[0]);
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, argv[0], &h.fh, &mid, 0) < 0)
		return fail("name_to_handle_at", argv[0]);
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	mfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return fail("open", dir);
	if (unlink(argv[0]) < 0)
		return fail("unlink", argv[0]);
	try_handle("as root, trashed", mfd, &h.fh, st.st_ino);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		uid_t uid = (uid_t)strtoul(argv[2], NULL, 10);

		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(fail("setresuid", argv[2]));
		try_handle("as the uid, trashed", mfd, &h.fh, st.st_ino);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	if (find_ino(argv[1], st.st_ino, path, sizeof(path)) < 0) {
		printf("not in the trash\n");
		return 1;
	}
	if (unlink(path) < 0)
		return fail("unlink", path);
	try_handle("as root, purged", mfd, &h.fh, st.st_ino);
	close(mfd);
	return 0;
}


/* The pattern of tbtool write and verify: byte @off of the file of @seed. */
static unsigned char pattern(unsigned long long off, unsigned long seed)
{
	unsigned long long x = (off / 8) * 0x9e3779b97f4a7c15ULL + seed;

	x ^= x >> 29;
	return (unsigned char)(x >> (8 * (off % 8)));
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* memcpy() into a shared mapping: -1 if a page fault raised SIGBUS. */
static int map_copy(unsigned char *to, const unsigned char *from, size_t n)
{
	if (sigsetjmp(bus_jmp, 1))
		return -1;
	memcpy(to, from, n);
	return 0;
}

/*
 * tbtool write buffered|direct|mmap FILE MIB SEED: write MIB MiB of the
 * pattern of SEED to FILE (created, truncated) and fsync it; print the ms
 * it took.  A failure names its errno (ENOSPC, EDQUOT), or SIGBUS for a
 * page fault of the mmap write that could not get its block.
 */
static int cmd_write(int argc, char **argv)
{
	const size_t chunk = 1 << 20;
	unsigned long long size, off, t0;
	unsigned long seed;
	unsigned char *buf, *map = NULL;
	struct timespec ts;
	int fd, direct, mm;
	ssize_t n;
	size_t i;

	if (argc != 4)
		return 2;
	direct = !strcmp(argv[0], "direct");
	mm = !strcmp(argv[0], "mmap");
	if (!direct && !mm && strcmp(argv[0], "buffered"))
		return 2;
	size = strtoull(argv[2], NULL, 10) << 20;
	seed = strtoul(argv[3], NULL, 10);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC |
		  (direct ? O_DIRECT : 0), 0644);
	if (fd < 0)
		return fail("open", argv[1]);
	if (posix_memalign((void **)&buf, 4096, chunk))
		return fail("posix_memalign", argv[1]);
	if (mm) {
		if (ftruncate(fd, size) < 0)
			return fail("ftruncate", argv[1]);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
		if (map == MAP_FAILED)
			return fail("mmap", argv[1]);
		signal(SIGBUS, on_sigbus);
	}
	for (off = 0; off < size; off += chunk) {
		for (i = 0; i < chunk; i++)
			buf[i] = pattern(off + i, seed);
		if (mm && map_copy(map + off, buf, chunk) < 0) {
			printf("SIGBUS\n");
			return 1;
		}
		/* A short write is followed by the one that fails. */
		for (i = 0; !mm && i < chunk; i += n) {
			n = write(fd, buf + i, chunk - i);
			if (n < 0)
				return fail("write", argv[1]);
		}
	}
	if (mm && msync(map, size, MS_SYNC) < 0)
		return fail("msync", argv[1]);
	if (fsync(fd) < 0 || close(fd) < 0)
		return fail("fsync", argv[1]);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%llu\n", ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000 - t0);
	return 0;
}

/*
 * tbtool pagecache FILE MIB ROUNDS: the cost of buffered writes that find
 * room.  ROUNDS times: write MIB MiB of one buffer into FILE's page cache
 * in 64 KiB write(2)s (each new page a delayed allocation, which claims a
 * block from ext4's free count: where the trash bin watches the space)
 * and print the microseconds the writes took; then truncate FILE again,
 * untimed.  No fsync: writeback is the same work on any kernel and would
 * put other threads' work into the figure; the caller holds it off.
 */
static int cmd_pagecache(int argc, char **argv)
{
	const size_t chunk = 64 << 10;
	unsigned long long size, off, t0, t1;
	static unsigned char buf[64 << 10];
	unsigned long rounds, r;
	struct timespec ts;
	ssize_t n;
	size_t i;
	int fd;

	if (argc != 3)
		return 2;
	size = strtoull(argv[1], NULL, 10) << 20;
	rounds = strtoul(argv[2], NULL, 10);
	memset(buf, 0x5a, sizeof(buf));
	fd = open(argv[0], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail("open", argv[0]);
	for (r = 0; r < rounds; r++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t0 = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
		for (off = 0; off < size; off += chunk) {
			for (i = 0; i < chunk; i += n) {
				n = pwrite(fd, buf + i, chunk - i, off + i);
				if (n < 0)
					return fail("write", argv[0]);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t1 = ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
		printf("%llu\n", t1 - t0);
		fflush(stdout);
		if (ftruncate(fd, 0) < 0)
			return fail("ftruncate", argv[0]);
	}
	return close(fd) < 0 ? fail("close", argv[0]) : 0;
}

/* tbtool verify FILE MIB SEED: FILE holds what tbtool write wrote. */
static int cmd_verify(int argc, char **argv)
{
	unsigned long long size, off = 0;
	unsigned long seed;
	static unsigned char buf[1 << 16];
	struct stat st;
	ssize_t n, i;
	int fd;

	if (argc != 3)
		return 2;
	size = strtoull(argv[1], NULL, 10) << 20;
	seed = strtoul(argv[2], NULL, 10);
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail("open", argv[0]);
	if ((unsigned long long)st.st_size != size) {
		fprintf(stderr, "%s: size %lld, want %llu\n", argv[0],
			(long long)st.st_size, size);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i] != pattern(off + i, seed)) {
				fprintf(stderr, "%s: differs at %llu\n",
					argv[0], off + i);
				return 1;
			}
		off += n;
	}
	if (n < 0)
		return fail("read", argv[0]);
	close(fd);
	return 0;
}

/*
 * tbtool setquota DEV UID HARD_KIB [HARD_INODES]: a user quota, of blocks
 * (0: none; "used": what the user uses now, so that their next block is
 * over it) and, if given, of inodes (0: none; "+N": what the user has
 * now and N more).
 */
static int cmd_setquota(int argc, char **argv)
{
	struct if_dqblk dq = { 0 };
	unsigned long long hard, inodes = 0;

	if (argc != 3 && argc != 4)
		return 2;
	if (quotactl(QCMD(Q_GETQUOTA, USRQUOTA), argv[0], atoi(argv[1]),
		     (caddr_t)&dq) < 0)
		return fail("quotactl", argv[0]);
	if (!strcmp(argv[2], "used"))
		hard = (dq.dqb_curspace + 1023) / 1024;
	else
		hard = strtoull(argv[2], NULL, 10);	/* KiB */
	if (argc == 4 && argv[3][0] == '+')
		inodes = dq.dqb_curinodes + strtoull(argv[3] + 1, NULL, 10);
	else if (argc == 4)
		inodes = strtoull(argv[3], NULL, 10);
	memset(&dq, 0, sizeof(dq));
	dq.dqb_bhardlimit = hard;
	dq.dqb_bsoftlimit = dq.dqb_bhardlimit;
	dq.dqb_valid = QIF_BLIMITS;
	if (argc == 4) {
		dq.dqb_ihardlimit = inodes;
		dq.dqb_isoftlimit = inodes;
		dq.dqb_valid |= QIF_ILIMITS;
	}
	if (quotactl(QCMD(Q_SETQUOTA, USRQUOTA), argv[0], atoi(argv[1]),
		     (caddr_t)&dq) < 0)
		return fail("quotactl", argv[0]);
	return 0;
}

/*
 * tbtool pressure DIR [LOW]: ask for the pressure file of the filesystem
 * whose /.trash is DIR (prints its errno on refusal); "ok" if given.
 * tbtool pressure-listen DIR SECONDS ACK: listen for SECONDS, print each
 * event ("reason uid waiters"), acknowledge each read with freed bytes
 * ACK (0: nothing freed, the writers fail at once; none: no answer).
 * Holds nothing on the filesystem but the pressure file: when it is
 * unmounted, prints "hangup POLLHUP" (poll's word), checks that an ack
 * now fails with ENODEV and ends.
 */
static int cmd_pressure(int argc, char **argv)
{
	struct trashbin_pressure_arg a = { 0 };
	int dfd, fd;

	if (argc < 1 || argc > 2)
		return 2;
	if (argc == 2)
		a.low_bytes = strtoull(argv[1], NULL, 10);
	dfd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (dfd < 0)
		return fail("open", argv[0]);
	fd = ioctl(dfd, TRASHBIN_IOC_PRESSURE, &a);
	if (fd < 0)
		return fail("TRASHBIN_IOC_PRESSURE", argv[0]);
	printf("ok\n");
	return 0;
}

/*
 * tbtool watch DIR: hold an inotify watch on DIR (a directory watch, as
 * trashd holds on /.trash), reading and dropping its events until
 * killed.  Prints "watching" once the watch is in place.
 */
static int cmd_watch(int argc, char **argv)
{
	char buf[4096];
	int fd;

	if (argc != 1)
		return 2;
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0)
		return fail("inotify_init1", argv[0]);
	if (inotify_add_watch(fd, argv[0], IN_CREATE | IN_MOVED_TO |
			      IN_ONLYDIR) < 0)
		return fail("inotify_add_watch", argv[0]);
	printf("watching\n");
	fflush(stdout);
	while (read(fd, buf, sizeof(buf)) > 0 || errno == EINTR)
		;
	return fail("read", argv[0]);
}

/*
 * A hostile owner of DIR (their /.trash/<uid>/): remove NAME there as soon
 * as it appears, spinning on unlinkat(2), until it went COUNT times,
 * STOPFILE exists or SECONDS passed.  Prints "ready" once spinning, then
 * how many went.
 */
static int cmd_eat(int argc, char **argv)
{
	long eaten = 0, count, seconds, i;
	struct timespec t0, t;
	int dfd;

	if (argc != 5)
		return 2;
	count = atol(argv[3]);
	seconds = atol(argv[4]);
	dfd = open(argv[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail("open", argv[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("ready\n");
	fflush(stdout);
	for (i = 0; eaten < count; i++) {
		if (!(i & 255)) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec >= seconds ||
			    access(argv[2], F_OK) == 0)
				break;
		}
		if (unlinkat(dfd, argv[1], 0) == 0)
			eaten++;
		else if (errno != ENOENT)
			return fail("unlinkat", argv[1]);
	}
	printf("%ld\n", eaten);
	return 0;
}

/*
 * Read DIR whole, again and again, until STOPFILE exists: each
 * getdents64(2) holds DIR's lock (shared) while it fills a 1 MiB buffer,
 * so a big DIR keeps anyone who needs that lock exclusive (a rename in
 * DIR) waiting.  At nice 19: the CPU goes to the caller's other
 * processes first, and a reader preempted holds the lock longer.
 */
static int cmd_readdirs(int argc, char **argv)
{
	static char buf[1 << 20];
	int fd;

	if (argc != 2)
		return 2;
	errno = 0;
	if (nice(19) == -1 && errno)
		return fail("nice", "19");
	fd = open(argv[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail("open", argv[0]);
	while (access(argv[1], F_OK) < 0) {
		if (lseek(fd, 0, SEEK_SET) < 0)
			return fail("lseek", argv[0]);
		while (syscall(SYS_getdents64, fd, buf, sizeof(buf)) > 0)
			;
	}
	return 0;
}

static int cmd_pressure_listen(int argc, char **argv)
{
	struct trashbin_pressure_arg a = { 0 };
	struct trashbin_pressure_event ev[16];
	struct trashbin_pressure_ack ack = { 0 };
	struct pollfd pfd;
	time_t end;
	ssize_t n;
	int dfd, fd, i;

	if (argc != 3)
		return 2;
	dfd = open(argv[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail("open", argv[0]);
	fd = ioctl(dfd, TRASHBIN_IOC_PRESSURE, &a);
	if (fd < 0)
		return fail("TRASHBIN_IOC_PRESSURE", argv[0]);
	close(dfd);
	printf("listening\n");
	fflush(stdout);
	end = time(NULL) + atoi(argv[1]);
	/* "none": never acknowledge, the writers wait their whole bound. */
	ack.freed_bytes = strtoull(argv[2], NULL, 10);
	while (time(NULL) < end) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = read(fd, ev, sizeof(ev));
		if (n < 0)
			return fail("read", argv[0]);
		if (n == 0) {
			printf("hangup%s\n",
			       pfd.revents & POLLHUP ? " POLLHUP" : "");
			if (write(fd, &ack, sizeof(ack)) >= 0 ||
			    errno != ENODEV)
				return fail("ack after the hangup", argv[0]);
			return 0;
		}
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
			printf("%u %u %u\n", ev[i].reason, ev[i].uid,
			       ev[i].waiters);
			if (ev[i].seq > ack.seq)
				ack.seq = ev[i].seq;
		}
		fflush(stdout);
		if (strcmp(argv[2], "none") &&
		    write(fd, &ack, sizeof(ack)) != sizeof(ack))
			return fail("write", argv[0]);
	}
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
} cmds[] = {
	{ "chattr", cmd_chattr, "[+-][usi] FILE..." },
	{ "lsattr", cmd_lsattr, "FILE" },
	{ "getxattr", cmd_getxattr, "FILE NAME" },
	{ "setxattr", cmd_setxattr, "FILE NAME VALUE" },
	{ "snap", cmd_snap, "FILE" },
	{ "mount", cmd_mount, "SOURCE TARGET TYPE OPTIONS" },
	{ "fillxattr", cmd_fillxattr, "FILE" },
	{ "runas", cmd_runas, "UID GID CMD [ARG...]" },
	{ "runas-groups", cmd_runas_groups, "UID GID G1,G2,... CMD [ARG...]" },
	{ "sock", cmd_sock, "PATH HEX [HOLD]" },
	{ "unlink", cmd_unlink, "FILE" },
	{ "rename", cmd_rename, "OLD NEW" },
	{ "link", cmd_link, "OLD NEW" },
	{ "exchange", cmd_exchange, "A B" },
	{ "linkfill", cmd_linkfill, "DIR" },
	{ "uring-unlink", cmd_uring_unlink, "FILE" },
	{ "churn", cmd_churn, "DIR NAME N" },
	{ "stress", cmd_stress, "DIR NPROC N" },
	{ "trashls", cmd_trashls, "DIR" },
	{ "bench", cmd_bench, "DIR N" },
	{ "record", cmd_record, "FILE time|uid|path" },
	{ "now", cmd_now, "" },
	{ "mkfiles", cmd_mkfiles, "DIR N [SIZE]" },
	{ "fill", cmd_fill, "FILE SIZE TEXT" },
	{ "scan", cmd_scan, "DEV TEXT..." },
	{ "stage", cmd_stage, "ROOT UID N FLAGS(u|s|us|-) PREFIX [SIZE]" },
	{ "renameover-held", cmd_renameover_held, "SRC DST TRASHDIR" },
	{ "handle", cmd_handle, "FILE TRASHDIR UID" },
	{ "write", cmd_write, "buffered|direct|mmap FILE MIB SEED" },
	{ "pagecache", cmd_pagecache, "FILE MIB ROUNDS" },
	{ "verify", cmd_verify, "FILE MIB SEED" },
	{ "setquota", cmd_setquota, "DEV UID HARD_KIB [HARD_INODES|+N]" },
	{ "pressure", cmd_pressure, "TRASHDIR [LOW_BYTES]" },
	{ "pressure-listen", cmd_pressure_listen, "TRASHDIR SECONDS ACK_BYTES" },
	{ "watch", cmd_watch, "DIR" },
	{ "eat", cmd_eat, "DIR NAME STOPFILE COUNT SECONDS" },
	{ "readdirs", cmd_readdirs, "DIR STOPFILE" },
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
