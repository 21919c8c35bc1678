/* SPDX-License-Identifier: ISC */
/*
 * Space pressure: the kernel's pressure file of each filesystem
 * (TRASHBIN_IOC_PRESSURE, <linux/trashbin.h>).  A writer that found no
 * space, or went over its quota, while the trash held files waits,
 * bounded by the kernel, for the events read here: the policy purges for
 * them at once (policy_pressure()), and the acknowledgment lets the writer
 * retry.  An acknowledgment that freed nothing now, only queued wipes of
 * +s entries, is held until a wipe of that filesystem ends.
 *
 * The low mark is the watermark: the kernel says when free space falls
 * below it, so a filesystem filling up from ordinary writes is purged
 * before anyone runs out, and nothing polls.  Without the kernel's support
 * (ENOTTY: a kernel without the series' space pressure) the policy run
 * checks the watermark as before.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "services.h"

/* An event's share: 1% of the filesystem, 8 MiB at least, or the gap. */
#define PRESSURE_MIN_BYTES	(8LL << 20)
/* The same out of inodes: 1% of them, 64 at least. */
#define PRESSURE_MIN_ENTRIES	64
/*
 * What is purged before the writers are answered, and what each later
 * step of the rest of the share purges: the writers wait for this much
 * only, and new events are read between the steps (in 1 KiB files, 8 MiB
 * is thousands of unlinks).
 */
#define PRESSURE_STEP_BYTES	(256LL << 10)
#define PRESSURE_STEP_ENTRIES	16

static int64_t
pressure_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The low mark: the watermark's share of the filesystem, 0: none. */
static uint64_t
pressure_low(struct trashd *d, struct tfs *fs)
{
	struct statvfs sv;
	unsigned wm = policy_fs_watermark(d, fs);

	if (wm == 0 || fstatvfs(fs->rootfd, &sv) < 0)
		return 0;
	return (uint64_t)((long double)sv.f_blocks * sv.f_frsize * wm / 100);
}

/*
 * The blocks of what was purged are free for others once the journal
 * commits: fsync the per-uid directories the unlinks changed (those not
 * changed return at once), so the writers' retry finds them.
 */
static void
pressure_commit(struct tfs *fs)
{
	size_t i;

	for (i = 0; i < fs->nuids; i++)
		(void)fsync(fs->uids[i]->fd);
}

/*
 * Answer the writers up to @seq: @freed bytes.  Entries of no blocks
 * (empty files) free only their inodes: 1 byte says "something", so
 * that the writers retry.
 */
static void
pressure_ack(struct tfs *fs, uint64_t seq, struct purge_amount freed)
{
	struct trashbin_pressure_ack a = { .seq = seq,
	    .freed_bytes = freed.bytes > 0 ? (uint64_t)freed.bytes :
	    freed.entries > 0 ? 1 : 0 };
	int64_t waited;

	if (a.freed_bytes > 0)
		pressure_commit(fs);
	if (write(fs->press.fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
		log_warnx("pressure: %s: acknowledging: %s", fs->path,
		    strerror(errno));
	if (fs->press.since > 0) {
		waited = pressure_mono_ns() - fs->press.since;
		fs->press.waited_ns += waited;
		if (waited > fs->press.wait_max_ns)
			fs->press.wait_max_ns = waited;
		fs->press.since = 0;
		log_info("pressure: %s: answered after %" PRId64 " us, %"
		    PRId64 " bytes and %" PRId64 " entries freed", fs->path,
		    waited / 1000, freed.bytes, freed.entries);
	}
	fs->press.held = 0;
}

/*
 * What the first step of an ENOSPC must free besides one step a writer:
 * below the blocks reserved for root, unprivileged writers get nothing
 * however much is free, so the deficit first.  The reserve is what
 * statvfs showed between free and available while there was any.
 */
static int64_t
pressure_deficit(struct tfs *fs)
{
	struct statvfs sv;
	int64_t bfree, bavail;

	if (fstatvfs(fs->rootfd, &sv) < 0)
		return 0;
	bfree = (int64_t)(sv.f_bfree * sv.f_frsize);
	bavail = (int64_t)(sv.f_bavail * sv.f_frsize);
	if (bavail > 0) {
		fs->press.reserve = bfree - bavail;
		return 0;
	}
	/* Not seen yet: ext4's defaults, 5% for root and 2% its own. */
	if (fs->press.reserve == 0)
		fs->press.reserve = (int64_t)(sv.f_blocks * sv.f_frsize * 7 /
		    100);
	return fs->press.reserve > bfree ? fs->press.reserve - bfree : 0;
}

/*
 * Is @fs out of inodes for @waiters writers?  Then an ENOSPC is (also)
 * the inodes', and a purge counts entries: in bytes, a trash of small or
 * empty files would be emptied for one create.  *@blocks_spare: more
 * than PRESSURE_MIN_BYTES are free besides, so the purge need not count
 * bytes at all.
 */
static bool
pressure_inodes_short(struct tfs *fs, uint32_t waiters, bool *blocks_spare)
{
	struct statvfs sv;

	*blocks_spare = false;
	if (fstatvfs(fs->rootfd, &sv) < 0 || sv.f_files == 0 ||
	    sv.f_favail >= (fsfilcnt_t)PRESSURE_STEP_ENTRIES * waiters)
		return false;
	*blocks_spare = (int64_t)(sv.f_bavail * sv.f_frsize) >=
	    PRESSURE_MIN_BYTES;
	return true;
}

/*
 * The quota limit that binds at @cur, 0: none.  A soft limit refuses only
 * once its grace time (@expires, seconds since the Epoch; 0: not started)
 * has passed, and then until usage is back below it; else the hard one.
 */
static uint64_t
pressure_limit(uint64_t hard, uint64_t soft, uint64_t cur, uint64_t expires)
{
	if (soft != 0 && cur >= soft && expires != 0 &&
	    (uint64_t)time(NULL) >= expires && (hard == 0 || soft < hard))
		return soft;
	return hard;
}

/*
 * Is @uid at its inode quota on @fs for @waiters creates?  Then an EDQUOT
 * is (also) the inodes', and a purge of its trash counts entries: in
 * bytes, a trash of empty files would be emptied for one create, and the
 * writers told that nothing was freed.  *@over: how many inodes the user
 * is over the limit by for them (an admin may have lowered it), which
 * the first step purges besides.  *@blocks_spare: it is not near its
 * block quota besides, so the purge need not count bytes at all.  Read
 * with quotactl_fd(2) (Linux 5.14; the unit allows it, CAP_SYS_ADMIN
 * reads any uid's): without it, or without limits, bytes as before.
 */
static bool
pressure_quota_inodes(struct tfs *fs, uint32_t uid, uint32_t waiters,
    int64_t *over, bool *blocks_spare)
{
	struct if_dqblk dq;
	uint64_t ilimit, blimit;

	*over = 0;
	*blocks_spare = false;
	memset(&dq, 0, sizeof(dq));
	if (syscall(SYS_quotactl_fd, fs->rootfd,
	    QCMD(Q_GETQUOTA, USRQUOTA), (unsigned int)uid, &dq) < 0) {
		/* No quota here (ESRCH) is common; a refusal is not. */
		if (errno != ESRCH && errno != ENOENT && !fs->press.quota_warned) {
			fs->press.quota_warned = true;
			log_warnx("pressure: %s: reading a quota: %s; an inode "
			    "quota is purged in bytes", fs->path,
			    strerror(errno));
		}
		return false;
	}
	if ((dq.dqb_valid & (QIF_ILIMITS | QIF_INODES)) !=
	    (QIF_ILIMITS | QIF_INODES))
		return false;
	ilimit = pressure_limit(dq.dqb_ihardlimit, dq.dqb_isoftlimit,
	    dq.dqb_curinodes, dq.dqb_itime);
	if (ilimit == 0 || dq.dqb_curinodes + (uint64_t)PRESSURE_STEP_ENTRIES *
	    waiters <= ilimit)
		return false;
	if (dq.dqb_curinodes + waiters > ilimit)
		*over = (int64_t)(dq.dqb_curinodes + waiters - ilimit);
	/* Block limits are in QIF_DQBLKSIZE units, 1 KiB. */
	blimit = pressure_limit(dq.dqb_bhardlimit, dq.dqb_bsoftlimit,
	    (dq.dqb_curspace + QIF_DQBLKSIZE - 1) / QIF_DQBLKSIZE,
	    dq.dqb_btime);
	*blocks_spare = (dq.dqb_valid & (QIF_BLIMITS | QIF_SPACE)) ==
	    (QIF_BLIMITS | QIF_SPACE) && (blimit == 0 ||
	    dq.dqb_curspace + (uint64_t)PRESSURE_MIN_BYTES <=
	    blimit * QIF_DQBLKSIZE);
	return true;
}

/* What an event's purge aims at in all, in the units of its first @step. */
static struct purge_amount
pressure_share(struct trashd *d, struct tfs *fs, uint32_t reason,
    struct purge_amount step)
{
	struct purge_amount want = { 0, 0 };
	struct statvfs sv;
	int64_t total, avail, low;

	if (fstatvfs(fs->rootfd, &sv) < 0) {
		want.bytes = PRESSURE_MIN_BYTES;
		return want;
	}
	total = (int64_t)(sv.f_blocks * sv.f_frsize);
	avail = (int64_t)(sv.f_bavail * sv.f_frsize);
	low = (int64_t)pressure_low(d, fs);
	if (reason == TRASHBIN_PRESSURE_LOW) {
		want.bytes = low > avail ? low - avail : 0;
		return want;
	}
	if (step.entries > 0 && reason == TRASHBIN_PRESSURE_EDQUOT) {
		/* The user's own: a step's worth, as many again for later. */
		want.entries = 2 * step.entries;
		if (step.bytes <= 0)
			return want;
	} else if (step.entries > 0) {
		want.entries = (int64_t)(sv.f_files / 100);
		if (want.entries < PRESSURE_MIN_ENTRIES)
			want.entries = PRESSURE_MIN_ENTRIES;
		want.entries -= (int64_t)sv.f_favail;
		if (step.bytes <= 0)
			return want;
	}
	want.bytes = PRESSURE_MIN_BYTES;
	if (total / 100 > want.bytes)
		want.bytes = total / 100;
	if (low - avail > want.bytes)
		want.bytes = low - avail;
	return want;
}

/* Purge up to @cap for @ev; what was freed now (wipes: *@wiping). */
static struct purge_amount
pressure_purge(struct trashd *d, struct tfs *fs,
    const struct trashbin_pressure_event *ev, struct purge_amount cap,
    bool *wiping)
{
	static const struct purge_amount none = { 0, 0 };
	int64_t uid;

	*wiping = false;
	uid = ev->uid == TRASHBIN_PRESSURE_ANY_UID ? -1 : (int64_t)ev->uid;
	switch (ev->reason) {
	case TRASHBIN_PRESSURE_LOW:
		return policy_pressure(d, fs, false, -1, cap, "watermark",
		    wiping);
	case TRASHBIN_PRESSURE_EDQUOT:
		/* Whose quota is not known past the kernel's 8 uids. */
		return uid < 0 ? none : policy_pressure(d, fs, true, uid, cap,
		    "quota-pressure", wiping);
	case TRASHBIN_PRESSURE_ENOSPC:
		return policy_pressure(d, fs, false, uid, cap, "pressure",
		    wiping);
	default:
		log_warnx("pressure: %s: unknown event %u", fs->path,
		    ev->reason);
		return none;
	}
}

/*
 * The next step after the loop has polled again: a zero timeout, not
 * event_active(), which libevent would run again before reading the
 * pressure file (the writers waiting would starve).
 */
static void
pressure_rest_arm(struct tfs_pressure *p)
{
	static const struct timeval now = { 0, 0 };

	(void)event_add(p->rest_ev, &now);
}

/* Keep the rest of @ev's share, @left, for the later steps. */
static void
pressure_rest_add(struct tfs *fs, const struct trashbin_pressure_event *ev,
    struct purge_amount left)
{
	struct tfs_pressure *p = &fs->press;
	size_t i;

	if (left.bytes <= 0 && left.entries <= 0)
		return;
	for (i = 0; i < p->nrest; i++)
		if (p->rest[i].ev.reason == ev->reason &&
		    p->rest[i].ev.uid == ev->uid)
			break;
	if (i == p->nrest) {
		if (p->nrest == TFS_PRESSURE_REST)
			return;	/* the kernel asks again if need be */
		p->nrest++;
		p->rest[i].left.bytes = p->rest[i].left.entries = 0;
	}
	p->rest[i].ev = *ev;
	if (left.bytes > p->rest[i].left.bytes)
		p->rest[i].left.bytes = left.bytes;
	if (left.entries > p->rest[i].left.entries)
		p->rest[i].left.entries = left.entries;
	pressure_rest_arm(p);
}

/*
 * What @left still asks after a step of @cap that freed @freed.  Only
 * progress in a unit still asked counts (entries without blocks are
 * none for a rest in bytes); none, and nothing left to purge: the rest
 * ends, unless the step queued wipes, which count as the step.
 */
static void
pressure_rest_less(struct purge_amount *left, struct purge_amount cap,
    struct purge_amount freed, bool wiping)
{
	bool progress = (left->bytes > 0 && freed.bytes > 0) ||
	    (left->entries > 0 && freed.entries > 0);

	if (!progress && !wiping) {
		left->bytes = left->entries = 0;
		return;
	}
	if (!progress)
		freed = cap;
	left->bytes -= freed.bytes;
	left->entries -= freed.entries;
	if (left->bytes < 0)
		left->bytes = 0;
	if (left->entries < 0)
		left->entries = 0;
}

/* One step of each event's rest, then the loop again. */
static void
pressure_rest(evutil_socket_t fd, short what, void *arg)
{
	struct tfs *fs = arg;
	struct tfs_pressure *p = &fs->press;
	struct purge_amount freed, cap, *left;
	bool wiping;
	size_t i;

	(void)fd;
	(void)what;
	for (i = 0; i < p->nrest; ) {
		left = &p->rest[i].left;
		cap.bytes = left->bytes < PRESSURE_STEP_BYTES ?
		    left->bytes : PRESSURE_STEP_BYTES;
		cap.entries = left->entries < PRESSURE_STEP_ENTRIES ?
		    left->entries : PRESSURE_STEP_ENTRIES;
		freed = pressure_purge(p->d, fs, &p->rest[i].ev, cap,
		    &wiping);
		pressure_rest_less(left, cap, freed, wiping);
		if (left->bytes > 0 || left->entries > 0) {
			i++;
			continue;
		}
		p->rest[i] = p->rest[--p->nrest];
	}
	if (p->nrest > 0)
		pressure_rest_arm(p);
}

/* Entries of @fs being wiped: their blocks come free when a wipe ends. */
static bool
pressure_wipes_pending(struct trashd *d, struct tfs *fs)
{
	struct index_filter f = { .fs_id = fs->id, .uid = -1,
	    .states = ENTRY_STATE_MASK(ENTRY_WIPING) };
	int64_t n = 0;

	return index_count(d->db, &f, &n) == 0 && n > 0;
}

static void
pressure_read(evutil_socket_t fd, short what, void *arg)
{
	struct tfs *fs = arg;
	struct trashd *d = fs->press.d;
	struct trashbin_pressure_event ev[TFS_PRESSURE_REST];
	struct purge_amount freed = { 0, 0 }, f, step, share;
	uint64_t seq = 0;
	int64_t over;
	uint32_t w;
	bool wiping, any_wiping = false, inodes, spare;
	ssize_t n;
	size_t i;

	(void)what;
	n = read(fd, ev, sizeof(ev));
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			log_warnx("pressure: %s: %s", fs->path,
			    strerror(errno));
		return;
	}
	if (n == 0) {
		/* Hung up: the filesystem was unmounted under us. */
		log_warnx("pressure: %s: unmounted, no longer listening",
		    fs->path);
		pressure_close(fs);
		return;
	}
	for (i = 0; i < (size_t)n / sizeof(ev[0]); i++) {
		if (ev[i].seq > seq)
			seq = ev[i].seq;
		/* Writers wait for ENOSPC and EDQUOT; LOW is a warning. */
		if (ev[i].reason != TRASHBIN_PRESSURE_LOW) {
			fs->press.events++;
			if (fs->press.since == 0 || (int64_t)ev[i].since_ns <
			    fs->press.since)
				fs->press.since = (int64_t)ev[i].since_ns;
			log_info("pressure: %s: %s, uid %u, %u waiting",
			    fs->path, ev[i].reason == TRASHBIN_PRESSURE_EDQUOT ?
			    "over quota" : "out of space", ev[i].uid,
			    ev[i].waiters);
		}
		/*
		 * A step for each writer waiting, so that all may go on: in
		 * bytes, root's reserve first; in entries too when the
		 * filesystem (ENOSPC) or the user's quota (EDQUOT) is out of
		 * inodes, in entries alone if blocks are to spare.  Entries
		 * freed count in the answer only then: for blocks, empty
		 * files free nothing.
		 */
		w = ev[i].waiters > 1 ? ev[i].waiters : 1;
		over = 0;
		if (ev[i].reason == TRASHBIN_PRESSURE_ENOSPC)
			inodes = pressure_inodes_short(fs, w, &spare);
		else if (ev[i].reason == TRASHBIN_PRESSURE_EDQUOT &&
		    ev[i].uid != TRASHBIN_PRESSURE_ANY_UID)
			inodes = pressure_quota_inodes(fs, ev[i].uid, w,
			    &over, &spare);
		else
			inodes = spare = false;
		step.entries = inodes ?
		    PRESSURE_STEP_ENTRIES * (int64_t)w + over : 0;
		step.bytes = inodes && spare ? 0 :
		    PRESSURE_STEP_BYTES * (int64_t)w +
		    (ev[i].reason == TRASHBIN_PRESSURE_ENOSPC ?
		    pressure_deficit(fs) : 0);
		/* Before the step: the inodes it frees show in statvfs. */
		share = pressure_share(d, fs, ev[i].reason, step);
		f = pressure_purge(d, fs, &ev[i], step, &wiping);
		freed.bytes += f.bytes;
		if (inodes)
			freed.entries += f.entries;
		any_wiping |= wiping;
		pressure_rest_less(&share, step, f, wiping);
		pressure_rest_add(fs, &ev[i], share);
	}
	if (seq == 0)
		return;
	if (freed.bytes <= 0 && freed.entries <= 0 &&
	    (any_wiping || pressure_wipes_pending(d, fs)))
		/* Only wipes: the writers get their answer when one ends. */
		fs->press.held = seq;
	else
		pressure_ack(fs, seq, freed);
}

void
pressure_wiped(struct trashd *d, struct tfs *fs, int64_t bytes)
{
	(void)d;
	if (fs->press.fd >= 0 && fs->press.held != 0)
		pressure_ack(fs, fs->press.held, (struct purge_amount){
		    .bytes = bytes > 0 ? bytes : 1 });
}

void
pressure_watermark(struct trashd *d, struct tfs *fs)
{
	uint64_t low;

	if (fs->press.fd < 0)
		return;
	low = pressure_low(d, fs);
	if (ioctl(fs->press.fd, TRASHBIN_IOC_PRESSURE_LOW, &low) < 0)
		log_warnx("pressure: %s: low mark: %s", fs->path,
		    strerror(errno));
}

int
pressure_fs(struct trashd *d, struct tfs *fs)
{
	struct trashbin_pressure_arg a = { .low_bytes = pressure_low(d, fs) };
	int fd;

	fs->press.d = d;
	(void)pressure_deficit(fs);	/* learns root's reserve */
	if (d->base == NULL)
		return 0;
	if ((fd = ioctl(fs->trashfd, TRASHBIN_IOC_PRESSURE, &a)) < 0)
		return -errno;
	fs->press.fd = fd;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		pressure_close(fs);
		return -errno;
	}
	fs->press.ev = event_new(d->base, fd, EV_READ | EV_PERSIST,
	    pressure_read, fs);
	fs->press.rest_ev = event_new(d->base, -1, 0, pressure_rest, fs);
	if (fs->press.ev == NULL || fs->press.rest_ev == NULL ||
	    event_add(fs->press.ev, NULL) < 0) {
		pressure_close(fs);
		return -ENOMEM;
	}
	return 0;
}

void
pressure_close(struct tfs *fs)
{
	if (fs->press.ev != NULL)
		event_free(fs->press.ev);
	if (fs->press.rest_ev != NULL)
		event_free(fs->press.rest_ev);
	fs->press.ev = fs->press.rest_ev = NULL;
	fs->press.nrest = 0;
	if (fs->press.fd >= 0)
		close(fs->press.fd);	/* the writers waiting fail now */
	fs->press.fd = -1;
	fs->press.held = 0;
}
