/* SPDX-License-Identifier: ISC */
/*
 * trashd's front: the control socket (control.c).  It reads the clients'
 * requests and calls the verbs below it (verb.h: conn.c and verb-*.c),
 * which call the services; nothing below calls it.
 */
#ifndef TRASHD_CONTROL_H
#define TRASHD_CONTROL_H

#include "verb.h"

int	 control_init(struct trashd *);
void	 control_close(struct trashd *);
/* The fuzzer: a connection over an fd, without a listener. */
struct control_conn *control_conn_new(struct trashd *, int fd,
	    const struct peer *);
size_t	 control_nconns(struct trashd *);

#endif /* TRASHD_CONTROL_H */
