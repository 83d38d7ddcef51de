/* test_base.c - the shared containers of src/base: vec, idtab, strarena,
 * clock, the one sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_main.h"

#include "clock.h"
#include "idtab.h"
#include "sorted.h"
#include "strarena.h"
#include "util.h"
#include "vec.h"

static void test_vec_reserve(void **state)
{
    (void)state;
    int *v = NULL;
    size_t n = 0, cap = 0;

    for (int i = 0; i < 10000; i++) {
        assert_int_equal(VEC_RESERVE(v, cap, n + 1), 0);
        v[n++] = i;
    }
    assert_true(cap >= n);
    assert_true(cap < 2 * n + 16);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(v[i], i);
    /* no growth when there is room */
    size_t old = cap;
    int *p = v;
    assert_int_equal(VEC_RESERVE(v, cap, n), 0);
    assert_ptr_equal(p, v);
    assert_int_equal(old, cap);
    free(v);

    char *z = NULL;
    size_t zcap = 0;
    assert_int_equal(VEC_RESERVE_ZERO(z, zcap, 100), 0);
    for (size_t i = 0; i < zcap; i++)
        assert_int_equal(z[i], 0);
    free(z);

    /* overflow is refused, not wrapped */
    long *big = NULL;
    size_t bcap = 0;
    assert_int_equal(VEC_RESERVE(big, bcap, SIZE_MAX / 2), -1);
    assert_null(big);
    assert_int_equal(bcap, 0);
}

static uint64_t keys[5000];

static int key_eq(void *ctx, uint32_t id)
{
    return keys[id] == *(uint64_t *)ctx;
}

static void test_idtab(void **state)
{
    (void)state;
    struct idtab t = {0};

    assert_int_equal(idtab_find(&t, 1, NULL, NULL), IDTAB_NONE);
    for (uint32_t i = 0; i < 5000; i++) {
        keys[i] = i * 7919ull;
        /* a bad hash on purpose: many collisions must still resolve */
        assert_int_equal(idtab_insert(&t, util_mix64(keys[i]) & 0xfff, i), 0);
    }
    assert_int_equal(t.n, 5000);
    assert_true(t.mask + 1 >= 2 * t.n);
    for (uint32_t i = 0; i < 5000; i++) {
        uint64_t k = keys[i];
        assert_int_equal(idtab_find(&t, util_mix64(k) & 0xfff, key_eq, &k), i);
    }
    uint64_t absent = 3;
    assert_int_equal(idtab_find(&t, util_mix64(absent) & 0xfff, key_eq, &absent),
                     IDTAB_NONE);
    /* a copy finds the same ids and is independent */
    struct idtab c;
    assert_int_equal(idtab_copy(&c, &t), 0);
    assert_int_equal(idtab_insert(&c, 77, 4999), 0);
    for (uint32_t i = 0; i < 5000; i += 499) {
        uint64_t k = keys[i];
        assert_int_equal(idtab_find(&c, util_mix64(k) & 0xfff, key_eq, &k), i);
    }
    assert_int_equal(idtab_find(&t, 77, NULL, NULL), IDTAB_NONE);
    idtab_free(&c);
    struct idtab e = {0}, ec;
    assert_int_equal(idtab_copy(&ec, &e), 0);
    assert_null(ec.slots);
    idtab_clear(&t);
    assert_int_equal(t.n, 0);
    uint64_t k0 = keys[0];
    assert_int_equal(idtab_find(&t, util_mix64(k0) & 0xfff, key_eq, &k0),
                     IDTAB_NONE);
    idtab_free(&t);
    assert_null(t.slots);
}

/* Removal against a reference: ids in and out at random under a bad hash
 * (long runs that wrap around the table's end), every present id found
 * and every removed one not, the count right, and no probe run longer
 * than the table. */
#define HOME(k) (~(util_mix64(k) & 0x3f))

static void test_idtab_remove(void **state)
{
    (void)state;
    enum { N = 3000 };
    static bool in[N];
    struct idtab t = {0};
    uint64_t r = 12345;

    for (uint32_t i = 0; i < N; i++)
        keys[i] = i * 104729ull + 1;
    memset(in, 0, sizeof(in));
    size_t n = 0;
    for (int step = 0; step < 40000; step++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t i = (uint32_t)(r >> 33) % N;
        uint64_t h = HOME(keys[i]);
        if (in[i]) {
            assert_int_equal(idtab_remove(&t, h, i), 0);
            in[i] = false;
            n--;
        } else {
            assert_int_equal(idtab_insert(&t, h, i), 0);
            in[i] = true;
            n++;
        }
        if (step % 997 == 0)
            for (uint32_t k = 0; k < N; k++) {
                uint64_t key = keys[k];
                uint32_t got = idtab_find(&t, HOME(key), key_eq, &key);
                assert_int_equal(got, in[k] ? k : IDTAB_NONE);
            }
        assert_int_equal(t.n, n);
    }
    /* a removed id is not removed twice; an absent hash is refused */
    for (uint32_t k = 0; k < N; k++)
        if (!in[k])
            assert_int_equal(idtab_remove(&t, HOME(keys[k]), k), -1);
    /* high slots' entries wrap to the start: remove all, the table empties */
    for (uint32_t k = 0; k < N; k++)
        if (in[k])
            assert_int_equal(idtab_remove(&t, HOME(keys[k]), k), 0);
    assert_int_equal(t.n, 0);
    for (size_t j = 0; j <= t.mask; j++)
        assert_int_equal(t.slots[j].id, IDTAB_NONE);
    idtab_free(&t);
    struct idtab e = {0};
    assert_int_equal(idtab_remove(&e, 1, 1), -1);
}

static void test_strarena(void **state)
{
    (void)state;
    struct strarena a = {0};
    char buf[32];

    uint32_t hello = strarena_intern_id(&a, "hello world", 5);
    assert_int_equal(hello, 0);
    assert_string_equal(strarena_str(&a, hello), "hello");
    assert_int_equal(strarena_intern_id(&a, "hello", 5), hello);
    assert_int_equal(strarena_lookup(&a, "hell", 4), UINT32_MAX);
    assert_int_equal(strarena_intern_id(&a, "", 0), 1);
    const char *p = strarena_str(&a, hello);
    for (int i = 0; i < 20000; i++) {
        snprintf(buf, sizeof(buf), "name%d", i);
        assert_int_equal(strarena_intern_id(&a, buf, strlen(buf)),
                         (uint32_t)i + 2);
    }
    /* chunks never move */
    assert_ptr_equal(strarena_str(&a, hello), p);
    assert_string_equal(strarena_intern(&a, "name19999", 9), "name19999");
    assert_int_equal(a.nstr, 20002);
    /* a string longer than a chunk */
    char *big = malloc(200000);
    memset(big, 'x', 199999);
    big[199999] = '\0';
    assert_string_equal(strarena_intern(&a, big, 199999), big);
    free(big);
    /* a copy: the same ids and strings, at other addresses */
    struct strarena b;
    assert_int_equal(strarena_copy(&b, &a), 0);
    assert_int_equal(b.nstr, a.nstr);
    assert_int_equal(b.bytes, a.bytes);
    assert_int_equal(strarena_lookup(&b, "name77", 6), 79);
    assert_string_equal(strarena_str(&b, hello), "hello");
    assert_ptr_not_equal(strarena_str(&b, hello), p);
    assert_int_equal(strarena_intern_id(&b, "fresh", 5), a.nstr);
    assert_int_equal(strarena_lookup(&a, "fresh", 5), UINT32_MAX);
    strarena_free(&b);
    strarena_free(&a);
    assert_int_equal(a.nstr, 0);
}

static void test_clock(void **state)
{
    (void)state;
    uint64_t a = clock_mono_ns(), b = clock_mono_ns();

    assert_true(a > 0);
    assert_true(b >= a);
    assert_true(clock_wall_ns() > 1600000000ull * 1000000000ull);
    volatile uint64_t x = 0;
    uint64_t c0 = clock_thread_cpu_ns();
    for (int i = 0; i < 1000000; i++)
        x += (uint64_t)i;
    assert_true(clock_thread_cpu_ns() > c0);
    uint64_t t = clock_thread_cpu_ns();
    assert_true(clock_process_cpu_ns() >= t);
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int int_cmp_r(const void *a, const void *b, void *dir)
{
    return *(const int *)dir * int_cmp(a, b);
}

/* An empty array may be NULL (an unused vec): no call into qsort, which
 * UBSan stops on (make asan); anything else sorted. */
static void test_sorted_sort(void **state)
{
    (void)state;
    int v[] = { 3, 1, 2 }, down = -1;

    sorted_sort(NULL, 0, sizeof(int), int_cmp);
    sorted_sort_r(NULL, 0, sizeof(int), int_cmp_r, &down);
    sorted_sort(v, 1, sizeof(int), int_cmp);
    assert_int_equal(v[0], 3);
    sorted_sort(v, 3, sizeof(int), int_cmp);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[2], 3);
    sorted_sort_r(v, 3, sizeof(int), int_cmp_r, &down);
    assert_int_equal(v[0], 3);
    assert_int_equal(v[2], 1);
}

UNIT_MAIN(
    cmocka_unit_test(test_vec_reserve),
    cmocka_unit_test(test_idtab),
    cmocka_unit_test(test_idtab_remove),
    cmocka_unit_test(test_strarena),
    cmocka_unit_test(test_clock),
    cmocka_unit_test(test_sorted_sort))
