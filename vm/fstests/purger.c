// SPDX-License-Identifier: GPL-2.0
/*
 * The trash daemon of the fstests guest (vm/fstests/init starts it on the
 * patched kernel): listens for space pressure on every ext4 with a /.trash
 * that is mounted, as trashd would, and answers each event by purging that
 * filesystem's whole trash.  fstests mounts and unmounts its filesystems
 * all the time, so the purger follows /proc/self/mountinfo and holds
 * nothing on a filesystem between purges but its pressure file, which does
 * not keep it mounted: at umount the file hangs up and is closed.
 *
 * Without it the tests' deleted files would fill TEST_DEV's trash and the
 * later tests would fail with ENOSPC on the patched kernel only: what
 * fstests judges here is the series with a daemon, as it is deployed.
 *
 *   purger [LOW_PERCENT]    (default 10, trashd's default watermark;
 *                            0: purge only for a waiting writer)
 *
 * It sets fs.trashbin.space_wait_ms to 10 s: under TCG a purge of a
 * trash of 80 MiB files and the syncfs that frees their blocks may take
 * longer than the default 2 s, as they may on slow storage, where an
 * admin raises it the same way.
 *
 * A low mark of 10% free, trashd's default watermark: without one (as
 * from 2026-12-05 to 12-06) nothing purged TEST_DEV's trash but a data
 * writer that ran out, and once the trash had filled it, the namespace
 * operations, which then failed at ENOSPC without waiting (they wait now:
 * trashbin.rst), failed test after test (mkdir in generic/237, 245, 314).  A purge holds the
 * filesystem busy while it runs, and fstests unmounts TEST_DEV after each
 * test, so each purge is bounded (PURGE_MAX_BYTES, PURGE_MAX_FILES), as
 * trashd's steps are: a purge of a whole trash (one the low mark started
 * at a random moment, or one of the trash fsstress had filled, which
 * outlasted the writer's bound under TCG) made that umount fail with
 * EBUSY after generic/070.  A writer still short asks again.
 *
 * On SIGTERM prints one line: "# purger: E events, F files, B bytes
 * purged, L listens, H hangups" and exits 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/trashbin.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAXFS 16
/* One purge frees at most this much, then answers and lets go. */
#define PURGE_MAX_BYTES	(64ULL << 20)
#define PURGE_MAX_FILES	4096

struct fs {
	dev_t	dev;
	int	fd;		/* the pressure file, -1: free slot */
	char	mnt[512];	/* where it was mounted when asked */
};

static struct fs fss[MAXFS];
static int low_percent = 10;
static volatile sig_atomic_t stop;
static unsigned long long n_events, n_files, n_bytes, n_listens, n_hangups;
static unsigned long long purge_bytes, purge_files;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

static struct fs *fs_of(dev_t dev)
{
	for (int i = 0; i < MAXFS; i++)
		if (fss[i].fd >= 0 && fss[i].dev == dev)
			return &fss[i];
	return NULL;
}

/* Listen on the filesystem mounted at MNT (its root), unless we do. */
static void listen_on(dev_t dev, const char *mnt)
{
	struct trashbin_pressure_arg a = { 0 };
	struct statvfs sv;
	char path[600];
	int dfd, fd, i;

	if (fs_of(dev))
		return;
	for (i = 0; i < MAXFS && fss[i].fd >= 0; i++)
		;
	if (i == MAXFS)
		return;
	snprintf(path, sizeof(path), "%s/.trash", mnt);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;		/* no trash here, or it went meanwhile */
	if (fstatvfs(dfd, &sv) == 0)
		a.low_bytes = (uint64_t)sv.f_blocks * sv.f_frsize / 100 *
			      low_percent;
	fd = ioctl(dfd, TRASHBIN_IOC_PRESSURE, &a);
	close(dfd);
	if (fd < 0) {
		if (errno != EBUSY)
			fprintf(stderr, "purger: %s: %s\n", path,
				strerror(errno));
		return;
	}
	fss[i].dev = dev;
	fss[i].fd = fd;
	snprintf(fss[i].mnt, sizeof(fss[i].mnt), "%s", mnt);
	n_listens++;
}

/* Listen on every ext4 mounted at its root; note where each is now. */
static void scan_mounts(void)
{
	unsigned int maj, min;
	char *line = NULL, root[512], mnt[512], *dash;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*d %*d %u:%u %511s %511s", &maj, &min,
			   root, mnt) != 4)
			continue;
		dash = strstr(line, " - ");
		if (!dash || strncmp(dash, " - ext4 ", 8) || strcmp(root, "/"))
			continue;
		unescape(mnt);
		listen_on(makedev(maj, min), mnt);
	}
	free(line);
	fclose(f);
}

static int purge_one(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	if (ftw->level == 0)
		return 0;	/* /.trash itself stays */
	if (type == FTW_DP) {
		if (ftw->level > 1)	/* the per-uid dirs stay */
			rmdir(path);
		return 0;
	}
	if (unlink(path) == 0) {
		purge_files++;
		if (S_ISREG(st->st_mode) && st->st_nlink == 1)
			purge_bytes += (unsigned long long)st->st_blocks * 512;
	}
	/* Enough for one answer: stop the walk (nftw returns this). */
	return purge_bytes >= PURGE_MAX_BYTES || purge_files >= PURGE_MAX_FILES;
}

/* Purge FS's trash, up to the bounds, commit it, acknowledge up to SEQ. */
static void purge(struct fs *fs, uint64_t seq)
{
	struct trashbin_pressure_ack ack = { .seq = seq };
	char path[600];
	struct stat st;
	int dfd;

	purge_bytes = purge_files = 0;
	snprintf(path, sizeof(path), "%s/.trash", fs->mnt);
	/*
	 * Only through the mount it was asked on, while it is still that
	 * filesystem's: else the answer is that nothing was freed.
	 */
	if (stat(path, &st) == 0 && st.st_dev == fs->dev)
		nftw(path, purge_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	/* Freed blocks are reusable once the journal commits. */
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		syncfs(dfd);
		close(dfd);
	}
	n_files += purge_files;
	n_bytes += purge_bytes;
	/* Something unlinked is something freed, if only an inode. */
	ack.freed_bytes = purge_bytes ? purge_bytes : purge_files;
	if (write(fs->fd, &ack, sizeof(ack)) < 0 && errno != ENODEV)
		fprintf(stderr, "purger: ack on %s: %s\n", fs->mnt,
			strerror(errno));
}

static void hangup(struct fs *fs)
{
	close(fs->fd);
	fs->fd = -1;
	n_hangups++;
}

static void on_pressure(struct fs *fs)
{
	struct trashbin_pressure_event ev[16];
	uint64_t seq = 0;
	ssize_t n;

	n = read(fs->fd, ev, sizeof(ev));
	if (n == 0) {
		hangup(fs);
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			hangup(fs);
		return;
	}
	for (size_t i = 0; i < (size_t)n / sizeof(ev[0]); i++) {
		if (ev[i].seq > seq)
			seq = ev[i].seq;
		n_events++;
	}
	purge(fs, seq);
}

int main(int argc, char **argv)
{
	struct pollfd pfd[MAXFS + 1];
	struct fs *who[MAXFS + 1];
	struct sigaction sa = { .sa_handler = on_term };
	int mi, n, i;
	FILE *f;

	if (argc > 1)
		low_percent = atoi(argv[1]);
	f = fopen("/proc/sys/fs/trashbin/space_wait_ms", "we");
	if (!f || fputs("10000\n", f) < 0 || fclose(f) != 0)
		perror("purger: fs.trashbin.space_wait_ms");
	for (i = 0; i < MAXFS; i++)
		fss[i].fd = -1;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	mi = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mi < 0) {
		perror("purger: /proc/self/mountinfo");
		return 1;
	}
	scan_mounts();
	while (!stop) {
		pfd[0].fd = mi;
		pfd[0].events = POLLPRI;
		n = 1;
		for (i = 0; i < MAXFS; i++) {
			if (fss[i].fd < 0)
				continue;
			pfd[n].fd = fss[i].fd;
			pfd[n].events = POLLIN;
			who[n++] = &fss[i];
		}
		if (poll(pfd, n, -1) < 0)
			continue;
		for (i = 1; i < n; i++)
			if (pfd[i].revents)
				on_pressure(who[i]);
		/* The mount table changed: follow it (reading re-arms). */
		if (pfd[0].revents & (POLLPRI | POLLERR)) {
			char buf[4096];

			lseek(mi, 0, SEEK_SET);
			while (read(mi, buf, sizeof(buf)) > 0)
				;
			scan_mounts();
		}
	}
	printf("# purger: %llu events, %llu files, %llu bytes purged, %llu listens, %llu hangups\n",
	       n_events, n_files, n_bytes, n_listens, n_hangups);
	return 0;
}
