/* view_model.c - derive, summarise and apply the hide thresholds to a
 * snapshot.
 *
 * See view_model.h.  Called by ui.c once per new snapshot or filter change;
 * that is at most once per refresh interval, so plain O(nodes + edges)
 * passes are fine here.
 */
#include "view_model.h"

#include <stdlib.h>

static uint32_t thread_index(const struct profile *p, int64_t tid)
{
    uint32_t n = profile_thread_count(p);

    for (uint32_t i = 0; i < n; i++)
        if (profile_thread_at(p, i)->tid == tid)
            return i;
    return PROFILE_NONE;
}

/* The thread and focus parts of f over snap (what selects samples);
 * true when they select less than everything. */
static bool sample_filter(const struct profile *snap,
                          const struct model_filter *f,
                          struct profile_filter *pf)
{
    *pf = (struct profile_filter){
        .thread = f->has_thread ? thread_index(snap, f->tid) : PROFILE_NONE,
        .focus = f->focus < profile_frame_count(snap) ? f->focus
                                                      : PROFILE_NONE,
    };
    return pf->thread != PROFILE_NONE || pf->focus != PROFILE_NONE;
}

struct profile *model_filter_profile(const struct profile *snap,
                                     const struct model_filter *f)
{
    struct profile_filter pf;

    return sample_filter(snap, f, &pf) ? profile_derive(snap, &pf)
                                       : profile_clone(snap);
}

struct model *model_new(const struct profile *snap,
                        const struct model_filter *f, double hide_self,
                        double hide_subs)
{
    struct model *m = calloc(1, sizeof(*m));
    struct profile_filter pf;

    if (!m)
        return NULL;
    m->snap = snap;
    m->nframes = profile_frame_count(snap);
    m->base = snap;

    bool filtered = sample_filter(snap, f, &pf);
    m->thread = pf.thread;
    m->focus = pf.focus;
    if (filtered) {
        m->derived = profile_derive(snap, &pf);
        if (!m->derived)
            goto fail;
        m->base = m->derived;
    }
    m->tree = m->base;
    if (f->inverted || f->merge_threads) {
        struct profile_filter shape = { PROFILE_NONE, PROFILE_NONE,
                                        f->inverted, f->merge_threads };
        m->shaped = profile_derive(m->base, &shape);
        if (!m->shaped)
            goto fail;
        m->tree = m->shaped;
    }
    m->total = profile_node(m->base, PROFILE_ROOT)->total;

    long n = profile_flat(m->base, &m->flat);
    if (n < 0)
        goto fail;
    m->nflat = (size_t)n;
    n = profile_edges(m->base, &m->edges);
    if (n < 0)
        goto fail;
    m->nedges = (size_t)n;

    m->flat_of = malloc((m->nframes ? m->nframes : 1) * sizeof(*m->flat_of));
    m->hidden = calloc(m->nframes ? m->nframes : 1, sizeof(*m->hidden));
    if (!m->flat_of || !m->hidden)
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

void model_free(struct model *m)
{
    if (!m)
        return;
    profile_free(m->derived);
    profile_free(m->shaped);
    free(m->flat);
    free(m->flat_of);
    free(m->edges);
    free(m->hidden);
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

static void share_max(double *slot, double time, double total)
{
    if (total > 0 && time / total > *slot)
        *slot = time / total;
}

void model_set_hide(struct model *m, double hide_self, double hide_subs)
{
    double self_f = hide_self > 0 ? hide_self / 100.0 : 0;
    double subs_f = hide_subs > 0 ? hide_subs / 100.0 : 0;
    double all = (double)m->total;

    m->nhidden = 0;
    for (uint32_t i = 0; i < m->nframes; i++)
        m->hidden[i] = false;
    if (self_f <= 0 && subs_f <= 0)
        return;

    /* Largest share of each frame's callee edges (edge caller_time over
     * the callee's total) and of its caller edges (callee_time over the
     * caller's total; the stack bottom's total is every sample). */
    double *callee_max = calloc(m->nframes ? m->nframes : 1, sizeof(double));
    double *caller_max = calloc(m->nframes ? m->nframes : 1, sizeof(double));
    if (!callee_max || !caller_max) {
        free(callee_max);
        free(caller_max);
        return; /* on OOM show everything rather than guess */
    }
    for (size_t i = 0; i < m->nedges; i++) {
        const struct profile_edge *e = &m->edges[i];

        if (e->caller < m->nframes)
            share_max(&callee_max[e->caller], e->caller_time,
                      frame_total(m, e->callee));
        if (e->callee < m->nframes)
            share_max(&caller_max[e->callee], e->callee_time,
                      e->caller == PROFILE_NONE ? all
                                                : frame_total(m, e->caller));
    }
    for (size_t i = 0; i < m->nflat; i++) {
        uint32_t f = m->flat[i].frame;
        double self = all > 0 ? (double)m->flat[i].self / all : 0;

        if (f >= m->nframes)
            continue;
        /* Racket's leaf -> "*" edge: its caller_time is the self time,
         * over the "*" node's total, every sample. */
        share_max(&callee_max[f], (double)m->flat[i].self, all);
        m->hidden[f] = all <= 0 ||
                       (self <= self_f + HIDE_EPS &&
                        callee_max[f] <= subs_f + HIDE_EPS &&
                        caller_max[f] <= subs_f + HIDE_EPS);
        m->nhidden += m->hidden[f];
    }
    free(callee_max);
    free(caller_max);
}

const struct profile_flat *model_flat_of(const struct model *m,
                                         uint32_t frame)
{
    if (frame >= m->nframes || m->flat_of[frame] == PROFILE_NONE)
        return NULL;
    return &m->flat[m->flat_of[frame]];
}

const char *model_frame_name(const struct model *m, uint32_t frame)
{
    const struct frame_desc *d = profile_frame(m->snap, frame);

    return d ? d->name : "?";
}
