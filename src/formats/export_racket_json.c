/* export_racket_json.c - Racket's JSON profile (docs/FORMATS.md,
 * racket-json), the shape profile->json of Racket 8.7's
 * profile/render-json writes and its json->profile reads:
 *
 *   {"total_time": MS, "cpu_time": MS, "sample_number": N,
 *    "thread_times": [{"id": TID, "time": MS}...],
 *    "nodes": [NODE...]}
 *   NODE: {"id": NAME or false, "src": "FILE:LINE:0" or false,
 *          "thread_ids": [TID...], "total": MS, "self": MS,
 *          "callers": [EDGE...], "callees": [EDGE...]}
 *   EDGE: {"total": MS, "caller": I, "caller_time": MS, "callee": I,
 *          "callee_time": MS}
 *
 * Node 0 is Racket's "*" node (id and src false): the caller of every
 * stack's bottom function and the callee of every leaf.  The graph, its
 * edge times (profile_edges, the one edge builder), the order of the
 * nodes and of each node's callers and callees are racket_graph.h's, the
 * text report's: json->profile keeps the order, so Racket's text
 * renderer prints sproftop's `-f text` report from this file (nothing
 * hidden here: the renderer hides by its own thresholds).  Times are the
 * weights in ms (racket_graph_ms), sample_number the samples taken, so
 * Racket's "once every" is their mean interval, as the text's is; thread
 * ids are the OS thread ids; a source is written only with a file and a
 * line, which is all Racket's srcloc can hold.  Not Racket's (it reads
 * keys by name, so it ignores them): "sproftop_first" on each node and
 * each edge between two nodes, its rank of first use, which breaks ties
 * in the order; load_racket reads it back, so the text report of the
 * file read back is the report it was written from.
 */
#include "export.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "profile.h"
#include "racket_graph.h"

struct rj {
    FILE *f;
    const struct racket_graph *g;
    double ms;              /* per sample */
    uint32_t *index;        /* node -> its index in "nodes" (from 1) */
    uint32_t *off, *ft;     /* profile_frame_threads */
};

/* A number as JSON: whole numbers without a fraction, others to 15
 * significant digits, which a double holds exactly: times read back and
 * written again (divided by the time a sample stands for, multiplied
 * again) come out the same. */
static void num(FILE *f, double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.15g", v);
}

static uint32_t node_index(const struct rj *r, uint32_t n)
{
    return n == RG_STAR ? 0 : r->index[n];
}

/* An edge; `rank` (its first use) for edges between two nodes, else
 * UINT32_MAX. */
static void edge(const struct rj *r, const struct rg_edge *e, bool first,
                 uint32_t rank)
{
    fputs(first ? "{\"total\": " : ", {\"total\": ", r->f);
    num(r->f, (double)e->samples * r->ms);
    fprintf(r->f, ", \"caller\": %" PRIu32 ", \"caller_time\": ",
            node_index(r, e->caller));
    num(r->f, e->caller_time * r->ms);
    fprintf(r->f, ", \"callee\": %" PRIu32 ", \"callee_time\": ",
            node_index(r, e->callee));
    num(r->f, e->callee_time * r->ms);
    if (rank != UINT32_MAX)
        fprintf(r->f, ", \"sproftop_first\": %" PRIu32, rank);
    putc('}', r->f);
}

/* A node's edge list: its edges to other nodes (in racket_graph's order,
 * by time descending) with its "*" edge, when it has one, where its time
 * falls in that order. */
static void edge_list(const struct rj *r, const uint32_t *list, uint32_t n,
                      const struct rg_edge *star, bool by_callee_time)
{
    bool first = true, star_done = star->samples == 0;
    double st = by_callee_time ? star->callee_time : star->caller_time;

    putc('[', r->f);
    for (uint32_t k = 0; k < n; k++) {
        const struct rg_edge *e = &r->g->edges[list[k]];
        double t = by_callee_time ? e->callee_time : e->caller_time;

        if (!star_done && st >= t) {
            edge(r, star, first, UINT32_MAX);
            star_done = true;
            first = false;
        }
        edge(r, e, first, list[k]);
        first = false;
    }
    if (!star_done)
        edge(r, star, first, UINT32_MAX);
    putc(']', r->f);
}

/* The "*" node: its callers are the leaves, its callees the bottoms. */
static void star_node(const struct rj *r)
{
    const struct racket_graph *g = r->g;
    bool first = true;

    fputs("\n  {\"id\": false, \"src\": false, \"thread_ids\": [], "
          "\"total\": ", r->f);
    num(r->f, (double)g->samples * r->ms);
    fputs(", \"self\": 0, \"callers\": [", r->f);
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[g->order[i]].leaf.samples) {
            edge(r, &g->nodes[g->order[i]].leaf, first, UINT32_MAX);
            first = false;
        }
    fputs("], \"callees\": [", r->f);
    first = true;
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[g->order[i]].top.samples) {
            edge(r, &g->nodes[g->order[i]].top, first, UINT32_MAX);
            first = false;
        }
    fputs("]}", r->f);
}

/* One node; 0, or -1 on OOM. */
static int node(const struct rj *r, const struct rg_node *n, uint32_t rank)
{
    const struct frame_desc *d = profile_frame(r->g->p, n->frame);

    fputs(",\n  {\"id\": ", r->f);
    if (d->name[0])
        escape_json(r->f, d->name, 0);
    else
        fputs("false", r->f);
    fputs(", \"src\": ", r->f);
    if (d->file && d->line) {
        size_t len = strlen(d->file) + 24;
        char *src = malloc(len);

        if (!src)
            return -1;
        snprintf(src, len, "%s:%" PRIu32 ":0", d->file, d->line);
        escape_json(r->f, src, 0);
        free(src);
    } else {
        fputs("false", r->f);
    }
    fputs(", \"thread_ids\": [", r->f);
    for (uint32_t k = r->off[n->frame]; k < r->off[n->frame + 1]; k++)
        fprintf(r->f, "%s%" PRId64, k > r->off[n->frame] ? ", " : "",
                profile_thread_at(r->g->p, r->ft[k])->tid);
    fputs("], \"total\": ", r->f);
    num(r->f, (double)n->total * r->ms);
    fputs(", \"self\": ", r->f);
    num(r->f, (double)n->self * r->ms);
    fputs(", \"callers\": ", r->f);
    edge_list(r, n->callers, n->ncallers, &n->top, false);
    fputs(", \"callees\": ", r->f);
    edge_list(r, n->callees, n->ncallees, &n->leaf, true);
    fprintf(r->f, ", \"sproftop_first\": %" PRIu32 "}", rank);
    return 0;
}

/* thread_times: the threads with samples, and any a node names (a call
 * graph read back may hold one that rounding left with none). */
static void header(const struct rj *r)
{
    const struct profile *p = r->g->p;
    uint32_t nt = profile_thread_count(p);
    bool first = true, *named = calloc(nt ? nt : 1, sizeof(*named));

    fputs("{\"total_time\": ", r->f);
    num(r->f, (double)r->g->samples * r->ms);
    fputs(", \"cpu_time\": ", r->f);
    num(r->f, (double)r->g->samples * r->ms);
    fprintf(r->f, ", \"sample_number\": %" PRIu64 ",\n \"thread_times\": [",
            profile_sample_count(p));
    for (uint32_t k = 0; named && k < r->off[profile_frame_count(p)]; k++)
        named[r->ft[k]] = true;
    for (uint32_t t = 0; t < nt; t++) {
        uint64_t n = profile_thread_samples(p, t);

        if (!n && !(named && named[t]))
            continue;
        fprintf(r->f, "%s{\"id\": %" PRId64 ", \"time\": ", first ? "" : ", ",
                profile_thread_at(p, t)->tid);
        num(r->f, (double)n * r->ms);
        putc('}', r->f);
        first = false;
    }
    fputs("],\n \"nodes\": [", r->f);
    free(named);
}

int export_racket_json_write(const struct profile *p,
                             const struct export_opts *o, FILE *f)
{
    struct racket_graph g;
    struct rj r = { .f = f, .g = &g, .ms = racket_graph_ms(p) };
    int rc = -1;

    (void)o;
    if (racket_graph_build(&g, p, 0, 0) != 0)
        return -1;
    r.index = malloc((g.nnodes ? g.nnodes : 1) * sizeof(*r.index));
    if (r.index && profile_frame_threads(p, &r.off, &r.ft) == 0) {
        for (uint32_t i = 0; i < g.nnodes; i++)
            r.index[g.order[i]] = i + 1;
        header(&r);
        star_node(&r);
        rc = 0;
        for (uint32_t i = 0; i < g.nnodes && rc == 0; i++)
            rc = node(&r, &g.nodes[g.order[i]], g.order[i]);
        fputs("\n ]}\n", f);
        rc = rc || ferror(f) ? -1 : 0;
    }
    free(r.index);
    free(r.off);
    free(r.ft);
    racket_graph_free(&g);
    return rc;
}
