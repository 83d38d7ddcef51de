/* test_racket.c - Racket's JSON profile: the writer (the shape of
 * profile->json, in the text report's order) and the reader (a call
 * graph that answers as the stacks it came from did; Racket's own file;
 * every refusal).  tests/formats_racket.t has Racket read the files. */
#include "fixture.h"

#include <math.h>

#define ADD(p, t, count, ...)                                               \
    FIXTURE_ADD_NAMES(p, t, fixture_example_frame, count, __VA_ARGS__)

#define MADE_BY_RACKET "tests/fuzz/corpus/racket/made-by-racket.json"

/* FORMATS.md's example at 10 ms a sample, plus recursion. */
static struct profile *example(void)
{
    struct profile *p = fixture_example(fixture_example_frame, false);
    uint32_t t0 = profile_thread(p, 100, NULL);
    struct profile_meta m = { .interval_ns = 10000000 };

    ADD(p, t0, 2, "main", "d", "d", "b");
    assert_int_equal(profile_set_meta(p, &m), 0);
    return p;
}

static char *write_as(const char *fmt, const struct profile *p, size_t *len)
{
    struct export_opts o;

    export_opts_default(&o);
    o.hide_self = o.hide_subs = 0;
    return fixture_write(format_find(fmt), p, &o, len);
}

static void test_writer_shape(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char *j = fixture_keep(state, write_as("racket-json", p, NULL));

    assert_true(strncmp(j, "{\"total_time\": 80, \"cpu_time\": 80, "
                           "\"sample_number\": 8,\n \"thread_times\": "
                           "[{\"id\": 100, \"time\": 60}, {\"id\": 101, "
                           "\"time\": 20}],\n \"nodes\": [\n  {\"id\": false, "
                           "\"src\": false, \"thread_ids\": [], \"total\": 80, "
                           "\"self\": 0, ", 205) == 0);
    /* main first, both threads; its edge from "*" */
    FIXTURE_ASSERT_HAS(j,
        "\n  {\"id\": \"main\", \"src\": "
        "\"prog.c:10:0\", \"thread_ids\": [100, 101], "
        "\"total\": 80, \"self\": 0, \"callers\": "
        "[{\"total\": 80, \"caller\": 0, "
        "\"caller_time\": 80, \"callee\": 1, "
        "\"callee_time\": 80}]",
        /* d calls itself: the recursion's times are divided (Racket's) */
        "\"caller_time\": 10, \"callee\": 3, "
        "\"callee_time\": 10, \"sproftop_first\": ");
}

/* Read back: the graph's text report is the stacks', and written again
 * it is the same JSON. */
static void test_round_trip(void **state)
{
    struct profile *p = fixture_keep_profile(state, example()), *q;
    char err[256] = "", *j, *j2, *t1, *t2;
    size_t len, len2;
    struct profile_flat *fp, *fq;
    long np, nq;

    j = write_as("racket-json", p, &len);
    assert_true(load_racket_sniff(j, len));
    assert_false(load_speedscope_sniff(j, len));
    q = load_racket(j, len, "x.racket.json", err, sizeof(err));
    assert_non_null(q);
    assert_false(profile_has_stacks(q));
    /* weights in ns, as a live profile's */
    assert_int_equal(profile_weight_unit(q), 1);
    assert_int_equal(profile_samples(q), 80000000);
    assert_int_equal(profile_sample_count(q), 8);
    assert_int_equal(profile_meta(q)->interval_ns, 10000000);
    assert_int_equal(profile_thread_count(q), 2);
    assert_int_equal(profile_thread_at(q, 1)->tid, 101);
    assert_int_equal(profile_thread_samples(q, 1), 20000000);
    np = profile_flat(p, &fp);
    nq = profile_flat(q, &fq);
    assert_int_equal(np, nq);
    for (long i = 0; i < np; i++) {
        assert_string_equal(profile_frame(q, fq[i].frame)->name,
                            profile_frame(p, fp[i].frame)->name);
        /* p counts 10 ms samples, q weighs ns */
        assert_int_equal(fq[i].self, fp[i].self * 10000000);
        assert_int_equal(fq[i].total, fp[i].total * 10000000);
        assert_int_equal(fq[i].first, fp[i].first);
        assert_true(fabs(fq[i].leaf_time / 1e7 - fp[i].leaf_time) < 1e-9);
    }
    t1 = write_as("text", p, NULL);
    t2 = write_as("text", q, NULL);
    /* the first lines differ by sproftop's Wall-clock line only */
    assert_string_equal(strstr(t2, "\n\n"), strstr(t1, "\n\n"));
    j2 = write_as("racket-json", q, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(j2, j, len);
    free(fp);
    free(fq);
    free(t1);
    free(t2);
    free(j);
    free(j2);
    profile_free(q);
}

/* A file made by Racket's own profiler (profile->json): its times are
 * not whole samples, its ids may be false. */
static void test_made_by_racket(void **state)
{
    struct profile *p = fixture_load_file(state, MADE_BY_RACKET);
    struct profile_flat *f;
    long n;
    bool fib = false, unnamed = false;

    assert_non_null(p);
    assert_false(profile_has_stacks(p));
    n = profile_flat(p, &f);
    for (long i = 0; i < n; i++) {
        fib |= strcmp(profile_frame(p, f[i].frame)->name, "fib") == 0;
        unnamed |= strcmp(profile_frame(p, f[i].frame)->name, "???") == 0;
    }
    assert_true(fib && unnamed);
    free(f);
}

static void test_refusals(void **state)
{
    static const struct fixture_refusal bad[] = {
        { "{\"nodes\": []}", "t.json: not a Racket profile: no total_time "
                             "and sample_number" },
        { "{\"total_time\": 0, \"sample_number\": 0}", "t.json: no samples" },
        { "{\"total_time\": 10, \"sample_number\": 1, \"thread_times\": "
          "[{\"id\": 1, \"time\": 10}, {\"id\": 1, \"time\": 0}]}",
          "t.json: thread 1: its id comes twice" },
        { "{\"total_time\": 10, \"sample_number\": 1, \"thread_times\": [], "
          "\"nodes\": [{\"id\": \"f\", \"src\": false}]}",
          "t.json: node 0 is not the \"*\" node (id and src false)" },
        { "{\"total_time\": 10, \"sample_number\": 1, \"thread_times\": [], "
          "\"nodes\": [{\"id\": false, \"src\": false}, {\"id\": \"f\", "
          "\"src\": false, \"thread_ids\": [9], \"total\": 10, \"self\": 10}]}",
          "t.json: node 1: a thread id is not in thread_times" },
        { "{\"total_time\": 10, \"sample_number\": 1, \"thread_times\": [], "
          "\"nodes\": [{\"id\": false, \"src\": false}, {\"id\": \"f\", "
          "\"src\": false, \"thread_ids\": [], \"total\": 5, \"self\": 10}]}",
          "t.json: node 1: total and self are not times in range, self at "
          "most total" },
        { "{\"total_time\": 10, \"sample_number\": 1, \"thread_times\": [], "
          "\"nodes\": [{\"id\": false, \"src\": false}, {\"id\": \"f\", "
          "\"src\": false, \"thread_ids\": [], \"total\": 10, \"self\": 0, "
          "\"callers\": [], \"callees\": [{\"total\": 10, \"caller\": 1, "
          "\"caller_time\": 10, \"callee\": 1, \"callee_time\": 1e400}]}]}",
          "t.json: node 1: an edge's times are not times in range" },
    };

    (void)state;
    fixture_assert_refusals(load_racket, bad, sizeof(bad) / sizeof(bad[0]));
}

/* Two nodes of one name and file, told apart by line (two Racket
 * closures named alike): both kept, the second named with its source. */
static void test_same_name(void **state)
{
    static const char text[] =
        "{\"total_time\": 10, \"sample_number\": 10, \"thread_times\": "
        "[{\"id\": \"main\", \"time\": 10}], \"nodes\": [{\"id\": false, "
        "\"src\": false}, {\"id\": \"loop\", \"src\": \"a.rkt:3:2\", "
        "\"thread_ids\": [\"main\"], \"total\": 6, \"self\": 6, \"callers\": "
        "[], \"callees\": []}, {\"id\": \"loop\", \"src\": \"a.rkt:9:2\", "
        "\"thread_ids\": [\"main\"], \"total\": 4, \"self\": 4, \"callers\": "
        "[], \"callees\": []}]}";
    char err[256] = "";
    struct profile *p = fixture_keep_profile(state,
        load_racket(text, sizeof(text) - 1, "t", err, sizeof(err)));

    assert_non_null(p);
    assert_string_equal(profile_thread_at(p, 0)->name, "main");
    assert_int_equal(profile_frame(p, fixture_find_frame(p, "loop"))->line, 3);
    assert_int_equal(profile_frame(p, fixture_find_frame(p,
                     "loop <a.rkt:9>"))->line, 9);
}

UNIT_MAIN(
    FIXTURE_TEST(test_writer_shape),
    FIXTURE_TEST(test_round_trip),
    FIXTURE_TEST(test_made_by_racket),
    cmocka_unit_test(test_refusals),
    FIXTURE_TEST(test_same_name))
