/* SPDX-License-Identifier: ISC */
/*
 * pam_trash.so through a real PAM stack: libpam's pam_start_confdir()
 * reads a stack from a scratch config dir and loads the built module by
 * path.  The users are fake: this program defines getpwnam_r(), which
 * libpam's pam_modutil_getpwnam() resolves to, so their homes can be
 * scratch dirs; and it defines syslog(), which pam_syslog() ends in, so
 * the module's log lines can be checked.  Runs as root (chown, flags).
 *
 *   test_pam_trash /path/to/pam_trash.so
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <security/pam_appl.h>

#include "proto.h"

#define TUID	4242
#define OUID	4243

static const char *module;
static char scratch[] = "/tmp/pam-trash-XXXXXX";
static char confdir[512], home[512], victim[512], link_home[512],
	 sock_path[512];
static char logbuf[8192];	/* every syslog() line, concatenated */
static char infobuf[4096];	/* every PAM_TEXT_INFO, concatenated */

/* ---- the fake user database ---- */
static const struct {
	const char	*name;
	uid_t		 uid;
	const char	*home;
} users[] = {
	{ "tuser", TUID, home },	/* a normal home */
	{ "tlink", TUID, link_home },	/* home is a symlink to victim */
	{ "tother", OUID, home },	/* home owned by someone else */
};

int getpwnam_r(const char *, struct passwd *, char *, size_t,
    struct passwd **);
int
getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t len,
    struct passwd **res)
{
	size_t i, need;

	*res = NULL;
	for (i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		if (strcmp(name, users[i].name) != 0)
			continue;
		need = strlen(name) + strlen(users[i].home) + 8;
		if (need > len)
			return ERANGE;
		snprintf(buf, len, "%s%c%s%cx", name, 0, users[i].home, 0);
		pw->pw_name = buf;
		pw->pw_dir = buf + strlen(name) + 1;
		pw->pw_passwd = pw->pw_dir + strlen(pw->pw_dir) + 1;
		pw->pw_uid = users[i].uid;
		pw->pw_gid = users[i].uid;
		pw->pw_gecos = pw->pw_passwd;
		pw->pw_shell = pw->pw_passwd;
		*res = pw;
		return 0;
	}
	return 0;
}

/* ---- the log: pam_syslog() ends in syslog() (fortified: __syslog_chk) */
static void __attribute__((format(printf, 1, 0)))
log_append(const char *fmt, va_list ap)
{
	size_t l = strlen(logbuf);

	vsnprintf(logbuf + l, sizeof(logbuf) - l, fmt, ap);
	l = strlen(logbuf);
	if (l + 1 < sizeof(logbuf)) {
		logbuf[l] = '\n';
		logbuf[l + 1] = '\0';
	}
}

void syslog(int, const char *, ...) __attribute__((format(printf, 2, 3)));
void
syslog(int pri, const char *fmt, ...)
{
	va_list ap;

	(void)pri;
	va_start(ap, fmt);
	log_append(fmt, ap);
	va_end(ap);
}

void __syslog_chk(int, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));
void
__syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)pri;
	(void)flag;
	va_start(ap, fmt);
	log_append(fmt, ap);
	va_end(ap);
}

static int
conv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *arg)
{
	int i;

	(void)arg;
	*resp = NULL;
	for (i = 0; i < n; i++) {
		if (msg[i]->msg_style != PAM_TEXT_INFO &&
		    msg[i]->msg_style != PAM_ERROR_MSG)
			return PAM_CONV_ERR;
		strncat(infobuf, msg[i]->msg,
		    sizeof(infobuf) - strlen(infobuf) - 2);
		strcat(infobuf, "\n");
	}
	return PAM_SUCCESS;
}

/* A stack "svc" of pam_permit plus pam_trash.so ARGS; open a session. */
static int
session(const char *user, const char *args, double *secs)
{
	struct pam_conv pc = { conv, NULL };
	struct timespec a, b;
	pam_handle_t *pamh = NULL;
	char path[600];
	FILE *f;
	int r, r2;

	snprintf(path, sizeof(path), "%s/svc", confdir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "session required pam_permit.so\n"
	    "session [success=ok ignore=ignore default=bad] %s %s\n",
	    module, args);
	assert_int_equal(fclose(f), 0);
	logbuf[0] = infobuf[0] = '\0';
	assert_int_equal(pam_start_confdir("svc", user, &pc, confdir, &pamh),
	    PAM_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &a);
	r = pam_open_session(pamh, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (r == PAM_SUCCESS)
		assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	r2 = pam_end(pamh, r);
	assert_int_equal(r2, PAM_SUCCESS);
	if (secs != NULL)
		*secs = (double)(b.tv_sec - a.tv_sec) +
		    (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	return r;
}

static int
dir_flags(const char *path)
{
	int fd, fl = -1;

	assert_true((fd = open(path, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &fl), 0);
	close(fd);
	return fl;
}

static void
clear_flags(const char *path)
{
	int fd, fl;

	assert_true((fd = open(path, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &fl), 0);
	fl &= ~(FS_UNRM_FL | FS_SECRM_FL);
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &fl), 0);
	close(fd);
}

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(scratch) == NULL)
		return -1;
	snprintf(confdir, sizeof(confdir), "%s/pam.d", scratch);
	snprintf(home, sizeof(home), "%s/home", scratch);
	snprintf(victim, sizeof(victim), "%s/victim", scratch);
	snprintf(link_home, sizeof(link_home), "%s/link", scratch);
	snprintf(sock_path, sizeof(sock_path), "%s/trashd.sock", scratch);
	if (mkdir(confdir, 0755) < 0 || mkdir(home, 0700) < 0 ||
	    chown(home, TUID, TUID) < 0 || mkdir(victim, 0755) < 0 ||
	    symlink(victim, link_home) < 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_flags_u(void **state)
{
	(void)state;
	clear_flags(home);
	assert_int_equal(session("tuser", "flags=u socket=/nonexistent",
	    NULL), PAM_SUCCESS);
	assert_true(dir_flags(home) & FS_UNRM_FL);
	assert_false(dir_flags(home) & FS_SECRM_FL);
}

static void
test_flags_s(void **state)
{
	(void)state;
	clear_flags(home);
	assert_int_equal(session("tuser", "flags=s", NULL), PAM_SUCCESS);
	assert_true(dir_flags(home) & FS_SECRM_FL);
	assert_false(dir_flags(home) & FS_UNRM_FL);
}

static void
test_flags_none(void **state)
{
	(void)state;
	clear_flags(home);
	assert_int_equal(session("tuser", "flags=none", NULL), PAM_SUCCESS);
	assert_int_equal(dir_flags(home) & (FS_UNRM_FL | FS_SECRM_FL), 0);
}

/* A symlinked home is never followed: the target's flags stay clear. */
static void
test_symlink_refused(void **state)
{
	(void)state;
	clear_flags(victim);
	assert_int_equal(chown(victim, TUID, TUID), 0);
	/* Default onerr: the session still opens. */
	assert_int_equal(session("tlink", "flags=u", NULL), PAM_SUCCESS);
	assert_int_equal(dir_flags(victim) & FS_UNRM_FL, 0);
	assert_non_null(strstr(logbuf, "symlink"));
	/* onerr=fail: the refusal fails the session. */
	assert_int_equal(session("tlink", "flags=u onerr=fail", NULL),
	    PAM_SESSION_ERR);
	assert_int_equal(dir_flags(victim) & FS_UNRM_FL, 0);
	assert_int_equal(chown(victim, 0, 0), 0);
}

static void
test_foreign_home_refused(void **state)
{
	(void)state;
	clear_flags(home);
	assert_int_equal(session("tother", "flags=u onerr=fail", NULL),
	    PAM_SESSION_ERR);
	assert_int_equal(dir_flags(home) & FS_UNRM_FL, 0);
	assert_non_null(strstr(logbuf, "not owned by the user"));
}

/* trashd missing: the session opens at once, without a notice. */
static void
test_trashd_absent(void **state)
{
	double t;

	(void)state;
	assert_int_equal(session("tuser",
	    "notice socket=/nonexistent/trashd.sock onerr=fail", &t),
	    PAM_SUCCESS);
	assert_true(t < 0.5);
	assert_null(strstr(infobuf, "Trash"));
}

/* trashd hung (accepts, never answers): the timeout bounds the wait. */
static void
test_trashd_hung(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char args[700];
	double t;
	int s;

	(void)state;
	unlink(sock_path);
	strcpy(sun.sun_path, sock_path);
	assert_true((s = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(s, 4), 0);
	snprintf(args, sizeof(args), "notice timeout=300 socket=%s onerr=fail",
	    sock_path);
	assert_int_equal(session("tuser", args, &t), PAM_SUCCESS);
	close(s);
	unlink(sock_path);
	assert_true(t >= 0.25);
	assert_true(t < 1.5);
	assert_null(strstr(infobuf, "Trash"));
}

/* A fake trashd: answer one quota request for TUID, then exit. */
static void
fake_trashd(int s)
{
	static struct proto_client c;
	static struct proto_msg m;
	static struct proto_buf b;
	const char *why;
	int fd;

	if ((fd = accept(s, NULL, NULL)) < 0)
		_exit(1);
	c.fd = fd;
	c.timeout_ms = 5000;
	if (proto_recv(&c, &m, &why) < 0 || m.type != MSG_QUOTA ||
	    !PROTO_HAS(&m, A_UID) || m.num[A_UID] != TUID)
		_exit(2);
	proto_init(&b, MSG_USAGE);
	proto_str(&b, A_FS, "/home");
	proto_num(&b, A_UID, TUID);
	proto_num(&b, A_COUNT, 3);
	proto_num(&b, A_BYTES, 3 * 1024 * 1024 / 2);
	proto_num(&b, A_QUOTA, 10 * 1024 * 1024);
	proto_num(&b, A_RETENTION, 30 * 86400);
	if (proto_send(&c, &b) < 0)
		_exit(3);
	proto_init(&b, MSG_OK);
	if (proto_send(&c, &b) < 0)
		_exit(4);
	_exit(0);
}

static void
test_notice(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char args[700];
	pid_t pid;
	int s, st;

	(void)state;
	unlink(sock_path);
	strcpy(sun.sun_path, sock_path);
	assert_true((s = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(s, 4), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0)
		fake_trashd(s);
	close(s);
	snprintf(args, sizeof(args), "notice timeout=3000 socket=%s",
	    sock_path);
	assert_int_equal(session("tuser", args, NULL), PAM_SUCCESS);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	unlink(sock_path);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(infobuf,
	    "Trash: /home 3 files, 1.5 MiB of 10.0 MiB, kept 30 days."));
}

/* Bad arguments: logged with their text; the rest still applies. */
static void
test_bad_args(void **state)
{
	(void)state;
	clear_flags(home);
	assert_int_equal(session("tuser", "flags=x bogus=1 timeout=-3 flags=u",
	    NULL), PAM_SUCCESS);
	assert_non_null(strstr(logbuf, "bad argument ignored: \"flags=x\""));
	assert_non_null(strstr(logbuf, "bad argument ignored: \"bogus=1\""));
	assert_non_null(strstr(logbuf,
	    "bad argument ignored: \"timeout=-3\""));
	assert_true(dir_flags(home) & FS_UNRM_FL);
	/* With onerr=fail a bad argument fails the session. */
	assert_int_equal(session("tuser", "onerr=fail nonsense", NULL),
	    PAM_SESSION_ERR);
	assert_non_null(strstr(logbuf, "\"nonsense\""));
}

/* An unknown user: logged, never a crash. */
static void
test_unknown_user(void **state)
{
	(void)state;
	assert_int_equal(session("nosuchuser-pam-trash", "flags=u", NULL),
	    PAM_SUCCESS);
	assert_non_null(strstr(logbuf, "no such user"));
}

/* ---- issue 13, everyday churn (wt-churn): directories left without +u */

static void
set_flags(const char *path, int flags)
{
	int fd, fl;

	assert_true((fd = open(path, O_RDONLY | O_DIRECTORY)) >= 0);
	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &fl), 0);
	fl = (fl & ~(FS_UNRM_FL | FS_SECRM_FL)) | flags;
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &fl), 0);
	close(fd);
}

/* A directory of @uid's with @flags, as one that inherited them. */
static void
mkdir_flags(const char *path, uid_t uid, int flags)
{
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chown(path, uid, uid), 0);
	set_flags(path, flags);
}

static void
rm_rf(const char *path)
{
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/*
 * ~/.cache and ~/.local/share/Trash (with its files and info) made
 * since the home got +u inherited it: the session clears +u there, and
 * only there; +s stays; one that is missing is not created.
 */
static void
test_unflag_dirs(void **state)
{
	enum { CACHE, LOCAL, SHARE, TRASH, FILES, INFO, CONFIG, SUB, N };
	static const char *const rel[N] = { ".cache", ".local",
	    ".local/share", ".local/share/Trash", ".local/share/Trash/files",
	    ".local/share/Trash/info", ".config", ".cache/sub" };
	char p[N][600];
	int i;

	(void)state;
	clear_flags(home);
	for (i = 0; i < N; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", home, rel[i]);
	rm_rf(p[CACHE]);
	rm_rf(p[LOCAL]);
	rm_rf(p[CONFIG]);
	for (i = 0; i < N; i++)
		mkdir_flags(p[i], TUID, FS_UNRM_FL);
	assert_int_equal(session("tuser", "flags=u onerr=fail", NULL),
	    PAM_SUCCESS);
	assert_true(dir_flags(home) & FS_UNRM_FL);
	assert_int_equal(dir_flags(p[CACHE]) & FS_UNRM_FL, 0);
	assert_int_equal(dir_flags(p[TRASH]) & FS_UNRM_FL, 0);
	assert_int_equal(dir_flags(p[FILES]) & FS_UNRM_FL, 0);
	assert_int_equal(dir_flags(p[INFO]) & FS_UNRM_FL, 0);
	/* Only those: their parents, siblings and children keep it. */
	assert_true(dir_flags(p[LOCAL]) & FS_UNRM_FL);
	assert_true(dir_flags(p[SHARE]) & FS_UNRM_FL);
	assert_true(dir_flags(p[CONFIG]) & FS_UNRM_FL);
	assert_true(dir_flags(p[SUB]) & FS_UNRM_FL);
	/* With flags=us, +s stays: what is deleted there is still wiped. */
	set_flags(p[CACHE], FS_UNRM_FL | FS_SECRM_FL);
	assert_int_equal(session("tuser", "flags=us onerr=fail", NULL),
	    PAM_SUCCESS);
	assert_int_equal(dir_flags(p[CACHE]) & (FS_UNRM_FL | FS_SECRM_FL),
	    FS_SECRM_FL);
	/* Missing: nothing is made. */
	rm_rf(p[CACHE]);
	rm_rf(p[LOCAL]);
	assert_int_equal(session("tuser", "flags=u onerr=fail", NULL),
	    PAM_SUCCESS);
	assert_false(exists(p[CACHE]));
	assert_false(exists(p[LOCAL]));
	rm_rf(p[CONFIG]);
}

/*
 * The user points ~/.cache, or ~/.local/share on the way to Trash, at
 * another directory (even one of their own): nothing there is touched,
 * while the real ~/.local/share/Trash of the first session is cleared.
 * A ~/.cache of someone else's is left alone too.
 */
static void
test_unflag_symlink(void **state)
{
	char cache[600], local[600], share[600], trash[600], v1[600],
	    v2[600], v2trash[600];

	(void)state;
	clear_flags(home);
	snprintf(cache, sizeof(cache), "%s/.cache", home);
	snprintf(local, sizeof(local), "%s/.local", home);
	snprintf(share, sizeof(share), "%s/.local/share", home);
	snprintf(trash, sizeof(trash), "%s/.local/share/Trash", home);
	snprintf(v1, sizeof(v1), "%s/v1", scratch);
	snprintf(v2, sizeof(v2), "%s/v2", scratch);
	snprintf(v2trash, sizeof(v2trash), "%s/v2/Trash", scratch);
	rm_rf(cache);
	rm_rf(local);
	rm_rf(v1);
	rm_rf(v2);
	mkdir_flags(v1, TUID, FS_UNRM_FL);
	mkdir_flags(v2, TUID, FS_UNRM_FL);
	mkdir_flags(v2trash, TUID, FS_UNRM_FL);
	assert_int_equal(symlink(v1, cache), 0);
	mkdir_flags(local, TUID, FS_UNRM_FL);
	mkdir_flags(share, TUID, FS_UNRM_FL);
	mkdir_flags(trash, TUID, FS_UNRM_FL);
	assert_int_equal(session("tuser", "flags=u onerr=fail", NULL),
	    PAM_SUCCESS);
	assert_true(dir_flags(v1) & FS_UNRM_FL);
	assert_int_equal(dir_flags(trash) & FS_UNRM_FL, 0);
	/* Now the middle of the way is the link. */
	rm_rf(share);
	assert_int_equal(symlink(v2, share), 0);
	assert_int_equal(session("tuser", "flags=u onerr=fail", NULL),
	    PAM_SUCCESS);
	assert_true(dir_flags(v1) & FS_UNRM_FL);
	assert_true(dir_flags(v2trash) & FS_UNRM_FL);
	/* Someone else's directory in the home keeps its flags. */
	assert_int_equal(unlink(cache), 0);
	mkdir_flags(cache, OUID, FS_UNRM_FL);
	assert_int_equal(session("tuser", "flags=u onerr=fail", NULL),
	    PAM_SUCCESS);
	assert_true(dir_flags(cache) & FS_UNRM_FL);
	rm_rf(cache);
	rm_rf(local);
	rm_rf(v1);
	rm_rf(v2);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_u),
		cmocka_unit_test(test_flags_s),
		cmocka_unit_test(test_flags_none),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_foreign_home_refused),
		cmocka_unit_test(test_trashd_absent),
		cmocka_unit_test(test_trashd_hung),
		cmocka_unit_test(test_notice),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_unknown_user),
		/* issue 13, everyday churn (wt-churn) */
		cmocka_unit_test(test_unflag_dirs),
		cmocka_unit_test(test_unflag_symlink),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s pam_trash.so\n", argv[0]);
		return 2;
	}
	module = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
