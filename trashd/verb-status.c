/* SPDX-License-Identifier: ISC */
/*
 * The status request: the daemon, and the caller's trash on each filesystem.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "verb.h"

void
verb_status(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b = xmalloc(sizeof(*b));
	struct statvfs sv;
	struct usage u;
	int64_t count = 0, bytes = 0;
	char msg[64];
	size_t i, n;

	(void)m;
	for (i = 0; i < d->nfs; i++) {
		proto_init(b, MSG_FS);
		proto_str(b, A_FS, d->fs[i].path);
		proto_num(b, A_WATERMARK, policy_fs_watermark(d, &d->fs[i]));
		if (fstatvfs(d->fs[i].rootfd, &sv) == 0) {
			proto_num(b, A_TOTAL, (int64_t)(sv.f_blocks *
			    sv.f_frsize));
			proto_num(b, A_AVAIL, (int64_t)(sv.f_bavail *
			    sv.f_frsize));
		}
		if (d->fs[i].press.fd >= 0) {
			proto_num(b, A_PRESSURE,
			    (int64_t)d->fs[i].press.events);
			proto_num(b, A_WAITED, d->fs[i].press.waited_ns /
			    1000000);
			proto_num(b, A_WAIT_MAX, d->fs[i].press.wait_max_ns /
			    1000000);
		}
		if (index_usage(d->db, d->fs[i].id, c->peer.uid, &u) == 0) {
			proto_num(b, A_COUNT, u.count);
			proto_num(b, A_BYTES, u.bytes);
			count += u.count;
			bytes += u.bytes;
		}
		conn_send(c, b);
	}
	proto_init(b, MSG_OK);
	proto_str(b, A_SERVER, "trashd " TRASHBIN_VERSION);
	proto_num(b, A_PID, getpid());
	proto_num(b, A_UPTIME, (now_ns() - d->control->started_ns) /
	    NSEC_PER_SEC);
	proto_num(b, A_UID, c->peer.uid);
	proto_num(b, A_ADMIN, c->peer.admin);
	proto_num(b, A_COUNT, count);
	proto_num(b, A_BYTES, bytes);
	/* Wipes waiting for others to close: the caller's, all for admins. */
	n = wipe_deferred(d, c->peer.admin ? -1 : (int64_t)c->peer.uid);
	if (n > 0) {
		snprintf(msg, sizeof(msg), "wipe deferred: %zu entr%s still "
		    "open", n, n == 1 ? "y" : "ies");
		proto_str(b, A_MESSAGE, msg);
	}
	conn_reply_ok(c, b);
	free(b);
}
