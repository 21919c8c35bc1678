/* SPDX-License-Identifier: ISC */
/*
 * The daemon's life (daemon.c): open the index, the filesystems and their
 * watches, connect the services' hooks, recover the wipe queue,
 * reconcile; reload; close.
 */
#ifndef TRASHD_DAEMON_H
#define TRASHD_DAEMON_H

#include "services.h"

int	 daemon_open(struct trashd *, struct config *, struct event_base *,
	    char *err, size_t errlen);
void	 daemon_close(struct trashd *);
int	 daemon_reload(struct trashd *, struct config *);

#endif /* TRASHD_DAEMON_H */
