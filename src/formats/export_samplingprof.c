/* export_samplingprof.c - SamplingProf text, as the Ruby sampling_prof gem
 * writes it (FORMATS.md section 6).
 *
 * Four chunks separated by a blank line; the file ends with a newline:
 *   1. runtime in ms: samples x interval ("60.0"), the time a single
 *      thread would have needed for all samples, as the gem defines it
 *      for several threads; with no known interval, 1 ms per sample;
 *   2. call elements "file:line:method,id", ids from 0 in first-use order
 *      (stack walk order, root first);
 *   3. counts "id,self,total", total counted once per sample even under
 *      recursion;
 *   4. call graph "from,to,count" in first-use order, root edges from -1,
 *      each edge counted once per sample; direct recursion is "id,id,n".
 *
 * A call element is one function: file is its source file (the module
 * when the file is unknown, "?" when both are), line its first line (0
 * when unknown).  Readers split on ',' and ':' and lines, so inside the
 * three fields ':' becomes '.', ',' becomes ';', and newlines, CRs and
 * tabs become spaces ("std::map<int, std::string>::operator[]" becomes
 * "std..map<int; std..string>..operator[]").  Threads are merged (the
 * format has none); thread frames are not call elements, and samples
 * with an empty stack count only in the runtime.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "profile.h"

struct sp_ctx {
    const struct profile *p;
    uint32_t *id_of;             /* frame -> element id, or PROFILE_NONE */
    uint32_t *frame_of;          /* element id -> frame */
    long nids;
    struct profile_edge *edges;  /* sorted by (caller, callee) */
    long nedges;
    uint32_t *rank;              /* edge index -> first-use rank */
    uint32_t nranked;
};

/* Readers split on ':' ',' and lines. */
static const struct escape_map field_map = { ":,\n\r\t", ".;   ", false };

static void write_field(FILE *f, const char *s)
{
    escape_put(f, s, SIZE_MAX, &field_map);
}

static int cmp_edge_key(const void *key, const void *elem)
{
    const struct profile_edge *k = key, *e = elem;

    if (k->caller != e->caller)
        return k->caller < e->caller ? -1 : 1;
    return (k->callee > e->callee) - (k->callee < e->callee);
}

static void note_edge(struct sp_ctx *c, uint32_t caller, uint32_t callee)
{
    struct profile_edge key = { .caller = caller, .callee = callee };
    const struct profile_edge *e =
        bsearch(&key, c->edges, (size_t)c->nedges, sizeof(*c->edges),
                cmp_edge_key);

    if (e && c->rank[e - c->edges] == PROFILE_NONE)
        c->rank[e - c->edges] = c->nranked++;
}

/* Rank the edges in the order stacks use them, each from the bottom. */
static int rank_edges(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t count)
{
    (void)thread;
    (void)count;
    for (size_t i = 0; i < n; i++)
        note_edge(ctx, i ? frames[i - 1] : PROFILE_NONE, frames[i]);
    return 0;
}

static int write_samplingprof(const struct profile *p,
                              const struct export_opts *o, FILE *f)
{
    const struct profile_meta *m = profile_meta(p);
    uint32_t nf = profile_frame_count(p);
    struct sp_ctx c = { .p = p };
    struct profile_flat *flat = NULL;
    struct profile_flat **by_id = NULL;
    long *order = NULL, nflat;
    double interval_ms = m->interval_ns ? (double)m->interval_ns / 1e6 : 1.0;
    int rc = -1;

    (void)o;
    c.nids = profile_first_use(p, &c.frame_of, &c.id_of);
    by_id = calloc(nf ? nf : 1, sizeof(*by_id));
    c.nedges = profile_edges(p, &c.edges);
    nflat = profile_flat(p, &flat);
    if (c.nids < 0 || !by_id || c.nedges < 0 || nflat < 0)
        goto out;
    c.rank = malloc((c.nedges ? (size_t)c.nedges : 1) * sizeof(*c.rank));
    order = malloc((c.nedges ? (size_t)c.nedges : 1) * sizeof(*order));
    if (!c.rank || !order)
        goto out;
    memset(c.rank, 0xff, (c.nedges ? (size_t)c.nedges : 1) * sizeof(*c.rank));
    if (profile_foreach_stack(p, rank_edges, &c) != 0)
        goto out;
    for (long i = 0; i < nflat; i++)
        by_id[flat[i].frame] = &flat[i];

    fprintf(f, "%.1f\n\n", (double)profile_samples(p) * interval_ms);
    for (long i = 0; i < c.nids; i++) {
        const struct frame_desc *d = profile_frame(p, c.frame_of[i]);

        write_field(f, d->file ? d->file : d->module ? d->module : "?");
        fprintf(f, ":%" PRIu32 ":", d->line);
        write_field(f, *d->name ? d->name : "[unknown]");
        fprintf(f, ",%ld\n", i);
    }
    putc('\n', f);
    for (long i = 0; i < c.nids; i++) {
        const struct profile_flat *fl = by_id[c.frame_of[i]];

        fprintf(f, "%ld,%" PRIu64 ",%" PRIu64 "\n", i,
                fl ? fl->self : 0, fl ? fl->total : 0);
    }
    putc('\n', f);
    for (long i = 0; i < c.nedges; i++)
        if (c.rank[i] != PROFILE_NONE)
            order[c.rank[i]] = i;
    for (uint32_t r = 0; r < c.nranked; r++) {
        const struct profile_edge *e = &c.edges[order[r]];

        if (e->caller == PROFILE_NONE)
            fputs("-1", f);
        else
            fprintf(f, "%" PRIu32, c.id_of[e->caller]);
        fprintf(f, ",%" PRIu32 ",%" PRIu64 "\n", c.id_of[e->callee],
                e->samples);
    }
    rc = ferror(f) ? -1 : 0;
out:
    free(c.id_of);
    free(c.frame_of);
    free(c.edges);
    free(c.rank);
    free(order);
    free(flat);
    free(by_id);
    return rc;
}

EXPORT_COUNTS_WRITER(export_samplingprof_write, write_samplingprof)
