/* test_text.c - the Racket-style text report (export_text) and the
 * stackprof-style flat table (export_top) on hand-built profiles.
 *
 * The golden test compares export_text with tests/unit/data/racket-text.
 * expected, a copy of shared/formats/racket-text.expected, which Racket
 * 8.7 itself printed for FORMATS.md's example at 10 ms per sample with
 * both hiding thresholds at 0.  The other expected texts were worked out
 * by hand from Racket's rules (column widths, Local% = edge time / node
 * total, hiding), not copied from the program's output. */
#include "fixture.h"

#define DATA_DIR "tests/unit/data"

static uint32_t fn(struct profile *p, const char *name, uint32_t line)
{
    return fixture_frame(p, name, "prog", "prog.c", line);
}

static void set_interval(struct profile *p, uint64_t ns)
{
    struct profile_meta m = { .interval_ns = ns };

    assert_int_equal(profile_set_meta(p, &m), 0);
}

/* FORMATS.md's example: thread 100 "main" runs main;a;b x3 and main;a;c,
 * thread 101 "worker" runs main;d x2; 10 ms per sample. */
static struct profile *example(void)
{
    struct profile *p = fixture_example(fixture_example_frame, false);

    set_interval(p, 10000000);
    return p;
}

static char *write_mem(const struct format *e, const struct profile *p,
                       double hide_self, double hide_subs)
{
    struct export_opts o;

    export_opts_default(&o);
    o.hide_self = hide_self;
    o.hide_subs = hide_subs;
    return fixture_write(e, p, &o, NULL);
}

/* Does `text` have a line whose space-separated words are `words`? */
static bool has_line_words(const char *text, const char *words)
{
    const char *line = text;

    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *a = line, *b = words;
        bool same = true;

        /* compare word sequences, collapsing runs of spaces */
        for (;;) {
            while (a < line + len && *a == ' ')
                a++;
            while (*b == ' ')
                b++;
            if (a == line + len || !*b) {
                same = a == line + len && !*b;
                break;
            }
            while (a < line + len && *a != ' ' && *b && *b != ' ') {
                if (*a++ != *b++) {
                    same = false;
                    break;
                }
            }
            if (!same)
                break;
            if ((a < line + len && *a != ' ') || (*b && *b != ' ')) {
                same = false;
                break;
            }
        }
        if (same)
            return true;
        if (!end)
            break;
        line = end + 1;
    }
    return false;
}

/* Index of the first line at or after line `from` whose words are
 * `words`, or -1. */
static int line_index(const char *text, const char *words, int from)
{
    int i = 0;

    for (const char *line = text; *line; i++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        char *one = strndup(line, len);
        bool hit = i >= from && has_line_words(one, words);

        free(one);
        if (hit)
            return i;
        line += len;
    }
    return -1;
}

/* --- text: Racket's golden output ----------------------------------------- */

/* The example written as text with these thresholds is exactly Racket's
 * golden output. */
static void assert_golden(double hide_self, double hide_subs)
{
    struct profile *p = example();
    char *got = write_mem(format_find("text"), p, hide_self, hide_subs);
    char *want = fixture_slurp(DATA_DIR "/racket-text.expected", NULL);

    assert_string_equal(got, want);
    free(got);
    free(want);
    profile_free(p);
}

static void test_text_golden(void **state)
{
    (void)state;
    assert_golden(0, 0);
}

static void test_text_registry(void **state)
{
    (void)state;
    assert_ptr_equal(format_find("text"), format_find("text"));
    assert_ptr_equal(format_for_path("report.txt", false), format_find("text"));
    assert_ptr_equal(format_find("top"), format_find("top"));
    assert_ptr_equal(format_for_path("x.top", false), format_find("top"));
}

/* With the default thresholds nothing of the example is small enough to
 * hide, so the output is the golden one. */
static void test_text_defaults_hide_nothing(void **state)
{
    (void)state;
    assert_golden(1.0, 2.0);
}

/* main;a x198, main;a;tiny x1, main;b x1 over 200 samples: tiny and b
 * have 0.5% self and every edge of theirs is 0.5% of its neighbour, so
 * with self<1% and local<2% both are hidden, and a's callee line for
 * tiny is gone.  a's caller time is 199 of its 199: 100.0%; main's
 * callee time to a is 199 of 200: 99.5%. */
static struct profile *small_ones(void)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main", 10), a = fn(p, "a", 20);
    uint32_t tiny = fn(p, "tiny", 30), b = fn(p, "b", 40);

    FIXTURE_ADD_IDS(p, t, 198, m, a);
    FIXTURE_ADD_IDS(p, t, 1, m, a, tiny);
    FIXTURE_ADD_IDS(p, t, 1, m, b);
    set_interval(p, 10000000);
    return p;
}

static void test_text_hiding(void **state)
{
    struct profile *p = fixture_keep_profile(state, small_ones());
    char *got = fixture_keep(state,
                             write_mem(format_find("text"), p, 1.0, 2.0));

    assert_string_equal(
        got,
        "Profiling results\n"
        "-----------------\n"
        "  Total cpu time observed: 2000ms (out of 2000ms)\n"
        "  Number of samples taken: 200 (once every 10ms)\n"
        "  (Hiding functions with self<1.0% and local<2.0%: 2 of 4 hidden)\n"
        "\n"
        "=============================================\n"
        "                               Caller\n"
        "Idx   Total        Self      Name+src  Local%\n"
        "      ms(pct)      ms(pct)     Callee\n"
        "=============================================\n"
        "[1] 2000(100.0%)    0(0.0%)  main prog.c:10:0\n"
        "                               a [2]    99.5%\n"
        "---------------------------------------------\n"
        "                               main [1]100.0%\n"
        "[2] 1990(99.5%)  1980(99.0%) a prog.c:20:0\n"
        "---------------------------------------------\n");
    /* thresholds at 0 show everything, tiny and b included */
    got = fixture_keep(state, write_mem(format_find("text"), p, 0, 0));
    assert_null(strstr(got, "Hiding"));
    assert_true(has_line_words(got, "[3] 10(0.5%) 10(0.5%) b prog.c:40:0"));
    assert_true(has_line_words(got, "[4] 10(0.5%) 10(0.5%) tiny prog.c:30:0"));
    assert_true(has_line_words(got, "tiny [4] 0.5%"));
    /* only hide-self: every edge share is above 0%, so nothing hides */
    got = fixture_keep(state, write_mem(format_find("text"), p, 5.0, 0));
    assert_null(strstr(got, "Hiding"));
    /* a huge hide-subs with hide-self 1%: main (self 0%, all its edge
     * shares <= 100%) hides too; a (99% self) stays */
    got = fixture_keep(state, write_mem(format_find("text"), p, 1.0, 100.0));
    assert_non_null(strstr(got, "(Hiding functions with self<1.0% and "
                                "local<100.0%: 3 of 4 hidden)\n"));
    assert_true(has_line_words(got, "[1] 1990(99.5%) 1980(99.0%) a prog.c:20:0"));
    assert_null(strstr(got, "main"));
}

/* main;f;f;f x1 and main;f x1: in the first sample each of f's three
 * occurrences gets a third, so f's caller edges are main 1/3 + 1 = 4/3
 * and f 2/3 of f's 2 samples: 66.7% and 33.3%, summing to 100%. */
static void test_text_recursion(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main", 10), f = fn(p, "f", 20);
    char *got;

    FIXTURE_ADD_IDS(p, t, 1, m, f, f, f);
    FIXTURE_ADD_IDS(p, t, 1, m, f);
    set_interval(p, 10000000);
    got = fixture_keep(state, write_mem(format_find("text"), p, 0, 0));
    assert_true(has_line_words(got, "[1] 20(100.0%) 0(0.0%) main prog.c:10:0"));
    assert_true(has_line_words(got, "f [2] 100.0%"));   /* main -> f */
    assert_true(has_line_words(got, "[2] 20(100.0%) 20(100.0%) f prog.c:20:0"));
    assert_true(has_line_words(got, "main [1] 66.7%"));
    assert_true(has_line_words(got, "f [2] 33.3%"));
    /* f's block: caller f (the smaller edge first), caller main, the
     * node line, callee f */
    {
        int c1 = line_index(got, "f [2] 33.3%", 0);
        int c2 = line_index(got, "main [1] 66.7%", 0);
        int node = line_index(got, "[2] 20(100.0%) 20(100.0%) f prog.c:20:0", 0);
        int c3 = line_index(got, "f [2] 33.3%", c1 + 1);

        assert_true(c1 >= 0);
        assert_int_equal(c2, c1 + 1);
        assert_int_equal(node, c1 + 2);
        assert_int_equal(c3, c1 + 3);
    }
}

/* A cycle a -> b -> a below main, and a second root: the layering must
 * place every node once and keep callers above callees where it can. */
static void test_text_cycle(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main", 10), a = fn(p, "a", 20), b = fn(p, "b", 30);
    uint32_t other = fn(p, "other", 40);
    char *got;

    FIXTURE_ADD_IDS(p, t, 4, m, a, b, a, b);
    FIXTURE_ADD_IDS(p, t, 2, m, b, a);
    FIXTURE_ADD_IDS(p, t, 1, other);
    set_interval(p, 1000000);
    got = fixture_keep(state, write_mem(format_find("text"), p, 0, 0));
    assert_true(has_line_words(got, "[1] 6(85.7%) 0(0.0%) main prog.c:10:0"));
    assert_true(has_line_words(got, "[2] 1(14.3%) 1(14.3%) other prog.c:40:0"));
    /* Worked by hand: main and other are sources (other also a sink);
     * a (in 4, out 4) and b (in 4, out 4) tie on Racket's in/out ratio
     * and leave together, a first (Racket breaks the tie by hash order,
     * sproftop by first use), so a -> b is the consistent edge: main
     * and other on layer 0, a on 1, b on 2. */
    assert_true(line_index(got, "[3] 6(85.7%) 2(28.6%) a prog.c:20:0", 0) >= 0);
    assert_true(line_index(got, "[4] 6(85.7%) 4(57.1%) b prog.c:30:0", 0) >= 0);
    /* b's callers: main (2 of 6, 33.3%) and a (4 of 6, 66.7%) */
    assert_true(has_line_words(got, "main [1] 33.3%"));
    assert_true(has_line_words(got, "a [3] 66.7%"));
}

/* Names with control characters stay on one line; widths count UTF-8
 * characters, so "ü" pads like one column; a source without a file and
 * a line reads "(unknown source)", the module too, as Racket prints what
 * its srcloc cannot place; long sources are cut from the left
 * to keep name+src within 50 characters, as Racket does. */
static void test_text_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t a = fixture_frame(p, "br\nok\ten", NULL, NULL, 0);
    uint32_t b = fixture_frame(p, "\xc3\xbc", "libü.so", NULL, 0);
    uint32_t c = fixture_frame(p, "std::map<int, std::string>::operator[]",
                               NULL,
                               "/very/long/path/to/some/include/dir/stl_map.h",
                               511);
    char *got;

    FIXTURE_ADD_IDS(p, t, 1, a, b, c);
    set_interval(p, 1000000);
    got = fixture_keep(state, write_mem(format_find("text"), p, 0, 0));
    assert_true(has_line_words(got, "[1] 1(100.0%) 0(0.0%) br ok en (unknown source)"));
    assert_true(has_line_words(got, "[2] 1(100.0%) 0(0.0%) \xc3\xbc (unknown source)"));
    /* 38 characters of name leave 11 for the source: "..." and its
     * last 8 characters */
    assert_true(has_line_words(got, "[3] 1(100.0%) 1(100.0%) "
                                    "std::map<int, std::string>::operator[] "
                                    "....h:511:0"));
    /* The callee column is as wide as "  std::map<...>::operator[] [3]"
     * (44 characters); "  \u00fc [2]" is 7 characters (8 bytes), so 37
     * spaces pad it, not 36. */
    {
        char want[128];
        int n = snprintf(want, sizeof(want), "  \xc3\xbc [2]");

        memset(want + n, ' ', 37);
        snprintf(want + n + 37, sizeof(want) - (size_t)n - 37, "100.0%%\n");
        assert_non_null(strstr(got, want));
    }
}

/* One name of 10,000 characters (issue 11, item 7): every row of the
 * table was padded to it, and every rule too (60 MB of report from 35 KB
 * of profile).  The caller and callee column cuts it to 100 characters,
 * "..." included; the node's own row, not padded, keeps it whole. */
static void test_text_long_name(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    char *name = malloc(10001), *got, want[160];
    size_t whole = 0;

    memset(name, 'x', 10000);
    name[10000] = '\0';
    for (int i = 0; i < 50; i++) {
        char leaf[32];

        snprintf(leaf, sizeof(leaf), "leaf%d", i);
        FIXTURE_ADD_IDS(p, t, 1, fn(p, "main", 1), fn(p, name, 2),
                        fn(p, leaf, 3));
    }
    set_interval(p, 1000000);
    got = fixture_keep(state, write_mem(format_find("text"), p, 0, 0));
    /* 53 nodes, each a block of a few rows: far below one padded row per
     * node (530 KB) */
    assert_true(strlen(got) < 100000);
    for (const char *s = got; (s = strstr(s, name)); s += 10000)
        whole++;
    assert_int_equal(whole, 1);
    snprintf(want, sizeof(want), "  %.97s... [2]", name);
    assert_non_null(strstr(got, want));
    free(name);
}

/* What sproftop knows of the run follows Racket's header lines. */
static void test_text_meta(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char *got;

    FIXTURE_META(p, .pid = 4242, .cmdline = "prog --x\ty",
                 .interval_ns = 10000000, .duration_ns = 1500000000);
    got = fixture_keep(state, write_mem(format_find("text"), p, 0, 0));
    assert_non_null(strstr(got, "  Threads observed:        2\n"
                                "  Command:                 prog --x y "
                                "(pid 4242)\n"
                                "  Wall-clock duration:     1.500 s "
                                "(on-CPU threads sampled)\n\n====="));
}

/* --- top ------------------------------------------------------------------- */

static void test_top_example(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());

    FIXTURE_ASSERT_TEXT(write_mem(format_find("top"), p, 1, 2),
        "==================================\n"
        "  Mode: cpu(10000)\n"
        "  Samples: 6 (0.00% miss rate)\n"
        "  GC: 0 (0.00%)\n"
        "  Threads: 2, interval 10.000 ms\n"
        "==================================\n"
        "     TOTAL    (pct)     SAMPLES    (pct)     FRAME\n"
        "         3  (50.0%)           3  (50.0%)     b (prog.c:30) [prog]\n"
        "         2  (33.3%)           2  (33.3%)     d (prog.c:50) [prog]\n"
        "         1  (16.7%)           1  (16.7%)     c (prog.c:40) [prog]\n"
        "         6 (100.0%)           0   (0.0%)     main (prog.c:10) [prog]\n"
        "         4  (66.7%)           0   (0.0%)     a (prog.c:20) [prog]\n"
        "\n"
        "== thread main-100: 4 samples\n"
        "     TOTAL    (pct)     SAMPLES    (pct)     FRAME\n"
        "         3  (75.0%)           3  (75.0%)     b (prog.c:30) [prog]\n"
        "         1  (25.0%)           1  (25.0%)     c (prog.c:40) [prog]\n"
        "         4 (100.0%)           0   (0.0%)     main (prog.c:10) [prog]\n"
        "         4 (100.0%)           0   (0.0%)     a (prog.c:20) [prog]\n"
        "\n"
        "== thread worker-101: 2 samples\n"
        "     TOTAL    (pct)     SAMPLES    (pct)     FRAME\n"
        "         2 (100.0%)           2 (100.0%)     d (prog.c:50) [prog]\n"
        "         2 (100.0%)           0   (0.0%)     main (prog.c:10) [prog]\n");
}

static void test_top_meta_and_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 70000, "w");
    uint32_t f = fixture_frame(p, "a\nb", NULL, NULL, 0);
    char *got;

    FIXTURE_META(p, .pid = 4242, .cmdline = "prog --x\ty",
                 .interval_ns = 2000000, .duration_ns = 1500000000,
                 .idle = true);
    FIXTURE_ADD_IDS(p, t, 2, f);
    got = fixture_keep(state, write_mem(format_find("top"), p, 1, 2));
    FIXTURE_ASSERT_HAS(got,
        "  Mode: wall(2000)\n",
        "  Command: prog --x y (pid 4242)\n",
        "  Threads: 1, interval 2.000 ms, "
        "duration 1.500 s\n",
        "(100.0%)     a b\n");
    assert_null(strstr(got, "== thread"));
}

UNIT_MAIN(
    cmocka_unit_test(test_text_golden),
    cmocka_unit_test(test_text_registry),
    cmocka_unit_test(test_text_defaults_hide_nothing),
    FIXTURE_TEST(test_text_hiding),
    FIXTURE_TEST(test_text_recursion),
    FIXTURE_TEST(test_text_cycle),
    FIXTURE_TEST(test_text_names),
    FIXTURE_TEST(test_text_long_name),
    FIXTURE_TEST(test_text_meta),
    FIXTURE_TEST(test_top_example),
    FIXTURE_TEST(test_top_meta_and_names))
