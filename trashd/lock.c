/* SPDX-License-Identifier: ISC */
/*
 * One trashd per index.  Two daemons on one database would both scan,
 * purge and wipe the same trashes and race on every row, whatever
 * sockets they listen on, so the second refuses at start, before it
 * opens anything else, naming the first.
 *
 * The lock is a POSIX record lock (fcntl F_SETLK) on a file of its own
 * beside the index, "<database>.lock", not on the database: SQLite takes
 * POSIX locks on the database file for its own locking, and a POSIX
 * lock belongs to the process and the file, so the first close() of any
 * fd of the database in this process (db_open() opens one to create the
 * file 0600) would drop ours; flock(2) would not mix with SQLite's locks
 * on Linux, but is emulated by POSIX locks on NFS, where it would then
 * collide with them.  A separate file has none of these couplings, and
 * F_GETLK tells who holds it, which flock(2) cannot.  The kernel drops
 * the lock when the holder exits, however it dies: a stale file blocks
 * nothing.  The forked children (restores, the wipe worker) do not
 * inherit it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

/*
 * Take the lock of index @db; the fd that holds it (kept open until
 * exit), or -errno with @err set: -EBUSY when another process holds it.
 */
/*
 * The lock "<@base>.lock" for what @base is (@what: "index", "socket").
 * The fd that holds it, or -errno with *@err saying why.
 */
static int
lock_take(const char *base, const char *what, char *err, size_t errlen)
{
	struct flock fl;
	struct stat st;
	char path[PATH_MAX];
	int fd, r, tries;

	if ((size_t)snprintf(path, sizeof(path), "%s.lock", base) >=
	    sizeof(path)) {
		snprintf(err, errlen, "%s.lock: %s", base,
		    strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: refusing it: not a regular file "
		    "owned by uid %u", path, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	/* Between a failed F_SETLK and F_GETLK the holder may exit. */
	for (tries = 0; tries < 3; tries++) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return fd;
		if (errno != EAGAIN && errno != EACCES) {
			r = -errno;
			snprintf(err, errlen, "%s: cannot lock: %s", path,
			    strerror(errno));
			close(fd);
			return r;
		}
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) {
			snprintf(err, errlen, "%s: in use by another trashd, "
			    "pid %ld (it holds %s); refusing to run a second "
			    "one on the same %s", base, (long)fl.l_pid, path,
			    what);
			close(fd);
			return -EBUSY;
		}
	}
	snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(EBUSY));
	close(fd);
	return -EBUSY;
}

int
lock_index(const char *db, char *err, size_t errlen)
{
	return lock_take(db, "index", err, errlen);
}

/*
 * One trashd per control socket too: the socket is bound early and
 * listens only once the daemon is open (front.c), so in between a
 * second trashd (another index, the same socket) would find it silent,
 * take it for stale and replace it.  Held from before the bind.
 */
int
lock_socket(const char *sock, char *err, size_t errlen)
{
	return lock_take(sock, "socket", err, errlen);
}
