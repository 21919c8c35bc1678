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
#include <time.h>
#include <unistd.h>

#include "services.h"

/* The least a pressure event purges: 1% of the filesystem, 8 MiB at least. */
#define PRESSURE_MIN_BYTES	(8LL << 20)
/* Events read at once: the kernel keeps 8 and one per reason beyond. */
#define PRESSURE_EVENTS		16

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

static void
pressure_ack(struct tfs *fs, uint64_t seq, int64_t freed)
{
	struct trashbin_pressure_ack a = { .seq = seq,
	    .freed_bytes = freed > 0 ? (uint64_t)freed : 0 };
	int64_t waited;

	if (write(fs->press.fd, &a, sizeof(a)) != (ssize_t)sizeof(a))
		log_warnx("pressure: %s: acknowledging: %s", fs->path,
		    strerror(errno));
	if (fs->press.since > 0) {
		waited = pressure_mono_ns() - fs->press.since;
		fs->press.waited_ns += waited;
		if (waited > fs->press.wait_max_ns)
			fs->press.wait_max_ns = waited;
		fs->press.since = 0;
	}
	fs->press.held = 0;
}

/* What to purge for @ev; the bytes freed now (wipes: *@wiping). */
static int64_t
pressure_event(struct trashd *d, struct tfs *fs,
    const struct trashbin_pressure_event *ev, bool *wiping)
{
	struct statvfs sv;
	int64_t want = PRESSURE_MIN_BYTES, uid;
	uint64_t low;

	*wiping = false;
	uid = ev->uid == TRASHBIN_PRESSURE_ANY_UID ? -1 : (int64_t)ev->uid;
	if (fstatvfs(fs->rootfd, &sv) == 0) {
		if ((int64_t)(sv.f_blocks * sv.f_frsize / 100) > want)
			want = (int64_t)(sv.f_blocks * sv.f_frsize / 100);
		low = pressure_low(d, fs);
		if (low > sv.f_bavail * sv.f_frsize &&
		    (int64_t)(low - sv.f_bavail * sv.f_frsize) > want)
			want = (int64_t)(low - sv.f_bavail * sv.f_frsize);
	}
	switch (ev->reason) {
	case TRASHBIN_PRESSURE_LOW:
		if (fstatvfs(fs->rootfd, &sv) == 0)
			(void)policy_watermark(d, fs, (uint64_t)sv.f_blocks *
			    sv.f_frsize, (uint64_t)sv.f_bavail * sv.f_frsize);
		return 0;
	case TRASHBIN_PRESSURE_EDQUOT:
		if (uid < 0)
			return 0;
		log_info("pressure: %s: uid %" PRId64 " over quota, %u "
		    "waiting", fs->path, uid, ev->waiters);
		return policy_pressure(d, fs, true, uid, want, wiping);
	case TRASHBIN_PRESSURE_ENOSPC:
		log_info("pressure: %s: out of space, %u waiting", fs->path,
		    ev->waiters);
		return policy_pressure(d, fs, false, uid, want, wiping);
	default:
		log_warnx("pressure: %s: unknown event %u", fs->path,
		    ev->reason);
		return 0;
	}
}

static void
pressure_read(evutil_socket_t fd, short what, void *arg)
{
	struct tfs *fs = arg;
	struct trashd *d = fs->press.d;
	struct trashbin_pressure_event ev[PRESSURE_EVENTS];
	uint64_t seq = 0;
	int64_t freed = 0;
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
	for (i = 0; i < (size_t)n / sizeof(ev[0]); i++) {
		if (ev[i].seq > seq)
			seq = ev[i].seq;
		/* Writers wait for ENOSPC and EDQUOT; LOW is a warning. */
		if (ev[i].reason != TRASHBIN_PRESSURE_LOW) {
			fs->press.events++;
			if (fs->press.since == 0 || (int64_t)ev[i].since_ns <
			    fs->press.since)
				fs->press.since = (int64_t)ev[i].since_ns;
		}
		freed += pressure_event(d, fs, &ev[i], &wiping);
		any_wiping |= wiping;
	}
	if (seq == 0)
		return;
	if (freed == 0 && any_wiping) {
		/* Only wipes: the writers get their answer when one ends. */
		fs->press.held = seq;
		return;
	}
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
	if (fs->press.ev == NULL || event_add(fs->press.ev, NULL) < 0) {
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
	fs->press.ev = NULL;
	if (fs->press.fd >= 0)
		close(fs->press.fd);	/* the writers waiting fail now */
	fs->press.fd = -1;
	fs->press.held = 0;
}
