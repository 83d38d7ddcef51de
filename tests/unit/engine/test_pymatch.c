/* test_pymatch.c - how a perf sample finds the interpreter walk the BPF
 * program wrote for it (src/sample/perf/perf_pymatch.c):
 *   - a walk stamped with its sample's own time goes to that sample, of
 *     its thread, and never to another: not to a sample of the thread a
 *     few microseconds away, not to another thread's at the same time;
 *   - a walk stamped by the program's clock goes to the nearest sample
 *     of its thread within the window, each walk once;
 *   - the frames come out as they went in, the entry flag out of bit 0;
 *   - a trim drops what is at or before its time, counts the untaken as
 *     orphans, and keeps the rest's frames whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../unit_main.h"

#include "perf_pymatch.h"
#include "script_frames.h"

#define US 1000ull

/* Add a walk of tid at t of n frames whose code objects are code0,
 * code0 + 1, ...; the first frame is an entry frame. */
static void add(struct pf_pymatch *m, uint32_t tid, uint64_t t, bool exact,
                uint64_t code0, uint32_t n)
{
    struct pywalk_frame f[PYWALK_MAX_DEPTH];
    for (uint32_t i = 0; i < n; i++)
        f[i] = (struct pywalk_frame){code0 + i, 0x1000 + 2 * i + (i == 0)};
    assert_int_equal(pf_pymatch_add(m, tid, t, exact, PYWALK_OK, 0, f, n), 0);
}

/* The first code object of the walk tid's sample at t takes, or 0 when
 * it takes none. */
static uint64_t take(struct pf_pymatch *m, uint32_t tid, uint64_t t,
                     uint64_t window)
{
    struct script_stack st;
    memset(&st, 0, sizeof st);
    if (!pf_pymatch_take(m, (pid_t)tid, t, window, &st)) {
        assert_false(st.have);
        return 0;
    }
    assert_true(st.have);
    return st.py.n ? st.py.f[0].code : 1;
}

/* m's counts so far are these. */
static void stats_are(const struct pf_pymatch *m, uint64_t added,
                      uint64_t matched, uint64_t near, uint64_t orphans)
{
    struct pf_pymatch_stats st;
    pf_pymatch_get_stats(m, &st);
    assert_int_equal(st.added, added);
    assert_int_equal(st.matched, matched);
    assert_int_equal(st.near, near);
    assert_int_equal(st.orphans, orphans);
}

static void test_exact(void **state)
{
    (void)state;
    struct pf_pymatch *m = pf_pymatch_new();
    assert_non_null(m);
    add(m, 7, 1000 * US, true, 100, 3);
    add(m, 8, 1000 * US, true, 200, 2);
    add(m, 7, 2000 * US, true, 300, 1);
    /* a sample 3 us after a walk's stamp is not its sample */
    assert_int_equal(take(m, 7, 1003 * US, 500 * US), 0);
    /* nor is another thread's at the same time */
    assert_int_equal(take(m, 9, 1000 * US, 500 * US), 0);
    assert_int_equal(take(m, 8, 1000 * US, 500 * US), 200);
    assert_int_equal(take(m, 7, 1000 * US, 500 * US), 100);
    assert_int_equal(take(m, 7, 2000 * US, 500 * US), 300);
    /* each walk once */
    assert_int_equal(take(m, 7, 1000 * US, 500 * US), 0);
    stats_are(m, 3, 3, 0, 0);
    pf_pymatch_free(m);
}

static void test_frames(void **state)
{
    (void)state;
    struct pf_pymatch *m = pf_pymatch_new();
    add(m, 7, 5 * US, true, 100, 4);
    struct script_stack st;
    assert_true(pf_pymatch_take(m, 7, 5 * US, 0, &st));
    assert_int_equal(st.py.n, 4);
    assert_int_equal(st.py.status, PYWALK_OK);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(st.py.f[i].code, 100 + i);
        assert_int_equal(st.py.f[i].instr, 0x1000 + 2 * i);
        assert_int_equal(st.py.entry[i], i == 0);
    }
    /* more frames than a walk holds: refused, not cut */
    struct pywalk_frame f[PYWALK_MAX_DEPTH + 1];
    memset(f, 0, sizeof f);
    assert_int_equal(pf_pymatch_add(m, 7, 6 * US, true, PYWALK_OK, 0, f,
                                    PYWALK_MAX_DEPTH + 1), -1);
    pf_pymatch_free(m);
}

static void test_near(void **state)
{
    (void)state;
    struct pf_pymatch *m = pf_pymatch_new();
    /* the clock read 2 us after each sample, samples 1 ms apart */
    add(m, 7, 1002 * US, false, 100, 1);
    add(m, 7, 2002 * US, false, 200, 1);
    add(m, 7, 3900 * US, false, 300, 1);
    assert_int_equal(take(m, 7, 2000 * US, 500 * US), 200);
    assert_int_equal(take(m, 7, 1000 * US, 500 * US), 100);
    /* 900 us away: beyond the window, so not taken */
    assert_int_equal(take(m, 7, 3000 * US, 500 * US), 0);
    assert_int_equal(take(m, 7, 3899 * US, 500 * US), 300);
    /* an exact walk is never the nearest for another sample */
    add(m, 7, 5000 * US, true, 400, 1);
    assert_int_equal(take(m, 7, 5001 * US, 500 * US), 0);
    assert_int_equal(take(m, 7, 5000 * US, 500 * US), 400);
    stats_are(m, 4, 4, 3, 0);
    pf_pymatch_free(m);
}

static void test_trim(void **state)
{
    (void)state;
    struct pf_pymatch *m = pf_pymatch_new();
    add(m, 7, 1 * US, true, 100, 2);
    add(m, 8, 2 * US, true, 200, 3);
    add(m, 7, 3 * US, true, 300, 1);
    add(m, 9, 4 * US, true, 400, 5);
    assert_int_equal(take(m, 7, 1 * US, 0), 100);
    pf_pymatch_trim(m, 2 * US);
    stats_are(m, 4, 1, 0, 1); /* the orphan: 8's, never taken */
    assert_int_equal(take(m, 8, 2 * US, 0), 0);
    /* what stays keeps its frames, moved */
    struct script_stack s;
    assert_true(pf_pymatch_take(m, 9, 4 * US, 0, &s));
    assert_int_equal(s.py.n, 5);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(s.py.f[i].code, 400 + i);
    assert_int_equal(take(m, 7, 3 * US, 0), 300);
    pf_pymatch_trim(m, 10 * US);
    stats_are(m, 4, 3, 0, 1);
    pf_pymatch_free(m);
    pf_pymatch_free(NULL);
}

UNIT_MAIN(
    cmocka_unit_test(test_exact),
    cmocka_unit_test(test_frames),
    cmocka_unit_test(test_near),
    cmocka_unit_test(test_trim))
