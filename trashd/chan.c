/* SPDX-License-Identifier: ISC */
/*
 * The channels between trashd's processes, as smtpd's imsg: typed,
 * length-prefixed messages, each with at most one fd (SCM_RIGHTS), over
 * the SOCK_SEQPACKET pair child_fork() makes.  One message is one
 * datagram: the kernel keeps the boundaries, so a message is read whole
 * or not at all and no side reassembles partial reads.  Every message is
 * checked as it arrives (its length against its header and
 * CHAN_DATA_MAX, nothing truncated, at most one fd); the receiver checks
 * each type's size with chan_get().
 *
 * A child that does nothing else sends with chan_send() and waits; a
 * process with an event loop queues (chan_queue()) and flushes when the
 * channel has room (chan_flush()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base.h"

struct chan_hdr {
	uint32_t	 type;
	uint32_t	 len;		/* of the data that follows */
};

struct chan_out {
	struct chan_out	*next;
	uint32_t	 type;
	size_t		 len;
	int		 fd;		/* passed, then closed; -1: none */
	uint8_t		 data[];
};

/*
 * Send one message of @type with @len bytes of @data and @passfd (-1:
 * none) on @fd; @flags as send(2)'s (MSG_DONTWAIT).  Whole or not at all.
 * Returns 0 or -errno (-EAGAIN: no room now).
 */
int
chan_send(int fd, uint32_t type, const void *data, size_t len, int passfd,
    int flags)
{
	struct chan_hdr h = { type, (uint32_t)len };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)data, len } };
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} cmsg;
	struct msghdr mh;
	struct cmsghdr *cm;

	if (len > CHAN_DATA_MAX)
		return -EMSGSIZE;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = len > 0 ? 2 : 1;
	if (passfd >= 0) {
		memset(&cmsg, 0, sizeof(cmsg));
		mh.msg_control = cmsg.buf;
		mh.msg_controllen = sizeof(cmsg.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &passfd, sizeof(int));
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL | flags) < 0)
		return -errno;
	return 0;
}

/*
 * Read one message from @fd into @m.  With @fds, an fd passed with it is
 * m->fd, the caller's to close (-1: none); without, a message with one is
 * malformed.  Returns 1, 0 at the end (the peer is gone), -EAGAIN when
 * none waits, -EBADMSG for a malformed one (dropped, its fd closed), or
 * -errno.
 */
int
chan_recv(int fd, struct chan_msg *m, bool fds)
{
	struct chan_hdr h;
	struct iovec iov[2] = { { &h, sizeof(h) },
	    { m->data, sizeof(m->data) } };
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} cmsg;
	struct msghdr mh;
	struct cmsghdr *cm;
	size_t i;
	ssize_t n;
	int got, nfds = 0;

	m->fd = -1;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	mh.msg_control = cmsg.buf;
	mh.msg_controllen = sizeof(cmsg.buf);
	n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EINTR || errno == EWOULDBLOCK ? -EAGAIN :
		    -errno;
	if (n == 0)
		return 0;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS)
			continue;
		/* Each fd passed is ours to close, however many came. */
		for (i = 0; CMSG_LEN((i + 1) * sizeof(int)) <= cm->cmsg_len;
		    i++, nfds++) {
			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int),
			    sizeof(int));
			if (m->fd < 0)
				m->fd = got;
			else
				close(got);
		}
	}
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || nfds > (fds ? 1 : 0) ||
	    (size_t)n < sizeof(h) || h.len > CHAN_DATA_MAX ||
	    (size_t)n != sizeof(h) + h.len) {
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
		return -EBADMSG;
	}
	m->type = h.type;
	m->len = h.len;
	return 1;
}

/*
 * @m's data as a struct of @size bytes, of which at least @min must have
 * come (@min == @size: a fixed one); the rest zeroed.  0 or -EBADMSG.
 */
int
chan_get(const struct chan_msg *m, void *p, size_t min, size_t size)
{
	if (m->len < min || m->len > size)
		return -EBADMSG;
	memcpy(p, m->data, m->len);
	memset((uint8_t *)p + m->len, 0, size - m->len);
	return 0;
}

void
chan_init(struct chan *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->tail = &c->out;
}

/* Queue a message (chan_send()'s arguments); @passfd is closed once sent. */
void
chan_queue(struct chan *c, uint32_t type, const void *data, size_t len,
    int passfd)
{
	struct chan_out *o;

	if (len > CHAN_DATA_MAX)
		fatalx("chan: a message of %zu bytes", len);
	o = xmalloc(sizeof(*o) + len);
	o->next = NULL;
	o->type = type;
	o->len = len;
	o->fd = passfd;
	if (len > 0)
		memcpy(o->data, data, len);
	*c->tail = o;
	c->tail = &o->next;
	c->nout++;
}

/*
 * Send what is queued, in order.  0: all out; -EAGAIN: the rest waits for
 * room (watch the fd for writing); another -errno: the peer is gone.
 */
int
chan_flush(struct chan *c)
{
	struct chan_out *o;
	int r;

	while ((o = c->out) != NULL) {
		r = chan_send(c->fd, o->type, o->data, o->len, o->fd,
		    MSG_DONTWAIT);
		/* ETOOMANYREFS: the peer has not taken the fds in flight. */
		if (r == -EAGAIN || r == -EINTR || r == -ETOOMANYREFS)
			return -EAGAIN;
		if (r < 0)
			return r;
		if ((c->out = o->next) == NULL)
			c->tail = &c->out;
		c->nout--;
		if (o->fd >= 0)
			close(o->fd);
		free(o);
	}
	return 0;
}

/* Forget what is queued (their fds closed); the channel's fd stays. */
void
chan_clear(struct chan *c)
{
	struct chan_out *o;

	while ((o = c->out) != NULL) {
		c->out = o->next;
		if (o->fd >= 0)
			close(o->fd);
		free(o);
	}
	c->tail = &c->out;
	c->nout = 0;
}
