/* SPDX-License-Identifier: ISC */
/*
 * trashd: private header, sectioned by defining file.
 *
 * Every helper that does not log returns 0 or -errno; the caller that
 * decides also logs.  Functions taking a struct trashd may log and audit.
 */
#ifndef TRASHD_H
#define TRASHD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* TRASHD_CONF, TRASHD_DB, TRASHD_SOCKET: what the build installs to. */
#include "buildinfo.h"

/*
 * The kernel ABI (Documentation/filesystems/trashbin.rst): TRASHBIN_DIR,
 * the trusted.trash.* names and formats, TRASHBIN_UID_MAX, from the
 * series' UAPI header (kernel/uapi-header.sh extracts it at configure).
 */
#include <linux/trashbin.h>
/* trashd's own: the durable wipe queue, root-only, in /.trash. */
#define TRASH_WIPE_DIR	".wipe"

#define NSEC_PER_SEC	1000000000LL

struct event_base;
struct event;
struct sqlite3_stmt;

/* An inode's identity: what every action on an entry re-checks first. */
struct ident {
	uint64_t	dev;
	uint64_t	ino;
};

/* ---- log.c ---- */
void	log_init(int to_stderr, int verbose);
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/* ---- xmalloc.c ---- */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int64_t	 now_ns(void);

/* ---- config.c ---- */
struct config_fs {
	char		*path;
	int		 watermark;	/* percent free, -1: the default */
};

struct config {
	char		*database;
	struct config_fs *fs;
	size_t		 nfs;
	bool		 create_trash;
	uint64_t	 quota;		/* bytes per user and fs, 0: none */
	int64_t		 retention;	/* seconds, 0: forever */
	unsigned	 watermark;	/* percent free, 0: off */
	int64_t		 grace;		/* seconds before a +s entry is wiped */
	int64_t		 min_age;	/* seconds, 0: off */
	unsigned	 wipe_passes;
	bool		 wipe_zero;
	bool		 wipe_verify;
	bool		 wipe_discard;
	uint64_t	 wipe_rate;	/* bytes per second, 0: unlimited */
	int64_t		 audit_retention; /* seconds, 0: forever */
	int64_t		 interval;	/* seconds between policy runs */
	char		*socket;	/* the control socket */
	int64_t		 admin_gid;	/* admins' group, -1: root only */
	int64_t		 client_timeout; /* seconds a client may stall */
	unsigned	 restore_max;	/* restores one uid runs at once */
	int64_t		 restore_timeout; /* seconds, 0: none */
};

struct config	*config_load(const char *path, char *err, size_t errlen);
struct config	*config_default(void);
void		 config_free(struct config *);

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
struct trashd;
int	 index_mark_restored(struct trashd *, int64_t id, int64_t actor_uid,
	    int64_t actor_pid);
int	 index_by_path(struct db *, int64_t fs_id, uint32_t uid,
	    const char *rel, bool exact, struct entry_list *);

/* ---- trash.c ---- */
struct tuid {
	uint32_t	 uid;
	int		 fd;		/* held /.trash/<uid> */
	int		 wd;		/* inotify watch, -1: none */
};

struct tfs {
	int64_t		 id;		/* filesystems.id */
	char		*path;		/* mount point */
	struct ident	 root;
	int		 rootfd;
	int		 trashfd;	/* held /.trash */
	int		 wipefd;	/* held /.trash/.wipe */
	int		 wd;		/* inotify watch on /.trash */
	unsigned	 watermark;	/* the config's; policy_fs_watermark() */
	uint32_t	 promises;	/* WIPE_LOW_* of the fs and its device */
	struct tuid	**uids;		/* pointers stay valid */
	size_t		 nuids;
};

int	 trash_open(struct tfs *, const char *path, bool create);
void	 trash_close(struct tfs *);
int	 trash_parse_uid(const char *, uint32_t *);
int	 trash_uid(struct tfs *, uint32_t uid, struct tuid **);
void	 trash_uid_forget(struct tfs *, uint32_t uid);
int	 trash_entry_open(struct tfs *, int dirfd, const char *name,
	    const struct ident *, int flags);
int	 trash_entry_unlink(struct tfs *, int dirfd, const char *name,
	    const struct ident *);

/*
 * ---- daemon.c: the daemon's state, passed to every handler ----
 *
 * What the control socket (control.c) calls:
 *   list a uid's entries	index_list() with .uid set
 *   one entry by id		index_get()
 *   mark restored		index_mark_restored()
 *   wipe now			wipe_request()
 *   purge			policy_purge_id()
 *   policy set/get/unset	policy_set(), policy_get(), policy_unset(),
 *				policy_effective()
 *   audit query		audit_query()
 *   usage per uid		index_usage(), index_usage_all()
 * control_init() adds its listener (trashd.c calls it after daemon_open(),
 * so the unit tests' daemons have none) and its state here.
 */
struct wipe_worker;
struct wipe_deferred;
struct control;

struct trashd {
	char		*conffile;
	struct config	*conf;
	struct db	*db;
	struct event_base *base;	/* NULL: no event loop (tests) */
	struct tfs	*fs;
	size_t		 nfs;
	int		 inotify_fd;
	struct event	*inotify_ev;
	struct event	*inotify_batch;	/* reads events in batches */
	struct event	*policy_ev;
	struct wipe_worker *worker;
	struct wipe_deferred *wipe_deferred; /* open elsewhere: retried */
	size_t		 wipe_ndeferred;
	struct event	*wipe_retry;
	unsigned	 wipe_backoff;	/* seconds to the next retry */
	bool		 rescan;	/* a full scan is due */
	struct scan_resume *resume;	/* the rescan in steps, NULL: none */
	struct event	*rescan_ev;	/* its next step */
	struct control	*control;	/* NULL: no control socket */
	struct policy_new *fresh;	/* entries new since the last run */
	size_t		 nfresh;
	size_t		 fresh_cap;
	bool		 policy_full;	/* a full policy run is due */
	int64_t		 policy_due;	/* the next full run */
};

int	 daemon_open(struct trashd *, struct config *, struct event_base *,
	    char *err, size_t errlen);
void	 daemon_close(struct trashd *);
int	 daemon_reload(struct trashd *, struct config *);
struct tfs *daemon_fs(struct trashd *, int64_t fs_id);
void	 daemon_policy_soon(struct trashd *);
void	 daemon_policy_new(struct trashd *);

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

struct audit_filter {
	int64_t		 uid;		/* -1: any */
	const char	*action;	/* NULL: any */
	int64_t		 since_ns;	/* 0: any */
	int64_t		 before_ns;	/* 0: any */
	size_t		 limit;		/* the newest this many */
};
int	 audit_search(struct trashd *, const struct audit_filter *,
	    struct audit_row **, size_t *);

/* ---- scan.c ---- */
int	 scan_birth_ns(int fd, int64_t *);
int	 scan_entry(struct trashd *, struct tfs *, struct tuid *,
	    const char *name, int64_t *id);
int	 scan_gone(struct trashd *, struct tfs *, struct tuid *,
	    const char *name);
int	 scan_uid(struct trashd *, struct tfs *, struct tuid *);
int	 scan_fs(struct trashd *, struct tfs *);
int	 scan_all(struct trashd *);
struct scan_resume;
void	 scan_resume_start(struct trashd *);
int	 scan_resume_step(struct trashd *, size_t budget);
void	 scan_resume_stop(struct trashd *);

/* ---- watch.c ---- */
int	 watch_init(struct trashd *);
void	 watch_close(struct trashd *);
int	 watch_fs(struct trashd *, struct tfs *);
int	 watch_uid(struct trashd *, struct tfs *, struct tuid *);
int	 watch_read(struct trashd *);
void	 watch_overflow(struct trashd *);

/* ---- policy.c ---- */
enum policy_kind {
	POLICY_USER,
	POLICY_GROUP,
	POLICY_DEFAULT,		/* the admins' defaults, over the config's */
};

struct policy {
	int64_t		 quota;		/* bytes, 0: none, -1: not set */
	int64_t		 retention;	/* seconds, 0: forever, -1: not set */
};

int	 policy_set(struct trashd *, enum policy_kind, uint32_t id,
	    const struct policy *, int64_t actor_uid, int64_t actor_pid);
int	 policy_get(struct trashd *, enum policy_kind, uint32_t id,
	    struct policy *);
int	 policy_unset(struct trashd *, enum policy_kind, uint32_t id,
	    int64_t actor_uid, int64_t actor_pid);
int	 policy_effective(struct trashd *, uint32_t uid, struct policy *);
int	 policy_get_watermark(struct trashd *, int64_t fs_id, int *);
int	 policy_set_watermark(struct trashd *, const struct tfs *, int wm,
	    int64_t actor_uid, int64_t actor_pid);
unsigned policy_fs_watermark(struct trashd *, const struct tfs *);
int	 policy_purge(struct trashd *, struct tfs *, const struct entry *,
	    const char *reason, int64_t actor_uid, int64_t actor_pid);
int	 policy_purge_id(struct trashd *, int64_t id, int64_t actor_uid,
	    int64_t actor_pid);
int	 policy_secure(struct trashd *, struct tfs *, int64_t now);
int	 policy_retention(struct trashd *, struct tfs *, int64_t now);
int	 policy_quota(struct trashd *, struct tfs *);
int	 policy_watermark(struct trashd *, struct tfs *, uint64_t total,
	    uint64_t avail);
/* An entry indexed since the last policy run. */
struct policy_new {
	int64_t		 id;
	bool		 young;		/* min-age: purge it */
};

bool	 policy_too_young(int64_t min_age, int64_t born_ns,
	    int64_t deleted_ns);
void	 policy_new_entry(struct trashd *, int64_t id, bool young);
int	 policy_fresh(struct trashd *, int64_t now);
int	 policy_run(struct trashd *, int64_t now);

/* ---- wipe.c ---- */
/* What a wipe could not promise (recorded with it, never hidden). */
#define WIPE_LOW_SHARED		0x0001	/* reflinked: data lives on */
#define WIPE_LOW_INLINE		0x0002	/* data inside metadata */
#define WIPE_LOW_ENCODED	0x0004	/* compressed or encoded */
#define WIPE_LOW_ENCRYPTED	0x0008	/* fs encryption: ciphertext moves */
#define WIPE_LOW_UNKNOWN	0x0010	/* extent location unknown */
#define WIPE_LOW_JOURNAL	0x0020	/* data=journal: copies in journal */
#define WIPE_LOW_NONROT		0x0040	/* flash: remapped, not in place */
#define WIPE_LOW_COW		0x0080	/* copy-on-write filesystem */
#define WIPE_LOW_PREALLOC	0x0100	/* blocks past EOF not overwritten */
#define WIPE_LOW_NOFIEMAP	0x0200	/* extents could not be listed */
#define WIPE_LOW_UNLEASED	0x0400	/* no lease: other openers unchecked */

struct wipe_opts {
	unsigned	 passes;	/* random passes, >= 1 */
	bool		 zero;		/* final zero pass */
	bool		 verify;	/* read back the last pass */
	bool		 discard;	/* FITRIM the freed extents */
	uint64_t	 rate;		/* bytes per second, 0: unlimited */
};

struct wipe_report {
	int		 result;	/* 0 or -errno */
	uint32_t	 promises;	/* WIPE_LOW_* */
	unsigned	 passes;	/* passes written (zero pass included) */
	uint64_t	 bytes;		/* bytes overwritten in all passes */
	uint64_t	 ns;		/* the passes (and verify) took */
	uint64_t	 nlink;		/* > 1: unlinked only, data lives on */
	bool		 verified;
	bool		 discarded;
	bool		 extents_changed;
	bool		 leased;	/* no other opener, see wipe_lease() */
	uint64_t	 alloc;		/* bytes allocated (st_blocks) */
	uint64_t	 mapped;	/* bytes of its data ranges */
};

void	 wipe_opts_from_config(const struct config *, struct wipe_opts *);
void	 wipe_method_str(const struct wipe_opts *, char *, size_t);
void	 wipe_promises_str(uint32_t, char *, size_t);
uint32_t wipe_fs_promises(int fd);
int	 wipe_overwrite(int fd, const struct wipe_opts *,
	    struct wipe_report *);
int	 wipe_file(int dirfd, const char *name, const struct ident *,
	    uint32_t fs_promises, int rootfd, const struct wipe_opts *,
	    struct wipe_report *);
int	 wipe_stage(struct trashd *, struct tfs *, const struct entry *,
	    const char *reason);
int	 wipe_recover(struct trashd *);
int	 wipe_drain(struct trashd *);
void	 wipe_kick(struct trashd *);
void	 wipe_worker_reap(struct trashd *);
pid_t	 wipe_worker_pid(struct trashd *);
size_t	 wipe_deferred(struct trashd *, int64_t uid);
extern size_t wipe_fiemap_max;
int	 wipe_request(struct trashd *, int64_t id, int64_t actor_uid,
	    int64_t actor_pid);

/* ---- control.c: the control socket ---- */
/* Who is on the other end, read once at accept (SO_PEERCRED/PEERGROUPS). */
struct peer {
	uid_t		 uid;
	gid_t		 gid;
	pid_t		 pid;
	gid_t		*groups;
	int		 ngroups;
	bool		 admin;
};

struct control_conn;
struct proto_buf;
struct restore_job;

int	 control_init(struct trashd *);
void	 control_close(struct trashd *);
int	 control_path_fs(struct trashd *, const char *abs, struct tfs **,
	    const char **rel);
int	 control_rel_valid(const char *rel, bool empty_ok);
void	 control_send(struct control_conn *, struct proto_buf *);
void	 control_reply_error(struct control_conn *, int err,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	 control_request_done(struct control_conn *);
void	 control_set_job(struct control_conn *, struct restore_job *);
const struct peer *control_peer(const struct control_conn *);
/* The fuzzer: a connection over an fd, without a listener. */
struct control_conn *control_conn_new(struct trashd *, int fd,
	    const struct peer *);
size_t	 control_nconns(struct trashd *);

/* ---- restore.c: restores as the caller, in a child process ---- */

/* The credentials a restore child takes. */
struct creds {
	uid_t		 uid;
	gid_t		 gid;
	gid_t		*groups;
	int		 ngroups;
};

int	 restore_start(struct trashd *, struct control_conn *,
	    struct tfs *, uint32_t uid, const struct creds *,
	    struct entry_list *, char **targets, bool overwrite,
	    mode_t umask);
void	 restore_detach(struct restore_job *);
void	 restore_stop_all(struct trashd *);
size_t	 restore_running(void);
size_t	 restore_running_uid(uid_t);
bool	 restore_owns(int64_t id);
int	 restore_move(int rootfd, int tudirfd, const char *name,
	    const struct ident *, const char *target, bool overwrite,
	    uid_t self, uid_t *owner, size_t *plen);
int	 restore_creds(const struct peer *, uint32_t uid, int tudirfd,
	    struct creds *);
void	 restore_creds_free(struct creds *);

/* ---- caps.c ---- */
int	 caps_drop(void);
int	 caps_limit(const int *, size_t);
void	 caps_keep_fds(int *, size_t);
extern const int caps_kept[];
extern const size_t caps_nkept;

/* ---- notify.c: sd_notify(3) for Type=notify ---- */
void	 notify_status(const char *, ...)
	    __attribute__((format(printf, 1, 2)));
void	 notify_steady(struct trashd *);
void	 notify_ready(struct trashd *);
void	 notify_reloading(void);
void	 notify_stopping(void);

/* ---- lock.c: one trashd per index ---- */
int	 lock_index(const char *db, char *err, size_t errlen);

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

#endif /* TRASHD_H */
