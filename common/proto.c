/* SPDX-License-Identifier: ISC */
/*
 * The protocol's codec: a strict parser and a builder.  Nothing here
 * allocates or logs; every error is a return value and a reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto.h"

#define B(a)	(1ULL << (a))

struct proto_rule {
	uint64_t	 allowed;
	uint64_t	 required;
};

/* What each message may and must carry; indexed by type - base. */
static const struct proto_rule proto_req_rules[] = {
	[MSG_STATUS - MSG_STATUS] = { 0, 0 },
	[MSG_LIST - MSG_STATUS] = {
		B(A_UID) | B(A_ALL) | B(A_PREFIX) | B(A_BEFORE) |
		B(A_SINCE) | B(A_FLAGS) | B(A_LIMIT), 0 },
	[MSG_RESTORE - MSG_STATUS] = {
		B(A_ID) | B(A_PATH) | B(A_UID) | B(A_TO) | B(A_BEFORE) |
		B(A_VERSION) | B(A_OVERWRITE) | B(A_UMASK), 0 },
	[MSG_WIPE - MSG_STATUS] = { B(A_ID) | B(A_PATH) | B(A_UID), 0 },
	[MSG_EMPTY - MSG_STATUS] = {
		B(A_UID) | B(A_ALL) | B(A_BEFORE) | B(A_DRY_RUN), 0 },
	[MSG_QUOTA - MSG_STATUS] = { B(A_UID) | B(A_ALL), 0 },
	[MSG_POLICY_GET - MSG_STATUS] = { B(A_KIND) | B(A_XID), B(A_KIND) },
	[MSG_POLICY_SET - MSG_STATUS] = {
		B(A_KIND) | B(A_XID) | B(A_QUOTA) | B(A_RETENTION) |
		B(A_QUOTA_TEXT) | B(A_RETENTION_TEXT) | B(A_WATERMARK) |
		B(A_FS), B(A_KIND) },
	[MSG_AUDIT - MSG_STATUS] = {
		B(A_UID) | B(A_OWNER) | B(A_ACTION) | B(A_RESULT) |
		B(A_PREFIX) | B(A_SINCE) | B(A_BEFORE) | B(A_LIMIT), 0 },
};

static const struct proto_rule proto_rep_rules[] = {
	[MSG_OK - MSG_OK] = {
		B(A_COUNT) | B(A_BYTES) | B(A_DONE) | B(A_FAILED) |
		B(A_MESSAGE) | B(A_SERVER) | B(A_PID) | B(A_UPTIME) |
		B(A_UID) | B(A_ADMIN), 0 },
	[MSG_ERROR - MSG_OK] = { B(A_ERRNO) | B(A_MESSAGE),
		B(A_ERRNO) | B(A_MESSAGE) },
	[MSG_ENTRY - MSG_OK] = {
		B(A_ID) | B(A_UID) | B(A_OWNER) | B(A_DELETER) | B(A_FS) |
		B(A_PATH) | B(A_NAME) | B(A_TIME) | B(A_SIZE) | B(A_FLAGS) |
		B(A_STATE),
		B(A_ID) | B(A_UID) | B(A_FS) | B(A_NAME) | B(A_TIME) |
		B(A_SIZE) | B(A_FLAGS) | B(A_STATE) },
	[MSG_RESULT - MSG_OK] = {
		B(A_ID) | B(A_ERRNO) | B(A_PATH) | B(A_TO) | B(A_MESSAGE) |
		B(A_SIZE), B(A_ERRNO) },
	[MSG_PROGRESS - MSG_OK] = { B(A_TOTAL) | B(A_DONE), B(A_TOTAL) },
	[MSG_USAGE - MSG_OK] = {
		B(A_FS) | B(A_UID) | B(A_COUNT) | B(A_BYTES) | B(A_QUOTA) |
		B(A_RETENTION) | B(A_QUOTA_TEXT) | B(A_RETENTION_TEXT),
		B(A_FS) | B(A_UID) | B(A_COUNT) | B(A_BYTES) },
	[MSG_POLICY - MSG_OK] = {
		B(A_KIND) | B(A_XID) | B(A_QUOTA) | B(A_RETENTION) |
		B(A_QUOTA_TEXT) | B(A_RETENTION_TEXT) | B(A_FS) |
		B(A_WATERMARK), B(A_KIND) },
	[MSG_AUDIT_ROW - MSG_OK] = {
		B(A_ID) | B(A_TIME) | B(A_UID) | B(A_PID) | B(A_ACTION) |
		B(A_RESULT) | B(A_ENTRY) | B(A_TRASH) | B(A_OWNER) |
		B(A_FS) | B(A_PATH) | B(A_NAME) | B(A_TARGET),
		B(A_ID) | B(A_TIME) | B(A_UID) | B(A_PID) | B(A_ACTION) |
		B(A_RESULT) },
	[MSG_FS - MSG_OK] = {
		B(A_FS) | B(A_WATERMARK) | B(A_TOTAL) | B(A_AVAIL) |
		B(A_COUNT) | B(A_BYTES) | B(A_PRESSURE) | B(A_WAITED) |
		B(A_WAIT_MAX), B(A_FS) },
};

static const char *const proto_req_names[] = {
	"status", "list", "restore", "wipe", "empty", "quota", "policy-get",
	"policy-set", "audit",
};
static const char *const proto_rep_names[] = {
	"ok", "error", "entry", "result", "progress", "usage", "policy",
	"audit-row", "fs",
};
static const char *const proto_attr_names[A_MAX] = {
	[A_NONE] = "none", [A_ID] = "id", [A_UID] = "uid", [A_ALL] = "all",
	[A_BEFORE] = "before", [A_SINCE] = "since", [A_VERSION] = "version",
	[A_OVERWRITE] = "overwrite", [A_FLAGS] = "flags", [A_LIMIT] = "limit",
	[A_UMASK] = "umask", [A_KIND] = "kind", [A_XID] = "xid",
	[A_QUOTA] = "quota", [A_RETENTION] = "retention",
	[A_ERRNO] = "errno", [A_TIME] = "time", [A_SIZE] = "size",
	[A_OWNER] = "owner", [A_DELETER] = "deleter", [A_COUNT] = "count",
	[A_BYTES] = "bytes", [A_TOTAL] = "total", [A_DONE] = "done",
	[A_FAILED] = "failed", [A_PID] = "pid", [A_ADMIN] = "admin",
	[A_UPTIME] = "uptime", [A_WATERMARK] = "watermark",
	[A_AVAIL] = "avail", [A_PATH] = "path", [A_PREFIX] = "prefix",
	[A_TO] = "to", [A_ACTION] = "action", [A_MESSAGE] = "message",
	[A_NAME] = "name", [A_STATE] = "state", [A_FS] = "fs",
	[A_TARGET] = "target", [A_RESULT] = "result", [A_SERVER] = "server",
	[A_ENTRY] = "entry", [A_TRASH] = "trash", [A_DRY_RUN] = "dry-run",
	[A_QUOTA_TEXT] = "quota-text", [A_RETENTION_TEXT] = "retention-text",
	[A_PRESSURE] = "pressure", [A_WAITED] = "waited",
	[A_WAIT_MAX] = "wait-max",
};

static const struct proto_rule *
proto_rule(uint16_t type)
{
	if (type >= MSG_STATUS && type <= MSG_REQ_LAST)
		return &proto_req_rules[type - MSG_STATUS];
	if (type >= MSG_OK && type <= MSG_REP_LAST)
		return &proto_rep_rules[type - MSG_OK];
	return NULL;
}

const char *
proto_type_name(uint16_t type)
{
	if (type >= MSG_STATUS && type <= MSG_REQ_LAST)
		return proto_req_names[type - MSG_STATUS];
	if (type >= MSG_OK && type <= MSG_REP_LAST)
		return proto_rep_names[type - MSG_OK];
	return "unknown";
}

const char *
proto_attr_name(int attr)
{
	if (attr <= A_NONE || attr >= A_MAX)
		return "unknown";
	return proto_attr_names[attr];
}

bool
proto_attr_is_str(int attr)
{
	return (attr >= A_FIRST_STR && attr <= A_LAST_STR) ||
	    (attr >= A_FIRST_STR4 && attr <= A_LAST_STR4);
}

static uint16_t
proto_get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t
proto_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static void
proto_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
proto_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * The header of PROTO_HDR_LEN bytes: -EPROTONOSUPPORT for another
 * version, -EMSGSIZE for a payload over PROTO_MSG_MAX.  The type is
 * checked by proto_parse(): the framing is sound even when it is unknown.
 */
int
proto_parse_hdr(const uint8_t *p, struct proto_hdr *h)
{
	h->version = proto_get16(p);
	h->type = proto_get16(p + 2);
	h->len = proto_get32(p + 4);
	if (h->version != PROTOCOL_VERSION)
		return -EPROTONOSUPPORT;
	if (h->len > PROTO_MSG_MAX)
		return -EMSGSIZE;
	return 0;
}

/* The payload of @h; on error *@why says what was wrong. */
int
proto_parse(const struct proto_hdr *h, const uint8_t *p,
    struct proto_msg *m, const char **why)
{
	const struct proto_rule *rule;
	size_t off = 0, used = 0;
	uint16_t tag, len;
	uint64_t u;
	int i;

	*why = NULL;
	m->type = h->type;
	m->have = 0;
	/* Absent attributes read as 0 and NULL, never as a stale value. */
	memset(m->num, 0, sizeof(m->num));
	memset(m->str, 0, sizeof(m->str));
	if (h->len > PROTO_MSG_MAX) {
		*why = "message too long";
		return -EMSGSIZE;
	}
	if ((rule = proto_rule(h->type)) == NULL) {
		*why = "unknown message type";
		return -EBADMSG;
	}
	while (off < h->len) {
		if (h->len - off < 4) {
			*why = "truncated attribute header";
			return -EBADMSG;
		}
		tag = proto_get16(p + off);
		len = proto_get16(p + off + 2);
		off += 4;
		if (len > h->len - off) {
			*why = "attribute longer than the message";
			return -EBADMSG;
		}
		if (tag == A_NONE || tag >= A_MAX ||
		    !(rule->allowed & B(tag))) {
			*why = "attribute not allowed in this message";
			return -EBADMSG;
		}
		if (m->have & B(tag)) {
			*why = "attribute repeated";
			return -EBADMSG;
		}
		if (proto_attr_is_str(tag)) {
			if (len == 0 || len > PROTO_STR_MAX) {
				*why = "string empty or too long";
				return -EBADMSG;
			}
			if (memchr(p + off, '\0', len) != NULL) {
				*why = "string with a NUL byte";
				return -EBADMSG;
			}
			/* The copies fit: payload bytes plus one NUL each. */
			memcpy(m->buf + used, p + off, len);
			m->buf[used + len] = '\0';
			m->str[tag] = m->buf + used;
			used += (size_t)len + 1;
		} else {
			if (len != 8) {
				*why = "number not 8 bytes long";
				return -EBADMSG;
			}
			for (u = 0, i = 0; i < 8; i++)
				u = u << 8 | p[off + (size_t)i];
			m->num[tag] = (int64_t)u;
		}
		m->have |= B(tag);
		off += len;
	}
	if ((m->have & rule->required) != rule->required) {
		*why = "required attribute missing";
		return -EBADMSG;
	}
	return 0;
}

void
proto_init(struct proto_buf *b, uint16_t type)
{
	proto_put16(b->data, PROTOCOL_VERSION);
	proto_put16(b->data + 2, type);
	proto_put32(b->data + 4, 0);
	b->len = PROTO_HDR_LEN;
	b->err = 0;
}

static uint8_t *
proto_room(struct proto_buf *b, int attr, size_t len)
{
	uint8_t *p;

	if (b->err != 0 || len > sizeof(b->data) - b->len - 4) {
		b->err = -E2BIG;
		return NULL;
	}
	p = b->data + b->len;
	proto_put16(p, (uint16_t)attr);
	proto_put16(p + 2, (uint16_t)len);
	b->len += 4 + len;
	return p + 4;
}

void
proto_num(struct proto_buf *b, int attr, int64_t v)
{
	uint8_t *p = proto_room(b, attr, 8);
	uint64_t u = (uint64_t)v;
	int i;

	if (p == NULL)
		return;
	for (i = 7; i >= 0; i--, u >>= 8)
		p[i] = (uint8_t)u;
}

/* A longer string is cut at PROTO_STR_MAX; an empty one is left out. */
void
proto_str(struct proto_buf *b, int attr, const char *s)
{
	size_t len;
	uint8_t *p;

	if (s == NULL || (len = strlen(s)) == 0)
		return;
	if (len > PROTO_STR_MAX)
		len = PROTO_STR_MAX;
	if ((p = proto_room(b, attr, len)) != NULL)
		memcpy(p, s, len);
}

/* Set the length; the message is data[0 .. returned length). */
int
proto_finish(struct proto_buf *b)
{
	if (b->err != 0)
		return b->err;
	proto_put32(b->data + 4, (uint32_t)(b->len - PROTO_HDR_LEN));
	return (int)b->len;
}

/*
 * Turn a peer away before it is served: one MSG_ERROR (@err, @msg), sent
 * without waiting for room, then @fd closed.
 */
void
proto_refuse(int fd, int err, const char *msg)
{
	struct proto_buf *b;
	int len;

	if ((b = malloc(sizeof(*b))) != NULL) {
		proto_init(b, MSG_ERROR);
		proto_num(b, A_ERRNO, err);
		proto_str(b, A_MESSAGE, msg);
		if ((len = proto_finish(b)) > 0)
			(void)send(fd, b->data, (size_t)len, MSG_DONTWAIT |
			    MSG_NOSIGNAL);
		free(b);
	}
	close(fd);
}
