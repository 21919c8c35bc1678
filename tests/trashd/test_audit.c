/* SPDX-License-Identifier: ISC */
/* audit.c: rows, queries, escaping of user-made names, retention. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

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
	assert_string_equal(rows[1].target, "z");
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

static void
test_vis(void **state)
{
	struct entry e = { .id = 5, .trash_uid = 1000,
	    .name = "evil\nname\x1b[31m\\", .orig_path = NULL };
	char *s;

	(void)state;
	s = audit_vis("a\nb\\c\x7f");
	assert_string_equal(s, "a\\x0ab\\x5cc\\x7f");
	free(s);
	s = audit_entry_target(NULL, &e);
	assert_null(strchr(s, '\n'));
	assert_null(strchr(s, '\x1b'));
	assert_non_null(strstr(s, "path=(unknown)"));
	assert_non_null(strstr(s, "uid=1000"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_query_expire),
		cmocka_unit_test(test_vis),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
