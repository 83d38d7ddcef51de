/* test_maps.c - the one /proc/PID/maps parser (src/proc/maps.c): the
 * fields of each line, the lines it must skip, sorting, lookup, and a
 * real maps file read from this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit_main.h"

#include "maps.h"

static const char sample[] =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1311 /usr/bin/prog\n"
    "55d0c0a02000-55d0c0a05000 r-xp 00002000 08:01 1311 /usr/bin/prog\n"
    "55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0          [heap]\n"
    "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
    "7f1000000000-7f1000010000 r-xp 0001a000 fd:01 424242 /tmp/lib x.so (deleted)\n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0          [stack]\n"
    "7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0          [vdso]";

/* The parse of text, which must succeed with n entries. */
static struct maps *parse(const char *text, size_t n)
{
    struct maps *m = maps_parse(text, strlen(text));

    assert_non_null(m);
    assert_int_equal(m->n, n);
    return m;
}

static void test_fields(void **state)
{
    (void)state;
    struct maps *m = parse(sample, 7);
    const struct map_entry *e = &m->v[1];
    assert_int_equal(e->start, 0x55d0c0a02000ull);
    assert_int_equal(e->end, 0x55d0c0a05000ull);
    assert_int_equal(e->offset, 0x2000);
    assert_int_equal(e->inode, 1311);
    assert_true(e->r && !e->w && e->x);
    assert_string_equal(e->path, "/usr/bin/prog");
    /* anonymous: empty path, inode 0; a path keeps its spaces and suffix */
    assert_string_equal(m->v[3].path, "");
    assert_int_equal(m->v[3].inode, 0);
    assert_true(m->v[3].w && m->v[3].x);
    assert_string_equal(m->v[4].path, "/tmp/lib x.so (deleted)");
    assert_int_equal(m->v[4].offset, 0x1a000);
    assert_int_equal(m->v[4].inode, 424242);
    /* the last line needs no newline */
    assert_string_equal(m->v[6].path, "[vdso]");
    /* the raw text is kept, NUL-terminated */
    assert_int_equal(m->text_len, strlen(sample));
    assert_string_equal(m->text, sample);
    maps_free(m);
}

static void test_bad_lines(void **state)
{
    (void)state;
    static const char text[] =
        "\n"
        "garbage\n"
        "1000-2000\n"                                   /* cut short */
        "3000-2000 r-xp 00000000 08:01 5 /backwards\n"  /* end <= start */
        "4000-4000 r-xp 00000000 08:01 5 /empty\n"
        "zz00-5000 r-xp 00000000 08:01 5 /badhex\n"
        "5000-6000 r-x 00000000 08:01 5 /shortperms\n"
        "6000-7000 r-xp 00000000 08:01 /noinode\n"
        "7000-8000 r-xp 00000000 08:01 7 /good\n";
    struct maps *m = parse(text, 1);

    assert_string_equal(m->v[0].path, "/good");
    maps_free(m);

    m = parse("", 0);
    assert_null(maps_find(m, 0x1000));
    maps_free(m);
}

static void test_sort_and_find(void **state)
{
    (void)state;
    static const char text[] =
        "9000-a000 r-xp 00000000 08:01 3 /c\n"
        "1000-2000 r-xp 00000000 08:01 1 /a\n"
        "5000-6000 r-xp 00001000 08:01 2 /b\n"
        "6000-7000 r-xp 00002000 08:01 2 /b\n";
    struct maps *m = parse(text, 4);

    for (size_t i = 1; i < m->n; i++)
        assert_true(m->v[i - 1].start < m->v[i].start);
    assert_string_equal(maps_find(m, 0x1000)->path, "/a");
    assert_string_equal(maps_find(m, 0x1fff)->path, "/a");
    assert_null(maps_find(m, 0x2000));   /* end is exclusive */
    assert_null(maps_find(m, 0xfff));
    assert_int_equal(maps_find(m, 0x6000)->offset, 0x2000);
    assert_string_equal(maps_find(m, 0x9abc)->path, "/c");
    assert_null(maps_find(m, 0xa000));
    assert_null(maps_find(NULL, 0x1000));
    /* the first mapping of a file */
    assert_int_equal(maps_find_path(m, "/b")->offset, 0x1000);
    assert_null(maps_find_path(m, "/d"));
    maps_free(m);
}

static void test_same(void **state)
{
    (void)state;
    struct maps *a = maps_parse(sample, strlen(sample));
    struct maps *b = maps_parse(sample, strlen(sample));
    struct maps *c = maps_parse(sample, strlen(sample) - 1);

    assert_true(maps_same(a, b));
    assert_false(maps_same(a, c));
    assert_false(maps_same(a, NULL));
    assert_true(maps_same(NULL, NULL));
    maps_free(a);
    maps_free(b);
    maps_free(c);
    maps_free(NULL);
}

/* This process's own maps: the code of this function and the stack of
 * this call are found, and the thread's maps read the same. */
static void test_read_self(void **state)
{
    (void)state;
    int local = 0;
    struct maps *m = maps_read(getpid());

    assert_non_null(m);
    assert_true(m->n > 5);
    const struct map_entry *code = maps_find(m, (uint64_t)(uintptr_t)test_read_self);
    assert_non_null(code);
    assert_true(code->x);
    assert_int_equal(code->path[0], '/');
    assert_true(code->inode != 0);
    const struct map_entry *stack = maps_find(m, (uint64_t)(uintptr_t)&local);
    assert_non_null(stack);
    assert_true(stack->r && stack->w);
    struct maps *t = maps_read_task(getpid(), getpid());
    assert_non_null(t);
    assert_non_null(maps_find(t, (uint64_t)(uintptr_t)test_read_self));
    maps_free(t);
    maps_free(m);

    assert_null(maps_read(0x7ffffff0));   /* no such process */
}

/* maps_still_mapped: what /proc no longer shows is dropped, whole; what
 * only /proc shows is not taken in. */
static void test_still_mapped(void **state)
{
    (void)state;
    static const char recs[] =
        "1000-2000 r-xp 00000000 00:00 11   /lib/libA.so\n"
        "2000-3000 r--p 00001000 00:00 11   /lib/libA.so\n"
        "3000-4000 r-xp 00001000 00:00 12   /lib/libB.so\n"
        "5000-6000 r-xp 00000000 00:00 0\n"
        "7000-8000 r-xp 00000000 00:00 13   /bin/app\n";
    static const char now[] =
        "1000-1800 r-xp 00000000 08:01 99   /lib/libC.so\n" /* A's place */
        "2000-3000 r--p 00000000 08:01 12   /lib/libB.so\n" /* B's header */
        "3000-3800 r-xp 00001000 08:01 12   /lib/libB.so\n" /* B, split */
        "3800-4000 r--p 00001800 08:01 12   /lib/libB.so\n"
        "5000-6000 r-xp 00000000 00:00 0\n"
        "9000-a000 r-xp 00000000 08:01 14   /lib/new.so\n";
    struct maps *r = maps_parse(recs, sizeof recs - 1);
    struct maps *n = maps_parse(now, sizeof now - 1);
    assert_non_null(r);
    assert_non_null(n);
    assert_true(maps_has_data_segments(r));       /* libA's r--p */
    assert_false(maps_has_data_segments(NULL));
    struct maps *k = maps_still_mapped(r, n, false);
    assert_non_null(k);
    assert_int_equal(k->n, 2);                    /* nothing of now added */
    assert_false(maps_has_data_segments(k));      /* code alone */
    assert_int_equal(k->v[0].start, 0x3000);
    assert_int_equal(k->v[1].start, 0x5000);
    maps_free(k);
    k = maps_still_mapped(r, n, true);
    assert_non_null(k);
    assert_int_equal(k->n, 3);
    assert_int_equal(k->v[0].start, 0x2000);     /* B's, where A's was */
    assert_string_equal(k->v[0].path, "/lib/libB.so");
    assert_false(k->v[0].x);
    assert_int_equal(k->v[1].start, 0x3000);
    assert_int_equal(k->v[1].end, 0x4000);       /* whole, as the records */
    assert_int_equal(k->v[1].offset, 0x1000);
    assert_string_equal(k->v[1].path, "/lib/libB.so");
    assert_int_equal(k->v[2].start, 0x5000);     /* anonymous code stays */
    assert_null(maps_find(k, 0x1000));            /* libA: unmapped */
    assert_null(maps_find(k, 0x7000));            /* app: gone */
    assert_null(maps_find(k, 0x9000));            /* not taken from now */
    maps_free(k);
    struct maps *none = maps_parse("", 0);
    k = maps_still_mapped(r, none, true);
    assert_non_null(k);
    assert_int_equal(k->n, 0);
    maps_free(k);
    maps_free(none);
    maps_free(n);
    maps_free(r);
}

UNIT_MAIN(
    cmocka_unit_test(test_fields),
    cmocka_unit_test(test_bad_lines),
    cmocka_unit_test(test_sort_and_find),
    cmocka_unit_test(test_same),
    cmocka_unit_test(test_read_self),
    cmocka_unit_test(test_still_mapped))
