/* racket_graph.c - Racket's call graph of a profile, numbered and
 * ordered as its renderers list it.  See racket_graph.h.
 */
#include "racket_graph.h"

#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "view_model.h"
#include "sorted.h"

#define EPS 1e-9            /* float slack where Racket is exact */

double racket_graph_ms(const struct profile *p)
{
    const struct profile_meta *meta = profile_meta(p);

    /* ns for a live profile, an interval for a file of counts, 1 ms when
     * that is unknown */
    return profile_weight_unit(p) ? (double)profile_weight_unit(p) / 1e6
           : meta->interval_ns ? (double)meta->interval_ns / 1e6 : 1.0;
}

/* Nodes from the flat table, edges from the model's edge list in
 * first-use order: the ones from the stack bottom become the nodes' "*"
 * edges, as do the leaves' edges to "*" (their time is the self time). */
static int graph_nodes(struct racket_graph *g, const struct model *m)
{
    uint32_t *node_of = malloc((m->nframes ? m->nframes : 1) *
                               sizeof(*node_of));
    uint32_t *by_seq = malloc((m->nedges ? m->nedges : 1) * sizeof(*by_seq));

    g->samples = m->total;
    g->nnodes = (uint32_t)m->nflat;
    g->nodes = calloc(m->nflat ? m->nflat : 1, sizeof(*g->nodes));
    g->edges = malloc((m->nedges ? m->nedges : 1) * sizeof(*g->edges));
    if (!node_of || !by_seq || !g->nodes || !g->edges) {
        free(node_of);
        free(by_seq);
        return -1;
    }
    for (size_t i = 0; i < m->nflat; i++) {
        const struct profile_flat *fl = &m->flat[i];
        uint32_t n = fl->first;

        node_of[fl->frame] = n;
        g->nodes[n] = (struct rg_node){
            .frame = fl->frame, .self = fl->self, .total = fl->total,
            .hidden = m->hidden[fl->frame],
            .top = { RG_STAR, n, 0, 0, 0 },
            .leaf = { n, RG_STAR, (double)fl->self, fl->leaf_time,
                      fl->self } };
        g->nhidden += g->nodes[n].hidden;
    }
    for (size_t i = 0; i < m->nedges; i++)
        by_seq[m->edges[i].seq] = (uint32_t)i;
    for (size_t k = 0; k < m->nedges; k++) {
        const struct profile_edge *e = &m->edges[by_seq[k]];
        struct rg_edge re = {
            e->caller == PROFILE_NONE ? RG_STAR : node_of[e->caller],
            node_of[e->callee], e->caller_time, e->callee_time, e->samples };

        if (re.caller == RG_STAR)
            g->nodes[re.callee].top = re;
        else
            g->edges[g->nedges++] = re;
    }
    free(node_of);
    free(by_seq);
    return 0;
}

/* Fill each node's caller and callee edge lists (first-use order). */
static int link_edges(struct racket_graph *g)
{
    uint32_t *pool = malloc(2 * (size_t)(g->nedges ? g->nedges : 1) *
                            sizeof(*pool));
    uint32_t used = 0;

    if (!pool)
        return -1;
    g->pool = pool;
    for (uint32_t i = 0; i < g->nedges; i++) {
        g->nodes[g->edges[i].callee].ncallers++;
        g->nodes[g->edges[i].caller].ncallees++;
    }
    for (uint32_t i = 0; i < g->nnodes; i++) {
        struct rg_node *n = &g->nodes[i];

        n->callers = pool + used;
        used += n->ncallers;
        n->callees = pool + used;
        used += n->ncallees;
        n->ncallers = n->ncallees = 0;
    }
    for (uint32_t i = 0; i < g->nedges; i++) {
        struct rg_node *lee = &g->nodes[g->edges[i].callee];
        struct rg_node *ler = &g->nodes[g->edges[i].caller];

        lee->callers[lee->ncallers++] = i;
        ler->callees[ler->ncallees++] = i;
    }
    return 0;
}

/* --- Racket's topological sort (profile-lib utils.rkt) ----------------- */

struct idlist {
    uint32_t *v;
    uint32_t n;
};

/* The sort's lists: this round's sinks and sources, the next round's. */
struct topo {
    struct idlist sinks, sources, nsinks, nsources;
    uint32_t *right;    /* sinks placed so far, batch after batch */
    uint32_t nright;
    uint32_t *batch;    /* size of each batch of right */
    uint32_t nbatch;
    uint32_t cap;       /* nodes: the capacity of every list */
};

static void push(struct topo *t, struct idlist *l, uint32_t x)
{
    if (l->n < t->cap)
        l->v[l->n++] = x;
}

static bool is_zero(double x)
{
    return x < EPS && x > -EPS;
}

/* Node i's input time (callers: the callee times of its edges from other
 * nodes) or output time (the caller times of its edges to others). */
static double io_time(const struct racket_graph *g, uint32_t i, bool callers)
{
    const struct rg_node *n = &g->nodes[i];
    const uint32_t *list = callers ? n->callers : n->callees;
    uint32_t len = callers ? n->ncallers : n->ncallees;
    double sum = 0;

    for (uint32_t k = 0; k < len; k++) {
        const struct rg_edge *e = &g->edges[list[k]];

        if ((callers ? e->caller : e->callee) != i)
            sum += callers ? e->callee_time : e->caller_time;
    }
    return sum;
}

/* Each node's input and output times, without self edges: the weights
 * Racket's heuristic breaks cycles by.  Every node starts alive. */
static void topo_init(struct racket_graph *g, struct topo *t)
{
    for (uint32_t i = 0; i < g->nnodes; i++) {
        g->nodes[i].in = io_time(g, i, true);
        g->nodes[i].out = io_time(g, i, false);
        g->nodes[i].alive = true;
    }
    for (uint32_t i = 0; i < g->nnodes; i++) {
        if (is_zero(g->nodes[i].out))
            push(t, &t->sinks, i);
        if (is_zero(g->nodes[i].in))
            push(t, &t->sources, i);
    }
}

/* Racket's best-sources: the alive nodes with the lowest in/out ratio. */
static void best_sources(struct racket_graph *g, struct topo *t)
{
    double best = 0;
    bool have = false;

    for (uint32_t i = 0; i < g->nnodes; i++) {
        const struct rg_node *n = &g->nodes[i];
        double r;

        if (!n->alive)
            continue;
        r = n->out > EPS ? n->in / n->out : 1e300;
        if (!have || r < best * (1 - 1e-12)) {
            t->sources.n = 0;
            best = r;
            have = true;
        }
        if (r <= best * (1 + 1e-12) + 1e-300)
            push(t, &t->sources, i);
    }
}

/* Keep the alive nodes of l not yet queued, once each, and queue them. */
static void keep_fresh(struct racket_graph *g, struct idlist *l)
{
    uint32_t k = 0;

    for (uint32_t i = 0; i < l->n; i++) {
        struct rg_node *n = &g->nodes[l->v[i]];

        if (n->alive && !n->queued) {
            n->queued = true;
            l->v[k++] = l->v[i];
        }
    }
    l->n = k;
}

/* Take this round's sinks and sources out of the working set (a node
 * both a sink and a source is a sink); returns how many left. */
static uint32_t take_round(struct racket_graph *g, struct topo *t)
{
    for (uint32_t i = 0; i < g->nnodes; i++)
        g->nodes[i].queued = false;
    keep_fresh(g, &t->sinks);
    keep_fresh(g, &t->sources);
    for (uint32_t i = 0; i < t->sinks.n; i++)
        g->nodes[t->sinks.v[i]].alive = false;
    for (uint32_t i = 0; i < t->sources.n; i++)
        g->nodes[t->sources.v[i]].alive = false;
    for (uint32_t i = 0; i < g->nnodes; i++)
        g->nodes[i].queued = false;
    return t->sinks.n + t->sources.n;
}

/* Remove the times of node n's edges to its callees (callees true) or
 * from its callers from those alive neighbours: a callee left with no
 * input becomes a source of the next round, a caller left with no output
 * a sink. */
static void release(struct racket_graph *g, struct topo *t,
                    const struct rg_node *n,
                    bool callees)
{
    const uint32_t *list = callees ? n->callees : n->callers;
    uint32_t len = callees ? n->ncallees : n->ncallers;

    for (uint32_t k = 0; k < len; k++) {
        const struct rg_edge *e = &g->edges[list[k]];
        uint32_t other = callees ? e->callee : e->caller;
        struct rg_node *x = &g->nodes[other];
        double *io = callees ? &x->in : &x->out;

        if (!x->alive)
            continue;
        *io -= callees ? e->callee_time : e->caller_time;
        if (!is_zero(*io))
            continue;
        /* queued marks sources; a sink list may repeat a node, the next
         * round's keep_fresh drops it */
        if (!callees)
            push(t, &t->nsinks, other);
        else if (!x->queued) {
            x->queued = true;
            push(t, &t->nsources, other);
        }
    }
}

/* One round: place this round's sources at the left of the order and
 * its sinks at the right, then find the next round's. */
static void topo_round(struct racket_graph *g, struct topo *t, uint32_t *order,
                       uint32_t *nleft)
{
    struct idlist swap;

    t->nsinks.n = t->nsources.n = 0;
    for (uint32_t i = 0; i < t->sources.n + t->sinks.n; i++) {
        uint32_t v = i < t->sources.n ? t->sources.v[i]
                                      : t->sinks.v[i - t->sources.n];

        release(g, t, &g->nodes[v], true);
        release(g, t, &g->nodes[v], false);
    }
    for (uint32_t i = 0; i < t->sources.n; i++)
        order[(*nleft)++] = t->sources.v[i];
    for (uint32_t i = 0; i < t->sinks.n; i++)
        t->right[t->nright++] = t->sinks.v[i];
    t->batch[t->nbatch++] = t->sinks.n;
    swap = t->sinks;
    t->sinks = t->nsinks;
    t->nsinks = swap;
    swap = t->sources;
    t->sources = t->nsources;
    t->nsources = swap;
}

/* Layers: the longest path over the edges consistent with the order. */
static void assign_layers(struct racket_graph *g, const uint32_t *order)
{
    for (uint32_t i = 0; i < g->nnodes; i++) {
        g->nodes[order[i]].pos = i;
        g->nodes[order[i]].layer = 0;
    }
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const struct rg_node *ler = &g->nodes[order[i]];

        for (uint32_t k = 0; k < ler->ncallees; k++) {
            struct rg_node *lee = &g->nodes[g->edges[ler->callees[k]].callee];

            if (lee->pos > ler->pos && lee->layer < ler->layer + 1)
                lee->layer = ler->layer + 1;
        }
    }
}

/* Order the nodes: fills order[] (Racket's acyclic order: sources
 * round by round from the left, sinks from the right), then layers. */
static int topo_sort(struct racket_graph *g, uint32_t *order)
{
    uint32_t nn = g->nnodes, cap = nn ? nn : 1, alive = nn, nleft = 0;
    uint32_t *buf = malloc(6 * (size_t)cap * sizeof(*buf));
    struct topo t = { .cap = cap };

    if (!buf)
        return -1;
    t.sinks.v = buf;
    t.sources.v = buf + cap;
    t.nsinks.v = buf + 2 * (size_t)cap;
    t.nsources.v = buf + 3 * (size_t)cap;
    t.right = buf + 4 * (size_t)cap;
    t.batch = buf + 5 * (size_t)cap;
    topo_init(g, &t);
    while (alive > 0) {
        if (t.sinks.n == 0 && t.sources.n == 0)
            best_sources(g, &t);
        alive -= take_round(g, &t);
        topo_round(g, &t, order, &nleft);
    }
    /* the right part: the last batch first, each in its own order */
    for (uint32_t b = t.nbatch, end = t.nright; b-- > 0;) {
        uint32_t start = end - t.batch[b];

        for (uint32_t i = start; i < end; i++)
            order[nleft++] = t.right[i];
        end = start;
    }
    free(buf);
    assign_layers(g, order);
    return 0;
}

static int cmp_display(const void *a, const void *b, void *ctx)
{
    const struct racket_graph *g = ctx;
    const struct rg_node *x = &g->nodes[*(const uint32_t *)a];
    const struct rg_node *y = &g->nodes[*(const uint32_t *)b];

    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return (x->pos < y->pos) - (x->pos > y->pos);
}

/* Edge lists by time, descending; ties newest edge first, as Racket's
 * stable sort of its consed lists gives. */
struct edge_sort {
    const struct racket_graph *g;
    bool by_callee_time;
};

static int cmp_edges(const void *a, const void *b, void *ctx)
{
    const struct edge_sort *s = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const struct rg_edge *x = &s->g->edges[i], *y = &s->g->edges[j];
    double tx = s->by_callee_time ? x->callee_time : x->caller_time;
    double ty = s->by_callee_time ? y->callee_time : y->caller_time;

    if (tx > ty + EPS)
        return -1;
    if (ty > tx + EPS)
        return 1;
    return (i < j) - (i > j);
}


/* Each node's edge lists by time, descending (callers by caller time,
 * callees by callee time), ties newest edge first. */
static void sort_edges(struct racket_graph *g)
{
    for (uint32_t i = 0; i < g->nnodes; i++) {
        struct rg_node *n = &g->nodes[i];
        struct edge_sort by_caller = { g, false }, by_callee = { g, true };

        sorted_sort_r(n->callers, n->ncallers, sizeof(*n->callers),
                      cmp_edges, &by_caller);
        sorted_sort_r(n->callees, n->ncallees, sizeof(*n->callees),
                      cmp_edges, &by_callee);
    }
}

int racket_graph_build(struct racket_graph *g, const struct profile *p,
                       double hide_self, double hide_subs)
{
    const struct model_filter all = { .focus = PROFILE_NONE };
    struct model *m = model_new(p, &all, hide_self, hide_subs);
    uint32_t label = 0;

    *g = (struct racket_graph){ .p = p };
    if (!m || graph_nodes(g, m) != 0 || link_edges(g) != 0 ||
        !(g->order = malloc((g->nnodes ? g->nnodes : 1) *
                            sizeof(*g->order))) ||
        topo_sort(g, g->order) != 0) {
        model_free(m);
        racket_graph_free(g);
        return -1;
    }
    model_free(m);
    sorted_sort_r(g->order, g->nnodes, sizeof(*g->order), cmp_display, g);
    for (uint32_t i = 0; i < g->nnodes; i++)
        g->nodes[g->order[i]].label = g->nodes[g->order[i]].hidden ? 0
                                                                   : ++label;
    sort_edges(g);
    return 0;
}

void racket_graph_free(struct racket_graph *g)
{
    free(g->nodes);
    free(g->edges);
    free(g->order);
    free(g->pool);
    *g = (struct racket_graph){ .p = g->p };
}
