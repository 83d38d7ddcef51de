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
 * The graph has one node per function over all threads, plus Racket's
 * "*" node, caller of every stack's bottom frame and callee of every
 * leaf.  Each sample adds, for each adjacent (caller, callee) pair of its
 * stack, 1/k to the edge's caller time, k the callee's occurrences in the
 * sample, and 1/k' to its callee time, k' the caller's occurrences; so
 * Local% (edge time / node total) stays honest under recursion.
 *
 * Order: Racket's topological layering from "*" (cycles are broken by
 * its source/sink heuristic), nodes of a layer by total descending;
 * callers and callees by edge time.  Ties, which Racket leaves to hash
 * order, are broken by first use in the profile.
 *
 * Hiding (export_opts hide_self, hide_subs, in percent): a node is hidden
 * when its self time is at most hide_self of the total and, for every
 * edge to a neighbour, the edge's time is at most hide_subs of that
 * neighbour's total; with both at 0 nothing is hidden.
 *
 * Times are samples x interval in ms, rounded half to even as Racket's
 * exact arithmetic does; with no known interval a sample counts 1 ms.
 * Sources read "file:line:0" (the function's first line), the module when
 * the file is unknown, "(unknown source)" when both are; names lose
 * control characters (one row per line).  Widths count UTF-8 characters.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

#define STAR UINT32_MAX     /* Racket's "*" node */
#define TRUNCATE_SOURCE 50  /* Racket's #:truncate-source default */
#define EPS 1e-9            /* float slack where Racket is exact */
#define NCOLS 12

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

struct tnode {
    uint32_t frame;
    uint64_t self, total;   /* samples */
    uint32_t *callers;      /* edge indexes whose callee is this node */
    uint32_t ncallers;
    uint32_t *callees;      /* edge indexes whose caller is this node */
    uint32_t ncallees;
    double in, out;         /* topological sort: remaining io times */
    uint32_t pos;           /* index in the acyclic order */
    uint32_t layer;
    uint32_t label;         /* [N], 0 when hidden */
    uint32_t occ;           /* occurrences in the current stack */
    bool alive;             /* still in the sort's working set */
    bool queued;            /* already in a sources or sinks list */
    bool hidden;
};

struct tedge {
    uint32_t caller, callee;  /* node indexes, or STAR */
    double caller_time;       /* sum of count / occurrences of callee */
    double callee_time;       /* sum of count / occurrences of caller */
};

struct graph {
    const struct profile *p;
    struct tnode *nodes;
    uint32_t nnodes;
    uint32_t *node_of;   /* frame -> node, or PROFILE_NONE */
    struct tedge *edges;
    uint32_t nedges, ecap;
    uint32_t *slot;      /* open addressing over edges */
    uint32_t mask;
    uint32_t *pool;      /* every node's caller and callee lists */
    uint32_t *stack;     /* the current stack as nodes */
    size_t stack_cap;
    uint64_t samples;
};

static uint64_t edge_hash(uint32_t caller, uint32_t callee)
{
    return util_mix64((uint64_t)caller << 32 | callee);
}

static int edges_grow(struct graph *g)
{
    uint32_t ncap = g->ecap ? g->ecap * 2 : 256, nmask = ncap * 2 - 1;
    struct tedge *ne = realloc(g->edges, ncap * sizeof(*ne));
    uint32_t *ns;

    if (!ne)
        return -1;
    g->edges = ne;
    ns = malloc((size_t)(nmask + 1) * sizeof(*ns));
    if (!ns)
        return -1;
    memset(ns, 0xff, (size_t)(nmask + 1) * sizeof(*ns));
    for (uint32_t i = 0; i < g->nedges; i++) {
        uint32_t h = (uint32_t)edge_hash(ne[i].caller, ne[i].callee) & nmask;

        while (ns[h] != PROFILE_NONE)
            h = (h + 1) & nmask;
        ns[h] = i;
    }
    free(g->slot);
    g->slot = ns;
    g->mask = nmask;
    g->ecap = ncap;
    return 0;
}

/* Racket's connect: add count/k times to the (caller, callee) edge. */
static int connect(struct graph *g, uint32_t caller, uint32_t callee,
                   uint32_t caller_occ, uint32_t callee_occ, uint64_t count)
{
    uint32_t h = (uint32_t)edge_hash(caller, callee) & g->mask;
    struct tedge *e;

    for (; g->slot[h] != PROFILE_NONE; h = (h + 1) & g->mask) {
        e = &g->edges[g->slot[h]];
        if (e->caller == caller && e->callee == callee)
            goto found;
    }
    if (g->nedges == g->ecap) {
        if (edges_grow(g) != 0)
            return -1;
        h = (uint32_t)edge_hash(caller, callee) & g->mask;
        while (g->slot[h] != PROFILE_NONE)
            h = (h + 1) & g->mask;
    }
    g->slot[h] = g->nedges;
    e = &g->edges[g->nedges++];
    *e = (struct tedge){ .caller = caller, .callee = callee };
found:
    e->caller_time += (double)count / callee_occ;
    e->callee_time += (double)count / caller_occ;
    return 0;
}

static uint32_t occ_of(const struct graph *g, uint32_t node)
{
    return node == STAR ? 1 : g->nodes[node].occ;
}

static int add_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                     size_t n, uint64_t count)
{
    struct graph *g = ctx;
    uint32_t *st;

    (void)thread;
    if (n == 0)
        return 0;
    if (n > g->stack_cap) {
        st = realloc(g->stack, n * sizeof(*st));
        if (!st)
            return -1;
        g->stack = st;
        g->stack_cap = n;
    }
    st = g->stack;
    for (size_t i = 0; i < n; i++) {
        uint32_t *m = &g->node_of[frames[i]];

        if (*m == PROFILE_NONE) {
            *m = g->nnodes++;
            g->nodes[*m] = (struct tnode){ .frame = frames[i] };
        }
        st[i] = *m;
        if (g->nodes[*m].occ++ == 0)
            g->nodes[*m].total += count;
    }
    g->nodes[st[n - 1]].self += count;
    /* Racket's order: * -> bottom, leaf -> *, then pairs from the leaf. */
    if (connect(g, STAR, st[0], 1, occ_of(g, st[0]), count) ||
        connect(g, st[n - 1], STAR, occ_of(g, st[n - 1]), 1, count))
        return -1;
    for (size_t i = n - 1; i > 0; i--)
        if (connect(g, st[i - 1], st[i], occ_of(g, st[i - 1]),
                    occ_of(g, st[i]), count))
            return -1;
    for (size_t i = 0; i < n; i++)
        g->nodes[st[i]].occ = 0;
    return 0;
}

/* Fill each node's caller and callee edge lists (creation order). */
static int link_edges(struct graph *g)
{
    uint32_t *pool = malloc(2 * (size_t)(g->nedges ? g->nedges : 1) *
                            sizeof(*pool));
    uint32_t used = 0;

    if (!pool)
        return -1;
    g->pool = pool;
    for (uint32_t i = 0; i < g->nedges; i++) {
        if (g->edges[i].callee != STAR)
            g->nodes[g->edges[i].callee].ncallers++;
        if (g->edges[i].caller != STAR)
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
        const struct tedge *e = &g->edges[i];

        if (e->callee != STAR) {
            struct tnode *n = &g->nodes[e->callee];

            n->callers[n->ncallers++] = i;
        }
        if (e->caller != STAR) {
            struct tnode *n = &g->nodes[e->caller];

            n->callees[n->ncallees++] = i;
        }
    }
    return 0;
}

/* --- hiding ------------------------------------------------------------ */

static double node_total(const struct graph *g, uint32_t node)
{
    return node == STAR ? (double)g->samples : (double)g->nodes[node].total;
}

static bool hide(const struct graph *g, const struct tnode *n, double self_f,
                 double subs_f)
{
    if ((double)n->self / (double)g->samples > self_f + EPS)
        return false;
    for (uint32_t i = 0; i < n->ncallees; i++) {
        const struct tedge *e = &g->edges[n->callees[i]];
        double t = node_total(g, e->callee);

        if (t > 0 && e->caller_time / t > subs_f + EPS)
            return false;
    }
    for (uint32_t i = 0; i < n->ncallers; i++) {
        const struct tedge *e = &g->edges[n->callers[i]];
        double t = node_total(g, e->caller);

        if (t > 0 && e->callee_time / t > subs_f + EPS)
            return false;
    }
    return true;
}

static uint32_t mark_hidden(struct graph *g, double hide_self,
                            double hide_subs)
{
    double self_f = hide_self > 0 ? hide_self / 100.0 : 0;
    double subs_f = hide_subs > 0 ? hide_subs / 100.0 : 0;
    uint32_t nh = 0;

    if (self_f <= 0 && subs_f <= 0)
        return 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        g->nodes[i].hidden = g->samples == 0 ||
                             hide(g, &g->nodes[i], self_f, subs_f);
        nh += g->nodes[i].hidden;
    }
    return nh;
}

/* --- Racket's topological sort ----------------------------------------- */

struct idlist {
    uint32_t *v;
    uint32_t n;
};

static void push(struct idlist *l, uint32_t x)
{
    l->v[l->n++] = x;
}

static bool is_zero(double x)
{
    return x < EPS && x > -EPS;
}

/* Racket's best-sources: the alive nodes with the lowest in/out ratio. */
static void best_sources(struct graph *g, struct idlist *out)
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
            out->n = 0;
            best = r;
            have = true;
        }
        if (r <= best * (1 + 1e-12) + 1e-300)
            push(out, i);
    }
}

/* Order the nodes: fills order[] (the acyclic order), then layers. */
static int topo_sort(struct graph *g, uint32_t *order)
{
    uint32_t nn = g->nnodes, nleft = 0, alive = nn;
    uint32_t *buf = malloc(4 * (size_t)(nn ? nn : 1) * sizeof(*buf));
    uint32_t *right = malloc((size_t)(nn ? nn : 1) * sizeof(*right));
    uint32_t *batch = malloc((size_t)(nn ? nn : 1) * sizeof(*batch));
    struct idlist sinks, sources, nsinks, nsources;
    uint32_t nright = 0, nbatch = 0;

    if (!buf || !right || !batch) {
        free(buf);
        free(right);
        free(batch);
        return -1;
    }
    sinks = (struct idlist){ buf, 0 };
    sources = (struct idlist){ buf + nn, 0 };
    nsinks = (struct idlist){ buf + 2 * (size_t)nn, 0 };
    nsources = (struct idlist){ buf + 3 * (size_t)nn, 0 };
    for (uint32_t i = 0; i < nn; i++) {
        struct tnode *n = &g->nodes[i];

        n->in = n->out = 0;
        for (uint32_t k = 0; k < n->ncallers; k++) {
            const struct tedge *e = &g->edges[n->callers[k]];

            if (e->caller != i && e->caller != STAR)
                n->in += e->callee_time;
        }
        for (uint32_t k = 0; k < n->ncallees; k++) {
            const struct tedge *e = &g->edges[n->callees[k]];

            if (e->callee != i && e->callee != STAR)
                n->out += e->caller_time;
        }
        n->alive = true;
    }
    for (uint32_t i = 0; i < nn; i++) {
        if (is_zero(g->nodes[i].out))
            push(&sinks, i);
        if (is_zero(g->nodes[i].in))
            push(&sources, i);
    }
    while (alive > 0) {
        struct idlist *both[2];

        if (sinks.n == 0 && sources.n == 0)
            best_sources(g, &sources);
        /* A node both a sink and a source is a sink; drop duplicates and
         * nodes already placed. */
        for (uint32_t i = 0; i < nn; i++)
            g->nodes[i].queued = false;
        {
            uint32_t k = 0;

            for (uint32_t i = 0; i < sinks.n; i++) {
                struct tnode *n = &g->nodes[sinks.v[i]];

                if (n->alive && !n->queued) {
                    n->queued = true;
                    sinks.v[k++] = sinks.v[i];
                }
            }
            sinks.n = k;
            k = 0;
            for (uint32_t i = 0; i < sources.n; i++) {
                struct tnode *n = &g->nodes[sources.v[i]];

                if (n->alive && !n->queued) {
                    n->queued = true;
                    sources.v[k++] = sources.v[i];
                }
            }
            sources.n = k;
        }
        for (uint32_t i = 0; i < sinks.n; i++)
            g->nodes[sinks.v[i]].alive = false;
        for (uint32_t i = 0; i < sources.n; i++)
            g->nodes[sources.v[i]].alive = false;
        alive -= sinks.n + sources.n;
        for (uint32_t i = 0; i < nn; i++)
            g->nodes[i].queued = false;
        nsinks.n = nsources.n = 0;
        both[0] = &sources;
        both[1] = &sinks;
        for (int b = 0; b < 2; b++)
            for (uint32_t i = 0; i < both[b]->n; i++) {
                const struct tnode *n = &g->nodes[both[b]->v[i]];

                for (uint32_t k = 0; k < n->ncallees; k++) {
                    const struct tedge *e = &g->edges[n->callees[k]];
                    struct tnode *x;

                    if (e->callee == STAR || !g->nodes[e->callee].alive)
                        continue;
                    x = &g->nodes[e->callee];
                    x->in -= e->callee_time;
                    if (is_zero(x->in) && !x->queued) {
                        x->queued = true;
                        push(&nsources, e->callee);
                    }
                }
                for (uint32_t k = 0; k < n->ncallers; k++) {
                    const struct tedge *e = &g->edges[n->callers[k]];
                    struct tnode *x;

                    if (e->caller == STAR || !g->nodes[e->caller].alive)
                        continue;
                    x = &g->nodes[e->caller];
                    x->out -= e->caller_time;
                    if (is_zero(x->out)) {
                        /* queued marks sources; a sink list may repeat a
                         * node, the dedup above drops it */
                        push(&nsinks, e->caller);
                    }
                }
            }
        /* left gets the sources in order; sinks go to the right part,
         * later batches before earlier ones. */
        for (uint32_t i = 0; i < sources.n; i++)
            order[nleft++] = sources.v[i];
        for (uint32_t i = 0; i < sinks.n; i++)
            right[nright++] = sinks.v[i];
        batch[nbatch++] = sinks.n;
        {
            struct idlist t = sinks;

            sinks = nsinks;
            nsinks = t;
            t = sources;
            sources = nsources;
            nsources = t;
        }
    }
    /* right = last batch first, each batch in its own order */
    {
        uint32_t end = nright;

        for (uint32_t b = nbatch; b-- > 0;) {
            uint32_t start = end - batch[b];

            for (uint32_t i = start; i < end; i++)
                order[nleft++] = right[i];
            end = start;
        }
    }
    free(buf);
    free(right);
    free(batch);

    /* Layers: longest path over the edges consistent with the order. */
    for (uint32_t i = 0; i < nn; i++) {
        g->nodes[order[i]].pos = i;
        g->nodes[order[i]].layer = 0;
    }
    for (uint32_t i = 0; i < nn; i++) {
        const struct tnode *ler = &g->nodes[order[i]];

        for (uint32_t k = 0; k < ler->ncallees; k++) {
            const struct tedge *e = &g->edges[ler->callees[k]];
            struct tnode *lee;

            if (e->callee == STAR)
                continue;
            lee = &g->nodes[e->callee];
            if (lee->pos > ler->pos && lee->layer < ler->layer + 1)
                lee->layer = ler->layer + 1;
        }
    }
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

/* --- the table --------------------------------------------------------- */

/* Racket's display-table, in two passes over the same rows so no row is
 * kept: the first measures each column's widest cell, the second pads
 * every cell to its column's width, aligned right or left, and drops the
 * spaces that end a line. */
enum cell_kind {
    CELL_STR,      /* text that counts for the column width */
    CELL_FILL,     /* the column's width of one character */
    CELL_NOWIDTH,  /* text that does not count (name+src) */
};

struct cell {
    uint32_t off;  /* text in the row's arena */
    uint32_t len;
    uint8_t kind;
    char fill;
};

struct table {
    FILE *f;
    bool print;           /* second pass */
    size_t width[NCOLS];  /* measured by the first pass */
    struct cell c[NCOLS]; /* the current row */
    uint8_t n;
    char *arena;          /* its text */
    size_t alen, acap;
    char *line;           /* the row as printed */
    size_t lcap;
    bool oom;
};

static void row_begin(struct table *t)
{
    t->n = 0;
    t->alen = 0;
}

static void cell_text(struct table *t, uint8_t kind, const char *s,
                      size_t len)
{
    if (t->n == NCOLS || len > UINT32_MAX / 2)
        return;
    if (t->alen + len > t->acap) {
        size_t cap = (t->alen + len) * 2 + 256;
        char *na = realloc(t->arena, cap);

        if (!na) {
            t->oom = true;
            return;
        }
        t->arena = na;
        t->acap = cap;
    }
    memcpy(t->arena + t->alen, s, len);
    t->c[t->n++] = (struct cell){ .kind = kind, .off = (uint32_t)t->alen,
                                  .len = (uint32_t)len };
    t->alen += len;
}

static void cell(struct table *t, const char *s)
{
    cell_text(t, CELL_STR, s, strlen(s));
}

/* Text at `off` in the row's arena, which stays NULL until the row's
 * first string cell (pointer arithmetic on NULL is undefined). */
static const char *arena_at(const struct table *t, size_t off)
{
    return t->arena ? t->arena + off : "";
}

static void row_end(struct table *t)
{
    static const char al[NCOLS] = { 'r', 'l', 'r', 'l', 'l', 'r',
                                    'l', 'l', 'l', 'r', 'l', 'l' };
    size_t len = 0, need = 1;

    if (!t->print) {
        for (uint8_t k = 0; k < t->n; k++) {
            size_t w = util_utf8_count(arena_at(t, t->c[k].off), t->c[k].len);

            if (t->c[k].kind == CELL_STR && w > t->width[k])
                t->width[k] = w;
        }
        return;
    }
    for (uint8_t k = 0; k < t->n; k++)
        need += t->width[k] + t->c[k].len;
    if (need > t->lcap) {
        char *nl = realloc(t->line, need);

        if (!nl) {
            t->oom = true;
            return;
        }
        t->line = nl;
        t->lcap = need;
    }
    for (uint8_t k = 0; k < t->n; k++) {
        const struct cell *c = &t->c[k];
        size_t w = c->kind == CELL_FILL ? t->width[k]
                   : util_utf8_count(arena_at(t, c->off), c->len);
        size_t pad = t->width[k] > w ? t->width[k] - w : 0;

        if (al[k] == 'r') {
            memset(t->line + len, ' ', pad);
            len += pad;
        }
        if (c->kind == CELL_FILL) {
            memset(t->line + len, c->fill, t->width[k]);
            len += t->width[k];
        } else {
            memcpy(t->line + len, t->arena + c->off, c->len);
            len += c->len;
        }
        if (al[k] == 'l') {
            memset(t->line + len, ' ', pad);
            len += pad;
        }
    }
    while (len > 0 && t->line[len - 1] == ' ')
        len--;
    t->line[len++] = '\n';
    fwrite(t->line, 1, len, t->f);
}

static void row_strs(struct table *t, const char *const *s, size_t n)
{
    row_begin(t);
    for (size_t i = 0; i < n; i++)
        cell(t, s[i]);
    row_end(t);
}

static void row_rule(struct table *t, char ch)
{
    row_begin(t);
    for (int i = 0; i < 10; i++)
        t->c[t->n++] = (struct cell){ .kind = CELL_FILL, .fill = ch };
    row_end(t);
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

/* "  name [N]" for caller and callee lines. */
static void sub_row(struct table *t, const struct graph *g, uint32_t node,
                    double time, double total)
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
    len += (size_t)snprintf(s + len, cap - len, " [%" PRIu32 "]", n->label);
    row_begin(t);
    for (int i = 0; i < 8; i++)
        cell(t, "");
    cell_text(t, CELL_STR, s, len);
    fmt_pct(pct, sizeof(pct), time, total);
    cell(t, pct);
    cell(t, "");
    cell(t, "");
    row_end(t);
    free(s);
}

static int node_block(struct table *t, struct graph *g, uint32_t node,
                      double interval_ms, uint32_t *scratch)
{
    struct tnode *n = &g->nodes[node];
    struct edge_sort es = { g, false };
    double total = (double)n->total;
    char idx[24], tot[32], totp[40], self[32], selfp[40], pct[32];
    char *label;
    uint32_t k;

    /* callers: by caller time descending, printed in reverse */
    memcpy(scratch, n->callers, n->ncallers * sizeof(*scratch));
    es.by_callee_time = false;
    qsort_r(scratch, n->ncallers, sizeof(*scratch), cmp_edges, &es);
    for (k = n->ncallers; k-- > 0;) {
        const struct tedge *e = &g->edges[scratch[k]];

        if (e->caller != STAR && !g->nodes[e->caller].hidden)
            sub_row(t, g, e->caller, e->caller_time, total);
    }
    snprintf(idx, sizeof(idx), "[%" PRIu32 "]", n->label);
    fmt_ms(tot, sizeof(tot), (double)n->total * interval_ms);
    fmt_pct(pct, sizeof(pct), (double)n->total, (double)g->samples);
    snprintf(totp, sizeof(totp), "(%s)", pct);
    fmt_ms(self, sizeof(self), (double)n->self * interval_ms);
    fmt_pct(pct, sizeof(pct), (double)n->self, (double)g->samples);
    snprintf(selfp, sizeof(selfp), "(%s)", pct);
    label = name_src(profile_frame(g->p, n->frame));
    if (!label)
        return -1;
    row_begin(t);
    cell(t, idx);
    cell(t, " ");
    cell(t, tot);
    cell(t, totp);
    cell(t, " ");
    cell(t, self);
    cell(t, selfp);
    cell(t, " ");
    cell_text(t, CELL_NOWIDTH, label, strlen(label));
    row_end(t);
    free(label);
    memcpy(scratch, n->callees, n->ncallees * sizeof(*scratch));
    es.by_callee_time = true;
    qsort_r(scratch, n->ncallees, sizeof(*scratch), cmp_edges, &es);
    for (k = 0; k < n->ncallees; k++) {
        const struct tedge *e = &g->edges[scratch[k]];

        if (e->callee != STAR && !g->nodes[e->callee].hidden)
            sub_row(t, g, e->callee, e->callee_time, total);
    }
    row_rule(t, '-');
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
    fmt_ms(total, sizeof(total), (double)g->samples * interval_ms);
    fmt_ms(gran, sizeof(gran), g->samples ? interval_ms : 0);
    fprintf(f, "Profiling results\n-----------------\n");
    fprintf(f, "  Total cpu time observed: %sms (out of %sms)\n", total, total);
    fprintf(f, "  Number of samples taken: %" PRIu64 " (once every %sms)\n",
            g->samples, gran);
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

static int text_write(const struct profile *p, const struct export_opts *o,
                      FILE *f)
{
    static const char *const head[3][10] = {
        { "   ", " ", "   ", "     ", " ", "  ", "     ", " ", "  Caller" },
        { "Idx", " ", "To", "tal   ", " ", "Se", "lf   ", " ", "Name+src",
          "Local%" },
        { "   ", " ", " ms", "(pct)", " ", "ms", "(pct)", " ", "  Callee" },
    };
    const struct profile_meta *m = profile_meta(p);
    uint32_t nf = profile_frame_count(p);
    double interval_ms = m->interval_ns ? (double)m->interval_ns / 1e6 : 1.0;
    struct graph g = { .p = p, .samples = profile_samples(p) };
    struct table t = { 0 };
    uint32_t *order = NULL, *scratch = NULL, nhidden, label = 0;
    int rc = -1;

    errno = 0;
    g.nodes = malloc((nf ? nf : 1) * sizeof(*g.nodes));
    g.node_of = malloc((nf ? nf : 1) * sizeof(*g.node_of));
    if (!g.nodes || !g.node_of || edges_grow(&g) != 0)
        goto out;
    memset(g.node_of, 0xff, (nf ? nf : 1) * sizeof(*g.node_of));
    if (profile_foreach_stack(p, add_stack, &g) != 0 || link_edges(&g) != 0)
        goto out;
    order = malloc((g.nnodes ? g.nnodes : 1) * sizeof(*order));
    scratch = malloc((g.nedges ? g.nedges : 1) * sizeof(*scratch));
    if (!order || !scratch || topo_sort(&g, order) != 0)
        goto out;
    nhidden = mark_hidden(&g, o->hide_self, o->hide_subs);
    qsort_r(order, g.nnodes, sizeof(*order), cmp_display, &g);
    for (uint32_t i = 0; i < g.nnodes; i++)
        g.nodes[order[i]].label = g.nodes[order[i]].hidden ? 0 : ++label;

    write_header(f, &g, interval_ms, nhidden, o);
    t.f = f;
    for (int pass = 0; pass < 2; pass++) {
        t.print = pass == 1;
        row_rule(&t, '=');
        row_strs(&t, head[0], 9);
        row_strs(&t, head[1], 10);
        row_strs(&t, head[2], 9);
        row_rule(&t, '=');
        for (uint32_t i = 0; i < g.nnodes && !t.oom; i++)
            if (!g.nodes[order[i]].hidden &&
                node_block(&t, &g, order[i], interval_ms, scratch) != 0)
                goto out;
        if (t.oom)
            goto out;
    }
    rc = ferror(f) ? -1 : 0;
out:
    if (rc != 0 && !errno)
        errno = ferror(f) ? EIO : ENOMEM;
    free(g.pool);
    free(g.nodes);
    free(g.node_of);
    free(g.edges);
    free(g.slot);
    free(g.stack);
    free(order);
    free(scratch);
    free(t.arena);
    free(t.line);
    return rc;
}

const struct exporter export_text = {
    .name = "text",
    .exts = ".txt",
    .desc = "Racket-style call graph report (honours --hide-self/--hide-subs)",
    .write = text_write,
};
