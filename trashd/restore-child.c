/* SPDX-License-Identifier: ISC */
/*
 * A restore child, "trashd-restore" (restore.c forks one per restore):
 * the caller's uid, gid and groups, no capability but root's own
 * CAP_DAC_OVERRIDE for root's restore, and of fds only the filesystem's
 * root, the trash directory it restores from and its channel.  It moves
 * each entry out of the held /.trash/<uid> fd to its target, walked
 * component by component from the held filesystem root fd with
 * O_NOFOLLOW | O_DIRECTORY (a symlink on the way is refused, a missing
 * directory is made as the caller, a directory owned by another user than
 * root and the restoring one is refused: it may be a squatter's in a
 * sticky /tmp), with renameat2(RENAME_NOREPLACE) unless overwriting was
 * asked for, and reports each entry's outcome on its channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services.h"

/*
 * In the child, as uid @self: move entry @name of @tudirfd (if it is
 * still inode @want) to @target, relative to @rootfd.  Returns 0 or
 * -errno: -EEXIST a conflict, -ELOOP a symlink on the way, -ENOTDIR a
 * non-directory on the way, -EXDEV a mount point on the way, -ESTALE the
 * entry is not the indexed inode any more, -EPERM with *@owner set a
 * directory on the way that belongs to *@owner, neither root nor @self
 * (the first *@plen bytes of @target name it).
 */
int
restore_move(int rootfd, int tudirfd, const char *name,
    const struct ident *want, const char *target, bool overwrite,
    uid_t self, uid_t *owner, size_t *plen)
{
	char path[PATH_MAX], *comp, *slash;
	struct stat st;
	int dirfd = -1, fd, r;

	*owner = (uid_t)NO_OWNER;
	*plen = 0;

	if (trash_rel_valid(target, false) < 0)
		return -EINVAL;
	if (fstatat(tudirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_dev != want->dev || st.st_ino != want->ino)
		return -ESTALE;
	snprintf(path, sizeof(path), "%s", target);
	if ((dirfd = openat(rootfd, ".", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return -errno;
	for (comp = path; (slash = strchr(comp, '/')) != NULL;
	    comp = slash + 1) {
		*slash = '\0';
		fd = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			/*
			 * Made as the caller: their owner, their umask, which
			 * control.c never lets make it group or world
			 * writable.
			 */
			if (mkdirat(dirfd, comp, 0777) < 0 && errno != EEXIST) {
				r = -errno;
				goto out;
			}
			fd = openat(dirfd, comp, O_PATH | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0) {
			r = -errno;
			/* O_NOFOLLOW|O_DIRECTORY on a symlink: ENOTDIR. */
			if (fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) ==
			    0 && S_ISLNK(st.st_mode))
				r = -ELOOP;
			goto out;
		}
		close(dirfd);
		dirfd = fd;
		if (fstat(dirfd, &st) < 0) {
			r = -errno;
			goto out;
		}
		if (st.st_dev != want->dev) {
			r = -EXDEV;
			goto out;
		}
		/*
		 * Another user's directory, found or (racing our mkdirat)
		 * made there: what lands in it is theirs to take or swap.
		 */
		if (st.st_uid != 0 && st.st_uid != self) {
			*owner = st.st_uid;
			*plen = (size_t)(slash - path);
			r = -EPERM;
			goto out;
		}
	}
	if (renameat2(tudirfd, name, dirfd, comp,
	    overwrite ? 0 : RENAME_NOREPLACE) < 0) {
		r = -errno;
		goto out;
	}
	r = 0;
out:
	close(dirfd);
	return r;
}

/*
 * The child's capabilities once it has its ids: none for a user (the
 * kernel already cleared them at setresuid; this makes sure), and for
 * root's own restore only CAP_DAC_OVERRIDE, which root has over its own
 * files anyway.  Nothing else of the daemon's is the child's to use.
 */
static int
restore_child_caps(uid_t uid)
{
	const cap_value_t dac = CAP_DAC_OVERRIDE;
	cap_t caps;
	int r = 0;

	if ((caps = cap_init()) == NULL)
		return -errno;
	if (uid == 0 && (cap_set_flag(caps, CAP_PERMITTED, 1, &dac,
	    CAP_SET) < 0 || cap_set_flag(caps, CAP_EFFECTIVE, 1, &dac,
	    CAP_SET) < 0))
		r = -errno;
	else if (cap_set_proc(caps) < 0)
		r = -errno;
	cap_free(caps);
	return r;
}

/*
 * The child: take @cr's ids, then move each entry of @l that has a target
 * (@targets) out of @tudirfd, relative to @rootfd, and report each on the
 * channel @fd.  restore-timeout (@timeout s, 0: none) is its own alarm.
 */
void
restore_child(int fd, int rootfd, int tudirfd, const struct creds *cr,
    const struct entry_list *l, char *const *targets, bool overwrite,
    mode_t mask, int64_t timeout)
{
	struct restore_msg m;
	uid_t owner;
	size_t i, plen;
	int err = 0;

	/* restore-timeout, kept across setresuid(): see the top. */
	if (timeout > 0)
		alarm(timeout > UINT_MAX ? UINT_MAX : (unsigned)timeout);
	if (setgroups((size_t)cr->ngroups, cr->groups) < 0 ||
	    setresgid(cr->gid, cr->gid, cr->gid) < 0 ||
	    setresuid(cr->uid, cr->uid, cr->uid) < 0)
		err = errno ? -errno : -EPERM;
	/* No way back to root for a user's restore. */
	if (err == 0 && cr->uid != 0 && (getuid() != cr->uid ||
	    geteuid() != cr->uid || setresuid(0, 0, 0) == 0))
		err = -EPERM;
	if (err == 0 && restore_child_caps(cr->uid) < 0)
		err = -EPERM;
	umask(mask);
	for (i = 0; i < l->n; i++) {
		if (targets[i] == NULL)
			continue;
		memset(&m, 0, sizeof(m));
		m.idx = (uint32_t)i;
		m.owner = NO_OWNER;
		if (err != 0)
			m.err = err;
		else {
			m.err = restore_move(rootfd, tudirfd, l->v[i].name,
			    &l->v[i].ident, targets[i], overwrite,
			    cr->uid, &owner, &plen);
			m.owner = (uint32_t)owner;
			m.plen = (uint32_t)plen;
		}
		if (chan_send(fd, RESTORE_MSG_ENTRY, &m, sizeof(m), -1, 0) < 0)
			_exit(1);
	}
	_exit(0);
}
