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

/*
 * A line: a path of PATH_MAX and what trashd says about it.  A longer one
 * is cut, and ends in LOG_CUT: the cut shows in the log.
 */
#define LOG_LINE_MAX	8192
#define LOG_CUT		"..."

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

/*
 * The end of the line in @buf (@size bytes, full) replaced by LOG_CUT,
 * a cut anyone reading the log sees; never inside a UTF-8 character.
 */
void
log_cut(char *buf, size_t size)
{
	size_t at = size - sizeof(LOG_CUT);

	while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(buf + at, LOG_CUT, sizeof(LOG_CUT));
}

/* @fmt into @buf of @size bytes, cut with LOG_CUT if it does not fit. */
static void __attribute__((format(printf, 3, 0)))
log_format(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		snprintf(buf, size, "(a log line failed to format: %s)", fmt);
	else if ((size_t)n >= size)
		log_cut(buf, size);
}

/*
 * ": @err" after the line in @buf (@size bytes): whole, the line cut with
 * LOG_CUT to make room for it if need be.
 */
static void
log_append_err(char *buf, size_t size, const char *err)
{
	size_t len = strlen(buf), elen = strlen(err) + 2;

	if (elen + sizeof(LOG_CUT) > size)
		return;		/* cannot happen: strerror() is short */
	if (len + elen >= size) {
		len = size - elen;	/* the line's room, its NUL included */
		log_cut(buf, len);
		len = strlen(buf);
	}
	buf[len++] = ':';
	buf[len++] = ' ';
	memcpy(buf + len, err, elen - 1);
}

/*
 * @line escaped, and ": strerror(@saved)" unless @saved is -1.  Escaped,
 * a line can grow 4 times: it is cut with LOG_CUT, the error kept whole.
 */
static void
log_out(int pri, int saved, const char *line)
{
	char out[LOG_LINE_MAX];
	const char *err = saved >= 0 ? strerror(saved) : NULL;
	size_t room = sizeof(out), n;

	if (log_sink_fn != NULL) {
		/* The receiver escapes it. */
		n = strnlen(line, sizeof(out) - 1);
		memcpy(out, line, n);
		out[n] = '\0';
	} else {
		/* The escaped line's room: the error's kept for it. */
		if (err != NULL && strlen(err) + 2 + 2 * sizeof(LOG_CUT) < room)
			room -= strlen(err) + 2;
		if (vis_str(out, room, line, 0) >= room) {
			/* Cut between escapes, with room for the mark. */
			vis_str(out, room - strlen(LOG_CUT), line, 0);
			strcat(out, LOG_CUT);
		}
	}
	if (err != NULL)
		log_append_err(out, sizeof(out), err);
	if (log_sink_fn != NULL) {
		log_sink_fn(pri, out);
	} else if (log_to_stderr) {
		fprintf(stderr, "%s\n", out);
		fflush(stderr);
	} else {
		syslog(pri, "%s", out);
	}
}

static void __attribute__((format(printf, 2, 0)))
log_vlog(int pri, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];

	log_format(line, sizeof(line), fmt, ap);
	log_out(pri, -1, line);
}

static void __attribute__((format(printf, 3, 0)))
log_verr(int pri, int saved, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];

	log_format(line, sizeof(line), fmt, ap);
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
