/* SPDX-License-Identifier: ISC */
/*
 * trashd: index the kernel's trash, enforce quota and retention, wipe +s
 * entries.  Runs in the foreground (systemd Type=simple); SIGTERM and
 * SIGINT exit cleanly, SIGHUP reloads the configuration.
 */
#include <errno.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "trashd.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: trashd [-dn] [-f config]\n");
	exit(2);
}

static void
trashd_sig_exit(evutil_socket_t sig, short ev, void *arg)
{
	struct trashd *d = arg;

	(void)ev;
	log_info("signal %d: exiting", (int)sig);
	event_base_loopexit(d->base, NULL);
}

static void
trashd_sig_hup(evutil_socket_t sig, short ev, void *arg)
{
	struct trashd *d = arg;
	struct config *c;
	char err[1024];

	(void)sig;
	(void)ev;
	if ((c = config_load(d->conffile, err, sizeof(err))) == NULL) {
		log_warnx("reload: %s; keeping the running configuration",
		    err);
		return;
	}
	if (daemon_reload(d, c) == 0)
		log_info("reload: %s", d->conffile);
}

/* One fd per per-uid dir is held: allow as many as the hard limit. */
static void
trashd_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int
main(int argc, char *argv[])
{
	struct event *ev_term, *ev_int, *ev_hup;
	struct trashd d;
	struct config *conf;
	struct event_base *base;
	const char *conffile = TRASHD_CONF;
	char err[1024];
	int ch, debug = 0, noaction = 0, r;

	while ((ch = getopt(argc, argv, "df:n")) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			conffile = optarg;
			break;
		case 'n':
			noaction = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init(debug || noaction, debug);
	if ((conf = config_load(conffile, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return 1;
	}
	if (noaction) {
		fprintf(stderr, "%s: configuration OK\n", conffile);
		config_free(conf);
		return 0;
	}
	if (geteuid() != 0)
		fatalx("must run as root");
	trashd_raise_nofile();
	if ((r = caps_drop()) < 0) {
		errno = -r;
		fatal("dropping capabilities");
	}
	signal(SIGPIPE, SIG_IGN);
	if ((base = event_base_new()) == NULL)
		fatalx("event_base_new");
	if (daemon_open(&d, conf, base, err, sizeof(err)) < 0)
		fatalx("%s", err);
	d.conffile = xstrdup(conffile);
	if (control_init(&d) < 0)
		fatalx("cannot listen on %s", d.conf->socket);
	ev_term = evsignal_new(base, SIGTERM, trashd_sig_exit, &d);
	ev_int = evsignal_new(base, SIGINT, trashd_sig_exit, &d);
	ev_hup = evsignal_new(base, SIGHUP, trashd_sig_hup, &d);
	if (ev_term == NULL || ev_int == NULL || ev_hup == NULL ||
	    evsignal_add(ev_term, NULL) || evsignal_add(ev_int, NULL) ||
	    evsignal_add(ev_hup, NULL))
		fatalx("cannot add signal events");
	log_info("started, %zu filesystem%s", d.nfs, d.nfs == 1 ? "" : "s");
	r = event_base_dispatch(base);
	event_free(ev_term);
	event_free(ev_int);
	event_free(ev_hup);
	free(d.conffile);
	control_close(&d);
	daemon_close(&d);
	event_base_free(base);
	log_info("exited");
	return r < 0 ? 1 : 0;
}
