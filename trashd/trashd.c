/* SPDX-License-Identifier: ISC */
/*
 * trashd: index the kernel's trash, enforce quota and retention, wipe +s
 * entries.  Runs in the foreground (systemd Type=notify, notify.c);
 * SIGTERM and SIGINT exit cleanly, SIGHUP reloads the configuration.
 */
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "proto.h"
#include "trashd.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: trashd [-dnt] [-f file]\n"
	    "       trashd -h | -V\n");
	exit(2);
}

/* --help: the options, and the paths this build compiled in. */
static void __attribute__((noreturn))
help(void)
{
	printf("usage: trashd [-dnt] [-f file]\n"
	    "       trashd -h | -V\n"
	    "Index the kernel's trash, enforce quota and retention, wipe +s "
	    "entries.\n"
	    "  -d             debug: log to standard error, debug messages "
	    "too\n"
	    "  -f file        read the configuration from file\n"
	    "  -n             check the configuration and exit\n"
	    "  -t             check the configuration, the index and its "
	    "directory, and exit\n"
	    "  -h, --help     print this help and exit\n"
	    "  -V, --version  print the version and exit\n"
	    "Compiled-in paths (the configuration may move the last two):\n"
	    "  configuration  %s\n"
	    "  index          %s\n"
	    "  socket         %s\n"
	    "See trashd(8) and trashd.conf(5).\n",
	    TRASHD_CONF, TRASHD_DB, TRASHD_SOCKET);
	exit(0);
}

static void __attribute__((noreturn))
version(void)
{
	printf("trashd %s (protocol %d, index schema %d)\n", TRASHBIN_VERSION,
	    PROTOCOL_VERSION, db_latest_version());
	exit(0);
}

/*
 * -n: the configuration alone.  -t: what start-up and a reload would
 * refuse, found without touching anything: the configuration, then the
 * index's directory and files (ExecStartPre= and ExecReload= run it).
 */
static int
trashd_check(const char *conffile, bool index)
{
	struct config *conf;
	char err[1024];
	int r;

	if ((conf = config_load(conffile, err, sizeof(err))) == NULL) {
		fprintf(stderr, "trashd: %s\n", err);
		return 1;
	}
	r = index ? db_check(conf->database, err, sizeof(err)) : 0;
	if (r < 0)
		fprintf(stderr, "trashd: %s: index: %s\n", conffile, err);
	else if (index)
		fprintf(stderr, "trashd: %s: configuration OK, index %s OK\n",
		    conffile, conf->database);
	else
		fprintf(stderr, "trashd: %s: configuration OK\n", conffile);
	config_free(conf);
	return r < 0;
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
	notify_reloading();
	if ((c = config_load(d->conffile, err, sizeof(err))) == NULL) {
		log_warnx("reload: %s; keeping the running configuration",
		    err);
		notify_ready(d);
		return;
	}
	if (daemon_reload(d, c) == 0)
		log_info("reload: %s", d->conffile);
	notify_ready(d);
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
	struct front *front = NULL;
	struct trashd d;
	struct config *conf;
	struct event_base *base;
	const char *conffile = TRASHD_CONF;
	int check = 0;
	char err[1024];
	int ch, debug = 0, lockfd, r;
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};

	while ((ch = getopt_long(argc, argv, "df:hntV", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			debug = 1;
			break;
		case 'f':
			conffile = optarg;
			break;
		case 'h':
			help();
		case 'n':
			check = 1;
			break;
		case 't':
			check = 2;
			break;
		case 'V':
			version();
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (check)
		return trashd_check(conffile, check == 2);
	log_init(debug, debug);
	journal_init(!debug);
	if ((conf = config_load(conffile, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return 1;
	}
	if (geteuid() != 0)
		fatalx("must run as root");
	/* Before anything is opened: a second trashd touches nothing. */
	if ((lockfd = lock_index(conf->database, err, sizeof(err))) < 0) {
		log_warnx("%s", err);
		if (!debug && isatty(STDERR_FILENO))
			fprintf(stderr, "trashd: %s\n", err);
		config_free(conf);
		return 1;
	}
	trashd_raise_nofile();
	if ((r = caps_drop()) < 0) {
		errno = -r;
		fatal("dropping capabilities");
	}
	signal(SIGPIPE, SIG_IGN);
	if ((base = event_base_new()) == NULL)
		fatalx("event_base_new");
	/*
	 * The front first, before the index and the trash directories are
	 * opened: it inherits nothing of them (front.c).
	 */
	if (conf->socket != NULL && conf->socket[0] != '\0' &&
	    (front = front_start(conf, base)) == NULL)
		fatalx("cannot listen on %s", conf->socket);
	notify_status("reconciling the index with %zu filesystem%s",
	    conf->nfs, conf->nfs == 1 ? "" : "s");
	if (daemon_open(&d, conf, base, err, sizeof(err)) < 0)
		fatalx("%s", err);
	d.conffile = xstrdup(conffile);
	if (control_init(&d) < 0)
		fatalx("control: cannot start");
	ev_term = evsignal_new(base, SIGTERM, trashd_sig_exit, &d);
	ev_int = evsignal_new(base, SIGINT, trashd_sig_exit, &d);
	ev_hup = evsignal_new(base, SIGHUP, trashd_sig_hup, &d);
	if (ev_term == NULL || ev_int == NULL || ev_hup == NULL ||
	    evsignal_add(ev_term, NULL) || evsignal_add(ev_int, NULL) ||
	    evsignal_add(ev_hup, NULL))
		fatalx("cannot add signal events");
	/* Clients now: one that connects is answered, SIGTERM is handled. */
	front_attach(front, &d);
	log_info("started, %zu filesystem%s", d.nfs, d.nfs == 1 ? "" : "s");
	notify_ready(&d);
	r = event_base_dispatch(base);
	notify_stopping();
	event_free(ev_term);
	event_free(ev_int);
	event_free(ev_hup);
	free(d.conffile);
	front_stop(front);
	control_close(&d);
	daemon_close(&d);
	event_base_free(base);
	close(lockfd);
	log_info("exited");
	return r < 0 ? 1 : 0;
}
