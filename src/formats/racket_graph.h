/* racket_graph.h - Racket's call graph of a profile, in the order its
 * renderers list it.
 *
 * One node per function over all threads and the caller -> callee edges
 * between them with Racket's caller and callee times: the model's flat
 * table, edges and hide rule (view_model.h, so the one edge builder,
 * profile_edges), numbered and ordered as Racket's profiler does
 * (profile-lib analyzer.rkt and utils.rkt): topological layers from the
 * "*" node (cycles broken by its source/sink heuristic), nodes of a layer
 * by total descending; each node's callers by caller time and callees by
 * callee time, descending.  Ties, which Racket leaves to hash order, are
 * broken by first use in the profile.
 *
 * The text report (export_text.c) prints it; the Racket JSON writer
 * (export_racket_json.c) writes it as profile->json does, so Racket's
 * own json->profile and text renderer print sproftop's report.  libc
 * only; any thread, one graph per caller.
 */
#ifndef SPROFTOP_RACKET_GRAPH_H
#define SPROFTOP_RACKET_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;

#define RG_STAR UINT32_MAX  /* Racket's "*" node: the stack's bottom and
                               the leaf's caller, in an edge */

/* An edge between two nodes (indexes), or from or to RG_STAR. */
struct rg_edge {
    uint32_t caller, callee;
    double caller_time;     /* samples (Racket: msec), see profile_edge */
    double callee_time;
    uint64_t samples;       /* samples holding the edge (Racket's total) */
};

/* A function of the graph. */
struct rg_node {
    uint32_t frame;
    uint64_t self, total;   /* samples */
    struct rg_edge top;     /* "*" -> it: the samples whose stack starts
                               with it (samples 0: none) */
    struct rg_edge leaf;    /* it -> "*": those it ends (samples 0: none) */
    uint32_t *callers;      /* edges into it from other nodes, by caller
                               time descending (Racket's text renderer
                               prints them in reverse) */
    uint32_t ncallers;
    uint32_t *callees;      /* edges out of it, by callee time descending */
    uint32_t ncallees;
    uint32_t label;         /* [N], from 1 in display order; 0: hidden */
    bool hidden;            /* by the model's hide rule */
    /* the topological sort's own */
    double in, out;         /* remaining input and output times */
    uint32_t pos;           /* index in the acyclic order */
    uint32_t layer;
    bool alive;             /* still in the sort's working set */
    bool queued;            /* already in a sources or sinks list */
};

struct racket_graph {
    const struct profile *p;
    struct rg_node *nodes;  /* node i: the function first used i-th */
    uint32_t nnodes;
    struct rg_edge *edges;  /* edge i: the i-th first used between two
                               nodes ("*" edges are in the nodes) */
    uint32_t nedges;
    uint32_t *order;        /* the nodes in display order */
    uint32_t nhidden;       /* nodes hidden */
    uint64_t samples;       /* all samples (Racket's total time) */
    uint32_t *pool;         /* every node's caller and callee lists */
};

/* Build g over p with the hide thresholds (percent).  0, or -1 on OOM
 * (g then holds nothing to free). */
int racket_graph_build(struct racket_graph *g, const struct profile *p,
                       double hide_self, double hide_subs);

/* Free what g holds (not g). */
void racket_graph_free(struct racket_graph *g);

/* The milliseconds a unit of weight stands for (profile.h, "Weights"): a
 * nanosecond for a live profile, the interval for a file of counts, 1 ms
 * when that is unknown (Racket's times are in ms). */
double racket_graph_ms(const struct profile *p);

#endif
