/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer target: the control socket's parser and dispatcher.  One
 * in-process trashd on a scratch tree (tmpfs), one connection per input
 * over a socketpair.  The first byte picks the peer (a user, another
 * user, an admin, root); the rest is what the peer sends.  Whatever it
 * sends, trashd must answer only with well-formed messages, and must
 * neither crash nor leak (ASan/UBSan, libFuzzer's -detect_leaks).
 *
 * Also built without libFuzzer as the corpus replay of the normal test run
 * (replay.c provides main()).
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "proto.h"
#include "trashd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trashd fz_d;
static struct event_base *fz_base;
static char fz_root[64];

/* The seeds name paths under this root; one process at a time uses it. */
#define FZ_ROOT		"/dev/shm/trashd-fuzz"

static int
fz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

/* FZ_ROOT if no other fuzzer holds it, else a private one. */
static void
fz_make_root(void)
{
	int fd = open(FZ_ROOT ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
		/* Held until exit. */
		snprintf(fz_root, sizeof(fz_root), "%s", FZ_ROOT);
		(void)nftw(fz_root, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
		if (mkdir(fz_root, 0755) == 0)
			return;
	}
	snprintf(fz_root, sizeof(fz_root), "%s-XXXXXX", FZ_ROOT);
	if (mkdtemp(fz_root) == NULL)
		abort();
}

static void
fz_cleanup(void)
{
	(void)nftw(fz_root, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static void
fz_stage(uint32_t uid, const char *name, const char *path)
{
	char dir[256], tmp[256], dst[512], rec[512];
	int fd, n;

	snprintf(dir, sizeof(dir), "%s/fs/.trash/%u", fz_root, uid);
	(void)mkdir(dir, 0700);
	if (chown(dir, uid, uid) < 0)
		abort();
	snprintf(tmp, sizeof(tmp), "%s/fs/stage", fz_root);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) < 0)
		abort();
	if (write(fd, "data", 4) != 4 || fchown(fd, uid, uid) < 0)
		abort();
	n = snprintf(rec, sizeof(rec), "1700000000.000000000 %u %s", uid,
	    path);
	(void)fsetxattr(fd, TRASHBIN_XATTR, rec, (size_t)n, 0);
	close(fd);
	if (rename(tmp, dst) < 0)
		abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct config *c;
	char p[256], err[256];

	(void)argc;
	(void)argv;
	log_init(0, 0);
	fz_make_root();
	atexit(fz_cleanup);
	snprintf(p, sizeof(p), "%s/fs", fz_root);
	(void)mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/fs/.trash", fz_root);
	(void)mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/db", fz_root);
	(void)mkdir(p, 0700);
	fz_stage(4242, "a", "home/u/a");
	fz_stage(4242, "b", "home/u/dir/b");
	fz_stage(4242, "c", "home/u/../../etc/passwd");
	fz_stage(4343, "d", "home/v/d");
	c = config_default();
	free(c->database);
	xasprintf(&c->database, "%s/db/index.db", fz_root);
	free(c->socket);
	c->socket = xstrdup("");	/* no listener: connections by hand */
	c->fs = xcalloc(1, sizeof(*c->fs));
	xasprintf(&c->fs[0].path, "%s/fs", fz_root);
	c->fs[0].watermark = -1;
	c->nfs = 1;
	c->retention = 0;
	c->watermark = 0;
	c->client_timeout = 5;
	if ((fz_base = event_base_new()) == NULL)
		abort();
	if (daemon_open(&fz_d, c, fz_base, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz: %s\n", err);
		abort();
	}
	if (control_init(&fz_d) < 0)
		abort();
	return 0;
}

/* Everything trashd sent must parse as replies. */
static void
fz_check_output(const uint8_t *buf, size_t len)
{
	static struct proto_msg m;
	struct proto_hdr h;
	const char *why;
	size_t off = 0;

	while (len - off >= PROTO_HDR_LEN) {
		if (proto_parse_hdr(buf + off, &h) < 0)
			abort();
		if (len - off - PROTO_HDR_LEN < h.len)
			abort();	/* trashd never cuts a message */
		if (h.type < MSG_OK || h.type > MSG_REP_LAST ||
		    proto_parse(&h, buf + off + PROTO_HDR_LEN, &m, &why) < 0)
			abort();
		off += PROTO_HDR_LEN + h.len;
	}
	if (off != len)
		abort();
}

static size_t
fz_drain(int fd, uint8_t **out, size_t *cap, size_t len)
{
	ssize_t n;

	for (;;) {
		if (len + 65536 > *cap) {
			*cap = (len + 65536) * 2;
			if ((*out = realloc(*out, *cap)) == NULL)
				abort();
		}
		n = recv(fd, *out + len, *cap - len, MSG_DONTWAIT);
		if (n <= 0)
			return len;
		len += (size_t)n;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uid_t uids[] = { 4242, 4343, 5000, 0 };
	struct peer p = { 0 };
	const uint8_t *in = data + 1;
	size_t left;
	ssize_t n;
	uint8_t *out = NULL;
	size_t cap = 0, len = 0;
	int sv[2], i;

	if (size < 1)
		return 0;
	left = size - 1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0, sv) < 0)
		abort();
	p.uid = uids[data[0] & 3];
	p.gid = p.uid;
	p.pid = 1;
	p.admin = p.uid == 0 || (data[0] & 4);
	p.ngroups = 1;
	p.groups = xcalloc(1, sizeof(*p.groups));
	p.groups[0] = p.gid;
	(void)control_conn_new(&fz_d, sv[0], &p);
	if (left == 0)
		shutdown(sv[1], SHUT_WR);
	/* Send it all, then shut our side; drain the replies meanwhile. */
	for (i = 0; i < 20000 && control_nconns(&fz_d) > 0; i++) {
		if (left > 0) {
			n = send(sv[1], in, left, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n > 0) {
				in += n;
				left -= (size_t)n;
			} else if (n < 0 && errno != EAGAIN) {
				left = 0;	/* closed on us */
			}
			if (left == 0)
				shutdown(sv[1], SHUT_WR);
		}
		event_base_loop(fz_base, EVLOOP_NONBLOCK);
		len = fz_drain(sv[1], &out, &cap, len);
		if (i > 100)
			usleep(100);
	}
	if (control_nconns(&fz_d) > 0)
		abort();	/* a connection that never ends */
	len = fz_drain(sv[1], &out, &cap, len);
	close(sv[1]);
	fz_check_output(out, len);
	free(out);
	return 0;
}
