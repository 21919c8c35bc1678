/* SPDX-License-Identifier: ISC */
/*
 * pam_trash: a PAM session module for trashbin.  At session open it can
 * set FS_UNRM_FL (+u) or FS_SECRM_FL (+s) on the user's home, so that the
 * files created there inherit it, and print one line of the user's trash
 * usage, fetched from trashd(8) with a short timeout.  See pam_trash(8).
 *
 * This code runs inside login, su, sshd and friends: it never exits,
 * never crashes on bad input, never waits longer than its timeout, and
 * trashd being down, slow or missing never fails the session.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "buildinfo.h"	/* TRASHD_SOCKET: trashd's, as the build installs it */
#include "parse.h"
#include "proto.h"

#define PAM_TRASH_EXPORT	__attribute__((visibility("default")))

/* Longest wait for trashd, whatever the option says: a login is waiting. */
#define PAM_TRASH_TIMEOUT_MAX	10000
#define PAM_TRASH_TIMEOUT_DEF	500
/* The notice is one line; this bounds how many filesystems it names. */
#define PAM_TRASH_NOTICE_MAX	512

struct pam_trash_opts {
	int		 flags;		/* FS_*_FL to set, 0: none */
	bool		 notice;
	bool		 debug;
	int		 timeout_ms;
	int		 onerr;		/* what a failure returns */
	const char	*socket;
	bool		 badarg;
};

/* Parse the module arguments; each bad one is logged with its text. */
static void
pam_trash_parse(pam_handle_t *pamh, int argc, const char **argv,
    struct pam_trash_opts *o)
{
	const char *a, *v, *why;
	uint64_t n;
	int i;

	o->flags = 0;
	o->notice = false;
	o->debug = false;
	o->timeout_ms = PAM_TRASH_TIMEOUT_DEF;
	o->onerr = PAM_IGNORE;
	o->socket = TRASHD_SOCKET;
	o->badarg = false;
	for (i = 0; i < argc; i++) {
		if ((a = argv[i]) == NULL)
			continue;
		if (strncmp(a, "flags=", 6) == 0) {
			v = a + 6;
			if (strcmp(v, "u") == 0)
				o->flags = FS_UNRM_FL;
			else if (strcmp(v, "s") == 0)
				o->flags = FS_SECRM_FL;
			else if (strcmp(v, "us") == 0 || strcmp(v, "su") == 0)
				o->flags = FS_UNRM_FL | FS_SECRM_FL;
			else if (strcmp(v, "none") == 0)
				o->flags = 0;
			else
				goto bad;
		} else if (strcmp(a, "notice") == 0) {
			o->notice = true;
		} else if (strcmp(a, "debug") == 0) {
			o->debug = true;
		} else if (strncmp(a, "timeout=", 8) == 0) {
			/* Milliseconds, a plain number (common/parse.c). */
			if (parse_uint(a + 8, PAM_TRASH_TIMEOUT_MAX, &n,
			    &why) < 0 || n < 1)
				goto bad;
			o->timeout_ms = (int)n;
		} else if (strncmp(a, "socket=", 7) == 0) {
			v = a + 7;
			/* sun_path is 108 bytes; proto_connect checks too. */
			if (v[0] != '/' || strlen(v) >= 108)
				goto bad;
			o->socket = v;
		} else if (strncmp(a, "onerr=", 6) == 0) {
			v = a + 6;
			if (strcmp(v, "ignore") == 0)
				o->onerr = PAM_IGNORE;
			else if (strcmp(v, "fail") == 0)
				o->onerr = PAM_SESSION_ERR;
			else if (strcmp(v, "succeed") == 0)
				o->onerr = PAM_SUCCESS;
			else
				goto bad;
		} else {
			goto bad;
		}
		continue;
bad:
		pam_syslog(pamh, LOG_ERR, "bad argument ignored: \"%s\"", a);
		o->badarg = true;
	}
}

/*
 * The directories of a home left without +u: what they hold is thrown
 * away by design (XDG caches) or already a trash (the desktop's, whose
 * files trashd's shipped exclude-dir rule purges), so files made there
 * should not inherit +u from the home.  Relative to the home, at most
 * PAM_TRASH_DEPTH components.
 */
static const char *const pam_trash_unflagged[] = {
	".cache",
	".local/share/Trash",
	/* Made with it, so they may have inherited +u before it lost it. */
	".local/share/Trash/files",
	".local/share/Trash/info",
};
#define PAM_TRASH_DEPTH	4

/*
 * Clear +u on @rel under the home held at @homefd, if it is there: each
 * component opened from the one before with O_NOFOLLOW, each a directory
 * of the user's.  A symlink anywhere on the way (~/.cache pointing at
 * some other directory), or a directory of someone else's, is left alone:
 * the user can make this module change nothing but their own
 * directories.  Nothing is created.  Only +u is cleared: +s says that
 * what is deleted there must be wiped, which a cache needs as much as
 * anything.  Returns 0 (done, or nothing to do) or -errno.
 */
static int
pam_trash_unflag(int homefd, uid_t uid, const char *rel)
{
	char buf[PATH_MAX], *comp, *save = NULL;
	struct stat st;
	int fd = -1, next, cur, r = 0, depth = 0;

	if (strlen(rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, rel);
	for (comp = strtok_r(buf, "/", &save); comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		if (++depth > PAM_TRASH_DEPTH) {
			r = -ELOOP;
			goto out;
		}
		next = openat(fd >= 0 ? fd : homefd, comp, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
		    O_NOCTTY);
		if (next < 0) {
			/* Missing, a symlink or not a directory: left. */
			r = errno == ENOENT || errno == ELOOP ||
			    errno == ENOTDIR ? 0 : -errno;
			goto out;
		}
		if (fd >= 0)
			close(fd);
		fd = next;
		if (fstat(fd, &st) < 0) {
			r = -errno;
			goto out;
		}
		if (!S_ISDIR(st.st_mode) || st.st_uid != uid)
			goto out;	/* not the user's: left */
	}
	if (fd < 0)
		goto out;
	if (ioctl(fd, FS_IOC_GETFLAGS, &cur) < 0) {
		r = -errno;
		goto out;
	}
	if (cur & FS_UNRM_FL) {
		cur &= ~FS_UNRM_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &cur) < 0)
			r = -errno;
	}
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * Set @flags on the home directory of @pw, and with +u clear it again on
 * the directories of pam_trash_unflagged[].  The home is opened without
 * following a symlink in its last component, must be a directory, and
 * must belong to the user: a home that is (or was swapped for) a symlink,
 * or a directory of someone else's, is refused, so the module never
 * changes another user's files.  Returns 0 or -errno; *@why explains.
 */
static int
pam_trash_home(pam_handle_t *pamh, const struct passwd *pw, int flags,
    const char **why)
{
	struct stat st;
	size_t i;
	int fd, cur, r = 0, r2;

	*why = NULL;
	if (pw->pw_dir == NULL || pw->pw_dir[0] != '/') {
		*why = "home is not an absolute path";
		return -EINVAL;
	}
	fd = open(pw->pw_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP || r == -ENOTDIR)
			*why = "home is a symlink or not a directory; refused";
		else
			*why = "cannot open home";
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		*why = "cannot stat home";
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		r = -ENOTDIR;
		*why = "home is not a directory; refused";
		goto out;
	}
	if (st.st_uid != pw->pw_uid) {
		r = -EPERM;
		*why = "home is not owned by the user; refused";
		goto out;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &cur) < 0) {
		r = -errno;
		*why = "cannot read the home's flags";
		goto out;
	}
	if ((cur & flags) != flags) {
		cur |= flags;
		if (ioctl(fd, FS_IOC_SETFLAGS, &cur) < 0) {
			r = -errno;
			*why = "cannot set the home's flags";
			goto out;
		}
	}
	/*
	 * Each session: one made since the last inherited +u.  Not a reason
	 * to fail the session, nor to skip the notice: logged.
	 */
	for (i = 0; (flags & FS_UNRM_FL) && i < sizeof(pam_trash_unflagged) /
	    sizeof(pam_trash_unflagged[0]); i++)
		if ((r2 = pam_trash_unflag(fd, pw->pw_uid,
		    pam_trash_unflagged[i])) < 0)
			pam_syslog(pamh, LOG_WARNING, "%s/%s: cannot clear "
			    "+u: %s", pw->pw_dir, pam_trash_unflagged[i],
			    strerror(-r2));
out:
	close(fd);
	return r;
}

static int64_t
pam_trash_now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before @deadline, at least 1 while any is left. */
static int
pam_trash_left(int64_t deadline)
{
	int64_t left = deadline - pam_trash_now_ms();

	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/* "1.5 MiB": @n bytes in binary units. */
static void
pam_trash_size(char *buf, size_t len, int64_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)(n < 0 ? 0 : n);
	size_t u = 0;

	while (d >= 1024 && u < sizeof(unit) / sizeof(unit[0]) - 1) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRId64 " B", n < 0 ? 0 : n);
	else
		snprintf(buf, len, "%.1f %s", d, unit[u]);
}

static void
pam_trash_duration(char *buf, size_t len, int64_t s)
{
	if (s % 86400 == 0)
		snprintf(buf, len, "%" PRId64 " day%s", s / 86400,
		    s == 86400 ? "" : "s");
	else if (s % 3600 == 0)
		snprintf(buf, len, "%" PRId64 " h", s / 3600);
	else
		snprintf(buf, len, "%" PRId64 " s", s);
}

/* Append one filesystem's usage to the notice @line. */
static void
pam_trash_usage(char *line, size_t len, const struct proto_msg *m)
{
	char used[32], quota[32], keep[32], part[256];
	size_t l = strlen(line);

	pam_trash_size(used, sizeof(used), m->num[A_BYTES]);
	if (PROTO_HAS(m, A_QUOTA) && m->num[A_QUOTA] > 0) {
		pam_trash_size(quota, sizeof(quota), m->num[A_QUOTA]);
	} else
		snprintf(quota, sizeof(quota), "no quota");
	if (PROTO_HAS(m, A_RETENTION) && m->num[A_RETENTION] > 0)
		pam_trash_duration(keep, sizeof(keep), m->num[A_RETENTION]);
	else
		snprintf(keep, sizeof(keep), "forever");
	snprintf(part, sizeof(part), "%s%s %" PRId64 " file%s, %s of %s, kept %s",
	    l > 0 ? "; " : "", m->str[A_FS], m->num[A_COUNT],
	    m->num[A_COUNT] == 1 ? "" : "s", used, quota, keep);
	if (l + strlen(part) < len)
		memcpy(line + l, part, strlen(part) + 1);
}

/*
 * Ask trashd for the user's usage and print it as one line.  Everything
 * (connect, send, every reply) shares one deadline of o->timeout_ms.
 * Returns 0 or -errno; *@why explains a failure for the log.
 */
static int
pam_trash_notice(pam_handle_t *pamh, const struct pam_trash_opts *o,
    uid_t uid, const char **why)
{
	struct proto_client *c = NULL;
	struct proto_msg *m = NULL;
	struct proto_buf *b = NULL;
	int64_t deadline = pam_trash_now_ms() + o->timeout_ms;
	char line[PAM_TRASH_NOTICE_MAX] = "";
	int r, n = 0;

	*why = NULL;
	c = calloc(1, sizeof(*c));
	m = calloc(1, sizeof(*m));
	b = calloc(1, sizeof(*b));
	if (c == NULL || m == NULL || b == NULL) {
		r = -ENOMEM;
		goto out;
	}
	c->fd = -1;
	if ((r = proto_connect(c, o->socket, o->timeout_ms)) < 0) {
		*why = "cannot connect to trashd";
		goto out;
	}
	proto_init(b, MSG_QUOTA);
	proto_num(b, A_UID, (int64_t)uid);
	if ((c->timeout_ms = pam_trash_left(deadline)) == 0) {
		r = -ETIMEDOUT;
		goto out;
	}
	if ((r = proto_send(c, b)) < 0) {
		*why = "cannot send to trashd";
		goto out;
	}
	for (;;) {
		if ((c->timeout_ms = pam_trash_left(deadline)) == 0) {
			r = -ETIMEDOUT;
			*why = "trashd did not answer in time";
			goto out;
		}
		if ((r = proto_recv(c, m, why)) < 0) {
			if (*why == NULL)
				*why = r == -ETIMEDOUT ?
				    "trashd did not answer in time" :
				    "cannot read trashd's reply";
			goto out;
		}
		if (m->type == MSG_USAGE) {
			if (m->num[A_UID] == (int64_t)uid) {
				pam_trash_usage(line, sizeof(line), m);
				n++;
			}
			continue;
		}
		if (m->type == MSG_OK)
			break;
		if (m->type == MSG_ERROR) {
			r = m->num[A_ERRNO] > 0 && m->num[A_ERRNO] < 4096 ?
			    -(int)m->num[A_ERRNO] : -EPROTO;
			*why = "trashd refused the request";
			goto out;
		}
		r = -EPROTO;
		*why = "unexpected reply from trashd";
		goto out;
	}
	if (n == 0)
		snprintf(line, sizeof(line), "empty");
	pam_info(pamh, "Trash: %s.", line);
	r = 0;
out:
	if (c != NULL)
		proto_close(c);
	free(c);
	free(m);
	free(b);
	return r;
}

PAM_TRASH_EXPORT int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	struct pam_trash_opts o;
	const struct passwd *pw;
	const char *user = NULL, *why;
	int64_t t0;
	int r, ret = PAM_SUCCESS;

	pam_trash_parse(pamh, argc, argv, &o);
	if (o.badarg)
		ret = o.onerr;
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL ||
	    user[0] == '\0') {
		pam_syslog(pamh, LOG_ERR, "cannot get the user name");
		return o.onerr;
	}
	if ((pw = pam_modutil_getpwnam(pamh, user)) == NULL) {
		pam_syslog(pamh, LOG_ERR, "no such user: %s", user);
		return o.onerr;
	}
	if (o.flags != 0) {
		r = pam_trash_home(pamh, pw, o.flags, &why);
		if (r < 0) {
			pam_syslog(pamh, LOG_ERR, "%s: %s: %s", pw->pw_dir,
			    why, strerror(-r));
			ret = o.onerr;
		} else if (o.debug)
			pam_syslog(pamh, LOG_DEBUG, "%s: flags 0x%x set",
			    pw->pw_dir, (unsigned)o.flags);
	}
	if (o.notice && !(flags & PAM_SILENT)) {
		/* Never a reason to fail the session: logged, then ignored. */
		t0 = pam_trash_now_ms();
		if ((r = pam_trash_notice(pamh, &o, pw->pw_uid, &why)) < 0)
			pam_syslog(pamh, o.debug ? LOG_INFO : LOG_DEBUG,
			    "no trash notice for %s after %" PRId64
			    " ms: %s: %s", user, pam_trash_now_ms() - t0,
			    why != NULL ? why : "error", strerror(-r));
	}
	if (o.flags == 0 && !o.notice && ret == PAM_SUCCESS)
		ret = PAM_IGNORE;
	return ret;
}

PAM_TRASH_EXPORT int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_IGNORE;
}
