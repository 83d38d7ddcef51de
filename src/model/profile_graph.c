/* profile_graph.c - a call graph held instead of stacks, and the
 * per-thread queries that read either.
 *
 * See profile.h ("a call graph without stacks").  The graph is a copy of
 * what the reader gave, checked once here; profile_flat and
 * profile_edges (profile_query.c) hand out sorted copies of it.
 */
#include "profile_impl.h"
#include "sorted.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

bool profile_has_stacks(const struct profile *p)
{
    return !p || !p->graph;
}

uint64_t profile_thread_samples(const struct profile *p, uint32_t idx)
{
    if (idx >= p->nthreads)
        return 0;
    if (p->graph)
        return idx < p->graph->nthreads ? p->graph->thread_samples[idx] : 0;
    return p->nodes[p->th[idx].node].total;
}

static bool time_ok(double t)
{
    return isfinite(t) && t >= 0;
}

/* Whether each of n ranks is below n and used once (seen: n zeroed bytes). */
static bool permutation(const uint32_t *rank, size_t stride, size_t n,
                        bool *seen)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = *(const uint32_t *)((const char *)rank + i * stride);

        if (r >= n || seen[r])
            return false;
        seen[r] = true;
    }
    return true;
}

/* The checks of profile_set_graph on the rows and edges; in_flat gets,
 * per frame, whether it has a row. */
static bool graph_valid(const struct profile *p,
                        const struct profile_graph_desc *g, bool *in_flat,
                        bool *seen, uint64_t samples)
{
    for (size_t i = 0; i < g->nflat; i++) {
        const struct profile_flat *f = &g->flat[i];

        if (f->frame >= p->nframes || in_flat[f->frame] ||
            profile_frame_is_level(&p->fd[f->frame]) || f->self > f->total ||
            f->total > samples || !time_ok(f->leaf_time))
            return false;
        in_flat[f->frame] = true;
    }
    /* (the selves may sum a little above the samples: a reader rounds
     * each function's time to whole samples) */
    if (g->nflat && !permutation(&g->flat[0].first, sizeof(*g->flat),
                                 g->nflat, seen))
        return false;
    memset(seen, 0, g->nedges ? g->nedges : 1);
    for (size_t i = 0; i < g->nedges; i++) {
        const struct profile_edge *e = &g->edges[i];

        if (e->callee >= p->nframes || !in_flat[e->callee] ||
            (e->caller != PROFILE_NONE &&
             (e->caller >= p->nframes || !in_flat[e->caller])) ||
            !time_ok(e->caller_time) || !time_ok(e->callee_time) ||
            e->samples > samples)
            return false;
    }
    return g->nedges == 0 ||
           permutation(&g->edges[0].seq, sizeof(*g->edges), g->nedges, seen);
}

/* One edge per (caller, callee): sorted copies compared in turn. */
static int cmp_pair(const void *a, const void *b)
{
    const struct profile_edge *x = a, *y = b;

    return util_cmp_pair(x->caller, x->callee, y->caller, y->callee);
}

static bool pairs_unique(const struct profile_graph_desc *g)
{
    struct profile_edge *v = profile_dup_n(g->edges, g->nedges, sizeof(*v));
    bool ok = v != NULL;

    if (ok && g->nedges > 1) {
        sorted_sort(v, g->nedges, sizeof(*v), cmp_pair);
        for (size_t i = 1; i < g->nedges && ok; i++)
            ok = cmp_pair(&v[i - 1], &v[i]) != 0;
    }
    free(v);
    return ok;
}

int profile_set_graph(struct profile *p, const struct profile_graph_desc *g)
{
    size_t nseen = g->nflat > g->nedges ? g->nflat : g->nedges;
    bool *in_flat = calloc(p->nframes ? p->nframes : 1, sizeof(*in_flat));
    bool *seen = calloc(nseen ? nseen : 1, sizeof(*seen));
    uint64_t samples = 0;
    bool ok = in_flat && seen;
    int err = ENOMEM;

    for (uint32_t t = 0; ok && t < p->nthreads; t++) {
        if (g->thread_samples[t] >= PROFILE_COUNT_LIMIT - samples)
            ok = false;
        else
            samples += g->thread_samples[t];
    }
    ok = ok && p->samples == 0 && !p->graph &&
         g->frame_threads_off[0] == 0;
    for (uint32_t f = 0; ok && f < p->nframes; f++)
        ok = g->frame_threads_off[f + 1] >= g->frame_threads_off[f];
    for (uint32_t k = 0; ok && k < g->frame_threads_off[p->nframes]; k++)
        ok = g->frame_threads[k] < p->nthreads;
    if (in_flat && seen) {
        err = EINVAL;
        ok = ok && graph_valid(p, g, in_flat, seen, samples) &&
             pairs_unique(g);
        if (ok && !(p->graph = profile_graph_new(g, p->nthreads, p->nframes))) {
            ok = false;
            err = ENOMEM;
        }
        if (ok)
            p->nsamples = g->sample_count;
    }
    free(in_flat);
    free(seen);
    if (!ok)
        errno = err;
    return ok ? 0 : -1;
}

void profile_graph_map(struct profile *p, profile_weight_map_fn fn,
                       uint64_t k, double factor)
{
    struct profile_graph *g = p->graph;

    if (!g)
        return;
    for (size_t i = 0; i < g->nflat; i++) {
        g->flat[i].self = fn(p, g->flat[i].self, k);
        g->flat[i].total = fn(p, g->flat[i].total, k);
        g->flat[i].leaf_time *= factor;
    }
    for (size_t i = 0; i < g->nedges; i++) {
        g->edges[i].samples = fn(p, g->edges[i].samples, k);
        g->edges[i].outer = fn(p, g->edges[i].outer, k);
        g->edges[i].caller_time *= factor;
        g->edges[i].callee_time *= factor;
    }
    g->samples = 0;
    for (uint32_t t = 0; t < g->nthreads; t++) {
        g->thread_samples[t] = fn(p, g->thread_samples[t], k);
        g->samples += g->thread_samples[t];
    }
}

/* --- which threads each function runs in ---------------------------------- */

struct ft_ctx {
    uint32_t *last;   /* per frame: 1 + the last thread counted, 0: none */
    uint32_t *off;    /* per frame: count, then the fill position */
    uint32_t *out;    /* NULL on the counting pass */
};

static int ft_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                    size_t n, uint64_t count)
{
    struct ft_ctx *c = ctx;

    (void)count;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = frames[i];

        if (c->last[f] == thread + 1)
            continue;
        c->last[f] = thread + 1;
        if (c->out)
            c->out[c->off[f]++] = thread;
        else
            c->off[f + 1]++;
    }
    return 0;
}

int profile_frame_threads(const struct profile *p, uint32_t **off,
                          uint32_t **threads)
{
    size_t nf = p->nframes;
    struct ft_ctx c = { calloc(nf ? nf : 1, sizeof(*c.last)),
                        calloc(nf + 1, sizeof(*c.off)), NULL };
    uint32_t *pos = NULL;

    *off = *threads = NULL;
    if (p->graph && c.off) {
        free(c.last);
        *off = profile_dup_n(p->graph->ft_off, nf + 1, sizeof(**off));
        *threads = profile_dup_n(p->graph->ft, p->graph->ft_off[nf],
                         sizeof(**threads));
        free(c.off);
        if (*off && *threads)
            return 0;
        free(*off);
        free(*threads);
        *off = *threads = NULL;
        return -1;
    }
    if (!c.last || !c.off || profile_foreach_stack(p, ft_stack, &c) != 0)
        goto fail;
    for (size_t f = 0; f < nf; f++)
        c.off[f + 1] += c.off[f];
    c.out = malloc((c.off[nf] ? c.off[nf] : 1) * sizeof(*c.out));
    pos = profile_dup_n(c.off, nf + 1, sizeof(*pos));
    if (!c.out || !pos)
        goto fail;
    memset(c.last, 0, (nf ? nf : 1) * sizeof(*c.last));
    *off = c.off;
    c.off = pos;  /* filled in place, from each frame's start */
    if (profile_foreach_stack(p, ft_stack, &c) != 0) {
        c.off = *off;
        *off = NULL;
        goto fail;
    }
    *threads = c.out;
    free(c.last);
    free(pos);
    return 0;
fail:
    free(c.last);
    free(c.off);
    free(c.out);
    free(pos);
    return -1;
}
