/* SPDX-License-Identifier: ISC */
/*
 * The service manager's view of trashd (sd_notify(3), Type=notify):
 * READY=1 once the control socket accepts, so that what is ordered after
 * trashd.service finds trashctl answered; STATUS= while the index is
 * reconciled or rescanned, and one short steady line after, for
 * `systemctl status`; RELOADING=1 around a SIGHUP; STOPPING=1 at exit.
 *
 * Only the daemon sends (NotifyAccess=main): the restore children and
 * the wipe worker are forks that never call these.  Without
 * $NOTIFY_SOCKET (not under systemd, the tests, -d by hand) sd_notify()
 * does nothing and returns 0; a failure is worth a debug line at most,
 * trashd serves the same either way.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "base.h"

/* A status line; a longer one is cut short. */
#define NOTIFY_STATUS_MAX	256

/* @state ("" or "X=1\n") and STATUS= the formatted line. */
static void __attribute__((format(printf, 2, 0)))
notify_vsend(const char *state, const char *fmt, va_list ap)
{
	char st[NOTIFY_STATUS_MAX], msg[NOTIFY_STATUS_MAX + 32];
	char *p;
	int r;

	(void)vsnprintf(st, sizeof(st), fmt, ap);
	/* One line: a socket path with a newline must not end it early. */
	for (p = st; (p = strchr(p, '\n')) != NULL; )
		*p = '?';
	snprintf(msg, sizeof(msg), "%sSTATUS=%s", state, st);
	if ((r = sd_notify(0, msg)) < 0)
		log_debug("sd_notify: %s", strerror(-r));
}

static void __attribute__((format(printf, 2, 3)))
notify_send(const char *state, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notify_vsend(state, fmt, ap);
	va_end(ap);
}

/* STATUS=: what trashd is busy with. */
void
notify_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notify_vsend("", fmt, ap);
	va_end(ap);
}

static void
notify_steady_state(struct trashd *d, const char *state)
{
	const char *sock = d->conf != NULL && d->conf->socket != NULL ?
	    d->conf->socket : "";

	notify_send(state, "managing %zu filesystem%s, socket %s", d->nfs,
	    d->nfs == 1 ? "" : "s", sock);
}

/* The steady status again, after a rescan. */
void
notify_steady(struct trashd *d)
{
	notify_steady_state(d, "");
}

/* READY=1 and the steady status: only once the socket listens. */
void
notify_ready(struct trashd *d)
{
	notify_steady_state(d, "READY=1\n");
}

/* A SIGHUP: RELOADING=1 until notify_ready(). */
void
notify_reloading(void)
{
	notify_send("RELOADING=1\n", "reloading the configuration");
}

void
notify_stopping(void)
{
	notify_send("STOPPING=1\n", "stopping");
}
