/* SPDX-License-Identifier: ISC */
/*
 * trashd, in layers.  Each file includes only its own layer's header,
 * which includes the one below; no file calls a layer above its own.
 * What a lower layer has to tell a higher one goes up through a callback.
 *
 *   main      trashd.c: options, signals, the event loop.  Includes this.
 *   daemon    daemon.c (daemon.h): open, reload, close; connects the
 *             services' hooks.
 *   front     front-link.c (front.h): the daemon's end of the front
 *             process, which front.c is (front-msg.h: their messages);
 *             control.c (control.h): the requests, in the daemon: it
 *             calls the verb its table names.
 *   verbs     verb.h: verb-*.c, one file per request (as trashctl's
 *             cmd-*.c); select.c, the entries a restore or wipe names;
 *             conn.c, a connection's replies, deadline, audit record
 *             and end.  They call the services.
 *   services  services.h: scan.c (the lowest: reconciles the index with
 *             the trash), watch.c (inotify, feeds the scan), restore.c
 *             (restores as the caller, in a child: restore-child.c),
 *             policy.c (purges on a timer), wipeq.c (the wipe queue, in
 *             the daemon; its worker: wipe-worker.c).
 *   store     store.h: db.c, index.c, audit.c, policydb.c: the only
 *             files that speak SQL; journal.c, the audit records'
 *             copy in the journal.
 *   fs        fs.h: trash.c (the managed filesystems and their trash
 *             directories, held by fd), wipe.c (the secure wipe of one
 *             file).
 *   base      base.h: log.c, xmalloc.c, config.c, caps.c, child.c (the
 *             one place that forks), chan.c (the processes' channels:
 *             typed messages, fds passed), notify.c
 *             (sd_notify), lock.c (one trashd per index), and struct
 *             trashd, the state every layer is handed, with the hooks
 *             through which the scan reports up.
 *
 * The daemon and the front stand side by side: neither calls the other.
 * The unit tests include this header, as main does.
 *
 * The processes (privilege separation, as OpenBSD's smtpd and ntpd), and
 * what each may ask of another.  Every child is forked by child_fork(),
 * which closes every fd but 0-2, its channel and the ones its caller
 * names (close_range(2), else one by one); none execs.  Each talks to the
 * daemon over its channel (chan.c: a SOCK_SEQPACKET pair, typed messages,
 * at most one fd each), and each runs from a file of its own:
 *
 *   daemon    root with caps.c's capabilities; the index, the trash
 *             directories, inotify, the listening socket (kept only to
 *             hand to a new front, never accepted on).  Forks the others;
 *             re-forks the front if it dies, after a short backoff.
 *   front     front.c, "trashd-front": forked (front-link.c) before the
 *             index and the trash are opened; keeps only the listening
 *             socket and its channel to the daemon; chroot into an empty
 *             directory, user _trashd (else nobody, else 65534), no
 *             groups, no capabilities, no_new_privs.  Accepts clients,
 *             reads their SO_PEERCRED/SO_PEERGROUPS, checks every request
 *             with the protocol's decoder and answers bad ones itself.  It
 *             may ask the daemon three things: serve this client (one end
 *             of a socketpair, SCM_RIGHTS, with its credentials, the only
 *             ones the daemon believes), audit a refused request, log a
 *             line.  It relays whole valid requests one way and replies
 *             the other.  The daemon tells it one thing: start accepting.
 *   restore   restore-child.c, "trashd-restore", one per restore
 *             (restore.c forks it): the caller's uid, gid and groups, the
 *             filesystem's root and the trash dir it restores from;
 *             reports each entry.
 *   wipe      wipe-worker.c, "trashd-wipe" (wipeq.c forks it): the .wipe
 *             dirs, only CAP_DAC_OVERRIDE and CAP_LEASE; reports each
 *             wipe.
 */
#ifndef TRASHD_H
#define TRASHD_H

#include "front.h"
#include "daemon.h"

#endif /* TRASHD_H */
