/* SPDX-License-Identifier: ISC */
/*
 * trashd and trashctl end to end: the fixture the test_e2e_*.c suites
 * share (e2e.c).  Each test starts the real trashd binary on a scratch
 * tree under /tmp (its own config, index and socket), stages entries
 * exactly as the kernel would (the trusted.trash record set, then
 * renamed into /.trash/<uid>/), and runs the real trashctl binary as
 * numeric test uids (setgroups, setresgid, setresuid in a forked child:
 * no /etc/passwd entries needed).  Raw protocol clients use the shared
 * codec of common/.
 *
 * Where a test goes, by what it is about:
 *   test_e2e_authz.c    who may do what over the control socket, and
 *                       what keeps it so: the protocol's refusals,
 *                       stalled and many clients, the front process
 *                       (its sandbox, the credentials it passes on, its
 *                       restart), the fds of every child of trashd
 *   test_e2e_restore.c  restore: trees, conflicts, symlinks, rights, the
 *                       credentials it runs with, per-user limits
 *   test_e2e_wipe.c     wipe and empty, the wipe worker, the floods
 *   test_e2e_exclude.c  the exclusions of trashd.conf (exclude,
 *                       exclude-dir, min-size, max-size)
 *   test_e2e_policy.c   policy set/get and quota: defaults, watermarks,
 *                       values as typed and as given, trashd.conf's
 *   test_e2e_cli.c      what trashctl prints and parses: list, tables,
 *                       escaping, --json and --ndjson, audit and its
 *                       filters, times and ids as typed, empty's
 *                       selection and confirmation, a trashd not running
 *
 * Each suite: test_e2e_SUBJECT TRASHD TRASHCTL; TB_TEST_FILTER runs one
 * test or a glob of them; TB_VALGRIND_EXE set (tests/valgrind.sh runs
 * trashd) makes every wait 10 times longer.
 */
#ifndef E2E_H
#define E2E_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto.h"
#include "testlib.h"

#define UA	70001		/* user A */
#define UB	70002		/* user B */
#define UADM	70003		/* an admin by group */
#define UNOT	70004		/* in some other group */
#define GADM	70100		/* the admin group */
#define TIMEOUT	2		/* client-timeout of the test config, s */

/* The trashd given, and the copy of trashctl the test uids can run. */
extern const char *trashd_bin, *trashctl_bin;
/* How much slower than native trashd runs: 10 under valgrind. */
extern int slow;
/* start() runs trashd where close_range(2) fails (ENOSYS); setup() resets. */
extern bool start_no_close_range;

/* A program a test runs and reads (run(), job_start()). */
struct job {
	pid_t		 pid;		/* 0: reaped */
	int		 fd;		/* its output, -1: at its end */
	int		 master;	/* the pseudo-tty it reads, or -1 */
	char		*buf;		/* what it wrote so far */
	size_t		 len, cap;
};

/* At most this many runs in the background, which teardown() ends. */
#define E2E_JOBS	16

struct env {
	struct tl	 t;
	char		 conf[PATH_MAX];
	char		 sock[PATH_MAX];
	char		 log[PATH_MAX];
	pid_t		 pid;
	struct job	 jobs[E2E_JOBS];
	/* A FUSE mount nobody serves (dead_mount()), or -1. */
	int		 fuse_fd;
	char		 fuse_mnt[PATH_MAX];
};

/* The uid, gid and groups a child takes (drop_to()). */
struct who {
	uid_t		 uid;
	gid_t		 gid;
	gid_t		 groups[4];
	int		 ngroups;
};

extern const struct who A, B, ADM, NOT, ROOT;

void	 e2e_init(int argc, char *argv[]);

void	 msleep(long ms);
int64_t	 mono_ms(void);

/* ---- the daemon ---- */
int	 setup(void **state);
int	 teardown(void **state);
void	 start(struct env *);
void	 stop(struct env *);
void	 restart_with(struct env *, const char *line);
pid_t	 trashd_child(struct env *, const char *comm);
pid_t	 wipe_started(struct env *, const struct who *, int64_t uid,
	    char *rel, size_t size);
uint64_t proc_status_hex(pid_t, const char *name);
void	 conf_refused(struct env *, const char *name, const char *rules,
	    int line, const char *why);
void	 conf_accepted(struct env *, const char *name, const char *rules);

/* ---- running trashctl (or trashd) as someone ---- */

/*
 * How run() and job_start() run it.  All zero: trashctl -s SOCK ARGS...
 * as root, in /, umask 022, stdin /dev/null, stdout and stderr read, for
 * as long as it takes.
 */
struct run {
	const struct who *as;		/* whose ids it takes; NULL: root's */
	const char	*prog;		/* NULL: trashctl -s SOCK; else this,
					 * ARGS[0] its argv[0] */
	const char	*sock;		/* trashctl's -s; NULL: the env's */
	const char	*cwd;		/* NULL: / */
	int		 umask;		/* 0: 022; else RUN_UMASK(mask) */
	const char	*tty;		/* typed at a pseudo-tty of its own
					 * session, its stdin; NULL: none */
	bool		 stdout_only;	/* stderr to /dev/null */
	int64_t		 timeout_ms;	/* then killed, exit -1; 0: none */
};
#define RUN_UMASK(mask)	((mask) | 01000)

/* A NULL-terminated list of arguments. */
#define ARGS(...)	((const char *const []){ __VA_ARGS__, NULL })

void	 drop_to(const struct who *);
void	 job_start(struct env *, const struct run *, const char *const *args,
	    struct job *);
int	 job_wait(struct job *, int64_t ms);
void	 job_kill(struct job *);
char	*job_output(struct job *);
int	 run(struct env *, const struct run *, char **out,
	    const char *const *args);

/* trashctl -s SOCK ARGS... as @w: its exit code, its output in *@out. */
#define ctl(e, w, out, ...) \
	run((e), &(const struct run){ .as = (w) }, (out), ARGS(__VA_ARGS__))

void	 check_rc_fn(int got, int want, const char *out);
void	 expect_str(const char *out, const char *needle);
size_t	 count_str(const char *hay, const char *needle);

/* The call first, then its output: argument order is unspecified. */
#define check_rc(call, want, out) do { \
	int rc_ = (call); \
	check_rc_fn(rc_, want, out); \
} while (0)

size_t	 audit_rows(struct env *, char **out, const char *const *filters);
/* Rows of "audit --json -n 1000 FILTERS..." as root; the text in *@out. */
#define AUDIT(e, out, ...)	audit_rows(e, out, ARGS(__VA_ARGS__))
void	 audit_says(struct env *, const char *action, const char *needle,
	    int ms);

/* ---- raw protocol ---- */
int	 raw_connect(struct env *, struct proto_client *);
int	 raw_status(struct proto_client *);
int64_t	 raw_error(struct proto_client *);
bool	 raw_closed(struct proto_client *);
int64_t	 raw_count(struct env *, int64_t uid, int64_t *first_id);
int64_t	 raw_usage(struct env *, int64_t uid);
void	 wait_count(struct env *, int64_t uid, int64_t n);
int64_t	 entry_id(struct env *, int64_t uid);
int64_t	 entry_id_named(struct env *, int64_t uid, const char *name);

/* ---- staging ---- */
void	 mkdir_as(struct env *, const char *rel, uid_t uid, mode_t mode);
void	 stage(struct env *, uint32_t uid, const char *name, const char *path,
	    int64_t t, const void *data, size_t len, mode_t mode);
void	 stage_str(struct env *, uint32_t uid, const char *name,
	    const char *path, const char *data);
char	*read_rel(struct env *, const char *rel);
bool	 exists_rel(struct env *, const char *rel);
bool	 wait_gone(struct env *, const char *rel, int ms);
bool	 dead_mount(struct env *, const char *dir, uid_t uid);
void	 dead_unmount(struct env *);

#endif
