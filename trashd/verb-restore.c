/* SPDX-License-Identifier: ISC */
/*
 * The restore request: the entries asked for, selected by id, version
 * or original path (a file or a tree), restored as the caller by
 * restore.c.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verb.h"

/*
 * Restores running at once, of everyone.  Each uid has restore-max of them
 * (trashd.conf).  Past CONTROL_RESTORES_FAIR, only a uid with none running
 * may start one, so a few users whose restores hang (into a FUSE mount
 * that never answers, or a child they stopped with SIGSTOP: it runs as
 * them) hold up no one else until restore-timeout; CONTROL_RESTORES_MAX
 * bounds the daemon's children and descriptors all the same.
 */
#define CONTROL_RESTORES_FAIR	16
#define CONTROL_RESTORES_MAX	64

/* Where entry @e goes: its original path, or under --to. */
static char *
verb_restore_target(const struct entry *e, const char *base, bool dir,
    const char *to)
{
	const char *tail;
	char *t;

	if (e->orig_path == NULL || trash_rel_valid(e->orig_path,
	    false) < 0)
		return NULL;	/* unknown or unsafe: refused */
	if (to == NULL)
		return xstrdup(e->orig_path);
	if (!dir)
		return to[0] != '\0' ? xstrdup(to) : NULL;
	tail = e->orig_path + strlen(base);
	while (*tail == '/')
		tail++;
	if (to[0] == '\0')
		return xstrdup(tail);
	xasprintf(&t, "%s/%s", to, tail);
	return t;
}

/* A restore's replies, to the connection it was started for. */
static void
verb_restore_send(void *c, struct proto_buf *b)
{
	conn_send(c, b);
}

static void
verb_restore_done(void *c)
{
	conn_request_done(c);
}

static const struct restore_client control_restore_client = {
	.send = verb_restore_send,
	.done = verb_restore_done,
};


void
verb_restore(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct entry_list l = { 0 };
	struct where w;
	struct tfs *fs;
	struct tuid *tu;
	struct creds cr = { 0 };
	const char *base, *to = NULL;
	char **targets = NULL;
	mode_t mask = 022;
	uint32_t uid;
	bool dir;
	size_t i, n, all;
	int r;

	if (conn_target_uid(c, m, &uid) < 0)
		return;
	/*
	 * Acting for root would be root's rights at the destination (write
	 * anywhere, replace anything): the admin group is no way to root.
	 */
	if (uid == 0 && c->peer.uid != 0) {
		conn_reply_error(c, EPERM, "root's trash is restored by "
		    "root alone: for root, an admin would write as root");
		return;
	}
	/* A user whose restores hang holds their own slots, not others'. */
	if ((n = restore_running_uid(d, c->peer.uid)) >= d->conf->restore_max) {
		conn_reply_error(c, EBUSY, "busy: you have %zu restore%s "
		    "running (at most %u at once); try again when one ends",
		    n, n == 1 ? "" : "s", d->conf->restore_max);
		return;
	}
	if ((all = restore_running(d)) >= CONTROL_RESTORES_MAX ||
	    (all >= CONTROL_RESTORES_FAIR && n > 0)) {
		conn_reply_error(c, EBUSY, "too many restores running (%zu, "
		    "%zu of them yours); try again", all, n);
		return;
	}
	if (conn_where(c, m, &w) < 0)
		return;
	if (select_entries(c, m, uid, &w, &l, &fs, &base, &dir) < 0)
		return;
	if ((to = w.to) != NULL) {
		if (w.tofs != fs) {
			conn_reply_error(c, EXDEV, "%s: not on the "
			    "filesystem of the entries (%s)", m->str[A_TO],
			    fs->path);
			goto out;
		}
		/* A file goes to a name, not to the filesystem's root. */
		if (to[0] == '\0' && !dir) {
			conn_reply_error(c, EINVAL, "%s: not a plain "
			    "absolute path", m->str[A_TO]);
			goto out;
		}
	}
	/*
	 * Directories a restore makes: the client's umask may take bits away,
	 * never make them group or world writable.  For another user's entries
	 * the admin's umask says nothing of that user's wishes: 0700, theirs
	 * to open up.
	 */
	if (PROTO_HAS(m, A_UMASK))
		mask = (mode_t)(m->num[A_UMASK] & 0777);
	mask |= 022;
	if (uid != c->peer.uid)
		mask = 077;
	if ((r = trash_uid(fs, uid, &tu)) < 0) {
		conn_reply_error(c, -r, "%s/%s/%u: %s", fs->path,
		    TRASHBIN_DIR, uid, strerror(-r));
		goto out;
	}
	if ((r = restore_creds(&c->peer, uid, tu->fd, &cr)) < 0) {
		conn_reply_error(c, -r, "cannot take the credentials of "
		    "uid %u: %s", uid, strerror(-r));
		goto out;
	}
	targets = xcalloc(l.n, sizeof(*targets));
	for (i = 0; i < l.n; i++)
		targets[i] = verb_restore_target(&l.v[i], base, dir, to);
	snprintf(c->result, sizeof(c->result), "ok: %zu entr%s, as uid %u%s",
	    l.n, l.n == 1 ? "y" : "ies", uid, uid != c->peer.uid ?
	    " (on behalf)" : "");
	c->busy = true;
	r = restore_start(d, &control_restore_client, c, &c->peer, fs, uid,
	    &cr, &l, targets, PROTO_HAS(m, A_OVERWRITE) &&
	    m->num[A_OVERWRITE], mask, &c->job);
	/* restore_start took the list and the targets, even on failure. */
	targets = NULL;
	if (r < 0) {
		c->busy = false;
		c->result[0] = '\0';
		conn_reply_error(c, -r, "cannot start the restore: %s",
		    strerror(-r));
	}
out:
	restore_creds_free(&cr);
	if (targets != NULL) {
		for (i = 0; i < l.n; i++)
			free(targets[i]);
		free(targets);
	}
	entry_list_free(&l);
}
