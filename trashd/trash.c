/* SPDX-License-Identifier: ISC */
/*
 * A managed filesystem's trash: the held fds of its root, /.trash,
 * /.trash/.wipe and each /.trash/<uid>.
 *
 * Per-uid dirs are writable by their users, so no name in them is trusted:
 * every action on an entry goes through the held dir fd, never follows a
 * symlink, and re-checks the inode identity first.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"

static int
trash_check_dir(int fd, const struct ident *root, mode_t forbidden)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_dev != root->dev)
		return -EXDEV;
	if (st.st_uid != 0)
		return -EPERM;
	if (st.st_mode & forbidden)
		return -EACCES;
	return 0;
}

/* Open (or make) @name in @dirfd as a root-owned directory of @mode. */
static int
trash_open_dir(int dirfd, const char *name, mode_t mode, bool create,
    const struct ident *root, mode_t forbidden)
{
	int fd, r;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		/* mkdir honours the umask: set the mode we promised. */
		if (fd >= 0 && fchmod(fd, mode) < 0) {
			r = -errno;
			close(fd);
			return r;
		}
	}
	if (fd < 0)
		/* O_NOFOLLOW on a symlink: ELOOP; O_DIRECTORY: ENOTDIR. */
		return -errno;
	if ((r = trash_check_dir(fd, root, forbidden)) < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int
trash_open(struct tfs *fs, const char *path, bool create)
{
	struct stat st;
	int r;

	memset(fs, 0, sizeof(*fs));
	fs->rootfd = fs->trashfd = fs->wipefd = -1;
	fs->wd = fs->press.fd = -1;
	fs->path = xstrdup(path);
	fs->rootfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->rootfd < 0 || fstat(fs->rootfd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	fs->root.dev = st.st_dev;
	fs->root.ino = st.st_ino;
	/* The kernel's rule: a root-owned directory without g/o write. */
	r = trash_open_dir(fs->rootfd, TRASHBIN_DIR, 0755, create, &fs->root,
	    022);
	if (r < 0)
		goto fail;
	fs->trashfd = r;
	/*
	 * A disk full to its last block cannot take .wipe: serve it still,
	 * as its purges are what makes room, and make .wipe when it is first
	 * needed.
	 */
	r = trash_wipe_dir(fs);
	if (r == -ENOSPC || r == -EDQUOT)
		log_warnx("%s/%s/%s: %s: made when a wipe first needs it",
		    fs->path, TRASHBIN_DIR, TRASH_WIPE_DIR, strerror(-r));
	else if (r < 0)
		goto fail;
	fs->promises = wipe_fs_promises(fs->rootfd);
	return 0;
fail:
	trash_close(fs);
	return r;
}

/* The wipe queue, held: no user may see or touch what waits there. */
int
trash_wipe_dir(struct tfs *fs)
{
	int r;

	if (fs->wipefd >= 0)
		return fs->wipefd;
	r = trash_open_dir(fs->trashfd, TRASH_WIPE_DIR, 0700, true, &fs->root,
	    077);
	if (r >= 0)
		fs->wipefd = r;
	return r;
}

void
trash_close(struct tfs *fs)
{
	size_t i;

	for (i = 0; i < fs->nuids; i++) {
		close(fs->uids[i]->fd);
		free(fs->uids[i]);
	}
	free(fs->uids);
	if (fs->wipefd >= 0)
		close(fs->wipefd);
	if (fs->trashfd >= 0)
		close(fs->trashfd);
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	free(fs->path);
	memset(fs, 0, sizeof(*fs));
	fs->rootfd = fs->trashfd = fs->wipefd = fs->wd = fs->press.fd = -1;
}

/* The kernel's names: a decimal uid, no sign, no leading zero. */
int
trash_parse_uid(const char *s, uint32_t *uid)
{
	uint64_t v = 0;
	const char *p;

	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -EINVAL;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || p - s >= 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > TRASHBIN_UID_MAX)
		return -ERANGE;
	*uid = (uint32_t)v;
	return 0;
}

int
trash_uid(struct tfs *fs, uint32_t uid, struct tuid **out)
{
	struct tuid *tu;
	struct stat st;
	char name[16];
	size_t i;
	int fd, r;

	for (i = 0; i < fs->nuids; i++) {
		if (fs->uids[i]->uid == uid) {
			*out = fs->uids[i];
			return 0;
		}
	}
	snprintf(name, sizeof(name), "%u", uid);
	fd = openat(fs->trashfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (st.st_dev != fs->root.dev) {
		close(fd);
		return -EXDEV;
	}
	tu = xcalloc(1, sizeof(*tu));
	tu->uid = uid;
	tu->fd = fd;
	tu->wd = -1;
	fs->uids = xreallocarray(fs->uids, fs->nuids + 1, sizeof(*fs->uids));
	fs->uids[fs->nuids++] = tu;
	*out = tu;
	return 0;
}

void
trash_uid_forget(struct tfs *fs, uint32_t uid)
{
	size_t i;

	for (i = 0; i < fs->nuids; i++) {
		if (fs->uids[i]->uid != uid)
			continue;
		close(fs->uids[i]->fd);
		free(fs->uids[i]);
		fs->uids[i] = fs->uids[--fs->nuids];
		return;
	}
}

/*
 * Open entry @name of @dirfd, a regular file on this filesystem, never
 * through a symlink; with @want, only if it is that inode.  Returns the fd
 * or -errno: -ESTALE when the name now holds another inode.
 */
int
trash_entry_open(struct tfs *fs, int dirfd, const char *name,
    const struct ident *want, int flags)
{
	struct stat lst, st;
	int fd, r;

	if (fstatat(dirfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISREG(lst.st_mode))
		return -EINVAL;
	if (lst.st_dev != fs->root.dev)
		return -EXDEV;
	if (want != NULL && (lst.st_dev != want->dev ||
	    lst.st_ino != want->ino))
		return -ESTALE;
	/* O_NONBLOCK: should a FIFO replace the file meanwhile, no hang. */
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != lst.st_dev ||
	    st.st_ino != lst.st_ino) {
		r = -ESTALE;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return r;
}

/*
 * Unlink entry @name of @dirfd if it is still the inode @want.  A user
 * racing this in their own dir can at most make it drop another of their
 * own names there: unlink never follows, and dropping a hard link leaves
 * the other links' data alone.
 */
int
trash_entry_unlink(struct tfs *fs, int dirfd, const char *name,
    const struct ident *want)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (st.st_dev != fs->root.dev || st.st_dev != want->dev ||
	    st.st_ino != want->ino)
		return -ESTALE;
	if (unlinkat(dirfd, name, 0) < 0)
		return -errno;
	return 0;
}

/* The managed filesystem of index id @fs_id, NULL: none. */
struct tfs *
trash_fs(struct trashd *d, int64_t fs_id)
{
	size_t i;

	for (i = 0; i < d->nfs; i++)
		if (d->fs[i].id == fs_id)
			return &d->fs[i];
	return NULL;
}

/*
 * A path relative to a filesystem root that a restore may use: no leading
 * slash, no empty, "." or ".." component, bounded lengths.  The empty path
 * (the root itself) only with @empty_ok.
 */
int
trash_rel_valid(const char *rel, bool empty_ok)
{
	const char *p = rel, *slash;
	size_t len;

	if (*rel == '\0')
		return empty_ok ? 0 : -EINVAL;
	if (strlen(rel) >= PATH_MAX)
		return -ENAMETOOLONG;
	for (;;) {
		slash = strchr(p, '/');
		len = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (len == 0 || len > NAME_MAX)
			return -EINVAL;
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (slash == NULL)
			return 0;
		p = slash + 1;
	}
}

/*
 * The managed filesystem that holds absolute path @abs: the longest
 * configured mount point that is a prefix of it, at a component boundary.
 * *@rel is the rest, relative to that filesystem's root ("" for the root).
 */
int
trash_path_fs(struct trashd *d, const char *abs, struct tfs **fsp,
    const char **rel)
{
	struct tfs *best = NULL;
	size_t i, len, blen = 0;
	const char *p;

	if (abs[0] != '/')
		return -EINVAL;
	for (i = 0; i < d->nfs; i++) {
		p = d->fs[i].path;
		len = strlen(p);
		while (len > 1 && p[len - 1] == '/')
			len--;
		if (len == 1 && p[0] == '/')
			len = 0;	/* "/" holds everything */
		else if (strncmp(abs, p, len) != 0 ||
		    (abs[len] != '/' && abs[len] != '\0'))
			continue;
		if (best == NULL || len > blen) {
			best = &d->fs[i];
			blen = len;
		}
	}
	if (best == NULL)
		return -ENOENT;
	for (p = abs + blen; *p == '/'; p++)
		;
	*fsp = best;
	*rel = p;
	return 0;
}
