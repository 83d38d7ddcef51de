/* view_model.c - derive, summarise and apply the hide thresholds to a
 * snapshot.
 *
 * See view_model.h.  Called by ui.c once per new snapshot or filter change;
 * that is at most once per refresh interval, so plain O(nodes + edges)
 * passes are fine here.
 */
#include "view_model.h"

#include <stdlib.h>
#include <string.h>

#include "diff.h"

static uint32_t thread_index(const struct profile *p, int64_t tid)
{
    uint32_t n = profile_thread_count(p);

    for (uint32_t i = 0; i < n; i++)
        if (profile_thread_at(p, i)->tid == tid)
            return i;
    return PROFILE_NONE;
}

static bool has_pid(const struct profile *p, int64_t pid)
{
    uint32_t n = profile_thread_count(p);

    for (uint32_t i = 0; pid && i < n; i++)
        if (profile_thread_at(p, i)->pid == pid)
            return true;
    return false;
}

/* Whether snap has a frame `is` says yes to (a kernel function, an
 * off-CPU reason, a Python or Ruby function): a filter of them changes nothing
 * otherwise. */
static bool has_frames(const struct profile *snap,
                       bool (*is)(const struct frame_desc *))
{
    uint32_t n = profile_frame_count(snap);

    for (uint32_t i = 0; i < n; i++)
        if (is(profile_frame(snap, i)))
            return true;
    return false;
}

/* The process, thread, focus, kernel, CPU and Python parts of f over
 * snap (what selects samples or frames); true when they select less than
 * everything. */
static bool sample_filter(const struct profile *snap,
                          const struct model_filter *f,
                          struct profile_filter *pf)
{
    *pf = (struct profile_filter){
        .thread = f->has_thread ? thread_index(snap, f->tid) : PROFILE_NONE,
        .focus = f->focus < profile_frame_count(snap) ? f->focus
                                                      : PROFILE_NONE,
        .pid = f->has_process && has_pid(snap, f->pid) ? f->pid : 0,
        .hide_kernel = f->hide_kernel &&
                       has_frames(snap, profile_frame_is_kernel),
        .cpu = f->cpu != PROFILE_CPU_BOTH &&
                       has_frames(snap, profile_frame_is_reason)
                   ? f->cpu : PROFILE_CPU_BOTH,
        .python_only = f->python_only &&
                       has_frames(snap, profile_frame_is_script),
    };
    return pf->thread != PROFILE_NONE || pf->focus != PROFILE_NONE ||
           pf->pid || pf->hide_kernel || pf->cpu != PROFILE_CPU_BOTH ||
           pf->python_only;
}

/* The one rule of process roots: the tree shows a process level when
 * what it shows comes from more than one process, or from processes
 * merged by command (the root says how many). */
static bool process_roots(const struct profile *snap,
                          const struct profile_filter *pf)
{
    uint32_t n = profile_thread_count(snap);

    if (pf->pid || pf->thread != PROFILE_NONE)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (profile_thread_at(snap, i)->processes > 1)
            return true;
    return profile_several_processes(snap);
}

struct profile *model_filter_profile(const struct profile *snap,
                                     const struct model_filter *f)
{
    struct profile_filter pf;

    /* a call graph cannot be filtered: it is saved whole */
    return sample_filter(snap, f, &pf) && profile_has_stacks(snap)
               ? profile_derive(snap, &pf) : profile_clone(snap);
}

/* The model of snap; own_tree derives the trees even without a filter,
 * so the model may add nodes to them (diff's grafts); roots, when not
 * NULL, says whether the tree has process roots (a baseline's follows
 * its model's), else the one rule decides. */
static struct model *model_build(const struct profile *snap,
                                 const struct model_filter *f,
                                 double hide_self, double hide_subs,
                                 bool own_tree, const bool *roots)
{
    struct model *m = calloc(1, sizeof(*m));
    struct profile_filter pf;

    if (!m)
        return NULL;
    m->snap = snap;
    m->nframes = profile_frame_count(snap);
    m->base = snap;

    /* a call graph has no stacks to filter or shape: its flat table and
     * edges are the model (profile.h, "a call graph without stacks") */
    bool stacks = profile_has_stacks(snap);
    bool filtered = sample_filter(snap, f, &pf);
    m->has_kernel = has_frames(snap, profile_frame_is_kernel);
    m->has_reasons = has_frames(snap, profile_frame_is_reason);

    if (!stacks) {
        filtered = false;
        pf = (struct profile_filter){ .thread = PROFILE_NONE,
                                      .focus = PROFILE_NONE };
    }
    m->thread = pf.thread;
    m->focus = pf.focus;
    m->pid = pf.pid;
    m->processes = stacks && (roots ? *roots : process_roots(snap, &pf));
    if (stacks && (filtered || own_tree)) {
        m->derived = profile_derive(snap, &pf);
        if (!m->derived)
            goto fail;
        m->base = m->derived;
    }
    m->tree = m->base;
    if (stacks && (f->inverted || f->merge_threads || m->processes)) {
        struct profile_filter shape = {
            .thread = PROFILE_NONE, .focus = PROFILE_NONE,
            .inverted = f->inverted, .merge_threads = f->merge_threads,
            .process_roots = m->processes,
        };
        m->shaped = profile_derive(m->base, &shape);
        if (!m->shaped)
            goto fail;
        m->tree = m->shaped;
    }
    m->total = profile_samples(m->base);

    long n = profile_flat(m->base, &m->flat);
    if (n < 0)
        goto fail;
    m->nflat = (size_t)n;
    n = profile_edges(m->base, &m->edges);
    if (n < 0)
        goto fail;
    m->nedges = (size_t)n;

    m->flat_of = malloc((m->nframes ? m->nframes : 1) * sizeof(*m->flat_of));
    /* why and hidden: one block, a struct model_why then a bool per frame
     * (model_free frees why) */
    size_t nf = m->nframes ? m->nframes : 1;
    m->why = calloc(nf, sizeof(*m->why) + sizeof(*m->hidden));
    m->hidden = m->why ? (bool *)(m->why + nf) : NULL;
    if (!m->flat_of || !m->why)
        goto fail;
    for (uint32_t i = 0; i < m->nframes; i++)
        m->flat_of[i] = PROFILE_NONE;
    for (size_t i = 0; i < m->nflat; i++)
        if (m->flat[i].frame < m->nframes)
            m->flat_of[m->flat[i].frame] = (uint32_t)i;
    model_set_hide(m, hide_self, hide_subs);
    return m;

fail:
    model_free(m);
    return NULL;
}

struct model *model_new(const struct profile *snap,
                        const struct model_filter *f, double hide_self,
                        double hide_subs)
{
    return model_build(snap, f, hide_self, hide_subs, false, NULL);
}

/* Append to m->flat, with no samples, the functions only bm has. */
static int union_flat(struct model *m)
{
    const struct model *bm = m->bm;
    size_t extra = 0, n = m->nflat;
    struct profile_flat *v;

    for (size_t i = 0; i < bm->nflat; i++)
        extra += !model_flat_of(m, bm->flat[i].frame);
    if (!extra)
        return 0;
    if (!(v = realloc(m->flat, (n + extra) * sizeof(*v))))
        return -1;
    m->flat = v;
    for (size_t i = 0; i < bm->nflat; i++) {
        uint32_t f = bm->flat[i].frame;

        if (f >= m->nframes || m->flat_of[f] != PROFILE_NONE)
            continue;
        v[n] = (struct profile_flat){ .frame = f, .first = (uint32_t)n };
        m->flat_of[f] = (uint32_t)n++;
    }
    m->nflat = n;
    return 0;
}

static bool same_edge(const struct profile_edge *a,
                      const struct profile_edge *b)
{
    return a->caller == b->caller && a->callee == b->callee;
}

/* Append to m->edges, with no samples, the edges only bm has.  Both
 * lists are sorted by caller then callee, so one merge pass finds them. */
static int union_edges(struct model *m)
{
    const struct model *bm = m->bm;
    size_t n = m->nedges, extra = 0, i = 0;
    struct profile_edge *v;

    for (size_t j = 0; j < bm->nedges; j++) {
        while (i < n && (m->edges[i].caller < bm->edges[j].caller ||
                         (m->edges[i].caller == bm->edges[j].caller &&
                          m->edges[i].callee < bm->edges[j].callee)))
            i++;
        extra += !(i < n && same_edge(&m->edges[i], &bm->edges[j]));
    }
    if (!extra)
        return 0;
    if (!(v = realloc(m->edges, (n + extra) * sizeof(*v))))
        return -1;
    m->edges = v;
    i = 0;
    for (size_t j = 0; j < bm->nedges; j++) {
        while (i < n && (v[i].caller < bm->edges[j].caller ||
                         (v[i].caller == bm->edges[j].caller &&
                          v[i].callee < bm->edges[j].callee)))
            i++;
        if (!(i < n && same_edge(&v[i], &bm->edges[j])))
            v[m->nedges++] = (struct profile_edge){
                .caller = bm->edges[j].caller,
                .callee = bm->edges[j].callee,
                .seq = (uint32_t)m->nedges };
    }
    return 0;
}

/* The baseline's side of m: its model, the union rows, the tree match. */
static int add_baseline(struct model *m, struct profile *bsnap,
                        const struct model_filter *f)
{
    m->bsnap = bsnap;
    m->bm = model_build(bsnap, f, 0, 0, true, &m->processes);
    if (!m->bm || union_flat(m) < 0 || union_edges(m) < 0)
        return -1;
    /* The tree is m's own (derived or inverted): graft into it. */
    struct profile *t = m->shaped ? m->shaped : m->derived;
    if (diff_match(t, m->bm->tree, true, &m->bnode) < 0)
        return -1;
    m->nbnode = profile_node_count(t);
    return 0;
}

struct model *model_new_ext(struct profile *snap, const struct model_filter *f,
                            double hide_self, double hide_subs,
                            const struct model_extra *x)
{
    struct profile *bsnap = NULL;
    struct profile *recent = x ? x->recent : NULL;
    struct model *m = NULL;
    struct model_filter rf = *f;

    /* The diff pairs the trees by frame ids: both sides get their
     * process frames at the same ids (they have the same frames and
     * threads once aligned). */
    if (x && x->baseline &&
        (!(bsnap = diff_align(snap, x->baseline)) ||
         profile_intern_process_frames(snap) < 0 ||
         profile_intern_process_frames(bsnap) < 0))
        goto fail;
    m = model_build(snap, f, hide_self, hide_subs, bsnap != NULL, NULL);
    if (!m)
        goto fail;
    if (x && x->own_snap)
        m->own_snap = snap;
    if (bsnap) {
        struct profile *b = bsnap;

        bsnap = NULL;
        if (add_baseline(m, b, f) < 0)
            goto fail;
    }
    rf.inverted = false;
    if (recent) {
        if (!(m->rm = model_build(recent, &rf, 0, 0, false, NULL)))
            goto fail;
        m->rm->own_snap = recent;
        recent = NULL;
    }
    model_set_hide(m, hide_self, hide_subs);
    return m;
fail:
    if (!m && x && x->own_snap)
        profile_free(snap);
    profile_free(recent);
    profile_free(bsnap);
    model_free(m);
    return NULL;
}

void model_free(struct model *m)
{
    if (!m)
        return;
    model_free(m->bm);
    model_free(m->rm);
    profile_free(m->bsnap);
    free(m->bnode);
    profile_free(m->own_snap);
    profile_free(m->derived);
    profile_free(m->shaped);
    free(m->flat);
    free(m->flat_of);
    free(m->edges);
    free(m->why);
    free(m);
}

static double frame_total(const struct model *m, uint32_t frame)
{
    const struct profile_flat *fl = model_flat_of(m, frame);

    return fl ? (double)fl->total : 0.0;
}

/* Float slack: Racket compares exact rationals, so a share equal to the
 * threshold (1/100 of 100 samples) must not miss it by a rounding. */
#define HIDE_EPS 1e-9

/* Keep the larger share time / total in *slot, with the frame it is of. */
static void share_max(double *slot, uint32_t *of, uint32_t frame,
                      double time, double total)
{
    if (total > 0 && time / total > *slot) {
        *slot = time / total;
        *of = frame;
    }
}

/* Fill m->why for every function: self share and the largest share of
 * each side of its edges. */
static void compute_why(struct model *m)
{
    double all = (double)m->total;

    for (uint32_t i = 0; i < m->nframes; i++)
        m->why[i] = (struct model_why){ .callee = PROFILE_NONE,
                                        .caller = PROFILE_NONE };
    for (size_t i = 0; i < m->nedges; i++) {
        const struct profile_edge *e = &m->edges[i];

        if (e->caller < m->nframes)
            share_max(&m->why[e->caller].of_callee, &m->why[e->caller].callee,
                      e->callee, e->caller_time, frame_total(m, e->callee));
        if (e->callee < m->nframes)
            share_max(&m->why[e->callee].of_caller, &m->why[e->callee].caller,
                      e->caller, e->callee_time,
                      e->caller == PROFILE_NONE ? all
                                                : frame_total(m, e->caller));
    }
    for (size_t i = 0; i < m->nflat; i++)
        if (m->flat[i].frame < m->nframes && all > 0)
            m->why[m->flat[i].frame].self = (double)m->flat[i].self / all;
}

/* With a baseline, a function stays visible when either side shows it:
 * one that vanished is as interesting as one that appeared. */
static void and_baseline_hidden(struct model *m, double hide_self,
                                double hide_subs)
{
    if (!m->bm)
        return;
    model_set_hide(m->bm, hide_self, hide_subs);
    m->nhidden = 0;
    for (size_t i = 0; i < m->nflat; i++) {
        uint32_t f = m->flat[i].frame;

        if (f >= m->nframes)
            continue;
        /* No samples in the baseline: nothing to show on its side. */
        m->hidden[f] = m->hidden[f] &&
                       (!model_flat_of(m->bm, f) || m->bm->hidden[f]);
        m->nhidden += m->hidden[f];
    }
}

void model_set_hide(struct model *m, double hide_self, double hide_subs)
{
    double self_f = hide_self > 0 ? hide_self / 100.0 : 0;
    double subs_f = hide_subs > 0 ? hide_subs / 100.0 : 0;

    m->nhidden = 0;
    for (uint32_t i = 0; i < m->nframes; i++)
        m->hidden[i] = false;
    compute_why(m);
    if (self_f <= 0 && subs_f <= 0)
        return;
    for (size_t i = 0; i < m->nflat; i++) {
        uint32_t f = m->flat[i].frame;
        const struct model_why *w = &m->why[f];

        if (f >= m->nframes)
            continue;
        /* Racket's leaf -> "*" edge is a callee edge too: its caller_time
         * is the self time, over the "*" node's total, every sample. */
        m->hidden[f] = m->total == 0 ||
                       (w->self <= self_f + HIDE_EPS &&
                        w->self <= subs_f + HIDE_EPS &&
                        w->of_callee <= subs_f + HIDE_EPS &&
                        w->of_caller <= subs_f + HIDE_EPS);
        m->nhidden += m->hidden[f];
    }
    and_baseline_hidden(m, hide_self, hide_subs);
}

bool model_why(const struct model *m, uint32_t frame, struct model_why *w)
{
    if (!model_flat_of(m, frame))
        return false;
    *w = m->why[frame];
    return true;
}

const struct profile_flat *model_flat_of(const struct model *m,
                                         uint32_t frame)
{
    if (frame >= m->nframes || m->flat_of[frame] == PROFILE_NONE)
        return NULL;
    return &m->flat[m->flat_of[frame]];
}

int64_t model_node_pid(const struct model *m, uint32_t node)
{
    const struct profile_node *n = profile_node(m->tree, node);
    const struct frame_desc *d;

    if (!n || node == PROFILE_ROOT)
        return 0;
    d = profile_frame(m->tree, n->frame);
    return d && d->kind == FRAME_PROCESS ? (int64_t)d->addr : 0;
}

const char *model_frame_name(const struct model *m, uint32_t frame)
{
    const struct frame_desc *d = profile_frame(m->snap, frame);

    return d ? d->name : "?";
}

/* A share in percent, 0 for an empty side. */
static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

bool model_delta_frame(const struct model *m, uint32_t frame,
                       struct model_delta *d)
{
    const struct profile_flat *c, *b;

    if (!m->bm)
        return false;
    c = model_flat_of(m, frame);
    b = model_flat_of(m->bm, frame);
    d->in_cur = c && c->total;
    d->in_base = b && b->total;
    d->self = pct(c ? c->self : 0, m->total) -
              pct(b ? b->self : 0, m->bm->total);
    d->total = pct(c ? c->total : 0, m->total) -
               pct(b ? b->total : 0, m->bm->total);
    return true;
}

bool model_delta_node(const struct model *m, uint32_t node,
                      struct model_delta *d)
{
    const struct profile_node *c, *b = NULL;
    uint64_t ctot, btot;

    if (!m->bm || node >= m->nbnode)
        return false;
    c = profile_node(m->tree, node);
    if (m->bnode[node] != PROFILE_NONE)
        b = profile_node(m->bm->tree, m->bnode[node]);
    ctot = profile_node(m->tree, PROFILE_ROOT)->total;
    btot = profile_node(m->bm->tree, PROFILE_ROOT)->total;
    d->in_cur = c->total > 0;
    d->in_base = b && b->total > 0;
    d->self = pct(c->self, ctot) - pct(b ? b->self : 0, btot);
    d->total = pct(c->total, ctot) - pct(b ? b->total : 0, btot);
    return true;
}

const struct profile_flat *model_recent_of(const struct model *m,
                                           uint32_t frame)
{
    return m->rm ? model_flat_of(m->rm, frame) : NULL;
}

uint64_t model_recent_total(const struct model *m)
{
    return m->rm ? m->rm->total : 0;
}

bool model_node_hidden(const struct model *m, uint32_t node, double hide_subs)
{
    const struct profile_node *n = profile_node(m->tree, node);
    double root = (double)profile_node(m->tree, PROFILE_ROOT)->total;
    bool cur = n->total == 0 || (double)n->total * 100.0 < hide_subs * root;

    if (cur && m->bm && node < m->nbnode && m->bnode[node] != PROFILE_NONE) {
        const struct profile *bt = m->bm->tree;
        double broot = (double)profile_node(bt, PROFILE_ROOT)->total;
        uint64_t b = profile_node(bt, m->bnode[node])->total;

        return b == 0 || (double)b * 100.0 < hide_subs * broot;
    }
    return cur;
}

int model_node_cmp(const void *a, const void *b, void *model)
{
    const struct model *m = model;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    const struct profile_node *x = profile_node(m->tree, ia);
    const struct profile_node *y = profile_node(m->tree, ib);

    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    int c = strcmp(profile_frame(m->tree, x->frame)->name,
                   profile_frame(m->tree, y->frame)->name);
    if (c)
        return c;
    return ia < ib ? -1 : ia > ib;
}
