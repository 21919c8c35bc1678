/* SPDX-License-Identifier: ISC */
/*
 * Logging: syslog, or stderr in debug mode (-d) and in tests.
 * log_warn appends strerror(errno), log_warnx does not; fatal and fatalx
 * are for broken invariants only.
 *
 * Lines name users' files: each whole line is escaped here (vis.h, the
 * escaping trashctl(1) uses too) before syslog or a terminal sees it, so
 * no caller has to, and no name can inject a line or a control sequence.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "base.h"
#include "vis.h"

/* A line: a path of PATH_MAX and what trashd says about it. */
#define LOG_LINE_MAX	8192

static int log_to_stderr = 1;
static int log_verbose;
/* The front process's: its lines go to the parent, which logs them. */
static void (*log_sink_fn)(int pri, const char *line);

void
log_init(int to_stderr, int verbose)
{
	log_to_stderr = to_stderr;
	log_verbose = verbose;
	if (!to_stderr)
		openlog("trashd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	else
		/* One write per line, not one per piece of it. */
		(void)setvbuf(stderr, NULL, _IOLBF, 0);
	tzset();
}

/*
 * Send every line to @fn instead, unescaped (the receiver escapes it):
 * for a process that can reach neither syslog nor a terminal.
 */
void
log_sink(void (*fn)(int pri, const char *line))
{
	log_sink_fn = fn;
}

/* @line escaped, and ": strerror(@saved)" unless @saved is -1. */
static void
log_out(int pri, int saved, const char *line)
{
	char out[LOG_LINE_MAX];

	if (log_sink_fn != NULL) {
		if (saved >= 0) {
			snprintf(out, sizeof(out), "%s: %s", line,
			    strerror(saved));
			line = out;
		}
		log_sink_fn(pri, line);
		return;
	}
	vis_str(out, sizeof(out), line, 0);
	if (log_to_stderr) {
		if (saved >= 0)
			fprintf(stderr, "%s: %s\n", out, strerror(saved));
		else
			fprintf(stderr, "%s\n", out);
		fflush(stderr);
	} else if (saved >= 0) {
		syslog(pri, "%s: %s", out, strerror(saved));
	} else {
		syslog(pri, "%s", out);
	}
}

static void __attribute__((format(printf, 2, 0)))
log_vlog(int pri, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];

	vsnprintf(line, sizeof(line), fmt, ap);
	log_out(pri, -1, line);
}

static void __attribute__((format(printf, 3, 0)))
log_verr(int pri, int saved, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];

	vsnprintf(line, sizeof(line), fmt, ap);
	log_out(pri, saved, line);
}

void
log_warn(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_ERR, saved, fmt, ap);
	va_end(ap);
	errno = saved;
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_CRIT, saved, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
