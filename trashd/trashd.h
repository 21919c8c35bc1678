/* SPDX-License-Identifier: ISC */
/*
 * trashd, in layers.  Each file includes only its own layer's header,
 * which includes the one below; no file calls a layer above its own.
 * What a lower layer has to tell a higher one goes up through a callback.
 *
 *   main      trashd.c: options, signals, the event loop.  Includes this.
 *   daemon    daemon.c (daemon.h): open, reload, close; connects the
 *             services' hooks.
 *   front     control.c (control.h): the control socket; reads the
 *             clients' requests and calls the verb its table names.
 *   verbs     verb.h: verb-*.c, one file per request (as trashctl's
 *             cmd-*.c); select.c, the entries a restore or wipe names;
 *             conn.c, a connection's replies, deadline, audit record
 *             and end.  They call the services.
 *   services  services.h: scan.c (the lowest: reconciles the index with
 *             the trash), watch.c (inotify, feeds the scan), restore.c
 *             (restores as the caller, in a child), policy.c (purges on a
 *             timer), wipeq.c (the wipe queue and its worker).
 *   store     store.h: db.c, index.c, audit.c, policydb.c: the only
 *             files that speak SQL; journal.c, the audit records'
 *             copy in the journal.
 *   fs        fs.h: trash.c (the managed filesystems and their trash
 *             directories, held by fd), wipe.c (the secure wipe of one
 *             file).
 *   base      base.h: log.c, xmalloc.c, config.c, caps.c, notify.c
 *             (sd_notify), lock.c (one trashd per index), and struct
 *             trashd, the state every layer is handed, with the hooks
 *             through which the scan reports up.
 *
 * The daemon and the front stand side by side: neither calls the other.
 * The unit tests include this header, as main does.
 */
#ifndef TRASHD_H
#define TRASHD_H

#include "control.h"
#include "daemon.h"

#endif /* TRASHD_H */
