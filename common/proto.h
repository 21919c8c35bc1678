/* SPDX-License-Identifier: ISC */
/*
 * The control socket's wire protocol, shared by trashd(8), trashctl(1) and
 * pam_trash.so: one header, never a copy.  Described in trashd(8),
 * PROTOCOL.
 *
 * A message is an 8-byte header (big-endian: u16 version, u16 type, u32
 * payload length) and a payload of attributes, each a big-endian u16 tag,
 * u16 length and value.  A number is 8 bytes, signed big-endian; a string
 * is 1 to PROTO_STR_MAX bytes without a NUL.  Which attributes a message
 * may carry is fixed per type; each at most once, in any order.
 *
 * A request gets zero or more data messages back, then exactly one OK or
 * ERROR.  One request at a time per connection.
 */
#ifndef TRASHBIN_PROTO_H
#define TRASHBIN_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Bump the version if any of the numbers or rules below change.
 * 2: policy set takes the default kind, A_WATERMARK and A_FS.
 * 3: audit rows are fields: A_ENTRY, A_TRASH, A_OWNER, A_FS, A_PATH,
 *    A_NAME; A_TARGET only for what is no entry.
 * 4: audit filters by A_OWNER, A_PREFIX and A_RESULT too; empty takes
 *    A_BEFORE, A_ALL and A_DRY_RUN (a dry run answers ENTRY messages);
 *    policies carry A_QUOTA_TEXT and A_RETENTION_TEXT, the values as
 *    they were typed; a policy set answers one POLICY message.
 * 5: status FS messages carry the space pressure: A_PRESSURE, A_WAITED,
 *    A_WAIT_MAX.
 */
#define PROTOCOL_VERSION	5

#define PROTO_HDR_LEN		8
/* One message's payload: a restore request's two paths fit many times. */
#define PROTO_MSG_MAX		16384
/* One string: PATH_MAX, the longest path the kernel hands out. */
#define PROTO_STR_MAX		4096
/* A_QUOTA_TEXT, A_RETENTION_TEXT: "1536M", "3 weeks"; longer is not sent. */
#define PROTO_TEXT_MAX		31

enum proto_type {
	/* Requests, client to trashd: 100-199. */
	MSG_STATUS = 100,
	MSG_LIST,
	MSG_RESTORE,
	MSG_WIPE,
	MSG_EMPTY,
	MSG_QUOTA,
	MSG_POLICY_GET,
	MSG_POLICY_SET,
	MSG_AUDIT,
	MSG_REQ_LAST = MSG_AUDIT,

	/* Replies, trashd to client: 200-299; OK or ERROR ends a reply. */
	MSG_OK = 200,
	MSG_ERROR,
	MSG_ENTRY,		/* list: one entry */
	MSG_RESULT,		/* restore, wipe, empty: one entry's outcome */
	MSG_PROGRESS,		/* restore: how many entries will follow */
	MSG_USAGE,		/* quota: one user on one filesystem */
	MSG_POLICY,		/* policy get */
	MSG_AUDIT_ROW,		/* audit */
	MSG_FS,			/* status: one filesystem */
	MSG_REP_LAST = MSG_FS,
};

enum proto_attr {
	A_NONE = 0,		/* unused */
	/* Numbers. */
	A_ID,			/* entry id, audit row id */
	A_UID,			/* the user acted on (admins) or shown */
	A_ALL,			/* 1: every user (admins) */
	A_BEFORE,		/* ns since the Epoch: deleted before */
	A_SINCE,		/* ns since the Epoch: deleted at or after */
	A_VERSION,		/* restore: 1 the newest, 2 the one before... */
	A_OVERWRITE,		/* restore: 1 replaces an existing target */
	A_FLAGS,		/* FS_*_FL; list: all of these set */
	A_LIMIT,		/* at most this many rows */
	A_UMASK,		/* restore: for the directories it creates */
	A_KIND,			/* policy: PROTO_KIND_* */
	A_XID,			/* policy: uid or gid */
	A_QUOTA,		/* bytes; 0 none; -1 not set (inherit) */
	A_RETENTION,		/* seconds; 0 forever; -1 not set (inherit) */
	A_ERRNO,		/* 0 or an errno value */
	A_TIME,			/* ns since the Epoch */
	A_SIZE,			/* bytes */
	A_OWNER,		/* owner uid of the file */
	A_DELETER,		/* deleter uid, -1 unknown */
	A_COUNT,
	A_BYTES,
	A_TOTAL,
	A_DONE,
	A_FAILED,
	A_PID,
	A_ADMIN,		/* status: 1 if the caller is an admin */
	A_UPTIME,		/* seconds */
	A_WATERMARK,		/* percent free, 0 off; set: -1 inherit */
	A_AVAIL,		/* bytes free */
	/* Strings. */
	A_PATH,			/* an absolute path; entry: relative to A_FS */
	A_PREFIX,		/* list: an absolute path prefix */
	A_TO,			/* restore: an absolute destination */
	A_ACTION,		/* audit: action name */
	A_MESSAGE,		/* human readable */
	A_NAME,			/* the entry's name in the trash */
	A_STATE,		/* trashed, restored, wiping, wiped, purged */
	A_FS,			/* a filesystem's mount point */
	A_TARGET,		/* audit: what else was acted on, no entry */
	A_RESULT,		/* audit: result */
	A_SERVER,		/* status: trashd's version */
	A_LAST_STR = A_SERVER,
	/* Numbers again (version 3): the numbers above keep their values. */
	A_ENTRY,		/* audit: the entry acted on */
	A_TRASH,		/* audit: whose trash it is in */
	/* Version 4. */
	A_DRY_RUN,		/* empty: 1 only says what would go */
	A_QUOTA_TEXT,		/* policy: A_QUOTA as typed ("1536M") */
	A_RETENTION_TEXT,	/* policy: A_RETENTION as typed ("90d") */
	/* Version 5. */
	A_PRESSURE,		/* status: writers' waits for space or quota */
	A_WAITED,		/* status: how long they waited, ms in all */
	A_WAIT_MAX,		/* status: the longest wait, ms */
	A_MAX,
};
#define A_FIRST_STR	A_PATH
/* Strings added later, after the numbers of their version. */
#define A_FIRST_STR4	A_QUOTA_TEXT
#define A_LAST_STR4	A_RETENTION_TEXT
/* One bit per attribute in proto_msg.have. */
_Static_assert(A_MAX <= 64, "attributes must fit a uint64_t");

/* A_KIND */
#define PROTO_KIND_USER		0
#define PROTO_KIND_GROUP	1
#define PROTO_KIND_DEFAULT	2	/* set over the socket */
#define PROTO_KIND_CONFIG	3	/* replies: trashd.conf's defaults */

struct proto_hdr {
	uint16_t	 version;
	uint16_t	 type;
	uint32_t	 len;
};

/* A parsed message: strings are NUL-terminated copies in buf. */
struct proto_msg {
	uint16_t	 type;
	uint64_t	 have;		/* bit (1 << attr) per attribute */
	int64_t		 num[A_MAX];
	const char	*str[A_MAX];
	char		 buf[PROTO_MSG_MAX + A_MAX];
};

/* A message being built. */
struct proto_buf {
	uint8_t		 data[PROTO_HDR_LEN + PROTO_MSG_MAX];
	size_t		 len;
	int		 err;		/* -E2BIG once anything did not fit */
};

#define PROTO_HAS(m, a)	(((m)->have >> (a)) & 1)

const char *proto_type_name(uint16_t type);
const char *proto_attr_name(int attr);
bool	 proto_attr_is_str(int attr);
int	 proto_parse_hdr(const uint8_t *, struct proto_hdr *);
int	 proto_parse(const struct proto_hdr *, const uint8_t *payload,
	    struct proto_msg *, const char **why);
void	 proto_init(struct proto_buf *, uint16_t type);
void	 proto_num(struct proto_buf *, int attr, int64_t);
void	 proto_str(struct proto_buf *, int attr, const char *);
int	 proto_finish(struct proto_buf *);
void	 proto_refuse(int fd, int err, const char *msg);

/* ---- client.c: what trashctl and the PAM module use ---- */
struct proto_client {
	int		 fd;
	int		 timeout_ms;	/* per read or write, -1: none */
	/* Bytes read ahead: rbuf[roff .. roff + rlen), whole messages. */
	size_t		 roff;
	size_t		 rlen;
	uint8_t		 rbuf[2 * (PROTO_HDR_LEN + PROTO_MSG_MAX)];
};

int	 proto_connect(struct proto_client *, const char *path,
	    int timeout_ms);
void	 proto_close(struct proto_client *);
int	 proto_send(struct proto_client *, struct proto_buf *);
int	 proto_recv(struct proto_client *, struct proto_msg *,
	    const char **why);

#endif /* TRASHBIN_PROTO_H */
