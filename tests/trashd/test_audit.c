/* SPDX-License-Identifier: ISC */
/*
 * audit.c: rows as fields, queries, retention; and common/vis.c, the one
 * escaping of user-made names for terminals and logs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"
#include "vis.h"

static void
test_rows_query_expire(void **state)
{
	struct tl t;
	struct trashd d;
	struct audit_row *rows;
	size_t n;
	int64_t before, mid;

	(void)state;
	tl_setup(&t);
	tl_open(&t, &d, tl_config(&t), NULL);
	before = now_ns();
	assert_int_equal(audit_log(&d, 1000, 77, "restore", "x", "ok"), 0);
	assert_int_equal(audit_log(&d, 0, 1, "purged", "y", "ok: quota"), 0);
	mid = now_ns();
	assert_int_equal(audit_log(&d, 1000, 78, "wipe-request", "z", "ok"),
	    0);

	assert_int_equal(audit_query(&d, 0, 1000, 0, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].action, "restore");
	assert_int_equal(rows[0].pid, 77);
	assert_true(rows[0].time_ns >= before);
	assert_string_equal(rows[1].detail, "z");
	assert_null(rows[1].path);
	assert_int_equal(rows[1].entry_id, -1);
	audit_rows_free(rows, n);
	assert_int_equal(audit_query(&d, mid, -1, 0, &rows, &n), 0);
	assert_int_equal(n, 1);
	audit_rows_free(rows, n);
	assert_int_equal(audit_query(&d, 0, -1, 2, &rows, &n), 0);
	assert_int_equal(n, 2);
	audit_rows_free(rows, n);

	/* Retention: rows older than audit-retention go, newer stay. */
	d.conf->audit_retention = 3600;
	assert_int_equal(audit_expire(&d, mid + 3600 * NSEC_PER_SEC), 0);
	assert_int_equal(audit_query(&d, 0, -1, 0, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].action, "wipe-request");
	audit_rows_free(rows, n);
	d.conf->audit_retention = 0;	/* forever */
	assert_int_equal(audit_expire(&d, INT64_MAX), 0);
	assert_int_equal(audit_query(&d, 0, -1, 0, &rows, &n), 0);
	assert_int_equal(n, 1);
	audit_rows_free(rows, n);
	daemon_close(&d);
	tl_teardown(&t);
}

/* The inverse of vis_str(): \xHH back to its byte. */
static char *
unvis(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	unsigned v;

	assert_non_null(out);
	while (*s != '\0') {
		if (*s == '\\') {
			/* An escape is always \xHH: nothing else follows a \. */
			assert_int_equal(s[1], 'x');
			assert_int_equal(sscanf(s + 2, "%2x", &v), 1);
			*o++ = (char)v;
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* Nothing a terminal would act on: valid UTF-8 of safe characters. */
static void
assert_terminal_safe(const char *s)
{
	uint32_t cp;
	size_t n;

	while (*s != '\0') {
		n = vis_utf8(s, &cp);
		assert_true(n > 0);
		assert_false(vis_cp_unsafe(cp));
		s += n;
	}
}

static void
test_vis(void **state)
{
	static const struct {
		const char	*in;
		int		 flags;
		const char	*want;
	} cases[] = {
		{ "plain.txt", 0, "plain.txt" },
		{ "caf\xc3\xa9 \xe6\x96\x87\xe4\xbb\xb6", 0,
		    "caf\xc3\xa9 \xe6\x96\x87\xe4\xbb\xb6" },	/* café 文件 */
		{ "\xf0\x9f\x98\x80", 0, "\xf0\x9f\x98\x80" },	/* emoji */
		{ "a\x1b]0;pwned\x07z", 0, "a\\x1b]0;pwned\\x07z" },
		{ "x\ny\r\t", 0, "x\\x0ay\\x0d\\x09" },
		{ "del\x7f", 0, "del\\x7f" },
		{ "raw\x9b" "31m", 0, "raw\\x9b31m" },		/* raw C1 CSI */
		{ "utf\xc2\x9b" "31m", 0, "utf\\xc2\\x9b31m" },	/* U+009B */
		{ "\xc2\x80\xc2\x9f\xc2\xa0", 0,
		    "\\xc2\\x80\\xc2\\x9f\xc2\xa0" },		/* C1 edges, NBSP */
		{ "bad\xff", 0, "bad\\xff" },
		{ "\xc0\xaf", 0, "\\xc0\\xaf" },		/* overlong '/' */
		{ "\xed\xa0\x80", 0, "\\xed\\xa0\\x80" },	/* a surrogate */
		{ "\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80" },	/* > U+10FFFF */
		{ "cut\xe6\x96", 0, "cut\\xe6\\x96" },
		{ "txt.\xe2\x80\xae" "exe", 0, "txt.\\xe2\\x80\\xaeexe" },	/* RLO */
		{ "back\\slash", 0, "back\\x5cslash" },
		{ "\\x41", 0, "\\x5cx41" },
		{ "a b\"c", 0, "a b\"c" },
		{ "a b\"c", VIS_SP, "a\\x20b\"c" },
		{ "a b\"c", VIS_DQ, "a b\\x22c" },
		{ "", 0, "" },
	};
	char buf[VIS_LEN(64)], small[8], *back;
	unsigned char raw[65];
	size_t i, j, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = vis_str(buf, sizeof(buf), cases[i].in, cases[i].flags);
		assert_string_equal(buf, cases[i].want);
		assert_int_equal(n, strlen(cases[i].want));
		assert_terminal_safe(buf);
		back = unvis(buf);
		assert_string_equal(back, cases[i].in);
		free(back);
	}
	/* Cut short: whole escapes and characters only, the full length. */
	n = vis_str(small, sizeof(small), "ab\x1b\x1b", 0);
	assert_int_equal(n, 10);
	assert_string_equal(small, "ab\\x1b");
	n = vis_str(small, sizeof(small), "abcdef\xc3\xa9", 0);
	assert_string_equal(small, "abcdef");
	/* Any bytes: readable back exactly, nothing raw for a terminal. */
	srandom(12);
	for (i = 0; i < 2000; i++) {
		for (j = 0; j < 64; j++)
			raw[j] = (unsigned char)(random() % 255 + 1);
		raw[random() % 65] = '\0';
		raw[64] = '\0';
		vis_str(buf, sizeof(buf), (char *)raw, 0);
		assert_terminal_safe(buf);
		back = unvis(buf);
		assert_string_equal(back, (char *)raw);
		free(back);
	}
}

static void
test_b64(void **state)
{
	static const char *const cases[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
		{ "\xff\xfe", "//4=" }, { "\x9b\x1b", "mxs=" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(vis_b64(buf, sizeof(buf), cases[i][0],
		    strlen(cases[i][0])), strlen(cases[i][1]));
		assert_string_equal(buf, cases[i][1]);
	}
	assert_true(vis_utf8_valid("caf\xc3\xa9"));
	assert_false(vis_utf8_valid("caf\xe9"));
	assert_false(vis_utf8_valid("\x9b"));
}

/*
 * A name made to read as a second record is one record, its bytes a
 * field: nothing of it is parsed, formatted or split again.
 */
static void
test_fields(void **state)
{
	static const char forged[] = "x.txt: ok\n2025-01-01 00:00:00 root"
	    "           1 restore        entry=1: ok \xff\x9b\x1b[2J";
	struct entry e = { .id = 42, .trash_uid = 1000, .owner_uid = 1001,
	    .name = (char *)forged, .orig_path = (char *)"home/u/\xc2\x9b" };
	struct tfs fs = { 0 };
	struct tl t;
	struct trashd d;
	struct audit_row *rows;
	size_t n;

	(void)state;
	tl_setup(&t);
	tl_open(&t, &d, tl_config(&t), NULL);
	fs.path = t.fs;
	assert_int_equal(audit_entry(&d, 1000, 7, "restore", &fs, &e,
	    "ok: restored"), 0);
	assert_int_equal(audit_log(&d, 0, 1, "policy-set", "user 1000",
	    "ok"), 0);
	assert_int_equal(audit_query(&d, 0, -1, 0, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].entry_id, 42);
	assert_int_equal(rows[0].trash_uid, 1000);
	assert_int_equal(rows[0].owner_uid, 1001);
	assert_string_equal(rows[0].fs, t.fs);
	assert_string_equal(rows[0].name, forged);
	assert_string_equal(rows[0].path, "home/u/\xc2\x9b");
	assert_string_equal(rows[0].result, "ok: restored");
	assert_null(rows[0].detail);
	assert_int_equal(rows[1].entry_id, -1);
	assert_null(rows[1].name);
	assert_null(rows[1].path);
	assert_string_equal(rows[1].detail, "user 1000");
	audit_rows_free(rows, n);
	daemon_close(&d);
	tl_teardown(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_query_expire),
		cmocka_unit_test(test_vis),
		cmocka_unit_test(test_b64),
		cmocka_unit_test(test_fields),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
