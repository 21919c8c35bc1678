/* SPDX-License-Identifier: ISC */
/*
 * trashd's services, each calling down and reporting up: the scan
 * reconciles the index with the trash (scan.c) and is the lowest of them;
 * watch.c feeds it inotify events; restores run as the caller in a child
 * (restore.c); the policy purges on a timer (policy.c) through the wipe
 * queue (wipeq.c).  What the scan learns goes up through the hooks of
 * struct trashd (base.h), what a restore has to say through the
 * struct restore_client it is started with.  Below: store.h and fs.h.
 */
#ifndef TRASHD_SERVICES_H
#define TRASHD_SERVICES_H

#include "store.h"

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
void	 scan_resume_start(struct trashd *, const char *why);
bool	 scan_resume_full(const struct trashd *);
void	 scan_resume_uid(struct trashd *, struct tfs *, struct tuid *);
int	 scan_resume_step(struct trashd *, size_t budget);
void	 scan_resume_stop(struct trashd *);

/* ---- watch.c ---- */
int	 watch_init(struct trashd *);
void	 watch_close(struct trashd *);
int	 watch_fs(struct trashd *, struct tfs *);
int	 watch_uid(struct trashd *, struct tfs *, struct tuid *);
int	 watch_read(struct trashd *);
void	 watch_overflow(struct trashd *);
void	 watch_rescan_uid(struct trashd *, struct tfs *, struct tuid *);

/* ---- pressure.c: the kernel's space pressure, above the policy ---- */
int	 pressure_fs(struct trashd *, struct tfs *);
void	 pressure_close(struct tfs *);
void	 pressure_watermark(struct trashd *, struct tfs *);
void	 pressure_wiped(struct trashd *, struct tfs *, int64_t bytes);

/* ---- policy.c ---- */
int	 policy_purge(struct trashd *, struct tfs *, const struct entry *,
	    const char *reason, int64_t actor_uid, int64_t actor_pid);
void	 policy_purge_list(struct trashd *, struct tfs *,
	    const struct entry_list *, const char *reason, int64_t actor_uid,
	    int64_t actor_pid, void (*done)(void *, const struct entry *, int),
	    void *);
/* A policy set: what is given changes, the rest stays. */
struct policy_change {
	enum policy_kind	 kind;
	uint32_t		 xid;
	bool			 quota, retention;	/* given */
	int64_t			 quota_v, retention_v;
	const char		*quota_text, *retention_text;
	bool			 watermark;		/* given */
	const struct tfs	*wm_fs;			/* NULL: every fs */
	int			 wm;
};
int	 policy_change(struct trashd *, const struct policy_change *,
	    struct policy *);
int	 policy_secure(struct trashd *, struct tfs *, int64_t now);
int	 policy_retention(struct trashd *, struct tfs *, int64_t now);
int	 policy_quota(struct trashd *, struct tfs *);
struct purge_amount policy_pressure(struct trashd *, struct tfs *,
	    bool quota, int64_t uid, struct purge_amount want,
	    const char *reason, bool *wiping);
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
void	 policy_indexed(struct trashd *, int64_t id, int64_t born_ns,
	    int64_t deleted_ns);
void	 policy_start(struct trashd *);
void	 policy_stop(struct trashd *);
void	 policy_soon(struct trashd *);
void	 policy_next(struct trashd *);

/* ---- wipeq.c: the wipe queue, the daemon's side ---- */
int	 wipe_stage(struct trashd *, struct tfs *, const struct entry *,
	    const char *reason);
int	 wipe_recover(struct trashd *);
int	 wipe_drain(struct trashd *);
void	 wipe_kick(struct trashd *);
void	 wipe_worker_reap(struct trashd *);
pid_t	 wipe_worker_pid(struct trashd *);
size_t	 wipe_deferred(struct trashd *, int64_t uid);
int	 wipe_request(struct trashd *, int64_t id, int64_t actor_uid,
	    int64_t actor_pid);
/* Jobs one pass collects (4096); the rest wait for the next pass. */
extern size_t wipe_jobs_max;

/* ---- wipe-worker.c: the wipe worker, "trashd-wipe" ---- */
struct wipe_job {
	size_t		fs;		/* index in d->fs */
	int64_t		id;		/* 0: orphan */
	struct ident	ident;
	char		name[32];
};

/* The worker's one message on its channel (chan.c): a job's report. */
#define WIPE_MSG_DONE		1
struct wipe_msg {
	uint32_t		job;
	struct wipe_report	rep;
};

void	 wipe_job_run(struct trashd *, const struct wipe_opts *,
	    const struct wipe_job *, struct wipe_report *);
void	 wipe_worker_main(struct trashd *, const struct wipe_opts *,
	    struct wipe_job *, size_t n, int fd) __attribute__((noreturn));

/* ---- restore.c: restores as the caller, the daemon's side ---- */
/* Who asked, as the front process read it at accept (SO_PEERCRED). */
struct peer {
	uid_t		 uid;
	gid_t		 gid;
	pid_t		 pid;
	gid_t		*groups;
	int		 ngroups;
	bool		 admin;
};

/* The credentials a restore child takes. */
struct creds {
	uid_t		 uid;
	gid_t		 gid;
	gid_t		*groups;
	int		 ngroups;
};

/*
 * Where a restore's replies go (control.c's connection, which restore.c
 * holds as @arg and does not look into): each message, then the end of
 * the request.  A detached restore tells no one.
 */
struct proto_buf;
struct restore_client {
	void	(*send)(void *arg, struct proto_buf *);
	void	(*done)(void *arg);
};
struct restore_job;

int	 restore_start(struct trashd *, const struct restore_client *,
	    void *arg, const struct peer *, struct tfs *, uint32_t uid,
	    const struct creds *, struct entry_list *, char **targets,
	    bool overwrite, mode_t umask, struct restore_job **);
void	 restore_detach(struct restore_job *);
void	 restore_stop_all(struct trashd *);
size_t	 restore_running(struct trashd *);
size_t	 restore_running_uid(struct trashd *, uid_t);
bool	 restore_owns(struct trashd *, int64_t id);
int	 restore_creds(const struct peer *, uint32_t uid, int tudirfd,
	    struct creds *);
void	 restore_creds_free(struct creds *);

/* ---- restore-child.c: the restore child, "trashd-restore" ---- */
/* The child's one message on its channel (chan.c): an entry's outcome. */
#define RESTORE_MSG_ENTRY	1
struct restore_msg {
	uint32_t	 idx;
	int32_t		 err;
	uint32_t	 owner;		/* of a refused parent, else NO_OWNER */
	uint32_t	 plen;		/* how much of the target names it */
};
#define NO_OWNER	UINT32_MAX

void	 restore_child(int fd, int rootfd, int tudirfd, const struct creds *,
	    const struct entry_list *, char *const *targets, bool overwrite,
	    mode_t umask, int64_t timeout) __attribute__((noreturn));
int	 restore_move(int rootfd, int tudirfd, const char *name,
	    const struct ident *, const char *target, bool overwrite,
	    uid_t self, uid_t *owner, size_t *plen);

#endif /* TRASHD_SERVICES_H */
