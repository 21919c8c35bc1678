/* SPDX-License-Identifier: ISC */
/* Helpers for the trashd unit tests: a scratch "filesystem" under /tmp. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trashd.h"

struct tl {
	char	root[PATH_MAX];		/* mkdtemp */
	char	fs[PATH_MAX];		/* the managed "filesystem" */
	char	dbdir[PATH_MAX];
	char	db[PATH_MAX];
};

struct tl_entry {
	uint32_t	 uid;		/* trash dir */
	const char	*name;		/* name in the trash */
	/* The trusted.trash record's fields: */
	const char	*path;		/* <path>, NULL: none */
	int64_t		 time;		/* <time> seconds, <0: none */
	int64_t		 deleter;	/* <uid>, <0: none */
	uint32_t	 flags;		/* FS_*_FL */
	const void	*data;
	size_t		 len;
};

void	 tl_setup(struct tl *);
void	 tl_teardown(struct tl *);
struct config *tl_config(const struct tl *);
void	 tl_open(struct tl *, struct trashd *, struct config *,
	    struct event_base *);
void	 tl_path(const struct tl *, char *, size_t, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
ino_t	 tl_stage(const struct tl *, const struct tl_entry *);
void	 tl_set_record(int, int64_t, int64_t, const char *);
void	 tl_mkuid(const struct tl *, uint32_t uid);
bool	 tl_exists(const char *path);
int64_t	 tl_count(struct trashd *, int64_t uid, unsigned states);
int	 tl_entry_by_name(struct trashd *, uint32_t uid, const char *name,
	    struct entry *);
int64_t	 tl_audit_count(struct trashd *, const char *action);
void	 tl_write_file(const char *path, const void *data, size_t len);
void	 tl_fits(int n, size_t size);

/*
 * snprintf() into a buffer that must hold all of it: a path or a file a
 * test makes is never cut short, the test fails instead.
 */
#define TL_SNPRINTF(buf, size, ...) \
	tl_fits(snprintf((buf), (size), __VA_ARGS__), (size))
char	*tl_read_file(const char *path, size_t *len);

#endif
