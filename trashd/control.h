/* SPDX-License-Identifier: ISC */
/*
 * trashd's front: the control socket's requests (control.c), in the
 * privileged daemon, as the front process (front.h) hands them over.  It
 * calls the verbs below it (verb.h: conn.c, select.c and verb-*.c), which
 * call the services; nothing below calls it.
 */
#ifndef TRASHD_CONTROL_H
#define TRASHD_CONTROL_H

#include "verb.h"

int	 control_init(struct trashd *);
void	 control_close(struct trashd *);
/* A client the front process hands over, with the credentials it read. */
void	 control_client(struct trashd *, int fd, struct peer *);
void	 control_refused(struct trashd *, uid_t, pid_t, const char *target,
	    const char *result);
/* The fuzzer: a connection over an fd, without a front. */
struct control_conn *control_conn_new(struct trashd *, int fd,
	    const struct peer *);
size_t	 control_nconns(struct trashd *);

#endif /* TRASHD_CONTROL_H */
