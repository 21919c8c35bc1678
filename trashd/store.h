/* SPDX-License-Identifier: ISC */
/*
 * trashd's store: the index database (db.c), its entries (index.c), the
 * audit records (audit.c) and the policy tables (policydb.c).  These are
 * trashd's only files that speak SQL; each binds every value.  Below it:
 * the filesystem layer, whose struct tfs names a record's filesystem.
 */
#ifndef TRASHD_STORE_H
#define TRASHD_STORE_H

#include <sys/uio.h>

#include "fs.h"

struct sqlite3_stmt;

/* ---- db.c ---- */
struct db;

#define DB_NOMIGRATE	0x1	/* open only: tests migrate step by step */

int	 db_open(const char *path, int flags, struct db **,
	    char *err, size_t errlen);
int	 db_check(const char *path, char *err, size_t errlen);
void	 db_close(struct db *);
int	 db_migrate(struct db *, int target, char *err, size_t errlen);
int	 db_version(struct db *, int *);
int	 db_latest_version(void);
int	 db_begin(struct db *);
int	 db_commit(struct db *);
void	 db_rollback(struct db *);
struct sqlite3_stmt *db_stmt(struct db *, const char *sql);
int	 db_done(struct db *, struct sqlite3_stmt *);
int	 db_row(struct db *, struct sqlite3_stmt *);
int	 db_exec(struct db *, const char *sql);
int64_t	 db_changes(struct db *);
int64_t	 db_last_id(struct db *);
void	 db_bind_text(struct sqlite3_stmt *, int, const char *);
void	 db_bind_opt(struct sqlite3_stmt *, int, int64_t);
const char *db_col_text(struct sqlite3_stmt *, int);

/* schema.c, generated from schema/NNNN-*.sql by embed-schema.cmake */
struct db_migration {
	int		 version;
	const char	*name;
	const char	*sql;
};
extern const struct db_migration db_migrations[];
extern const size_t db_nmigrations;

/* ---- index.c ---- */
enum entry_state {
	ENTRY_TRASHED,
	ENTRY_RESTORED,
	ENTRY_WIPING,
	ENTRY_WIPED,
	ENTRY_PURGED,
};
#define ENTRY_STATE_MASK(s)	(1u << (s))
#define ENTRY_LIVE	(ENTRY_STATE_MASK(ENTRY_TRASHED))

struct entry {
	int64_t		 id;
	int64_t		 fs_id;
	uint32_t	 trash_uid;
	uint32_t	 owner_uid;
	int64_t		 deleter_uid;	/* -1: unknown */
	char		*name;		/* name in the trash */
	char		*orig_path;	/* NULL: unknown */
	int64_t		 deleted_ns;
	int64_t		 size;
	int64_t		 alloc;		/* allocated bytes */
	uint32_t	 flags;		/* FS_IOC_GETFLAGS */
	enum entry_state state;
	struct ident	 ident;
	int64_t		 generation;	/* -1: unknown */
};

struct entry_list {
	struct entry	*v;
	size_t		 n;
};

struct index_filter {
	int64_t		 fs_id;		/* -1: any */
	int64_t		 uid;		/* -1: any */
	unsigned	 states;	/* ENTRY_STATE_MASK()s, 0: any */
	int64_t		 before_ns;	/* deleted before, 0: any */
	uint32_t	 flags_set;	/* all of these flags, 0: any */
	size_t		 limit;		/* 0: no limit */
	int64_t		 since_ns;	/* deleted at or after, 0: any */
	const char	*prefix;	/* orig_path at or under, NULL: any */
	uint32_t	 flags_clear;	/* none of these flags, 0: any */
	bool		 by_owner;	/* only files owned by owner */
	uint32_t	 owner;
	/* Paging: only rows after this one in list order. */
	bool		 after;		/* false: from the start */
	int64_t		 after_id;
	int64_t		 after_ns;	/* that row's deleted_ns */
};

struct usage {
	uint32_t	 uid;
	int64_t		 count;
	int64_t		 bytes;		/* apparent sizes, as shown */
	int64_t		 alloc;		/* allocated (st_blocks * 512): quotas */
};

const char *entry_state_name(enum entry_state);
int	 entry_state_parse(const char *, enum entry_state *);
void	 entry_clear(struct entry *);
void	 entry_list_free(struct entry_list *);
int	 index_fs_id(struct db *, const char *path, int64_t *);
int	 index_insert(struct db *, struct entry *);
int	 index_get(struct db *, int64_t id, struct entry *);
int	 index_find_live(struct db *, int64_t fs_id, uint64_t ino,
	    struct entry *);
int	 index_find_name(struct db *, int64_t fs_id, uint32_t uid,
	    const char *name, struct entry *);
int	 index_refresh(struct db *, const struct entry *);
int	 index_set_state(struct db *, int64_t id, enum entry_state);
int	 index_list(struct db *, const struct index_filter *,
	    struct entry_list *);
int	 index_newest(struct db *, const struct index_filter *, size_t,
	    int64_t *, int64_t *);
int	 index_count(struct db *, const struct index_filter *, int64_t *);
int	 index_usage(struct db *, int64_t fs_id, uint32_t uid,
	    struct usage *);
int	 index_usage_all(struct db *, int64_t fs_id, struct usage **,
	    size_t *);
int	 index_mark_restored(struct trashd *, int64_t id, int64_t actor_uid,
	    int64_t actor_pid);
int	 index_by_path(struct db *, int64_t fs_id, uint32_t uid,
	    const char *rel, bool exact, struct entry_list *);
int	 index_seen_reset(struct db *);
int	 index_seen(struct db *, int64_t id);
int	 index_unseen(struct db *, int64_t fs_id, int64_t uid, int64_t **ids,
	    size_t *n);

/* One row of the wipes table. */
struct wipe_row {
	int64_t		 entry_id;	/* 0: none */
	int64_t		 time_ns;
	const char	*method;
	const char	*result;
	unsigned	 passes;
	uint64_t	 bytes;
	uint64_t	 nlink;
	const char	*promises;
};
int	 index_wipe_record(struct db *, const struct wipe_row *);

/* ---- audit.c ---- */
/* One record: numbers -1 and strings NULL where they do not apply. */
struct audit_rec {
	int64_t		 uid;		/* actor, -1: unknown */
	int64_t		 pid;		/* actor, 0: the kernel */
	const char	*action;
	const char	*result;
	int64_t		 entry_id;	/* 0 or -1: no entry */
	const char	*fs;		/* the entry's filesystem */
	int64_t		 trash_uid;	/* whose trash */
	int64_t		 owner_uid;
	const char	*name;		/* bytes a user made */
	const char	*path;		/* bytes a user made */
	const char	*detail;	/* trashd's own words, no user bytes */
};

struct audit_row {
	int64_t		 id;
	int64_t		 time_ns;
	int64_t		 uid;
	int64_t		 pid;
	char		*action;
	char		*result;
	int64_t		 entry_id;	/* -1: none */
	char		*fs;		/* NULL: none, and below */
	int64_t		 trash_uid;	/* -1: none */
	int64_t		 owner_uid;	/* -1: none */
	char		*name;
	char		*path;
	char		*detail;
};

int	 audit_record(struct trashd *, const struct audit_rec *);
int	 audit_log(struct trashd *, int64_t uid, int64_t pid,
	    const char *action, const char *detail, const char *result);
int	 audit_entry(struct trashd *, int64_t uid, int64_t pid,
	    const char *action, const struct tfs *, const struct entry *,
	    const char *result);
int	 audit_query(struct trashd *, int64_t since_ns, int64_t uid,
	    size_t limit, struct audit_row **, size_t *);
void	 audit_rows_free(struct audit_row *, size_t);
int	 audit_expire(struct trashd *, int64_t now);

/* Every criterion given must hold; NULL and -1 are "any". */
struct audit_filter {
	int64_t		 uid;		/* the actor */
	int64_t		 owner;		/* whose trash or whose file */
	const char	*action;	/* exactly */
	const char	*result;	/* its first word: "ok", "denied"... */
	const char	*prefix;	/* an absolute path, at or under */
	int64_t		 since_ns;	/* 0: any */
	int64_t		 before_ns;	/* 0: any */
	size_t		 limit;		/* the newest this many */
};
int	 audit_search(struct trashd *, const struct audit_filter *,
	    struct audit_row **, size_t *);

/* ---- policydb.c: the policy tables ---- */
enum policy_kind {
	POLICY_USER,
	POLICY_GROUP,
	POLICY_DEFAULT,		/* the admins' defaults, over the config's */
};

/* A value as an admin typed it ("90d", "1536M"): 31 bytes are plenty. */
#define POLICY_TEXT_MAX	32

struct policy {
	int64_t		 quota;		/* bytes, 0: none, -1: not set */
	int64_t		 retention;	/* seconds, 0: forever, -1: not set */
	/* The same as typed, shown back as such; "": not known. */
	char		 quota_text[POLICY_TEXT_MAX];
	char		 retention_text[POLICY_TEXT_MAX];
};

/*
 * The store alone: the control socket's request record says who set
 * what, once (a second record here was the same fact twice).
 */
int	 policy_set(struct trashd *, enum policy_kind, uint32_t id,
	    const struct policy *);
int	 policy_get(struct trashd *, enum policy_kind, uint32_t id,
	    struct policy *);
int	 policy_unset(struct trashd *, enum policy_kind, uint32_t id);
int	 policy_effective(struct trashd *, uint32_t uid, struct policy *);
int	 policy_get_watermark(struct trashd *, int64_t fs_id, int *);
int	 policy_set_watermark(struct trashd *, const struct tfs *, int wm);
unsigned policy_fs_watermark(struct trashd *, const struct tfs *);

/* ---- journal.c: audit records as structured journal fields ---- */
#define JOURNAL_FIELDS_MAX	16
struct journal_fields {
	struct iovec	 iov[JOURNAL_FIELDS_MAX];	/* malloc'd bases */
	size_t		 n;
};

void	 journal_init(bool enable);
void	 journal_audit_fields(const struct audit_rec *, const char *line,
	    struct journal_fields *);
void	 journal_fields_free(struct journal_fields *);
int	 journal_audit(const struct audit_rec *, const char *line);

#endif /* TRASHD_STORE_H */
