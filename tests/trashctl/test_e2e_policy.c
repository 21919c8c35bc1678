/* SPDX-License-Identifier: ISC */
/*
 * Policies, end to end (e2e.h has the fixture and says where other tests
 * go): policy set and get, and quota, for the default, a user and the
 * watermarks; kept across restarts, for admins only, audited once;
 * quotas and durations refused or echoed as typed; trashd.conf's limits
 * refused when they say 0, shown as the file writes them.  A new policy
 * setting gets its tests here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/*
 * Policies set over the socket: the defaults and the watermarks too,
 * kept in the index across restarts, over trashd.conf's (which says
 * "retention forever", "watermark 0%" and no quota); a user's own beats
 * the default.  Admins only, audited.
 */
static void
test_policy_defaults(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	stage_str(e, UA, "doc.txt", "home/a/doc.txt", "A's doc");
	wait_count(e, UA, 1);
	check_rc(ctl(e, &A, &out, "quota", "--json"), 0, out);
	expect_str(out, "\"quota\":0,\"retention\":0}");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "quota",
	    "2M", "retention", "400w"), 0, out);
	expect_str(out, "default: quota 2M, retention 400w");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "watermark",
	    "7%", "fs", e->t.fs), 0, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "watermark",
	    "3%"), 0, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "watermark",
	    "101%"), 2, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "watermark",
	    "5%", "fs", "/nonexistent"), 5, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "watermark", "5%"), 2, out);
	free(out);

	/* Kept in the index: the same after a restart. */
	stop(e);
	start(e);
	check_rc(ctl(e, &A, &out, "quota", "--json"), 0, out);
	expect_str(out, "\"quota\":2097152,\"retention\":241920000}");
	free(out);
	check_rc(ctl(e, &A, &out, "status", "--json"), 0, out);
	expect_str(out, "\"watermark\":7,");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "default"), 0, out);
	expect_str(out, "default: quota 2M, retention 400w");
	expect_str(out, "default watermark on every filesystem: 3% free");
	expect_str(out, "default watermark on ");
	expect_str(out, ": 7% free");
	expect_str(out, "trashd.conf: quota unlimited, retention forever");
	expect_str(out, "trashd.conf watermark on ");
	expect_str(out, ": off");
	free(out);

	/* The user's own beats the default; unset, the default is back. */
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "quota", "1M"), 0, out);
	free(out);
	check_rc(ctl(e, &A, &out, "quota", "--json"), 0, out);
	expect_str(out, "\"quota\":1048576,\"retention\":241920000}");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "quota", "inherit"), 0, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "quota",
	    "inherit", "retention", "inherit", "watermark", "inherit", "fs",
	    e->t.fs), 0, out);
	free(out);
	check_rc(ctl(e, &A, &out, "quota", "--json"), 0, out);
	expect_str(out, "\"quota\":0,\"retention\":0}");
	free(out);
	/* The one for every filesystem, then the config's. */
	check_rc(ctl(e, &A, &out, "status", "--json"), 0, out);
	expect_str(out, "\"watermark\":3,");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "watermark",
	    "inherit"), 0, out);
	free(out);
	check_rc(ctl(e, &A, &out, "status", "--json"), 0, out);
	expect_str(out, "\"watermark\":0,");
	free(out);

	/* Users may not; every change is audited. */
	check_rc(ctl(e, &A, &out, "policy", "set", "default", "retention",
	    "1d"), 4, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "audit", "-n", "1000"), 0, out);
	expect_str(out, "ctl-policy-set default: ok: quota=2097152");
	expect_str(out, "watermark all");
	expect_str(out, "ctl-policy-set user 70001: ok: quota=-1 "
	    "retention=-1");
	free(out);
	check_rc(ctl(e, &ADM, &out, "audit", "-u", "70001", "-n", "1000"), 0,
	    out);
	expect_str(out, "ctl-policy-set");
	expect_str(out, "denied");
	free(out);
}

/* ==== issue 12 (base: one parser) and 13: times and sizes as typed ==== */

/*
 * policy set: a quota or retention of 0 meant none / forever, silently.
 * Refused now, naming the words, which are accepted; and a duration is
 * echoed as it was typed (90d, not 12w).
 */
static void
test_policy_typed(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "quota", "0"), 2, out);
	expect_str(out, "say unlimited");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "retention", "0"), 2, out);
	expect_str(out, "say forever");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "retention",
	    "0s"), 2, out);
	expect_str(out, "say forever");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "retention", "30"), 2, out);
	expect_str(out, "needs a unit");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "quota", "1.5G"), 2, out);
	expect_str(out, "1536M");
	free(out);
	/* Nothing of the refused ones was stored. */
	check_rc(ctl(e, &ADM, &out, "policy", "get", "user", "70001"), 0,
	    out);
	expect_str(out, "quota inherit, retention inherit");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "quota", "unlimited", "retention", "90d"), 0, out);
	expect_str(out, "quota unlimited, retention 90d");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70002",
	    "quota", "1536M", "retention", "forever"), 0, out);
	expect_str(out, "quota 1536M, retention forever");
	free(out);
	check_rc(ctl(e, &A, &out, "quota"), 0, out);
	expect_str(out, "unlimited");
	expect_str(out, "90d");
	free(out);
}

/*
 * trashd(8) -n and a real start on a trashd.conf with "retention 0" on
 * line 4: refused with FILE:LINE (it silently meant forever); so are
 * "quota 0" and a timeout without its unit.
 */
static void
test_conf_zero(void **state)
{
	static const char *const bad[][2] = {
		{ "retention 0", "say forever" },
		{ "quota 0", "say unlimited" },
		{ "client-timeout 30", "needs a unit" },
	};
	struct env *e = *state;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		conf_refused(e, "zero", bad[i][0], 4, bad[i][1]);
	/* The words are accepted. */
	conf_accepted(e, "zero", "retention forever\nquota unlimited");
}

/* ==== issue 13, "The CLI an admin can live in" (wt-cli) ==== */

/*
 * policy set prints its result once, and is recorded once: it was two
 * lines for limits and a watermark set together, and two audit rows per
 * set (the store's "policy-set" and the request's "ctl-policy-set").
 */
static void
test_cli_policy_once(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "quota",
	    "1G", "watermark", "5%"), 0, out);
	assert_int_equal(count_str(out, "\n"), 1);
	expect_str(out, "default: quota 1G, retention inherit; watermark on "
	    "every filesystem: 5% free\n");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "--json", "set", "default",
	    "watermark", "6%", "fs", e->t.fs, "retention", "2w"), 0, out);
	assert_int_equal(count_str(out, "\"kind\":"), 1);
	expect_str(out, "\"watermark\":6");
	expect_str(out, "\"retention\":1209600");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "quota", "3M"), 0, out);
	assert_int_equal(count_str(out, "\n"), 1);
	free(out);
	/* One record per set, none twice. */
	assert_int_equal(AUDIT(e, &out, "-u", "70003"), 3);
	assert_int_equal(count_str(out, "watermark=5 quota=1073741824"), 1);
	assert_int_equal(count_str(out, "quota=3145728"), 1);
	assert_int_equal(count_str(out, "\"action\":\"ctl-policy-set\""), 3);
	free(out);
	/* Still all or nothing: a bad fs sets no quota either. */
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "quota",
	    "7M", "watermark", "5%", "fs", "/nonexistent"), 5, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "default"), 0, out);
	expect_str(out, "default: quota 1G, retention 2w\n");
	free(out);
}

/*
 * Durations and sizes shown as they were given: 7d stays 7d (not 1w),
 * 1024M stays 1024M (not 1G), in policy get and set, in quota, in JSON,
 * across a restart; a text that does not say the number is refused.
 */
static void
test_cli_duration_as_given(void **state)
{
	struct env *e = *state;
	struct proto_client c;
	struct proto_buf b;
	char *out = NULL;
	int64_t err;

	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "retention", "7d", "quota", "1024M"), 0, out);
	expect_str(out, "user 70001: quota 1024M, retention 7d\n");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "default", "retention",
	    "90d"), 0, out);
	expect_str(out, "retention 90d");
	free(out);
	/* A value not given keeps its text. */
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70002",
	    "retention", "14 days"), 0, out);
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70002",
	    "quota", "2G"), 0, out);
	expect_str(out, "quota 2G, retention 14 days\n");
	free(out);
	stop(e);
	start(e);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "user", "70001"), 0,
	    out);
	expect_str(out, "quota 1024M, retention 7d\n");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "default"), 0, out);
	expect_str(out, "default: quota inherit, retention 90d\n");
	free(out);
	/* The effective values, with theirs: A's own, UNOT's the default. */
	check_rc(ctl(e, &A, &out, "quota"), 0, out);
	expect_str(out, " 7d\n");
	expect_str(out, " 1024M ");
	free(out);
	check_rc(ctl(e, &NOT, &out, "quota", "--json"), 0, out);
	expect_str(out, "\"retention_text\":\"90d\",\"quota\":0,"
	    "\"retention\":7776000}");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "--json", "get", "user",
	    "70001"), 0, out);
	expect_str(out, "\"quota_text\":\"1024M\",\"retention_text\":"
	    "\"7d\",\"quota\":1073741824,\"retention\":604800");
	free(out);
	/* A text that is not the number: refused, nothing stored. */
	assert_int_equal(raw_connect(e, &c), 0);
	proto_init(&b, MSG_POLICY_SET);
	proto_num(&b, A_KIND, PROTO_KIND_USER);
	proto_num(&b, A_XID, UA);
	proto_num(&b, A_RETENTION, 604800);
	proto_str(&b, A_RETENTION_TEXT, "1d");
	assert_int_equal(proto_send(&c, &b), 0);
	err = raw_error(&c);
	proto_close(&c);
	assert_int_equal(err, EINVAL);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "user", "70001"), 0,
	    out);
	expect_str(out, "retention 7d\n");
	free(out);
	/* Unset, the text goes with the value. */
	check_rc(ctl(e, &ADM, &out, "policy", "set", "user", "70001",
	    "retention", "inherit"), 0, out);
	expect_str(out, "quota 1024M, retention inherit\n");
	free(out);
}

/* ==== issue 13, the CLI, the rest (wt-cli13): trashd.conf's limits ==== */

/*
 * trashd.conf's quota and retention shown by "policy get default" as the
 * file says them: 14d, not 2w; 1024M, not 1G.
 */
static void
test_conf_as_written(void **state)
{
	struct env *e = *state;
	char buf[2 * PATH_MAX + 512], *out = NULL;

	stop(e);
	TL_SNPRINTF(buf, sizeof(buf), "database %s\nfilesystem %s\nsocket %s\n"
	    "admin-group %d\nclient-timeout %ds\nretention 14d\n"
	    "quota 1024M\nwatermark 0%%\ngrace 1h\n", e->t.db, e->t.fs,
	    e->sock, GADM, TIMEOUT);
	tl_write_file(e->conf, buf, strlen(buf));
	start(e);
	check_rc(ctl(e, &ADM, &out, "policy", "get", "default"), 0, out);
	expect_str(out, "trashd.conf: quota 1024M, retention 14d\n");
	free(out);
	check_rc(ctl(e, &ADM, &out, "policy", "--json", "get", "default"), 0,
	    out);
	expect_str(out, "\"kind\":\"config\",\"quota_text\":\"1024M\","
	    "\"retention_text\":\"14d\",\"quota\":1073741824,"
	    "\"retention\":1209600");
	free(out);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_policy_defaults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_policy_typed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_conf_zero, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cli_policy_once, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cli_duration_as_given,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_conf_as_written, setup,
		    teardown),
	};

	e2e_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
