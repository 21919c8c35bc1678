/* SPDX-License-Identifier: ISC */
/*
 * trashd's base layer: logging (log.c), allocation and the clock
 * (xmalloc.c), the configuration (config.c), capabilities (caps.c), and
 * the daemon's state that every layer above is handed.  Nothing here
 * calls up; trashd.h describes the layers.
 *
 * Every helper that does not log returns 0 or -errno; the caller that
 * decides also logs.  Functions taking a struct trashd may log and audit.
 */
#ifndef TRASHD_BASE_H
#define TRASHD_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

/* TRASHD_CONF, TRASHD_DB, TRASHD_SOCKET: what the build installs to. */
#include "buildinfo.h"

/*
 * The kernel ABI (Documentation/filesystems/trashbin.rst): TRASHBIN_DIR,
 * the trusted.trash record and its format, TRASHBIN_UID_MAX, from the
 * series' UAPI header (kernel/uapi-header.sh extracts it at configure).
 */
#include <linux/trashbin.h>
/* trashd's own: the durable wipe queue, root-only, in /.trash. */
#define TRASH_WIPE_DIR	".wipe"

#define NSEC_PER_SEC	1000000000LL

struct event_base;
struct event;

/* An inode's identity: what every action on an entry re-checks first. */
struct ident {
	uint64_t	dev;
	uint64_t	ino;
};

/* ---- log.c ---- */
void	log_init(int to_stderr, int verbose);
void	log_sink(void (*)(int pri, const char *line));
void	log_cut(char *buf, size_t size);
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
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int64_t	 now_ns(void);

/* ---- config.c ---- */
/* A value's text kept for showing (the protocol's PROTO_TEXT_MAX, + NUL). */
#define CONFIG_TEXT_MAX	32

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
	/* Those two as written in the file, shown back so; "": not known. */
	char		 quota_text[CONFIG_TEXT_MAX];
	char		 retention_text[CONFIG_TEXT_MAX];
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
	int64_t		 rescan_interval; /* seconds between rescans, 0: none */
	char		*socket;	/* the control socket */
	int64_t		 admin_gid;	/* admins' group, -1: root only */
	int64_t		 client_timeout; /* seconds a client may stall */
	unsigned	 restore_max;	/* restores one uid runs at once */
	int64_t		 restore_timeout; /* seconds, 0: none */
	/* Exclusions, applied to new entries (policy_excluded()): */
	char		**exclude;	/* fnmatch(3) patterns of names */
	size_t		 nexclude;
	char		**exclude_dir;	/* of directories: a name or a path */
	size_t		 nexclude_dir;
	uint64_t	 min_size;	/* allocated bytes, 0: none */
	uint64_t	 max_size;	/* allocated bytes, 0: unlimited */
};

/* An exclude pattern's longest: what the audit's result names. */
#define CONFIG_PATTERN_MAX	200

struct config	*config_load(const char *path, char *err, size_t errlen);
struct config	*config_default(void);
void		 config_free(struct config *);

/* ---- caps.c ---- */
int	 caps_drop(void);
int	 caps_limit(const int *, size_t);

/* ---- child.c: the one place trashd forks ---- */
pid_t	 child_fork(const char *name, const int *keep, size_t n, int *fd);

/* ---- chan.c: typed messages between trashd's processes ---- */
/*
 * A message's data at most: the largest is the front's client with its
 * groups (front-msg.h), 5.4 KiB; well below a SOCK_SEQPACKET datagram's
 * limit (the socket buffer).
 */
#define CHAN_DATA_MAX	8192

struct chan_msg {
	uint32_t	 type;
	size_t		 len;
	int		 fd;		/* passed with it, -1: none */
	uint8_t		 data[CHAN_DATA_MAX] __attribute__((aligned(8)));
};

/* A channel with a queue of what it could not send yet. */
struct chan_out;
struct chan {
	int		 fd;
	struct chan_out	*out, **tail;
	size_t		 nout;		/* queued */
};

int	 chan_send(int fd, uint32_t type, const void *, size_t, int passfd,
	    int flags);
int	 chan_recv(int fd, struct chan_msg *, bool fds);
int	 chan_get(const struct chan_msg *, void *, size_t min, size_t size);
void	 chan_init(struct chan *, int fd);
void	 chan_queue(struct chan *, uint32_t type, const void *, size_t,
	    int passfd);
int	 chan_flush(struct chan *);
void	 chan_clear(struct chan *);
extern const int caps_kept[];
extern const size_t caps_nkept;


/*
 * ---- the daemon's state, passed to every handler ----
 *
 * daemon.c opens and closes it; each layer keeps its own part here, the
 * upper layers' as pointers this layer does not look into.
 * control_init() adds its state (trashd.c calls it after daemon_open(),
 * so the unit tests' daemons have none), and front_attach() the clients
 * the front process hands over.
 */
struct db;
struct tfs;
struct tuid;
struct restore_job;
struct wipe_worker;
struct wipe_deferred;
struct scan_resume;
struct scan_dirq;
struct policy_new;
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
	LIST_HEAD(, restore_job) restores; /* running (restore.c) */
	size_t		 nrestores;
	struct wipe_worker *worker;	/* running (wipeq.c), or NULL */
	struct wipe_deferred *wipe_deferred; /* open elsewhere: retried */
	size_t		 wipe_ndeferred;
	struct event	*wipe_retry;
	unsigned	 wipe_backoff;	/* seconds to the next retry */
	bool		 rescan;	/* a full scan is due */
	struct scan_resume *resume;	/* the rescan in steps, NULL: none */
	struct event	*rescan_ev;	/* its next step */
	struct event	*periodic_ev;	/* each rescan-interval */
	struct scan_dirq *rescan_dirs;	/* uid dirs to rescan after it */
	size_t		 rescan_ndirs;
	struct control	*control;	/* NULL: no control socket */
	struct policy_new *fresh;	/* entries new since the last run */
	size_t		 nfresh;
	size_t		 fresh_cap;
	bool		 policy_full;	/* a full policy run is due */
	int64_t		 policy_due;	/* the next full run */

	/*
	 * What the scan (the lowest service) learns and the services
	 * above it act on, reported up: daemon_open() connects them.
	 */
	/* A uid's trash directory found: watch it before it is scanned. */
	int		(*uid_found)(struct trashd *, struct tfs *,
			    struct tuid *);
	/* An entry indexed; @born_ns -1: unknown or not asked for. */
	void		(*entry_new)(struct trashd *, int64_t id,
			    int64_t born_ns, int64_t deleted_ns);
	/* Is a restore moving entry @id out (its report says who)? */
	bool		(*entry_moving)(struct trashd *, int64_t id);
	/* A wipe of @fs ended and freed @bytes (writers may wait for it). */
	void		(*space_freed)(struct trashd *, struct tfs *,
			    int64_t bytes);
};

/* ---- notify.c: sd_notify(3) for Type=notify ---- */
void	 notify_status(const char *, ...)
	    __attribute__((format(printf, 1, 2)));
void	 notify_steady(struct trashd *);
void	 notify_ready(struct trashd *);
void	 notify_reloading(void);
void	 notify_stopping(void);

/* ---- lock.c: one trashd per index ---- */
int	 lock_index(const char *db, char *err, size_t errlen);
int	 lock_socket(const char *sock, char *err, size_t errlen);

#endif /* TRASHD_BASE_H */
