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
#include <sys/statvfs.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "services.h"

/* An event's share: 1% of the filesystem, 8 MiB at least, or the gap. */
#define PRESSURE_MIN_BYTES	(8LL << 20)
/*
 * What is purged before the writers are answered, and what each later
 * step of the rest of the share purges: the writers wait for this much
 * only, and new events are read between the steps (in 1 KiB files, 8 MiB
 * is thousands of unlinks).
 */
#define PRESSURE_STEP_BYTES	(256LL << 10)

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

static void
pressure_ack(struct tfs *fs, uint64_t seq, int64_t freed)
{
	struct trashbin_pressure_ack a = { .seq = seq,
	    .freed_bytes = freed > 0 ? (uint64_t)freed : 0 };
	int64_t waited;

	if (freed > 0)
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
		    PRId64 " bytes freed", fs->path, waited / 1000, freed);
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

/* What an event's purge aims at in all. */
static int64_t
pressure_share(struct trashd *d, struct tfs *fs, uint32_t reason)
{
	struct statvfs sv;
	int64_t want = PRESSURE_MIN_BYTES, total, avail, low;

	if (fstatvfs(fs->rootfd, &sv) < 0)
		return want;
	total = (int64_t)(sv.f_blocks * sv.f_frsize);
	avail = (int64_t)(sv.f_bavail * sv.f_frsize);
	low = (int64_t)pressure_low(d, fs);
	if (reason == TRASHBIN_PRESSURE_LOW)
		return low > avail ? low - avail : 0;
	if (total / 100 > want)
		want = total / 100;
	if (low - avail > want)
		want = low - avail;
	return want;
}

/* Purge up to @cap bytes for @ev; the bytes freed now (wipes: *@wiping). */
static int64_t
pressure_purge(struct trashd *d, struct tfs *fs,
    const struct trashbin_pressure_event *ev, int64_t cap, bool *wiping)
{
	int64_t uid;

	*wiping = false;
	uid = ev->uid == TRASHBIN_PRESSURE_ANY_UID ? -1 : (int64_t)ev->uid;
	switch (ev->reason) {
	case TRASHBIN_PRESSURE_LOW:
		return policy_pressure(d, fs, false, -1, cap, "watermark",
		    wiping);
	case TRASHBIN_PRESSURE_EDQUOT:
		/* Whose quota is not known past the kernel's 8 uids. */
		return uid < 0 ? 0 : policy_pressure(d, fs, true, uid, cap,
		    "quota-pressure", wiping);
	case TRASHBIN_PRESSURE_ENOSPC:
		return policy_pressure(d, fs, false, uid, cap, "pressure",
		    wiping);
	default:
		log_warnx("pressure: %s: unknown event %u", fs->path,
		    ev->reason);
		return 0;
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

/* Keep the rest of @ev's share, @left bytes, for the later steps. */
static void
pressure_rest_add(struct tfs *fs, const struct trashbin_pressure_event *ev,
    int64_t left)
{
	struct tfs_pressure *p = &fs->press;
	size_t i;

	if (left <= 0)
		return;
	for (i = 0; i < p->nrest; i++)
		if (p->rest[i].ev.reason == ev->reason &&
		    p->rest[i].ev.uid == ev->uid)
			break;
	if (i == p->nrest) {
		if (p->nrest == TFS_PRESSURE_REST)
			return;	/* the kernel asks again if need be */
		p->nrest++;
		p->rest[i].left = 0;
	}
	p->rest[i].ev = *ev;
	if (left > p->rest[i].left)
		p->rest[i].left = left;
	pressure_rest_arm(p);
}

/* One step of each event's rest, then the loop again. */
static void
pressure_rest(evutil_socket_t fd, short what, void *arg)
{
	struct tfs *fs = arg;
	struct tfs_pressure *p = &fs->press;
	int64_t freed, cap;
	bool wiping;
	size_t i;

	(void)fd;
	(void)what;
	for (i = 0; i < p->nrest; ) {
		cap = p->rest[i].left < PRESSURE_STEP_BYTES ?
		    p->rest[i].left : PRESSURE_STEP_BYTES;
		freed = pressure_purge(p->d, fs, &p->rest[i].ev, cap,
		    &wiping);
		/* Nothing left to purge: done with it. */
		p->rest[i].left -= freed > 0 ? freed : wiping ? cap :
		    p->rest[i].left;
		if (p->rest[i].left > 0) {
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
	uint64_t seq = 0;
	int64_t freed = 0, f;
	bool wiping, any_wiping = false;
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
		/* A step for each writer waiting, so that all may go on. */
		f = pressure_purge(d, fs, &ev[i], PRESSURE_STEP_BYTES *
		    (ev[i].waiters > 1 ? ev[i].waiters : 1) +
		    (ev[i].reason == TRASHBIN_PRESSURE_ENOSPC ?
		    pressure_deficit(fs) : 0), &wiping);
		freed += f;
		any_wiping |= wiping;
		pressure_rest_add(fs, &ev[i], pressure_share(d, fs,
		    ev[i].reason) - (f > 0 ? f : wiping ?
		    PRESSURE_STEP_BYTES : 0));
	}
	if (seq == 0)
		return;
	if (freed == 0 && (any_wiping || pressure_wipes_pending(d, fs)))
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
		pressure_ack(fs, fs->press.held, bytes > 0 ? bytes : 1);
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
