/* SPDX-License-Identifier: ISC */
/*
 * Who may do what over trashd's control socket, and what keeps it so
 * (e2e.h has the fixture and says where other tests go): the
 * authorisation matrix of every verb; the protocol's refusals, stalled
 * clients, many clients and the per-uid cap; the front process that
 * reads the requests (its sandbox, the malformed requests it answers,
 * the credentials it passes on, its restart); the fds of every child of
 * trashd.  A test of who may use a new verb goes here.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

/* ---- the authorisation matrix ---- */

static void
test_authz(void **state)
{
	struct env *e = *state;
	char fsb[PATH_MAX], id[32], *out = NULL;
	int64_t bid, aid;
	char *s;

	stage_str(e, UA, "doc.txt", "home/a/doc.txt", "A's doc");
	stage_str(e, UB, "secret.txt", "home/b/secret.txt", "B's secret");
	wait_count(e, UA, 1);
	wait_count(e, UB, 1);
	bid = entry_id(e, UB);
	aid = entry_id(e, UA);
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, bid);
	tl_path(&e->t, fsb, sizeof(fsb), "home/b/secret.txt");

	/* A sees its own, never B's. */
	check_rc(ctl(e, &A, &out, "list"), 0, out);
	expect_str(out, "home/a/doc.txt");
	assert_null(strstr(out, "secret"));
	free(out);
	/* Each cell: A on B's trash, or on admin-only verbs. */
	check_rc(ctl(e, &A, &out, "list", "-u", "70002"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--all"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "restore", "--id", id), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "restore", "-u", "70002", fsb), 4, out);
	free(out);
	/* By path, A's request looks in A's trash only: nothing there. */
	check_rc(ctl(e, &A, &out, "restore", fsb), 5, out);
	free(out);
	check_rc(ctl(e, &A, &out, "wipe", id), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "wipe", "-u", "70002", id), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "empty", "-u", "70002"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "quota", "-u", "70002"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "quota", "-a"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "policy", "set", "user", "70001", "quota",
	    "1G"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "policy", "get", "default"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "audit"), 4, out);
	free(out);
	/* A member of another group is no admin either. */
	check_rc(ctl(e, &NOT, &out, "audit"), 4, out);
	free(out);
	/* Nothing of B's moved. */
	assert_true(exists_rel(e, ".trash/70002/secret.txt"));
	assert_false(exists_rel(e, "home/b/secret.txt"));
	wait_count(e, UB, 1);
	/* A's own quota is fine. */
	check_rc(ctl(e, &A, &out, "quota"), 0, out);
	expect_str(out, e->t.fs);
	free(out);

	/* The admin, by group membership at connect time. */
	check_rc(ctl(e, &ADM, &out, "status", "--json"), 0, out);
	expect_str(out, "\"admin\":true");
	free(out);
	check_rc(ctl(e, &ADM, &out, "list", "-u", "70002"), 0, out);
	expect_str(out, "home/b/secret.txt");
	free(out);
	check_rc(ctl(e, &ADM, &out, "list", "-a", "--json"), 0, out);
	expect_str(out, "secret.txt");
	expect_str(out, "doc.txt");
	free(out);
	check_rc(ctl(e, &ADM, &out, "quota", "-a"), 0, out);
	expect_str(out, "70001");
	expect_str(out, "70002");
	free(out);
	/* (Not on B: a 7d retention would purge B's 2023 entry.) */
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70006",
	    "quota", "1M", "retention", "7d"), 0, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "user", "70006"), 0,
	    out);
	expect_str(out, "quota 1M, retention 7d");
	free(out);
	check_rc(ctl(e, &A, &out, "policy", "set", "default", "quota",
	    "1M"), 4, out);
	free(out);
	check_rc(ctl(e, &A, &out, "policy", "set", "default", "watermark",
	    "50%"), 4, out);
	free(out);
	/* On behalf of B: only when said explicitly. */
	check_rc(ctl(e, &ADM, &out, "restore", "--id", id), 4, out);
	expect_str(out, "in the trash of uid 70002: name that user explicitly");
	free(out);
	check_rc(ctl(e, &ADM, &out, "restore", "-u", "70002", "--id", id), 0,
	    out);
	free(out);
	s = read_rel(e, "home/b/secret.txt");
	assert_non_null(s);
	assert_string_equal(s, "B's secret");
	free(s);
	{
		struct stat st;
		char p[PATH_MAX];

		tl_path(&e->t, p, sizeof(p), "home/b");
		assert_int_equal(stat(p, &st), 0);
		/* Made by a child with B's credentials. */
		assert_int_equal(st.st_uid, UB);
	}
	/* B cannot touch A's entry either. */
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, aid);
	check_rc(ctl(e, &B, &out, "restore", "--id", id), 4, out);
	free(out);

	/* Denied requests are audited, with the peer's uid and pid. */
	check_rc(ctl(e, &ADM, &out, "audit", "-u", "70001", "-n", "1000",
	    "--json"), 0, out);
	assert_true(count_str(out, "denied") >= 13);
	expect_str(out, "\"action\":\"ctl-list\"");
	expect_str(out, "\"action\":\"ctl-audit\"");
	/* Requests carry the peer's pid (only the kernel's rows have 0). */
	for (s = strstr(out, "\"pid\":0,"); s != NULL;
	    s = strstr(s + 1, "\"pid\":0,"))
		assert_false(strncmp(s + 8, "\"action\":\"ctl-", 14) == 0);
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restore", "--json"), 0,
	    out);
	expect_str(out, "on behalf");
	free(out);
}

/* ---- the protocol: bad requests get errors, others keep working ---- */

static void
raw_send(struct proto_client *c, const void *p, size_t len)
{
	assert_int_equal(send(c->fd, p, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void
hdr(uint8_t *p, unsigned version, unsigned type, uint32_t len)
{
	p[0] = (uint8_t)(version >> 8);
	p[1] = (uint8_t)version;
	p[2] = (uint8_t)(type >> 8);
	p[3] = (uint8_t)type;
	p[4] = (uint8_t)(len >> 24);
	p[5] = (uint8_t)(len >> 16);
	p[6] = (uint8_t)(len >> 8);
	p[7] = (uint8_t)len;
}

static void
test_protocol(void **state)
{
	struct env *e = *state;
	struct proto_client good, bad;
	uint8_t buf[256];
	char *out = NULL;
	size_t i;

	assert_int_equal(raw_connect(e, &good), 0);
	assert_int_equal(raw_status(&good), MSG_OK);

	/* Garbage: not our version; refused and closed. */
	assert_int_equal(raw_connect(e, &bad), 0);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0xde ^ (i * 37));
	raw_send(&bad, buf, 64);
	assert_int_equal(raw_error(&bad), EPROTONOSUPPORT);
	assert_true(raw_closed(&bad));
	proto_close(&bad);
	assert_int_equal(raw_status(&good), MSG_OK);

	/* Another version. */
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION + 1, MSG_STATUS, 0);
	raw_send(&bad, buf, 8);
	assert_int_equal(raw_error(&bad), EPROTONOSUPPORT);
	assert_true(raw_closed(&bad));
	proto_close(&bad);

	/* Oversized. */
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION, MSG_LIST, 1U << 30);
	raw_send(&bad, buf, 8);
	assert_int_equal(raw_error(&bad), EMSGSIZE);
	assert_true(raw_closed(&bad));
	proto_close(&bad);
	assert_int_equal(raw_status(&good), MSG_OK);

	/* Truncated: 10 bytes of 50, then end of file. */
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION, MSG_LIST, 50);
	raw_send(&bad, buf, 18);
	shutdown(bad.fd, SHUT_WR);
	assert_int_equal(raw_error(&bad), EBADMSG);
	assert_true(raw_closed(&bad));
	proto_close(&bad);

	/* Malformed, unknown, and a reply as a request: answered by the
	 * front process, which forwards none of them, and closed. */
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION, MSG_LIST, 4);
	buf[8] = 0;
	buf[9] = 99;	/* no such attribute */
	buf[10] = buf[11] = 0;
	raw_send(&bad, buf, 12);
	assert_int_equal(raw_error(&bad), EBADMSG);
	assert_true(raw_closed(&bad));
	proto_close(&bad);
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION, 150, 0);
	raw_send(&bad, buf, 8);
	assert_int_equal(raw_error(&bad), EBADMSG);
	assert_true(raw_closed(&bad));
	proto_close(&bad);
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION, MSG_OK, 0);
	raw_send(&bad, buf, 8);
	assert_int_equal(raw_error(&bad), EBADMSG);
	assert_true(raw_closed(&bad));
	proto_close(&bad);
	/* A string with a NUL, a number of the wrong size. */
	assert_int_equal(raw_connect(e, &bad), 0);
	hdr(buf, PROTOCOL_VERSION, MSG_LIST, 7);
	buf[8] = 0;
	buf[9] = A_PREFIX;
	buf[10] = 0;
	buf[11] = 3;
	memcpy(buf + 12, "/\0x", 3);
	raw_send(&bad, buf, 15);
	assert_int_equal(raw_error(&bad), EBADMSG);
	assert_true(raw_closed(&bad));
	proto_close(&bad);
	/* After a good request, answered first. */
	assert_int_equal(raw_connect(e, &bad), 0);
	assert_int_equal(raw_status(&bad), MSG_OK);
	hdr(buf, PROTOCOL_VERSION, MSG_LIST, 6);
	buf[8] = 0;
	buf[9] = A_UID;
	buf[10] = 0;
	buf[11] = 2;
	buf[12] = buf[13] = 0;
	raw_send(&bad, buf, 14);
	assert_int_equal(raw_error(&bad), EBADMSG);
	assert_true(raw_closed(&bad));
	proto_close(&bad);

	/* trashd never stopped serving, and audited the refusals. */
	assert_int_equal(raw_status(&good), MSG_OK);
	proto_close(&good);
	assert_int_equal(kill(e->pid, 0), 0);
	check_rc(ctl(e, &ROOT, &out, "audit", "-n", "1000"), 0, out);
	assert_true(count_str(out, "ctl-refused") >= 4);
	assert_true(count_str(out, "malformed") >= 3);
	free(out);
}

/* ---- stalled clients time out and block nobody ---- */

static void
test_stall(void **state)
{
	struct env *e = *state;
	struct proto_client idle, partial, drip, good;
	uint8_t buf[64];
	int64_t t0, t;
	int i;

	assert_int_equal(raw_connect(e, &idle), 0);
	assert_int_equal(raw_connect(e, &partial), 0);
	assert_int_equal(raw_connect(e, &drip), 0);
	hdr(buf, PROTOCOL_VERSION, MSG_LIST, 40);
	raw_send(&partial, buf, 3);
	t0 = mono_ms();
	/* Meanwhile others are served at once. */
	for (i = 0; i < 20; i++) {
		t = mono_ms();
		assert_int_equal(raw_connect(e, &good), 0);
		assert_int_equal(raw_status(&good), MSG_OK);
		proto_close(&good);
		assert_true(mono_ms() - t < 500 * slow);
	}
	/* One byte every 300 ms: still closed by the request deadline. */
	for (i = 0; i < 8 && mono_ms() - t0 < (TIMEOUT + 2) * 1000; i++) {
		if (send(drip.fd, buf + i, 1, MSG_NOSIGNAL) != 1)
			break;
		msleep(300);
	}
	assert_true(raw_closed(&idle));
	assert_true(raw_closed(&partial));
	assert_true(raw_closed(&drip));
	t = mono_ms() - t0;
	assert_true(t >= (TIMEOUT - 1) * 1000);
	assert_true(t < (TIMEOUT + 4) * 1000);
	proto_close(&idle);
	proto_close(&partial);
	proto_close(&drip);
	assert_int_equal(raw_connect(e, &good), 0);
	assert_int_equal(raw_status(&good), MSG_OK);
	proto_close(&good);
}

/* ---- many clients at once; the per-uid cap ---- */

#define CLIENTS		48
#define REQUESTS	25

static int
client_child(struct env *e, const struct who *w)
{
	static const uint16_t verbs[] = { MSG_STATUS, MSG_LIST, MSG_QUOTA };
	struct proto_msg *m = xmalloc(sizeof(*m));
	struct proto_client c;
	struct proto_buf b;
	const char *why;
	int i;

	drop_to(w);
	if (proto_connect(&c, e->sock, 10000) < 0)
		return 1;
	for (i = 0; i < REQUESTS; i++) {
		proto_init(&b, verbs[i % 3]);
		if (proto_send(&c, &b) < 0)
			return 2;
		do {
			if (proto_recv(&c, m, &why) < 0)
				return 3;
		} while (m->type != MSG_OK && m->type != MSG_ERROR);
		if (m->type != MSG_OK)
			return 4;
	}
	proto_close(&c);
	return 0;
}

static void
test_concurrency(void **state)
{
	struct env *e = *state;
	struct proto_client *cs;
	struct who w;
	pid_t pids[CLIENTS], pid;
	int i, status, ok = 0, refused = 0;
	int p[2];

	for (i = 0; i < CLIENTS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			w = (struct who){ (uid_t)(UA + i % 6),
			    (gid_t)(UA + i % 6), { (gid_t)(UA + i % 6) }, 1 };
			_exit(client_child(e, &w));
		}
	}
	for (i = 0; i < CLIENTS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}

	/* One uid holding 70 connections: 64 served, the rest refused. */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		w = (struct who){ 70009, 70009, { 70009 }, 1 };
		drop_to(&w);
		cs = calloc(70, sizeof(*cs));
		for (i = 0; i < 70; i++) {
			if (proto_connect(&cs[i], e->sock, 5000) < 0)
				_exit(1);
			status = raw_status(&cs[i]);
			if (status == MSG_OK)
				ok++;
			else if (status == -EUSERS)
				refused++;
		}
		dprintf(p[1], "%d %d\n", ok, refused);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	{
		char line[64] = "";
		ssize_t n = read(p[0], line, sizeof(line) - 1);

		assert_true(n > 0);
		line[n] = '\0';
		assert_int_equal(sscanf(line, "%d %d", &ok, &refused), 2);
	}
	close(p[0]);
	assert_int_equal(ok, 64);
	assert_int_equal(refused, 6);
}

/* ---- issue 12: privilege separation, the front process (wt-privsep) ---- */

/* trashd's front process; 0 if none. */
static pid_t
pv_front(struct env *e)
{
	return trashd_child(e, "trashd-front");
}

/* The front, once it has taken its user (it forks, then drops). */
static pid_t
pv_front_wait(struct env *e, int ms)
{
	char p[64], line[256];
	pid_t pid = 0;
	unsigned ruid = 0;
	FILE *f;
	int i;

	for (i = 0; i < ms / 10 * slow; i++, msleep(10)) {
		if ((pid = pv_front(e)) == 0)
			continue;
		TL_SNPRINTF(p, sizeof(p), "/proc/%d/status", (int)pid);
		if ((f = fopen(p, "re")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "Uid: %u", &ruid) == 1)
				break;
		fclose(f);
		if (ruid != 0)
			return pid;
	}
	return 0;
}

/* "Uid:" or "Gid:" of /proc/PID/status: real, effective, saved, fs. */
static void
pv_ids(pid_t pid, const char *name, unsigned ids[4])
{
	char p[64], line[256];
	size_t len = strlen(name);
	FILE *f;
	int n = 0;

	TL_SNPRINTF(p, sizeof(p), "/proc/%d/status", (int)pid);
	assert_non_null(f = fopen(p, "re"));
	while (fgets(line, sizeof(line), f) != NULL && n != 4)
		if (strncmp(line, name, len) == 0 && line[len] == ':')
			n = sscanf(line + len + 1, "%u %u %u %u", &ids[0],
			    &ids[1], &ids[2], &ids[3]);
	fclose(f);
	assert_int_equal(n, 4);
}

/*
 * The process that reads the clients' requests holds nothing: not root
 * (none of its ids), no capabilities (its bounding set at most the
 * daemon's), no_new_privs, chrooted into an empty directory, and of fds
 * only sockets (the listening one, its channel, its clients') and its
 * event loop's; no index, no trash directory.  Old code: no such process.
 */
static void
test_front_sandbox(void **state)
{
	struct env *e = *state;
	struct proto_client c;
	char p[PATH_MAX], link[PATH_MAX], empty[PATH_MAX];
	unsigned ids[4];
	struct dirent *de;
	pid_t f;
	ssize_t n;
	DIR *d;
	int i, nsock = 0;

	/* A client connected: its socket is the front's, not trashd's. */
	assert_int_equal(raw_connect(e, &c), 0);
	assert_int_equal(raw_status(&c), MSG_OK);
	assert_true((f = pv_front_wait(e, 2000)) > 0);
	pv_ids(f, "Uid", ids);
	for (i = 0; i < 4; i++)
		assert_int_not_equal(ids[i], 0);
	pv_ids(f, "Gid", ids);
	for (i = 0; i < 4; i++)
		assert_int_not_equal(ids[i], 0);
	assert_int_equal(proc_status_hex(f, "CapEff"), 0);
	assert_int_equal(proc_status_hex(f, "CapPrm"), 0);
	assert_int_equal(proc_status_hex(f, "CapInh"), 0);
	assert_int_equal(proc_status_hex(f, "CapAmb"), 0);
	assert_int_equal(proc_status_hex(f, "CapBnd") &
	    ~proc_status_hex(e->pid, "CapBnd"), 0);
	assert_int_equal(proc_status_hex(f, "NoNewPrivs"), 1);
	/* No supplementary groups. */
	TL_SNPRINTF(p, sizeof(p), "/proc/%d/status", (int)f);
	{
		char *st = NULL, line[256];
		FILE *fp;

		assert_non_null(fp = fopen(p, "re"));
		while (fgets(line, sizeof(line), fp) != NULL)
			if (strncmp(line, "Groups:", 7) == 0)
				st = strdup(line);
		fclose(fp);
		assert_non_null(st);
		assert_int_equal(strspn(st + 7, " \t\n"), strlen(st + 7));
		free(st);
	}

	/* Its root: an empty directory, /var/empty or beside the socket. */
	TL_SNPRINTF(p, sizeof(p), "/proc/%d/root", (int)f);
	assert_true((n = readlink(p, link, sizeof(link) - 1)) > 0);
	link[n] = '\0';
	TL_SNPRINTF(empty, sizeof(empty), "%s/run/empty", e->t.root);
	if (strcmp(link, "/var/empty") != 0)
		assert_string_equal(link, empty);
	assert_non_null(d = opendir(link));
	while ((de = readdir(d)) != NULL)
		assert_true(strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0);
	closedir(d);

	TL_SNPRINTF(p, sizeof(p), "/proc/%d/fd", (int)f);
	assert_non_null(d = opendir(p));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		/* valgrind's own, kept at the top of the fd range. */
		if (slow > 1 && atoi(de->d_name) >= 1024)
			continue;
		TL_SNPRINTF(p, sizeof(p), "/proc/%d/fd/%s", (int)f, de->d_name);
		if ((n = readlink(p, link, sizeof(link) - 1)) < 0)
			continue;
		link[n] = '\0';
		/* Nothing of the index, nothing of the trash. */
		assert_null(strstr(link, e->t.dbdir));
		assert_null(strstr(link, e->t.fs));
		if (atoi(de->d_name) < 3)
			continue;	/* as trashd was started */
		if (strncmp(link, "socket:", 7) == 0) {
			nsock++;
			continue;
		}
		if (strncmp(link, "anon_inode:", 11) == 0 ||
		    strncmp(link, "pipe:", 5) == 0)
			continue;	/* libevent's epoll and wakeup */
		fprintf(stderr, "front %d: fd %s: %s\n", (int)f, de->d_name,
		    link);
		fail();
	}
	closedir(d);
	/* The listener, the channel, the client and its pair. */
	assert_true(nsock >= 4);
	proto_close(&c);
}

/*
 * One raw request on a new connection: its ERROR's errno, then closed at
 * once (well before client-timeout, which closes an idle one anyway).
 */
static int64_t
pv_bad(struct env *e, const uint8_t *buf, size_t len)
{
	struct proto_client c;
	int64_t err, t0 = mono_ms();

	assert_int_equal(raw_connect(e, &c), 0);
	raw_send(&c, buf, len);
	err = raw_error(&c);
	assert_true(raw_closed(&c));
	assert_true(mono_ms() - t0 < TIMEOUT * 1000 * 3 / 4);
	proto_close(&c);
	return err;
}

/*
 * Malformed requests are the front's to answer: garbage, an over-long
 * frame, an unknown type, a well-framed request with a bad attribute each
 * get an ERROR and the connection closed, the front stays up (the same
 * process), and a client connected all along is served throughout.  Old
 * code: the parent answered the last two and kept the connection open.
 */
static void
test_front_malformed(void **state)
{
	struct env *e = *state;
	struct proto_client good;
	uint8_t buf[64];
	char *out = NULL;
	pid_t f;
	size_t i;

	f = pv_front_wait(e, 2000);
	assert_int_equal(raw_connect(e, &good), 0);
	assert_int_equal(raw_status(&good), MSG_OK);

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0x5a ^ (i * 91));
	assert_int_equal(pv_bad(e, buf, sizeof(buf)), EPROTONOSUPPORT);
	assert_int_equal(raw_status(&good), MSG_OK);
	hdr(buf, PROTOCOL_VERSION, MSG_STATUS, PROTO_MSG_MAX + 1);
	assert_int_equal(pv_bad(e, buf, 8), EMSGSIZE);
	assert_int_equal(raw_status(&good), MSG_OK);
	hdr(buf, PROTOCOL_VERSION, MSG_REQ_LAST + 1, 0);
	assert_int_equal(pv_bad(e, buf, 8), EBADMSG);
	hdr(buf, PROTOCOL_VERSION, MSG_ENTRY, 0);
	assert_int_equal(pv_bad(e, buf, 8), EBADMSG);
	/* A number of 2 bytes. */
	hdr(buf, PROTOCOL_VERSION, MSG_QUOTA, 6);
	buf[8] = 0;
	buf[9] = A_UID;
	buf[10] = 0;
	buf[11] = 2;
	buf[12] = buf[13] = 0;
	assert_int_equal(pv_bad(e, buf, 14), EBADMSG);
	assert_int_equal(raw_status(&good), MSG_OK);

	/* The same front answered them all, and the refusals are audited. */
	assert_true(f > 0);
	assert_int_equal(pv_front(e), f);
	proto_close(&good);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "ctl-refused", "-n",
	    "100"), 0, out);
	assert_true(count_str(out, "ctl-refused") >= 5);
	expect_str(out, "unknown request type");
	expect_str(out, "malformed quota request");
	free(out);
}

/*
 * The credentials are the client's as the front read them at accept, not
 * the front's (SO_PEERCRED of the pair would say the front's uid): user A
 * is refused B's trash, audited as A with A's pid; A's own is A's; an
 * admin by group may.  Old code: no front process.
 */
static void
test_front_creds(void **state)
{
	struct env *e = *state;
	char *out = NULL, want[64];
	int status, p[2];
	pid_t pid, f;
	unsigned fuid[4];

	assert_true((f = pv_front_wait(e, 2000)) > 0);
	pv_ids(f, "Uid", fuid);
	assert_int_not_equal(fuid[0], UA);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct proto_client c;
		struct proto_buf b;
		int64_t err;

		close(p[0]);
		drop_to(&A);
		if (raw_connect(e, &c) < 0)
			_exit(1);
		proto_init(&b, MSG_LIST);
		proto_num(&b, A_UID, UB);
		if (proto_send(&c, &b) < 0)
			_exit(2);
		err = raw_error(&c);
		/* Then its own, on the same connection. */
		dprintf(p[1], "%" PRId64 " %d\n", err, raw_status(&c));
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	{
		char line[64] = "";
		ssize_t n = read(p[0], line, sizeof(line) - 1);
		long long err;
		int st;

		assert_true(n > 0);
		line[n] = '\0';
		assert_int_equal(sscanf(line, "%lld %d", &err, &st), 2);
		assert_int_equal(err, EPERM);
		assert_int_equal(st, MSG_OK);
	}
	close(p[0]);
	/* The denial is A's, with the pid of A's process. */
	TL_SNPRINTF(want, sizeof(want), " %d ctl-list", (int)pid);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "ctl-list"), 0, out);
	expect_str(out, want);
	expect_str(out, "70001");
	expect_str(out, "denied: only an admin");
	free(out);
	/* Through trashctl too: A may not, the admin by group may. */
	check_rc(ctl(e, &A, &out, "list", "-u", "70002"), 4, out);
	expect_str(out, "only an admin");
	free(out);
	check_rc(ctl(e, &ADM, &out, "list", "-u", "70002"), 0, out);
	free(out);
}

/*
 * kill -9 the front: the daemon logs it and forks a new one; clients
 * connected to the old one are disconnected; status answers again within
 * two seconds.  Old code: no front to kill.
 */
static void
test_front_restart(void **state)
{
	struct env *e = *state;
	struct proto_client c;
	char *out = NULL, *log, want[96];
	pid_t f, g = 0;
	int64_t t0;
	int i;

	assert_int_equal(raw_connect(e, &c), 0);
	assert_int_equal(raw_status(&c), MSG_OK);
	assert_true((f = pv_front_wait(e, 2000)) > 0);
	t0 = mono_ms();
	assert_int_equal(kill(f, SIGKILL), 0);
	assert_true(raw_closed(&c));
	proto_close(&c);
	for (i = 0; i < 200 * slow; i++) {
		if ((g = pv_front(e)) != 0 && g != f &&
		    ctl(e, &B, &out, "status") == 0)
			break;
		free(out);
		out = NULL;
		msleep(10);
	}
	free(out);
	assert_true(g != 0 && g != f);
	assert_true(mono_ms() - t0 < 2000 * slow);
	check_rc(ctl(e, &B, &out, "status"), 0, out);
	free(out);
	assert_int_equal(kill(e->pid, 0), 0);
	{
		size_t len;

		log = tl_read_file(e->log, &len);
	}
	TL_SNPRINTF(want, sizeof(want), "front: pid %d killed by signal 9",
	    (int)f);
	expect_str(log, want);
	free(log);
	/* The new one is as jailed as the first. */
	assert_true((g = pv_front_wait(e, 2000)) > 0);
	assert_int_equal(proc_status_hex(g, "CapEff"), 0);
}

/* ---- issue 22: every child holds exactly the fds it was given ---- */

/* A unix socket as /proc/net/unix shows it. */
struct fk_unix {
	unsigned long	 ino;
	unsigned	 flags;		/* __SO_ACCEPTCON: listening */
	unsigned	 type;		/* SOCK_STREAM, SOCK_SEQPACKET */
	char		 path[PATH_MAX];
};

/* One fd of a process, by kind. */
struct fk_fd {
	int		 fd;
	char		 link[PATH_MAX];	/* as readlink(2) says */
	enum { FK_FILE, FK_PIPE, FK_ANON, FK_LISTEN, FK_STREAM,
	    FK_SEQPACKET, FK_SOCKET } kind;
	bool		 shared;	/* the daemon holds the same */
};

#define FK_MAX		256
#define FK_ACCEPTCON	0x10000

static const char *const fk_kinds[] = { "file", "pipe", "anon_inode",
    "listening socket", "connected stream socket", "seqpacket socket",
    "other socket" };

/* Every unix socket of the network namespace; their number in *@n. */
static struct fk_unix *
fk_unix_table(size_t *n)
{
	struct fk_unix *t = NULL, u;
	char line[PATH_MAX + 128];
	FILE *f;

	*n = 0;
	assert_non_null(f = fopen("/proc/net/unix", "re"));
	while (fgets(line, sizeof(line), f) != NULL) {
		memset(&u, 0, sizeof(u));
		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*x %*x %x %x %*x %lu %4095s", &u.flags,
		    &u.type, &u.ino, u.path) < 3)
			continue;
		t = xreallocarray(t, *n + 1, sizeof(*t));
		t[(*n)++] = u;
	}
	fclose(f);
	return t;
}

/*
 * The fds of @pid from 3 up (0-2 are as trashd was started, checked
 * against the daemon's), each by kind; valgrind's own, at the top of the
 * range, left out.  Their number.
 */
static size_t
fk_list(struct env *e, pid_t pid, struct fk_fd *v)
{
	char p[64], q[64], daemon_link[PATH_MAX];
	struct fk_unix *ut;
	struct dirent *de;
	unsigned long ino;
	size_t n = 0, nu, i;
	ssize_t len;
	DIR *d;
	int fd;

	ut = fk_unix_table(&nu);
	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	assert_non_null(d = opendir(p));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (slow > 1 && fd >= 1024)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)pid, fd);
		assert_true(n < FK_MAX);
		if ((len = readlink(p, v[n].link, sizeof(v[n].link) - 1)) < 0)
			continue;	/* closed meanwhile */
		v[n].link[len] = '\0';
		v[n].fd = fd;
		/*
		 * The same socket as one of the daemon's (a pipe's two ends
		 * are one inode, a socketpair's two).
		 */
		v[n].shared = false;
		if (strncmp(v[n].link, "socket:", 7) == 0) {
			DIR *dd;
			struct dirent *dde;

			snprintf(q, sizeof(q), "/proc/%d/fd", (int)e->pid);
			assert_non_null(dd = opendir(q));
			while (!v[n].shared && (dde = readdir(dd)) != NULL) {
				TL_SNPRINTF(q, sizeof(q), "/proc/%d/fd/%s",
				    (int)e->pid, dde->d_name);
				if ((len = readlink(q, daemon_link,
				    sizeof(daemon_link) - 1)) < 0)
					continue;
				daemon_link[len] = '\0';
				v[n].shared = strcmp(daemon_link,
				    v[n].link) == 0;
			}
			closedir(dd);
		}
		if (fd < 3) {
			/* As the daemon's: what trashd was started with. */
			snprintf(q, sizeof(q), "/proc/%d/fd/%d", (int)e->pid,
			    fd);
			assert_true((len = readlink(q, daemon_link,
			    sizeof(daemon_link) - 1)) > 0);
			daemon_link[len] = '\0';
			assert_string_equal(v[n].link, daemon_link);
			continue;
		}
		if (strncmp(v[n].link, "pipe:", 5) == 0)
			v[n].kind = FK_PIPE;
		else if (strncmp(v[n].link, "anon_inode:", 11) == 0)
			v[n].kind = FK_ANON;
		else if (sscanf(v[n].link, "socket:[%lu]", &ino) == 1) {
			v[n].kind = FK_SOCKET;
			for (i = 0; i < nu; i++) {
				if (ut[i].ino != ino)
					continue;
				if (ut[i].flags & FK_ACCEPTCON)
					v[n].kind = FK_LISTEN;
				else if (ut[i].type == SOCK_STREAM)
					v[n].kind = FK_STREAM;
				else if (ut[i].type == SOCK_SEQPACKET)
					v[n].kind = FK_SEQPACKET;
				if (ut[i].path[0] != '\0')
					snprintf(v[n].link, sizeof(v[n].link),
					    "%s", ut[i].path);
			}
		} else
			v[n].kind = FK_FILE;
		n++;
	}
	closedir(d);
	free(ut);
	return n;
}

static void
fk_print(const char *who, pid_t pid, const struct fk_fd *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %d: fd %d: %s: %s%s\n", who, (int)pid,
		    v[i].fd, fk_kinds[v[i].kind], v[i].link,
		    v[i].shared ? " (the daemon's too)" : "");
}

/* Is @path @dir or below it? */
static bool
fk_under(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return strncmp(path, dir, len) == 0 && (path[len] == '\0' ||
	    path[len] == '/');
}

/*
 * A worker's fds (the wipe worker, a restore child): its one channel to
 * the daemon (a pipe or a socket, never one the daemon holds too: that
 * would be an inherited one of the daemon's) and files under @dir only.
 * No listening socket, no client, no front channel, nothing else.
 */
static bool
fk_worker_ok(struct env *e, const char *who, pid_t pid, const char *dir)
{
	struct fk_fd *v = xcalloc(FK_MAX, sizeof(*v));
	size_t n, i, chan = 0, bad = 0;

	n = fk_list(e, pid, v);
	for (i = 0; i < n; i++) {
		if (v[i].kind == FK_FILE && fk_under(v[i].link, dir))
			continue;
		if ((v[i].kind == FK_PIPE || v[i].kind == FK_STREAM ||
		    v[i].kind == FK_SEQPACKET) && !v[i].shared && chan++ == 0)
			continue;
		bad++;
	}
	if (bad > 0 || chan != 1) {
		fprintf(stderr, "%s %d: want one channel and files under %s; "
		    "has:\n", who, (int)pid, dir);
		fk_print(who, pid, v, n);
	}
	free(v);
	return bad == 0 && chan == 1;
}

/*
 * The front: the listening socket (shared: the daemon keeps it for the
 * next front), its channel (SOCK_SEQPACKET, its own), two sockets per
 * client (the client's, and its pair's end towards the daemon), its event
 * loop's own; nothing of the daemon's but the listener.
 */
static bool
fk_front_ok(struct env *e, pid_t pid, size_t clients, bool show)
{
	struct fk_fd *v = xcalloc(FK_MAX, sizeof(*v));
	size_t n, i, listen = 0, chan = 0, stream = 0, bad = 0;

	n = fk_list(e, pid, v);
	for (i = 0; i < n; i++) {
		if (v[i].kind == FK_LISTEN && v[i].shared &&
		    strcmp(v[i].link, e->sock) == 0)
			listen++;
		else if (v[i].shared)
			bad++;
		else if (v[i].kind == FK_SEQPACKET)
			chan++;
		else if (v[i].kind == FK_STREAM)
			stream++;
		else if (v[i].kind != FK_ANON && v[i].kind != FK_PIPE)
			bad++;
	}
	if (show) {
		fprintf(stderr, "front %d: want the listener, one channel, "
		    "%zu client sockets; has:\n", (int)pid, 2 * clients);
		fk_print("front", pid, v, n);
	}
	free(v);
	return listen == 1 && chan == 1 && stream == 2 * clients && bad == 0;
}

/*
 * Issue 22's finding: the wipe worker held the listening control socket,
 * the clients' connections and the front's channel, all inherited from
 * the daemon.  With two clients connected, a restore child alive (its
 * destination a FUSE mount that never answers) and a wipe in progress,
 * each child's fds, by kind, are exactly the ones it was given.
 */
static void
child_fds(struct env *e)
{
	const size_t len = 4 * 1024 * 1024;
	struct proto_client c1, c2;
	char p[PATH_MAX], wipedir[PATH_MAX], rel[64], id[32];
	char *data, *conf, *p2;
	pid_t w, r = 0, f;
	size_t clen;
	bool fuse;
	int i;

	/*
	 * Restarted, under the seccomp filter if asked, with the idle
	 * clients kept past setup()'s client-timeout (the daemon would end
	 * them after 2 s, before valgrind's trashd gets to the wipe).
	 */
	conf = tl_read_file(e->conf, &clen);
	assert_non_null(p2 = strstr(conf, "client-timeout "));
	assert_memory_equal(p2, "client-timeout 2s\n", 18);	/* TIMEOUT */
	memcpy(p2, "client-timeout 9m", 17);
	tl_write_file(e->conf, conf, clen);
	free(conf);
	restart_with(e, "wipe-rate 1M\nrestore-timeout 60s\n");
	mkdir_as(e, "home/a", UA, 0755);
	mkdir_as(e, "home/a/fz", UA, 0755);
	stage_str(e, UA, "hung", "home/a/fz/hung", "hung");
	data = xcalloc(1, len);
	memset(data, 'x', len);
	stage(e, UB, "big", "home/b/big", 1700000000, data, len, 0600);
	free(data);
	wait_count(e, UA, 1);
	wait_count(e, UB, 1);

	/* Two clients, connected and answered, that stay. */
	assert_int_equal(raw_connect(e, &c1), 0);
	assert_int_equal(raw_status(&c1), MSG_OK);
	assert_int_equal(raw_connect(e, &c2), 0);
	assert_int_equal(raw_status(&c2), MSG_OK);

	/* A restore that hangs in its child, a third client meanwhile. */
	tl_path(&e->t, p, sizeof(p), "home/a/fz");
	if ((fuse = dead_mount(e, p, UA))) {
		snprintf(id, sizeof(id), "%" PRId64,
		    entry_id_named(e, UA, "hung"));
		job_start(e, &(const struct run){ .as = &A },
		    ARGS("restore", "--id", id), &e->jobs[0]);
		for (i = 0; i < 500 * slow && (r = trashd_child(e,
		    "trashd-restore")) == 0; i++)
			msleep(10);
		assert_true(r > 0);
	} else {
		fprintf(stderr, "no FUSE here (%s): no restore child looked "
		    "at\n", strerror(errno));
	}

	/* A wipe of 4 MiB at 1 MiB/s. */
	w = wipe_started(e, &B, UB, rel, sizeof(rel));

	tl_path(&e->t, wipedir, sizeof(wipedir), ".trash/.wipe");
	assert_true(fk_worker_ok(e, "wipe worker", w, wipedir));
	if (fuse)
		assert_true(fk_worker_ok(e, "restore child", r, e->t.fs));
	/* The clients: the two raw ones, and the hung restore's. */
	assert_true((f = pv_front(e)) > 0);
	for (i = 0; i < 200 * slow && !fk_front_ok(e, f, fuse ? 3 : 2,
	    false); i++)
		msleep(10);
	assert_true(fk_front_ok(e, f, fuse ? 3 : 2, i == 200 * slow));

	proto_close(&c1);
	proto_close(&c2);
	assert_true(wait_gone(e, rel, 15000));
	audit_says(e, "wiped", "name=\"big\"", 5000);
}

static void
test_child_fds(void **state)
{
	child_fds(*state);
}

/*
 * The same where close_range(2) fails: the children's fds were closed by
 * it alone, its result unchecked, so each kept every fd of the daemon's.
 */
static void
test_child_fds_no_close_range(void **state)
{
	start_no_close_range = true;
	child_fds(*state);
	start_no_close_range = false;
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_authz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protocol, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrency, setup,
		    teardown),
		/* issue 12: privilege separation, the front (wt-privsep) */
		cmocka_unit_test_setup_teardown(test_front_sandbox, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_front_malformed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_front_creds, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_front_restart, setup,
		    teardown),
		/* issue 22: each child's fds, exactly those it was given */
		cmocka_unit_test_setup_teardown(test_child_fds, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_child_fds_no_close_range,
		    setup, teardown),
	};

	e2e_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
