/* test_load_folded.c - the folded reader, load_file's format detection,
 * and the file source built on a loaded profile. */
#include "fixture.h"

#include "load.h"
#include "source.h"

#define DATA_DIR "tests/unit/data"

/* Folded text of p (thread roots on), one string. */
static char *to_folded(const struct profile *p, bool no_thread_root)
{
    struct export_opts o;

    export_opts_default(&o);
    o.no_thread_root = no_thread_root;
    return fixture_write(format_find("folded"), p, &o, NULL);
}

static struct profile *load_str(const char *text, char *err, size_t errlen)
{
    return load_folded(text, strlen(text), "t.folded", err, errlen);
}

static void expect_error(const char *text, const char *want)
{
    char err[256] = "";
    struct profile *p = load_str(text, err, sizeof(err));

    if (p)
        fail_msg("loaded, expected \"%s\"", want);
    assert_string_equal(err, want);
}

/* --- reading ------------------------------------------------------------- */

static void test_golden_example(void **state)
{
    struct profile *p = fixture_load_file(state, DATA_DIR "/example.folded");
    char *out;

    assert_non_null(p);
    assert_int_equal(profile_samples(p), 6);
    /* no NAME-TID roots: one thread "all" */
    assert_int_equal(profile_thread_count(p), 1);
    assert_string_equal(profile_thread_at(p, 0)->name, "all");
    assert_int_equal(profile_thread_at(p, 0)->tid, 0);
    out = fixture_keep(state, to_folded(p, true));
    fixture_assert_same_lines(out, "main;a;b 3\nmain;a;c 1\nmain;d 2\n");
    out = fixture_keep(state, to_folded(p, false));
    fixture_assert_same_lines(out, "all-0;main;a;b 3\nall-0;main;a;c 1\n"
                           "all-0;main;d 2\n");
}

static void test_thread_roots(void **state)
{
    char err[256] = "";
    struct profile *p = load_str("main-100;main;a;b 3\n"
                                 "worker-101;main;d 2\n"
                                 "main-100;main;a;c 1\n"
                                 "web content-7 4\n",
                                 err, sizeof(err));
    const struct profile_thread *t;

    (void)state;
    assert_non_null(p);
    assert_int_equal(profile_thread_count(p), 3);
    t = profile_thread_at(p, 0);
    assert_string_equal(t->name, "main");
    assert_int_equal(t->tid, 100);
    assert_int_equal(profile_node(p, t->node)->total, 4);
    t = profile_thread_at(p, 1);
    assert_string_equal(t->name, "worker");
    assert_int_equal(t->tid, 101);
    assert_int_equal(profile_node(p, t->node)->total, 2);
    t = profile_thread_at(p, 2);
    assert_string_equal(t->name, "web content");
    assert_int_equal(t->tid, 7);
    assert_int_equal(profile_node(p, t->node)->self, 4);   /* empty stack */
    assert_int_equal(profile_samples(p), 10);
    /* thread frames are not functions */
    for (uint32_t i = 0; i < profile_frame_count(p); i++)
        assert_true(strcmp(profile_frame(p, i)->name, "main-100") != 0 ||
                    profile_frame(p, i)->kind == FRAME_THREAD);
    profile_free(p);
}

/* Several processes: "comm-PID;thread-TID;..." reads back with each
 * thread in its process, writes out the same, and either level drops. */
static void test_process_roots(void **state)
{
    static const char text[] = "nginx-10;nginx-10;main;a 3\n"
                               "nginx-20;nginx-20;main;b 2\n"
                               "nginx-20;io-21;c 1\n";
    char err[256] = "";
    struct profile *p = load_str(text, err, sizeof(err));
    const struct profile_thread *t;

    (void)state;
    assert_non_null(p);
    assert_int_equal(profile_thread_count(p), 3);
    assert_int_equal(profile_process_count(p), 2);
    t = profile_thread_at(p, 2);
    assert_string_equal(t->name, "io");
    assert_int_equal(t->tid, 21);
    assert_int_equal(t->pid, 20);
    assert_string_equal(t->process, "nginx");
    assert_int_equal(profile_thread_at(p, 0)->pid, 10);

    char *out = to_folded(p, false);
    assert_string_equal(out, text);
    free(out);
    out = to_folded(p, true);
    assert_string_equal(out, "nginx-10;main;a 3\nnginx-20;main;b 2\nnginx-20;c 1\n");
    free(out);
    struct export_opts o;
    export_opts_default(&o);
    o.no_process_root = true;
    out = fixture_write(format_find("folded"), p, &o, NULL);
    assert_string_equal(out, "nginx-10;main;a 3\nnginx-20;main;b 2\nio-21;c 1\n");
    free(out);
    profile_free(p);

    /* one first frame: an ordinary thread-rooted file, whatever the second */
    p = load_str("main-100;f-1;a 3\n", err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(profile_thread_count(p), 1);
    assert_int_equal(profile_process_count(p), 0);
    profile_free(p);
}

static void test_roots_need_every_line(void **state)
{
    char err[256] = "";
    struct profile *p = load_str("main-100;a 1\nfoo;b 2\n", err, sizeof(err));
    char *out;

    (void)state;
    assert_non_null(p);
    assert_int_equal(profile_thread_count(p), 1);
    assert_string_equal(profile_thread_at(p, 0)->name, "all");
    out = to_folded(p, true);
    fixture_assert_same_lines(out, "main-100;a 1\nfoo;b 2\n");
    free(out);
    profile_free(p);
    /* "-7" alone and "x-" are not NAME-DIGITS */
    p = load_str("-7;a 1\n", err, sizeof(err));
    assert_string_equal(profile_thread_at(p, 0)->name, "all");
    profile_free(p);
    p = load_str("x-;a 1\n", err, sizeof(err));
    assert_string_equal(profile_thread_at(p, 0)->name, "all");
    profile_free(p);
}

static void test_round_trip(void **state)
{
    struct profile *p = fixture_profile(state), *q, *r;
    uint32_t t0 = profile_thread(p, 100, "main");
    uint32_t t1 = profile_thread(p, 101, "worker pool");
    const char *names[] = { "main", "a", "b;c", "std::map<int, int>::find",
                            "x 12", "[unknown]" };
    uint32_t f[6];
    char err[256] = "";
    char *first, *second;

    for (int i = 0; i < 6; i++)
        f[i] = profile_intern_frame(p, &(struct frame_desc){ .name = names[i] });
    {
        struct stack_frame s1[] = { { f[0], 0, 0 }, { f[1], 0, 0 },
                                    { f[2], 0, 0 } };
        struct stack_frame s2[] = { { f[0], 0, 0 }, { f[3], 0, 0 },
                                    { f[4], 0, 0 }, { f[5], 0, 0 } };

        assert_int_equal(profile_add_stack(p, t0, s1, 3, 3), 0);
        assert_int_equal(profile_add_stack(p, t1, s2, 4, 9007199254740991ull -
                                                          3), 0);
        assert_int_equal(profile_add_stack(p, t1, s1, 1, 0), 0);
    }
    first = fixture_keep(state, to_folded(p, false));
    q = load_folded(first, strlen(first), "mem", err, sizeof(err));
    assert_non_null(q);
    assert_int_equal(profile_thread_count(q), 2);
    assert_string_equal(profile_thread_at(q, 1)->name, "worker pool");
    assert_int_equal(profile_thread_at(q, 1)->tid, 101);
    assert_int_equal(profile_samples(q), profile_samples(p));
    second = fixture_keep(state, to_folded(q, false));
    assert_string_equal(second, first);   /* same lines, same order */
    /* and once more */
    r = load_folded(second, strlen(second), "mem", err, sizeof(err));
    second = fixture_keep(state, to_folded(r, false));
    assert_string_equal(second, first);
    profile_free(q);
    profile_free(r);
}

static void test_tolerated_input(void **state)
{
    char err[256] = "";
    struct profile *p;
    char *out;

    (void)state;
    /* no final newline, CRLF, blank lines, tabs, empty frames */
    p = load_str("\n  \na;b 3\r\n\nc;;d\t 4\r\ne  5", err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(profile_samples(p), 12);
    out = to_folded(p, true);
    fixture_assert_same_lines(out, "a;b 3\nc;[unknown];d 4\ne 5\n");
    free(out);
    for (uint32_t i = 0; i < profile_frame_count(p); i++)
        if (strcmp(profile_frame(p, i)->name, "[unknown]") == 0)
            assert_int_equal(profile_frame(p, i)->kind, FRAME_SPECIAL);
    profile_free(p);
    /* the largest count and a sum just below 2^53 */
    p = load_str("a 9007199254740990\nb 1\n", err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(profile_samples(p), 9007199254740991ull);
    profile_free(p);
}

static void test_errors(void **state)
{
    char deep[4097 * 2 + 16];
    char *line;

    (void)state;
    expect_error("", "t.folded: no samples");
    expect_error("\n\n  \n", "t.folded: no samples");
    expect_error("hello world\n", "t.folded:1: expected a count after the stack");
    expect_error("a;b 1\na;b\n", "t.folded:2: expected a count after the stack");
    expect_error("a;b 1\n\na;b3\n",
                 "t.folded:3: expected a count after the stack");
    expect_error("12\n", "t.folded:1: expected a stack before the count");
    expect_error("a 0\n", "t.folded:1: count must be a positive integer below 2^53");
    expect_error("a 1.5\n",
                 "t.folded:1: count must be a positive integer below 2^53");
    expect_error("a -3\n",
                 "t.folded:1: count must be a positive integer below 2^53");
    expect_error("a 9007199254740992\n",
                 "t.folded:1: count must be a positive integer below 2^53");
    expect_error("a 99999999999999999999999\n",
                 "t.folded:1: count must be a positive integer below 2^53");
    expect_error("a 9007199254740990\nb 2\n",
                 "t.folded:2: total count reaches 2^53");
    {
        static const char nul[] = "a;b 1\na\0b 2\n";
        char err[256];

        assert_null(load_folded(nul, sizeof(nul) - 1, "t.folded", err,
                                sizeof(err)));
        assert_string_equal(err, "t.folded:2: NUL byte in the line");
    }
    /* 4096 frames are fine, 4097 are not */
    for (int i = 0; i < 4096; i++)
        memcpy(deep + 2 * i, i ? ";f" : "ff", 2);
    strcpy(deep + 2 * 4096, " 1\n");
    {
        char err[256];
        struct profile *p = load_str(deep, err, sizeof(err));

        assert_non_null(p);
        assert_int_equal(profile_node_count(p), 2 + 4096);
        profile_free(p);
    }
    memmove(deep + 2, deep, strlen(deep) + 1);
    memcpy(deep, "g;", 2);
    expect_error(deep, "t.folded:1: stack deeper than 4096 frames");
    /* a line over 1 MiB */
    line = malloc(LOAD_MAX_LINE + 16);
    memset(line, 'x', LOAD_MAX_LINE + 1);
    strcpy(line + LOAD_MAX_LINE + 1, " 1\n");
    expect_error(line, "t.folded:1: line longer than 1 MiB");
    free(line);
}

/* --- load_file ----------------------------------------------------------- */

static char tmp_path[64];

static void put_tmp(const char *suffix, const void *data, size_t len)
{
    fixture_tmp_file(tmp_path, sizeof(tmp_path), suffix, data, len);
}

static void test_load_file_detection(void **state)
{
    char err[512], want[512];
    struct profile *p;

    (void)state;
    /* content wins over the name */
    put_tmp(".txt", "x;y 2\n", 6);
    p = load_file(tmp_path, err, sizeof(err));
    assert_non_null(p);
    assert_int_equal(profile_samples(p), 2);
    profile_free(p);
    unlink(tmp_path);

    /* unknown content and name */
    {
        static const char gz[] = "\x01\x02garbage";

        put_tmp(".bin", gz, sizeof(gz) - 1);
    }
    assert_null(load_file(tmp_path, err, sizeof(err)));
    snprintf(want, sizeof(want),
             "%s: unrecognized format (sproftop reads: folded, pprof, speedscope, racket-json, sampler)", tmp_path);
    assert_string_equal(err, want);
    unlink(tmp_path);

    /* a damaged .folded gets the folded reader's precise error */
    put_tmp(".folded", "a;b 1\nbroken line\n", 18);
    assert_null(load_file(tmp_path, err, sizeof(err)));
    snprintf(want, sizeof(want), "%s:2: expected a count after the stack",
             tmp_path);
    assert_string_equal(err, want);
    unlink(tmp_path);

    /* empty file */
    put_tmp(".folded", "", 0);
    assert_null(load_file(tmp_path, err, sizeof(err)));
    snprintf(want, sizeof(want), "%s: no samples (empty file)", tmp_path);
    assert_string_equal(err, want);
    unlink(tmp_path);

    assert_null(load_file("/nonexistent/x.folded", err, sizeof(err)));
    assert_string_equal(err, "cannot open /nonexistent/x.folded: "
                             "No such file or directory");
    assert_null(load_file("/tmp", err, sizeof(err)));
    assert_string_equal(err, "cannot open /tmp: it is a directory");
}

/* --- the file source ----------------------------------------------------- */

static void test_source_file(void **state)
{
    char err[256] = "";
    struct profile *p = load_str("main-100;main;a 3\nio-7;main;b 2\n", err,
                                 sizeof(err));
    struct profile_meta m = *profile_meta(p);
    struct source *s;
    struct source_status st;
    struct profile *snap;

    (void)state;
    m.interval_ns = 10000000;
    m.duration_ns = 50000000;
    assert_int_equal(profile_set_meta(p, &m), 0);
    s = source_file_new(p, "/some/dir/run.folded");
    assert_non_null(s);
    s->ops->status(s, &st);
    assert_true(st.is_file);
    assert_int_equal(st.state, TARGET_NONE);
    assert_int_equal(st.pid, 0);
    assert_string_equal(st.comm, "run.folded");
    assert_string_equal(st.cmdline, "/some/dir/run.folded");
    assert_int_equal(st.threads, 2);
    assert_int_equal(st.samples, 5);
    assert_int_equal(st.interval_ns, 10000000);
    assert_int_equal(st.elapsed_ns, 50000000);
    assert_false(st.paused);
    assert_string_equal(st.error, "");
    snap = s->ops->snapshot(s);
    assert_non_null(snap);
    assert_int_equal(profile_samples(snap), 5);
    assert_int_equal(profile_node_count(snap), profile_node_count(p));
    profile_free(snap);
    assert_int_equal(s->ops->generation(s), s->ops->generation(s));
    assert_int_equal(s->ops->set_paused(s, true), -1);
    assert_int_equal(s->ops->set_interval(s, 1000000), -1);
    assert_int_equal(s->ops->reset(s), -1);
    s->ops->status(s, &st);
    assert_int_equal(st.samples, 5);   /* reset did nothing */
    s->ops->close(s);
    assert_null(source_file_new(NULL, "x"));
}

UNIT_MAIN(
    FIXTURE_TEST(test_golden_example),
    cmocka_unit_test(test_thread_roots),
    cmocka_unit_test(test_process_roots),
    cmocka_unit_test(test_roots_need_every_line),
    FIXTURE_TEST(test_round_trip),
    cmocka_unit_test(test_tolerated_input),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_load_file_detection),
    cmocka_unit_test(test_source_file))
