/* SPDX-License-Identifier: ISC */
/*
 * Which entries a restore or a wipe names: one by id, a version of an
 * original path, or a whole tree under a directory's path; only live
 * entries of the trash the request acts on.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verb.h"

/* The selection's failure to read the index, to the client. */
static int
select_fail(struct control_conn *c, int r)
{
	conn_reply_error(c, -r, "index: %s", strerror(-r));
	return r;
}

/* Entry @id, if it is a live one of uid @uid's trash. */
static int
select_id(struct control_conn *c, const struct proto_msg *m,
    uint32_t uid, struct entry_list *out, struct tfs **fsp,
    const char **base)
{
	struct trashd *d = c->d;
	struct entry e;

	snprintf(c->target, sizeof(c->target), "id=%" PRId64 " uid=%u",
	    m->num[A_ID], uid);
	if (index_get(d->db, m->num[A_ID], &e) < 0) {
		conn_reply_error(c, ENOENT, "no entry %" PRId64,
		    m->num[A_ID]);
		return -ENOENT;
	}
	if (e.trash_uid != uid) {
		uint32_t owner = e.trash_uid;

		entry_clear(&e);
		if (c->peer.admin && !PROTO_HAS(m, A_UID))
			conn_reply_error(c, EPERM, "entry %" PRId64 " is "
			    "in the trash of uid %u: name that user "
			    "explicitly", m->num[A_ID], owner);
		else
			conn_reply_error(c, EPERM, "entry %" PRId64 " is "
			    "not in the trash of uid %u", m->num[A_ID], uid);
		return -EPERM;
	}
	if (e.state != ENTRY_TRASHED) {
		conn_reply_error(c, EALREADY, "entry %" PRId64 " is %s",
		    e.id, entry_state_name(e.state));
		entry_clear(&e);
		return -EALREADY;
	}
	if ((*fsp = trash_fs(d, e.fs_id)) == NULL) {
		entry_clear(&e);
		conn_reply_error(c, ENODEV, "its filesystem is not "
		    "managed any more");
		return -ENODEV;
	}
	out->v = xmalloc(sizeof(*out->v));
	out->v[0] = e;
	out->n = 1;
	*base = e.orig_path != NULL ? e.orig_path : "";
	return 0;
}

/*
 * The @version-th newest entry deleted from exactly @rel (before @before,
 * 0: any time): 1 with it in @out, 0 if none was ever deleted from there
 * (@rel may be a directory), else -errno with the reply sent.
 */
static int
select_version(struct control_conn *c, const struct proto_msg *m,
    const struct tfs *fs, uint32_t uid, const char *rel, int64_t version,
    int64_t before, struct entry_list *out)
{
	struct entry_list l = { 0 };
	size_t i, j, k;
	int r;

	if ((r = index_by_path(c->d->db, fs->id, uid, rel, true, &l)) < 0)
		return select_fail(c, r);
	/* Newest first: skip the newer ones. */
	for (i = 0, k = 0; i < l.n; i++) {
		if (before > 0 && l.v[i].deleted_ns >= before)
			continue;
		if (++k == (size_t)version)
			break;
	}
	if (i < l.n) {
		out->v = xmalloc(sizeof(*out->v));
		out->v[0] = l.v[i];
		memset(&l.v[i], 0, sizeof(l.v[i]));
		out->n = 1;
		for (j = 0; j < l.n; j++)
			if (l.v[j].name != NULL)
				entry_clear(&l.v[j]);
		free(l.v);
		return 1;
	}
	if (l.n > 0) {
		entry_list_free(&l);
		conn_reply_error(c, ENOENT, "%s: no such version in the "
		    "trash", m->str[A_PATH]);
		return -ENOENT;
	}
	free(l.v);
	return 0;
}

/*
 * Every entry deleted from under @rel (before @before, 0: any time), the
 * newest of each original path.
 */
static int
select_dir(struct control_conn *c, const struct proto_msg *m,
    const struct tfs *fs, uint32_t uid, const char *rel, int64_t before,
    struct entry_list *out)
{
	struct entry_list l = { 0 };
	const char *last;
	size_t i;
	int r;

	if ((r = index_by_path(c->d->db, fs->id, uid, rel, false, &l)) < 0)
		return select_fail(c, r);
	/*
	 * Sorted by original path, newest first within one: keep the first
	 * of each path deleted before @before.
	 */
	out->v = l.n ? xcalloc(l.n, sizeof(*out->v)) : NULL;
	for (i = 0, last = NULL; i < l.n; i++) {
		if (before > 0 && l.v[i].deleted_ns >= before)
			continue;
		if (l.v[i].orig_path != NULL && last != NULL &&
		    strcmp(last, l.v[i].orig_path) == 0)
			continue;
		out->v[out->n] = l.v[i];
		memset(&l.v[i], 0, sizeof(l.v[i]));
		last = out->v[out->n++].orig_path;
	}
	for (i = 0; i < l.n; i++)
		if (l.v[i].name != NULL)
			entry_clear(&l.v[i]);
	free(l.v);
	if (out->n == 0) {
		entry_list_free(out);
		conn_reply_error(c, ENOENT, "%s: nothing in the trash of "
		    "uid %u was deleted from there", m->str[A_PATH], uid);
		return -ENOENT;
	}
	return 0;
}

/*
 * The entries a restore or wipe acts on, in uid @uid's trash: by id, or by
 * path: the newest whose original path is PATH (the @version-th newest,
 * deleted before @before), else every entry under PATH, the newest of
 * each original path.  *@fsp, *@base: the filesystem and the relative
 * path the selection was made by; *@dir: whether PATH was a directory.
 * Returns 0 or -errno with the reply sent.
 */
int
select_entries(struct control_conn *c, const struct proto_msg *m,
    uint32_t uid, const struct where *w, struct entry_list *out,
    struct tfs **fsp, const char **base, bool *dir)
{
	int64_t version = 1, before = 0;
	const char *rel = w->rel;
	int r;

	out->v = NULL;
	out->n = 0;
	*dir = false;
	if (PROTO_HAS(m, A_VERSION))
		version = m->num[A_VERSION];
	if (PROTO_HAS(m, A_BEFORE))
		before = m->num[A_BEFORE];
	if (version < 1) {
		conn_reply_error(c, EINVAL, "versions count from 1, the "
		    "newest");
		return -EINVAL;
	}
	if (PROTO_HAS(m, A_ID) == PROTO_HAS(m, A_PATH)) {
		conn_reply_error(c, EINVAL, "name an entry by id or by "
		    "path");
		return -EINVAL;
	}
	if (PROTO_HAS(m, A_ID))
		return select_id(c, m, uid, out, fsp, base);
	snprintf(c->target, sizeof(c->target), "uid=%u", uid);
	c->path = m->str[A_PATH];
	*fsp = w->fs;
	*base = rel;
	if (rel[0] != '\0' && (r = select_version(c, m, *fsp, uid,
	    rel, version, before, out)) != 0)
		return r < 0 ? r : 0;
	if (version != 1) {
		conn_reply_error(c, EINVAL, "--version picks one file, "
		    "not a directory");
		return -EINVAL;
	}
	*dir = true;
	return select_dir(c, m, *fsp, uid, rel, before, out);
}
