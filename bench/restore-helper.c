/* SPDX-License-Identifier: ISC */
/*
 * The helper of bench/restore.sh, for what would be too slow in shell:
 *
 *   stage-trashd FS UID N	N entries in FS/.trash/UID as the kernel
 *				leaves them: a file owned by UID, flagged
 *				+u, its trusted.trash record set, then
 *				renamed into the trash; original paths
 *				home/u/dDDD/fNNNNNN
 *   stage-trashcli TRASH BASE UID N
 *				the same N entries in trash-cli's format
 *				(TRASH/files/NAME, TRASH/info/NAME.trashinfo, as
 *				trash-put writes them), original paths
 *				BASE/dDDD/fNNNNNN
 *   load SOCK CLIENTS SECONDS status|quota
 *				CLIENTS processes, each sending requests
 *				one connection per request, as trashctl and
 *				pam_trash do; prints "requests/s errors"
 *   time IN CMD [ARG...]	run CMD, its stdin from file IN, its stdout
 *				to /dev/null; print its wall time in ms;
 *				fail if CMD does
 *
 * Built by bench/restore.sh with the protocol codec of common/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/trashbin.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void __attribute__((noreturn))
die(const char *what, const char *arg)
{
	fprintf(stderr, "restore-helper: %s %s: %s\n", what, arg,
	    strerror(errno));
	exit(1);
}

static void
mkdir_owned(const char *path, uid_t uid, mode_t mode)
{
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		die("mkdir", path);
	if (chown(path, uid, uid) < 0 || chmod(path, mode) < 0)
		die("chown", path);
}

static void
write_file(const char *path, const char *data, uid_t uid, mode_t mode)
{
	size_t len = strlen(data);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len ||
	    fchown(fd, uid, uid) < 0 || close(fd) < 0)
		die("create", path);
}

static int
cmd_stage_trashd(int argc, char **argv)
{
	char tdir[4096], tmp[4096], dst[4200], rel[64], v[128], data[64];
	long i, n;
	uid_t uid;
	time_t t0 = time(NULL);
	int fd, flags;

	if (argc != 3)
		return 2;
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	n = atol(argv[2]);
	snprintf(tdir, sizeof(tdir), "%s/.trash/%u", argv[0], (unsigned)uid);
	mkdir_owned(tdir, uid, 0700);
	snprintf(tmp, sizeof(tmp), "%s/.staging", argv[0]);
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "home/u/d%03ld/f%06ld", i / 1000,
		    i);
		snprintf(data, sizeof(data), "contents of entry %ld\n", i);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
		if (fd < 0 || write(fd, data, strlen(data)) !=
		    (ssize_t)strlen(data) || fchown(fd, uid, uid) < 0)
			die("create", tmp);
		/* Oldest first, a second apart, all in the past. */
		snprintf(v, sizeof(v), "%lld.000000000 %u %s",
		    (long long)(t0 - n + i), (unsigned)uid, rel);
		if (fsetxattr(fd, TRASHBIN_XATTR, v, strlen(v), 0) < 0)
			die("setxattr", tmp);
		flags = 0;
		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
			flags |= FS_UNRM_FL;
			(void)ioctl(fd, FS_IOC_SETFLAGS, &flags);
		}
		close(fd);
		snprintf(dst, sizeof(dst), "%s/f%06ld", tdir, i);
		if (rename(tmp, dst) < 0)
			die("rename", dst);
	}
	return 0;
}

static int
cmd_stage_trashcli(int argc, char **argv)
{
	char files[4096], info[4096], p[4200], data[4400];
	struct tm tm;
	long i, n;
	uid_t uid;
	time_t t0 = time(NULL), t;

	if (argc != 4)
		return 2;
	uid = (uid_t)strtoul(argv[2], NULL, 10);
	n = atol(argv[3]);
	snprintf(files, sizeof(files), "%s/files", argv[0]);
	snprintf(info, sizeof(info), "%s/info", argv[0]);
	mkdir_owned(argv[0], uid, 0700);
	mkdir_owned(files, uid, 0700);
	mkdir_owned(info, uid, 0700);
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/f%06ld", files, i);
		snprintf(data, sizeof(data), "contents of entry %ld\n", i);
		write_file(p, data, uid, 0644);
		t = t0 - n + i;
		localtime_r(&t, &tm);
		snprintf(p, sizeof(p), "%s/f%06ld.trashinfo", info, i);
		snprintf(data, sizeof(data), "[Trash Info]\nPath=%s/d%03ld/"
		    "f%06ld\nDeletionDate=%04d-%02d-%02dT%02d:%02d:%02d\n",
		    argv[1], i / 1000, i, tm.tm_year + 1900, tm.tm_mon + 1,
		    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		write_file(p, data, uid, 0600);
	}
	return 0;
}

/* One request on a new connection; 0 if it ended with OK. */
static int
load_one(const char *sock, uint16_t type, struct proto_client *c,
    struct proto_msg *m)
{
	struct proto_buf b;
	const char *why;
	int r;

	if ((r = proto_connect(c, sock, 5000)) < 0)
		return r;
	proto_init(&b, type);
	if ((r = proto_send(c, &b)) < 0)
		goto out;
	do {
		if ((r = proto_recv(c, m, &why)) < 0)
			goto out;
	} while (m->type != MSG_OK && m->type != MSG_ERROR);
	r = m->type == MSG_OK ? 0 : -(int)m->num[A_ERRNO];
out:
	proto_close(c);
	return r;
}

static int
cmd_load(int argc, char **argv)
{
	struct proto_client *c;
	struct proto_msg *m;
	long counts[2], ok = 0, bad = 0;
	double secs, t0, t1;
	uint16_t type;
	int nclients, k, p[2], st;
	pid_t pid;

	if (argc != 4)
		return 2;
	nclients = atoi(argv[1]);
	secs = atof(argv[2]);
	if (strcmp(argv[3], "status") == 0)
		type = MSG_STATUS;
	else if (strcmp(argv[3], "quota") == 0)
		type = MSG_QUOTA;
	else
		return 2;
	if (pipe(p) < 0)
		die("pipe", "");
	t0 = now();
	for (k = 0; k < nclients; k++) {
		if ((pid = fork()) < 0)
			die("fork", "");
		if (pid > 0)
			continue;
		close(p[0]);
		c = malloc(sizeof(*c));
		m = malloc(sizeof(*m));
		if (c == NULL || m == NULL)
			_exit(1);
		counts[0] = counts[1] = 0;
		while (now() - t0 < secs)
			counts[load_one(argv[0], type, c, m) == 0 ? 0 : 1]++;
		if (write(p[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	while (read(p[0], counts, sizeof(counts)) == sizeof(counts)) {
		ok += counts[0];
		bad += counts[1];
	}
	t1 = now();
	while (wait(&st) > 0)
		;
	printf("%.0f %ld\n", (double)ok / (t1 - t0), bad);
	return 0;
}

static int
cmd_time(int argc, char **argv)
{
	double t0, t1;
	int st, in, out;
	pid_t pid;

	if (argc < 2)
		return 2;
	if ((in = open(argv[0], O_RDONLY | O_CLOEXEC)) < 0)
		die("open", argv[0]);
	if ((out = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		die("open", "/dev/null");
	argv++;
	t0 = now();
	if ((pid = fork()) < 0)
		die("fork", argv[0]);
	if (pid == 0) {
		if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		die("wait", argv[0]);
	t1 = now();
	printf("%.3f\n", (t1 - t0) * 1000);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "restore-helper: %s: exit status %d\n",
		    argv[0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
		const char *usage;
	} cmds[] = {
		{ "stage-trashd", cmd_stage_trashd, "FS UID N" },
		{ "stage-trashcli", cmd_stage_trashcli, "TRASH BASE UID N" },
		{ "load", cmd_load, "SOCK CLIENTS SECONDS status|quota" },
		{ "time", cmd_time, "IN CMD [ARG...]" },
	};
	size_t i;
	int rc;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name) != 0)
			continue;
		if ((rc = cmds[i].fn(argc - 2, argv + 2)) == 2)
			fprintf(stderr, "usage: restore-helper %s %s\n",
			    cmds[i].name, cmds[i].usage);
		return rc;
	}
	fprintf(stderr, "usage: restore-helper stage-trashd|stage-trashcli|"
	    "load|time ...\n");
	return 2;
}
