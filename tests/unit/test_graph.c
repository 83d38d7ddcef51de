/* test_graph.c - a profile that holds a call graph instead of stacks
 * (profile.h, "a call graph without stacks"): what answers from the
 * graph (samples, flat table, edges, threads, the model and its hide
 * rule, the text report) answers as it would for the stacks the graph
 * came from; what needs stacks finds none and says so; what
 * profile_set_graph refuses.  Also the queries both kinds answer:
 * leaf_time, profile_frame_threads, profile_thread_samples. */
#include "fixture.h"

#include <errno.h>
#include <math.h>

#include "view_model.h"

#define ADD(p, t, count, ...)                                               \
    FIXTURE_ADD_NAMES(p, t, fixture_example_frame, count, __VA_ARGS__)

/* Two threads, direct and indirect recursion. */
static struct profile *stacks(void)
{
    struct profile *p = profile_new();
    uint32_t t0 = profile_thread(p, 100, "main");
    uint32_t t1 = profile_thread(p, 101, "w");
    struct profile_meta m = { .interval_ns = 10000000 };

    ADD(p, t0, 3, "main", "a", "b");
    ADD(p, t0, 2, "main", "f", "f", "f");
    ADD(p, t1, 1, "main", "a", "c");
    ADD(p, t1, 4, "main", "g", "h", "g");
    assert_int_equal(profile_set_meta(p, &m), 0);
    return p;
}

/* The pieces of p's graph, as a reader would give them. */
struct pieces {
    struct profile_flat *flat;
    long nflat;
    struct profile_edge *edges;
    long nedges;
    uint64_t th[8];
    uint32_t *off, *ft;
    struct profile_graph_desc d;
};

static void pieces_of(const struct profile *p, struct pieces *x)
{
    x->nflat = profile_flat(p, &x->flat);
    x->nedges = profile_edges(p, &x->edges);
    assert_true(x->nflat > 0 && x->nedges > 0);
    assert_int_equal(profile_frame_threads(p, &x->off, &x->ft), 0);
    for (uint32_t t = 0; t < profile_thread_count(p); t++)
        x->th[t] = profile_thread_samples(p, t);
    x->d = (struct profile_graph_desc){
        .flat = x->flat, .nflat = (size_t)x->nflat, .edges = x->edges,
        .nedges = (size_t)x->nedges, .thread_samples = x->th,
        .sample_count = profile_sample_count(p),
        .frame_threads_off = x->off, .frame_threads = x->ft };
}

static void pieces_free(struct pieces *x)
{
    free(x->flat);
    free(x->edges);
    free(x->off);
    free(x->ft);
}

/* p's frames, threads and metadata with no samples: where a graph goes. */
static struct profile *empty_like(const struct profile *p)
{
    struct profile *q = profile_clone(p);

    assert_non_null(q);
    profile_reset(q);
    return q;
}

static void test_stack_queries(void **state)
{
    struct profile *p = fixture_keep_profile(state, stacks());
    struct profile_flat *flat;
    long n = profile_flat(p, &flat);
    uint32_t *off, *ft, f = fixture_find_frame(p, "f");
    uint32_t mn = fixture_find_frame(p, "main"), g = fixture_find_frame(p, "g");

    assert_true(profile_has_stacks(p));
    for (long i = 0; i < n; i++) {
        /* f is its own leaf in 2 samples, 3 deep: 2 / 3 */
        if (flat[i].frame == f)
            assert_true(fabs(flat[i].leaf_time - 2.0 / 3) < 1e-12);
        /* g: 4 samples, twice in the stack */
        if (flat[i].frame == g)
            assert_true(fabs(flat[i].leaf_time - 2.0) < 1e-12);
        if (flat[i].frame == mn)
            assert_true(flat[i].leaf_time == 0);
    }
    assert_int_equal(profile_frame_threads(p, &off, &ft), 0);
    assert_int_equal(off[mn + 1] - off[mn], 2);        /* both threads */
    assert_int_equal(ft[off[mn]], 0);
    assert_int_equal(ft[off[mn] + 1], 1);
    assert_int_equal(off[f + 1] - off[f], 1);          /* main only */
    assert_int_equal(ft[off[f]], 0);
    assert_int_equal(off[g + 1] - off[g], 1);          /* w only */
    assert_int_equal(ft[off[g]], 1);
    assert_int_equal(profile_thread_samples(p, 0), 5);
    assert_int_equal(profile_thread_samples(p, 1), 5);
    assert_int_equal(profile_thread_samples(p, 2), 0);
    free(off);
    free(ft);
    free(flat);
}

static int count_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t count)
{
    (void)thread, (void)frames, (void)n;
    *(uint64_t *)ctx += count;
    return 0;
}

/* A graph answers the graph's questions as its stacks did. */
static void test_graph_answers(void **state)
{
    struct profile *p = fixture_keep_profile(state, stacks());
    struct profile *q = empty_like(p), *c;
    struct pieces x, y;
    const struct model_filter all = { .focus = PROFILE_NONE };
    struct model_filter focus = all;
    struct model *mp, *mq;
    uint64_t seen = 0;
    char *tp, *tq;

    pieces_of(p, &x);
    assert_int_equal(profile_set_graph(q, &x.d), 0);
    assert_false(profile_has_stacks(q));
    assert_int_equal(profile_samples(q), 10);
    assert_int_equal(profile_thread_samples(q, 1), 5);
    pieces_of(q, &y);
    assert_int_equal(y.nflat, x.nflat);
    assert_memory_equal(y.flat, x.flat, (size_t)x.nflat * sizeof(*x.flat));
    assert_int_equal(y.nedges, x.nedges);
    assert_memory_equal(y.edges, x.edges, (size_t)x.nedges * sizeof(*x.edges));
    assert_memory_equal(y.off, x.off,
                        (profile_frame_count(p) + 1) * sizeof(*x.off));
    /* no stack is made up */
    assert_int_equal(profile_foreach_stack(q, count_stack, &seen), 0);
    assert_int_equal(seen, 0);
    /* a clone keeps the graph; a merge refuses, saying why */
    c = profile_clone(q);
    assert_false(profile_has_stacks(c));
    assert_int_equal(profile_samples(c), 10);
    assert_int_equal(profile_merge(c, p), PROFILE_MERGE_REFUSED);
    assert_string_equal(profile_merge_refusal(c, p), PROFILE_NO_STACKS);
    assert_int_equal(profile_merge(p, c), PROFILE_MERGE_REFUSED);
    profile_free(c);
    /* the model: same flat table, edges and hiding; filters do nothing */
    focus.focus = fixture_find_frame(p, "a");
    focus.inverted = true;
    mp = model_new(p, &all, 50, 50);
    mq = model_new(q, &focus, 50, 50);
    assert_non_null(mp);
    assert_non_null(mq);
    assert_int_equal(mq->total, 10);
    assert_int_equal(mq->nflat, mp->nflat);
    assert_int_equal(mq->nedges, mp->nedges);
    assert_int_equal(mq->nhidden, mp->nhidden);
    assert_true(mp->nhidden > 0);
    assert_memory_equal(mq->hidden, mp->hidden, mp->nframes * sizeof(bool));
    model_free(mp);
    model_free(mq);
    /* the text report, hiding nothing and with the defaults */
    for (int k = 0; k < 2; k++) {
        struct export_opts o;

        export_opts_default(&o);
        if (k == 0)
            o.hide_self = o.hide_subs = 0;
        tp = fixture_keep(state,
                          fixture_write(format_find("text"), p, &o, NULL));
        tq = fixture_keep(state,
                          fixture_write(format_find("text"), q, &o, NULL));
        assert_string_equal(tq, tp);
    }
    /* the view's profile of a graph is the graph */
    c = model_filter_profile(q, &focus);
    assert_false(profile_has_stacks(c));
    assert_int_equal(profile_samples(c), 10);
    profile_free(c);
    /* reset forgets it */
    profile_reset(q);
    assert_true(profile_has_stacks(q));
    assert_int_equal(profile_samples(q), 0);
    pieces_free(&x);
    pieces_free(&y);
    profile_free(q);
}

/* set_graph on a copy of the pieces, changed by `edit`: -1 and EINVAL. */
static void refused(const struct pieces *x, const struct profile *p,
                    void (*edit)(struct pieces *, const struct profile *))
{
    struct pieces y = *x;
    struct profile *q = empty_like(p);

    y.flat = malloc((size_t)x->nflat * sizeof(*y.flat));
    y.edges = malloc((size_t)x->nedges * sizeof(*y.edges));
    memcpy(y.flat, x->flat, (size_t)x->nflat * sizeof(*y.flat));
    memcpy(y.edges, x->edges, (size_t)x->nedges * sizeof(*y.edges));
    memcpy(y.th, x->th, sizeof(y.th));
    y.d.flat = y.flat;
    y.d.edges = y.edges;
    y.d.thread_samples = y.th;
    edit(&y, p);
    errno = 0;
    assert_int_equal(profile_set_graph(q, &y.d), -1);
    assert_int_equal(errno, EINVAL);
    assert_true(profile_has_stacks(q));
    free(y.flat);
    free(y.edges);
    profile_free(q);
}

static void bad_frame(struct pieces *y, const struct profile *p)
{
    y->flat[0].frame = profile_frame_count(p);
}

static void thread_frame(struct pieces *y, const struct profile *p)
{
    y->flat[0].frame = profile_thread_at(p, 0)->frame;
}

static void twice(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->flat[1].frame = y->flat[0].frame;
}

static void self_over_total(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->flat[0].self = y->flat[0].total + 1;
}

static void rank_twice(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->flat[1].first = y->flat[0].first;
}

static void edge_twice(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->edges[1].caller = y->edges[0].caller;
    y->edges[1].callee = y->edges[0].callee;
}

static void edge_nan(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->edges[0].callee_time = NAN;
}

static void edge_negative(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->edges[0].caller_time = -1;
}

static void edge_out_of_range(struct pieces *y, const struct profile *p)
{
    y->edges[0].callee = profile_frame_count(p) + 5;
}

static void edge_seq_twice(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->edges[1].seq = y->edges[0].seq;
}

static void too_many_samples(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->th[0] = PROFILE_COUNT_LIMIT - 1;
}

static void total_over_samples(struct pieces *y, const struct profile *p)
{
    (void)p;
    y->flat[0].total = 11;
}

/* Each edit makes the pieces of a graph that set_graph refuses. */
typedef void edit_fn(struct pieces *, const struct profile *);
static edit_fn *const edits[] = {
    bad_frame, thread_frame, twice, self_over_total, rank_twice, edge_twice,
    edge_nan, edge_negative, edge_out_of_range, edge_seq_twice,
    too_many_samples, total_over_samples,
};

static void test_graph_refused(void **state)
{
    struct profile *p = fixture_keep_profile(state, stacks());
    struct pieces x;

    pieces_of(p, &x);
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++)
        refused(&x, p, edits[i]);
    /* a profile that has samples takes no graph */
    errno = 0;
    assert_int_equal(profile_set_graph(p, &x.d), -1);
    assert_int_equal(errno, EINVAL);
    pieces_free(&x);
}

UNIT_MAIN(
    FIXTURE_TEST(test_stack_queries),
    FIXTURE_TEST(test_graph_answers),
    FIXTURE_TEST(test_graph_refused))
