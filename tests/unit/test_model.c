/* test_model.c - the queries views read (view_model.h): Racket's hide
 * rule, the caller->callee edges with Racket's edge times, the process,
 * thread and focus filters, the inverted tree and the process roots, on
 * hand-made profiles.
 *
 * The hide rule lives once, in the model; the text report (export_text)
 * prints the functions the model does not hide, so every test of the rule
 * also checks that the report shows exactly the others. */
#include "fixture.h"

#include "view_model.h"

/* The frame named `name` in the test's profile p. */
#define ID(name) fixture_find_frame(p, (name))

/* A function with no source: the report prints "name (unknown source)". */
static uint32_t fn(struct profile *p, const char *name)
{
    return fixture_frame(p, name, NULL, NULL, 0);
}

static void done(struct profile *p, struct model *m)
{
    model_free(m);
    profile_free(p);
}

static struct model *model_all(const struct profile *p, double hide_self,
                               double hide_subs)
{
    const struct model_filter all = { .focus = PROFILE_NONE };
    struct model *m = model_new(p, &all, hide_self, hide_subs);

    assert_non_null(m);
    return m;
}

/* Does the text report have a node line ("[N] ... name src") for name? */
static bool report_shows(const char *text, const char *name)
{
    char want[128];

    snprintf(want, sizeof(want), " %s (unknown source)\n", name);
    for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n');

        if (*l == '[' && (size_t)(end - l + 1) >= strlen(want) &&
            strncmp(end + 1 - strlen(want), want, strlen(want)) == 0)
            return true;
    }
    return false;
}

/* The model hides exactly the functions the text report leaves out, and
 * the report's header counts them. */
static void assert_report_agrees(const struct profile *p,
                                 const struct model *m, double hide_self,
                                 double hide_subs)
{
    struct export_opts o;
    char *text, count[64];

    export_opts_default(&o);
    o.hide_self = hide_self;
    o.hide_subs = hide_subs;
    text = fixture_write(format_find("text"), p, &o, NULL);
    for (size_t i = 0; i < m->nflat; i++) {
        const char *name = profile_frame(p, m->flat[i].frame)->name;

        if (report_shows(text, name) == m->hidden[m->flat[i].frame])
            fail_msg("%s: model hidden=%d, report disagrees:\n%s", name,
                     m->hidden[m->flat[i].frame], text);
    }
    snprintf(count, sizeof(count), ": %zu of %zu hidden)", m->nhidden,
             m->nflat);
    if (m->nhidden)
        assert_non_null(strstr(text, count));
    else
        assert_null(strstr(text, "hidden)"));
    free(text);
}

/* The recursive case of issue 9.  f: self 1 of 1000 (0.1% <= 1%); its
 * only caller edge, y -> f, has callee time 1/2 (y occurs twice in that
 * stack) over y's total 40: 1.25% <= 2%; its leaf -> "*" edge 1/1000.
 * So Racket's get-hidden hides f.  Dividing by f's occurrences instead
 * (1/40 = 2.5%) would show it, which the TUI once did. */
static void test_hide_recursive_case(void **state)
{
    struct profile *p = fixture_folded(fn, "main;y;y;f 1\n"
                                       "main;y;y 39\n"
                                       "main;other 960\n");
    struct model *m = model_all(p, 1.0, 2.0);

    (void)state;
    assert_true(m->hidden[ID("f")]);
    assert_false(m->hidden[ID("y")]);
    assert_false(m->hidden[ID("main")]);
    assert_false(m->hidden[ID("other")]);
    assert_int_equal(m->nhidden, 1);
    assert_report_agrees(p, m, 1.0, 2.0);
    /* one more sample of f: callee time 1 of y's 41 = 2.4% > 2% */
    fixture_add_folded(p, 0, fn, "main;y;y;f", 1);
    model_free(m);
    m = model_all(p, 1.0, 2.0);
    assert_false(m->hidden[ID("f")]);
    assert_int_equal(m->nhidden, 0);
    assert_report_agrees(p, m, 1.0, 2.0);
    done(p, m);
}

/* The edge of the callers pane between f and g, NULL if none. */
static const struct profile_edge *edge_of(const struct model *m, uint32_t f,
                                          uint32_t g)
{
    for (size_t i = 0; i < m->nedges; i++)
        if (m->edges[i].caller == f && m->edges[i].callee == g)
            return &m->edges[i];
    return NULL;
}

/* Issue 19.7, the callers pane of _PyEval_EvalFrameDefault: the callee
 * PyObject_Vectorcall (1 sample under it) is shown while
 * PyObject_Malloc (70) is hidden.  That is the one hide rule, Racket's:
 * it hides functions, not edges.  Malloc is a leaf with 70 of 20000
 * samples (0.35% <= hide-self 1%), 70 of _PyEval's 19600 (0.36% <= 2%)
 * is all it has as a callee; so it is hidden wherever it appears.
 * Vectorcall has no self time and 1 of _PyEval's samples, but it makes
 * all of builtin_len's time (100% > 2%): shown, everywhere.  model_why
 * gives the pane those figures, so it can say why. */
static void test_hide_callers_pane_case(void **state)
{
    struct profile *p = fixture_folded(fn,
        "main;_PyEval_EvalFrameDefault 19129\n"
        "main;_PyEval_EvalFrameDefault;PyObject_Malloc 70\n"
        "main;_PyEval_EvalFrameDefault;PyObject_Vectorcall;builtin_len 1\n"
        "main;_PyEval_EvalFrameDefault;list_append 400\n"
        "main;slot_tp_call;PyObject_Vectorcall;builtin_len 399\n"
        "main;slot_tp_call 1\n");
    struct model *m = model_all(p, 1.0, 2.0);
    uint32_t eval = ID("_PyEval_EvalFrameDefault");
    uint32_t vcall = ID("PyObject_Vectorcall"), malloc_ = ID("PyObject_Malloc");
    struct model_why w;

    (void)state;
    assert_int_equal(edge_of(m, eval, vcall)->samples, 1);
    assert_int_equal(edge_of(m, eval, malloc_)->samples, 70);
    assert_true(m->hidden[malloc_]);
    assert_false(m->hidden[vcall]);
    assert_report_agrees(p, m, 1.0, 2.0);

    assert_true(model_why(m, malloc_, &w));
    assert_true(w.self > 0.0034 && w.self < 0.0036);       /* 70 / 20000 */
    assert_int_equal(w.caller, eval);
    assert_true(w.of_caller > 0.0035 && w.of_caller < 0.0036); /* / 19600 */
    assert_int_equal(w.callee, PROFILE_NONE);               /* a leaf */
    assert_true(w.of_callee == 0);

    assert_true(model_why(m, vcall, &w));
    assert_true(w.self == 0);
    assert_int_equal(w.callee, ID("builtin_len"));
    assert_true(w.of_callee > 0.999);                       /* 400 / 400 */
    assert_false(model_why(m, PROFILE_NONE - 1, &w));
    done(p, m);
}

/* main -> a (199 samples) and main -> b (1): b's shares are all 0.5%. */
static void test_hide_thresholds(void **state)
{
    struct profile *p = fixture_folded(fn, "main;a 199\n"
                                       "main;b 1\n");
    struct model *m = model_all(p, 1.0, 2.0);

    (void)state;
    assert_true(m->hidden[ID("b")]);
    assert_int_equal(m->nhidden, 1);
    assert_report_agrees(p, m, 1.0, 2.0);
    /* both thresholds at 0 hide nothing */
    model_set_hide(m, 0, 0);
    assert_int_equal(m->nhidden, 0);
    assert_report_agrees(p, m, 0, 0);
    /* hide-subs 100%: main (self 0, every share <= 100%) hides too; a
     * (self 99.5%) stays */
    model_set_hide(m, 1.0, 100.0);
    assert_true(m->hidden[ID("main")]);
    assert_false(m->hidden[ID("a")]);
    assert_report_agrees(p, m, 1.0, 100.0);
    done(p, m);
}

/* The edges to and from Racket's "*" node count.  Of 1000 samples, x is
 * the leaf of 30 (self 3%, under a 5% hide-self), so its leaf -> "*" edge
 * is 3%, while its caller edge m -> x is 30/2 (m occurs twice) of m's
 * 970: 1.5%.  s is the bottom of 30, a 3% "*" -> s edge, while s -> big
 * is 30/2 of big's 970.  So only the "*" edges keep x and s at 2%. */
static void test_hide_star_edges(void **state)
{
    struct profile *p = fixture_folded(fn, "m;m;x 30\n"
                                       "m;big 940\n"
                                       "s;big;big 30\n");
    struct model *m = model_all(p, 5.0, 2.0);

    (void)state;
    assert_false(m->hidden[ID("x")]);
    assert_false(m->hidden[ID("s")]);
    assert_int_equal(m->nhidden, 0);
    assert_report_agrees(p, m, 5.0, 2.0);
    model_set_hide(m, 5.0, 3.5);
    assert_true(m->hidden[ID("x")]);
    assert_true(m->hidden[ID("s")]);
    assert_int_equal(m->nhidden, 2);
    assert_report_agrees(p, m, 5.0, 3.5);
    /* hide-self below x's 3% keeps x whatever its edges */
    model_set_hide(m, 2.5, 3.5);
    assert_false(m->hidden[ID("x")]);
    assert_true(m->hidden[ID("s")]);
    assert_report_agrees(p, m, 2.5, 3.5);
    done(p, m);
}

/* The edge caller -> callee; fails the test if there is none. */
static const struct profile_edge *edge(const struct model *m,
                                       uint32_t caller, uint32_t callee)
{
    const struct profile_edge *e = edge_of(m, caller, callee);

    if (!e)
        fail_msg("no edge %u -> %u", caller, callee);
    return e;
}

/* main;f;f;f x1 and main;f x1.  In the first sample f occurs three times,
 * so each of its caller edges carries 1/3 of the sample: f's caller
 * lines read main 4/3 and f 2/3 of f's 2 samples (66.7% and 33.3%, as
 * Racket prints, summing to 100%); main's callee line reads f 2/1. */
static void test_edges_recursion(void **state)
{
    struct profile *p = fixture_folded(fn, "main;f;f;f 1\n"
                                       "main;f 1\n");
    struct model *m = model_all(p, 0, 0);
    uint32_t main_ = ID("main"), f = ID("f");
    const struct profile_edge *mf = edge(m, main_, f), *ff = edge(m, f, f);
    const struct profile_edge *bottom = edge(m, PROFILE_NONE, main_);

    (void)state;
    assert_int_equal(m->nedges, 3);
    assert_float_equal(mf->caller_time, 4.0 / 3.0, 1e-9);
    assert_float_equal(mf->callee_time, 2.0, 1e-9);
    assert_int_equal(mf->samples, 2);
    assert_int_equal(mf->outer, 2);
    assert_float_equal(ff->caller_time, 2.0 / 3.0, 1e-9);
    assert_float_equal(ff->callee_time, 2.0 / 3.0, 1e-9);
    assert_int_equal(ff->samples, 1);
    assert_int_equal(ff->outer, 0);
    assert_float_equal(bottom->callee_time, 2.0, 1e-9);
    /* f's caller lines sum to its total */
    assert_float_equal(mf->caller_time + ff->caller_time,
                       (double)model_flat_of(m, f)->total, 1e-9);
    /* a function's outer edges sum to its total (callgrind's rule) */
    assert_int_equal(mf->outer + ff->outer, model_flat_of(m, f)->total);
    /* first use: main;f is met first (its node comes before its
     * children's in the walk), then f -> f */
    assert_int_equal(bottom->seq, 0);
    assert_int_equal(mf->seq, 1);
    assert_int_equal(ff->seq, 2);
    done(p, m);
}

/* Racket's order within a stack: the bottom edge, then the pairs from
 * the leaf down (its connect calls), which the report's ties follow. */
static void test_edges_first_use(void **state)
{
    struct profile *p = fixture_folded(fn, "a;b;c 1\n");
    struct model *m = model_all(p, 0, 0);
    uint32_t a = ID("a"), b = ID("b"), c = ID("c");

    (void)state;
    assert_int_equal(edge(m, PROFILE_NONE, a)->seq, 0);
    assert_int_equal(edge(m, b, c)->seq, 1);
    assert_int_equal(edge(m, a, b)->seq, 2);
    done(p, m);
}

/* Flat entries count recursion once and rank functions by first use, as
 * profile_first_use numbers them. */
static void test_flat_first_use(void **state)
{
    struct profile *p = fixture_folded(fn, "main;g;g 2\n"
                                       "main;h 5\n"
                                       "k 1\n");
    struct model *m = model_all(p, 0, 0);

    (void)state;
    assert_int_equal(m->total, 8);
    assert_int_equal(model_flat_of(m, ID("g"))->total, 2);
    assert_int_equal(model_flat_of(m, ID("main"))->first, 0);
    assert_int_equal(model_flat_of(m, ID("g"))->first, 1);
    assert_int_equal(model_flat_of(m, ID("h"))->first, 2);
    assert_int_equal(model_flat_of(m, ID("k"))->first, 3);
    {
        uint32_t *order, *index;
        static const char *const names[] = { "main", "g", "h", "k" };

        assert_int_equal(profile_first_use(p, &order, &index), 4);
        for (uint32_t i = 0; i < 4; i++) {
            assert_int_equal(order[i], ID(names[i]));
            assert_int_equal(index[order[i]], i);
        }
        assert_int_equal(index[profile_thread_at(p, 0)->frame],
                         PROFILE_NONE);
        free(order);
        free(index);
    }
    assert_string_equal(model_frame_name(m, ID("h")), "h");
    assert_string_equal(model_frame_name(m, 999), "?");
    assert_null(model_flat_of(m, 999));
    done(p, m);
}

/* FORMATS.md's example, inverted: below the thread node the roots are
 * the leaves (b 3, c 1 on "main"; d 2 on "worker"), their children the
 * callers; the flat table and edges stay those of the call tree. */
static void test_inverted_tree(void **state)
{
    struct profile *p = fixture_example(fn, false);
    const struct model_filter inv = { .focus = PROFILE_NONE,
                                      .inverted = true };
    struct model *m = model_new(p, &inv, 0, 0);
    uint32_t t0, b, ba, bam;

    (void)state;
    assert_non_null(m);
    assert_ptr_equal(m->base, p);
    assert_ptr_equal(m->tree, m->shaped);
    t0 = profile_thread_at(m->tree, 0)->node;
    b = profile_child(m->tree, t0, ID("b"));
    ba = profile_child(m->tree, b, ID("a"));
    bam = profile_child(m->tree, ba, ID("main"));
    assert_int_not_equal(bam, PROFILE_NONE);
    assert_int_equal(profile_node(m->tree, b)->total, 3);
    assert_int_equal(profile_node(m->tree, b)->self, 0);
    assert_int_equal(profile_node(m->tree, bam)->self, 3);
    assert_int_equal(profile_child(m->tree, t0, ID("main")),
                     PROFILE_NONE);
    assert_int_equal(model_flat_of(m, ID("main"))->total, 6);
    assert_int_equal(m->nedges, 5);
    done(p, m);
}

/* Threads merged: the tree has no thread level (main of both threads is
 * one node under the root), inverted too; the flat table and the edges
 * are the same as per thread. */
static void test_merged_tree(void **state)
{
    struct profile *p = fixture_example(fn, true);
    struct model_filter f = { .focus = PROFILE_NONE, .merge_threads = true };
    struct model *m = model_new(p, &f, 0, 0);
    uint32_t main_n, d;

    (void)state;
    assert_non_null(m);
    assert_ptr_equal(m->base, p);
    assert_ptr_equal(m->tree, m->shaped);
    main_n = profile_child(m->tree, PROFILE_ROOT, ID("main"));
    assert_int_not_equal(main_n, PROFILE_NONE);
    assert_int_equal(profile_node(m->tree, main_n)->total, 6);
    d = profile_child(m->tree, main_n, ID("d"));
    assert_int_equal(profile_node(m->tree, d)->self, 2);
    assert_int_equal(model_flat_of(m, ID("main"))->total, 6);
    assert_int_equal(m->nedges, 5);
    model_free(m);

    f.inverted = true;
    m = model_new(p, &f, 0, 0);
    assert_non_null(m);
    assert_int_equal(profile_node(m->tree, profile_child(m->tree, PROFILE_ROOT,
                                                         ID("b")))->total, 3);
    assert_int_equal(profile_node(m->tree, profile_child(m->tree, PROFILE_ROOT,
                                                         ID("d")))->total, 2);
    done(p, m);
}

/* A thread filter by tid and a focus frame derive the base profile; an
 * unknown tid or a frame out of range is ignored. */
static void test_filters(void **state)
{
    struct profile *p = fixture_example(fn, false);
    struct model_filter f = { .has_thread = true, .tid = 101,
                              .focus = PROFILE_NONE };
    struct model *m = model_new(p, &f, 0, 0);

    (void)state;
    assert_int_equal(m->thread, 1);
    assert_int_equal(m->total, 2);                 /* main;d x2 */
    assert_null(model_flat_of(m, ID("a")));
    model_free(m);
    f = (struct model_filter){ .focus = ID("c") };
    m = model_new(p, &f, 0, 0);
    assert_int_equal(m->total, 1);                 /* main;a;c */
    assert_int_equal(model_flat_of(m, ID("a"))->total, 1);
    model_free(m);
    f = (struct model_filter){ .has_thread = true, .tid = 7, .focus = 999 };
    m = model_new(p, &f, 0, 0);
    assert_int_equal(m->thread, PROFILE_NONE);
    assert_int_equal(m->focus, PROFILE_NONE);
    assert_ptr_equal(m->base, p);
    assert_int_equal(m->total, 6);
    done(p, m);
}

/* What "save the view" writes: the thread and focus filters applied,
 * the tree's shape (inverted, merged) not; everything when unfiltered. */
static void test_filter_profile(void **state)
{
    struct profile *p = fixture_keep_profile(state, fixture_example(fn, true));
    struct model_filter f = { .focus = ID("a"), .inverted = true,
                              .merge_threads = true };
    struct profile *q = model_filter_profile(p, &f);

    assert_non_null(q);
    assert_int_equal(profile_samples(q), 4);       /* main;a;b x3, main;a;c */
    uint32_t t0 = profile_thread_at(q, 0)->node;
    assert_int_equal(profile_node(q, profile_child(q, t0, ID("main")))->total,
                     4);
    profile_free(q);
    f = (struct model_filter){ .has_thread = true, .tid = 101,
                               .focus = PROFILE_NONE };
    q = model_filter_profile(p, &f);
    assert_int_equal(profile_samples(q), 2);       /* worker's main;d */
    profile_free(q);
    f = (struct model_filter){ .focus = PROFILE_NONE };
    q = model_filter_profile(p, &f);
    assert_ptr_not_equal(q, p);
    assert_int_equal(profile_samples(q), 6);
    profile_free(q);
}

/* Three nginx processes (a master, two workers, the second with an io
 * thread) and one redis: threads 100, 101, 102+103, 200. */
static struct profile *procs_profile(void)
{
    struct profile *p = profile_new();
    static const struct {
        int64_t tid, pid;
        const char *name, *comm, *stack;
        uint64_t count;
    } rows[] = {
        { 100, 100, "nginx", "nginx", "main;master", 5 },
        { 101, 101, "nginx", "nginx", "main;worker;parse", 20 },
        { 102, 102, "nginx", "nginx", "main;worker;parse", 30 },
        { 103, 102, "io", "nginx", "io_loop", 4 },
        { 200, 200, "redis", "redis", "main;serve", 41 },
    };

    assert_non_null(p);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint32_t t = fixture_thread_in(p, rows[i].tid, rows[i].name,
                                       rows[i].pid, rows[i].comm);

        fixture_add_folded(p, t, fn, rows[i].stack, rows[i].count);
    }
    return p;
}

/* The root's child whose process frame is named `name`, or NONE. */
static uint32_t proc_root(const struct profile *t, const char *name)
{
    for (uint32_t c = profile_node(t, PROFILE_ROOT)->first_child;
         c != PROFILE_NONE; c = profile_node(t, c)->next_sibling) {
        const struct frame_desc *d =
            profile_frame(t, profile_node(t, c)->frame);

        if (d->kind == FRAME_PROCESS && strcmp(d->name, name) == 0)
            return c;
    }
    return PROFILE_NONE;
}

static uint32_t child_named(const struct profile *t, uint32_t node,
                            const char *name)
{
    for (uint32_t c = profile_node(t, node)->first_child; c != PROFILE_NONE;
         c = profile_node(t, c)->next_sibling) {
        const struct frame_desc *d =
            profile_frame(t, profile_node(t, c)->frame);

        if (strcmp(d->name, name) == 0)
            return c;
    }
    return PROFILE_NONE;
}

/* In model m's tree: a process root, a child by name, a node's total. */
#define PROC(name) proc_root(m->tree, (name))
#define KID(node, name) child_named(m->tree, (node), (name))
#define TOTAL(node) profile_node(m->tree, (node))->total

/* More than one process: the tree's roots are processes, their threads
 * under them per thread, their stacks directly when threads are merged;
 * node paths and threads skip the levels; keys of process rows survive
 * a snapshot with more frames. */
static void test_process_roots(void **state)
{
    struct profile *p = procs_profile();
    struct model_filter f = { .focus = PROFILE_NONE };
    struct model *m = model_new(p, &f, 0, 0);
    uint32_t w2, th, parse, path[8];

    (void)state;
    assert_non_null(m);
    assert_true(m->processes);
    w2 = PROC("nginx (pid 102)");
    assert_int_not_equal(w2, PROFILE_NONE);
    assert_int_equal(TOTAL(w2), 34);
    assert_int_equal(model_node_pid(m, w2), 102);
    assert_int_equal(model_node_pid(m, PROFILE_ROOT), 0);
    assert_int_equal(model_node_pid(m, PROFILE_NONE), 0);
    assert_int_equal(TOTAL(PROC("redis (pid 200)")), 41);
    assert_int_equal(TOTAL(PROC("nginx (pid 100)")), 5);
    th = KID(w2, "io-103");
    assert_int_not_equal(th, PROFILE_NONE);
    assert_int_equal(profile_node(m->tree, th)->depth, 2);
    assert_int_equal(profile_node_thread(m->tree, KID(th, "io_loop")), 3);
    parse = KID(KID(KID(KID(w2, "nginx-102"), "main"), "worker"), "parse");
    assert_int_equal(profile_node(m->tree, parse)->self, 30);
    assert_int_equal(model_node_pid(m, parse), 0);
    assert_int_equal(profile_node_path(m->tree, parse, path, 8), 3);
    assert_int_equal(path[0], ID("main"));
    assert_int_equal(path[2], ID("parse"));
    uint64_t key = profile_node_key(m->tree, w2);
    model_free(m);

    /* threads merged: the stacks hang from the process itself */
    f.merge_threads = true;
    m = model_new(p, &f, 0, 0);
    w2 = PROC("nginx (pid 102)");
    assert_int_equal(TOTAL(KID(w2, "io_loop")), 4);
    assert_int_equal(TOTAL(KID(w2, "main")), 30);
    assert_int_equal(profile_node_thread(m->tree, KID(w2, "main")),
                     PROFILE_NONE);
    model_free(m);

    /* a later snapshot with a new frame: the process row keeps its key */
    fn(p, "new_function");
    f.merge_threads = false;
    m = model_new(p, &f, 0, 0);
    assert_int_equal(profile_node_key(m->tree, PROC("nginx (pid 102)")),
                     key);
    /* inverted: leaves below each process and thread */
    model_free(m);
    f.inverted = true;
    m = model_new(p, &f, 0, 0);
    th = KID(PROC("nginx (pid 101)"), "nginx-101");
    assert_int_equal(TOTAL(KID(th, "parse")), 20);
    done(p, m);
}

/* With a baseline the tree keeps its process roots, paired with the
 * baseline's by path: a process row shows its change of share. */
static void test_process_roots_diff(void **state)
{
    struct profile *cur = procs_profile();
    struct profile *base = procs_profile();
    struct model_filter f = { .focus = PROFILE_NONE, .merge_threads = true };
    struct model_extra x = { .baseline = base };
    struct model_delta d;
    struct model *m;

    (void)state;
    fixture_add_folded(base, 4, fn, "main;serve", 100); /* redis, tid 200 */
    m = model_new_ext(cur, &f, 0, 0, &x);
    assert_non_null(m);
    assert_true(m->processes);
    assert_true(m->bm->processes);
    /* redis: 41 of 100 now, 141 of 200 then */
    assert_true(model_delta_node(m, PROC("redis (pid 200)"), &d));
    assert_true(d.in_cur && d.in_base);
    assert_true(d.total > -29.51 && d.total < -29.49);
    assert_true(model_delta_node(m, PROC("nginx (pid 102)"), &d));
    assert_true(d.total > 34 - 17.01 && d.total < 34 - 16.99);
    model_free(m);
    profile_free(base);
    profile_free(cur);
}

/* One process: no process level, the tree is as before. */
static void test_one_process_no_level(void **state)
{
    struct profile *p = fixture_example(fn, false);
    struct model_filter f = { .focus = PROFILE_NONE, .merge_threads = true };
    struct model *m;

    (void)state;
    profile_thread_set_process(p, 0, 100, "prog");
    profile_thread_set_process(p, 1, 100, "prog");
    m = model_new(p, &f, 0, 0);
    assert_false(m->processes);
    assert_int_equal(TOTAL(KID(PROFILE_ROOT, "main")), 6);
    done(p, m);
}

/* Merged by command (J): one root per command that says how many
 * processes it holds, its count the sum of theirs. */
static void test_process_merge_command(void **state)
{
    struct profile *p = fixture_keep_profile(state, procs_profile());
    struct profile *q = profile_merge_commands(p);
    struct model_filter f = { .focus = PROFILE_NONE, .merge_threads = true };
    struct model *m;
    uint32_t ng;

    assert_non_null(q);
    /* one command, one process: every nginx thread has the first PID */
    for (uint32_t i = 0; i < profile_thread_count(q); i++) {
        const struct profile_thread *t = profile_thread_at(q, i);

        assert_int_equal(t->pid,
                         strcmp(t->process, "nginx") == 0 ? 100 : 200);
    }
    assert_int_equal(profile_process_count(q), 2);
    m = model_new(q, &f, 0, 0);
    assert_true(m->processes);
    ng = PROC("nginx (3 processes)");
    assert_int_not_equal(ng, PROFILE_NONE);
    assert_int_equal(TOTAL(ng), 5 + 20 + 30 + 4);
    assert_int_equal(TOTAL(KID(KID(ng, "main"), "worker")), 50);
    assert_int_equal(TOTAL(PROC("redis (1 process)")), 41);
    model_free(m);
    profile_free(q);
}

/* The process filter: every count is that process's; a PID the profile
 * does not have is ignored; saving the view keeps only its threads. */
static void test_process_filter(void **state)
{
    struct profile *p = procs_profile();
    struct model_filter f = { .focus = PROFILE_NONE, .merge_threads = true,
                              .has_process = true, .pid = 102 };
    struct model *m = model_new(p, &f, 0, 0);
    struct profile *q;

    (void)state;
    assert_int_equal(m->pid, 102);
    assert_false(m->processes);
    assert_int_equal(m->total, 34);
    assert_int_equal(model_flat_of(m, ID("parse"))->total, 30);
    assert_null(model_flat_of(m, ID("serve")));
    assert_int_equal(TOTAL(KID(PROFILE_ROOT, "io_loop")), 4);
    q = model_filter_profile(p, &f);
    assert_int_equal(profile_samples(q), 34);
    profile_free(q);
    model_free(m);
    f.pid = 999;
    m = model_new(p, &f, 0, 0);
    assert_int_equal(m->pid, 0);
    assert_int_equal(m->total, 100);
    done(p, m);
}

UNIT_MAIN(
    cmocka_unit_test(test_hide_recursive_case),
    cmocka_unit_test(test_hide_callers_pane_case),
    cmocka_unit_test(test_hide_thresholds),
    cmocka_unit_test(test_hide_star_edges),
    cmocka_unit_test(test_edges_recursion),
    cmocka_unit_test(test_edges_first_use),
    cmocka_unit_test(test_flat_first_use),
    cmocka_unit_test(test_inverted_tree),
    cmocka_unit_test(test_merged_tree),
    cmocka_unit_test(test_filters),
    FIXTURE_TEST(test_filter_profile),
    cmocka_unit_test(test_process_roots),
    cmocka_unit_test(test_process_roots_diff),
    cmocka_unit_test(test_one_process_no_level),
    FIXTURE_TEST(test_process_merge_command),
    cmocka_unit_test(test_process_filter))
