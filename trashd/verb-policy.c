/* SPDX-License-Identifier: ISC */
/*
 * The policy requests (admins only): the quotas, retentions and
 * watermarks, read and set.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "verb.h"

/*
 * One MSG_POLICY: quota and retention with @p, a watermark @wm (-1: not
 * set) of @fs (NULL: every filesystem) with @with_wm.
 */
static void
verb_policy_msg(struct control_conn *c, int kind, int64_t xid,
    const struct policy *p, bool with_wm, const struct tfs *fs, int64_t wm)
{
	struct proto_buf *b = xmalloc(sizeof(*b));

	proto_init(b, MSG_POLICY);
	proto_num(b, A_KIND, kind);
	if (xid >= 0)
		proto_num(b, A_XID, xid);
	if (p != NULL) {
		proto_num(b, A_QUOTA, p->quota);
		proto_num(b, A_RETENTION, p->retention);
		proto_str(b, A_QUOTA_TEXT, p->quota_text);
		proto_str(b, A_RETENTION_TEXT, p->retention_text);
	}
	if (with_wm) {
		if (fs != NULL)
			proto_str(b, A_FS, fs->path);
		proto_num(b, A_WATERMARK, wm);
	}
	conn_send(c, b);
	free(b);
}

/*
 * The defaults: those set over the socket (-1: not set), then the config
 * file's, each with its watermarks; the first set of these wins.
 */
static int
verb_policy_defaults(struct control_conn *c)
{
	struct trashd *d = c->d;
	struct policy p = { -1, -1, "", "" };
	size_t i;
	int wm, r;

	if ((r = policy_get(d, POLICY_DEFAULT, 0, &p)) < 0 && r != -ENOENT)
		return r;
	verb_policy_msg(c, PROTO_KIND_DEFAULT, -1, &p, false, NULL, 0);
	if ((r = policy_get_watermark(d, 0, &wm)) < 0 && r != -ENOENT)
		return r;
	verb_policy_msg(c, PROTO_KIND_DEFAULT, -1, NULL, true, NULL,
	    r == 0 ? wm : -1);
	for (i = 0; i < d->nfs; i++) {
		if ((r = policy_get_watermark(d, d->fs[i].id, &wm)) < 0 &&
		    r != -ENOENT)
			return r;
		verb_policy_msg(c, PROTO_KIND_DEFAULT, -1, NULL, true,
		    &d->fs[i], r == 0 ? wm : -1);
	}
	/* trashd.conf's, as written there (config_keep_text()). */
	p.quota = (int64_t)d->conf->quota;
	p.retention = d->conf->retention;
	snprintf(p.quota_text, sizeof(p.quota_text), "%s",
	    d->conf->quota_text);
	snprintf(p.retention_text, sizeof(p.retention_text), "%s",
	    d->conf->retention_text);
	verb_policy_msg(c, PROTO_KIND_CONFIG, -1, &p, false, NULL, 0);
	for (i = 0; i < d->nfs; i++)
		verb_policy_msg(c, PROTO_KIND_CONFIG, -1, NULL, true,
		    &d->fs[i], d->fs[i].watermark);
	return 0;
}

static int
verb_policy_kind(struct control_conn *c, const struct proto_msg *m,
    enum policy_kind *kind, uint32_t *xid)
{
	int64_t k = m->num[A_KIND];

	if (k != PROTO_KIND_USER && k != PROTO_KIND_GROUP &&
	    k != PROTO_KIND_DEFAULT) {
		conn_reply_error(c, EINVAL, "unknown policy kind");
		return -EINVAL;
	}
	snprintf(c->target, sizeof(c->target), "%s",
	    k == PROTO_KIND_USER ? "user" : k == PROTO_KIND_GROUP ? "group" :
	    "default");
	if (k == PROTO_KIND_DEFAULT)
		return 1;
	if (!PROTO_HAS(m, A_XID) || m->num[A_XID] < 0 ||
	    m->num[A_XID] > TRASHBIN_UID_MAX) {
		conn_reply_error(c, EINVAL, "a policy of a %s needs its id",
		    c->target);
		return -EINVAL;
	}
	*kind = k == PROTO_KIND_USER ? POLICY_USER : POLICY_GROUP;
	*xid = (uint32_t)m->num[A_XID];
	snprintf(c->target + strlen(c->target),
	    sizeof(c->target) - strlen(c->target), " %u", *xid);
	return 0;
}

void
verb_policy_get(struct control_conn *c, const struct proto_msg *m)
{
	struct trashd *d = c->d;
	struct proto_buf *b;
	struct policy p = { -1, -1, "", "" };
	enum policy_kind kind = POLICY_USER;
	uint32_t xid = 0;
	int r;

	if ((r = verb_policy_kind(c, m, &kind, &xid)) < 0)
		return;
	if (r == 1)
		r = verb_policy_defaults(c);
	else if ((r = policy_get(d, kind, xid, &p)) == 0 || r == -ENOENT)
		verb_policy_msg(c, (int)m->num[A_KIND], xid, &p, false,
		    NULL, 0);
	if (r < 0 && r != -ENOENT) {
		conn_reply_error(c, -r, "index: %s", strerror(-r));
		return;
	}
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	conn_reply_ok(c, b);
	free(b);
}

/* The filesystem a watermark is set for: A_FS's, or NULL for all. */
static int
verb_policy_wm_fs(struct control_conn *c, const struct proto_msg *m,
    struct tfs **fsp)
{
	const char *rel;

	*fsp = NULL;
	if (PROTO_HAS(m, A_FS) && (trash_path_fs(c->d, m->str[A_FS], fsp,
	    &rel) < 0 || rel[0] != '\0')) {
		conn_reply_error(c, ENOENT, "%s: not a filesystem trashd "
		    "manages", m->str[A_FS]);
		return -ENOENT;
	}
	snprintf(c->target + strlen(c->target), sizeof(c->target) -
	    strlen(c->target), " watermark %s", *fsp != NULL ?
	    (*fsp)->path : "all");
	return 0;
}

/*
 * A value's text as the admin typed it (A_QUOTA_TEXT, A_RETENTION_TEXT):
 * kept only if the shared parser reads it as the very number given, so
 * that what is shown can never differ from what is enforced.  0, or
 * -EINVAL with the reply sent.
 */
static int
verb_policy_text(struct control_conn *c, const struct proto_msg *m,
    int num, int text, char *out)
{
	const char *s = m->str[text], *why = "";
	uint64_t bytes;
	int64_t secs, v;
	int r;

	out[0] = '\0';
	if (s == NULL)
		return 0;
	if (!PROTO_HAS(m, num) || m->num[num] < 0) {
		conn_reply_error(c, EINVAL, "%s: a text without its value",
		    proto_attr_name(text));
		return -EINVAL;
	}
	if (num == A_QUOTA) {
		r = parse_size_limit(s, &bytes, &why);
		v = (int64_t)bytes;
	} else {
		r = parse_duration_limit(s, &secs, &why);
		v = secs;
	}
	/* PROTO_TEXT_MAX, which clients keep to, fits POLICY_TEXT_MAX. */
	if (r < 0 || v != m->num[num] || strlen(s) >= POLICY_TEXT_MAX) {
		conn_reply_error(c, EINVAL, "%s does not say the %s given",
		    proto_attr_name(text), proto_attr_name(num));
		return -EINVAL;
	}
	snprintf(out, POLICY_TEXT_MAX, "%s", s);
	return 0;
}

/*
 * "policy set": all of it or none of it, in one transaction, and one
 * reply, a MSG_POLICY with what was set (the limits, the watermark or
 * both), sent once it is committed.
 */
void
verb_policy_set(struct control_conn *c, const struct proto_msg *m)
{
	struct proto_buf *b;
	struct policy p;
	struct tfs *fs = NULL;
	struct policy_change ch = { .kind = POLICY_USER };
	char qtext[POLICY_TEXT_MAX], rtext[POLICY_TEXT_MAX];
	uint32_t xid = 0;
	size_t i;
	int r;

	if ((r = verb_policy_kind(c, m, &ch.kind, &xid)) < 0)
		return;
	if (r == 1)
		ch.kind = POLICY_DEFAULT;
	ch.xid = xid;
	ch.quota = PROTO_HAS(m, A_QUOTA);
	ch.retention = PROTO_HAS(m, A_RETENTION);
	ch.watermark = PROTO_HAS(m, A_WATERMARK);
	if ((ch.watermark || PROTO_HAS(m, A_FS)) &&
	    ch.kind != POLICY_DEFAULT) {
		conn_reply_error(c, EINVAL, "watermarks are per "
		    "filesystem: set them with the default policy");
		return;
	}
	if (!ch.quota && !ch.retention && !ch.watermark) {
		conn_reply_error(c, EINVAL, "nothing to set");
		return;
	}
	if ((ch.quota && m->num[A_QUOTA] < -1) ||
	    (ch.retention && (m->num[A_RETENTION] < -1 ||
	    m->num[A_RETENTION] > INT64_MAX / NSEC_PER_SEC)) ||
	    (ch.watermark && (m->num[A_WATERMARK] < -1 ||
	    m->num[A_WATERMARK] > 100))) {
		conn_reply_error(c, EINVAL, "value out of range");
		return;
	}
	if (verb_policy_text(c, m, A_QUOTA, A_QUOTA_TEXT, qtext) < 0 ||
	    verb_policy_text(c, m, A_RETENTION, A_RETENTION_TEXT,
	    rtext) < 0)
		return;
	if (ch.watermark && verb_policy_wm_fs(c, m, &fs) < 0)
		return;
	ch.quota_v = ch.quota ? m->num[A_QUOTA] : -1;
	ch.retention_v = ch.retention ? m->num[A_RETENTION] : -1;
	ch.quota_text = qtext;
	ch.retention_text = rtext;
	ch.wm_fs = fs;
	ch.wm = ch.watermark ? (int)m->num[A_WATERMARK] : 0;
	if ((r = policy_change(c->d, &ch, &p)) < 0) {
		conn_reply_error(c, -r, "cannot set the policy: %s",
		    strerror(-r));
		return;
	}
	/* The kernel's low mark follows the watermark. */
	for (i = 0; ch.watermark && i < c->d->nfs; i++)
		if (fs == NULL || fs == &c->d->fs[i])
			pressure_watermark(c->d, &c->d->fs[i]);
	snprintf(c->result, sizeof(c->result), "ok:");
	if (ch.watermark)
		snprintf(c->result + strlen(c->result), sizeof(c->result) -
		    strlen(c->result), " watermark=%d", ch.wm);
	if (ch.quota || ch.retention)
		snprintf(c->result + strlen(c->result), sizeof(c->result) -
		    strlen(c->result), " quota=%" PRId64 " retention=%"
		    PRId64, p.quota, p.retention);
	verb_policy_msg(c, (int)m->num[A_KIND], ch.kind == POLICY_DEFAULT ?
	    -1 : (int64_t)xid, ch.quota || ch.retention ? &p : NULL,
	    ch.watermark, fs, ch.watermark ? m->num[A_WATERMARK] : 0);
	b = xmalloc(sizeof(*b));
	proto_init(b, MSG_OK);
	conn_reply_ok(c, b);
	free(b);
}
