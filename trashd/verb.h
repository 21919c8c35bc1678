/* SPDX-License-Identifier: ISC */
/*
 * The front's lower half: a client's connection and how it is answered
 * (conn.c, conn_*()), the entries a request names (select.c,
 * select_*()), and the requests, one file each (verb-*.c, verb_*()), as
 * trashctl has one file per command.  control.c, above, reads the
 * requests off the socket and calls a verb from its table; nothing here
 * calls it.
 *
 * A handler replies and returns, or leaves work that ends the request
 * later: a restore (c->job, restore.c calls back), or state of its own
 * (c->vstate) with its verb_ops, which the connection calls when the
 * client has taken the output (a list's next page) and when it goes.
 */
#ifndef TRASHD_VERB_H
#define TRASHD_VERB_H

#include <event2/util.h>
#include <sys/queue.h>
#include <sys/time.h>

#include "proto.h"

#include "services.h"

struct proto_buf;
struct proto_msg;
struct control_conn;

/* Output bytes above which a reply's next page waits for the client
 * (a list, an empty's dry run), and below which it is made. */
#define CONTROL_LIST_HIGH	(256 * 1024)
#define CONTROL_LIST_LOW	(64 * 1024)

/* A verb whose reply runs on after its handler returned. */
struct verb_ops {
	/* The client took most of the output: send more, true when done
	 * (the state freed).  NULL: the verb drives itself. */
	bool	(*more)(struct control_conn *);
	/* Free the state, the connection going or the verb over. */
	void	(*free)(struct control_conn *);
	/* The verb writes its own audit record when it is over. */
	bool	  audits_at_end;
};

struct control_conn {
	TAILQ_ENTRY(control_conn) entry;
	struct trashd		*d;
	struct bufferevent	*bev;
	struct event		*deadline;	/* the next request is due */
	struct peer		 peer;
	bool			 busy;		/* a reply is still coming */
	bool			 closing;	/* flush, then close */
	bool			 eof;		/* the client shut its side */
	struct restore_job	*job;
	void			*vstate;	/* a verb running on */
	const struct verb_ops	*vops;
	uint8_t			 rbuf[PROTO_HDR_LEN + PROTO_MSG_MAX];
	/*
	 * What the audit row of the current request says: the target in
	 * trashd's own words, the path the client named as its bytes (a
	 * field of its own: audit.c), the result.
	 */
	char			 target[512];
	const char		*path;
	int64_t			 trash_uid;	/* whose trash, -1: none */
	char			 result[256];
};

struct control {
	TAILQ_HEAD(, control_conn) conns;
	size_t			 nconns;
	int64_t			 started_ns;
};

/* conn.c: a connection's life and its replies. */
struct timeval conn_timeout(const struct trashd *);
void	 conn_send(struct control_conn *, struct proto_buf *);
void	 conn_reply_error(struct control_conn *, int err,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	 conn_reply_ok(struct control_conn *, struct proto_buf *);
void	 conn_request_done(struct control_conn *);
void	 conn_close_soon(struct control_conn *);
void	 conn_free(struct control_conn *);
void	 conn_deadline(evutil_socket_t, short, void *);
void	 conn_arm(struct control_conn *);
void	 conn_verb_free(struct control_conn *);
void	 conn_audit(struct control_conn *, const char *verb);
int	 conn_target_uid(struct control_conn *, const struct proto_msg *,
	    uint32_t *uid);
/*
 * Where a restore or a wipe points by path: the managed filesystem and
 * the path relative to its root of A_PATH (fs NULL when the request
 * names an id), and of A_TO (tofs NULL when not on a managed filesystem,
 * to NULL when not given).
 */
struct where {
	struct tfs	*fs;
	const char	*rel;
	struct tfs	*tofs;
	const char	*to;
};
int	 conn_where(struct control_conn *, const struct proto_msg *,
	    struct where *);
int	 conn_need_admin(struct control_conn *);
void	 conn_entry_msg(struct control_conn *, struct proto_buf *,
	    const struct entry *);
void	 conn_result_msg(struct control_conn *, const struct entry *,
	    int err, const char *msg);

/* select.c: the entries a restore or a wipe names; the reply sent on
 * failure. */
int	 select_entries(struct control_conn *, const struct proto_msg *,
	    uint32_t uid, const struct where *, struct entry_list *,
	    struct tfs **, const char **base, bool *dir);

/* The verbs, one file each. */
void	 verb_status(struct control_conn *, const struct proto_msg *);
void	 verb_list(struct control_conn *, const struct proto_msg *);
void	 verb_restore(struct control_conn *, const struct proto_msg *);
void	 verb_wipe(struct control_conn *, const struct proto_msg *);
void	 verb_empty(struct control_conn *, const struct proto_msg *);
void	 verb_quota(struct control_conn *, const struct proto_msg *);
void	 verb_policy_get(struct control_conn *, const struct proto_msg *);
void	 verb_policy_set(struct control_conn *, const struct proto_msg *);
void	 verb_audit(struct control_conn *, const struct proto_msg *);

#endif /* TRASHD_VERB_H */
