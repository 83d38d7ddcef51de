/* test_speedscope.c - the speedscope JSON exporter (layout, units, one
 * profile per thread, JSON string escaping) and reader (the golden file,
 * the round trip, counts from times, and every refusal).  tests/formats_a.t
 * validates real files against the schema of the npm package;
 * tests/formats_json.t reads them back through sproftop -i. */
#include "fixture.h"

/* Frames as in FORMATS.md's example: module prog, file prog.c, main at
 * line 10, a 20, ... d 50. */
#define ADD(p, t, count, ...)                                               \
    FIXTURE_ADD_NAMES(p, t, fixture_example_frame, count, __VA_ARGS__)

static char *write_ss(const struct profile *p)
{
    return fixture_write(format_find("speedscope"), p, NULL, NULL);
}

/* The text with all whitespace outside strings removed, so checks do not
 * depend on layout. */
static char *squeeze(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    bool in_str = false;

    for (; *s; s++) {
        if (in_str) {
            *o++ = *s;
            if (*s == '\\' && s[1])
                *o++ = *++s;
            else if (*s == '"')
                in_str = false;
        } else if (*s == '"') {
            in_str = true;
            *o++ = *s;
        } else if (*s != ' ' && *s != '\n') {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

/* The speedscope export of p, squeezed. */
static char *write_ss_squeezed(const struct profile *p)
{
    char *out = write_ss(p), *sq = squeeze(out);

    free(out);
    return sq;
}

static void test_example(void **state)
{
    struct profile *p = fixture_keep_profile(state,
        fixture_example(fixture_example_frame, false));
    char *sq;

    FIXTURE_META(p, .pid = 4242, .cmdline = "./prog");
    profile_thread(p, 102, "idle"); /* no samples: no profile */
    sq = fixture_keep(state, write_ss_squeezed(p));
    /* FORMATS.md's example, exactly (frames in first-use order). */
    assert_string_equal(
        sq,
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
        "\"shared\":{\"frames\":["
        "{\"name\":\"main\",\"file\":\"prog.c\",\"line\":10},"
        "{\"name\":\"a\",\"file\":\"prog.c\",\"line\":20},"
        "{\"name\":\"b\",\"file\":\"prog.c\",\"line\":30},"
        "{\"name\":\"c\",\"file\":\"prog.c\",\"line\":40},"
        "{\"name\":\"d\",\"file\":\"prog.c\",\"line\":50}]},"
        "\"profiles\":["
        "{\"type\":\"sampled\",\"name\":\"main (tid 100)\",\"unit\":\"none\","
        "\"startValue\":0,\"samples\":[[0,1,2],[0,1,3]],\"weights\":[3,1],"
        "\"endValue\":4},"
        "{\"type\":\"sampled\",\"name\":\"worker (tid 101)\",\"unit\":\"none\","
        "\"startValue\":0,\"samples\":[[0,4]],\"weights\":[2],"
        "\"endValue\":2}],"
        "\"name\":\"sproftop pid 4242: ./prog\",\"activeProfileIndex\":0,"
        "\"exporter\":\"sproftop " SPROFTOP_VERSION "\"}");
}

static void test_nanoseconds_and_empty_stack(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t0 = profile_thread(p, 7, "solo");
    char *sq;

    ADD(p, t0, 3, "main", "x");
    assert_int_equal(profile_add_stack(p, t0, NULL, 0, 2), 0);
    FIXTURE_META(p, .interval_ns = 1000000);
    sq = fixture_keep(state, write_ss_squeezed(p));
    FIXTURE_ASSERT_HAS(sq,
        "\"frames\":[{\"name\":\"main\",\"file\":"
        "\"prog.c\",\"line\":10},{\"name\":\"x\","
        "\"file\":\"prog.c\"}]",
        "\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"samples\":[[],[0,1]],"
        "\"weights\":[2000000,3000000],"
        "\"endValue\":5000000}",
        "\"name\":\"sproftop\",");
}

static void test_escaping(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t0 = profile_thread(p, 1, "t\"1");
    char *out;

    ADD(p, t0, 1, "q\"uote", "back\\slash", "nl\ntab\tcr\r",
        "ctl\x01\x1f", "caf\xc3\xa9 \xe2\x82\xac", "bad\xff\xc3(", "",
        "std::vector<int>::operator[]", "a;b,c:d e");
    out = fixture_keep(state, write_ss(p));
    FIXTURE_ASSERT_HAS(out,
        "\"q\\\"uote\"",
        "\"back\\\\slash\"",
        "\"nl\\ntab\\tcr\\r\"",
        "\"ctl\\u0001\\u001f\"",
        "\"caf\xc3\xa9 \xe2\x82\xac\"",
        "\"bad\\ufffd\\ufffd(\"",
        "\"[unknown]\"",
        "\"std::vector<int>::operator[]\"",
        "\"a;b,c:d e\"",
        "\"t\\\"1 (tid 1)\"");
    /* No raw control byte anywhere in the file but the layout's '\n'. */
    for (const char *c = out; *c; c++)
        assert_true((unsigned char)*c >= 0x20 || *c == '\n');
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(format_find("speedscope"), format_find("speedscope"));
    assert_ptr_equal(format_for_path("x.speedscope.json", false),
                     format_find("speedscope"));
    assert_ptr_equal(format_find("pprof"), format_find("pprof"));
    assert_ptr_equal(format_for_path("cpu.pb.gz", false), format_find("pprof"));
    assert_ptr_equal(format_for_path("cpu.pprof", false), format_find("pprof"));
}

/* --- the reader ----------------------------------------------------------- */

#define GOLDEN "tests/formats/example.speedscope.json"

/* The folded lines of p (thread roots on), sorted. */
static char *folded_of(const struct profile *p)
{
    struct export_opts o;
    char *out, *sorted;

    export_opts_default(&o);
    out = fixture_write(format_find("folded"), p, &o, NULL);
    sorted = fixture_sorted_lines(out);

    free(out);
    return sorted;
}

static struct profile *load_text(const char *text, char *err, size_t n)
{
    return load_speedscope(text, strlen(text), "t.json", err, n);
}

static void test_read_golden(void **state)
{
    struct profile *p = fixture_load_file(state, GOLDEN);
    char *got;

    assert_non_null(p);
    got = fixture_keep(state, folded_of(p));
    assert_string_equal(got, "main-100;main;a;b 3\nmain-100;main;a;c 1\n"
                             "worker-101;main;d 2\n");
    assert_int_equal(profile_thread_count(p), 2);
    assert_string_equal(profile_thread_at(p, 1)->name, "worker");
    assert_int_equal(profile_meta(p)->pid, 4242);
    assert_int_equal(profile_meta(p)->interval_ns, 0);
    assert_int_equal(profile_frame(p, fixture_find_frame(p, "b"))->line, 30);
    assert_string_equal(profile_frame(p, fixture_find_frame(p, "b"))->file,
                        "prog.c");
}

/* Written with an interval, read back: the same stacks, counts, threads,
 * interval, PID and command line. */
static void test_round_trip(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    uint32_t t0 = profile_thread(p, 7, "solo"), t1 = profile_thread(p, 9, "w");
    char err[256] = "", *a, *b, *text;
    size_t len;

    /* counts with a common factor: the interval must not be guessed */
    ADD(p, t0, 4, "main", "x");
    ADD(p, t0, 2, "main", "y", "[truncated]");
    ADD(p, t1, 6, "main", "x");
    assert_int_equal(profile_add_stack(p, t0, NULL, 0, 8), 0);
    FIXTURE_META(p, .interval_ns = 10000000, .pid = 77,
                 .cmdline = "./prog --x");
    text = fixture_write(format_find("speedscope"), p, NULL, &len);
    assert_non_null(strstr(text, "\"sproftop_interval_ns\": 10000000"));
    q = load_speedscope(text, len, "x.json", err, sizeof(err));
    assert_non_null(q);
    a = folded_of(p);
    b = folded_of(q);
    assert_string_equal(a, b);
    /* times come back as ns weights, counted in 10 ms intervals */
    assert_int_equal(profile_weight_unit(q), 1);
    assert_int_equal(profile_samples(q), 200000000);
    assert_int_equal(profile_sample_count(q), 20);
    assert_int_equal(profile_meta(q)->interval_ns, 10000000);
    assert_int_equal(profile_meta(q)->pid, 77);
    assert_string_equal(profile_meta(q)->cmdline, "./prog --x");
    assert_int_equal(profile_thread_at(q, 1)->tid, 9);
    assert_int_equal(profile_frame(q, fixture_find_frame(q, "[truncated]"))
                         ->kind, FRAME_SPECIAL);
    free(a);
    free(b);
    free(text);
    profile_free(q);
}

/* Another profiler's file: times in milliseconds with no interval key
 * (their common divisor is the interval), names without "(tid N)". */
static void test_times_and_names(void **state)
{
    static const char text[] =
        "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\","
        " \"shared\": {\"frames\": [{\"name\": \"f\"}, {\"name\": \"g\","
        " \"file\": \"g.py\", \"line\": 3, \"col\": 1}]},"
        " \"profiles\": [{\"type\": \"sampled\", \"name\": \"MainThread\","
        " \"unit\": \"milliseconds\", \"startValue\": 0, \"endValue\": 9,"
        " \"samples\": [[0], [0, 1], [0, 1]], \"weights\": [3, 6, 1.5]},"
        " {\"type\": \"sampled\", \"name\": \"t (tid 5)\", \"unit\":"
        " \"seconds\", \"startValue\": 0, \"endValue\": 1, \"samples\":"
        " [[1]], \"weights\": [0.003]}]}";
    char err[256] = "", *got;
    struct profile *p;

    (void)state;
    assert_true(load_speedscope_sniff(text, sizeof(text) - 1));
    p = load_text(text, err, sizeof(err));
    assert_non_null(p);
    got = folded_of(p);
    /* 1.5 ms is the divisor: 3 ms = 2, 6 + 1.5 ms = 5, 3 ms = 2; the
     * unnamed thread takes the id after 5; g, in a .py file, is a Python
     * function (as py-spy's files have them), which folded writes as
     * py-spy does */
    assert_string_equal(got, "MainThread-6;f 2\nMainThread-6;f;g (g.py:3) 5\n"
                             "t-5;g (g.py:3) 2\n");
    assert_int_equal(profile_meta(p)->interval_ns, 1500000);
    free(got);
    profile_free(p);
}

static void test_refusals(void **state)
{
    static const struct fixture_refusal bad[] = {
        { "[]", "t.json: not a speedscope file: no shared.frames and profiles "
                "arrays" },
        { "{\"shared\": {\"frames\": []}, \"profiles\": [{\"type\": "
          "\"evented\", \"unit\": \"none\", \"events\": []}]}",
          "t.json: profile 0: only sampled profiles are read (not evented "
          "ones)" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0, 1]], \"weights\": [1]}]}",
          "t.json: profile 0, sample 0: a frame index is not one of the 1 "
          "frames" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0]], \"weights\": [1, 2]}]}",
          "t.json: profile 0: samples and weights are not two arrays of one "
          "length" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0]], \"weights\": [1.5]}]}",
          "t.json: profile 0, sample 0: the weight is not a whole count in "
          "range" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0]], \"weights\": [9007199254740993]}]}",
          "t.json: profile 0, sample 0: the weight is not a whole count in "
          "range" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0], [0]], \"weights\": [9007199254740000, 9007199254740000]}]}",
          "t.json: more than 2^53 samples" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"bytes\", \"samples\": "
          "[[0]], \"weights\": [1]}]}",
          "t.json: a profile's unit is not none or a unit of time" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0]], \"weights\": [1]}, {\"type\": \"sampled\", \"unit\": "
          "\"seconds\", \"samples\": [[0]], \"weights\": [1]}]}",
          "t.json: profiles mix counts (unit none) and times" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"seconds\", \"samples\": "
          "[[0]], \"weights\": [-1]}]}",
          "t.json: a weight is not a time in range" },
        { "{\"shared\": {\"frames\": [{\"name\": \"f\"}]}, \"profiles\": "
          "[{\"type\": \"sampled\", \"unit\": \"none\", \"samples\": "
          "[[0]], \"weights\": [0]}]}",
          "t.json: no samples" },
        { "{\"shared\": {\"frames\": []}, \"profiles\": [], "
          "\"sproftop_interval_ns\": 0}",
          "t.json: sproftop_interval_ns is not a positive integer" },
        { "{\"shared\": {\"frames\": [}", "t.json: byte 23: expected a value" },
    };

    (void)state;
    fixture_assert_refusals(load_speedscope, bad, sizeof(bad) / sizeof(bad[0]));
}

/* A stack deeper than LOAD_MAX_DEPTH is refused, one of that depth read. */
static void test_depth(void **state)
{
    size_t cap = 64 + 3 * (LOAD_MAX_DEPTH + 1) + 64;
    char *text = malloc(cap), err[256] = "";
    struct profile *p;

    (void)state;
    for (unsigned depth = LOAD_MAX_DEPTH; depth <= LOAD_MAX_DEPTH + 1;
         depth++) {
        size_t n = (size_t)snprintf(text, cap, "{\"shared\": {\"frames\": "
                                    "[{\"name\": \"r\"}]}, \"profiles\": "
                                    "[{\"type\": \"sampled\", \"unit\": "
                                    "\"none\", \"samples\": [[0");
        for (unsigned k = 1; k < depth; k++)
            n += (size_t)snprintf(text + n, cap - n, ",0");
        snprintf(text + n, cap - n, "]], \"weights\": [1]}]}");
        p = load_text(text, err, sizeof(err));
        if (depth == LOAD_MAX_DEPTH) {
            assert_non_null(p);
            profile_free(p);
        } else {
            assert_null(p);
            assert_string_equal(err, "t.json: profile 0, sample 0: not a "
                                     "stack of at most 4096 frames");
        }
    }
    free(text);
}

UNIT_MAIN(
    FIXTURE_TEST(test_example),
    FIXTURE_TEST(test_nanoseconds_and_empty_stack),
    FIXTURE_TEST(test_escaping),
    cmocka_unit_test(test_registry),
    FIXTURE_TEST(test_read_golden),
    FIXTURE_TEST(test_round_trip),
    cmocka_unit_test(test_times_and_names),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_depth))
