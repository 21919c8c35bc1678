/* SPDX-License-Identifier: ISC */
/*
 * What trashctl prints and parses, against a real trashd (e2e.h has the
 * fixture and says where other tests go): list and its filters, a list
 * streamed; names and paths escaped for a terminal, in tables, in the
 * audit, in --json and --ndjson, the latter valid however a reply ends;
 * users by name; times and entry ids as typed; audit's filters; empty's
 * selection, dry run and confirmation; trashd not running.  A new option
 * or output format of trashctl gets its tests here.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

/* ---- trashd not running; a usage error ---- */

static void
test_not_running(void **state)
{
	struct env *e = *state;
	char sock[PATH_MAX], *out = NULL;

	TL_SNPRINTF(sock, sizeof(sock), "%s/nosuch.sock", e->t.root);
	check_rc(run(e, &(const struct run){ .as = &A, .sock = sock }, &out,
	    ARGS("status")), 3, out);
	expect_str(out, "is the trashd service running?");
	free(out);
	check_rc(ctl(e, &A, &out, "frobnicate"), 2, out);
	free(out);
	check_rc(ctl(e, &A, &out, "restore"), 2, out);
	free(out);
}

/* ---- list: filters, the newest N, a long list streamed ---- */

#define LIST_BULK	5000

static void
test_list(void **state)
{
	static const char *const paths[] = { "home/a/dir", "home/a/dir/f",
	    "home/a/dir/sub/g", "home/a/dir.txt", "home/a/dir0/f",
	    "home/a/dirx/f" };
	struct env *e = *state;
	struct proto_client c, other;
	struct proto_buf b;
	struct proto_msg *m = xmalloc(sizeof(*m));
	char dir[PATH_MAX], name[32], path[64], *out = NULL, *p5, *p6;
	int64_t t, last_t = 0, last_id = 0, n = 0, bytes = 0, t0;
	const char *why;
	size_t i;

	for (i = 0; i < 6; i++) {
		TL_SNPRINTF(name, sizeof(name), "p%zu", i);
		stage(e, UA, name, paths[i], 1700000001 + (int64_t)i, "xy", 2,
		    0644);
	}
	wait_count(e, UA, 6);
	/* A prefix is a path and what lies under it, not a string prefix. */
	tl_path(&e->t, dir, sizeof(dir), "home/a/dir");
	check_rc(ctl(e, &A, &out, "list", "--json", dir), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 3);
	/* The path itself is listed (paths are absolute, end in '"'). */
	assert_non_null(strstr(out, "/home/a/dir\""));
	assert_null(strstr(out, "dir.txt"));
	assert_null(strstr(out, "dir0"));
	assert_null(strstr(out, "dirx"));
	free(out);
	/* -n 2: the two newest, oldest first. */
	check_rc(ctl(e, &A, &out, "list", "--json", "-n", "2"), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 2);
	p5 = strstr(out, "dir0/f");
	p6 = strstr(out, "dirx/f");
	assert_non_null(p5);
	assert_non_null(p6);
	assert_true(p5 < p6);
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "-n", "2", dir), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 2);
	assert_null(strstr(out, "/home/a/dir\""));
	free(out);
	/* --newer-than is inclusive, --older-than is not. */
	check_rc(ctl(e, &A, &out, "list", "--json", "-N", "@1700000005"), 0,
	    out);
	assert_int_equal(count_str(out, "\"id\":"), 2);
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "-o", "@1700000002"), 0,
	    out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	free(out);

	/* Older than those: a list far longer than the daemon buffers. */
	for (i = 0; i < LIST_BULK; i++) {
		TL_SNPRINTF(name, sizeof(name), "b%zu", i);
		TL_SNPRINTF(path, sizeof(path), "home/a/bulk/f%zu", i);
		stage(e, UA, name, path, 1600000000 + (int64_t)(i / 3), "x",
		    1, 0644);
	}
	for (i = 0; i < 1000 && raw_count(e, UA, NULL) != LIST_BULK + 6; i++)
		msleep(20);
	assert_int_equal(raw_connect(e, &c), 0);
	proto_init(&b, MSG_LIST);
	proto_num(&b, A_UID, UA);
	assert_int_equal(proto_send(&c, &b), 0);
	/* While this client takes nothing, another is served at once. */
	msleep(300);
	t0 = mono_ms();
	assert_int_equal(raw_connect(e, &other), 0);
	assert_int_equal(raw_status(&other), MSG_OK);
	proto_close(&other);
	assert_true(mono_ms() - t0 < 500 * slow);
	/* Each entry once, in order, and the totals say what was sent. */
	for (;;) {
		assert_int_equal(proto_recv(&c, m, &why), 0);
		if (m->type != MSG_ENTRY)
			break;
		t = m->num[A_TIME];
		assert_true(t > last_t || (t == last_t &&
		    m->num[A_ID] > last_id));
		last_t = t;
		last_id = m->num[A_ID];
		bytes += m->num[A_SIZE];
		n++;
	}
	assert_int_equal(m->type, MSG_OK);
	assert_int_equal(n, LIST_BULK + 6);
	assert_int_equal(m->num[A_COUNT], n);
	assert_int_equal(m->num[A_BYTES], bytes);
	assert_int_equal(bytes, LIST_BULK + 12);
	/* The connection takes the next request. */
	assert_int_equal(raw_status(&c), MSG_OK);
	proto_close(&c);
	free(m);

	/*
	 * Restored at once, they leave faster than the child reports: each
	 * is still credited to A's request, never to an unknown actor.
	 */
	mkdir_as(e, "home/a", UA, 0755);
	tl_path(&e->t, dir, sizeof(dir), "home/a/bulk");
	check_rc(ctl(e, &A, &out, "restore", dir), 0, out);
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restore", "-n",
	    "10000", "--json"), 0, out);
	assert_int_equal(count_str(out, "ok: restored, as uid 70001"),
	    LIST_BULK);
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restored", "-n",
	    "10000", "--json"), 0, out);
	assert_null(strstr(out, "left the trash"));
	free(out);
}

/*
 * ---- issue 12, finding 8: terminal injection, forgeable audit, lossy
 * JSON; and entry ids parsed as sizes ----
 */

/* A fake record, as `trashctl audit` prints them, to hide in a name. */
#define FORGED	"2030-01-01 00:00:00 root           1 restore        " \
	"entry=1 path=\"etc/shadow\": ok: restored, as uid 0"

/*
 * Nothing in @out that a terminal acts on: valid UTF-8 (checked here
 * independently of common/vis.c) with no C0 but the newlines, no DEL, no
 * C1 raw or encoded.  Returns the number of lines.
 */
static size_t
assert_terminal_safe(const char *out)
{
	const unsigned char *p = (const unsigned char *)out;
	size_t lines = 0, n, i;
	uint32_t cp;

	while (*p != '\0') {
		n = 1;
		cp = *p;
		if (*p < 0x80) {
			/* ASCII */
		} else if (*p >= 0xc2 && *p <= 0xdf) {
			n = 2;
			cp = *p & 0x1f;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 3;
			cp = *p & 0x0f;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 4;
			cp = *p & 0x07;
		} else {
			fprintf(stderr, "raw byte 0x%02x in:\n%s\n", *p, out);
			fail();
		}
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80) {
				fprintf(stderr, "bad UTF-8 in:\n%s\n", out);
				fail();
			}
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if ((cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f)) {
			fprintf(stderr, "control U+%04x in:\n%s\n", cp, out);
			fail();
		}
		if (cp == '\n')
			lines++;
		p += n;
	}
	return lines;
}

/* The base64 string after "KEY": in @json (from @from), decoded. */
static char *
json_b64(const char *json, const char *key, const char **from)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char needle[64], *out, *o;
	const char *p, *c;
	uint32_t v = 0;
	int bits = 0;

	TL_SNPRINTF(needle, sizeof(needle), "\"%s\":\"", key);
	if ((p = strstr(*from, needle)) == NULL)
		return NULL;
	p += strlen(needle);
	out = o = xmalloc(strlen(p) + 1);
	for (; *p != '"' && *p != '=' && *p != '\0'; p++) {
		c = strchr(tab, *p);
		assert_non_null(c);
		v = v << 6 | (uint32_t)(c - tab);
		if ((bits += 6) >= 8) {
			bits -= 8;
			*o++ = (char)(v >> bits & 0xff);
		}
	}
	*o = '\0';
	*from = p;
	(void)json;
	return out;
}

/* Stage @n entries of UA, their names and paths full of control bytes. */
static const char *const esc_paths[] = {
	"home/a/esc\x1b]0;owned\x07.txt",	/* ESC, an OSC, BEL */
	"home/a/csi\x9b" "2J.txt",		/* raw C1 CSI */
	"home/a/c1\xc2\x9b" "2J.txt",		/* UTF-8 C1 CSI */
	"home/a/bad\xff.txt",			/* not UTF-8 */
	"home/a/bad\xfe.txt",			/* another, same when lossy */
	"home/a/nl\n" FORGED,			/* a new line, a fake record */
	"home/a/caf\xc3\xa9 \xe6\x96\x87.txt",	/* readable: stays so */
};
#define ESC_N	(sizeof(esc_paths) / sizeof(esc_paths[0]))

static void
stage_esc(struct env *e)
{
	char name[64];
	size_t i;

	for (i = 0; i < ESC_N; i++) {
		/* The trash names too: a user can make those. */
		TL_SNPRINTF(name, sizeof(name), "n%zu\x1b[2J\x9b\xc2\x9b\xff", i);
		stage(e, UA, name, esc_paths[i], 1700000100 + (int64_t)i, "d",
		    1, 0644);
	}
	wait_count(e, UA, ESC_N);
}

static void
test_escape_list_restore(void **state)
{
	struct env *e = *state;
	char fs[PATH_MAX], id[32], *out = NULL;
	size_t lines, len;

	stage_esc(e);
	tl_path(&e->t, fs, sizeof(fs), "%s", "");
	/* One line per entry, a header and the total; nothing raw. */
	check_rc(ctl(e, &A, &out, "list"), 0, out);
	lines = assert_terminal_safe(out);
	assert_int_equal(lines, ESC_N + 2);
	expect_str(out, "esc\\x1b]0;owned\\x07.txt");
	expect_str(out, "csi\\x9b2J.txt");
	expect_str(out, "c1\\xc2\\x9b2J.txt");
	expect_str(out, "bad\\xff.txt");
	expect_str(out, "nl\\x0a2030-01-01");
	expect_str(out, "caf\xc3\xa9 \xe6\x96\x87.txt");
	free(out);
	check_rc(ctl(e, &ADM, &out, "list", "-a"), 0, out);
	assert_int_equal(assert_terminal_safe(out), ESC_N + 2);
	free(out);

	/* Restored by id, by path: what it says is escaped the same. */
	mkdir_as(e, "home/a", UA, 0755);
	TL_SNPRINTF(id, sizeof(id), "%" PRId64, entry_id(e, UA));
	check_rc(ctl(e, &A, &out, "restore", "-i", id), 0, out);
	assert_int_equal(assert_terminal_safe(out), 1);
	expect_str(out, "restored ");
	expect_str(out, "esc\\x1b]0;owned\\x07.txt");
	free(out);
	assert_true(exists_rel(e, esc_paths[0]));
	tl_path(&e->t, fs, sizeof(fs), "%s", esc_paths[1]);
	check_rc(ctl(e, &A, &out, "restore", fs), 0, out);
	assert_int_equal(assert_terminal_safe(out), 1);
	expect_str(out, "csi\\x9b2J.txt");
	free(out);
	/* Refused: its error names the path, escaped too. */
	tl_path(&e->t, fs, sizeof(fs), "%s", esc_paths[1]);
	check_rc(ctl(e, &A, &out, "restore", fs), 5, out);
	assert_int_equal(assert_terminal_safe(out), 1);
	expect_str(out, "csi\\x9b2J.txt");
	free(out);
	check_rc(ctl(e, &A, &out, "restore", "/nowhere/\x1b[2J\n" FORGED), 5,
	    out);
	assert_int_equal(assert_terminal_safe(out), 1);
	free(out);
	/* trashd's log named them all, escaped the same. */
	out = tl_read_file(e->log, &len);
	(void)assert_terminal_safe(out);
	expect_str(out, "csi\\x9b2J.txt");
	expect_str(out, "nl\\x0a2030-01-01");
	free(out);
}

static void
test_escape_json(void **state)
{
	struct env *e = *state;
	char want[PATH_MAX], *out = NULL, *b1, *b2, *b;
	const char *from;
	size_t i, nb64 = 0;

	stage_esc(e);
	check_rc(ctl(e, &A, &out, "list", "--json"), 0, out);
	/* One line, no raw control byte: JSON escapes or base64. */
	assert_int_equal(assert_terminal_safe(out), 1);
	/* Valid UTF-8 as it is, its controls as \u escapes: lossless. */
	expect_str(out, "/home/a/esc\\u001b]0;owned\\u0007.txt\"");
	expect_str(out, "/home/a/c1\\u009b2J.txt\"");
	expect_str(out, "/home/a/nl\\u000a2030-01-01");
	expect_str(out, "/home/a/caf\xc3\xa9 \xe6\x96\x87.txt\"");
	/* Lossy only with the exact bytes beside it, decoded back. */
	for (i = 0; i < ESC_N; i++) {
		tl_path(&e->t, want, sizeof(want), "%s", esc_paths[i]);
		from = strstr(out, "\"path\":");
		while (from != NULL && (b = json_b64(out, "path_b64", &from))
		    != NULL) {
			if (strcmp(b, want) == 0) {
				nb64++;
				free(b);
				break;
			}
			free(b);
		}
	}
	/* raw 0x9b, 0xff, 0xfe: the three that are not UTF-8. */
	assert_int_equal(nb64, 3);
	/* The two lossy names alike as strings, not as JSON. */
	from = strstr(out, "bad\\ufffd.txt");
	assert_non_null(from);
	b1 = json_b64(out, "path_b64", &from);
	from = strstr(from, "bad\\ufffd.txt");
	assert_non_null(from);
	b2 = json_b64(out, "path_b64", &from);
	assert_non_null(b1);
	assert_non_null(b2);
	assert_string_not_equal(b1, b2);
	free(b1);
	free(b2);
	/* The names in the trash are bytes too. */
	from = out;
	b = json_b64(out, "name_b64", &from);
	assert_non_null(b);
	assert_string_equal(b, "n0\x1b[2J\x9b\xc2\x9b\xff");
	free(b);
	free(out);
}

/*
 * A name made to read as a second record, and a request naming it: one
 * record each, the name a quoted field, escaped; never a line of its own.
 */
static void
test_audit_forge(void **state)
{
	struct env *e = *state;
	char path[PATH_MAX], *out = NULL, *json = NULL;
	const char *p;
	size_t lines;

	/* A name in the trash has no '/': the fake record's start only. */
	stage_str(e, UA, "f\n2030-01-01 00:00:00 root 1 restore", "home/a/f\n"
	    FORGED "\x9b", "x");
	wait_count(e, UA, 1);
	mkdir_as(e, "home/a", UA, 0755);
	tl_path(&e->t, path, sizeof(path), "home/a/f\n" FORGED "\x9b");
	check_rc(ctl(e, &A, &out, "restore", path), 0, out);
	free(out);
	check_rc(ctl(e, &A, &out, "restore", "/nowhere/\n" FORGED), 5, out);
	free(out);

	/* Each record one line, as many as JSON has records. */
	check_rc(ctl(e, &ROOT, &out, "audit", "-u", "70001", "--noheadings"),
	    0, out);
	check_rc(ctl(e, &ROOT, &json, "audit", "-u", "70001", "--json"), 0,
	    json);
	/* No forged line: none starts as the fake record does. */
	for (p = out; p != NULL; p = strchr(p + 1, '\n'))
		assert_true(strncmp(p[0] == '\n' ? p + 1 : p, "2030-", 5)
		    != 0);
	lines = assert_terminal_safe(out);
	assert_int_equal(lines, count_str(json, "\"id\":"));
	free(json);
	free(out);
	/* The restore: exactly one record, the name in it literally. */
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restore",
	    "--noheadings"), 0, out);
	assert_int_equal(assert_terminal_safe(out), 1);
	expect_str(out, "path=\"home/a/f\\x0a2030-01-01 00:00:00 root");
	expect_str(out, "entry=1 path=\\x22etc/shadow\\x22: ok: restored, "
	    "as uid 0\\x9b\"");
	expect_str(out, "name=\"f\\x0a2030-01-01");
	expect_str(out, " owner=70001 ");
	free(out);
	/* In JSON, the same record with the name's bytes. */
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "restore", "--json"), 0,
	    out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	p = out;
	json = json_b64(out, "path_b64", &p);
	assert_non_null(json);
	assert_string_equal(json, "home/a/f\n" FORGED "\x9b");
	free(json);
	expect_str(out, "\"entry\":");
	expect_str(out, "\"owner_uid\":70001");
	free(out);
}

/* Entry ids and counts are plain decimals: "1k" is no entry 1024. */
static void
test_ids_plain(void **state)
{
	static const char *const bad[] = { "1k", "1K", "2M", "+5", "-5", "0",
	    "", " 7", "7 ", "0x10", "99999999999999999999" };
	struct env *e = *state;
	char *out = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		check_rc(ctl(e, &A, &out, "restore", "-i", bad[i]), 2, out);
		expect_str(out, "not an entry id");
		free(out);
		check_rc(ctl(e, &A, &out, "restore", "--id", bad[i]), 2, out);
		free(out);
		check_rc(ctl(e, &A, &out, "restore", "-e", bad[i], "/x"), 2,
		    out);
		free(out);
		check_rc(ctl(e, &A, &out, "list", "-n", bad[i]), 2, out);
		free(out);
		check_rc(ctl(e, &ROOT, &out, "audit", "-n", bad[i]), 2, out);
		free(out);
	}
	/* All digits is an id, for wipe: too large is refused, not a path. */
	check_rc(ctl(e, &A, &out, "wipe", "99999999999999999999"), 2, out);
	expect_str(out, "not an entry id");
	free(out);
	check_rc(ctl(e, &A, &out, "wipe", "0"), 2, out);
	free(out);
	/* A good id still works: no such entry, not a usage error. */
	check_rc(ctl(e, &A, &out, "restore", "-i", "1024"), 5, out);
	free(out);
}

/* ==== issue 12 (base: one parser) and 13: times and sizes as typed ==== */

/*
 * Times for list, audit and restore as people type them.  A bare number
 * was seconds: "list -o 3 days" meant 3 seconds ago plus a path "days",
 * and listed nothing, successfully.  It is refused now, the unit named.
 */
static void
test_times_typed(void **state)
{
	struct env *e = *state;
	char *out = NULL, old[32];

	/* One entry of 2023, one of a minute ago. */
	stage(e, UA, "old", "home/a/old", 1700000001, "o", 1, 0644);
	stage(e, UA, "new", "home/a/new", (int64_t)time(NULL) - 60, "n", 1,
	    0644);
	wait_count(e, UA, 2);
	check_rc(ctl(e, &A, &out, "list", "--json", "-o", "3", "days"), 2,
	    out);
	expect_str(out, "3: a time needs a unit");
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "-o", "3d"), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	expect_str(out, "home/a/old\"");
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "--older-than",
	    "3 days ago"), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	expect_str(out, "home/a/old\"");
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "-N", "yesterday"), 0,
	    out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	expect_str(out, "home/a/new\"");
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "-N", "today", "-o",
	    "now"), 0, out);
	free(out);
	/* A date, with a time to the minute; either side of 2023-11-14. */
	check_rc(ctl(e, &A, &out, "list", "--json", "-o",
	    "2023-11-16T00:00"), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--json", "-o", "2023-11-13"), 0,
	    out);
	assert_int_equal(count_str(out, "\"id\":"), 0);
	free(out);
	/* Junk, a day that is not, a unit of nothing: usage errors. */
	check_rc(ctl(e, &A, &out, "list", "-o", "2023-02-30"), 2, out);
	expect_str(out, "not a time");
	free(out);
	check_rc(ctl(e, &A, &out, "list", "-N", "3y"), 2, out);
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-S", "3"), 2, out);
	expect_str(out, "needs a unit");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-S", "2 weeks ago", "-U",
	    "today"), 0, out);
	free(out);
	check_rc(ctl(e, &A, &out, "restore", "-b", "60", "/x"), 2, out);
	expect_str(out, "needs a unit");
	free(out);
	/* @SECONDS is still the exact form. */
	TL_SNPRINTF(old, sizeof(old), "@%d", 1700000002);
	check_rc(ctl(e, &A, &out, "list", "--json", "-o", old), 0, out);
	assert_int_equal(count_str(out, "\"id\":"), 1);
	free(out);
}

/* ==== issue 13, "The CLI an admin can live in" (wt-cli) ==== */

/*
 * audit filters by owner, actor, path prefix, action, result and time,
 * all at once, in trashd's query: the limit counts matching rows only.
 */
static void
test_cli_audit_filters(void **state)
{
	struct env *e = *state;
	char home_a[PATH_MAX], path[PATH_MAX], *out = NULL;

	stage_str(e, UA, "x", "home/a/x", "a's x");
	stage_str(e, UA, "y", "home/a/sub/y", "a's y");
	stage_str(e, UA, "w", "home/ab/w", "a's w, not under home/a");
	stage_str(e, UB, "z", "home/b/z", "b's z");
	wait_count(e, UA, 3);
	wait_count(e, UB, 1);
	mkdir_as(e, "home/a", UA, 0755);
	tl_path(&e->t, path, sizeof(path), "home/a/x");
	check_rc(ctl(e, &A, &out, "restore", path), 0, out);
	free(out);
	/* A's denied request, and the admin's empty of B's trash. */
	check_rc(ctl(e, &A, &out, "empty", "-u", "70002", "--yes"), 4, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "empty", "-u", "70002", "--yes"), 0,
	    out);
	free(out);
	/* The newest rows are A's, not B's. */
	check_rc(ctl(e, &A, &out, "list"), 0, out);
	free(out);

	/*
	 * Owner: B's entry, and the requests on B's trash (A's refused one
	 * too); nothing of A's.  (The test's own lists, as root, are there
	 * too: counted by action.)
	 */
	AUDIT(e, &out, "--owner", "70002");
	assert_null(strstr(out, "home/a"));
	assert_null(strstr(out, "\"trash_uid\":70001"));
	assert_null(strstr(out, "\"owner_uid\":70001"));
	free(out);
	assert_int_equal(AUDIT(e, &out, "--owner", "70002", "-A", "trashed"),
	    1);
	expect_str(out, "\"path\":\"home/b/z\"");
	free(out);
	assert_int_equal(AUDIT(e, &out, "--owner", "70002", "-A", "purged"),
	    1);
	free(out);
	assert_int_equal(AUDIT(e, &out, "--owner", "70002", "-A",
	    "ctl-empty"), 2);
	free(out);
	/* The limit applies after the filters, in the query. */
	assert_int_equal(AUDIT(e, &out, "--owner", "70002", "-n", "1"), 1);
	expect_str(out, "\"uid\":70003");
	expect_str(out, "\"action\":\"ctl-empty\"");
	free(out);
	/* Actor, result, action: each and together. */
	/* The admin's request, and the purge done on its behalf. */
	assert_int_equal(AUDIT(e, &out, "--actor", "70003"), 2);
	expect_str(out, "\"action\":\"ctl-empty\"");
	expect_str(out, "\"action\":\"purged\"");
	free(out);
	assert_int_equal(AUDIT(e, &out, "--result", "denied"), 1);
	expect_str(out, "\"uid\":70001");
	free(out);
	assert_int_equal(AUDIT(e, &out, "-u", "70001", "-r", "ok", "-A",
	    "ctl-empty"), 0);
	free(out);
	assert_int_equal(AUDIT(e, &out, "-u", "70001", "-r", "denied", "-A",
	    "ctl-empty", "-O", "70002"), 1);
	free(out);
	assert_int_equal(AUDIT(e, &out, "--result", "o"), 0);
	free(out);
	/*
	 * Path: the entries recorded under home/a (relative to their fs)
	 * and the restore request that named home/a/x (absolute); not
	 * home/ab, which only starts with the same bytes.
	 */
	tl_path(&e->t, home_a, sizeof(home_a), "home/a");
	assert_int_equal(AUDIT(e, &out, "--path", home_a), 4);
	assert_int_equal(count_str(out, "\"action\":\"trashed\""), 2);
	expect_str(out, "\"action\":\"ctl-restore\"");
	expect_str(out, "\"action\":\"restore\"");
	assert_null(strstr(out, "home/ab"));
	free(out);
	assert_int_equal(AUDIT(e, &out, "--path", path, "--action",
	    "restore", "--owner", "70001", "--actor", "70001"), 1);
	free(out);
	/*
	 * Time: all of it is from the last minutes, none from 2023.  (The
	 * queries above named home/a: their own records are under it now.)
	 */
	assert_int_equal(AUDIT(e, &out, "--path", home_a, "--since",
	    "1 hour ago", "--until", "2099-01-01", "-A", "trashed"), 2);
	free(out);
	assert_int_equal(AUDIT(e, &out, "--path", home_a, "-A",
	    "ctl-audit"), 3);
	free(out);
	assert_int_equal(AUDIT(e, &out, "--path", home_a, "--until",
	    "2023-11-14"), 0);
	free(out);
	/* The same filters as text: one line a row. */
	check_rc(ctl(e, &ROOT, &out, "audit", "-O", "70002", "-A",
	    "purged", "--noheadings"), 0, out);
	assert_int_equal(count_str(out, "\n"), 1);
	expect_str(out, "path=\"home/b/z\"");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-p", "relative/../x"), 0,
	    out);
	free(out);
	check_rc(ctl(e, &A, &out, "audit", "-O", "70001"), 4, out);
	free(out);
}

/*
 * empty --older-than, and --dry-run, which shows the same selection and
 * changes nothing: not the files, not the index, not the audit's
 * entry records.
 */
static void
test_cli_empty_older_dry(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	stage(e, UA, "old1", "home/a/old1", 1700000001, "1", 1, 0644);
	stage(e, UA, "old2", "home/a/old2", 1700000002, "2", 1, 0644);
	stage(e, UA, "new", "home/a/new", (int64_t)time(NULL) - 60, "n", 1,
	    0644);
	stage(e, UB, "bold", "home/b/bold", 1700000003, "3", 1, 0644);
	stage(e, UB, "bnew", "home/b/bnew", (int64_t)time(NULL) - 60, "n", 1,
	    0644);
	wait_count(e, UA, 3);
	wait_count(e, UB, 2);

	check_rc(ctl(e, &A, &out, "empty", "--older-than", "3d",
	    "--dry-run"), 0, out);
	expect_str(out, "home/a/old1");
	expect_str(out, "home/a/old2");
	assert_null(strstr(out, "home/a/new"));
	expect_str(out, "would empty 2 entries");
	free(out);
	check_rc(ctl(e, &A, &out, "empty", "--dry-run", "--json"), 0, out);
	expect_str(out, "\"dry_run\":true");
	expect_str(out, "\"count\":3");
	assert_int_equal(count_str(out, "\"id\":"), 3);
	free(out);
	/* An admin's dry run over everyone: no --yes needed, B's too. */
	check_rc(ctl(e, &ADM, &out, "empty", "-a", "-o", "3d", "--dry-run"),
	    0, out);
	expect_str(out, "home/b/bold");
	expect_str(out, "would empty 3 entries");
	free(out);
	/* Nothing changed: on disk, in the index, in the audit. */
	assert_true(exists_rel(e, ".trash/70001/old1"));
	assert_true(exists_rel(e, ".trash/70001/old2"));
	assert_true(exists_rel(e, ".trash/70002/bold"));
	assert_int_equal(raw_count(e, UA, NULL), 3);
	assert_int_equal(raw_count(e, UB, NULL), 2);
	check_rc(ctl(e, &A, &out, "list", "--json"), 0, out);
	assert_int_equal(count_str(out, "\"state\":\"trashed\""), 3);
	free(out);
	assert_int_equal(AUDIT(e, &out, "-A", "purged"), 0);
	free(out);
	assert_int_equal(AUDIT(e, &out, "-A", "ctl-empty", "-r", "ok"), 3);
	expect_str(out, "dry run");
	free(out);

	/* For real: only what was deleted before 3 days ago. */
	check_rc(ctl(e, &A, &out, "empty", "--older-than", "3 days ago"), 0,
	    out);
	expect_str(out, "emptied 2 entries");
	free(out);
	wait_count(e, UA, 1);
	assert_false(exists_rel(e, ".trash/70001/old1"));
	assert_false(exists_rel(e, ".trash/70001/old2"));
	assert_true(exists_rel(e, ".trash/70001/new"));
	/* The time is the list's: a bare number is refused. */
	check_rc(ctl(e, &A, &out, "empty", "-o", "3"), 2, out);
	expect_str(out, "needs a unit");
	free(out);
	assert_true(exists_rel(e, ".trash/70001/new"));
	/* Everyone's, older than 3 days, confirmed: B's old one only. */
	check_rc(ctl(e, &ADM, &out, "empty", "-a", "-o", "3d", "--yes"), 0,
	    out);
	expect_str(out, "emptied 1 entry");
	free(out);
	wait_count(e, UB, 1);
	assert_true(exists_rel(e, ".trash/70002/bnew"));
	assert_true(exists_rel(e, ".trash/70001/new"));
	/* -a is for admins. */
	check_rc(ctl(e, &A, &out, "empty", "-a", "--yes"), 4, out);
	free(out);
	assert_int_equal(raw_count(e, UB, NULL), 1);
}

/*
 * An admin emptying another user's trash, or everyone's: refused without
 * --yes when nobody is at a terminal (exit 2, nothing sent), asked for at
 * a terminal, where only "yes" goes on.  One's own trash is not asked.
 */
static void
test_cli_empty_confirm(void **state)
{
	static const char *const other[] = { "empty", "-u", "70002", NULL };
	static const char *const all[] = { "empty", "-a", NULL };
	static const char *const own[] = { "empty", NULL };
	struct env *e = *state;
	char *out = NULL;

	stage_str(e, UA, "a1", "home/a/a1", "a");
	stage_str(e, UB, "b1", "home/b/b1", "b");
	wait_count(e, UA, 1);
	wait_count(e, UB, 1);
	check_rc(run(e, &(const struct run){ .as = &ADM }, &out, other), 2,
	    out);
	expect_str(out, "--yes");
	free(out);
	check_rc(run(e, &(const struct run){ .as = &ROOT }, &out, all), 2, out);
	expect_str(out, "--yes");
	free(out);
	/* Not sent at all: no request reached trashd. */
	assert_int_equal(AUDIT(e, &out, "-A", "ctl-empty"), 0);
	free(out);
	/* A user who is no admin is not asked: trashd refuses, audited. */
	check_rc(run(e, &(const struct run){ .as = &A }, &out, other), 4, out);
	free(out);
	assert_int_equal(AUDIT(e, &out, "-A", "ctl-empty", "-r", "denied"),
	    1);
	free(out);
	check_rc(run(e, &(const struct run){ .as = &ADM, .tty = "no\n" },
	    &out, other), 2, out);
	expect_str(out, "Type yes");
	expect_str(out, "not confirmed");
	free(out);
	check_rc(run(e, &(const struct run){ .as = &ADM, .tty = "y\n" },
	    &out, all), 2, out);
	free(out);
	assert_int_equal(raw_count(e, UB, NULL), 1);
	assert_int_equal(raw_count(e, UA, NULL), 1);
	check_rc(run(e, &(const struct run){ .as = &ADM, .tty = "yes\n" },
	    &out, other), 0, out);
	expect_str(out, "emptied 1 entry");
	free(out);
	wait_count(e, UB, 0);
	assert_int_equal(raw_count(e, UA, NULL), 1);
	/* A's own: no question, even without a terminal. */
	check_rc(run(e, &(const struct run){ .as = &A }, &out, own), 0, out);
	expect_str(out, "emptied 1 entry");
	free(out);
	wait_count(e, UA, 0);
}

/*
 * ==== issue 13, "The CLI an admin can live in", the rest (wt-cli13):
 * tables through libsmartcols, JSON valid however a reply ends, users by
 * name ====
 */

/*
 * trashctl -s @sock (NULL: the env's) @args... as @w: its standard output
 * only (stderr to /dev/null: a JSON reader gets stdout), in *@out.  Its
 * exit code.
 */
static int
ctl_stdout(struct env *e, const char *sock, const struct who *w, char **out,
    const char *const *args)
{
	return run(e, &(const struct run){ .as = w, .sock = sock,
	    .stdout_only = true }, out, args);
}

/*
 * @out read by a real JSON parser (python3's): one document, d, or with
 * @nd NDJSON, one object a line, each line ended, ds; then @check, a
 * Python expression on it, must hold.  json_ok(), ndjson_ok().
 */
static void
json_check(struct env *e, const char *out, bool nd, const char *check)
{
	char file[PATH_MAX], cmd[2 * PATH_MAX + 512];
	int rc;

	TL_SNPRINTF(file, sizeof(file), "%s/reply.json", e->t.root);
	tl_write_file(file, out, strlen(out));
	if (nd)
		TL_SNPRINTF(cmd, sizeof(cmd), "python3 -c 'import json, sys; "
		    "raw = open(sys.argv[1], \"rb\").read(); "
		    "ds = [json.loads(l) for l in raw.split(b\"\\n\")[:-1]]; "
		    "sys.exit(0 if raw.endswith(b\"\\n\") and "
		    "all(isinstance(d, dict) for d in ds) and (%s) else 1)' "
		    "%s", check, file);
	else
		TL_SNPRINTF(cmd, sizeof(cmd), "python3 -c 'import json, sys; "
		    "d = json.load(open(sys.argv[1], \"rb\")); "
		    "sys.exit(0 if (%s) else 1)' %s", check, file);
	if ((rc = system(cmd)) != 0)
		fail_msg("not %s, or not (%s): exit %d:\n%s", nd ? "NDJSON" :
		    "valid JSON", check, rc, out);
}

static void
json_ok(struct env *e, const char *out, const char *check)
{
	json_check(e, out, false, check);
}

static void
ndjson_ok(struct env *e, const char *out, const char *check)
{
	json_check(e, out, true, check);
}

/*
 * A fake trashd on @sock: takes one request, answers @n messages of
 * @type (each with the attributes a real one has), then closes the
 * connection in the middle of the reply, as a trashd that died would.
 */
static pid_t
fake_trashd(const char *sock, uint16_t type, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct proto_buf b;
	char req[4096];
	pid_t pid;
	int fd, c, i, len;

	TL_SNPRINTF(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	unlink(sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid != 0) {
		close(fd);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(10);
	if ((c = accept(fd, NULL, NULL)) < 0 || read(c, req, sizeof(req)) <= 0)
		_exit(1);
	for (i = 0; i < n; i++) {
		proto_init(&b, type);
		/* Only what each reply may carry (common/proto.c). */
		if (type == MSG_POLICY) {
			proto_num(&b, A_KIND, PROTO_KIND_DEFAULT);
			proto_num(&b, A_QUOTA, 1024);
			proto_num(&b, A_RETENTION, 60);
		} else if (type == MSG_USAGE) {
			proto_num(&b, A_UID, UA);
			proto_num(&b, A_COUNT, 1);
			proto_num(&b, A_BYTES, 1);
		} else if (type == MSG_FS) {
			proto_num(&b, A_TOTAL, 1);
		} else {
			proto_num(&b, A_ID, i + 1);
			proto_num(&b, A_UID, UA);
			proto_num(&b, A_TIME, 1700000000000000000LL);
		}
		if (type == MSG_ENTRY) {
			proto_num(&b, A_SIZE, 1);
			proto_num(&b, A_FLAGS, 0);
			proto_str(&b, A_STATE, "trashed");
		} else if (type == MSG_AUDIT_ROW) {
			proto_num(&b, A_PID, 1);
			proto_str(&b, A_ACTION, "trashed");
			proto_str(&b, A_RESULT, "ok");
		}
		proto_str(&b, A_FS, "/srv");
		if (type == MSG_ENTRY || type == MSG_AUDIT_ROW) {
			/* Not UTF-8, with controls: lossless, valid JSON. */
			proto_str(&b, A_PATH,
			    "home/a/bad\xff\x1b[2J\xc2\x9b\"\\");
			proto_str(&b, A_NAME, "n\xfe");
		}
		if ((len = proto_finish(&b)) < 0 ||
		    write(c, b.data, (size_t)len) != len)
			_exit(1);
	}
	/* Half a message, then gone. */
	proto_init(&b, type);
	proto_str(&b, A_PATH, "home/a/cut");
	if ((len = proto_finish(&b)) > 8 &&
	    write(c, b.data, (size_t)len / 2) != len / 2)
		_exit(1);
	_exit(0);
}

/*
 * A reply cut in the middle (trashd died, the socket closed): --json
 * still prints one valid JSON document, the array closed and the error
 * in the same object, for every command with an array; with no element
 * yet, the error alone.  A real JSON parser reads each.
 */
static void
test_json_broken_reply(void **state)
{
	static const struct {
		const char	*args[5];
		uint16_t	 type;
		const char	*key;
	} cmds[] = {
		{ { "list", "--json", NULL }, MSG_ENTRY, "entries" },
		{ { "audit", "--json", NULL }, MSG_AUDIT_ROW, "audit" },
		{ { "quota", "--json", NULL }, MSG_USAGE, "usage" },
		{ { "status", "--json", NULL }, MSG_FS, "filesystems" },
		{ { "policy", "--json", "get", "default", NULL }, MSG_POLICY,
		    "policies" },
		{ { "empty", "--json", "--dry-run", NULL }, MSG_ENTRY,
		    "entries" },
	};
	struct env *e = *state;
	char sock[PATH_MAX], check[256], *out = NULL;
	size_t i;
	pid_t pid;
	int n;

	TL_SNPRINTF(sock, sizeof(sock), "%s/fake.sock", e->t.root);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		for (n = 0; n <= 3; n += 3) {
			pid = fake_trashd(sock, cmds[i].type, n);
			check_rc(ctl_stdout(e, sock, &ROOT, &out, cmds[i].args),
			    3, out);
			waitpid(pid, NULL, 0);
			if (n == 0)
				TL_SNPRINTF(check, sizeof(check), "list(d) == "
				    "[\"error\"] and d[\"error\"][\"message\"]");
			else
				TL_SNPRINTF(check, sizeof(check), "len(d[\"%s\"]) "
				    "== %d and d[\"error\"][\"errno\"] > 0",
				    cmds[i].key, n);
			json_ok(e, out, check);
			free(out);
		}
	}
	/* The names are still exact, in the cut reply too. */
	pid = fake_trashd(sock, MSG_ENTRY, 2);
	check_rc(ctl_stdout(e, sock, &ROOT, &out, ARGS("list", "--json")), 3,
	    out);
	waitpid(pid, NULL, 0);
	json_ok(e, out, "__import__(\"base64\").b64decode(d[\"entries\"]"
	    "[1][\"path_b64\"]) == b\"/srv/home/a/bad\\xff\\x1b[2J\\xc2\\x9b"
	    "\\\"\\\\\"");
	free(out);
	/* The real one, stopped under a list: the same shape. */
	stop(e);
	check_rc(ctl_stdout(e, NULL, &A, &out, ARGS("list", "--json")), 3, out);
	json_ok(e, out, "list(d) == [\"error\"]");
	free(out);
	start(e);
}

/* Names a terminal must not get raw, as in stage_esc(). */
static void
assert_escaped_once(const char *out)
{
	/* libsmartcols' own encoding of the '\' of ours: never. */
	if (strstr(out, "\\x5cx") != NULL)
		fail_msg("escaped twice:\n%s", out);
}

/*
 * Tables through libsmartcols: escaping exactly as strong as before
 * (ESC, BEL, raw and UTF-8 C1, bytes not UTF-8, a new line), once, in
 * the aligned table and with --raw; the columns --output picks, in its
 * order; --noheadings.
 */
static void
test_table_escape(void **state)
{
	struct env *e = *state;
	char *out = NULL, *p;
	size_t i, n, blanks;

	stage_esc(e);
	check_rc(ctl(e, &A, &out, "list"), 0, out);
	assert_int_equal(assert_terminal_safe(out), ESC_N + 2);
	expect_str(out, "esc\\x1b]0;owned\\x07.txt");
	expect_str(out, "c1\\xc2\\x9b2J.txt");
	expect_str(out, "caf\xc3\xa9 \xe6\x96\x87.txt");
	assert_escaped_once(out);
	free(out);
	/* --raw: the header, one line per entry, no total; blanks escaped. */
	check_rc(ctl(e, &A, &out, "list", "--raw", "--output",
	    "id,name,path"), 0, out);
	assert_int_equal(assert_terminal_safe(out), ESC_N + 1);
	assert_true(strncmp(out, "ID NAME PATH\n", 13) == 0);
	expect_str(out, "esc\\x1b]0;owned\\x07.txt");
	expect_str(out, "csi\\x9b2J.txt");
	expect_str(out, "c1\\xc2\\x9b2J.txt");
	expect_str(out, "bad\\xff.txt");
	expect_str(out, "nl\\x0a2030-01-01\\x2000:00:00");
	expect_str(out, " n0\\x1b[2J\\x9b\\xc2\\x9b\\xff ");
	assert_escaped_once(out);
	/* Three fields a line, however the names go. */
	for (p = out + 13, i = 0; i < ESC_N; i++) {
		n = strcspn(p, "\n");
		for (blanks = 0; n > 0; n--)
			blanks += *p++ == ' ';
		assert_int_equal(blanks, 2);
		p++;
	}
	free(out);
	/* The audit too, raw: its fields in columns, none quoted away. */
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "trashed", "--raw",
	    "--noheadings"), 0, out);
	assert_int_equal(assert_terminal_safe(out), ESC_N);
	expect_str(out, "esc\\x1b]0;owned\\x07.txt");
	assert_escaped_once(out);
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "trashed", "--output",
	    "action,path"), 0, out);
	assert_int_equal(assert_terminal_safe(out), ESC_N + 1);
	expect_str(out, "esc\\x1b]0;owned\\x07.txt");
	assert_escaped_once(out);
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "--raw", "--output",
	    "details"), 2, out);
	free(out);

	/* Columns: those named, in that order; + adds to the default. */
	check_rc(ctl(e, &A, &out, "list", "--output", "SIZE,ID", "-n", "1"),
	    0, out);
	if (strcmp(out, "SIZE ID\n  1B  7\n1 entry, 1B\n") != 0)
		fail_msg("list --output SIZE,ID:\n%s", out);
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--output", "+uid", "-n", "1"),
	    0, out);
	expect_str(out, "ID DELETED");
	expect_str(out, " PATH ");
	expect_str(out, " UID\n");
	expect_str(out, " 70001\n");
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--noheadings", "--output",
	    "id"), 0, out);
	assert_int_equal(count_str(out, "\n"), ESC_N);
	assert_null(strstr(out, "ID"));
	assert_null(strstr(out, "entries"));
	free(out);
	check_rc(ctl(e, &A, &out, "list", "--output", "id,bogus"), 2, out);
	expect_str(out, "bogus: no such column");
	free(out);
	check_rc(ctl(e, &A, &out, "quota", "--noheadings", "--output",
	    "entries,uid"), 0, out);
	expect_str(out, "7 70001\n");
	free(out);
	check_rc(ctl(e, &A, &out, "status", "--raw", "--output",
	    "entries"), 0, out);
	assert_string_equal(out, "ENTRIES\n7\n");
	free(out);
	/* -h names the columns, the default ones starred. */
	check_rc(ctl(e, &A, &out, "list", "-h"), 0, out);
	expect_str(out, "columns (--output): ID* UID USER DELETER FS PATH* "
	    "NAME TIME DELETED* SIZE* FL* STATE\n");
	free(out);
}

/*
 * Users by name where the system has one (root here), else the number;
 * JSON has the number and "user" (null without a name).
 */
static void
test_users_by_name(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	stage_str(e, 0, "r", "root/r", "root's");
	stage_str(e, UA, "a", "home/a/a", "a's");
	wait_count(e, 0, 1);
	wait_count(e, UA, 1);
	check_rc(ctl(e, &ROOT, &out, "list", "-a", "--json"), 0, out);
	expect_str(out, "\"uid\":0,\"user\":\"root\",");
	expect_str(out, "\"uid\":70001,\"user\":null,");
	json_ok(e, out, "len(d[\"entries\"]) == 2");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "list", "-a", "--output", "user,uid",
	    "--noheadings"), 0, out);
	expect_str(out, "root      0\n");
	expect_str(out, "70001 70001\n");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "quota", "-a", "--json"), 0, out);
	expect_str(out, "\"uid\":0,\"user\":\"root\",");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "status", "--json"), 0, out);
	expect_str(out, "\"uid\":0,\"user\":\"root\",");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "status"), 0, out);
	expect_str(out, "you: root (uid 0) (admin)");
	free(out);
	check_rc(ctl(e, &ROOT, &out, "audit", "-A", "trashed", "--json"), 0,
	    out);
	expect_str(out, "\"uid\":0,\"user\":\"root\",");
	expect_str(out, "\"owner_uid\":0,\"owner\":\"root\",");
	expect_str(out, "\"owner_uid\":70001,\"owner\":null,");
	json_ok(e, out, "len(d[\"audit\"]) == 2");
	free(out);
}

/*
 * ---- issue 13: NDJSON (--ndjson), one JSON object a line, for a reader
 * that streams: each entry a line, then {"end":true,...}; a reply cut
 * short ends with an {"error":...} line and no "end" ----
 */

static void
test_ndjson(void **state)
{
	static const struct {
		const char	*args[5];
		uint16_t	 type;
	} cmds[] = {
		{ { "list", "--ndjson", NULL }, MSG_ENTRY },
		{ { "audit", "--ndjson", NULL }, MSG_AUDIT_ROW },
		{ { "quota", "--ndjson", NULL }, MSG_USAGE },
		{ { "status", "--ndjson", NULL }, MSG_FS },
		{ { "policy", "--ndjson", "get", "default", NULL },
		    MSG_POLICY },
		{ { "empty", "--ndjson", "--dry-run", NULL }, MSG_ENTRY },
	};
	struct env *e = *state;
	char sock[PATH_MAX], check[256], *out = NULL;
	size_t i;
	pid_t pid;
	int n;

	/* Cut short by a dying trashd: n lines, then the error's. */
	TL_SNPRINTF(sock, sizeof(sock), "%s/fake.sock", e->t.root);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		for (n = 0; n <= 3; n += 3) {
			pid = fake_trashd(sock, cmds[i].type, n);
			check_rc(ctl_stdout(e, sock, &ROOT, &out, cmds[i].args),
			    3, out);
			waitpid(pid, NULL, 0);
			TL_SNPRINTF(check, sizeof(check), "len(ds) == %d and "
			    "list(ds[-1]) == [\"error\"] and not any(\"end\" "
			    "in d for d in ds)", n + 1);
			ndjson_ok(e, out, check);
			free(out);
		}
	}
	/* Whole: an entry a line, then the end with the count. */
	stage(e, UA, "n1", "home/a/n1", 1700000001, "1", 1, 0644);
	stage(e, UA, "n2", "home/a/n2", 1700000002, "22", 2, 0644);
	stage(e, UA, "n3", "home/a/n3", 1700000003, "333", 3, 0644);
	wait_count(e, UA, 3);
	check_rc(ctl_stdout(e, NULL, &A, &out, ARGS("list", "--ndjson")), 0,
	    out);
	ndjson_ok(e, out, "len(ds) == 4 and [d[\"path\"][-2:] for d in "
	    "ds[:3]] == [\"n1\", \"n2\", \"n3\"] and ds[3] == {\"end\": "
	    "True, \"count\": 3, \"bytes\": 6}");
	free(out);
	check_rc(ctl_stdout(e, NULL, &A, &out, ARGS("quota", "--ndjson")), 0,
	    out);
	ndjson_ok(e, out, "len(ds) >= 2 and ds[0][\"count\"] == 3 and "
	    "ds[-1][\"end\"] is True");
	free(out);
	check_rc(ctl_stdout(e, NULL, &A, &out, ARGS("status", "--ndjson")), 0,
	    out);
	ndjson_ok(e, out, "len(ds) == 2 and ds[0][\"count\"] == 3 and "
	    "ds[1][\"end\"] is True and ds[1][\"uid\"] == 70001");
	free(out);
	/* The same with the option before the command. */
	check_rc(ctl_stdout(e, NULL, &A, &out, ARGS("--ndjson", "list")), 0,
	    out);
	ndjson_ok(e, out, "len(ds) == 4 and ds[3][\"end\"] is True");
	free(out);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_running, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		/* issue 12, finding 8, and ids parsed as sizes */
		cmocka_unit_test_setup_teardown(test_escape_list_restore, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_escape_json, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_audit_forge, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ids_plain, setup,
		    teardown),
		/* issue 12 base and 13: times as typed (wt-parse) */
		cmocka_unit_test_setup_teardown(test_times_typed, setup,
		    teardown),
		/* issue 13: the CLI an admin can live in (wt-cli) */
		cmocka_unit_test_setup_teardown(test_cli_audit_filters, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cli_empty_older_dry, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cli_empty_confirm, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_json_broken_reply, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_table_escape, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_users_by_name, setup,
		    teardown),
		/* issue 13: NDJSON */
		cmocka_unit_test_setup_teardown(test_ndjson, setup, teardown),
	};

	e2e_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
