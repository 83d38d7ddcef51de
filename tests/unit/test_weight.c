/* test_weight.c - samples weigh the time they stand for (issue 19, item
 * 2; profile.h, "Weights").  A live-like profile in ns whose rate changed
 * (100 samples of 10 ms on a, then 1000 of 1 ms on b): equal shares, the
 * times of each, counts of the nominal interval in every count format,
 * pprof's values and its round trip, the text report's header, the
 * per-second buckets and windows; a constant-rate profile in ns writes
 * the same bytes as the same samples counted; merging a file of counts
 * with a profile in ns; the rounding of counts. */
#include "fixture.h"

#include "diff.h"
#include "load.h"
#include "view_model.h"
#include "window.h"

#define MS 1000000ull

/* The options every writer takes by default. */
static struct export_opts opts(void)
{
    struct export_opts o;

    export_opts_default(&o);
    return o;
}

static uint32_t fn(struct profile *p, const char *name)
{
    return fixture_frame(p, name, "prog", NULL, 0);
}

/* Add `samples` samples of stack "main;NAME" on thread t, each weighing
 * each_ns, at time at_s seconds. */
static void add(struct profile *p, uint32_t t, const char *name,
                uint64_t samples, uint64_t each_ns, uint64_t at_s)
{
    struct stack_frame st[2] = { { .frame = fn(p, "main") },
                                 { .frame = fn(p, name) } };

    for (uint64_t i = 0; i < samples; i++)
        assert_int_equal(profile_add_weighted_at(p, t, st, 2, 1, each_ns,
                                                 at_s * 1000000000ull + i),
                         0);
}

static void set_interval(struct profile *p, uint64_t ns)
{
    struct profile_meta m = *profile_meta(p);

    m.interval_ns = ns;
    assert_int_equal(profile_set_meta(p, &m), 0);
}

/* 1 s of a at 100 Hz, then 1 s of b at 1000 Hz; nominal interval 1 ms. */
static struct profile *changed_rate(void)
{
    struct profile *p = profile_new();
    uint32_t t;

    assert_non_null(p);
    assert_int_equal(profile_set_weight_unit(p, 1), 0);
    assert_int_equal(profile_time_enable(p, 60), 0);
    t = profile_thread(p, 7, "t");
    add(p, t, "a", 100, 10 * MS, 100);
    add(p, t, "b", 1000, 1 * MS, 101);
    set_interval(p, 1 * MS);
    return p;
}

static void test_shares_and_times(void **state)
{
    struct profile *p = fixture_keep_profile(state, changed_rate());
    struct profile_flat *flat;
    long n = profile_flat(p, &flat);

    assert_int_equal(profile_sample_count(p), 1100);
    assert_int_equal(profile_samples(p), 2000 * MS);
    assert_int_equal(profile_weight_ns(p, profile_samples(p)), 2000 * MS);
    assert_int_equal(profile_weight_count(p, profile_samples(p)), 2000);
    assert_int_equal(n, 3);
    /* a and b each half of the time, not 100 against 1000 */
    for (long i = 0; i < n; i++)
        if (strcmp(profile_frame(p, flat[i].frame)->name, "main") != 0)
            assert_int_equal(flat[i].self, 1000 * MS);
    free(flat);
    /* once, a unit cannot change under samples */
    assert_int_equal(profile_set_weight_unit(p, 0), -1);
}

/* Counts formats write counts of the nominal interval. */
static void test_count_formats(void **state)
{
    struct profile *p = fixture_keep_profile(state, changed_rate());
    struct export_opts o = opts();

    FIXTURE_ASSERT_TEXT(fixture_write(format_find("folded"), p, &o, NULL),
                        "t-7;main;a 1000\nt-7;main;b 1000\n");
    /* the differential one too, each side its own */
    o.baseline = p;
    FIXTURE_ASSERT_TEXT(fixture_write(format_find("folded"), p, &o, NULL),
                        "t-7;main;a 1000 1000\nt-7;main;b 1000 1000\n");
}

/* A constant rate in ns writes the bytes of the same samples counted. */
static void test_constant_rate_same_bytes(void **state)
{
    struct profile *ns = profile_new(), *counts = profile_new();
    uint32_t t1, t2;
    size_t n = format_count();
    struct export_opts o = opts();

    (void)state;
    assert_int_equal(profile_set_weight_unit(ns, 1), 0);
    t1 = profile_thread(ns, 7, "t");
    t2 = profile_thread(counts, 7, "t");
    add(ns, t1, "a", 30, 10 * MS, 0);
    add(ns, t1, "b", 12, 10 * MS, 0);
    add(counts, t2, "a", 30, 1, 0);
    add(counts, t2, "b", 12, 1, 0);
    set_interval(ns, 10 * MS);
    set_interval(counts, 10 * MS);
    for (size_t i = 0; i < n; i++) {
        const struct format *e = format_at(i);
        size_t la, lb;
        char *a = fixture_write(e, ns, &o, &la);
        char *b = fixture_write(e, counts, &o, &lb);

        if (la != lb || memcmp(a, b, la) != 0)
            fail_msg("%s: a constant rate in ns is not written as counts",
                     e->name);
        free(a);
        free(b);
    }
    profile_free(ns);
    profile_free(counts);
}

/* Save p as pprof, load it back: the time it holds is p's, and a save
 * gives the same bytes; the loaded profile's weight unit in *unit. */
static void pprof_round_trip(struct profile *p, uint64_t *unit)
{
    struct export_opts o = opts();
    size_t l1, l2;
    char err[256];
    char *a = fixture_write(format_find("pprof"), p, &o, &l1), *b;
    struct profile *q = load_pprof(a, l1, "w.pb.gz", err, sizeof(err));

    assert_non_null(q);
    assert_int_equal(profile_weight_ns(q, profile_samples(q)),
                     profile_weight_ns(p, profile_samples(p)));
    *unit = profile_weight_unit(q);
    b = fixture_write(format_find("pprof"), q, &o, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    free(a);
    free(b);
    profile_free(q);
}

/* pprof: samples/count in nominal intervals, cpu/nanoseconds the time.
 * Where every time is count x period (the changed rate: counts of the
 * shortest interval) the file loads as counts; where one is not (an
 * off-CPU stretch of 1.4 intervals, written as 1), as times, in ns. */
static void test_pprof_weights(void **state)
{
    struct profile *p = fixture_keep_profile(state, changed_rate());
    uint64_t unit;

    pprof_round_trip(p, &unit);
    assert_int_equal(unit, 0);
    add(p, profile_thread(p, 7, NULL), "sleep", 1, 1400000, 101);
    pprof_round_trip(p, &unit);
    assert_int_equal(unit, 1);
}

/* The text report: the time observed, the samples taken, their mean. */
static void test_text_header(void **state)
{
    struct profile *p = fixture_keep_profile(state, changed_rate());
    struct export_opts o = opts();
    char *t = fixture_keep(state,
                           fixture_write(format_find("text"), p, &o, NULL));

    FIXTURE_ASSERT_HAS(t,
        "Total cpu time observed: 2000ms (out of "
        "2000ms)\n",
        "Number of samples taken: 1100 (once every ");
}

/* Buckets hold weights: the two seconds are as tall; a window of the
 * first holds a's second only, its sample count from its weight. */
static void test_time_weights(void **state)
{
    struct profile *p = fixture_keep_profile(state, changed_rate()), *w;
    uint64_t v[2];

    profile_time_series(p, PROFILE_NONE, 100, 2, v);
    assert_int_equal(v[0], 1000 * MS);
    assert_int_equal(v[1], 1000 * MS);
    w = profile_window(p, 100, 100);
    assert_non_null(w);
    assert_int_equal(profile_samples(w), 1000 * MS);
    assert_int_equal(profile_sample_count(w), 1000); /* 1 ms intervals */
    profile_free(w);
}

/* A file of counts (10 ms each) merged with a profile in ns: one unit,
 * every weight kept. */
static void test_merge_units(void **state)
{
    struct profile *c = profile_new(), *ns = changed_rate();
    uint32_t t = profile_thread(c, 7, "t");

    (void)state;
    add(c, t, "a", 3, 1, 0);
    set_interval(c, 10 * MS);
    assert_int_equal(profile_merge(c, ns), 0);
    assert_int_equal(profile_weight_unit(c), 1);
    assert_int_equal(profile_samples(c), 2030 * MS);
    assert_int_equal(profile_sample_count(c), 1103);
    profile_free(ns);
    profile_free(c);
}

/* A diff compares shares, whatever each side's unit: the profile in ns
 * against itself in counts changes nothing. */
static void test_diff_units(void **state)
{
    struct profile *cur = changed_rate(), *counts = NULL;
    struct model_filter f = { .focus = PROFILE_NONE };
    struct model_extra x = { 0 };
    struct model_delta d;
    struct model *m;

    (void)state;
    x.baseline = profile_counts(cur, &counts);
    assert_non_null(counts);
    m = model_new_ext(cur, &f, 0, 0, &x);
    assert_non_null(m);
    assert_true(model_delta_frame(m, fixture_find_frame(cur, "a"), &d));
    assert_true(d.in_cur && d.in_base);
    assert_float_equal(d.self, 0, 1e-9);
    model_free(m);
    profile_free(counts);
    profile_free(cur);
}

/* Counts round to the nearest interval, never to 0. */
static void test_count_rounding(void **state)
{
    struct profile *p = fixture_profile(state);

    assert_int_equal(profile_set_weight_unit(p, 1), 0);
    set_interval(p, 10 * MS);
    assert_int_equal(profile_weight_count(p, 0), 0);
    assert_int_equal(profile_weight_count(p, 1), 1);
    assert_int_equal(profile_weight_count(p, 14 * MS), 1);
    assert_int_equal(profile_weight_count(p, 15 * MS), 2);
    assert_int_equal(profile_weight_count(p, 30 * MS), 3);
    assert_int_equal(profile_weight_ns(p, 30 * MS), 30 * MS);
    set_interval(p, 0);
    assert_int_equal(profile_weight_count(p, 30 * MS), 30 * MS);
}

UNIT_MAIN(
    FIXTURE_TEST(test_shares_and_times),
    FIXTURE_TEST(test_count_formats),
    cmocka_unit_test(test_constant_rate_same_bytes),
    FIXTURE_TEST(test_pprof_weights),
    FIXTURE_TEST(test_text_header),
    FIXTURE_TEST(test_time_weights),
    cmocka_unit_test(test_merge_units),
    cmocka_unit_test(test_diff_units),
    FIXTURE_TEST(test_count_rounding))
