/* SPDX-License-Identifier: ISC */
/*
 * Tables for people, through libsmartcols: the columns a command offers
 * (the fields of its records with a column, record.c), the ones --output
 * picks, --raw and --noheadings.  JSON is not made here (record.c makes
 * it from the same fields, lossless for any bytes: trashctl(1) JSON).
 *
 * Escaping (trashctl(1), "Escaping") stays the one of common/vis.c:
 *   - aligned tables: every string of a reply was escaped by client.c
 *     before the command saw it, names from getpwuid() by user_name(),
 *     and libsmartcols is told not to encode (it would escape the '\' of
 *     "\x1b" again, and leave the bidi controls raw);
 *   - --raw: libsmartcols always encodes raw output, each byte that is
 *     not printable ASCII or is blank or '\' as \xHH, which is the same
 *     form and escapes a superset of those bytes.  So client.c leaves a
 *     reply's strings as they are (ctx->raw), and here they are handed
 *     over as bytes, escaped once, by libsmartcols.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libsmartcols.h>

#include "trashctl.h"
#include "vis.h"

static void
tbl_oom(void)
{
	fprintf(stderr, "trashctl: out of memory\n");
	exit(EXIT_ERROR);
}

/* The index of the field whose column is named @name (any case), or -1. */
static int
tbl_find(const struct rec_field *f, const char *name, size_t len)
{
	int i;

	for (i = 0; f[i].key != NULL || f[i].col != NULL; i++)
		if (f[i].col != NULL && strlen(f[i].col) == len &&
		    strncasecmp(f[i].col, name, len) == 0)
			return i;
	return -1;
}

/* The columns named in @spec ("ID,PATH", any case), after those shown. */
static int
tbl_pick(struct tbl *t, const char *spec)
{
	const char *p;
	size_t len;
	int i;

	for (p = spec; *p != '\0'; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if ((i = tbl_find(t->cols, p, len)) < 0 || len == 0) {
			t->bad = p;
			t->bad_len = (int)len;
			return -EINVAL;
		}
		/* Named twice: shown once. */
		if (t->map[i] < 0)
			t->map[i] = (int)t->nout++;
	}
	return 0;
}

/*
 * The columns: ctx->output's ("ID,PATH", any case; "+SIZE" adds to the
 * default ones), else @defcols, the command's.
 * 0, or -EINVAL for a name that is no column (t->bad, t->bad_len: the
 * caller says so), -ENODATA for no columns.
 */
int
tbl_init(struct tbl *t, struct ctx *ctx, const struct rec_field *cols,
    const char *defcols)
{
	const char *spec = ctx->output;
	int i, r;

	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	t->cols = cols;
	for (i = 0; i < TBL_MAX; i++)
		t->map[i] = -1;
	if ((spec == NULL || spec[0] == '+') &&
	    (r = tbl_pick(t, defcols)) < 0)
		return r;
	if (spec != NULL && (r = tbl_pick(t, spec + (spec[0] == '+'))) < 0)
		return r;
	return t->nout == 0 ? -ENODATA : 0;
}

/* The columns, made only once the first row comes: none for --json. */
static void
tbl_make(struct tbl *t)
{
	const struct rec_field *c;
	size_t n;
	int i;

	if ((t->t = scols_new_table()) == NULL)
		tbl_oom();
	scols_table_enable_noheadings(t->t, t->ctx->noheadings);
	/*
	 * Escaped already (see above): encoded again it reads wrong.  Raw
	 * output is always encoded (and never told otherwise here: were a
	 * libsmartcols to honour noencoding there, nothing would escape).
	 */
	if (t->ctx->raw)
		scols_table_enable_raw(t->t, 1);
	else
		scols_table_enable_noencoding(t->t, 1);
	for (n = 0; n < t->nout; n++) {
		for (i = 0; t->map[i] != (int)n; i++)
			;
		c = &t->cols[i];
		if (scols_table_new_column(t->t, c->col, 0,
		    (c->flags & REC_RIGHT ? SCOLS_FL_RIGHT : 0) |
		    (c->flags & REC_TRUNC ? SCOLS_FL_TRUNC : 0)) == NULL)
			tbl_oom();
	}
}

void
tbl_row(struct tbl *t)
{
	if (t->t == NULL)
		tbl_make(t);
	if ((t->ln = scols_table_new_line(t->t, NULL)) == NULL)
		tbl_oom();
	t->rows++;
}

/* Column @col of this row: @s as it is (escaped as said above). */
void
tbl_str(struct tbl *t, int col, const char *s)
{
	if (t->map[col] < 0 || s == NULL)
		return;
	if (scols_line_set_data(t->ln, (size_t)t->map[col], s) < 0)
		tbl_oom();
}

/* Text trashctl made itself (numbers, sizes, ages): printable ASCII. */
void
tbl_fmt(struct tbl *t, int col, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	if (t->map[col] < 0)
		return;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		tbl_oom();
	/* The line takes it, and frees it. */
	if (scols_line_refer_data(t->ln, (size_t)t->map[col], s) < 0)
		tbl_oom();
}

/* A user: the name when the system knows the uid, else the number. */
void
tbl_user(struct tbl *t, int col, int64_t uid)
{
	const char *name;
	char *v;
	size_t need;

	if (t->map[col] < 0)
		return;
	if (uid < 0 || (name = user_lookup(uid)) == NULL) {
		tbl_fmt(t, col, uid < 0 ? "-" : "%" PRId64, uid);
		return;
	}
	if (t->ctx->raw) {
		tbl_str(t, col, name);
		return;
	}
	need = vis_str(NULL, 0, name, t->ctx->vis_flags) + 1;
	if ((v = malloc(need)) == NULL)
		tbl_oom();
	vis_str(v, need, name, t->ctx->vis_flags);
	if (scols_line_refer_data(t->ln, (size_t)t->map[col], v) < 0)
		tbl_oom();
}

/* Print the table, if it has any row; then free it. */
void
tbl_print(struct tbl *t)
{
	if (t->t != NULL) {
		scols_print_table(t->t);
		scols_unref_table(t->t);
	}
	t->t = NULL;
}

/* For -h: the columns, the default ones (@defcols) marked. */
void
tbl_help(const struct rec_field *f, const char *defcols)
{
	const char *p;
	size_t len;
	bool def;
	int i;

	printf("columns (--output):");
	for (i = 0; f[i].key != NULL || f[i].col != NULL; i++) {
		if (f[i].col == NULL)
			continue;
		len = strlen(f[i].col);
		for (def = false, p = defcols; !def && *p != '\0';
		    p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
			def = strcspn(p, ",") == len &&
			    strncasecmp(p, f[i].col, len) == 0;
		printf(" %s%s", f[i].col, def ? "*" : "");
	}
	printf("\n");
}
