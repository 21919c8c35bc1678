/* SPDX-License-Identifier: ISC */
/*
 * trashd as a systemd service (issue 13, "systemd and journald"): the
 * real binary's sd_notify readiness on a datagram socket the test binds
 * as $NOTIFY_SOCKET, the single-instance lock with two real daemons on
 * one index, and the fields of an audit record as the journal gets them.
 *
 * usage: test_trashd_service TRASHD
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "proto.h"
#include "testlib.h"

/* Entries staged before start: the reconcile READY=1 must wait for. */
#define NOTIFY_ENTRIES	400
#define NOTIFY_UID	70201

static const char *trashd_bin;

static void
msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A config at @conf: the scratch index and fs, socket @sock. */
static void
write_conf(const struct tl *t, const char *conf, const char *sock)
{
	char text[3 * PATH_MAX];
	int n;

	n = snprintf(text, sizeof(text), "database %s\nfilesystem %s\n"
	    "socket %s\nretention forever\nwatermark 0%%\n", t->db, t->fs,
	    sock);
	tl_write_file(conf, text, (size_t)n);
}

/* trashd -d -f @conf, output to @log, $NOTIFY_SOCKET @notify (or none). */
static pid_t
spawn(const char *conf, const char *log, const char *notify)
{
	pid_t pid;
	int fd;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		if (notify != NULL)
			setenv("NOTIFY_SOCKET", notify, 1);
		else
			unsetenv("NOTIFY_SOCKET");
		execl(trashd_bin, "trashd", "-d", "-f", conf, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* One plain connect to the control socket: 0 or -errno. */
static int
try_connect(const char *sock)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, r = 0;

	TL_SNPRINTF(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static void
wait_listening(const char *sock)
{
	int64_t t0 = mono_ms();

	while (try_connect(sock) < 0 && mono_ms() - t0 < 10000)
		msleep(10);
	assert_int_equal(try_connect(sock), 0);
}

/* Live entries of @uid, over the control socket. */
static int64_t
live_count(const char *sock, int64_t uid)
{
	struct proto_client c;
	struct proto_buf b;
	struct proto_msg *m = xmalloc(sizeof(*m));
	const char *why;
	int64_t n = -1;

	assert_int_equal(proto_connect(&c, sock, 5000), 0);
	proto_init(&b, MSG_LIST);
	proto_num(&b, A_UID, uid);
	assert_int_equal(proto_send(&c, &b), 0);
	for (;;) {
		assert_int_equal(proto_recv(&c, m, &why), 0);
		assert_int_not_equal(m->type, MSG_ERROR);
		if (m->type == MSG_OK) {
			n = m->num[A_COUNT];
			break;
		}
	}
	proto_close(&c);
	free(m);
	return n;
}

static void
stop(pid_t pid)
{
	int status;

	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- sd_notify ---- */

/* The notification socket: datagrams, with the sender's credentials. */
static int
notify_bind(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, one = 1;

	TL_SNPRINTF(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one,
	    sizeof(one)), 0);
	return fd;
}

/*
 * The next notification within @ms into @buf (NUL-terminated), its
 * sender's pid in *@pid; false on a timeout.
 */
static bool
notify_recv(int fd, char *buf, size_t len, pid_t *pid, int ms)
{
	union {
		struct cmsghdr	 h;
		char		 b[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct iovec iov = { buf, len - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = &cm, .msg_controllen = sizeof(cm) };
	struct pollfd pfd = { fd, POLLIN, 0 };
	struct cmsghdr *c;
	ssize_t n;

	*pid = -1;
	if (poll(&pfd, 1, ms) != 1)
		return false;
	n = recvmsg(fd, &mh, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			*pid = uc.pid;
		}
	return true;
}

/* A line of a notification: "READY=1" in "READY=1\nSTATUS=...". */
static bool
has_line(const char *msg, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = msg; p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * Notifications until one with the line @want, which is returned in @buf;
 * each from trashd (@pid) itself, the STATUS= of each before it counted
 * in *@nstatus, *@reconciling set if one says so.
 */
static void
notify_until(int fd, pid_t want_pid, const char *want, char *buf,
    size_t len, int *nstatus, bool *reconciling)
{
	int64_t t0 = mono_ms();
	pid_t pid;

	for (;;) {
		if (!notify_recv(fd, buf, len, &pid, 10000)) {
			fprintf(stderr, "no %s within 10 s\n", want);
			fail();
		}
		printf("notify from %d: %s\n", (int)pid, buf);
		assert_int_equal(pid, want_pid);
		if (has_line(buf, want))
			return;
		if (strncmp(buf, "STATUS=", 7) == 0) {
			(*nstatus)++;
			if (strstr(buf, "reconciling") != NULL)
				*reconciling = true;
		}
		assert_true(mono_ms() - t0 < 20000);
	}
}

/*
 * Under $NOTIFY_SOCKET, trashd says STATUS= while it reconciles, then
 * READY=1 only once its control socket accepts: the connect right after
 * READY=1 succeeds, and the index already has every staged entry.  A
 * SIGHUP is RELOADING=1 then READY=1 again, SIGTERM is STOPPING=1.  Every
 * notification comes from the main process (NotifyAccess=main).
 */
static void
test_notify_ready(void **state)
{
	struct tl t;
	char conf[PATH_MAX], sock[PATH_MAX], log[PATH_MAX], nsock[PATH_MAX];
	char buf[1024], name[32];
	struct tl_entry te = { .uid = NOTIFY_UID, .path = "home/x",
	    .time = 100, .deleter = NOTIFY_UID, .data = "x", .len = 1 };
	int fd, nstatus = 0, i, status;
	bool reconciling = false;
	pid_t pid;

	(void)state;
	tl_setup(&t);
	for (i = 0; i < NOTIFY_ENTRIES; i++) {
		TL_SNPRINTF(name, sizeof(name), "f%d", i);
		te.name = name;
		(void)tl_stage(&t, &te);
	}
	TL_SNPRINTF(conf, sizeof(conf), "%s/trashd.conf", t.root);
	TL_SNPRINTF(sock, sizeof(sock), "%s/run/trashd.sock", t.root);
	TL_SNPRINTF(log, sizeof(log), "%s/trashd.log", t.root);
	TL_SNPRINTF(nsock, sizeof(nsock), "%s/notify.sock", t.root);
	write_conf(&t, conf, sock);
	fd = notify_bind(nsock);
	pid = spawn(conf, log, nsock);

	notify_until(fd, pid, "READY=1", buf, sizeof(buf), &nstatus,
	    &reconciling);
	/* At once: no retry, no wait. */
	assert_int_equal(try_connect(sock), 0);
	assert_int_equal(live_count(sock, NOTIFY_UID), NOTIFY_ENTRIES);
	assert_true(nstatus >= 1);
	assert_true(reconciling);
	/* The steady status comes with READY=1. */
	assert_non_null(strstr(buf, "STATUS=managing 1 filesystem, socket "));

	assert_int_equal(kill(pid, SIGHUP), 0);
	notify_until(fd, pid, "RELOADING=1", buf, sizeof(buf), &nstatus,
	    &reconciling);
	notify_until(fd, pid, "READY=1", buf, sizeof(buf), &nstatus,
	    &reconciling);
	assert_int_equal(try_connect(sock), 0);

	assert_int_equal(kill(pid, SIGTERM), 0);
	notify_until(fd, pid, "STOPPING=1", buf, sizeof(buf), &nstatus,
	    &reconciling);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd);
	tl_teardown(&t);
}

/* ---- one trashd per index ---- */

/*
 * A second trashd on the same index, with another socket, refuses at
 * once: exit 1, an error naming the first one's pid, its socket and the
 * socket's directory never made; the first goes on serving.  Once the
 * first is gone, the lock file it leaves blocks no one.
 */
static void
test_lock_second(void **state)
{
	struct tl t;
	char conf1[PATH_MAX], conf2[PATH_MAX], sock1[PATH_MAX];
	char sock2[PATH_MAX], run2[PATH_MAX], log1[PATH_MAX], log2[PATH_MAX];
	char want[64], *out;
	struct tl_entry te = { .uid = NOTIFY_UID, .name = "a",
	    .path = "home/a", .time = 100, .deleter = NOTIFY_UID,
	    .data = "a", .len = 1 };
	int64_t t0;
	size_t len;
	int status;
	pid_t p1, p2, r;

	(void)state;
	tl_setup(&t);
	(void)tl_stage(&t, &te);
	TL_SNPRINTF(conf1, sizeof(conf1), "%s/one.conf", t.root);
	TL_SNPRINTF(conf2, sizeof(conf2), "%s/two.conf", t.root);
	TL_SNPRINTF(sock1, sizeof(sock1), "%s/run/trashd.sock", t.root);
	TL_SNPRINTF(run2, sizeof(run2), "%s/run2", t.root);
	TL_SNPRINTF(sock2, sizeof(sock2), "%s/run2/trashd.sock", t.root);
	TL_SNPRINTF(log1, sizeof(log1), "%s/one.log", t.root);
	TL_SNPRINTF(log2, sizeof(log2), "%s/two.log", t.root);
	write_conf(&t, conf1, sock1);
	write_conf(&t, conf2, sock2);

	p1 = spawn(conf1, log1, NULL);
	wait_listening(sock1);
	assert_int_equal(live_count(sock1, NOTIFY_UID), 1);

	p2 = spawn(conf2, log2, NULL);
	t0 = mono_ms();
	while ((r = waitpid(p2, &status, WNOHANG)) == 0 &&
	    mono_ms() - t0 < 5000)
		msleep(10);
	if (r == 0) {
		fprintf(stderr, "the second trashd still runs after 5 s\n");
		kill(p2, SIGTERM);
		waitpid(p2, &status, 0);
		stop(p1);
		fail();
	}
	out = tl_read_file(log2, &len);
	printf("second trashd: %s", out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	TL_SNPRINTF(want, sizeof(want), "pid %d ", (int)p1);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "in use by another trashd"));
	free(out);
	assert_false(tl_exists(run2));

	/* The first one serves on. */
	assert_int_equal(waitpid(p1, &status, WNOHANG), 0);
	assert_int_equal(live_count(sock1, NOTIFY_UID), 1);
	stop(p1);

	/* Its lock went with it. */
	p2 = spawn(conf2, log2, NULL);
	wait_listening(sock2);
	assert_int_equal(live_count(sock2, NOTIFY_UID), 1);
	stop(p2);
	tl_teardown(&t);
}

/*
 * One trashd per control socket.  The socket is bound before the index is
 * opened and listens only after (front.c), and in between it answers no
 * one: a second trashd with another index took it for a stale socket,
 * unlinked it and bound its own, and clients reached the wrong daemon.
 * The window is held open here as a first trashd holds it: the test
 * holds "<socket>.lock" and has the socket bound, not listening.  The
 * second must refuse, naming the holder, and leave that socket alone.
 */
static void
test_lock_socket(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct tl t;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat before, after;
	char run[PATH_MAX], sock[PATH_MAX], lockp[PATH_MAX + 8];
	char conf[PATH_MAX], log[PATH_MAX], text[3 * PATH_MAX], want[64];
	char *out;
	int64_t t0;
	size_t len;
	int lfd, sfd, status, n;
	pid_t p, r;

	(void)state;
	tl_setup(&t);
	TL_SNPRINTF(run, sizeof(run), "%s/run", t.root);
	TL_SNPRINTF(sock, sizeof(sock), "%s/run/trashd.sock", t.root);
	TL_SNPRINTF(lockp, sizeof(lockp), "%s.lock", sock);
	TL_SNPRINTF(conf, sizeof(conf), "%s/two.conf", t.root);
	TL_SNPRINTF(log, sizeof(log), "%s/two.log", t.root);
	assert_int_equal(mkdir(run, 0755), 0);
	lfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(lfd >= 0);
	assert_int_equal(fcntl(lfd, F_SETLK, &fl), 0);
	sfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(sfd >= 0);
	TL_SNPRINTF(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	assert_int_equal(bind(sfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(lstat(sock, &before), 0);
	/* Another index, the same socket. */
	n = snprintf(text, sizeof(text), "database %s/two.db\nfilesystem "
	    "%s\nsocket %s\nretention forever\nwatermark 0%%\n", t.root,
	    t.fs, sock);
	tl_write_file(conf, text, (size_t)n);

	p = spawn(conf, log, NULL);
	t0 = mono_ms();
	while ((r = waitpid(p, &status, WNOHANG)) == 0 &&
	    mono_ms() - t0 < 5000)
		msleep(10);
	if (r == 0) {
		fprintf(stderr, "the second trashd took the socket\n");
		kill(p, SIGTERM);
		waitpid(p, &status, 0);
		fail();
	}
	out = tl_read_file(log, &len);
	printf("second trashd: %s", out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	TL_SNPRINTF(want, sizeof(want), "pid %d ", (int)getpid());
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "the same socket"));
	free(out);
	/* The socket is still the one bound here. */
	assert_int_equal(lstat(sock, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	close(sfd);
	close(lfd);
	tl_teardown(&t);
}

/* ---- audit records to the journal ---- */

static const char *
field(const struct journal_fields *jf, const char *name)
{
	size_t i, n = strlen(name);
	const char *s;

	for (i = 0; i < jf->n; i++) {
		s = jf->iov[i].iov_base;
		assert_int_equal(jf->iov[i].iov_len, strlen(s));
		if (strncmp(s, name, n) == 0 && s[n] == '=')
			return s + n + 1;
	}
	return NULL;
}

/*
 * The fields journal_audit() sends for an entry's record: each of the
 * record, the user's bytes as they are (a newline, a byte that is not
 * UTF-8), the MESSAGE escaped to one line; for a record of no entry, no
 * entry's fields.  Without the journal (trashd -d), journal_audit() says
 * so, and audit.c writes the log line instead.
 */
static void
test_journal_fields(void **state)
{
	const struct audit_rec a = { .uid = 1000, .pid = 4242,
	    .action = "restore", .result = "ok", .entry_id = 17,
	    .fs = "/home", .trash_uid = 1000, .owner_uid = 1001,
	    .name = "n\nx", .path = "alice/a\nb\xff", .detail = NULL };
	const struct audit_rec b = { .uid = 0, .pid = 0, .action = "policy",
	    .result = "ok", .entry_id = -1, .trash_uid = -1,
	    .owner_uid = -1, .detail = "quota uid=1000" };
	struct journal_fields jf;
	const char *m;

	(void)state;
	journal_audit_fields(&a, "audit: restore alice/a\nb\xff: ok", &jf);
	assert_string_equal(field(&jf, "MESSAGE_ID"),
	    "d5b718d6bf294d038a60b952ab2b1660");
	assert_string_equal(field(&jf, "PRIORITY"), "6");
	assert_string_equal(field(&jf, "SYSLOG_IDENTIFIER"), "trashd");
	assert_string_equal(field(&jf, "ACTION"), "restore");
	assert_string_equal(field(&jf, "RESULT"), "ok");
	assert_string_equal(field(&jf, "ACTOR_UID"), "1000");
	assert_string_equal(field(&jf, "ACTOR_PID"), "4242");
	assert_string_equal(field(&jf, "ENTRY_ID"), "17");
	assert_string_equal(field(&jf, "FS"), "/home");
	assert_string_equal(field(&jf, "TRASH_UID"), "1000");
	assert_string_equal(field(&jf, "OWNER_UID"), "1001");
	assert_string_equal(field(&jf, "NAME"), "n\nx");
	assert_string_equal(field(&jf, "PATH"), "alice/a\nb\xff");
	assert_null(field(&jf, "DETAIL"));
	m = field(&jf, "MESSAGE");
	assert_string_equal(m, "audit: restore alice/a\\x0ab\\xff: ok");
	assert_int_equal(jf.n, 14);
	journal_fields_free(&jf);

	journal_audit_fields(&b, "audit: uid=0 pid=0 policy quota: ok", &jf);
	assert_string_equal(field(&jf, "ACTION"), "policy");
	assert_string_equal(field(&jf, "ACTOR_UID"), "0");
	assert_string_equal(field(&jf, "DETAIL"), "quota uid=1000");
	assert_null(field(&jf, "ACTOR_PID"));	/* the kernel */
	assert_null(field(&jf, "ENTRY_ID"));
	assert_null(field(&jf, "FS"));
	assert_null(field(&jf, "TRASH_UID"));
	assert_null(field(&jf, "OWNER_UID"));
	assert_null(field(&jf, "NAME"));
	assert_null(field(&jf, "PATH"));
	assert_int_equal(jf.n, 8);
	journal_fields_free(&jf);

	journal_init(false);
	assert_true(journal_audit(&a, "x") < 0);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_ready),
		cmocka_unit_test(test_lock_second),
		cmocka_unit_test(test_lock_socket),
		cmocka_unit_test(test_journal_fields),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_trashd_service TRASHD\n");
		return 2;
	}
	trashd_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
