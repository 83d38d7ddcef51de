/* export_text.c - the Racket-style text report (FORMATS.md section 7).
 *
 * The call graph laid out as Racket's profiler prints it (profile-lib's
 * text renderer), so that shared/formats/racket-text.expected, Racket
 * 8.7's own output for the example profile, is reproduced byte for byte:
 *
 *   - a header: total time, sample count and interval, the number of
 *     threads with samples (when more than one), then (not in Racket's
 *     report) the command, pid and duration when known, and how many
 *     functions are hidden;
 *   - a table whose columns are as wide as their widest cell, framed by
 *     '=' rules, with one block per function ended by a '-' rule: caller
 *     lines ("name [N]  Local%"), the function line ("[N] total(pct)
 *     self(pct) name src") and callee lines.
 *
 * The graph is the model's (view_model.h): one node per function over
 * all threads, the edges of profile_edges with Racket's caller and callee
 * times (so Local%, edge time / node total, stays honest under
 * recursion), and the model's hide rule (export_opts hide_self and
 * hide_subs, in percent), the one the TUI's views apply too.
 *
 * Order: Racket's topological layering from "*" (cycles are broken by
 * its source/sink heuristic), nodes of a layer by total descending;
 * callers and callees by edge time.  Ties, which Racket leaves to hash
 * order, are broken by first use in the profile.
 *
 * Times are weights in ms (profile.h: the time each sample stands for,
 * the interval of a file of counts), rounded half to even as Racket's
 * exact arithmetic does; with no known interval a sample counts 1 ms.
 * The sample count is the samples taken (profile_sample_count), each
 * once every total / count ms: the interval, sampled at one rate.
 * Sources read "file:line:0" (the function's first line), the module when
 * the file is unknown, "(unknown source)" when both are; names lose
 * control characters (one row per line).  Widths count UTF-8 characters.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "text_table.h"
#include "util.h"
#include "view_model.h"

#define TRUNCATE_SOURCE 50  /* Racket's #:truncate-source default */
/* Characters of a name in the caller and callee column, "..." included:
 * every row of the table is padded to its widest cell, so one name of
 * 10,000 characters made each row and rule as wide (60 MB of report
 * from 35 KB of profile).  The node's own row, the last column and not
 * padded, keeps the whole name; the TUI cuts names to the screen too. */
#define SUB_NAME_MAX 100
#define EPS 1e-9            /* float slack where Racket is exact */

/* --- numbers formatted as Racket does ---------------------------------- */

/* Round half to even: Racket rounds exact rationals so.  x >= 0. */
static uint64_t round_even(double x)
{
    uint64_t fl = (uint64_t)x;
    double frac = x - (double)fl;

    if (frac > 0.5 - EPS && frac < 0.5 + EPS)
        return fl + (fl & 1);
    return frac > 0.5 ? fl + 1 : fl;
}

/* format-percent: num/den as "66.7%" (0 when den is 0). */
static void fmt_pct(char *out, size_t cap, double num, double den)
{
    uint64_t p = den > 0 && num > 0 ? round_even(num * 1000.0 / den) : 0;

    snprintf(out, cap, "%" PRIu64 ".%" PRIu64 "%%", p / 10, p % 10);
}

/* f:msec: milliseconds rounded to an integer. */
static void fmt_ms(char *out, size_t cap, double ms)
{
    snprintf(out, cap, "%" PRIu64, ms > 0 ? round_even(ms) : 0);
}

/* --- the graph --------------------------------------------------------- */

/* A function of the report.  Its caller and callee lists hold indexes
 * into the graph's edges, in the edges' first-use order. */
struct tnode {
    uint32_t frame;
    uint64_t self, total;   /* samples */
    uint32_t *callers;      /* edges whose callee is this node */
    uint32_t ncallers;
    uint32_t *callees;      /* edges whose caller is this node */
    uint32_t ncallees;
    double in, out;         /* topological sort: remaining io times */
    uint32_t pos;           /* index in the acyclic order */
    uint32_t layer;
    uint32_t label;         /* [N], 0 when hidden */
    bool alive;             /* still in the sort's working set */
    bool queued;            /* already in a sources or sinks list */
    bool hidden;            /* by the model's hide rule */
};

/* A model edge between two functions, in node indexes. */
struct tedge {
    uint32_t caller, callee;
    double caller_time, callee_time;
};

/* Racket's call graph of the profile, less its "*" node: the model's
 * flat table, edges and hide rule, numbered for the report.  Node i is
 * the function first used i-th, edge i the i-th edge first used; ties
 * are broken by these numbers. */
struct graph {
    const struct profile *p;
    struct tnode *nodes;
    uint32_t nnodes;
    struct tedge *edges;
    uint32_t nedges;
    uint32_t *pool;      /* every node's caller and callee lists */
    uint64_t samples;
};

/* Nodes from the flat table, edges from the model's edge list in
 * first-use order; edges from the stack bottom ("*") are left out. */
static int graph_build(struct graph *g, const struct model *m)
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

        node_of[fl->frame] = fl->first;
        g->nodes[fl->first] = (struct tnode){
            .frame = fl->frame, .self = fl->self, .total = fl->total,
            .hidden = m->hidden[fl->frame] };
    }
    for (size_t i = 0; i < m->nedges; i++)
        by_seq[m->edges[i].seq] = (uint32_t)i;
    for (size_t k = 0; k < m->nedges; k++) {
        const struct profile_edge *e = &m->edges[by_seq[k]];

        if (e->caller != PROFILE_NONE)
            g->edges[g->nedges++] = (struct tedge){
                node_of[e->caller], node_of[e->callee], e->caller_time,
                e->callee_time };
    }
    free(node_of);
    free(by_seq);
    return 0;
}

/* Fill each node's caller and callee edge lists (first-use order). */
static int link_edges(struct graph *g)
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
        struct tnode *n = &g->nodes[i];

        n->callers = pool + used;
        used += n->ncallers;
        n->callees = pool + used;
        used += n->ncallees;
        n->ncallers = n->ncallees = 0;
    }
    for (uint32_t i = 0; i < g->nedges; i++) {
        struct tnode *lee = &g->nodes[g->edges[i].callee];
        struct tnode *ler = &g->nodes[g->edges[i].caller];

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
static double io_time(const struct graph *g, uint32_t i, bool callers)
{
    const struct tnode *n = &g->nodes[i];
    const uint32_t *list = callers ? n->callers : n->callees;
    uint32_t len = callers ? n->ncallers : n->ncallees;
    double sum = 0;

    for (uint32_t k = 0; k < len; k++) {
        const struct tedge *e = &g->edges[list[k]];

        if ((callers ? e->caller : e->callee) != i)
            sum += callers ? e->callee_time : e->caller_time;
    }
    return sum;
}

/* Each node's input and output times, without self edges: the weights
 * Racket's heuristic breaks cycles by.  Every node starts alive. */
static void topo_init(struct graph *g, struct topo *t)
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
static void best_sources(struct graph *g, struct topo *t)
{
    double best = 0;
    bool have = false;

    for (uint32_t i = 0; i < g->nnodes; i++) {
        const struct tnode *n = &g->nodes[i];
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
static void keep_fresh(struct graph *g, struct idlist *l)
{
    uint32_t k = 0;

    for (uint32_t i = 0; i < l->n; i++) {
        struct tnode *n = &g->nodes[l->v[i]];

        if (n->alive && !n->queued) {
            n->queued = true;
            l->v[k++] = l->v[i];
        }
    }
    l->n = k;
}

/* Take this round's sinks and sources out of the working set (a node
 * both a sink and a source is a sink); returns how many left. */
static uint32_t take_round(struct graph *g, struct topo *t)
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
static void release(struct graph *g, struct topo *t, const struct tnode *n,
                    bool callees)
{
    const uint32_t *list = callees ? n->callees : n->callers;
    uint32_t len = callees ? n->ncallees : n->ncallers;

    for (uint32_t k = 0; k < len; k++) {
        const struct tedge *e = &g->edges[list[k]];
        uint32_t other = callees ? e->callee : e->caller;
        struct tnode *x = &g->nodes[other];
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
static void topo_round(struct graph *g, struct topo *t, uint32_t *order,
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
static void assign_layers(struct graph *g, const uint32_t *order)
{
    for (uint32_t i = 0; i < g->nnodes; i++) {
        g->nodes[order[i]].pos = i;
        g->nodes[order[i]].layer = 0;
    }
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const struct tnode *ler = &g->nodes[order[i]];

        for (uint32_t k = 0; k < ler->ncallees; k++) {
            struct tnode *lee = &g->nodes[g->edges[ler->callees[k]].callee];

            if (lee->pos > ler->pos && lee->layer < ler->layer + 1)
                lee->layer = ler->layer + 1;
        }
    }
}

/* Order the nodes: fills order[] (Racket's acyclic order: sources
 * round by round from the left, sinks from the right), then layers. */
static int topo_sort(struct graph *g, uint32_t *order)
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
    const struct graph *g = ctx;
    const struct tnode *x = &g->nodes[*(const uint32_t *)a];
    const struct tnode *y = &g->nodes[*(const uint32_t *)b];

    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return (x->pos < y->pos) - (x->pos > y->pos);
}

/* Edge lists by time, descending; ties newest edge first, as Racket's
 * stable sort of its consed lists gives. */
struct edge_sort {
    const struct graph *g;
    bool by_callee_time;
};

static int cmp_edges(const void *a, const void *b, void *ctx)
{
    const struct edge_sort *s = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const struct tedge *x = &s->g->edges[i], *y = &s->g->edges[j];
    double tx = s->by_callee_time ? x->callee_time : x->caller_time;
    double ty = s->by_callee_time ? y->callee_time : y->caller_time;

    if (tx > ty + EPS)
        return -1;
    if (ty > tx + EPS)
        return 1;
    return (i < j) - (i > j);
}

/* --- labels ------------------------------------------------------------ */

/* Append s to buf without control characters; returns the new length. */
static size_t put_clean(char *buf, size_t len, const char *s)
{
    for (; *s; s++)
        buf[len++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s;
    return len;
}

/* "name src", the source truncated from the left as Racket's
 * #:truncate-source does.  Returns a malloc'd string. */
static char *name_src(const struct frame_desc *d)
{
    char lineno[16] = "";
    const char *where = d->file ? d->file : d->module;
    size_t cap = strlen(d->name) + (where ? strlen(where) : 0) + 64;
    char *src = malloc(cap), *out = malloc(cap);
    size_t slen = 0, nlen, schars, nchars;
    long n;

    if (!src || !out) {
        free(src);
        free(out);
        return NULL;
    }
    if (d->file && d->line)
        snprintf(lineno, sizeof(lineno), ":%" PRIu32 ":0", d->line);
    if (where) {
        slen = put_clean(src, 0, where);
        slen = put_clean(src, slen, lineno);
    } else {
        slen = put_clean(src, 0, "(unknown source)");
    }
    nlen = put_clean(out, 0, *d->name ? d->name : "???");
    out[nlen++] = ' ';
    schars = util_utf8_count(src, slen);
    nchars = util_utf8_count(out, nlen - 1);
    n = (long)(schars + nchars + 1) - TRUNCATE_SOURCE;
    if (n > 0) {
        n = (long)schars - n - 3;
        memcpy(out + nlen, "...", 3);
        nlen += 3;
        if (n > 0) {
            /* keep the last n characters of src */
            size_t i = slen;
            long k = 0;

            while (i > 0 && k < n) {
                i--;
                if (((unsigned char)src[i] & 0xc0) != 0x80)
                    k++;
            }
            memcpy(out + nlen, src + i, slen - i);
            nlen += slen - i;
        }
    } else {
        memcpy(out + nlen, src, slen);
        nlen += slen;
    }
    out[nlen] = '\0';
    free(src);
    return out;
}

/* Cut the name at s[from..*len) to SUB_NAME_MAX characters, "..." at the
 * end, on a character boundary. */
static void cut_name(char *s, size_t from, size_t *len)
{
    size_t i = from, k = 0;

    if (util_utf8_count(s + from, *len - from) <= SUB_NAME_MAX)
        return;
    while (k < SUB_NAME_MAX - 3) {
        i++;
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            k++;
    }
    memcpy(s + i, "...", 3);
    *len = i + 3;
}

/* "  name [N]" for caller and callee lines. */
static void sub_row(struct text_table *t, const struct graph *g,
                    uint32_t node, double time, double total)
{
    const struct tnode *n = &g->nodes[node];
    const char *name = profile_frame(g->p, n->frame)->name;
    size_t cap = strlen(name) + 32, len;
    char *s = malloc(cap), pct[32];

    if (!s) {
        t->oom = true;
        return;
    }
    len = put_clean(s, 0, "  ");
    len = put_clean(s, len, *name ? name : "???");
    cut_name(s, 2, &len);
    len += (size_t)snprintf(s + len, cap - len, " [%" PRIu32 "]", n->label);
    text_table_begin(t);
    for (int i = 0; i < 8; i++)
        text_table_cell(t, "");
    text_table_cell_n(t, TEXT_CELL_STR, s, len);
    fmt_pct(pct, sizeof(pct), time, total);
    text_table_cell(t, pct);
    text_table_cell(t, "");
    text_table_cell(t, "");
    text_table_end(t);
    free(s);
}

/* The caller lines (callers = true: by caller time, smallest first) or
 * the callee lines (by callee time, largest first) of a node. */
static void edge_rows(struct text_table *t, const struct graph *g,
                      const struct tnode *n, bool callers, uint32_t *scratch)
{
    struct edge_sort es = { g, !callers };
    const uint32_t *list = callers ? n->callers : n->callees;
    uint32_t len = callers ? n->ncallers : n->ncallees;

    memcpy(scratch, list, len * sizeof(*scratch));
    qsort_r(scratch, len, sizeof(*scratch), cmp_edges, &es);
    for (uint32_t k = 0; k < len; k++) {
        const struct tedge *e = &g->edges[scratch[callers ? len - 1 - k : k]];
        uint32_t other = callers ? e->caller : e->callee;

        if (!g->nodes[other].hidden)
            sub_row(t, g, other, callers ? e->caller_time : e->callee_time,
                    (double)n->total);
    }
}

/* "[N] total(pct) self(pct) name src". */
static int node_row(struct text_table *t, const struct graph *g,
                    const struct tnode *n, double interval_ms)
{
    char idx[24], tot[32], totp[40], self[32], selfp[40], pct[32];
    char *label = name_src(profile_frame(g->p, n->frame));

    if (!label)
        return -1;
    snprintf(idx, sizeof(idx), "[%" PRIu32 "]", n->label);
    fmt_ms(tot, sizeof(tot), (double)n->total * interval_ms);
    fmt_pct(pct, sizeof(pct), (double)n->total, (double)g->samples);
    snprintf(totp, sizeof(totp), "(%s)", pct);
    fmt_ms(self, sizeof(self), (double)n->self * interval_ms);
    fmt_pct(pct, sizeof(pct), (double)n->self, (double)g->samples);
    snprintf(selfp, sizeof(selfp), "(%s)", pct);
    text_table_begin(t);
    text_table_cell(t, idx);
    text_table_cell(t, " ");
    text_table_cell(t, tot);
    text_table_cell(t, totp);
    text_table_cell(t, " ");
    text_table_cell(t, self);
    text_table_cell(t, selfp);
    text_table_cell(t, " ");
    text_table_cell_n(t, TEXT_CELL_NOWIDTH, label, strlen(label));
    text_table_end(t);
    free(label);
    return 0;
}

static int node_block(struct text_table *t, const struct graph *g,
                      uint32_t node, double interval_ms, uint32_t *scratch)
{
    const struct tnode *n = &g->nodes[node];

    edge_rows(t, g, n, true, scratch);
    if (node_row(t, g, n, interval_ms) != 0)
        return -1;
    edge_rows(t, g, n, false, scratch);
    text_table_rule(t, '-', 10);
    return t->oom ? -1 : 0;
}

static void write_header(FILE *f, const struct graph *g, double interval_ms,
                         uint32_t nhidden, const struct export_opts *o)
{
    const struct profile_meta *m = profile_meta(g->p);
    uint32_t nthreads = 0;
    char total[32], gran[32], a[32], b[32];

    for (uint32_t i = 0; i < profile_thread_count(g->p); i++)
        nthreads += profile_node(g->p, profile_thread_at(g->p, i)->node)
                        ->total > 0;
    uint64_t taken = profile_sample_count(g->p);
    double total_ms = (double)g->samples * interval_ms;

    fmt_ms(total, sizeof(total), total_ms);
    fmt_ms(gran, sizeof(gran),
           !taken ? 0
           : taken == g->samples ? interval_ms : total_ms / (double)taken);
    fprintf(f, "Profiling results\n-----------------\n");
    fprintf(f, "  Total cpu time observed: %sms (out of %sms)\n", total, total);
    fprintf(f, "  Number of samples taken: %" PRIu64 " (once every %sms)\n",
            taken, gran);
    if (nthreads > 1)
        fprintf(f, "  Threads observed:        %" PRIu32 "\n", nthreads);
    /* Not in Racket's header: what sproftop knows of the run. */
    if (m->cmdline || m->comm || m->pid) {
        char *cmd = malloc(strlen(m->cmdline ? m->cmdline
                                  : m->comm ? m->comm : "?") + 1);

        if (cmd) {
            cmd[put_clean(cmd, 0, m->cmdline ? m->cmdline
                                  : m->comm ? m->comm : "?")] = '\0';
            fprintf(f, "  Command:                 %s", cmd);
            free(cmd);
        }
        if (m->pid)
            fprintf(f, " (pid %" PRId64 ")", m->pid);
        putc('\n', f);
    }
    if (m->duration_ns)
        fprintf(f, "  Wall-clock duration:     %.3f s (%s)\n",
                (double)m->duration_ns / 1e9,
                m->idle ? "all threads sampled" : "on-CPU threads sampled");
    if (nhidden) {
        fmt_pct(a, sizeof(a), o->hide_self > 0 ? o->hide_self : 0, 100);
        fmt_pct(b, sizeof(b), o->hide_subs > 0 ? o->hide_subs : 0, 100);
        fprintf(f, "  (Hiding functions with self<%s and local<%s: %" PRIu32
                   " of %" PRIu32 " hidden)\n",
                a, b, nhidden, g->nnodes);
    }
    putc('\n', f);
}

/* The whole table, twice: the first pass measures, the second prints. */
static int write_table(FILE *f, const struct graph *g, const uint32_t *order,
                       double interval_ms, uint32_t *scratch)
{
    static const char *const head[3][10] = {
        { "   ", " ", "   ", "     ", " ", "  ", "     ", " ", "  Caller" },
        { "Idx", " ", "To", "tal   ", " ", "Se", "lf   ", " ", "Name+src",
          "Local%" },
        { "   ", " ", " ms", "(pct)", " ", "ms", "(pct)", " ", "  Callee" },
    };
    /* Idx, total ms, (pct), self ms, (pct), name+src, Local% and the
     * blank columns between them, aligned as Racket's columns are */
    struct text_table t = { .f = f, .align = "rlrllrlllrll" };
    int rc = 0;

    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        t.print = pass == 1;
        text_table_rule(&t, '=', 10);
        text_table_strs(&t, head[0], 9);
        text_table_strs(&t, head[1], 10);
        text_table_strs(&t, head[2], 9);
        text_table_rule(&t, '=', 10);
        for (uint32_t i = 0; i < g->nnodes && rc == 0; i++)
            if (!g->nodes[order[i]].hidden)
                rc = node_block(&t, g, order[i], interval_ms, scratch);
        if (t.oom)
            rc = -1;
    }
    text_table_free(&t);
    return rc;
}

int export_text_write(const struct profile *p, const struct export_opts *o,
                      FILE *f)
{
    const struct model_filter all = { .focus = PROFILE_NONE };
    const struct profile_meta *meta = profile_meta(p);
    /* ms per unit of weight: ns for a live profile, an interval for a
     * file of counts, 1 ms when that is unknown */
    double interval_ms = profile_weight_unit(p)
                             ? (double)profile_weight_unit(p) / 1e6
                         : meta->interval_ns ? (double)meta->interval_ns / 1e6
                                             : 1.0;
    struct model *m = model_new(p, &all, o->hide_self, o->hide_subs);
    struct graph g = { .p = p };
    uint32_t *order = NULL, *scratch = NULL, label = 0;
    int rc = -1;

    if (!m || graph_build(&g, m) != 0 || link_edges(&g) != 0)
        goto out;
    order = malloc((g.nnodes ? g.nnodes : 1) * sizeof(*order));
    scratch = malloc((g.nedges ? g.nedges : 1) * sizeof(*scratch));
    if (!order || !scratch || topo_sort(&g, order) != 0)
        goto out;
    qsort_r(order, g.nnodes, sizeof(*order), cmp_display, &g);
    for (uint32_t i = 0; i < g.nnodes; i++)
        g.nodes[order[i]].label = g.nodes[order[i]].hidden ? 0 : ++label;
    write_header(f, &g, interval_ms, (uint32_t)m->nhidden, o);
    if (write_table(f, &g, order, interval_ms, scratch) == 0)
        rc = ferror(f) ? -1 : 0;
out:
    model_free(m);
    free(g.pool);
    free(g.nodes);
    free(g.edges);
    free(order);
    free(scratch);
    return rc;
}
