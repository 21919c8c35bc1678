/* SPDX-License-Identifier: ISC */
/*
 * Audit records to the journal, as structured fields (sd_journal_sendv),
 * so that a fleet forwards and queries them with what it already runs:
 *   journalctl MESSAGE_ID=d5b718d6bf294d038a60b952ab2b1660 OWNER_UID=1000
 * journald's forwarding (to syslog, to a remote journal) carries them.
 * The record's fields as trashd(8) lists them, each only where it
 * applies; NAME and PATH are the user's bytes as they are (the journal
 * keeps any byte, newlines too), MESSAGE is the escaped line of log.c.
 *
 * The index's audit table stays the record trashctl audit reads; the
 * journal gets the same, in addition.  A record the journal took is not
 * written to syslog again (journald forwards it there itself); without a
 * journal (no systemd, -d) the syslog or stderr line is all there is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "store.h"
#include "vis.h"

/* Every audit record carries it: trashd(8), "Audit". */
#define JOURNAL_AUDIT_MESSAGE_ID	"d5b718d6bf294d038a60b952ab2b1660"

static bool journal_enabled;

/* trashd.c: on unless -d (everything to stderr then, as log.c does). */
void
journal_init(bool enable)
{
	journal_enabled = enable;
}

static void __attribute__((format(printf, 2, 3)))
journal_add(struct journal_fields *jf, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (jf->n == JOURNAL_FIELDS_MAX)
		fatalx("journal: more than %d fields", JOURNAL_FIELDS_MAX);
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("vasprintf");
	va_end(ap);
	jf->iov[jf->n].iov_base = s;
	jf->iov[jf->n].iov_len = strlen(s);
	jf->n++;
}

/*
 * The fields of record @a, @line its text (unescaped, as for log_info).
 * The one composition of a journal audit record: journal_audit() sends
 * exactly this.
 */
void
journal_audit_fields(const struct audit_rec *a, const char *line,
    struct journal_fields *jf)
{
	size_t len = VIS_LEN(strlen(line));
	char *msg = xmalloc(len);

	jf->n = 0;
	vis_str(msg, len, line, 0);
	journal_add(jf, "MESSAGE=%s", msg);
	free(msg);
	journal_add(jf, "MESSAGE_ID=%s", JOURNAL_AUDIT_MESSAGE_ID);
	journal_add(jf, "PRIORITY=%d", 6);	/* LOG_INFO */
	journal_add(jf, "SYSLOG_IDENTIFIER=trashd");
	journal_add(jf, "ACTION=%s", a->action);
	journal_add(jf, "RESULT=%s", a->result != NULL ? a->result : "");
	if (a->uid >= 0)
		journal_add(jf, "ACTOR_UID=%" PRId64, a->uid);
	if (a->pid > 0)		/* 0: the kernel */
		journal_add(jf, "ACTOR_PID=%" PRId64, a->pid);
	if (a->entry_id > 0)
		journal_add(jf, "ENTRY_ID=%" PRId64, a->entry_id);
	if (a->fs != NULL)
		journal_add(jf, "FS=%s", a->fs);
	if (a->trash_uid >= 0)
		journal_add(jf, "TRASH_UID=%" PRId64, a->trash_uid);
	if (a->owner_uid >= 0)
		journal_add(jf, "OWNER_UID=%" PRId64, a->owner_uid);
	if (a->name != NULL)
		journal_add(jf, "NAME=%s", a->name);
	if (a->path != NULL)
		journal_add(jf, "PATH=%s", a->path);
	if (a->detail != NULL)
		journal_add(jf, "DETAIL=%s", a->detail);
}

void
journal_fields_free(struct journal_fields *jf)
{
	size_t i;

	for (i = 0; i < jf->n; i++)
		free(jf->iov[i].iov_base);
	jf->n = 0;
}

/* Send record @a (text @line); 0, or -errno when the journal did not. */
int
journal_audit(const struct audit_rec *a, const char *line)
{
	struct journal_fields jf;
	int r;

	if (!journal_enabled)
		return -ENOTCONN;
	journal_audit_fields(a, line, &jf);
	r = sd_journal_sendv(jf.iov, (int)jf.n);
	journal_fields_free(&jf);
	return r;
}
