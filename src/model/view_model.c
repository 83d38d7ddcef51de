/* model.c - derive, summarise and apply the hide thresholds to a snapshot.
 *
 * See model.h.  Called by ui.c once per new snapshot or filter change;
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

struct model *model_new(const struct profile *snap,
                        const struct model_filter *f, double hide_self,
                        double hide_subs)
{
    struct model *m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    m->snap = snap;
    m->thread = f->has_thread ? thread_index(snap, f->tid) : PROFILE_NONE;
    m->nframes = profile_frame_count(snap);
    m->focus = f->focus < m->nframes ? f->focus : PROFILE_NONE;
    m->base = snap;

    if (m->thread != PROFILE_NONE || m->focus != PROFILE_NONE) {
        struct profile_filter pf = { m->thread, m->focus, false, false };
        m->derived = profile_derive(snap, &pf);
        if (!m->derived)
            goto fail;
        m->base = m->derived;
    }
    m->tree = m->base;
    if (f->inverted || f->merge_threads) {
        struct profile_filter pf = { PROFILE_NONE, PROFILE_NONE, f->inverted,
                                     f->merge_threads };
        m->shaped = profile_derive(m->base, &pf);
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

void model_set_hide(struct model *m, double hide_self, double hide_subs)
{
    m->nhidden = 0;
    for (uint32_t i = 0; i < m->nframes; i++)
        m->hidden[i] = false;
    if (hide_self <= 0 && hide_subs <= 0)
        return;

    /* Largest edge share on each side, as percentages scaled by 100 to
     * compare without dividing: share <= limit  <=>  time*100 <= limit*T. */
    double *callee_max = calloc(m->nframes ? m->nframes : 1, sizeof(double));
    double *caller_max = calloc(m->nframes ? m->nframes : 1, sizeof(double));
    if (!callee_max || !caller_max) {
        free(callee_max);
        free(caller_max);
        return; /* on OOM show everything rather than guess */
    }
    for (size_t i = 0; i < m->nedges; i++) {
        const struct profile_edge *e = &m->edges[i];
        double ct = frame_total(m, e->callee);
        double pt = e->caller == PROFILE_NONE ? (double)m->total
                                              : frame_total(m, e->caller);
        /* The callee's list of callers: the edge against the caller. */
        if (e->callee < m->nframes && pt > 0) {
            double s = 100.0 * e->time / pt;
            if (s > caller_max[e->callee])
                caller_max[e->callee] = s;
        }
        /* The caller's list of callees: the edge against the callee. */
        if (e->caller < m->nframes && ct > 0) {
            double s = 100.0 * e->time / ct;
            if (s > callee_max[e->caller])
                callee_max[e->caller] = s;
        }
    }
    for (size_t i = 0; i < m->nflat; i++) {
        uint32_t f = m->flat[i].frame;
        if (f >= m->nframes)
            continue;
        bool hide = m->total == 0 ||
            ((double)m->flat[i].self * 100.0 <= hide_self * (double)m->total &&
             callee_max[f] <= hide_subs && caller_max[f] <= hide_subs);
        m->hidden[f] = hide;
        if (hide)
            m->nhidden++;
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
