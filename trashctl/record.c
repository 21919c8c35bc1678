/* SPDX-License-Identifier: ISC */
/*
 * A record of a reply (an entry, an audit row, a filesystem...) made
 * from the one table of its fields (struct rec_field): its JSON object,
 * lossless for any bytes (trashctl(1) JSON), and its row of a table for
 * people (table.c), so that the two cannot tell different stories.
 */
#include <inttypes.h>
#include <stdio.h>

#include "trashctl.h"

static bool
rec_end(const struct rec_field *f)
{
	return f->key == NULL && f->col == NULL;
}

/* "KEY":value of one field, as its kind says. */
static void
rec_json_field(const struct rec_field *f, const struct proto_msg *m)
{
	bool has = PROTO_HAS(m, f->attr);
	int64_t v = m->num[f->attr];

	if (!has && (f->flags & REC_M1))
		v = -1;
	switch (f->kind) {
	case REC_STR:
		json_field(stdout, f->key, m->str[f->attr]);
		return;
	case REC_USER:
		/* The uid itself is in a number field beside it. */
		if ((!has && (f->flags & REC_OPT)) || v < 0 ||
		    user_lookup(v) == NULL)
			printf("\"%s\":null", f->key);
		else
			json_field(stdout, f->key, user_lookup(v));
		return;
	case REC_FN:
		f->json(f->key, m);
		return;
	default:
		break;
	}
	printf("\"%s\":", f->key);
	if (f->kind == REC_TEXT)
		json_str(stdout, m->str[f->attr]);
	else if (f->kind == REC_BOOL)
		fputs(v & f->mask ? "true" : "false", stdout);
	else if (!has && (f->flags & REC_OPT))
		fputs("null", stdout);
	else
		printf("%" PRId64, v);
}

/*
 * The fields of @f with a JSON key, "KEY":value separated by commas;
 * one before the first too unless @first: what follows an object's
 * other fields (the totals after an array).
 */
void
rec_json(const struct rec_field *f, const struct proto_msg *m, bool first)
{
	for (; !rec_end(f); f++) {
		if (f->key == NULL ||
		    (f->when != 0 && !PROTO_HAS(m, f->when)) ||
		    ((f->flags & REC_OMIT) && !PROTO_HAS(m, f->attr)))
			continue;
		if (!first)
			putchar(',');
		first = false;
		rec_json_field(f, m);
	}
}

/* One element of a reply's array (json_item()): the object of @m. */
void
rec_json_item(struct ctx *ctx, const char *head, const struct rec_field *f,
    const struct proto_msg *m)
{
	json_item(ctx, head);
	putchar('{');
	rec_json(f, m, true);
	putchar('}');
}

/* The row of @m in @t, each shown column from its field. */
void
rec_row(struct tbl *t, const struct proto_msg *m)
{
	const struct rec_field *f;
	char buf[32];
	int i;

	tbl_row(t);
	for (i = 0, f = t->cols; !rec_end(f); i++, f++) {
		if (f->col == NULL || t->map[i] < 0 ||
		    ((f->flags & REC_OPT) && !PROTO_HAS(m, f->attr)))
			continue;
		switch (f->kind) {
		case REC_NUM:
		case REC_BOOL:
			tbl_fmt(t, i, "%" PRId64, m->num[f->attr]);
			break;
		case REC_STR:
		case REC_TEXT:
			tbl_str(t, i, m->str[f->attr]);
			break;
		case REC_USER:
			tbl_user(t, i, m->num[f->attr]);
			break;
		case REC_SIZE:
		case REC_TIME:
		case REC_AGE:
			(f->kind == REC_SIZE ? fmt_size : f->kind == REC_TIME ?
			    fmt_time : fmt_age)(buf, sizeof(buf),
			    m->num[f->attr]);
			tbl_str(t, i, buf);
			break;
		case REC_PCT:
			tbl_fmt(t, i, "%" PRId64 "%%", m->num[f->attr]);
			break;
		case REC_FN:
			f->cell(t, i, m);
			break;
		}
	}
}
