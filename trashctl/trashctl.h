/* SPDX-License-Identifier: ISC */
/*
 * trashctl: private header, sectioned by defining file.  The client does
 * no real work: it sends one request, prints the reply, exits.
 */
#ifndef TRASHCTL_H
#define TRASHCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "parse.h"
#include "proto.h"

/* Exit codes, trashctl(1) EXIT STATUS. */
#define EXIT_OK		0
#define EXIT_SOME	1	/* some entries failed: conflicts, refusals */
#define EXIT_USAGE	2
#define EXIT_NODAEMON	3	/* trashd cannot be reached */
#define EXIT_DENIED	4	/* permission denied */
#define EXIT_NOTFOUND	5	/* nothing matched */
#define EXIT_ERROR	6	/* any other error */

struct ctx {
	const char	*socket;
	bool		 json;
	bool		 ndjson;	/* --ndjson: one JSON object a line */
	int		 vis_flags;	/* vis.h VIS_*: how strings are shown */
	int		 timeout_ms;
	const char	*prog;
	int64_t		 user;		/* -u: its uid; -1: not given */
	/* Tables (table.c): --output, --raw, --noheadings. */
	const char	*output;
	bool		 raw;		/* also: client.c leaves strings as bytes */
	bool		 noheadings;
	/* JSON: the reply's array is open (json_item()); an error closes it. */
	bool		 json_open;
	int64_t		 json_n;
};

/* ---- cmd.c: the command table, the options every command takes ---- */
/*
 * One option of a command.  getopt_long()'s table, its letters and the
 * lines of "-h" are all made from these (cmd_getopt(), cmd_help()), and
 * the bash completion reads "-h": none of them can go stale.
 */
struct cmd_opt {
	const char	*name;		/* --NAME */
	int		 val;		/* its letter, or an OPT_* below */
	const char	*arg;		/* its argument, for -h; NULL: none */
	const char	*help;		/* what it does, one line */
};
/* Long only: -o, -O, -r and -n mean other things in some commands. */
enum { OPT_NDJSON = 0x100, OPT_OUTPUT, OPT_RAW, OPT_NOHEADINGS,
    OPT_CMD };	/* a command's own from OPT_CMD on */
/* -u: whose trash; cmd_getopt() takes it into ctx->user. */
#define CMD_OPT_USER(help)	{ "user", 'u', "user", help }

struct cmd_entry {
	const char	*name;		/* NULL: trashctl itself */
	const char	*usage;
	const char	*help;
	/* Its own options, ended by a NULL name; not the common ones. */
	const struct cmd_opt *opts;
	/* Its table's fields, for -h (NULL: it prints no table). */
	const struct rec_field *cols;
	const char	*defcols;	/* the columns without --output */
	unsigned	 flags;
#define CMD_INORDER	0x01	/* options only before the first argument */
	int		(*exec)(struct ctx *, int argc, char **argv);
};

extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_restore_entry;
extern const struct cmd_entry cmd_wipe_entry;
extern const struct cmd_entry cmd_empty_entry;
extern const struct cmd_entry cmd_quota_entry;
extern const struct cmd_entry cmd_policy_entry;
extern const struct cmd_entry cmd_audit_entry;

/* cmd_getopt(): the command is done already, its exit code in *exitp. */
#define CMD_EXIT	(-2)

const struct cmd_entry *cmd_find(const char *name);
void	 cmd_usage(FILE *);
int	 cmd_usage_error(const struct cmd_entry *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	 cmd_help(const struct cmd_entry *);
int	 cmd_getopt(struct ctx *, const struct cmd_entry *, int argc,
	    char **argv, int *exitp);
struct tbl;
int	 cmd_tbl_init(struct ctx *, const struct cmd_entry *, struct tbl *,
	    const char *defcols);

/* ---- client.c: one request, its reply ---- */
typedef int (*ctl_msg_fn)(struct ctx *, const struct proto_msg *, void *);

int	 ctl_request(struct ctx *, struct proto_buf *, ctl_msg_fn, void *);
int	 ctl_exit_code(int err);

/* ---- record.c: one record of a reply, as JSON and as a row ---- */
/*
 * A field of a record, from one attribute of the message: a JSON key, a
 * column, or both.  A record's JSON object has the fields with a key, in
 * the order of its table; its columns are those with a name, which
 * --output picks (in any order) and -h lists (in this one).
 */
enum rec_kind {
	REC_NUM,	/* the number */
	REC_BOOL,	/* JSON true if the number has a bit of .mask */
	REC_STR,	/* a name: JSON null if absent, KEY_b64 if lossy */
	REC_TEXT,	/* trashd's words: JSON without KEY_b64 */
	REC_USER,	/* the uid's user name, JSON null if none */
	REC_SIZE,	/* bytes: "1.2K" in a table */
	REC_TIME,	/* ns: "2026-11-30 10:00:00" in a table */
	REC_AGE,	/* ns: "3d ago" in a table */
	REC_PCT,	/* percent: "15%" in a table */
	REC_FN,		/* made by .json() and .cell() */
};

struct rec_field {
	const char	*key;		/* JSON key; NULL: a column only */
	const char	*col;		/* column; NULL: JSON only */
	enum rec_kind	 kind;
	int		 attr;		/* A_* */
	unsigned	 flags;
#define REC_RIGHT	0x01	/* column aligned right: numbers */
#define REC_TRUNC	0x02	/* column may be cut to fit the terminal */
#define REC_OPT		0x04	/* absent: JSON null, an empty cell */
#define REC_OMIT	0x08	/* absent: no JSON field */
#define REC_M1		0x10	/* absent: -1 */
	int		 when;		/* JSON: only if this A_* is there too */
	int64_t		 mask;		/* REC_BOOL */
	/* REC_FN: "KEY":value on stdout, and the cell. */
	void		(*json)(const char *key, const struct proto_msg *);
	void		(*cell)(struct tbl *, int col, const struct proto_msg *);
};

/* A field of no more than these; one with a function is spelled out. */
#define REC(k, c, kd, a, fl) \
	{ .key = (k), .col = (c), .kind = (kd), .attr = (a), .flags = (fl) }
#define REC_END	{ .key = NULL, .col = NULL }

void	 rec_json(const struct rec_field *, const struct proto_msg *,
	    bool first);
void	 rec_json_item(struct ctx *, const char *head,
	    const struct rec_field *, const struct proto_msg *);
void	 rec_row(struct tbl *, const struct proto_msg *);

/* ---- table.c: tables through libsmartcols ---- */
#define TBL_MAX		32

struct libscols_table;
struct libscols_line;

struct tbl {
	struct ctx	*ctx;
	const struct rec_field *cols;	/* ended by a NULL key and col */
	int		 map[TBL_MAX];	/* field -> its column, -1: not shown */
	size_t		 nout;
	struct libscols_table *t;
	struct libscols_line *ln;
	int64_t		 rows;
	const char	*bad;		/* tbl_init(): no such column */
	int		 bad_len;
};

int	 tbl_init(struct tbl *, struct ctx *, const struct rec_field *,
	    const char *defcols);
void	 tbl_row(struct tbl *);
void	 tbl_str(struct tbl *, int col, const char *);
void	 tbl_fmt(struct tbl *, int col, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 tbl_user(struct tbl *, int col, int64_t uid);
void	 tbl_print(struct tbl *);
void	 tbl_help(const struct rec_field *, const char *defcols);

/* ---- util.c ---- */
void	 fmt_size(char *, size_t, int64_t bytes);
void	 fmt_age(char *, size_t, int64_t then_ns);
void	 fmt_duration(char *, size_t, int64_t seconds);
void	 fmt_limit(char *, size_t, int64_t, const char *text, bool size);
void	 fmt_time(char *, size_t, int64_t ns);
void	 json_str(FILE *, const char *);
void	 json_field(FILE *, const char *key, const char *);
void	 json_item(struct ctx *, const char *head);
void	 json_items_end(struct ctx *, const char *head);
void	 vis_fputs(FILE *, const char *, int flags);
int	 parse_count(const char *, int64_t *);
int	 parse_when(const char *, int64_t *ns, const char **why);
int	 parse_user(const char *, int64_t *uid);
int	 parse_group(const char *, int64_t *gid);
const char *user_name(int64_t uid, char *, size_t);
const char *user_lookup(int64_t uid);
char	*abs_path(const char *);
void	 progress(struct ctx *, int64_t done, int64_t total);
void	 progress_end(struct ctx *);
int64_t	 now_ns(void);

#endif /* TRASHCTL_H */
