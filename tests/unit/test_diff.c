/* test_diff.c - pin and diff in the model (diff.h, model_new_ext): two
 * hand-made profiles, with frame ids in different orders and threads of
 * another run, give the expected change of share for every function and
 * tree row, rows of one side only included and marked, and the union
 * survives the hide thresholds, the filters and the inverted tree. */
#include "fixture.h"

#include "diff.h"
#include "view_model.h"

static uint32_t fn(struct profile *p, const char *name)
{
    return fixture_frame(p, name, "prog", NULL, 0);
}

/* Before: main;a;b 60, main;a;c 40 on thread "t" (tid 1), frames made in
 * the order c, b, a, main.  After: main;a;b 30, main;a;d 50, main;e 20 on
 * "t" (tid 2), frames in stack order. */
static struct profile *before(void)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 1, "t");

    fn(p, "c");
    fn(p, "b");
    fixture_add_folded(p, t, fn, "main;a;b", 60);
    fixture_add_folded(p, t, fn, "main;a;c", 40);
    return p;
}

static struct profile *after(void)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 2, "t");

    fixture_add_folded(p, t, fn, "main;a;b", 30);
    fixture_add_folded(p, t, fn, "main;a;d", 50);
    fixture_add_folded(p, t, fn, "main;e", 20);
    return p;
}

static struct model *diff_model(struct profile *cur, const struct profile *base,
                                bool inverted, double hide_self,
                                double hide_subs)
{
    struct model_filter f = { .focus = PROFILE_NONE, .inverted = inverted };
    struct model_extra x = { .baseline = base };
    struct model *m = model_new_ext(cur, &f, hide_self, hide_subs, &x);

    assert_non_null(m);
    return m;
}

/* Δ rows expected of the flat table. */
static const struct {
    const char *name;
    double self, total;
    bool in_cur, in_base;
} flat_want[] = {
    { "main", 0, 0, true, true },
    { "a", 0, -20, true, true },
    { "b", -30, -30, true, true },
    { "c", -40, -40, false, true },
    { "d", 50, 50, true, false },
    { "e", 20, 20, true, false },
};

static void test_flat_deltas(void **state)
{
    struct profile *b = before(), *a = after();
    struct model *m = diff_model(a, b, false, 0, 0);
    struct model_delta d;

    (void)state;
    /* Every function of either side has a flat row: c with no samples. */
    assert_int_equal(m->nflat, 6);
    for (size_t i = 0; i < sizeof(flat_want) / sizeof(flat_want[0]); i++) {
        uint32_t f = fixture_find_frame(a, flat_want[i].name);

        assert_non_null(model_flat_of(m, f));
        assert_true(model_delta_frame(m, f, &d));
        assert_float_equal(d.self, flat_want[i].self, 1e-9);
        assert_float_equal(d.total, flat_want[i].total, 1e-9);
        assert_int_equal(d.in_cur, flat_want[i].in_cur);
        assert_int_equal(d.in_base, flat_want[i].in_base);
    }
    assert_int_equal(model_flat_of(m, fixture_find_frame(a, "c"))->total, 0);
    /* The edge a->c, only in the baseline, is listed with no samples. */
    bool found = false;
    for (size_t i = 0; i < m->nedges; i++)
        if (m->edges[i].caller == fixture_find_frame(a, "a") &&
            m->edges[i].callee == fixture_find_frame(a, "c")) {
            found = true;
            assert_int_equal(m->edges[i].samples, 0);
        }
    assert_true(found);
    /* Another run's thread "t" is the same thread: no new one. */
    assert_int_equal(profile_thread_count(a), 1);
    model_free(m);
    profile_free(a);
    profile_free(b);
}

/* The node of m->tree at a folded path below the thread, or NONE. */
static uint32_t node_at(const struct model *m, const char *path)
{
    const struct profile *t = m->tree;
    uint32_t node = profile_thread_at(t, 0)->node;
    char *copy = strdup(path), *save = NULL;

    for (char *tok = strtok_r(copy, ";", &save); tok && node != PROFILE_NONE;
         tok = strtok_r(NULL, ";", &save))
        node = profile_child(t, node, fixture_find_frame(t, tok));
    free(copy);
    return node;
}

static void expect_node(const struct model *m, const char *path, double self,
                        double total, bool in_cur, bool in_base)
{
    struct model_delta d;
    uint32_t node = node_at(m, path);

    assert_int_not_equal(node, PROFILE_NONE);
    assert_true(model_delta_node(m, node, &d));
    assert_float_equal(d.self, self, 1e-9);
    assert_float_equal(d.total, total, 1e-9);
    assert_int_equal(d.in_cur, in_cur);
    assert_int_equal(d.in_base, in_base);
}

static void test_tree_deltas(void **state)
{
    struct profile *b = before(), *a = after();
    struct model *m = diff_model(a, b, false, 0, 0);

    (void)state;
    expect_node(m, "main", 0, 0, true, true);
    expect_node(m, "main;a", 0, -20, true, true);
    expect_node(m, "main;a;b", -30, -30, true, true);
    expect_node(m, "main;a;c", -40, -40, false, true);  /* grafted */
    expect_node(m, "main;a;d", 50, 50, true, false);
    expect_node(m, "main;e", 20, 20, true, false);
    assert_int_equal(profile_node(m->tree, node_at(m, "main;a;c"))->total, 0);
    model_free(m);

    /* Bottom-up: the leaf c first, its callers below. */
    m = diff_model(a, b, true, 0, 0);
    /* (a node's self is the samples whose outermost frame it is) */
    expect_node(m, "c", 0, -40, false, true);
    expect_node(m, "c;a;main", -40, -40, false, true);
    expect_node(m, "b", 0, -30, true, true);
    expect_node(m, "d;a", 0, 50, true, false);
    model_free(m);
    profile_free(a);
    profile_free(b);
}

/* At hide-self 45%, hide-subs 100% only functions with a self share over
 * 45% on one side or the other show: b (60% before) and d (50% now); c
 * (40% before, 0% now) and e (20% now) hide on both sides. */
static void test_hide_either_side(void **state)
{
    struct profile *b = before(), *a = after();
    struct model *m = diff_model(a, b, false, 45, 100);

    (void)state;
    assert_false(m->hidden[fixture_find_frame(a, "b")]);
    assert_false(m->hidden[fixture_find_frame(a, "d")]);
    assert_true(m->hidden[fixture_find_frame(a, "c")]);
    assert_true(m->hidden[fixture_find_frame(a, "e")]);
    /* Lower the threshold: c's 40% before now shows it. */
    model_set_hide(m, 35, 100);
    assert_false(m->hidden[fixture_find_frame(a, "c")]);
    assert_true(m->hidden[fixture_find_frame(a, "e")]);
    model_free(m);
    profile_free(a);
    profile_free(b);
}

/* A thread only the baseline has becomes a thread of the current profile
 * with no samples, and its paths are grafted under it. */
static void test_baseline_only_thread(void **state)
{
    struct profile *b = before(), *a = after();
    uint32_t w = profile_thread(b, 9, "worker");
    struct model_delta d;

    (void)state;
    fixture_add_folded(b, w, fn, "loop", 100);
    struct model *m = diff_model(a, b, false, 0, 0);
    assert_int_equal(profile_thread_count(a), 2);
    uint32_t tn = profile_thread_at(m->tree, 1)->node;
    uint32_t loop = profile_child(m->tree, tn, fixture_find_frame(a, "loop"));
    assert_int_not_equal(loop, PROFILE_NONE);
    assert_true(model_delta_node(m, loop, &d));
    assert_float_equal(d.total, -50, 1e-9);  /* 100 of 200 before */
    assert_false(d.in_cur);
    model_free(m);
    profile_free(a);
    profile_free(b);
}

/* diff_align on its own: the aligned baseline has the current ids. */
static void test_align(void **state)
{
    struct profile *b = before(), *a = after();
    struct profile *al = diff_align(a, b);
    uint32_t *match;

    (void)state;
    assert_non_null(al);
    assert_int_equal(profile_frame_count(al), profile_frame_count(a));
    assert_int_equal(profile_samples(al), 100);
    assert_int_equal(profile_samples(a), 100);
    assert_int_equal(diff_match(a, al, false, &match), 0);
    /* main;a;d exists only now: no match; main;a;b matches. */
    uint32_t t = profile_thread_at(a, 0)->node;
    uint32_t main_ = profile_child(a, t, fixture_find_frame(a, "main"));
    uint32_t an = profile_child(a, main_, fixture_find_frame(a, "a"));
    uint32_t d = profile_child(a, an, fixture_find_frame(a, "d"));
    uint32_t bn = profile_child(a, an, fixture_find_frame(a, "b"));
    assert_int_equal(match[d], PROFILE_NONE);
    assert_int_not_equal(match[bn], PROFILE_NONE);
    assert_int_equal(profile_node(al, match[bn])->total, 60);
    free(match);
    profile_free(al);
    profile_free(a);
    profile_free(b);
}

/* Issue 19.1: a baseline from another format.  The current profile has
 * what pprof and a live run carry (module, build-id, file, first line),
 * the baseline only names, as a folded file; "[truncated]" is code in
 * one and a special frame in the other.  Every frame must pair by what
 * the user sees, so no row is new and no stack is written twice; a
 * function whose source file differs from the baseline's is another
 * function. */
static uint32_t rich(struct profile *p, const char *name, const char *file,
                     uint32_t line, uint8_t kind)
{
    struct frame_desc d = { .name = name, .module = "demo", .file = file,
                            .line = line, .kind = kind,
                            .build_id = "abcdef" };
    uint32_t id = profile_intern_frame(p, &d);

    assert_int_not_equal(id, PROFILE_NONE);
    return id;
}

static void add_ids(struct profile *p, uint32_t t, const uint32_t *ids,
                    size_t n, uint64_t count)
{
    struct stack_frame st[8];

    for (size_t i = 0; i < n; i++)
        st[i] = (struct stack_frame){ .frame = ids[i] };
    assert_int_equal(profile_add_stack(p, t, st, n, count), 0);
}

static uint32_t bare(struct profile *p, const char *name)
{
    struct frame_desc d = { .name = name, .kind = FRAME_FUNC };

    if (name[0] == '[')
        d.kind = FRAME_SPECIAL;
    return profile_intern_frame(p, &d);
}

static int count_line(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t base_count, uint64_t cur_count)
{
    uint64_t *seen = ctx;

    (void)thread;
    (void)frames;
    (void)n;
    seen[0]++;
    seen[1] += base_count && cur_count;
    return 0;
}

static void test_align_across_formats(void **state)
{
    struct profile *cur = profile_new(), *base = profile_new();
    uint32_t tc = profile_thread(cur, 7, "demo"), tb = profile_thread(base, 7,
                                                                      "demo");
    uint32_t c_main = rich(cur, "main", "demo.c", 10, FRAME_FUNC);
    uint32_t c_hot = rich(cur, "hot", "demo.c", 20, FRAME_FUNC);
    uint32_t c_tr = rich(cur, "[truncated]", NULL, 0, FRAME_FUNC);
    uint32_t c_other = rich(cur, "helper", "other.c", 5, FRAME_FUNC);
    uint32_t cs1[] = { c_main, c_hot }, cs2[] = { c_main, c_tr },
             cs3[] = { c_main, c_other };
    uint32_t bs1[] = { bare(base, "main"), bare(base, "hot") };
    uint32_t bs2[] = { bs1[0], bare(base, "[truncated]") };
    struct frame_desc helper = { .name = "helper", .file = "helper.c",
                                 .kind = FRAME_FUNC };
    uint32_t bs3[] = { bs1[0], profile_intern_frame(base, &helper) };
    struct model_delta d;
    struct diff_pair pair;
    uint64_t seen[2] = { 0, 0 };

    (void)state;
    add_ids(cur, tc, cs1, 2, 71);
    add_ids(cur, tc, cs2, 2, 19);
    add_ids(cur, tc, cs3, 2, 10);
    add_ids(base, tb, bs1, 2, 50);
    add_ids(base, tb, bs2, 2, 40);
    add_ids(base, tb, bs3, 2, 10);
    struct model *m = diff_model(cur, base, false, 0, 0);
    /* main, hot, [truncated], helper (demo.c) and helper (helper.c). */
    assert_int_equal(m->nflat, 5);
    assert_true(model_delta_frame(m, c_hot, &d));
    assert_true(d.in_cur && d.in_base);
    assert_float_equal(d.self, 71 - 50, 1e-9);
    assert_true(model_delta_frame(m, c_tr, &d));
    assert_true(d.in_cur && d.in_base);
    assert_float_equal(d.self, 19 - 40, 1e-9);
    assert_true(model_delta_frame(m, c_other, &d));
    assert_true(d.in_cur && !d.in_base);
    model_free(m);
    /* The writers' pairing: one line per stack, both counts on the two
     * stacks both sides have. */
    assert_int_equal(diff_pair_new(&pair, cur, base), 0);
    assert_int_equal(diff_foreach_stack(&pair, count_line, seen), 0);
    assert_int_equal(seen[0], 4);
    assert_int_equal(seen[1], 2);
    diff_pair_free(&pair);
    profile_free(cur);
    profile_free(base);
}

UNIT_MAIN(
    cmocka_unit_test(test_flat_deltas),
    cmocka_unit_test(test_tree_deltas),
    cmocka_unit_test(test_hide_either_side),
    cmocka_unit_test(test_baseline_only_thread),
    cmocka_unit_test(test_align),
    cmocka_unit_test(test_align_across_formats))
