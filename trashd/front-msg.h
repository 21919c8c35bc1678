/* SPDX-License-Identifier: ISC */
/*
 * What the front process (front.c) and the daemon's end of its channel
 * (front-link.c) share: the channel's messages (chan.c) and the front
 * process's entry.  Nothing else passes between them.
 */
#ifndef TRASHD_FRONT_MSG_H
#define TRASHD_FRONT_MSG_H

#include <stddef.h>

#include "base.h"

/* Groups of a peer passed on; NGROUPS_MAX is 65536, nobody has so many. */
#define FRONT_GROUPS_MAX	1024

enum front_type {
	/* Front to parent: */
	FRONT_CLIENT = 1,	/* with one fd: a client's end of its pair */
	FRONT_REFUSED,		/* a request refused here: audit it */
	FRONT_LOG,		/* a log line */
	/* Parent to front, the only message that way: the socket listens. */
	FRONT_GO,
};

struct front_msg {
	uint32_t	 uid;
	uint32_t	 gid;
	int32_t		 pid;
	int32_t		 pri;		/* FRONT_LOG */
	int32_t		 ngroups;
	char		 target[256];	/* FRONT_REFUSED */
	char		 text[1024];	/* the result, or the log line */
	gid_t		 groups[FRONT_GROUPS_MAX];
};
#define FRONT_MSG_LEN(n)	(offsetof(struct front_msg, groups) + \
	    (size_t)(n) * sizeof(gid_t))
_Static_assert(sizeof(struct front_msg) <= CHAN_DATA_MAX,
    "a front message fits the channel");

/*
 * The front process, in the child child_fork() made: listen on @lfd, talk
 * to the daemon (pid @parent) over @chan; @sock names the socket (the
 * empty directory beside it may be its root), @client_timeout is in
 * seconds.  Never returns.
 */
void	 front_main(int lfd, int chan, const char *sock, int client_timeout,
	    pid_t parent) __attribute__((noreturn));

#endif /* TRASHD_FRONT_MSG_H */
