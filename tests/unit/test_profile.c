/* test_profile.c - the aggregate on hand-made stacks, with every expected
 * table written out here. */
#include "fixture.h"
#include "window.h"

/* Intern function `name` of prog.c in module "prog". */
static uint32_t fn(struct profile *p, const char *name)
{
    return fixture_frame(p, name, "prog", "prog.c", 0);
}

/* count samples of "main;a;b" on thread, frames made by fn. */
static void add(struct profile *p, uint32_t thread, const char *stack,
                uint64_t count)
{
    fixture_add_folded(p, thread, fn, stack, count);
}

/* Node for "main;a;b" below a thread, PROFILE_NONE when absent. */
/* The node of `stack` below thread `thread`, or below the root itself
 * (a merged tree) when thread is PROFILE_NONE. */
static uint32_t node_at(const struct profile *p, uint32_t thread,
                        const char *stack)
{
    char buf[256];
    uint32_t node = thread == PROFILE_NONE ? PROFILE_ROOT
                                           : profile_thread_at(p, thread)->node;
    uint32_t nf = profile_frame_count(p);

    snprintf(buf, sizeof(buf), "%s", stack);
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save);
         tok && node != PROFILE_NONE; tok = strtok_r(NULL, ";", &save)) {
        uint32_t id = PROFILE_NONE;

        for (uint32_t i = 0; i < nf; i++)
            if (strcmp(profile_frame(p, i)->name, tok) == 0 &&
                profile_frame(p, i)->kind != FRAME_THREAD)
                id = i;
        node = id == PROFILE_NONE ? PROFILE_NONE
                                  : profile_child(p, node, id);
    }
    return node;
}

static void check_node(const struct profile *p, uint32_t thread,
                       const char *stack, uint64_t self, uint64_t total)
{
    uint32_t n = node_at(p, thread, stack);

    if (n == PROFILE_NONE)
        fail_msg("no node %s", stack);
    if (profile_node(p, n)->self != self ||
        profile_node(p, n)->total != total)
        fail_msg("%s: self %llu total %llu, want %llu %llu", stack,
                 (unsigned long long)profile_node(p, n)->self,
                 (unsigned long long)profile_node(p, n)->total,
                 (unsigned long long)self, (unsigned long long)total);
}

/* check_node for each line "stack self total" of want, in order. */
static void check_nodes(const struct profile *p, uint32_t thread,
                        const char *want)
{
    for (const char *l = want; *l; l = strchr(l, '\n') + 1) {
        char stack[256];
        unsigned long long self, total;

        assert_int_equal(sscanf(l, "%255s %llu %llu", stack, &self, &total),
                         3);
        check_node(p, thread, stack, self, total);
    }
}

/* profile_lines of frame (per address when by_addr) is exactly want[]. */
static void expect_lines(const struct profile *p, uint32_t frame,
                         bool by_addr, const struct profile_linecount *want,
                         size_t n)
{
    struct profile_linecount *lc;

    assert_int_equal(profile_lines(p, frame, by_addr, &lc), (long)n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(lc[i].key, want[i].key);
        assert_int_equal(lc[i].self, want[i].self);
        assert_int_equal(lc[i].total, want[i].total);
    }
    free(lc);
}

/* EXPECT_LINES(p, frame, by_addr, { key, self, total }...). */
#define EXPECT_LINES(p, frame, by_addr, ...)                               \
    do {                                                                   \
        const struct profile_linecount want_[] = { __VA_ARGS__ };          \
        expect_lines(p, frame, by_addr, want_,                             \
                     sizeof(want_) / sizeof(want_[0]));                    \
    } while (0)

/* The FORMATS.md example: main;a;b x3, main;a;c x1 on thread 100 "main",
 * main;d x2 on thread 101 "worker" (or all on one thread). */
static struct profile *example(bool two_threads)
{
    struct profile *p = profile_new();
    uint32_t t0, t1;

    assert_non_null(p);
    t0 = profile_thread(p, 100, "main");
    t1 = two_threads ? profile_thread(p, 101, "worker") : t0;
    add(p, t0, "main;a;b", 3);
    add(p, t0, "main;a;c", 1);
    add(p, t1, "main;d", 2);
    return p;
}

/* The example's top-down nodes for check_nodes (each thread's, or all
 * merged). */
#define EXAMPLE_TREE                                                        \
    "main 0 6\nmain;a 0 4\nmain;a;b 3 3\nmain;a;c 1 1\nmain;d 2 2\n"

static void test_nodes_self_total(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(false));

    assert_int_equal(profile_samples(p), 6);
    /* root, thread, main, a, b, c, d */
    assert_int_equal(profile_node_count(p), 7);
    assert_int_equal(profile_node(p, PROFILE_ROOT)->total, 6);
    assert_int_equal(profile_node(p, PROFILE_ROOT)->self, 0);
    assert_int_equal(profile_node(p, profile_thread_at(p, 0)->node)->total,
                     6);
    check_nodes(p, 0, EXAMPLE_TREE);
    assert_int_equal(node_at(p, 0, "main;b"), PROFILE_NONE);
    assert_int_equal(profile_node(p, node_at(p, 0, "main;a;b"))->depth, 4);
    assert_string_equal(
        profile_frame(p, profile_thread_at(p, 0)->frame)->name, "main-100");
    assert_int_equal(profile_frame(p, profile_thread_at(p, 0)->frame)->kind,
                     FRAME_THREAD);
}

static void test_intern_identity(void **state)
{
    struct profile *p = fixture_profile(state);
    struct frame_desc d1 = { .name = "f", .module = "m", .file = "x.c",
                             .addr = 0x10, .line = 3 };
    struct frame_desc d2 = d1;
    struct frame_desc d3 = d1;
    uint32_t a, b, c, e;

    d2.addr = 0x99;   /* not part of the identity */
    d2.line = 7;
    d2.inlined = true;
    d3.file = NULL;   /* part of it */
    a = profile_intern_frame(p, &d1);
    b = profile_intern_frame(p, &d2);
    c = profile_intern_frame(p, &d3);
    d1.kind = FRAME_SPECIAL;
    e = profile_intern_frame(p, &d1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 0);
    assert_int_equal(c, 1);
    assert_int_equal(e, 2);
    assert_int_equal(profile_frame_count(p), 3);
    assert_int_equal(profile_frame(p, a)->addr, 0x10);
    assert_int_equal(profile_frame(p, a)->line, 3);
    assert_null(profile_frame(p, c)->file);
    assert_null(profile_frame(p, 3));
    /* strings are copied */
    {
        char name[8] = "tmp";
        uint32_t t = profile_intern_frame(p, &(struct frame_desc){
                                                 .name = name });

        name[0] = 'X';
        assert_string_equal(profile_frame(p, t)->name, "tmp");
    }
}

static void test_bad_input_adds_nothing(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(false));
    struct stack_frame bad[2] = { { .frame = 0 }, { .frame = 999 } };
    uint32_t nodes = profile_node_count(p);

    assert_int_equal(profile_add_stack(p, 0, bad, 2, 1), -1);
    assert_int_equal(profile_add_stack(p, 5, bad, 1, 1), -1);
    assert_int_equal(profile_node_count(p), nodes);
    assert_int_equal(profile_samples(p), 6);
    /* depth 0 lands on the thread node */
    assert_int_equal(profile_add_stack(p, 0, NULL, 0, 4), 0);
    assert_int_equal(profile_node(p, profile_thread_at(p, 0)->node)->self, 4);
    assert_int_equal(profile_samples(p), 10);
}

static void test_threads(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t a, b, frame;

    a = profile_thread(p, 100, "main");
    b = profile_thread(p, 101, NULL);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_string_equal(profile_thread_at(p, b)->name, "thread");
    frame = profile_thread_at(p, a)->frame;
    /* rename keeps the frame id and renames the frame */
    assert_int_equal(profile_thread(p, 100, "renamed"), a);
    assert_string_equal(profile_thread_at(p, a)->name, "renamed");
    assert_int_equal(profile_thread_at(p, a)->frame, frame);
    assert_string_equal(profile_frame(p, frame)->name, "renamed-100");
    /* ...and the index follows: the new identity finds it, the old one is
     * free for a new frame */
    assert_int_equal(profile_intern_frame(p, &(struct frame_desc){
                         .name = "renamed-100", .kind = FRAME_THREAD }),
                     frame);
    assert_int_not_equal(profile_intern_frame(p, &(struct frame_desc){
                             .name = "main-100", .kind = FRAME_THREAD }),
                         frame);
    assert_int_equal(profile_thread(p, 100, NULL), a);
    assert_string_equal(profile_thread_at(p, a)->name, "renamed");
    assert_int_equal(profile_thread_count(p), 2);
    assert_null(profile_thread_at(p, 2));
    /* thread frame names that collide still get their own node */
    {
        uint32_t x = profile_thread(p, 1, "a-");
        uint32_t y = profile_thread(p, -1, "a");

        assert_int_not_equal(profile_thread_at(p, x)->node,
                             profile_thread_at(p, y)->node);
        assert_string_equal(
            profile_frame(p, profile_thread_at(p, x)->frame)->name, "a--1");
        assert_string_equal(
            profile_frame(p, profile_thread_at(p, y)->frame)->name, "a--1#2");
    }
    add(p, b, "x;y", 1);
    assert_int_equal(profile_node_thread(p, node_at(p, b, "x;y")), b);
    assert_int_equal(profile_node_thread(p, profile_thread_at(p, a)->node), a);
    assert_int_equal(profile_node_thread(p, PROFILE_ROOT), PROFILE_NONE);
    assert_int_equal(profile_node_thread(p, 9999), PROFILE_NONE);
}

static void test_flat_recursion(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    struct profile_flat *flat;
    long n;

    add(p, t, "main;f;g;f;g", 1);
    add(p, t, "main;f", 2);
    add(p, t, "main;g;g;g", 1);
    n = profile_flat(p, &flat);
    /* f: self 2, total 3 (counted once in main;f;g;f;g)
     * g: self 2, total 2 (once per sample, though 5 occurrences)
     * main: self 0, total 4 */
    assert_int_equal(n, 3);
    assert_string_equal(profile_frame(p, flat[0].frame)->name, "f");
    assert_int_equal(flat[0].self, 2);
    assert_int_equal(flat[0].total, 3);
    assert_string_equal(profile_frame(p, flat[1].frame)->name, "g");
    assert_int_equal(flat[1].self, 2);
    assert_int_equal(flat[1].total, 2);
    assert_string_equal(profile_frame(p, flat[2].frame)->name, "main");
    assert_int_equal(flat[2].self, 0);
    assert_int_equal(flat[2].total, 4);
    free(flat);
}

static void test_flat_two_threads_sorted(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    struct profile_flat *flat;
    static const struct { const char *name; uint64_t self, total; } want[] = {
        { "b", 3, 3 }, { "d", 2, 2 }, { "c", 1, 1 },
        { "main", 0, 6 }, { "a", 0, 4 },
    };
    long n = profile_flat(p, &flat);

    assert_int_equal(n, 5);
    for (long i = 0; i < n; i++) {
        assert_string_equal(profile_frame(p, flat[i].frame)->name,
                            want[i].name);
        assert_int_equal(flat[i].self, want[i].self);
        assert_int_equal(flat[i].total, want[i].total);
    }
    free(flat);
}

static const struct profile_edge *find_edge(const struct profile_edge *e,
                                            long n, uint32_t caller,
                                            uint32_t callee)
{
    for (long i = 0; i < n; i++)
        if (e[i].caller == caller && e[i].callee == callee)
            return &e[i];
    return NULL;
}

static void test_edges_fractional(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t main_, f, g;
    struct profile_edge *e;
    long n;

    add(p, t, "main;f;g;f;g", 2);
    main_ = fn(p, "main");
    f = fn(p, "f");
    g = fn(p, "g");
    n = profile_edges(p, &e);
    /* sorted by caller then callee; NONE (stack bottom) sorts last.
     * f and g occur twice each, so each occurrence carries 1/2 of its
     * callee's (caller_time) or caller's (callee_time) side; outer counts
     * only the edge into a function's outermost occurrence. */
    static const struct {
        int caller, callee;     /* indexes into ids[], -1 for the bottom */
        double caller_time, callee_time;
        uint64_t outer;
    } want[] = {
        { 0, 1, 1.0, 2.0, 2 },  /* main -> f */
        { 1, 2, 2.0, 2.0, 2 },  /* f -> g, twice per stack */
        { 2, 1, 1.0, 1.0, 0 },  /* g -> f: never f's outermost */
        { -1, 0, 2.0, 2.0, 2 }, /* bottom -> main */
    };
    uint32_t ids[3] = { main_, f, g };

    assert_int_equal(n, 4);
    for (long i = 0; i < n; i++) {
        assert_int_equal(e[i].caller, want[i].caller < 0
                                          ? PROFILE_NONE
                                          : ids[want[i].caller]);
        assert_int_equal(e[i].callee, ids[want[i].callee]);
        assert_int_equal(e[i].samples, 2); /* a repeated pair counts once */
        assert_float_equal(e[i].caller_time, want[i].caller_time, 1e-9);
        assert_float_equal(e[i].callee_time, want[i].callee_time, 1e-9);
        assert_int_equal(e[i].outer, want[i].outer);
    }
    free(e);
}

/* Racket's Local%: edge time / node total, from racket-text.expected. */
static void test_edges_racket_percentages(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    struct profile_edge *e;
    struct profile_flat *flat;
    long ne = profile_edges(p, &e), nf = profile_flat(p, &flat);
    static const struct {
        const char *caller, *callee;
        const char *callee_pct;  /* shown under the caller's entry */
        const char *caller_pct;  /* shown above the callee's entry */
    } want[] = {
        { "main", "a", "66.7%", "100.0%" },
        { "main", "d", "33.3%", "100.0%" },
        { "a", "b", "75.0%", "100.0%" },
        { "a", "c", "25.0%", "100.0%" },
    };

    assert_int_equal(ne, 5);  /* the 4 above and (bottom) -> main */
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        uint32_t caller = fn(p, want[i].caller), callee = fn(p, want[i].callee);
        const struct profile_edge *x = find_edge(e, ne, caller, callee);
        uint64_t caller_total = 0, callee_total = 0;
        char buf[16];

        assert_non_null(x);
        for (long j = 0; j < nf; j++) {
            if (flat[j].frame == caller)
                caller_total = flat[j].total;
            if (flat[j].frame == callee)
                callee_total = flat[j].total;
        }
        snprintf(buf, sizeof(buf), "%.1f%%",
                 100.0 * x->callee_time / caller_total);
        assert_string_equal(buf, want[i].callee_pct);
        snprintf(buf, sizeof(buf), "%.1f%%",
                 100.0 * x->caller_time / callee_total);
        assert_string_equal(buf, want[i].caller_pct);
    }
    {
        const struct profile_edge *x =
            find_edge(e, ne, PROFILE_NONE, fn(p, "main"));

        assert_non_null(x);
        assert_int_equal(x->samples, 6);
        assert_float_equal(x->caller_time, 6.0, 1e-9);
        assert_float_equal(x->callee_time, 6.0, 1e-9);
    }
    /* the node lines: total and self ms at 10 ms per sample */
    {
        static const struct { const char *name; int total, self; } nodes[] = {
            { "main", 60, 0 }, { "a", 40, 0 }, { "d", 20, 20 },
            { "b", 30, 30 }, { "c", 10, 10 },
        };

        for (size_t i = 0; i < 5; i++)
            for (long j = 0; j < nf; j++)
                if (flat[j].frame == fn(p, nodes[i].name)) {
                    assert_int_equal(flat[j].total * 10, nodes[i].total);
                    assert_int_equal(flat[j].self * 10, nodes[i].self);
                }
    }
    free(e);
    free(flat);
}

static void test_inverted(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(false));
    struct profile_filter f = { .thread = PROFILE_NONE,
                                .focus = PROFILE_NONE, .inverted = true };
    struct profile *q = profile_derive(p, &f);

    assert_non_null(q);
    assert_int_equal(profile_samples(q), 6);
    assert_int_equal(profile_frame_count(q), profile_frame_count(p));
    check_nodes(q, 0,
                "b 0 3\n"
                "b;a 0 3\n"
                "b;a;main 3 3\n"
                "c 0 1\n"
                "c;a;main 1 1\n"
                "d 0 2\n"
                "d;main 2 2\n");
    assert_int_equal(node_at(q, 0, "main"), PROFILE_NONE);
    /* root, thread, b, b;a, b;a;main, c, c;a, c;a;main, d, d;main */
    assert_int_equal(profile_node_count(q), 10);
    profile_free(q);
}

static void test_focus_and_thread_filter(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    struct profile_filter f = { .thread = PROFILE_NONE,
                                .focus = PROFILE_NONE };
    struct profile *q;

    f.focus = fn(p, "a");
    q = profile_derive(p, &f);
    assert_int_equal(profile_samples(q), 4);
    check_nodes(q, 0,
                "main 0 4\n"   /* whole stacks kept */
                "main;a;b 3 3\n"
                "main;a;c 1 1\n");
    assert_int_equal(node_at(q, 1, "main"), PROFILE_NONE);
    assert_int_equal(profile_thread_count(q), 2);
    profile_free(q);

    f.focus = PROFILE_NONE;
    f.thread = 1;
    q = profile_derive(p, &f);
    assert_int_equal(profile_samples(q), 2);
    check_node(q, 1, "main;d", 2, 2);
    assert_int_equal(node_at(q, 0, "main"), PROFILE_NONE);
    assert_int_equal(profile_node(q, profile_thread_at(q, 0)->node)->total, 0);
    assert_string_equal(profile_thread_at(q, 1)->name, "worker");
    profile_free(q);

    /* focus and thread together, inverted */
    f.thread = 0;
    f.focus = fn(p, "c");
    f.inverted = true;
    q = profile_derive(p, &f);
    assert_int_equal(profile_samples(q), 1);
    check_node(q, 0, "c;a;main", 1, 1);
    profile_free(q);
}

/* merge_threads drops the thread level: main;a;b of thread 0 and main;d
 * of thread 1 share their main node under the root; inverted, the leaf
 * functions of all threads are the roots.  Keys are stable across
 * snapshots, as the UI's expansion state needs. */
static void test_merge_threads(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    struct profile_filter f = { .thread = PROFILE_NONE,
                                .focus = PROFILE_NONE, .merge_threads = true };
    struct profile *q = profile_derive(p, &f);
    uint32_t path[8];

    assert_non_null(q);
    assert_int_equal(profile_samples(q), 6);
    assert_int_equal(profile_node(q, PROFILE_ROOT)->total, 6);
    check_nodes(q, PROFILE_NONE, EXAMPLE_TREE);
    /* the thread nodes stay, empty; merged nodes belong to no thread */
    assert_int_equal(profile_thread_count(q), 2);
    assert_int_equal(profile_node(q, profile_thread_at(q, 0)->node)->total, 0);
    assert_int_equal(profile_node(q, profile_thread_at(q, 1)->node)->total, 0);
    assert_int_equal(profile_node_thread(q, node_at(q, PROFILE_NONE, "main;d")),
                     PROFILE_NONE);
    /* root, two threads, main, a, b, c, d */
    assert_int_equal(profile_node_count(q), 8);
    assert_int_equal(profile_node_path(q, node_at(q, PROFILE_NONE, "main;a;b"),
                                       path, 8), 3);
    assert_int_equal(path[0], fn(p, "main"));
    assert_int_equal(path[2], fn(p, "b"));
    uint64_t key = profile_node_key(q, node_at(q, PROFILE_NONE, "main;a"));
    assert_true(key != profile_node_key(p, node_at(p, 0, "main;a")));
    profile_free(q);

    /* A later snapshot with more samples and frames: the same keys. */
    add(p, 1, "main;a;e", 5);
    q = profile_derive(p, &f);
    check_node(q, PROFILE_NONE, "main;a", 0, 9);
    assert_true(key == profile_node_key(q, node_at(q, PROFILE_NONE, "main;a")));
    profile_free(q);

    /* Inverted and merged: every thread's leaves at the top. */
    f.inverted = true;
    q = profile_derive(p, &f);
    check_nodes(q, PROFILE_NONE,
                "e 0 5\n"
                "b 0 3\n"
                "d;main 2 2\n"
                "e;a;main 5 5\n");
    profile_free(q);

    /* With a thread filter, only that thread's stacks, still merged. */
    f.inverted = false;
    f.thread = 1;
    q = profile_derive(p, &f);
    check_node(q, PROFILE_NONE, "main", 0, 7);
    assert_int_equal(node_at(q, PROFILE_NONE, "main;a;b"), PROFILE_NONE);
    profile_free(q);
}

static void test_merge_by_thread_name(void **state)
{
    struct profile *a = example(true);     /* 100 main, 101 worker */
    struct profile *b = profile_new();
    uint32_t tb0, tb1, tb2;

    (void)state;
    FIXTURE_META(a, .pid = 7, .comm = "prog", .duration_ns = 10);
    FIXTURE_META(b, .pid = 9, .comm = "other", .duration_ns = 5,
                 .interval_ns = 1000);
    /* b interns frames in another order, so ids differ */
    fn(b, "zzz");
    tb0 = profile_thread(b, 500, "worker");
    tb1 = profile_thread(b, 100, "io");    /* tid taken by a's "main" */
    tb2 = profile_thread(b, 700, "main");
    add(b, tb0, "main;d", 5);
    add(b, tb1, "main;e", 1);
    add(b, tb2, "main;a;b", 1);
    assert_int_equal(profile_merge(a, b), 0);

    assert_int_equal(profile_samples(a), 6 + 7);
    assert_int_equal(profile_thread_count(a), 3);
    check_node(a, 0, "main;a;b", 4, 4);
    check_node(a, 1, "main;d", 7, 7);
    assert_string_equal(profile_thread_at(a, 2)->name, "io");
    assert_int_equal(profile_thread_at(a, 2)->tid, 102);
    check_node(a, 2, "main;e", 1, 1);
    /* metadata of dst kept, duration summed, unset fields filled */
    assert_int_equal(profile_meta(a)->pid, 7);
    assert_string_equal(profile_meta(a)->comm, "prog");
    assert_int_equal(profile_meta(a)->duration_ns, 15);
    assert_int_equal(profile_meta(a)->interval_ns, 1000);
    profile_free(b);

    /* merging a profile into itself doubles it */
    assert_int_equal(profile_merge(a, a), 0);
    assert_int_equal(profile_samples(a), 26);
    check_node(a, 0, "main;a;b", 8, 8);
    profile_free(a);
}

static void test_merge_lines(void **state)
{
    struct profile *a = profile_new(), *b = profile_new();
    uint32_t ta = profile_thread(a, 1, "t"), tb = profile_thread(b, 1, "t");
    struct stack_frame sa[1] = { { fn(a, "f"), 10, 0x100 } };
    struct stack_frame sb[2] = { { fn(b, "g"), 5, 0 }, { fn(b, "f"), 10, 0 } };

    (void)state;
    assert_int_equal(profile_add_stack(a, ta, sa, 1, 2), 0);
    assert_int_equal(profile_add_stack(b, tb, sb, 2, 3), 0);
    assert_int_equal(profile_merge(a, b), 0);
    EXPECT_LINES(a, fn(a, "f"), false, { 10, 5, 5 });
    EXPECT_LINES(a, fn(a, "g"), false, { 5, 0, 3 });
    EXPECT_LINES(a, fn(a, "f"), true, { 0x100, 2, 2 });
    profile_free(a);
    profile_free(b);
}

/* Sums past the limits (issue 11, item 6): two files of 2^53 - 1
 * samples merged, and sproftop could not read its own output; durations
 * wrapped.  The merge is refused, dst unchanged. */
static void test_merge_limits(void **state)
{
    struct profile *a = profile_new(), *b = profile_new();
    uint32_t ta = profile_thread(a, 1, "t"), tb = profile_thread(b, 1, "t");
    struct profile_meta m = { .duration_ns = PROFILE_DURATION_MAX - 5 };

    (void)state;
    add(a, ta, "main;a", PROFILE_COUNT_LIMIT - 1);
    add(b, tb, "main;b", 1);
    assert_int_equal(profile_merge(a, b), PROFILE_MERGE_REFUSED);
    assert_string_equal(profile_merge_refusal(a, b),
                        "the total sample count would reach 2^53");
    assert_int_equal(profile_samples(a), PROFILE_COUNT_LIMIT - 1);
    assert_int_equal(profile_frame_count(a), 3);   /* t-1, main, a: no b */
    assert_int_equal(profile_merge(a, a), PROFILE_MERGE_REFUSED);
    profile_free(a);

    a = profile_new();
    ta = profile_thread(a, 1, "t");
    add(a, ta, "main;a", 3);
    assert_int_equal(profile_set_meta(a, &m), 0);
    m.duration_ns = 6;
    assert_int_equal(profile_set_meta(b, &m), 0);
    assert_int_equal(profile_merge(a, b), PROFILE_MERGE_REFUSED);
    assert_string_equal(profile_merge_refusal(a, b),
                        "the total duration would pass 2^63 ns");
    assert_int_equal(profile_samples(a), 3);
    assert_int_equal(profile_meta(a)->duration_ns, PROFILE_DURATION_MAX - 5);
    m.duration_ns = 5;   /* exactly the limit is allowed */
    assert_int_equal(profile_set_meta(b, &m), 0);
    assert_null(profile_merge_refusal(a, b));
    assert_int_equal(profile_merge(a, b), 0);
    assert_int_equal(profile_meta(a)->duration_ns, PROFILE_DURATION_MAX);
    assert_int_equal(profile_samples(a), 4);
    profile_free(a);
    profile_free(b);
}

static void test_clone_independent(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    struct profile *c;
    uint32_t b_node;

    FIXTURE_META(p, .pid = 42, .cmdline = "prog -x", .comm = "prog",
                 .interval_ns = 1000000, .idle = true);
    c = profile_clone(p);
    assert_non_null(c);
    b_node = node_at(p, 0, "main;a;b");
    assert_int_equal(node_at(c, 0, "main;a;b"), b_node);   /* same ids */
    add(p, 0, "main;a;b", 10);
    add(p, 0, "main;new", 1);
    fn(p, "only_in_p");
    profile_thread(p, 100, "renamed");

    /* the clone is unaffected and its strings outlive the original */
    assert_int_equal(profile_samples(c), 6);
    check_node(c, 0, "main;a;b", 3, 3);
    assert_int_equal(node_at(c, 0, "main;new"), PROFILE_NONE);
    assert_int_equal(profile_frame_count(c), 7);  /* 2 threads + 5 funcs */
    assert_string_equal(profile_thread_at(c, 0)->name, "main");
    assert_string_equal(profile_meta(c)->cmdline, "prog -x");
    assert_string_equal(profile_meta(c)->comm, "prog");
    assert_true(profile_meta(c)->idle);
    assert_string_equal(profile_frame(c, fn(c, "b"))->module, "prog");
    /* and keeps working: interning finds existing strings and frames */
    assert_int_equal(fn(c, "main"), profile_node(c, node_at(c, 0, "main"))->frame);
    add(c, 1, "main;d", 1);
    check_node(c, 1, "main;d", 3, 3);
    profile_free(c);
}

static void test_reset(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    uint32_t frames = profile_frame_count(p);
    uint32_t b = fn(p, "b");
    struct profile_linecount *lc;
    struct stack_frame s[1] = { { b, 12, 0x40 } };

    assert_int_equal(profile_add_stack(p, 0, s, 1, 1), 0);
    profile_reset(p);
    assert_int_equal(profile_samples(p), 0);
    assert_int_equal(profile_node_count(p), 3);  /* root + 2 threads */
    assert_int_equal(profile_frame_count(p), frames);
    assert_int_equal(profile_thread_count(p), 2);
    assert_int_equal(profile_lines(p, b, false, &lc), 0);
    assert_null(lc);
    assert_int_equal(node_at(p, 0, "main"), PROFILE_NONE);
    assert_int_equal(profile_node_thread(p, profile_thread_at(p, 1)->node), 1);
    add(p, 1, "main;a;b", 2);
    assert_int_equal(fn(p, "b"), b);
    check_node(p, 1, "main;a;b", 2, 2);
    assert_int_equal(profile_samples(p), 2);
}

static void test_lines_and_addrs(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main"), f = fn(p, "f");
    /* main:10 -> f:20 -> f:20 (recursion on the same line) -> f:25 leaf */
    struct stack_frame s1[4] = {
        { m, 10, 0x1000 }, { f, 20, 0x2000 }, { f, 20, 0x2000 },
        { f, 25, 0x2010 } };
    struct stack_frame s2[2] = { { m, 11, 0x1004 }, { f, 0, 0 } };

    assert_int_equal(profile_add_stack(p, t, s1, 4, 3), 0);
    assert_int_equal(profile_add_stack(p, t, s2, 2, 1), 0);
    /* line 20 twice in a sample counts its total once; unknown lines
     * and addresses (f in s2) are not counted */
    EXPECT_LINES(p, f, false, { 20, 0, 3 }, { 25, 3, 3 });
    EXPECT_LINES(p, m, false, { 10, 0, 3 }, { 11, 0, 1 });
    EXPECT_LINES(p, f, true, { 0x2000, 0, 3 }, { 0x2010, 3, 3 });
}

/* Frames of a stripped module, renamed when its debug info arrives. */
static uint32_t unnamed(struct profile *p, const char *name, uint64_t off)
{
    struct frame_desc d = { .name = name, .module = "lib.so",
                            .kind = FRAME_FUNC, .build_id = "ab12",
                            .offset = off };
    uint32_t id = profile_intern_frame(p, &d);

    assert_int_not_equal(id, PROFILE_NONE);
    return id;
}

static void test_rename_frames(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main");
    uint32_t u1 = unnamed(p, "[lib.so+0x100]", 0x100);
    uint32_t u2 = unnamed(p, "[lib.so+0x200]", 0x200);
    uint32_t u3 = unnamed(p, "[lib.so+0x300]", 0x300);
    struct stack_frame s1[2] = { { m, 10, 0x1000 }, { u1, 0, 0x5104 } };
    struct stack_frame s2[2] = { { m, 11, 0x1010 }, { u2, 0, 0x5208 } };
    struct stack_frame s3[3] = { { m, 12, 0x1020 }, { u3, 0, 0x5310 },
                                 { u1, 0, 0x5108 } };
    struct profile_rename r[3] = {
        { u1, { .name = "hot", .module = "lib.so", .file = "lib.c",
                .kind = FRAME_FUNC } },
        { u2, { .name = "warm", .module = "lib.so", .file = "lib.c",
                .kind = FRAME_FUNC } },
        { u3, { .name = "hot", .module = "lib.so", .file = "lib.c",
                .kind = FRAME_FUNC } },
    };
    struct frame_desc same = { .name = "[lib.so+0x100]", .module = "lib.so",
                               .kind = FRAME_FUNC };
    uint32_t n_before;

    /* The build-id is part of the identity: a frame of another build
     * (or of none) at the same offset is another frame. */
    assert_int_not_equal(profile_intern_frame(p, &same), u1);
    n_before = profile_frame_count(p);
    assert_int_equal(profile_add_stack(p, t, s1, 2, 6), 0);
    assert_int_equal(profile_add_stack(p, t, s2, 2, 3), 0);
    assert_int_equal(profile_add_stack(p, t, s3, 3, 1), 0);
    /* u1 and u2 are renamed in place (ids kept); u3 gets u1's new name,
     * so its samples merge into u1's frame. */
    assert_int_equal(profile_rename_frames(p, r, 3), 0);
    assert_int_equal(profile_frame_count(p), n_before);
    assert_string_equal(profile_frame(p, u1)->name, "hot");
    assert_string_equal(profile_frame(p, u1)->file, "lib.c");
    assert_null(profile_frame(p, u1)->build_id);
    assert_string_equal(profile_frame(p, u2)->name, "warm");
    assert_string_equal(profile_frame(p, u3)->name, "[lib.so+0x300]");
    assert_int_equal(profile_samples(p), 10);
    check_nodes(p, 0,
                "main;hot 6 7\n"   /* 6 alone, 1 as u3 */
                "main;hot;hot 1 1\n"
                "main;warm 3 3\n");
    /* The exact addresses stay, for the per-address view. */
    EXPECT_LINES(p, u1, true, { 0x5104, 6, 6 }, { 0x5108, 1, 1 },
                 { 0x5310, 0, 1 });
    /* The new identity finds the renamed frame; the old one is free. */
    assert_int_equal(fixture_frame(p, "hot", "lib.so", "lib.c", 0), u1);
    assert_int_equal(unnamed(p, "[lib.so+0x100]", 0x100), n_before);
    /* Renaming to the name it has, or to another kind, does nothing. */
    struct profile_rename again = { u2, { .name = "warm", .module = "lib.so",
                                          .file = "lib.c",
                                          .kind = FRAME_FUNC } };
    struct profile_rename kind = { u2, { .name = "x", .kind = FRAME_SPECIAL } };
    assert_int_equal(profile_rename_frames(p, &again, 1), 0);
    assert_int_equal(profile_rename_frames(p, &kind, 1), 0);
    assert_string_equal(profile_frame(p, u2)->name, "warm");
    check_node(p, 0, "main;warm", 3, 3);
}

/* A rename that merges frames keeps the per-second ring, remapped: the
 * recent window and the timeline go on after late names arrive. */
static void test_rename_keeps_time(void **state)
{
    struct profile *p = fixture_profile(state);
    assert_int_equal(profile_time_enable(p, 60), 0);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main");
    uint32_t u1 = unnamed(p, "[lib.so+0x100]", 0x100);
    uint32_t u3 = unnamed(p, "[lib.so+0x300]", 0x300);
    struct stack_frame s1[2] = { { m, 10, 0x1000 }, { u1, 0, 0x5104 } };
    struct stack_frame s3[2] = { { m, 10, 0x1000 }, { u3, 0, 0x5310 } };
    struct profile_rename r[2] = {
        { u1, { .name = "hot", .module = "lib.so", .kind = FRAME_FUNC } },
        { u3, { .name = "hot", .module = "lib.so", .kind = FRAME_FUNC } },
    };
    assert_int_equal(profile_add_stack_at(p, t, s1, 2, 4, 5000000000ull), 0);
    assert_int_equal(profile_add_stack_at(p, t, s3, 2, 2, 6000000000ull), 0);
    assert_int_equal(profile_rename_frames(p, r, 2), 0);
    check_nodes(p, 0, "main;hot 6 6\n");
    assert_true(profile_time_enabled(p));
    struct profile *w = profile_window(p, 5, 6);
    assert_non_null(w);
    assert_int_equal(profile_samples(w), 6);
    check_nodes(w, 0, "main;hot 6 6\n");
    profile_free(w);
    w = profile_window(p, 6, 6);
    assert_non_null(w);
    check_nodes(w, 0, "main;hot 2 2\n");
    profile_free(w);
}

static void test_node_keys(void **state)
{
    struct profile *p = fixture_keep_profile(state, example(true));
    struct profile *c = profile_clone(p);
    struct profile_filter f = { .thread = PROFILE_NONE,
                                .focus = PROFILE_NONE };
    struct profile *d;
    uint64_t k_ab, k_a, k_d;

    f.focus = fn(p, "b");
    d = profile_derive(p, &f);
    k_ab = profile_node_key(p, node_at(p, 0, "main;a;b"));
    k_a = profile_node_key(p, node_at(p, 0, "main;a"));
    k_d = profile_node_key(p, node_at(p, 1, "main;d"));
    assert_true(k_ab != k_a && k_a != k_d && k_ab != k_d);
    assert_true(profile_node_key(p, node_at(p, 0, "main")) !=
                profile_node_key(p, node_at(p, 1, "main")));
    assert_true(k_ab == profile_node_key(c, node_at(c, 0, "main;a;b")));
    /* derived trees have other node ids but the same keys */
    assert_true(k_ab == profile_node_key(d, node_at(d, 0, "main;a;b")));
    assert_true(k_a == profile_node_key(d, node_at(d, 0, "main;a")));
    profile_free(c);
    profile_free(d);
}

struct collect {
    char lines[16][64]; /* "thread:frames count" */
    int n;
    int stop_after;     /* return 7 after this many calls, 0 = never */
    const struct profile *p;
};

static int collect_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                         size_t n, uint64_t count)
{
    struct collect *c = ctx;
    char *s = c->lines[c->n];
    size_t len = 0;

    len += (size_t)snprintf(s, 64, "%u:", thread);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, 64 - len, "%s%s", i ? ";" : "",
                                profile_frame(c->p, frames[i])->name);
    snprintf(s + len, 64 - len, " %llu", (unsigned long long)count);
    c->n++;
    return c->stop_after && c->n == c->stop_after ? 7 : 0;
}

static void test_foreach_stack(void **state)
{
    struct profile *p = example(true);
    struct collect c = { .p = p };

    (void)state;
    assert_int_equal(profile_add_stack(p, 1, NULL, 0, 2), 0);
    assert_int_equal(profile_foreach_stack(p, collect_stack, &c), 0);
    assert_int_equal(c.n, 4);
    /* threads in index order, the thread's own samples first, children in
     * the order they were first seen */
    assert_string_equal(c.lines[0], "0:main;a;b 3");
    assert_string_equal(c.lines[1], "0:main;a;c 1");
    assert_string_equal(c.lines[2], "1: 2");
    assert_string_equal(c.lines[3], "1:main;d 2");
    c = (struct collect){ .p = p, .stop_after = 2 };
    assert_int_equal(profile_foreach_stack(p, collect_stack, &c), 7);
    assert_int_equal(c.n, 2);
    profile_free(p);
}

struct deep {
    uint32_t f, g;  /* the two alternating frames */
    size_t seen;    /* depth of the stack reported */
};

static int check_deep(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t count)
{
    struct deep *d = ctx;

    (void)thread;
    assert_int_equal(count, 1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(frames[i], i % 2 ? d->g : d->f);
    d->seen = n;
    return 0;
}

static void test_deep_stack(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t ff = fn(p, "f"), fg = fn(p, "g");
    struct stack_frame s[500];
    uint32_t path[500], node;
    struct deep seen = { ff, fg, 0 };
    struct profile_flat *flat;
    struct profile_edge *e;
    struct profile_filter inv = { .thread = PROFILE_NONE,
                                  .focus = PROFILE_NONE, .inverted = true };
    struct profile *q;

    for (int i = 0; i < 500; i++)
        s[i] = (struct stack_frame){ i % 2 ? fg : ff, 100 + (uint32_t)i % 7,
                                     0x1000 + (uint64_t)i };
    assert_int_equal(profile_add_stack(p, t, s, 500, 1), 0);
    assert_int_equal(profile_node_count(p), 2 + 500);
    node = profile_node_count(p) - 1;
    assert_int_equal(profile_node(p, node)->depth, 501);
    assert_int_equal(profile_node_path(p, node, path, 500), 500);
    for (int i = 0; i < 500; i++)
        assert_int_equal(path[i], i % 2 ? fg : ff);
    /* a short buffer gets the bottom of the stack */
    memset(path, 0xee, sizeof(path));
    assert_int_equal(profile_node_path(p, node, path, 3), 500);
    assert_int_equal(path[0], ff);
    assert_int_equal(path[2], ff);
    assert_int_equal(path[3], 0xeeeeeeeeu);
    assert_int_equal(profile_foreach_stack(p, check_deep, &seen), 0);
    assert_int_equal(seen.seen, 500);
    assert_int_equal(profile_flat(p, &flat), 2);
    assert_int_equal(flat[0].frame, fg);   /* the leaf (i = 499 is odd) */
    assert_int_equal(flat[0].self, 1);
    assert_int_equal(flat[0].total, 1);
    assert_int_equal(flat[1].total, 1);
    free(flat);
    assert_int_equal(profile_edges(p, &e), 3);
    /* f -> g: 250 occurrences of g, each 1/250 */
    assert_int_equal(e[0].caller, ff);
    assert_float_equal(e[0].caller_time, 1.0, 1e-9);
    assert_float_equal(e[0].callee_time, 1.0, 1e-9);
    assert_int_equal(e[0].samples, 1);
    assert_int_equal(e[0].outer, 1);      /* into g's outermost */
    assert_float_equal(e[1].caller_time, 249.0 / 250.0, 1e-9);
    assert_int_equal(e[1].outer, 0);      /* f's outermost is the bottom */
    free(e);
    q = profile_derive(p, &inv);
    assert_int_equal(profile_node(q, profile_node_count(q) - 1)->depth, 501);
    assert_int_equal(profile_samples(q), 1);
    profile_free(q);
}

/* Memory grows with unique stacks: a million samples over 40 fixed stacks
 * create no node after the first round. */
static void test_many_samples_fixed_stacks(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    struct stack_frame s[40][24];
    uint32_t nodes_after_first;
    uint64_t i;

    for (int k = 0; k < 40; k++)
        for (int d = 0; d < 24; d++) {
            char name[32];

            /* shared 12-frame trunk, then a tail specific to stack k */
            if (d < 12)
                snprintf(name, sizeof(name), "trunk%d", d);
            else
                snprintf(name, sizeof(name), "s%d_%d", k, d);
            s[k][d] = (struct stack_frame){ fn(p, name), (uint32_t)d + 1,
                                            0x400000 + (uint64_t)d };
        }
    for (int k = 0; k < 40; k++)
        assert_int_equal(profile_add_stack(p, t, s[k], 24, 1), 0);
    nodes_after_first = profile_node_count(p);
    assert_int_equal(nodes_after_first, 2 + 12 + 40 * 12);
    for (i = 40; i < 1000000; i++)
        if (profile_add_stack(p, t, s[i % 40], 24, 1) != 0)
            fail();
    assert_int_equal(profile_node_count(p), nodes_after_first);
    assert_int_equal(profile_samples(p), 1000000);
    assert_int_equal(profile_node(p, PROFILE_ROOT)->total, 1000000);
}

static void test_meta(void **state)
{
    struct profile *p = fixture_profile(state);
    char cmd[32] = "prog --fast";
    struct profile_meta m = { .pid = 5, .cmdline = cmd, .comm = NULL,
                              .interval_ns = 1000, .start_ns = 2,
                              .duration_ns = 3, .idle = false };

    assert_int_equal(profile_meta(p)->pid, 0);
    assert_null(profile_meta(p)->cmdline);
    assert_int_equal(profile_set_meta(p, &m), 0);
    cmd[0] = 'X';
    assert_string_equal(profile_meta(p)->cmdline, "prog --fast");
    assert_null(profile_meta(p)->comm);
    assert_int_equal(profile_meta(p)->interval_ns, 1000);
    profile_reset(p);
    assert_int_equal(profile_meta(p)->pid, 5);
    profile_free(NULL);
}

/* Threads carry their process: set, counted, cloned, merged. */
static void test_thread_process(void **state)
{
    struct profile *p = fixture_profile(state);
    assert_non_null(p);
    uint32_t a = profile_thread(p, 100, "master");
    uint32_t b = profile_thread(p, 101, "io");
    uint32_t c = profile_thread(p, 200, "worker");
    uint32_t d = profile_thread(p, 300, "loose");
    assert_int_equal(profile_process_count(p), 0);
    assert_int_equal(profile_thread_at(p, a)->pid, 0);
    assert_null(profile_thread_at(p, a)->process);
    assert_int_equal(profile_thread_set_process(p, a, 100, "nginx"), 0);
    assert_int_equal(profile_thread_set_process(p, b, 100, "nginx"), 0);
    assert_int_equal(profile_thread_set_process(p, c, 200, "nginx"), 0);
    assert_int_equal(profile_thread_set_process(p, 99, 1, "x"), -1);
    assert_int_equal(profile_process_count(p), 2);
    (void)d;

    struct profile *q = profile_clone(p);
    assert_non_null(q);
    assert_int_equal(profile_process_count(q), 2);
    assert_int_equal(profile_thread_at(q, c)->pid, 200);
    assert_string_equal(profile_thread_at(q, c)->process, "nginx");
    assert_null(profile_thread_at(q, d)->process);
    /* a rename of the process keeps the pid; NULL keeps the name */
    assert_int_equal(profile_thread_set_process(q, c, 200, NULL), 0);
    assert_string_equal(profile_thread_at(q, c)->process, "nginx");

    struct frame_desc fd = {.name = "f", .kind = FRAME_FUNC};
    struct stack_frame st = {profile_intern_frame(q, &fd), 0, 0};
    assert_int_equal(profile_add_stack(q, c, &st, 1, 3), 0);
    struct profile *m = profile_new();
    assert_non_null(m);
    assert_int_equal(profile_merge(m, q), 0);
    assert_int_equal(profile_process_count(m), 2);
    uint32_t w = PROFILE_NONE;
    for (uint32_t i = 0; i < profile_thread_count(m); i++)
        if (strcmp(profile_thread_at(m, i)->name, "worker") == 0)
            w = i;
    assert_int_not_equal(w, PROFILE_NONE);
    assert_int_equal(profile_thread_at(m, w)->pid, 200);
    assert_string_equal(profile_thread_at(m, w)->process, "nginx");
    profile_free(m);
    profile_free(q);
}

/* Merging the processes of one command sums their per-process counts,
 * thread by thread; another command stays apart. */
static void test_merge_commands(void **state)
{
    struct profile *p = fixture_profile(state);
    assert_non_null(p);
    uint32_t w1 = fixture_thread_in(p, 10, "nginx", 10, "nginx");
    uint32_t w1io = fixture_thread_in(p, 11, "io", 10, "nginx");
    uint32_t w2 = fixture_thread_in(p, 20, "nginx", 20, "nginx");
    uint32_t w2io = fixture_thread_in(p, 21, "io", 20, "nginx");
    /* the same thread name, another command */
    uint32_t pg = fixture_thread_in(p, 30, "nginx", 30, "postgres");
    add(p, w1, "main;serve;parse", 5);
    add(p, w1, "main;serve;send", 2);
    add(p, w2, "main;serve;parse", 7);
    add(p, w1io, "io_loop", 3);
    add(p, w2io, "io_loop", 4);
    add(p, pg, "main;serve;parse", 11);
    struct profile_meta m = {.pid = 10, .comm = "nginx", .duration_ns = 5};
    profile_set_meta(p, &m);

    struct profile *q = profile_merge_commands(p);
    assert_non_null(q);
    assert_int_equal(profile_samples(q), profile_samples(p));
    assert_int_equal(profile_thread_count(q), 3);
    assert_int_equal(profile_process_count(q), 2);
    assert_int_equal(profile_meta(q)->duration_ns, 5);
    assert_string_equal(profile_meta(q)->comm, "nginx");
    uint32_t mw = fixture_find_thread(q, 10);
    uint32_t mio = fixture_find_thread(q, 11);
    uint32_t mpg = fixture_find_thread(q, 30);
    /* the workers' main threads: 5 + 2 + 7, parse 5 + 7 */
    const struct profile_thread *t = profile_thread_at(q, mw);
    assert_int_equal(profile_node(q, t->node)->total, 14);
    assert_int_equal(node_at(q, mw, "main;serve;parse") != PROFILE_NONE, 1);
    assert_int_equal(profile_node(q, node_at(q, mw, "main;serve;parse"))->self, 12);
    assert_int_equal(profile_node(q, profile_thread_at(q, mio)->node)->total, 7);
    assert_string_equal(profile_thread_at(q, mpg)->process, "postgres");
    assert_int_equal(profile_node(q, profile_thread_at(q, mpg)->node)->total, 11);
    profile_free(q);
}

UNIT_MAIN(
    FIXTURE_TEST(test_nodes_self_total),
    FIXTURE_TEST(test_intern_identity),
    FIXTURE_TEST(test_bad_input_adds_nothing),
    FIXTURE_TEST(test_threads),
    FIXTURE_TEST(test_flat_recursion),
    FIXTURE_TEST(test_flat_two_threads_sorted),
    FIXTURE_TEST(test_edges_fractional),
    FIXTURE_TEST(test_edges_racket_percentages),
    FIXTURE_TEST(test_inverted),
    FIXTURE_TEST(test_focus_and_thread_filter),
    FIXTURE_TEST(test_merge_threads),
    cmocka_unit_test(test_merge_by_thread_name),
    cmocka_unit_test(test_merge_lines),
    cmocka_unit_test(test_merge_limits),
    FIXTURE_TEST(test_clone_independent),
    FIXTURE_TEST(test_reset),
    FIXTURE_TEST(test_lines_and_addrs),
    FIXTURE_TEST(test_rename_frames),
    FIXTURE_TEST(test_rename_keeps_time),
    FIXTURE_TEST(test_node_keys),
    cmocka_unit_test(test_foreach_stack),
    FIXTURE_TEST(test_deep_stack),
    FIXTURE_TEST(test_many_samples_fixed_stacks),
    FIXTURE_TEST(test_meta),
    FIXTURE_TEST(test_thread_process),
    FIXTURE_TEST(test_merge_commands))
