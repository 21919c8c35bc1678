/* SPDX-License-Identifier: ISC */
/*
 * Keep only the capabilities trashd uses, drop every other one from the
 * bounding set, clear the inheritable and ambient sets, and set
 * PR_SET_NO_NEW_PRIVS so that nothing trashd runs can ever regain any.
 * Linux has no pledge: this is the sandbox.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base.h"

const int caps_kept[] = {
	/*
	 * Per-uid trash dirs are 0700 and owned by their users, and the
	 * files in them belong to anyone: reading, renaming into .wipe,
	 * overwriting and unlinking them passes no permission check
	 * without it.
	 */
	CAP_DAC_OVERRIDE,
	/*
	 * The kernel's metadata is in trusted.* xattrs, which only
	 * CAP_SYS_ADMIN may read (that is what keeps users from forging
	 * them); FITRIM of the freed extents needs it too, and so do the
	 * kernel's space pressure file and reading another user's quota
	 * (Q_GETQUOTA: is a writer at their inode limit?).
	 */
	CAP_SYS_ADMIN,
	/*
	 * Restores run in a child that takes the caller's uid, gid and
	 * groups (setgroups, setresgid, setresuid), so that it writes only
	 * where the caller could; the daemon itself never changes ids.
	 * The front process takes its unprivileged user with them.
	 */
	CAP_SETGID,
	CAP_SETUID,
	/*
	 * The front process (front.c), which reads the clients' requests,
	 * is forked again after a crash: it chroots into an empty
	 * directory before it takes an unprivileged user (CAP_SETUID,
	 * CAP_SETGID above) and drops every capability.
	 */
	CAP_SYS_CHROOT,
	/*
	 * The wipe worker overwrites a file only under a write lease
	 * (wipe.c, wipe_lease()): the kernel's word that no one else has
	 * it open.  A lease on a file one does not own needs CAP_LEASE.
	 * The daemon itself takes none; it keeps the cap for the worker.
	 */
	CAP_LEASE,
};
const size_t caps_nkept = sizeof(caps_kept) / sizeof(caps_kept[0]);

static bool
caps_is_kept(cap_value_t c)
{
	size_t i;

	for (i = 0; i < caps_nkept; i++)
		if (caps_kept[i] == c)
			return true;
	return false;
}

int
caps_drop(void)
{
	cap_value_t c, last = (cap_value_t)cap_max_bits() - 1;
	cap_t caps = NULL;
	int r = 0;

	/*
	 * The bounding set first, while CAP_SETPCAP is still ours.  A cap
	 * already out of it (systemd's CapabilityBoundingSet=) needs no
	 * drop, so a unit that bounds trashd to exactly the caps it keeps
	 * works without granting CAP_SETPCAP for this loop.
	 */
	for (c = 0; c <= last; c++) {
		if (caps_is_kept(c) || prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 0)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL) {
			r = -errno;
			goto out;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL) {
		r = -errno;
		goto out;
	}
	if ((caps = cap_init()) == NULL) {
		r = -errno;
		goto out;
	}
	if (cap_set_flag(caps, CAP_PERMITTED, (int)caps_nkept, caps_kept,
	    CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, (int)caps_nkept, caps_kept,
	    CAP_SET) < 0 ||
	    cap_set_proc(caps) < 0) {
		r = -errno;
		goto out;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = -errno;
out:
	if (caps != NULL)
		cap_free(caps);
	return r;
}

/*
 * A child's capabilities: exactly @keep (a subset of caps_kept) permitted
 * and effective, nothing inheritable.  What leaves the permitted set is
 * gone for good: no_new_privs (caps_drop()) closes the way back by exec.
 */
int
caps_limit(const int *keep, size_t n)
{
	cap_t caps;
	int r = 0;

	if ((caps = cap_init()) == NULL)
		return -errno;
	if (n > 0 && (cap_set_flag(caps, CAP_PERMITTED, (int)n, keep,
	    CAP_SET) < 0 || cap_set_flag(caps, CAP_EFFECTIVE, (int)n, keep,
	    CAP_SET) < 0))
		r = -errno;
	if (r == 0 && cap_set_proc(caps) < 0)
		r = -errno;
	cap_free(caps);
	return r;
}
