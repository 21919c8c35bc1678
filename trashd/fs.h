/* SPDX-License-Identifier: ISC */
/*
 * trashd's filesystem layer: the managed filesystems and their trash
 * directories, held by fd (trash.c), and the secure wipe of one file
 * (wipe.c).  Plain file work on held fds: no index, no audit, no event
 * loop.  Below it: base.h only.
 */
#ifndef TRASHD_FS_H
#define TRASHD_FS_H

#include "base.h"

/* ---- trash.c ---- */
struct tuid {
	uint32_t	 uid;
	int		 fd;		/* held /.trash/<uid> */
	int		 wd;		/* inotify watch, -1: none */
};

/*
 * What a purge under pressure aims at, and what it did (policy.c):
 * allocated bytes (what the filesystem gets back) and entries (each an
 * inode).  A goal of 0 is none; a purge ends when it has reached every
 * goal it has.
 */
struct purge_amount {
	int64_t		 bytes;
	int64_t		 entries;
};

/* pressure.c: the kernel's space pressure file of a filesystem. */
#define TFS_PRESSURE_REST	16	/* events read at once, and kept */
struct tfs_pressure {
	struct trashd	*d;
	int		 fd;		/* -1: none (a kernel without it) */
	struct event	*ev;
	struct event	*rest_ev;	/* the next step of the rest */
	struct {
		struct trashbin_pressure_event ev;
		struct purge_amount left; /* its share still to purge */
	}		 rest[TFS_PRESSURE_REST];
	size_t		 nrest;
	uint64_t	 held;		/* an ack waiting for a wipe, 0: none */
	int64_t		 reserve;	/* root's reserved bytes, 0: unknown */
	int64_t		 since;		/* CLOCK_MONOTONIC: the first waiter */
	uint64_t	 events;	/* out of space or quota, since start */
	int64_t		 waited_ns;	/* the first writers' waits, summed */
	int64_t		 wait_max_ns;
	bool		 quota_warned;	/* quotactl_fd refused, said once */
};

struct tfs {
	int64_t		 id;		/* filesystems.id */
	char		*path;		/* mount point */
	struct ident	 root;
	int		 rootfd;
	int		 trashfd;	/* held /.trash */
	int		 wipefd;	/* held /.trash/.wipe; trash_wipe_dir() */
	int		 wd;		/* inotify watch on /.trash */
	unsigned	 watermark;	/* the config's; policy_fs_watermark() */
	uint32_t	 promises;	/* WIPE_LOW_* of the fs and its device */
	struct tuid	**uids;		/* pointers stay valid */
	size_t		 nuids;
	struct tfs_pressure press;
};

int	 trash_open(struct tfs *, const char *path, bool create);
void	 trash_close(struct tfs *);
int	 trash_wipe_dir(struct tfs *);
int	 trash_parse_uid(const char *, uint32_t *);
int	 trash_uid(struct tfs *, uint32_t uid, struct tuid **);
void	 trash_uid_forget(struct tfs *, uint32_t uid);
int	 trash_entry_open(struct tfs *, int dirfd, const char *name,
	    const struct ident *, int flags);
int	 trash_entry_unlink(struct tfs *, int dirfd, const char *name,
	    const struct ident *);
struct tfs *trash_fs(struct trashd *, int64_t fs_id);
int	 trash_rel_valid(const char *rel, bool empty_ok);
int	 trash_path_fs(struct trashd *, const char *abs, struct tfs **,
	    const char **rel);

/* ---- wipe.c: one file ---- */
/* What a wipe could not promise (recorded with it, never hidden). */
#define WIPE_LOW_SHARED		0x0001	/* reflinked: data lives on */
#define WIPE_LOW_INLINE		0x0002	/* data inside metadata */
#define WIPE_LOW_ENCODED	0x0004	/* compressed or encoded */
#define WIPE_LOW_ENCRYPTED	0x0008	/* fs encryption: ciphertext moves */
#define WIPE_LOW_UNKNOWN	0x0010	/* extent location unknown */
#define WIPE_LOW_JOURNAL	0x0020	/* data=journal: copies in journal */
#define WIPE_LOW_NONROT		0x0040	/* flash: remapped, not in place */
#define WIPE_LOW_COW		0x0080	/* copy-on-write filesystem */
#define WIPE_LOW_PREALLOC	0x0100	/* blocks past EOF not overwritten */
#define WIPE_LOW_NOFIEMAP	0x0200	/* extents could not be listed */
#define WIPE_LOW_UNLEASED	0x0400	/* no lease: other openers unchecked */

struct wipe_opts {
	unsigned	 passes;	/* random passes, >= 1 */
	bool		 zero;		/* final zero pass */
	bool		 verify;	/* read back the last pass */
	bool		 discard;	/* FITRIM the freed extents */
	uint64_t	 rate;		/* bytes per second, 0: unlimited */
};

struct wipe_report {
	int		 result;	/* 0 or -errno */
	uint32_t	 promises;	/* WIPE_LOW_* */
	unsigned	 passes;	/* passes written (zero pass included) */
	uint64_t	 bytes;		/* bytes overwritten in all passes */
	uint64_t	 ns;		/* the passes (and verify) took */
	uint64_t	 nlink;		/* > 1: unlinked only, data lives on */
	bool		 verified;
	bool		 discarded;
	bool		 extents_changed;
	bool		 leased;	/* no other opener, see wipe_lease() */
	uint64_t	 alloc;		/* bytes allocated (st_blocks) */
	uint64_t	 mapped;	/* bytes of its data ranges */
};

void	 wipe_opts_from_config(const struct config *, struct wipe_opts *);
void	 wipe_method_str(const struct wipe_opts *, char *, size_t);
void	 wipe_promises_str(uint32_t, char *, size_t);
uint32_t wipe_fs_promises(int fd);
int	 wipe_overwrite(int fd, const struct wipe_opts *,
	    struct wipe_report *);
int	 wipe_file(int dirfd, const char *name, const struct ident *,
	    uint32_t fs_promises, int rootfd, const struct wipe_opts *,
	    struct wipe_report *);
/*
 * Extents or data ranges of one file we keep track of (a 1 TiB file in
 * 128 MiB extents needs 8192; 16 MiB of ranges).  A file with more FIEMAP
 * extents is mapped with SEEK_DATA/SEEK_HOLE instead, without the before
 * and after comparison; one with more data ranges than that is not wiped.
 */
#define WIPE_EXTENTS_MAX	(1 << 20)
extern size_t wipe_fiemap_max;

#endif /* TRASHD_FS_H */
