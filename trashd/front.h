/* SPDX-License-Identifier: ISC */
/*
 * The daemon's end (front-link.c) of trashd's front process (front.c):
 * the only one that talks to clients.
 * Forked by the daemon before anything privileged is opened, it keeps the
 * listening socket and a channel to its parent, chroots into an empty
 * directory, drops to an unprivileged user without capabilities, and
 * checks every request before it passes it on.  The parent receives one
 * socket per client over the channel, with the credentials the front
 * read, and hands it to control.c as a client.  front-msg.h is what the
 * two ends share.
 */
#ifndef TRASHD_FRONT_H
#define TRASHD_FRONT_H

#include "control.h"

struct front;

struct front	*front_start(const struct config *, struct event_base *);
void		 front_attach(struct front *, struct trashd *);
void		 front_stop(struct front *);

#endif /* TRASHD_FRONT_H */
