/* test_callgrind.c - the callgrind exporter.
 *
 * The output is read back by a small reader that follows
 * callgrind_annotate's rules (name compression, fl/fn/cfl/cfn/calls, and
 * its --inclusive=yes arithmetic: a called function's inclusive cost is
 * the sum of its incoming call costs, a root's is self plus outgoing
 * calls), and every function's self and inclusive cost must equal
 * profile_flat's self and total, also under recursion. */
#include "fixture.h"

static uint32_t fn(struct profile *p, const char *name)
{
    if (strcmp(name, "ext") == 0)
        return fixture_frame(p, name, "libext.so", "ext.c", 10);
    return fixture_frame(p, name, "prog", "prog.c", 10);
}

static char *write_cg(const struct profile *p)
{
    return fixture_write(format_find("callgrind"), p, NULL, NULL);
}

/* --- a reader with callgrind_annotate's arithmetic ----------------------- */

#define MAX_FN 64
#define MAX_NAMES 128

struct cgfn {
    char key[256];        /* "file:function" */
    uint64_t self;        /* cost lines outside calls */
    uint64_t root_incl;   /* self + outgoing call costs */
    uint64_t incoming;    /* sum of costs of calls into it */
    bool called;
};

struct cgread {
    struct cgfn fn[MAX_FN];
    size_t nfn;
    char *names[3][MAX_NAMES]; /* fl, fn, ob compression tables */
    uint64_t summary, totals;
    size_t self_calls;         /* calls of a function by itself */
    char header[4096];         /* header lines, for checks */
};

static struct cgfn *cg_fn(struct cgread *r, const char *file,
                          const char *name)
{
    char key[256];

    snprintf(key, sizeof(key), "%s:%s", file, name);
    for (size_t i = 0; i < r->nfn; i++)
        if (strcmp(r->fn[i].key, key) == 0)
            return &r->fn[i];
    assert_true(r->nfn < MAX_FN);
    snprintf(r->fn[r->nfn].key, sizeof(r->fn[r->nfn].key), "%s", key);
    return &r->fn[r->nfn++];
}

/* callgrind_annotate's uncompressed_name: "(N) name" defines, "(N)" uses. */
static const char *uncompress(struct cgread *r, int ns, const char *s)
{
    char *end;
    long id;

    if (*s != '(')
        return s;
    id = strtol(s + 1, &end, 10);
    assert_true(end > s + 1 && *end == ')' && id >= 0 && id < MAX_NAMES);
    end++;
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end) {
        free(r->names[ns][id]);
        r->names[ns][id] = strdup(end);
    }
    assert_non_null(r->names[ns][id]);
    return r->names[ns][id];
}

static void cg_read(const char *text, struct cgread *r)
{
    char *copy = strdup(text), *save = NULL, *line;
    bool in_header = true;
    const char *file = NULL;
    char cfile[256] = "";
    struct cgfn *cur = NULL, *callee = NULL;
    uint64_t calls = 0;

    memset(r, 0, sizeof(*r));
    for (line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (in_header) {
            strncat(r->header, line, sizeof(r->header) - strlen(r->header) - 2);
            strcat(r->header, "\n");
            if (strncmp(line, "events:", 7) == 0)
                in_header = false;
            continue;
        }
        if (line[0] == '#')
            continue;
        if (line[0] >= '0' && line[0] <= '9') {
            unsigned long long ln, cost;

            assert_int_equal(sscanf(line, "%llu %llu", &ln, &cost), 2);
            assert_non_null(cur);
            if (calls) {
                r->self_calls += callee == cur;
                callee->incoming += cost;
                callee->called = true;
                cur->root_incl += cost;
                calls = 0;
            } else {
                cur->self += cost;
                cur->root_incl += cost;
            }
        } else if (strncmp(line, "fl=", 3) == 0) {
            file = uncompress(r, 0, line + 3);
        } else if (strncmp(line, "fn=", 3) == 0) {
            assert_non_null(file);
            cur = cg_fn(r, file, uncompress(r, 1, line + 3));
        } else if (strncmp(line, "ob=", 3) == 0 ||
                   strncmp(line, "cob=", 4) == 0) {
            uncompress(r, 2, strchr(line, '=') + 1);
        } else if (strncmp(line, "cfl=", 4) == 0 ||
                   strncmp(line, "cfi=", 4) == 0) {
            snprintf(cfile, sizeof(cfile), "%s", uncompress(r, 0, line + 4));
        } else if (strncmp(line, "cfn=", 4) == 0) {
            const char *name = uncompress(r, 1, line + 4);

            callee = cg_fn(r, cfile[0] ? cfile : file, name);
            cfile[0] = '\0';
        } else if (strncmp(line, "calls=", 6) == 0) {
            calls = strtoull(line + 6, NULL, 10);
            assert_true(calls > 0);
            assert_non_null(callee);
        } else if (strncmp(line, "summary: ", 9) == 0) {
            r->summary = strtoull(line + 9, NULL, 10);
        } else if (strncmp(line, "totals: ", 8) == 0) {
            r->totals = strtoull(line + 8, NULL, 10);
        } else {
            fail_msg("malformed line '%s'", line);
        }
    }
    free(copy);
}

static void cg_free(struct cgread *r)
{
    for (int ns = 0; ns < 3; ns++)
        for (int i = 0; i < MAX_NAMES; i++)
            free(r->names[ns][i]);
}

static uint64_t inclusive(const struct cgfn *f)
{
    return f->called ? f->incoming : f->root_incl;
}

static const struct cgfn *find(const struct cgread *r, const char *key)
{
    for (size_t i = 0; i < r->nfn; i++)
        if (strcmp(r->fn[i].key, key) == 0)
            return &r->fn[i];
    fail_msg("no function %s", key);
    return NULL;
}

/* Every function's self and inclusive cost match profile_flat, and the
 * thread functions' inclusive costs their threads' samples. */
static void check_against_flat(const struct profile *p, const char *text)
{
    struct cgread r;
    struct profile_flat *flat;
    long n = profile_flat(p, &flat);
    uint64_t sum = 0;

    cg_read(text, &r);
    assert_true(n > 0);
    for (long i = 0; i < n; i++) {
        const struct frame_desc *d = profile_frame(p, flat[i].frame);
        char key[256];
        const struct cgfn *f;

        snprintf(key, sizeof(key), "%s:%s", d->file ? d->file : "???",
                 d->name);
        f = find(&r, key);
        if (f->self != flat[i].self || inclusive(f) != flat[i].total)
            fail_msg("%s: self %llu incl %llu, flat self %llu total %llu",
                     key, (unsigned long long)f->self,
                     (unsigned long long)inclusive(f),
                     (unsigned long long)flat[i].self,
                     (unsigned long long)flat[i].total);
        sum += f->self;
    }
    for (uint32_t t = 0; t < profile_thread_count(p); t++) {
        const struct profile_thread *th = profile_thread_at(p, t);
        char key[256];
        const struct cgfn *f;

        snprintf(key, sizeof(key), "???:%s-%lld", th->name,
                 (long long)th->tid);
        f = find(&r, key);
        assert_false(f->called);
        assert_int_equal(inclusive(f), profile_node(p, th->node)->total);
        sum += f->self;
    }
    assert_int_equal(sum, profile_samples(p));
    assert_int_equal(r.summary, profile_samples(p));
    assert_int_equal(r.totals, profile_samples(p));
    free(flat);
    cg_free(&r);
}

/* --- tests --------------------------------------------------------------- */

static struct profile *example(void)
{
    return fixture_example(fn, false);
}

static void test_example(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char *out;
    struct cgread r;

    FIXTURE_META(p, .pid = 4242, .cmdline = "./prog a\nb",
                 .interval_ns = 1000000, .duration_ns = 2000000000);
    out = fixture_keep(state, write_cg(p));
    assert_true(strncmp(out, "# callgrind format\nversion: 1\n", 30) == 0);
    check_against_flat(p, out);
    cg_read(out, &r);
    assert_non_null(strstr(r.header, "\npid: 4242\n"));
    assert_non_null(strstr(r.header, "\ncmd: ./prog a b\n"));
    assert_non_null(strstr(r.header, "\ndesc: Interval: 1000000 ns\n"));
    assert_non_null(strstr(r.header, "\ndesc: Duration: 2000000000 ns\n"));
    assert_non_null(strstr(r.header, "\npositions: line\n"));
    assert_non_null(strstr(r.header, "\nevents: Samples\n"));
    /* FORMATS.md: main 6, a 4, b 3, d 2, c 1. */
    assert_int_equal(inclusive(find(&r, "prog.c:main")), 6);
    assert_int_equal(inclusive(find(&r, "prog.c:a")), 4);
    assert_int_equal(inclusive(find(&r, "prog.c:b")), 3);
    assert_int_equal(inclusive(find(&r, "prog.c:d")), 2);
    assert_int_equal(inclusive(find(&r, "prog.c:c")), 1);
    assert_int_equal(inclusive(find(&r, "???:main-100")), 4);
    assert_int_equal(inclusive(find(&r, "???:worker-101")), 2);
    /* summary: directly after events: */
    FIXTURE_ASSERT_HAS(out,
        "events: Samples\nsummary: 6\n",
        "\ntotals: 6\n");
    cg_free(&r);
}

static void test_recursion(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "rec");
    char *out;
    struct cgread r;

    FIXTURE_ADD_NAMES(p, t, fn, 2, "f", "f", "g");
    FIXTURE_ADD_NAMES(p, t, fn, 3, "f", "g", "f", "g");
    FIXTURE_ADD_NAMES(p, t, fn, 1, "g", "f");
    FIXTURE_ADD_NAMES(p, t, fn, 4, "h", "f", "h", "f", "f");
    FIXTURE_ADD_NAMES(p, t, fn, 5, "f", "f", "f");
    FIXTURE_ADD_NAMES(p, t, fn, 1, "f", "ext", "f", "ext");
    out = fixture_keep(state, write_cg(p));
    check_against_flat(p, out);
    /* Direct recursion never becomes a call of f by f. */
    cg_read(out, &r);
    assert_int_equal(r.self_calls, 0);
    /* A callee in another file gets a cfl= line. */
    FIXTURE_ASSERT_HAS(out,
        "cfl=(3) ext.c\n",
        "cob=(3) libext.so\n");
    cg_free(&r);
}

/* Pseudo-random stacks over a few names: the arithmetic holds for any
 * shape of recursion. */
static void test_random_stacks(void **state)
{
    static const char *const names[] = { "a", "b", "c", "d", "e", "ext" };
    struct profile *p = fixture_profile(state);
    uint32_t th[3];
    uint64_t x = 88172645463325252ull;
    char *out;

    th[0] = profile_thread(p, 10, "t0");
    th[1] = profile_thread(p, 11, "t1");
    th[2] = profile_thread(p, 12, "t2");
    for (int i = 0; i < 400; i++) {
        const char *st[12];
        size_t n;

        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        n = x % 12;
        for (size_t k = 0; k < n; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            st[k] = names[x % 6];
        }
        fixture_add_names(p, th[i % 3], fn, st, n, 1 + x % 5);
    }
    out = fixture_keep(state, write_cg(p));
    check_against_flat(p, out);
}

static void test_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 5, "th\nread");
    char *out;
    struct cgread r;

    FIXTURE_ADD_NAMES(p, t, fn, 1, "main", "line\nbreak\rcr",
                      "(7) looks compressed");
    FIXTURE_ADD_NAMES(p, t, fn, 2, "main", "");
    FIXTURE_ADD_NAMES(p, t, fn, 3, "main",
                      "std::map<int, int>::operator[](int const&)");
    out = fixture_keep(state, write_cg(p));
    assert_null(strstr(out, "line\nbreak"));
    assert_non_null(strstr(out, "line break cr\n"));
    cg_read(out, &r);
    assert_int_equal(inclusive(find(&r, "prog.c:(7) looks compressed")), 1);
    assert_int_equal(find(&r, "prog.c:[unknown]")->self, 2);
    assert_int_equal(
        find(&r, "prog.c:std::map<int, int>::operator[](int const&)")->self,
        3);
    assert_int_equal(inclusive(find(&r, "???:th read-5")), 6);
    cg_free(&r);
}

/* Names with nothing visible (issue 11, item 9): callgrind_annotate reads
 * "cfn=(37)   " as a use of id 37, never defined.  Each is written
 * "[unknown]", function, file and object alike. */
static void test_blank_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 5, "t");
    uint32_t main_fn = fn(p, "main");
    uint32_t blank = fixture_frame(p, "   ", " \t ", "  ", 3);
    uint32_t ctl = fixture_frame(p, "\n\x7f\r", "prog", "prog.c", 4);
    uint32_t leaf = fixture_frame(p, "leaf", "  ", "\t", 5);
    char *out;
    size_t defs = 0;

    FIXTURE_ADD_IDS(p, t, 2, main_fn, blank, ctl, leaf);
    FIXTURE_ADD_IDS(p, t, 1, main_fn, ctl);
    out = fixture_keep(state, write_cg(p));
    for (char *line = out; *line;) {
        char *end = strchr(line, '\n'), *close = strstr(line, ")");
        size_t len = end ? (size_t)(end - line) : strlen(line);

        /* a compressed definition "KEY=(N) name": name has to show */
        if (line[0] != ' ' && close && close < line + len &&
            strncmp(line, "calls=", 6) != 0 && close[1] == ' ') {
            bool visible = false;

            for (char *c = close + 2; c < line + len; c++)
                visible |= (unsigned char)*c > ' ' && *c != 0x7f;
            if (!visible)
                fail_msg("blank name: '%.*s'", (int)len, line);
            defs++;
        }
        line += len + (end != NULL);
    }
    assert_true(defs >= 6);
    assert_non_null(strstr(out, "\ncob=(3) [unknown]\ncfl=(3) [unknown]\n"
                                "cfn=(3) [unknown]\n"));
}

/* Self cost is spread over the lines the profile counted; the rest goes
 * on the function's first line. */
static void test_lines(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 5, "t");
    struct frame_desc d = { .name = "hot", .file = "hot.c", .line = 40 };
    uint32_t hot = profile_intern_frame(p, &d), mainf = fn(p, "main");
    struct stack_frame st[2] = { { .frame = mainf, .line = 11 },
                                 { .frame = hot, .line = 42 } };
    char *out;

    assert_int_equal(profile_add_stack(p, t, st, 2, 3), 0);
    st[1].line = 45;
    assert_int_equal(profile_add_stack(p, t, st, 2, 1), 0);
    st[1].line = 0;
    assert_int_equal(profile_add_stack(p, t, st, 2, 2), 0);
    out = fixture_keep(state, write_cg(p));
    /* hot's block comes first (frame order) and names it; main's call
     * record refers to it by number, from main's first line. */
    FIXTURE_ASSERT_HAS(out,
        "fn=(3) hot\n42 3\n45 1\n40 2\n",
        "cfn=(3)\ncalls=1 40\n10 6\n");
    check_against_flat(p, out);
}

static void test_empty_stacks_and_derived(void **state)
{
    struct profile *p = fixture_keep_profile(state, example()), *q;
    struct profile_filter f = { .thread = 0, .focus = PROFILE_NONE };
    char *out;

    assert_int_equal(profile_add_stack(p, 1, NULL, 0, 5), 0);
    out = fixture_keep(state, write_cg(p));
    check_against_flat(p, out);
    assert_non_null(strstr(out, "summary: 11\n"));
    /* A derived profile keeps unfiltered line counts: still consistent. */
    q = profile_derive(p, &f);
    out = fixture_keep(state, write_cg(q));
    assert_non_null(strstr(out, "summary: 4\n"));
    profile_free(q);
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(format_find("callgrind"), format_find("callgrind"));
    assert_ptr_equal(format_for_path("x.callgrind", false), format_find("callgrind"));
    assert_ptr_equal(format_for_path("/tmp/callgrind.out.1234", false),
                     format_find("callgrind"));
    assert_null(format_for_path("callgrind.out.", false));
}

UNIT_MAIN(
    FIXTURE_TEST(test_example),
    FIXTURE_TEST(test_recursion),
    FIXTURE_TEST(test_random_stacks),
    FIXTURE_TEST(test_names),
    FIXTURE_TEST(test_blank_names),
    FIXTURE_TEST(test_lines),
    FIXTURE_TEST(test_empty_stacks_and_derived),
    cmocka_unit_test(test_registry))
