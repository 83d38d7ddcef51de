/* test_sampler.c - the Apple Sampler writer (export_apple) and reader
 * (load_apple): the golden file tests/unit/data/example.sampler (a copy
 * of shared/formats/example.sampler) written byte for byte and read back,
 * round trips (write -> read -> write gives the same bytes, and the same
 * stacks per thread), thread-id remapping, name sanitizing, and the
 * reader's one-line errors on damaged or hostile input. */
#include "fixture.h"

#include "load.h"

#define DATA_DIR "tests/unit/data"

struct buf {
    char *data;
    size_t len;
};

static uint32_t fn_mod(struct profile *p, const char *name, const char *module)
{
    return fixture_frame(p, name, module, "prog.c", 0);
}

static uint32_t golden_fn(struct profile *p, const char *name)
{
    return fn_mod(p, name, "/usr/bin/prog");
}

/* FORMATS.md's example as the golden file was made: module
 * /usr/bin/prog, threads 100 "main" and 101 "worker". */
static struct profile *example(void)
{
    return fixture_example(golden_fn, false);
}

static struct buf write_apple(const struct profile *p)
{
    struct buf b;

    b.data = fixture_write(format_find("sampler"), p, NULL, &b.len);
    return b;
}

static struct buf slurp(const char *path)
{
    struct buf b;

    b.data = fixture_slurp(path, &b.len);
    return b;
}

/* Every stack of p as "TID:frame;frame COUNT" lines, sorted. */
struct collect {
    const struct profile *p;
    char *text;
    size_t len;
    FILE *f;
};

static int collect_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                         size_t n, uint64_t count)
{
    struct collect *c = ctx;

    fprintf(c->f, "%lld:", (long long)profile_thread_at(c->p, thread)->tid);
    for (size_t i = 0; i < n; i++)
        fprintf(c->f, "%s%s", i ? ";" : "", profile_frame(c->p, frames[i])->name);
    fprintf(c->f, " %llu\n", (unsigned long long)count);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *stacks_of(const struct profile *p)
{
    struct collect c = { .p = p };
    char *lines[256], *save = NULL, *out;
    size_t n = 0;

    c.f = open_memstream(&c.text, &c.len);
    assert_int_equal(profile_foreach_stack(p, collect_stack, &c), 0);
    fclose(c.f);
    out = calloc(1, c.len + 1);
    for (char *l = strtok_r(c.text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        assert_true(n < 256);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof(lines[0]), cmp_str);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(c.text);
    return out;
}

static struct profile *load_ok(const struct buf *b)
{
    char err[256] = "";
    struct profile *p = load_apple(b->data, b->len, "x.sampler", err,
                                     sizeof(err));

    if (!p)
        fprintf(stderr, "# load_apple: %s\n", err);
    assert_non_null(p);
    assert_string_equal(err, "");
    return p;
}

static void assert_same_bytes(const struct buf *a, const struct buf *b)
{
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
}

/* --- golden ------------------------------------------------------------------ */

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(format_find("sampler"), format_find("sampler"));
    assert_ptr_equal(format_for_path("/tmp/x.sampler", false), format_find("sampler"));
}

static void test_golden_write(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    struct buf got = write_apple(p), want = slurp(DATA_DIR "/example.sampler");

    assert_same_bytes(&got, &want);
    free(got.data);
    free(want.data);
}

static void test_golden_read(void **state)
{
    struct buf in = slurp(DATA_DIR "/example.sampler");
    struct profile *p = fixture_keep_profile(state, load_ok(&in));
    char *st = fixture_keep(state, stacks_of(p));
    const struct frame_desc *d;

    assert_string_equal(st, "100:main;a;b 3\n100:main;a;c 1\n101:main;d 2\n");
    assert_int_equal(profile_thread_count(p), 2);
    assert_int_equal(profile_thread_at(p, 0)->tid, 100);
    assert_string_equal(profile_thread_at(p, 0)->name, "Thread_0064");
    assert_int_equal(profile_thread_at(p, 1)->tid, 101);
    assert_string_equal(profile_thread_at(p, 1)->name, "Thread_0065");
    assert_int_equal(profile_samples(p), 6);
    /* frames: first use order, module from the library path, no file */
    assert_int_equal(profile_frame_count(p), 2 + 5);
    for (uint32_t i = 0; i < profile_frame_count(p); i++) {
        d = profile_frame(p, i);
        if (d->kind == FRAME_FUNC) {
            assert_string_equal(d->module, "/usr/bin/prog");
            assert_null(d->file);
        }
    }
    free(in.data);
}

/* write -> read -> write gives the same bytes; the profile read back has
 * the same stacks and counts per thread. */
static void round_trip(struct profile *p)
{
    struct buf first = write_apple(p), second;
    struct profile *q = load_ok(&first), *r;
    char *a, *b;

    second = write_apple(q);
    assert_same_bytes(&first, &second);
    r = load_ok(&second);
    a = stacks_of(q);
    b = stacks_of(r);
    assert_string_equal(a, b);
    free(a);
    free(b);
    free(first.data);
    free(second.data);
    profile_free(q);
    profile_free(r);
}

static void test_round_trip_golden(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    struct buf first = write_apple(p);
    struct profile *q = load_ok(&first);
    char *a = fixture_keep(state, stacks_of(p));
    char *b = fixture_keep(state, stacks_of(q));

    assert_string_equal(a, b);
    round_trip(p);
    free(first.data);
    profile_free(q);
}

/* --- thread ids, symbol ids, names -------------------------------------------- */

static uint32_t be32_at(const char *s)
{
    const unsigned char *b = (const unsigned char *)s;

    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
           b[3];
}

/* Symbol ids of the table, in file order. */
static size_t symbol_ids(const struct buf *b, uint32_t *ids, size_t cap)
{
    const char *s = b->data + strlen("@supersamplerV1.0\n@symboltableV1.1\n");
    size_t n = 0;

    while (*s == '\t' && n < cap) {
        ids[n++] = be32_at(s + 1);
        s = memchr(s + 11, '\n', (size_t)(b->data + b->len - (s + 11)));
        assert_non_null(s);
        s++;
    }
    return n;
}

static void test_thread_remap(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    /* 9 and 0x0a01 hold a TAB or LF byte, 70000 is not 16-bit; 100 and
     * 0x100 fit and are kept, so functions skip id 0x100. */
    int64_t tids[] = { 9, 0x0a01, 70000, 100, 0x100 };
    uint32_t t[5], f[12];
    uint32_t ids[32];
    struct buf out;
    size_t n;
    char name[16];

    for (int i = 0; i < 5; i++)
        t[i] = profile_thread(p, tids[i], "w");
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        f[i] = fn_mod(p, name, "m");
    }
    for (int i = 0; i < 5; i++)
        fixture_add_ids(p, t[i], f, 12, (uint64_t)i + 1, false);
    out = write_apple(p);
    n = symbol_ids(&out, ids, 32);
    assert_int_equal(n, 12 + 5);
    /* functions from 0x101 (0x100 is thread 256's), skipping 0x109 and
     * 0x10a, whose low byte is TAB or LF */
    {
        const uint32_t want[12] = { 0x101, 0x102, 0x103, 0x104, 0x105, 0x106,
                                    0x107, 0x108, 0x10b, 0x10c, 0x10d, 0x10e };

        for (int i = 0; i < 12; i++)
            assert_int_equal(ids[i], want[i]);
    }
    /* threads in order: 9 -> 1, 0x0a01 -> 2, 70000 -> 3, 100, 0x100 */
    assert_int_equal(ids[12], 1);
    assert_int_equal(ids[13], 2);
    assert_int_equal(ids[14], 3);
    assert_int_equal(ids[15], 100);
    assert_int_equal(ids[16], 0x100);
    assert_non_null(memmem(out.data, out.len, "\tThread_0003\tThread_0003\t"
                                              "Thread_0003\n", 37));
    assert_non_null(memmem(out.data, out.len, "@threadV1.0\t0100\n", 17));
    q = load_ok(&out);
    assert_int_equal(profile_thread_count(q), 5);
    assert_int_equal(profile_thread_at(q, 0)->tid, 1);
    assert_int_equal(profile_thread_at(q, 2)->tid, 3);
    assert_string_equal(profile_thread_at(q, 2)->name, "Thread_0003");
    assert_int_equal(profile_thread_at(q, 4)->tid, 0x100);
    assert_int_equal(profile_samples(q), 1 + 2 + 3 + 4 + 5);
    round_trip(p);
    free(out.data);
    profile_free(q);
}

/* Names with TAB/LF/CR become spaces, an empty name "[unknown]", a
 * missing module an empty field; frames that differ only by source file
 * share a symbol; empty stacks, special frames, threads without samples
 * and non-ASCII bytes survive. */
static void test_names_and_edges(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    uint32_t t0 = profile_thread(p, 5, "a"), t1 = profile_thread(p, 6, "idle");
    uint32_t t2 = profile_thread(p, 7, "b");
    struct frame_desc tabbed = { .name = "x\ty\nz\r", .module = "lib\tm.so",
                                 .kind = FRAME_FUNC };
    struct frame_desc empty = { .name = "", .kind = FRAME_FUNC };
    struct frame_desc f1 = { .name = "helper", .module = "m", .file = "one.c",
                             .kind = FRAME_FUNC };
    struct frame_desc f2 = { .name = "helper", .module = "m", .file = "two.c",
                             .kind = FRAME_FUNC };
    struct frame_desc special = { .name = "[truncated]",
                                  .kind = FRAME_SPECIAL };
    struct frame_desc cxx = { .name = "std::map<int, std::string>::operator[]"
                                      " \xc3\xbc \xff",
                              .module = "libstdc++.so.6",
                              .kind = FRAME_FUNC };
    uint32_t a = profile_intern_frame(p, &tabbed);
    uint32_t e = profile_intern_frame(p, &empty);
    uint32_t h1 = profile_intern_frame(p, &f1), h2 = profile_intern_frame(p, &f2);
    uint32_t s = profile_intern_frame(p, &special);
    uint32_t c = profile_intern_frame(p, &cxx);
    struct buf out;
    char *st;

    (void)t1;
    FIXTURE_ADD_IDS(p, t0, 2, a, e, c);
    FIXTURE_ADD_IDS(p, t0, 1, s, h1);
    FIXTURE_ADD_IDS(p, t2, 4, s, h2);
    assert_int_equal(profile_add_stack(p, t2, NULL, 0, 3), 0);
    out = write_apple(p);
    assert_non_null(memmem(out.data, out.len, "\tx y z \tlib m.so\tlib m.so\n",
                           26));
    assert_non_null(memmem(out.data, out.len, "\t[unknown]\t\t\n", 13));
    q = load_ok(&out);
    st = fixture_keep(state, stacks_of(q));
    assert_string_equal(st,
                        "5:[truncated];helper 1\n"
                        "5:x y z ;[unknown];std::map<int, std::string>::"
                        "operator[] \xc3\xbc \xff 2\n"
                        "7: 3\n"
                        "7:[truncated];helper 4\n");
    assert_int_equal(profile_thread_count(q), 3);   /* "idle" kept */
    assert_int_equal(profile_thread_at(q, 1)->tid, 6);
    for (uint32_t i = 0; i < profile_frame_count(q); i++) {
        const struct frame_desc *d = profile_frame(q, i);

        if (strcmp(d->name, "[truncated]") == 0)
            assert_int_equal(d->kind, FRAME_SPECIAL);
        if (strcmp(d->name, "[unknown]") == 0) {
            assert_int_equal(d->kind, FRAME_SPECIAL);
            assert_null(d->module);
        }
    }
    round_trip(p);
    free(out.data);
    profile_free(q);
}

static void test_empty_profile(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    struct buf out = write_apple(p);

    assert_int_equal(out.len, strlen("@supersamplerV1.0\n@symboltableV1.1\n"
                                     "@end\n@end\n"));
    assert_memory_equal(out.data, "@supersamplerV1.0\n@symboltableV1.1\n"
                                  "@end\n@end\n", out.len);
    {
        /* well-formed but empty: refused like the other readers' */
        char err[256] = "";

        q = load_apple(out.data, out.len, "x.sampler", err, sizeof(err));
        assert_null(q);
        assert_string_equal(err, "x.sampler: no samples");
    }
    free(out.data);
}

/* Identical consecutive lines are one stack with a count. */
static void test_counts_coalesce(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t f = fn_mod(p, "f", "m"), g = fn_mod(p, "g", "m");
    struct buf out;
    char *st;

    FIXTURE_ADD_IDS(p, t, 1000, f, g);
    FIXTURE_ADD_IDS(p, t, 1, f);
    out = write_apple(p);
    q = load_ok(&out);
    st = fixture_keep(state, stacks_of(q));
    assert_string_equal(st, "1:f 1\n1:f;g 1000\n");
    assert_int_equal(profile_node_count(q), 1 + 1 + 2);
    free(out.data);
    profile_free(q);
}

/* --- the reader on bad input ------------------------------------------------- */

/* Load b and expect a failure whose one-line message is
 * "x.sampler: byte AT: ..." containing `what`. */
static void expect_error(const char *data, size_t len, long at,
                         const char *what)
{
    char err[256] = "", prefix[64];
    struct profile *p = load_apple(data, len, "x.sampler", err, sizeof(err));

    if (p || (what && !strstr(err, what)))
        fprintf(stderr, "# got \"%s\", want \"%s\" at %ld\n", err,
                what ? what : "", at);
    assert_null(p);
    assert_null(strchr(err, '\n'));
    if (at >= 0) {
        snprintf(prefix, sizeof(prefix), "x.sampler: byte %ld: ", at);
        assert_int_equal(strncmp(err, prefix, strlen(prefix)), 0);
    } else {
        assert_non_null(strstr(err, "x.sampler: byte "));
    }
    if (what)
        assert_non_null(strstr(err, what));
}

static void test_bad_input(void **state)
{
    struct buf g = slurp(DATA_DIR "/example.sampler");
    char *m = malloc(g.len + 64);
    /* offsets in the golden file */
    const char *thr = memmem(g.data, g.len, "@threadV1.0\t0064\n", 17);
    size_t line = (size_t)(thr - g.data) + 17;   /* first stack line */
    size_t sym = strlen("@supersamplerV1.0\n@symboltableV1.1\n");

    (void)state;
    expect_error("hello", 5, 0, "not a Sampler file");
    expect_error("@supersamplerV1.0\n@symbols\n", 27, 18,
                 "expected @symboltableV1.1");
    /* every proper prefix fails cleanly */
    for (size_t n = 0; n < g.len; n++)
        expect_error(g.data, n, -1, NULL);

    /* a frame id that is not in the table */
    memcpy(m, g.data, g.len);
    m[line + 17 + 3] = 0x77;
    expect_error(m, g.len, (long)(line + 17), "frame id 0x00000177 is not in "
                                              "the symbol table");
    /* an absurd frame count */
    memcpy(m, g.data, g.len);
    memset(m + line + 13, 0xff, 4);
    expect_error(m, g.len, (long)(line + 13), "stack deeper than 4096 frames");
    /* a frame count past the end of the file */
    memcpy(m, g.data, g.len);
    m[line + 13 + 2] = 0x01;   /* 0x103 frames */
    expect_error(m, g.len, (long)(line + 17), "truncated stack line");
    /* a sample header that is not 1 0 1 */
    memcpy(m, g.data, g.len);
    m[line + 4] = 2;
    expect_error(m, g.len, (long)(line + 1), "be32 1, 0, 1");
    /* a bad thread id */
    memcpy(m, g.data, g.len);
    m[(size_t)(thr - g.data) + 13] = 'x';
    expect_error(m, g.len, (long)(thr - g.data) + 13, "not 4 hex digits");
    /* a NUL byte in a symbol name ("main" of the first entry) */
    memcpy(m, g.data, g.len);
    m[sym + 11 + 1] = '\0';
    expect_error(m, g.len, (long)(sym + 12), "NUL byte");
    /* a duplicate symbol id: the second entry gets the first one's id */
    {
        const char *second =
            (const char *)memchr(g.data + sym, '\n', g.len - sym) + 1;

        memcpy(m, g.data, g.len);
        m[(second - g.data) + 4] = 0x00;
        expect_error(m, g.len, (long)(second - g.data) + 1,
                     "duplicate symbol id 0x00000100");
    }
    /* garbage after the final @end; trailing blank lines are fine */
    memcpy(m, g.data, g.len);
    memcpy(m + g.len, "junk", 4);
    expect_error(m, g.len + 4, (long)g.len, "data after the final @end");
    memcpy(m + g.len, "\n\n", 2);
    {
        char err[128] = "";
        struct profile *p = load_apple(m, g.len + 2, "x", err, sizeof(err));

        assert_non_null(p);
        profile_free(p);
    }
    /* a symbol field with no end */
    expect_error("@supersamplerV1.0\n@symboltableV1.1\n\t\0\0\1\0\t\0\0\0\0\tmain",
                 35 + 15, 50, "symbol name: expected a TAB after it");
    free(m);
    free(g.data);
}

/* Random damage to a real-looking file: never a crash or a hang, and a
 * failure is always one line naming a byte.  (The ASan build of the unit
 * tests turns any out-of-bounds read into a failure.) */
static void test_fuzz(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    struct buf g = write_apple(p);
    char *m = fixture_keep(state, malloc(g.len));
    uint64_t x = 0x9e3779b97f4a7c15ull;

    for (int iter = 0; iter < 20000; iter++) {
        char err[256] = "";
        struct profile *q;
        int flips = 1 + iter % 4;
        size_t len = g.len;

        memcpy(m, g.data, g.len);
        for (int k = 0; k < flips; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            m[x % g.len] = (char)(x >> 32);
        }
        if (iter % 3 == 0)
            len = (size_t)(x >> 40) % (g.len + 1);
        q = load_apple(m, len, "f", err, sizeof(err));
        if (q) {
            profile_free(q);
        } else {
            assert_non_null(strstr(err, "f: byte "));
            assert_null(strchr(err, '\n'));
        }
    }
    free(g.data);
}

/* load_file picks the reader by content, whatever the file is called. */
static void test_load_file(void **state)
{
    struct profile *p = fixture_keep_profile(state, example()), *q;
    struct buf out = write_apple(p);
    char path[64];
    char err[256] = "";
    char *a, *b;

    fixture_tmp_file(path, sizeof(path), "", out.data, out.len);
    q = load_file(path, err, sizeof(err));
    unlink(path);
    assert_non_null(q);
    a = fixture_keep(state, stacks_of(p));
    b = fixture_keep(state, stacks_of(q));
    assert_string_equal(a, b);
    free(out.data);
    profile_free(q);
}

UNIT_MAIN(
    cmocka_unit_test(test_registry),
    FIXTURE_TEST(test_golden_write),
    FIXTURE_TEST(test_golden_read),
    FIXTURE_TEST(test_round_trip_golden),
    FIXTURE_TEST(test_thread_remap),
    FIXTURE_TEST(test_names_and_edges),
    FIXTURE_TEST(test_empty_profile),
    FIXTURE_TEST(test_counts_coalesce),
    cmocka_unit_test(test_bad_input),
    FIXTURE_TEST(test_fuzz),
    FIXTURE_TEST(test_load_file))
