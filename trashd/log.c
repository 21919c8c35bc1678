/* SPDX-License-Identifier: ISC */
/*
 * Logging: syslog, or stderr in debug mode (-d) and in tests.
 * log_warn appends strerror(errno), log_warnx does not; fatal and fatalx
 * are for broken invariants only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "trashd.h"

static int log_to_stderr = 1;
static int log_verbose;

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

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

static void __attribute__((format(printf, 2, 0)))
log_vlog(int pri, const char *fmt, va_list ap)
{
	if (log_to_stderr) {
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		fflush(stderr);
	} else {
		vsyslog(pri, fmt, ap);
	}
}

static void __attribute__((format(printf, 3, 0)))
log_verr(int pri, int saved, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_to_stderr)
		fprintf(stderr, "%s: %s\n", buf, strerror(saved));
	else
		syslog(pri, "%s: %s", buf, strerror(saved));
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
