/* SPDX-License-Identifier: ISC */
/* index.c: rows in and out, filters, usage, one live row per inode. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

struct state {
	struct tl	t;
	struct db	*db;
	int64_t		fs;
};

static int
setup(void **state)
{
	struct state *s = xcalloc(1, sizeof(*s));
	char err[512];

	tl_setup(&s->t);
	assert_int_equal(db_open(s->t.db, 0, &s->db, err, sizeof(err)), 0);
	assert_int_equal(index_fs_id(s->db, "/home", &s->fs), 0);
	*state = s;
	return 0;
}

static int
teardown(void **state)
{
	struct state *s = *state;

	db_close(s->db);
	tl_teardown(&s->t);
	free(s);
	return 0;
}

static void
add(struct state *s, struct entry *e, uint32_t uid, const char *name,
    uint64_t ino, int64_t t, int64_t size, uint32_t flags)
{
	memset(e, 0, sizeof(*e));
	e->fs_id = s->fs;
	e->trash_uid = uid;
	e->owner_uid = uid;
	e->deleter_uid = uid;
	e->name = (char *)name;
	e->orig_path = NULL;
	e->deleted_ns = t;
	e->size = size;
	e->alloc = size;
	e->flags = flags;
	e->state = ENTRY_TRASHED;
	e->ident.dev = 7;
	e->ident.ino = ino;
	e->generation = -1;
	assert_int_equal(index_insert(s->db, e), 0);
	assert_true(e->id > 0);
}

static void
test_roundtrip(void **state)
{
	struct state *s = *state;
	struct entry e, g;
	int64_t id2;

	assert_int_equal(index_fs_id(s->db, "/home", &id2), 0);
	assert_int_equal(id2, s->fs);	/* same path, same id */
	memset(&e, 0, sizeof(e));
	e.fs_id = s->fs;
	e.trash_uid = 1000;
	e.owner_uid = 1001;
	e.deleter_uid = -1;
	e.name = "caf\xc3\xa9 'quoted'; DROP TABLE entries; --";
	e.orig_path = "home/alice/x";
	e.deleted_ns = 1234567890123456789LL;
	e.size = 42;
	e.alloc = 4096;
	e.flags = 3;
	e.state = ENTRY_TRASHED;
	e.ident.dev = 64768;
	e.ident.ino = 1ULL << 40;
	e.generation = 99;
	assert_int_equal(index_insert(s->db, &e), 0);
	assert_int_equal(index_get(s->db, e.id, &g), 0);
	assert_string_equal(g.name, e.name);
	assert_string_equal(g.orig_path, "home/alice/x");
	assert_int_equal(g.trash_uid, 1000);
	assert_int_equal(g.owner_uid, 1001);
	assert_int_equal(g.deleter_uid, -1);
	assert_int_equal(g.deleted_ns, e.deleted_ns);
	assert_int_equal(g.size, 42);
	assert_int_equal(g.alloc, 4096);
	assert_int_equal(g.flags, 3);
	assert_int_equal(g.state, ENTRY_TRASHED);
	assert_int_equal(g.ident.dev, 64768);
	assert_int_equal(g.ident.ino, 1ULL << 40);
	assert_int_equal(g.generation, 99);
	entry_clear(&g);

	/* One live row per inode: a second is refused. */
	e.name = "other";
	assert_int_equal(index_insert(s->db, &e), -EEXIST);
	assert_int_equal(index_find_live(s->db, s->fs, 1ULL << 40, &g), 0);
	assert_string_equal(g.name, "caf\xc3\xa9 'quoted'; DROP TABLE entries; --");
	entry_clear(&g);

	/* Once it left, the inode may come back as a new row. */
	assert_int_equal(index_set_state(s->db, e.id, ENTRY_RESTORED), 0);
	assert_int_equal(index_find_live(s->db, s->fs, 1ULL << 40, &g),
	    -ENOENT);
	assert_int_equal(index_insert(s->db, &e), 0);
	assert_int_equal(index_set_state(s->db, 999999, ENTRY_PURGED),
	    -ENOENT);
}

static void
test_list_usage(void **state)
{
	struct state *s = *state;
	struct index_filter f = { .fs_id = -1, .uid = 2000 };
	struct entry e[4], g;
	struct entry_list l;
	struct usage u, *all;
	size_t n, i;

	add(s, &e[0], 2000, "c", 10, 300, 30, 0);
	add(s, &e[1], 2000, "a", 11, 100, 10, 1);
	add(s, &e[2], 2001, "b", 12, 200, 20, 0);
	add(s, &e[3], 2000, "d", 13, 400, 40, 1);
	assert_int_equal(index_set_state(s->db, e[3].id, ENTRY_WIPING), 0);

	/* Oldest first. */
	assert_int_equal(index_list(s->db, &f, &l), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].name, "a");
	assert_string_equal(l.v[1].name, "c");
	assert_string_equal(l.v[2].name, "d");
	entry_list_free(&l);

	f.states = ENTRY_LIVE;
	f.flags_set = 1;
	assert_int_equal(index_list(s->db, &f, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].name, "a");
	entry_list_free(&l);

	f.flags_set = 0;
	f.before_ns = 300;
	assert_int_equal(index_list(s->db, &f, &l), 0);
	assert_int_equal(l.n, 1);
	entry_list_free(&l);

	f.before_ns = 0;
	f.limit = 1;
	f.uid = -1;
	assert_int_equal(index_list(s->db, &f, &l), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].name, "a");
	entry_list_free(&l);

	assert_int_equal(index_usage(s->db, s->fs, 2000, &u), 0);
	assert_int_equal(u.count, 2);	/* the wiping one is not counted */
	assert_int_equal(u.bytes, 40);
	assert_int_equal(index_usage_all(s->db, s->fs, &all, &n), 0);
	for (i = 0; i < n; i++)
		if (all[i].uid == 2001)
			assert_int_equal(all[i].bytes, 20);
	free(all);

	assert_int_equal(index_find_name(s->db, s->fs, 2000, "c", &g), 0);
	assert_int_equal(g.id, e[0].id);
	entry_clear(&g);
	assert_int_equal(index_find_name(s->db, s->fs, 2001, "c", &g),
	    -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_list_usage),
	};

	log_init(1, 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
