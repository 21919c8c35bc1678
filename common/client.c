/* SPDX-License-Identifier: ISC */
/*
 * The client side of the control socket: connect with a timeout, send a
 * request, read the reply messages one by one (read ahead: a list of
 * 100,000 entries is not 200,000 system calls).  Never exits, never
 * prints: the PAM module runs inside login.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

static int
proto_wait(struct proto_client *c, short events)
{
	struct pollfd pfd = { .fd = c->fd, .events = events };
	int n;

	do
		n = poll(&pfd, 1, c->timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	return 0;
}

int
proto_connect(struct proto_client *c, const char *path, int timeout_ms)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t sl = sizeof(sun);
	int err = 0, r;

	c->fd = -1;
	c->timeout_ms = timeout_ms;
	c->roff = c->rlen = 0;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return -errno;
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (errno != EINPROGRESS && errno != EAGAIN) {
			r = -errno;
			goto fail;
		}
		if ((r = proto_wait(c, POLLOUT)) < 0)
			goto fail;
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0) {
			r = -errno;
			goto fail;
		}
		if (err != 0) {
			r = -err;
			goto fail;
		}
	}
	return 0;
fail:
	close(c->fd);
	c->fd = -1;
	return r;
}

void
proto_close(struct proto_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int
proto_send(struct proto_client *c, struct proto_buf *b)
{
	int len = proto_finish(b), r;
	size_t off = 0;
	ssize_t n;

	if (len < 0)
		return len;
	while (off < (size_t)len) {
		n = send(c->fd, b->data + off, (size_t)len - off,
		    MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((r = proto_wait(c, POLLOUT)) < 0)
			return r;
	}
	return 0;
}

/* At least @need bytes in rbuf from roff (@need: one message at most). */
static int
proto_fill(struct proto_client *c, size_t need)
{
	ssize_t n;
	int r;

	if (c->roff + need > sizeof(c->rbuf)) {
		memmove(c->rbuf, c->rbuf + c->roff, c->rlen);
		c->roff = 0;
	}
	while (c->rlen < need) {
		n = recv(c->fd, c->rbuf + c->roff + c->rlen,
		    sizeof(c->rbuf) - c->roff - c->rlen, 0);
		if (n > 0) {
			c->rlen += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;	/* EOF mid-message */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((r = proto_wait(c, POLLIN)) < 0)
			return r;
	}
	return 0;
}

/* The next message; -EBADMSG with *@why when trashd sent nonsense. */
int
proto_recv(struct proto_client *c, struct proto_msg *m, const char **why)
{
	struct proto_hdr h;
	int r;

	*why = NULL;
	if ((r = proto_fill(c, PROTO_HDR_LEN)) < 0)
		return r;
	if ((r = proto_parse_hdr(c->rbuf + c->roff, &h)) < 0) {
		*why = r == -EPROTONOSUPPORT ? "protocol version mismatch" :
		    "reply too long";
		return r;
	}
	if ((r = proto_fill(c, PROTO_HDR_LEN + h.len)) < 0)
		return r;
	r = proto_parse(&h, c->rbuf + c->roff + PROTO_HDR_LEN, m, why);
	c->roff += PROTO_HDR_LEN + h.len;
	c->rlen -= PROTO_HDR_LEN + h.len;
	if (c->rlen == 0)
		c->roff = 0;
	return r;
}
