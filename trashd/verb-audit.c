/* SPDX-License-Identifier: ISC */
/*
 * The audit query (admins only): the audit log's rows, filtered.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verb.h"

/* Audit rows one query returns at most, and by default. */
#define CONTROL_AUDIT_MAX	10000
#define CONTROL_AUDIT_DEFAULT	100

void
verb_audit(struct control_conn *c, const struct proto_msg *m)
{
	struct audit_filter f = { .uid = -1, .owner = -1,
	    .limit = CONTROL_AUDIT_DEFAULT };
	struct audit_row *rows = NULL;
	struct proto_buf *b;
	size_t n = 0, i;
	int r;

	/* The filters are the index's, in SQL: see audit_search(). */
	if (PROTO_HAS(m, A_UID))
		f.uid = m->num[A_UID];
	if (PROTO_HAS(m, A_OWNER))
		f.owner = m->num[A_OWNER];
	if (PROTO_HAS(m, A_ACTION))
		f.action = m->str[A_ACTION];
	if (PROTO_HAS(m, A_RESULT))
		f.result = m->str[A_RESULT];
	if (PROTO_HAS(m, A_PREFIX)) {
		if (m->str[A_PREFIX][0] != '/') {
			conn_reply_error(c, EINVAL, "a path prefix is "
			    "absolute");
			return;
		}
		f.prefix = m->str[A_PREFIX];
		c->path = f.prefix;
	}
	if ((f.uid < -1 || f.uid > TRASHBIN_UID_MAX) ||
	    (f.owner < -1 || f.owner > TRASHBIN_UID_MAX)) {
		conn_reply_error(c, EINVAL, "uid out of range");
		return;
	}
	if (PROTO_HAS(m, A_SINCE))
		f.since_ns = m->num[A_SINCE];
	if (PROTO_HAS(m, A_BEFORE))
		f.before_ns = m->num[A_BEFORE];
	if (PROTO_HAS(m, A_LIMIT) && m->num[A_LIMIT] > 0)
		f.limit = m->num[A_LIMIT] > CONTROL_AUDIT_MAX ?
		    CONTROL_AUDIT_MAX : (size_t)m->num[A_LIMIT];
	snprintf(c->target, sizeof(c->target), "uid=%" PRId64 " owner=%"
	    PRId64 " action=%s result=%s", f.uid, f.owner, f.action != NULL ?
	    "(given)" : "any", f.result != NULL ? "(given)" : "any");
	if ((r = audit_search(c->d, &f, &rows, &n)) < 0) {
		conn_reply_error(c, -r, "index: %s", strerror(-r));
		return;
	}
	b = xmalloc(sizeof(*b));
	for (i = 0; i < n; i++) {
		proto_init(b, MSG_AUDIT_ROW);
		proto_num(b, A_ID, rows[i].id);
		proto_num(b, A_TIME, rows[i].time_ns);
		proto_num(b, A_UID, rows[i].uid);
		proto_num(b, A_PID, rows[i].pid);
		proto_str(b, A_ACTION, rows[i].action[0] ?
		    rows[i].action : "-");
		proto_str(b, A_RESULT, rows[i].result[0] ?
		    rows[i].result : "-");
		if (rows[i].entry_id > 0)
			proto_num(b, A_ENTRY, rows[i].entry_id);
		if (rows[i].trash_uid >= 0)
			proto_num(b, A_TRASH, rows[i].trash_uid);
		if (rows[i].owner_uid >= 0)
			proto_num(b, A_OWNER, rows[i].owner_uid);
		proto_str(b, A_FS, rows[i].fs);
		proto_str(b, A_PATH, rows[i].path);
		proto_str(b, A_NAME, rows[i].name);
		proto_str(b, A_TARGET, rows[i].detail);
		conn_send(c, b);
	}
	audit_rows_free(rows, n);
	proto_init(b, MSG_OK);
	proto_num(b, A_COUNT, (int64_t)n);
	conn_reply_ok(c, b);
	free(b);
}
