/* profile_life.c - a whole profile's lifecycle: creating, freeing,
 * resetting, copying and measuring one, each part in turn.  Above every
 * part of the profile (profile.c's strings, frames, threads and storage;
 * the per-second ring, window.c; the call graph, profile_graph.c), which
 * know nothing of the whole; see profile.h for the model and profile_impl.h
 * for the storage.
 *
 * Called by the collector (profile_clone under its lock for each UI
 * snapshot), by the loaders and by the UI and exporters.
 */
#include "profile_impl.h"

#include <stdlib.h>

struct profile *profile_new(void)
{
    struct profile *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->meta_cmdline = p->meta_comm = STR_NULL;
    if (profile_tree_reserve(p, 1) || profile_lc_init(&p->lines) ||
        profile_lc_init(&p->addrs)) {
        profile_free(p);
        return NULL;
    }
    profile_tree_rebuild(p);
    return p;
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    profile_core_free(p);
    profile_time_free(p->time);
    profile_graph_free(p->graph);
    free(p);
}

void profile_reset(struct profile *p)
{
    if (!p)
        return;
    profile_tree_rebuild(p);
    p->nsamples = 0;
    profile_lc_clear(&p->lines);
    profile_lc_clear(&p->addrs);
    profile_time_clear(p->time);
    profile_graph_free(p->graph);
    p->graph = NULL;
}

/* The graph's share of profile_copy: dst->graph a deep copy of src's
 * (NULL when src holds stacks); 0 or -1 on OOM. */
static int graph_copy(struct profile *dst, const struct profile *src)
{
    const struct profile_graph *g = src->graph;
    struct profile_graph_desc d;

    dst->graph = NULL;
    if (!g)
        return 0;
    d = (struct profile_graph_desc){
        .flat = g->flat, .nflat = g->nflat, .edges = g->edges,
        .nedges = g->nedges, .thread_samples = g->thread_samples,
        .frame_threads_off = g->ft_off, .frame_threads = g->ft };
    dst->graph = profile_graph_new(&d, g->nthreads, g->nframes);
    return dst->graph ? 0 : -1;
}

struct profile *profile_copy(const struct profile *p, bool with_tree)
{
    struct profile *q = calloc(1, sizeof(*q));

    if (!q)
        return NULL;
    if (profile_core_copy(q, p, with_tree) ||
        (with_tree && (profile_time_copy(q, p) || graph_copy(q, p)))) {
        profile_free(q);
        return NULL;
    }
    return q;
}

struct profile *profile_clone(const struct profile *p)
{
    return p ? profile_copy(p, true) : NULL;
}

void profile_replace(struct profile *p, struct profile *q)
{
    struct profile t = *p;

    *p = *q;
    *q = t;
}

static uint64_t lc_bytes(const struct lcmap *m)
{
    return m->cap * sizeof(*m->e) + idtab_bytes(&m->ix);
}

void profile_footprint(const struct profile *p, struct profile_footprint *o)
{
    *o = (struct profile_footprint){
        .nodes = p->nnodes, .frames = p->nframes, .threads = p->nthreads,
        .free_frames = p->nfree + p->ncool,
        .strings = p->strs.nstr, .lines = p->lines.n, .addrs = p->addrs.n,
        .tree_bytes = p->nodes_cap * sizeof(*p->nodes) +
                      p->aux_cap * sizeof(*p->aux) +
                      idtab_bytes(&p->child_ix),
        .frame_bytes = p->fd_cap * sizeof(*p->fd) +
                       p->fid_cap * sizeof(*p->fid) +
                       idtab_bytes(&p->frame_ix),
        .thread_bytes = p->th_cap * sizeof(*p->th) +
                        (p->th_name_cap + p->th_proc_cap + p->free_cap +
                         p->cool_cap) *
                            sizeof(uint32_t) + idtab_bytes(&p->tid_ix),
        .string_bytes = strarena_footprint(&p->strs),
        .counter_bytes = lc_bytes(&p->lines) + lc_bytes(&p->addrs),
    };
    profile_time_footprint(p->time, &o->trie, &o->ring_entries,
                           &o->ring_bytes);
    o->bytes = sizeof(*p) + o->tree_bytes + o->frame_bytes +
               o->thread_bytes + o->string_bytes + o->counter_bytes +
               o->ring_bytes;
}
