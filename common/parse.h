/* SPDX-License-Identifier: ISC */
/*
 * Sizes, durations and points in time as people type them, and plain
 * numbers: the one parser that trashd.conf(5), trashctl(1) and
 * pam_trash(8) share, so that a value means the same wherever it is typed.
 *
 *   size      512, 10k (or 10K), 10M, 1G, 1T: whole bytes, powers of 1024.
 *             A bare number is bytes, except where the unit is required
 *             (parse_size_unit()).  No fractions ("1.5G" is refused:
 *             say 1536M), so a size prints back exactly as typed.
 *   duration  90s, 15m, 3h, 3d, 2w (or "3 days", 3days): a unit is
 *             required, a bare number is refused (it used to be seconds,
 *             so "list -o 3 days" meant 3 seconds and a path "days").
 *   time      a duration meaning that long ago ("3d", "3 days ago"),
 *             2026-11-30, 2026-11-30T12:00[:SS] (or a space for the T),
 *             today, yesterday (local midnight), now, @SECONDS (Epoch).
 *   limits    A quota, rate or retention of 0 would limit everything or
 *             nothing: 0 is refused, and "unlimited" / "forever" say none
 *             (stored as 0, which keeps that meaning on the wire and in
 *             the index).
 *
 * No leading or trailing blanks, no sign.  Each function returns 0, or
 * -EINVAL (not this syntax) or -ERANGE (too large) with *why set to a
 * sentence for the user (a static string, never NULL on error).
 */
#ifndef TRASHBIN_PARSE_H
#define TRASHBIN_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The largest duration: it is multiplied into int64 nanoseconds. */
#define PARSE_DURATION_MAX	(INT64_MAX / 1000000000)

int	parse_uint(const char *, uint64_t max, uint64_t *, const char **why);
int	parse_size(const char *, uint64_t *bytes, const char **why);
int	parse_size_limit(const char *, uint64_t *bytes, const char **why);
int	parse_size_unit(const char *, uint64_t *bytes, const char **why);
int	parse_duration(const char *, int64_t *secs, const char **why);
int	parse_duration_limit(const char *, int64_t *secs, const char **why);
int	parse_percent(const char *, unsigned *, const char **why);
int	parse_time(const char *, int64_t now, int64_t *secs,
	    const char **why);

/* The largest unit that is exact: 7776000 is "90d", 1209600 "2w". */
void	parse_fmt_duration(char *, size_t, int64_t secs);
void	parse_fmt_size(char *, size_t, uint64_t bytes);

#endif
