/* SPDX-License-Identifier: ISC */
/*
 * trashd's front: the control socket's requests (control.c), in the
 * privileged daemon, as the front process (front.h) hands them over.  It
 * calls the services below; nothing below calls it.
 */
#ifndef TRASHD_CONTROL_H
#define TRASHD_CONTROL_H

#include "services.h"

struct control_conn;
struct proto_buf;

int	 control_init(struct trashd *);
void	 control_close(struct trashd *);
int	 control_path_fs(struct trashd *, const char *abs, struct tfs **,
	    const char **rel);
void	 control_send(struct control_conn *, struct proto_buf *);
void	 control_reply_error(struct control_conn *, int err,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	 control_request_done(struct control_conn *);
/* A client the front process hands over, with the credentials it read. */
void	 control_client(struct trashd *, int fd, struct peer *);
void	 control_refused(struct trashd *, uid_t, pid_t, const char *target,
	    const char *result);
/* The fuzzer: a connection over an fd, without a front. */
struct control_conn *control_conn_new(struct trashd *, int fd,
	    const struct peer *);
size_t	 control_nconns(struct trashd *);

#endif /* TRASHD_CONTROL_H */
