/* SPDX-License-Identifier: ISC */
/*
 * The fixture of the end-to-end suites (e2e.h): trashd started and
 * stopped, trashctl (or trashd) run as someone and read, raw protocol
 * clients, entries staged as the kernel would, trashd's children found.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

const char *trashd_bin, *trashctl_bin;
int slow = 1;
bool start_no_close_range;
/* This suite's name, for its messages. */
static const char *e2e_prog = "test_e2e";

const struct who A = { UA, UA, { UA }, 1 };
const struct who B = { UB, UB, { UB }, 1 };
const struct who ADM = { UADM, UADM, { UADM, GADM }, 2 };
const struct who NOT = { UNOT, UNOT, { UNOT, 70005 }, 2 };
const struct who ROOT = { 0, 0, { 0 }, 1 };

void
msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the daemon ---- */

int
raw_connect(struct env *e, struct proto_client *c)
{
	return proto_connect(c, e->sock, 5000 * slow);
}

/*
 * close_range(2) refused with ENOSYS from here on, across exec, as on a
 * kernel before 5.9 or under a container's seccomp profile that predates
 * it: whatever closes fds with it alone keeps them all.
 */
static void
no_close_range(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		_exit(126);
}

/* Start trashd (its log appended to) and wait for its socket. */
void
start(struct env *e)
{
	struct proto_client c;
	int fd, i;

	e->pid = fork();
	assert_true(e->pid >= 0);
	if (e->pid == 0) {
		/* Should this test crash, trashd goes with it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fd = open(e->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		dup2(fd, 1);
		dup2(fd, 2);
		if (start_no_close_range)
			no_close_range();
		execl(trashd_bin, "trashd", "-d", "-f", e->conf, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 500 * slow; i++) {
		if (raw_connect(e, &c) == 0) {
			proto_close(&c);
			break;
		}
		msleep(10);
	}
	assert_true(i < 500 * slow);
}

int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char buf[2 * PATH_MAX + 512];
	size_t i;

	assert_non_null(e);
	start_no_close_range = false;
	for (i = 0; i < E2E_JOBS; i++)
		e->jobs[i] = (struct job){ .fd = -1, .master = -1 };
	e->fuse_fd = -1;
	tl_setup(&e->t);
	TL_SNPRINTF(e->conf, sizeof(e->conf), "%s/trashd.conf", e->t.root);
	TL_SNPRINTF(e->sock, sizeof(e->sock), "%s/run/trashd.sock", e->t.root);
	TL_SNPRINTF(e->log, sizeof(e->log), "%s/trashd.log", e->t.root);
	TL_SNPRINTF(buf, sizeof(buf), "database %s\nfilesystem %s\nsocket %s\n"
	    "admin-group %d\nclient-timeout %ds\nretention forever\n"
	    "watermark 0%%\ngrace 1h\n", e->t.db, e->t.fs, e->sock, GADM,
	    TIMEOUT);
	tl_write_file(e->conf, buf, strlen(buf));
	/* The scratch root reachable by the test users, home theirs. */
	assert_int_equal(chmod(e->t.root, 0755), 0);
	tl_path(&e->t, buf, sizeof(buf), "home");
	assert_int_equal(chmod(buf, 01777), 0);
	start(e);
	*state = e;
	return 0;
}

/* A clean exit: no crash, no sanitizer report. */
void
stop(struct env *e)
{
	int status = -1;

	kill(e->pid, SIGTERM);
	waitpid(e->pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char cmd[PATH_MAX + 16];

		TL_SNPRINTF(cmd, sizeof(cmd), "tail -40 %s", e->log);
		if (system(cmd) != 0)
			fprintf(stderr, "(no log)\n");
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
teardown(void **state)
{
	struct env *e = *state;
	const int64_t uids[] = { UA, UB, UADM, UNOT, 0 };
	size_t i;

	/* The dead mount first: tearing down a tree under it would hang. */
	dead_unmount(e);
	for (i = 0; i < E2E_JOBS; i++) {
		job_kill(&e->jobs[i]);
		free(job_output(&e->jobs[i]));
	}
	/* The usage the triggers keep agrees with the entries, always. */
	for (i = 0; i < sizeof(uids) / sizeof(uids[0]); i++)
		assert_int_equal(raw_usage(e, uids[i]),
		    raw_count(e, uids[i], NULL));
	stop(e);
	tl_teardown(&e->t);
	free(e);
	return 0;
}

/* Restart trashd with @line added to its configuration. */
void
restart_with(struct env *e, const char *line)
{
	char *out = NULL;
	FILE *f;

	/* Answered: its loop runs, SIGTERM is handled (not so at connect). */
	check_rc(ctl(e, &ROOT, &out, "status"), 0, out);
	free(out);
	stop(e);
	assert_non_null(f = fopen(e->conf, "ae"));
	fputs(line, f);
	fclose(f);
	start(e);
}

/*
 * trashd's child named @comm (child_fork() names each: trashd-front,
 * trashd-wipe, trashd-restore); 0 if none.
 */
pid_t
trashd_child(struct env *e, const char *comm)
{
	char p[64], line[512], want[32], *rp;
	struct dirent *de;
	pid_t found = 0;
	long ppid;
	DIR *d;
	FILE *f;

	TL_SNPRINTF(want, sizeof(want), "(%s)", comm);
	assert_non_null(d = opendir("/proc"));
	while (found == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		TL_SNPRINTF(p, sizeof(p), "/proc/%s/stat", de->d_name);
		if ((f = fopen(p, "re")) == NULL)
			continue;
		/* pid (comm) state ppid: comm may hold anything, even ")". */
		if (fgets(line, sizeof(line), f) != NULL &&
		    strstr(line, want) != NULL &&
		    (rp = strrchr(line, ')')) != NULL &&
		    sscanf(rp + 1, " %*c %ld", &ppid) == 1 && ppid == e->pid)
			found = (pid_t)atoi(de->d_name);
		fclose(f);
	}
	closedir(d);
	return found;
}

/*
 * @w wipes @uid's one entry (of some MiB, at a wipe-rate of 1M): the
 * wipe worker's pid once it is at it, its file in .trash/.wipe in @rel.
 */
pid_t
wipe_started(struct env *e, const struct who *w, int64_t uid, char *rel,
    size_t size)
{
	char id[32], *out = NULL;
	pid_t pid = 0;
	int i;

	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id(e, uid));
	TL_SNPRINTF(rel, size, ".trash/.wipe/%s", id);
	check_rc(ctl(e, w, &out, "wipe", id), 0, out);
	free(out);
	for (i = 0; i < 300 * slow && (pid = trashd_child(e,
	    "trashd-wipe")) == 0; i++)
		msleep(10);
	assert_true(pid > 0);
	/* Its sandbox is in place before it touches a file: let it start. */
	msleep(200 * slow);
	assert_true(exists_rel(e, rel));	/* still at it */
	return pid;
}

uint64_t
proc_status_hex(pid_t pid, const char *name)
{
	char p[64], line[256];
	size_t len = strlen(name);
	uint64_t v = UINT64_MAX;
	FILE *f;

	TL_SNPRINTF(p, sizeof(p), "/proc/%d/status", (int)pid);
	assert_non_null(f = fopen(p, "re"));
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, name, len) == 0 && line[len] == ':')
			v = strtoull(line + len + 1, NULL, 16);
	fclose(f);
	return v;
}

/*
 * A trashd.conf of the scratch fs, NAME.conf with its own NAME.db and
 * NAME.sock, and @rules (its lines from the 4th); trashd -n on it, and
 * trashd -d (bounded, then killed): the exit code, the output in *@out.
 */
static int
conf_check(struct env *e, const char *name, const char *rules, bool check,
    char *conf, size_t size, char **out)
{
	char text[PATH_MAX * 3];

	TL_SNPRINTF(conf, size, "%s/%s.conf", e->t.root, name);
	TL_SNPRINTF(text, sizeof(text), "database %s/%s.db\nfilesystem %s\n"
	    "socket %s/%s.sock\n%s\n", e->t.root, name, e->t.fs, e->t.root,
	    name, rules);
	tl_write_file(conf, text, strlen(text));
	/* One that starts would never end. */
	return run(e, &(const struct run){ .prog = trashd_bin,
	    .timeout_ms = 5000 * slow }, out,
	    ARGS("trashd", check ? "-n" : "-d", "-f", conf));
}

/*
 * @rules refused, by trashd -n and at a real start, with FILE:@line and,
 * from -n, @why.
 */
void
conf_refused(struct env *e, const char *name, const char *rules, int line,
    const char *why)
{
	char conf[PATH_MAX], want[PATH_MAX + 64], *out = NULL;
	int rc;

	rc = conf_check(e, name, rules, true, conf, sizeof(conf), &out);
	TL_SNPRINTF(want, sizeof(want), "%s:%d: ", conf, line);
	if (rc == 0 || strstr(out, want) == NULL || strstr(out, why) == NULL)
		fail_msg("trashd -n, %s: exit %d: %s", rules, rc, out);
	free(out);
	rc = conf_check(e, name, rules, false, conf, sizeof(conf), &out);
	if (rc <= 0 || strstr(out, want) == NULL)
		fail_msg("trashd -d, %s: exit %d: %s", rules, rc, out);
	free(out);
}

/* @rules accepted by trashd -n. */
void
conf_accepted(struct env *e, const char *name, const char *rules)
{
	char conf[PATH_MAX], *out = NULL;
	int rc;

	rc = conf_check(e, name, rules, true, conf, sizeof(conf), &out);
	if (rc != 0)
		fail_msg("trashd -n: exit %d: %s", rc, out);
	free(out);
}

/* ---- running trashctl (or trashd) as someone ---- */

void
drop_to(const struct who *w)
{
	if (setgroups((size_t)w->ngroups, w->groups) < 0 ||
	    setresgid(w->gid, w->gid, w->gid) < 0 ||
	    setresuid(w->uid, w->uid, w->uid) < 0)
		_exit(126);
}

/* In a child that took its ids: why @prog could not be run. */
static void __attribute__((noreturn))
exec_failed(const char *prog)
{
	fprintf(stderr, "%s: cannot run %s as uid %u: %s\n", e2e_prog, prog,
	    (unsigned)getuid(), strerror(errno));
	_exit(127);
}

/*
 * Start trashctl -s SOCK @args... (or @o->prog @args...) as @o says, in
 * the background: *@j is its job, job_wait() reads it to its end.
 */
void
job_start(struct env *e, const struct run *o, const char *const *args,
    struct job *j)
{
	const char *prog = o->prog != NULL ? o->prog : trashctl_bin;
	char *argv[32];
	int p[2], in, err, n = 0;

	if (o->prog == NULL) {
		argv[n++] = (char *)"trashctl";
		argv[n++] = (char *)"-s";
		argv[n++] = (char *)(o->sock != NULL ? o->sock : e->sock);
	}
	for (; *args != NULL; args++) {
		assert_true(n < 31);
		argv[n++] = (char *)*args;
	}
	argv[n] = NULL;
	*j = (struct job){ .fd = -1, .master = -1 };
	if (o->tty != NULL) {
		j->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		assert_true(j->master >= 0);
		assert_int_equal(grantpt(j->master), 0);
		assert_int_equal(unlockpt(j->master), 0);
	}
	/* Close-on-exec: no other child holds it open past its end. */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	j->pid = fork();
	assert_true(j->pid >= 0);
	if (j->pid == 0) {
		/* A session of its own: the pseudo-tty is its terminal. */
		setsid();
		in = o->tty != NULL ? open(ptsname(j->master), O_RDWR) :
		    open("/dev/null", O_RDONLY);
		/* A JSON reader gets stdout alone. */
		err = o->stdout_only ? open("/dev/null", O_WRONLY) : p[1];
		if (in < 0 || err < 0 || dup2(in, 0) < 0 ||
		    dup2(p[1], 1) < 0 || dup2(err, 2) < 0 ||
		    chdir(o->cwd != NULL ? o->cwd : "/") < 0)
			_exit(125);
		/* Kept across exec, whichever of them dup2() left alone. */
		for (n = 0; n < 3; n++)
			(void)fcntl(n, F_SETFD, 0);
		if (in > 2)
			close(in);
		if (err > 2 && err != p[1])
			close(err);
		umask(o->umask != 0 ? (mode_t)(o->umask & 0777) : 022);
		/* A sanitizer report must not pass for exit code 1. */
		setenv("ASAN_OPTIONS", "exitcode=99", 1);
		if (o->as != NULL)
			drop_to(o->as);
		execv(prog, argv);
		exec_failed(prog);
	}
	close(p[1]);
	j->fd = p[0];
	if (o->tty != NULL)
		assert_int_equal(write(j->master, o->tty, strlen(o->tty)),
		    (ssize_t)strlen(o->tty));
}

/* One read of @j's output; at its end the pipe is closed. */
static void
job_read(struct job *j)
{
	ssize_t r;

	if (j->len + 4096 > j->cap) {
		j->cap = (j->len + 4096) * 2;
		j->buf = xreallocarray(j->buf, j->cap, 1);
	}
	if ((r = read(j->fd, j->buf + j->len, j->cap - j->len - 1)) <= 0) {
		close(j->fd);
		j->fd = -1;
		return;
	}
	j->len += (size_t)r;
}

/*
 * Wait up to @ms (<0: for as long as it takes) for @j to end, reading
 * its output meanwhile: its exit code, or -1 if it is still running.
 */
int
job_wait(struct job *j, int64_t ms)
{
	int64_t t0 = mono_ms(), left;
	struct pollfd pfd;
	int status, n;
	pid_t r;

	assert_true(j->pid > 0);
	/* Its output to the end first: a pipe holds only so much. */
	while (j->fd >= 0) {
		left = ms < 0 ? -1 : ms - (mono_ms() - t0);
		pfd = (struct pollfd){ .fd = j->fd, .events = POLLIN };
		n = poll(&pfd, 1, ms < 0 ? -1 : left > 0 ? (int)left : 0);
		assert_true(n >= 0);
		if (n == 0)
			return -1;
		job_read(j);
	}
	while ((r = waitpid(j->pid, &status, ms < 0 ? 0 : WNOHANG)) == 0) {
		if (mono_ms() - t0 >= ms)
			return -1;
		msleep(10);
	}
	assert_int_equal(r, j->pid);
	j->pid = 0;
	if (j->master >= 0) {
		close(j->master);
		j->master = -1;
	}
	if (!WIFEXITED(status)) {
		fprintf(stderr, "killed by signal %d; output:\n%.*s\n",
		    WTERMSIG(status), (int)j->len,
		    j->buf != NULL ? j->buf : "");
		fail();
	}
	return WEXITSTATUS(status);
}

/* Kill @j if it still runs; what it wrote is kept for job_output(). */
void
job_kill(struct job *j)
{
	struct pollfd pfd;

	if (j->pid > 0) {
		kill(j->pid, SIGKILL);
		waitpid(j->pid, NULL, 0);
		j->pid = 0;
	}
	while (j->fd >= 0) {
		pfd = (struct pollfd){ .fd = j->fd, .events = POLLIN };
		if (poll(&pfd, 1, 0) <= 0) {
			close(j->fd);
			j->fd = -1;
		} else
			job_read(j);
	}
	if (j->master >= 0) {
		close(j->master);
		j->master = -1;
	}
}

/* What @j wrote, to its end or so far: the caller's to free. */
char *
job_output(struct job *j)
{
	char *out = j->buf != NULL ? j->buf : xstrdup("");

	out[j->len] = '\0';
	j->buf = NULL;
	j->len = j->cap = 0;
	return out;
}

/*
 * Run trashctl -s SOCK @args... (or @o->prog @args...) as @o says, to its
 * end: its exit code (-1: killed at @o->timeout_ms), its stdout and
 * stderr in *@out (malloc'd; @out may be NULL).
 */
int
run(struct env *e, const struct run *o, char **out, const char *const *args)
{
	struct job j;
	int rc;

	job_start(e, o, args, &j);
	if ((rc = job_wait(&j, o->timeout_ms > 0 ? o->timeout_ms : -1)) < 0)
		job_kill(&j);
	if (out != NULL)
		*out = job_output(&j);
	else
		free(job_output(&j));
	return rc;
}

void
check_rc_fn(int got, int want, const char *out)
{
	if (got != want)
		fprintf(stderr, "exit %d, want %d; output:\n%s\n", got, want,
		    out != NULL ? out : "");
	assert_int_equal(got, want);
}

void
expect_str(const char *out, const char *needle)
{
	if (strstr(out, needle) == NULL)
		fprintf(stderr, "\"%s\" not in:\n%s\n", needle, out);
	assert_non_null(strstr(out, needle));
}

size_t
count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

size_t
audit_rows(struct env *e, char **out, const char *const *filters)
{
	const char *args[24] = { "audit", "--json", "-n", "1000" };
	size_t n = 4;

	for (; *filters != NULL && n < 23; filters++)
		args[n++] = *filters;
	args[n] = NULL;
	check_rc(run(e, &(const struct run){ .as = &ROOT }, out, args), 0,
	    *out);
	return count_str(*out, "\"id\":");
}

/* Poll the audit log's @action rows until they have @needle. */
void
audit_says(struct env *e, const char *action, const char *needle, int ms)
{
	char *out = NULL;
	int i;

	for (i = 0; i < ms / 50 * slow; i++) {
		check_rc(ctl(e, &ROOT, &out, "audit", "-A", action), 0, out);
		if (strstr(out, needle) != NULL)
			break;
		free(out);
		out = NULL;
		msleep(50);
	}
	if (out == NULL)
		check_rc(ctl(e, &ROOT, &out, "audit", "-A", action), 0, out);
	expect_str(out, needle);
	free(out);
}

/* ---- raw protocol ---- */

/* One status over connection @c: its reply type (MSG_OK expected). */
int
raw_status(struct proto_client *c)
{
	struct proto_buf b;
	struct proto_msg *m = xmalloc(sizeof(*m));
	const char *why;
	int r;

	proto_init(&b, MSG_STATUS);
	/* Refused at accept: the error is waiting even if the send fails. */
	(void)proto_send(c, &b);
	do {
		if ((r = proto_recv(c, m, &why)) < 0)
			goto out;
	} while (m->type == MSG_FS);
	r = m->type == MSG_ERROR ? -(int)m->num[A_ERRNO] : m->type;
out:
	free(m);
	return r;
}

/* Read one message; its errno if an ERROR, else -1. */
int64_t
raw_error(struct proto_client *c)
{
	struct proto_msg *m = xmalloc(sizeof(*m));
	const char *why;
	int64_t err = -1;

	if (proto_recv(c, m, &why) == 0 && m->type == MSG_ERROR)
		err = m->num[A_ERRNO];
	free(m);
	return err;
}

bool
raw_closed(struct proto_client *c)
{
	char ch;
	ssize_t n;
	int i;

	for (i = 0; i < 300; i++) {
		n = recv(c->fd, &ch, 1, MSG_DONTWAIT);
		if (n == 0)
			return true;
		if (n < 0 && errno != EAGAIN)
			return true;
		msleep(10);
	}
	return false;
}

/*
 * A raw list of @uid's trash: its count; the first entry's id in
 * *@first_id, the id of the one named @name in *@named_id (-1: none).
 */
static int64_t
raw_list(struct env *e, int64_t uid, int64_t *first_id, const char *name,
    int64_t *named_id)
{
	struct proto_client c;
	struct proto_buf b;
	struct proto_msg *m = xmalloc(sizeof(*m));
	const char *why;
	int64_t n = -1;

	if (first_id != NULL)
		*first_id = -1;
	if (named_id != NULL)
		*named_id = -1;
	assert_int_equal(raw_connect(e, &c), 0);
	proto_init(&b, MSG_LIST);
	proto_num(&b, A_UID, uid);
	assert_int_equal(proto_send(&c, &b), 0);
	for (;;) {
		assert_int_equal(proto_recv(&c, m, &why), 0);
		if (m->type == MSG_ENTRY && first_id != NULL && *first_id < 0)
			*first_id = m->num[A_ID];
		if (m->type == MSG_ENTRY && named_id != NULL &&
		    m->str[A_NAME] != NULL && strcmp(m->str[A_NAME], name) == 0)
			*named_id = m->num[A_ID];
		if (m->type == MSG_OK) {
			n = m->num[A_COUNT];
			break;
		}
		assert_int_not_equal(m->type, MSG_ERROR);
	}
	proto_close(&c);
	free(m);
	return n;
}

int64_t
raw_count(struct env *e, int64_t uid, int64_t *first_id)
{
	return raw_list(e, uid, first_id, NULL, NULL);
}

/* Live entries of @uid by the usage that status and quota report. */
int64_t
raw_usage(struct env *e, int64_t uid)
{
	struct proto_client c;
	struct proto_buf b;
	struct proto_msg *m = xmalloc(sizeof(*m));
	const char *why;
	int64_t n = 0;

	assert_int_equal(raw_connect(e, &c), 0);
	proto_init(&b, MSG_QUOTA);
	proto_num(&b, A_UID, uid);
	assert_int_equal(proto_send(&c, &b), 0);
	do {
		assert_int_equal(proto_recv(&c, m, &why), 0);
		assert_int_not_equal(m->type, MSG_ERROR);
		if (m->type == MSG_USAGE)
			n += m->num[A_COUNT];
	} while (m->type != MSG_OK);
	proto_close(&c);
	free(m);
	return n;
}

/* Wait until trashd indexed @n live entries of @uid. */
void
wait_count(struct env *e, int64_t uid, int64_t n)
{
	int i;

	for (i = 0; i < 500 * slow && raw_count(e, uid, NULL) != n; i++)
		msleep(10);
	assert_int_equal(raw_count(e, uid, NULL), n);
}

int64_t
entry_id(struct env *e, int64_t uid)
{
	int64_t id;

	(void)raw_count(e, uid, &id);
	assert_true(id > 0);
	return id;
}

/* The id of entry @name in @uid's trash, by a raw list. */
int64_t
entry_id_named(struct env *e, int64_t uid, const char *name)
{
	int64_t id;

	(void)raw_list(e, uid, NULL, name, &id);
	assert_true(id > 0);
	return id;
}

/* ---- staging ---- */

void
mkdir_as(struct env *e, const char *rel, uid_t uid, mode_t mode)
{
	char p[PATH_MAX];

	tl_path(&e->t, p, sizeof(p), "%s", rel);
	assert_int_equal(mkdir(p, mode), 0);
	assert_int_equal(chown(p, uid, uid), 0);
	assert_int_equal(chmod(p, mode), 0);
}

void
stage(struct env *e, uint32_t uid, const char *name, const char *path,
    int64_t t, const void *data, size_t len, mode_t mode)
{
	struct tl_entry te = { .uid = uid, .name = name, .path = path,
	    .time = t, .deleter = uid, .data = data, .len = len };
	char p[PATH_MAX];

	tl_stage(&e->t, &te);
	tl_path(&e->t, p, sizeof(p), ".trash/%u/%s", uid, name);
	assert_int_equal(chmod(p, mode), 0);
}

void
stage_str(struct env *e, uint32_t uid, const char *name, const char *path,
    const char *data)
{
	stage(e, uid, name, path, 1700000000, data, strlen(data), 0644);
}

char *
read_rel(struct env *e, const char *rel)
{
	char p[PATH_MAX];
	size_t len;

	tl_path(&e->t, p, sizeof(p), "%s", rel);
	if (!tl_exists(p))
		return NULL;
	return tl_read_file(p, &len);
}

bool
exists_rel(struct env *e, const char *rel)
{
	char p[PATH_MAX];

	tl_path(&e->t, p, sizeof(p), "%s", rel);
	return tl_exists(p);
}

bool
wait_gone(struct env *e, const char *rel, int ms)
{
	int i;

	for (i = 0; i < ms / 10 * slow && exists_rel(e, rel); i++)
		msleep(10);
	return !exists_rel(e, rel);
}

/*
 * A FUSE filesystem at @dir that never answers, as @uid would mount it
 * with fusermount: whatever looks into it waits (killably) forever.
 * False where FUSE is not to be had.  teardown() unmounts it.
 */
bool
dead_mount(struct env *e, const char *dir, uid_t uid)
{
	char opts[128];
	int fd;

	if ((fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0)
		return false;
	/* allow_other: every uid's lookup in it hangs, not only @uid's. */
	TL_SNPRINTF(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%u,"
	    "group_id=%u,allow_other", fd, (unsigned)uid, (unsigned)uid);
	if (mount("trashbin-test", dir, "fuse.dead", MS_NOSUID | MS_NODEV,
	    opts) < 0) {
		close(fd);
		return false;
	}
	e->fuse_fd = fd;
	TL_SNPRINTF(e->fuse_mnt, sizeof(e->fuse_mnt), "%s", dir);
	return true;
}

void
dead_unmount(struct env *e)
{
	if (e->fuse_fd < 0)
		return;
	(void)umount2(e->fuse_mnt, MNT_DETACH);
	/* Its last fd closed, the connection is aborted: waiters fail. */
	close(e->fuse_fd);
	e->fuse_fd = -1;
}

/*
 * ---- issue 13, systemd and journald (wt-systemd): a clone under a 0700
 * home ----
 *
 * The test uids run trashctl, and from a build tree under a 0700 home
 * they cannot even reach it: every exec failed with a bare exit 127.  So
 * what they run is a copy in a directory of its own under /tmp, 0755,
 * made once here and removed at exit; should an exec fail all the same,
 * the child says why on the output the test prints.
 */
static char stage_dir[PATH_MAX], stage_bin[PATH_MAX];
static pid_t stage_pid;

static void
stage_cleanup(void)
{
	if (getpid() != stage_pid)	/* a forked child's exit() */
		return;
	(void)unlink(stage_bin);
	(void)rmdir(stage_dir);
}

static const char *
stage_for_uids(const char *bin)
{
	char buf[65536];
	ssize_t n;
	int in, out;

	TL_SNPRINTF(stage_dir, sizeof(stage_dir), "/tmp/trashctl-bin-XXXXXX");
	if (mkdtemp(stage_dir) == NULL || chmod(stage_dir, 0755) < 0) {
		fprintf(stderr, "%s: %s: %s\n", e2e_prog, stage_dir,
		    strerror(errno));
		exit(1);
	}
	TL_SNPRINTF(stage_bin, sizeof(stage_bin), "%s/trashctl", stage_dir);
	stage_pid = getpid();
	atexit(stage_cleanup);
	if ((in = open(bin, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (out = open(stage_bin, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0755)) < 0) {
		fprintf(stderr, "%s: staging %s: %s\n", e2e_prog, bin,
		    strerror(errno));
		exit(1);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || fchmod(out, 0755) < 0 || close(out) < 0) {
		fprintf(stderr, "%s: staging %s: %s\n", e2e_prog, bin,
		    strerror(errno));
		exit(1);
	}
	close(in);
	return stage_bin;
}

/* A suite's main() first: its arguments, TRASHD TRASHCTL. */
void
e2e_init(int argc, char *argv[])
{
	const char *s = strrchr(argv[0], '/');

	e2e_prog = s != NULL ? s + 1 : argv[0];
	if (argc != 3) {
		fprintf(stderr, "usage: %s TRASHD TRASHCTL\n", e2e_prog);
		exit(2);
	}
	/* Absolute: a trashd run to its end (conf_refused()) runs in /. */
	if ((trashd_bin = realpath(argv[1], NULL)) == NULL)
		trashd_bin = argv[1];
	/* issue 13 (wt-systemd): what the test uids run, reachable. */
	trashctl_bin = stage_for_uids(argv[2]);
	if (getenv("TB_VALGRIND_EXE") != NULL)
		slow = 10;
	signal(SIGPIPE, SIG_IGN);
	/* One test or a glob of them, e.g. "test_flood_*" (bench/trashd.sh). */
	if (getenv("TB_TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("TB_TEST_FILTER"));
}
