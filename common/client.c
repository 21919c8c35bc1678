/* SPDX-License-Identifier: ISC */
/*
 * The client side of the control socket: connect with a timeout, send a
 * request, read the reply messages one by one.  Never exits, never
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

static int
proto_io(struct proto_client *c, uint8_t *p, size_t len, bool out)
{
	ssize_t n;
	size_t off = 0;
	int r;

	while (off < len) {
		if (out)
			n = send(c->fd, p + off, len - off, MSG_NOSIGNAL);
		else
			n = recv(c->fd, p + off, len - off, 0);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;	/* EOF mid-message */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((r = proto_wait(c, out ? POLLOUT : POLLIN)) < 0)
			return r;
	}
	return 0;
}

int
proto_send(struct proto_client *c, struct proto_buf *b)
{
	int len = proto_finish(b);

	if (len < 0)
		return len;
	return proto_io(c, b->data, (size_t)len, true);
}

/* The next message; -EBADMSG with *@why when trashd sent nonsense. */
int
proto_recv(struct proto_client *c, struct proto_msg *m, const char **why)
{
	struct proto_hdr h;
	int r;

	*why = NULL;
	if ((r = proto_io(c, c->rbuf, PROTO_HDR_LEN, false)) < 0)
		return r;
	if ((r = proto_parse_hdr(c->rbuf, &h)) < 0) {
		*why = r == -EPROTONOSUPPORT ? "protocol version mismatch" :
		    "reply too long";
		return r;
	}
	if ((r = proto_io(c, c->rbuf + PROTO_HDR_LEN, h.len, false)) < 0)
		return r;
	return proto_parse(&h, c->rbuf + PROTO_HDR_LEN, m, why);
}
