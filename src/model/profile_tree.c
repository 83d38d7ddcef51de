/* profile_tree.c - the profile's call tree: nodes and their child index,
 * the ingest path (profile_add_stack), walks, node queries, and the
 * per-line / per-address counts.  See profile.h for the model and
 * profile_impl.h for the storage.
 *
 * Ingest is the hot path: the collector calls profile_add_stack ~10k
 * times a second with 20-500 frames.  Per frame it probes the child index
 * once; the index hashes (parent, frame) with util_mix64, a bijection of
 * the 64-bit key, so a hit needs no key compare.  Each node remembers the
 * line and address counters it used last, which saves two more probes.
 * Room is reserved before a stack is added, so an OOM leaves the profile
 * untouched.
 */
#include "profile_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"
#include "sorted.h"

/* One step down the tree, creating the child if needed (room reserved),
 * adding weight to its total. */
static uint32_t tree_step(struct profile *p, uint32_t node, uint32_t frame,
                          uint64_t weight)
{
    uint32_t child = profile_tree_find(p, node, frame);

    if (child == PROFILE_NONE)
        child = profile_tree_node_add(p, node, frame);
    p->nodes[child].total += weight;
    return child;
}

int profile_tree_add(struct profile *p, uint32_t thread_node,
                     const uint32_t *frames, size_t n, uint64_t weight)
{
    uint32_t node = thread_node;

    if (weight == 0)
        return 0;
    if (n > ID_LIMIT || profile_tree_reserve(p, n))
        return -1;
    p->nodes[PROFILE_ROOT].total += weight;
    if (node != PROFILE_ROOT)
        p->nodes[node].total += weight;
    for (size_t i = 0; i < n; i++)
        node = tree_step(p, node, frames[i], weight);
    p->nodes[node].self += weight;
    p->samples += weight;
    return 0;
}

/* --- line / address counts ----------------------------------------------- */

static uint64_t lc_hash(uint32_t frame, uint64_t key)
{
    return util_mix64(key ^ util_mix64(frame));
}

struct lc_probe {
    const struct lcmap *m;
    uint32_t frame;
    uint64_t key;
};

static int lc_eq(void *ctx, uint32_t id)
{
    const struct lc_probe *q = ctx;

    return q->m->e[id].frame == q->frame && q->m->e[id].key == q->key;
}

/* The counter of (frame, key), created if new; room must be reserved. */
static struct lcent *lc_get(struct lcmap *m, uint32_t frame, uint64_t key)
{
    struct lc_probe q = { m, frame, key };
    uint64_t h = lc_hash(frame, key);
    uint32_t id = idtab_find(&m->ix, h, lc_eq, &q);

    if (id == IDTAB_NONE) {
        id = (uint32_t)m->n++;
        m->e[id] = (struct lcent){ .frame = frame, .key = key };
        (void)idtab_insert(&m->ix, h, id);
    }
    return &m->e[id];
}

/* Count one stack's (frame, key) with its weight; *hint is the entry
 * this tree node used last time, checked before probing the index. */
static void lc_count(struct lcmap *m, uint32_t frame, uint64_t key,
                     uint32_t stamp, uint64_t weight, bool leaf,
                     uint32_t *hint)
{
    struct lcent *e;

    if (key == 0)  /* unknown line/address: nothing to attribute */
        return;
    if (*hint < m->n && m->e[*hint].frame == frame && m->e[*hint].key == key) {
        e = &m->e[*hint];
    } else {
        e = lc_get(m, frame, key);
        *hint = (uint32_t)(e - m->e);
    }
    if (e->stamp != stamp) {
        e->stamp = stamp;
        e->total += weight;
    }
    if (leaf)
        e->self += weight;
}

int profile_lc_merge(struct lcmap *dst, const struct lcmap *src,
                     const uint32_t *fmap, uint64_t k)
{
    if (profile_lc_reserve(dst, src->n))
        return -1;
    for (size_t i = 0; i < src->n; i++) {
        struct lcent *e = lc_get(dst, fmap[src->e[i].frame], src->e[i].key);

        e->self += src->e[i].self * k;
        e->total += src->e[i].total * k;
    }
    return 0;
}

int profile_lc_copy_kept(struct lcmap *dst, const struct lcmap *src,
                         const bool *keep)
{
    size_t n = 0;

    for (size_t i = 0; i < src->n; i++)
        n += keep[src->e[i].frame];
    if (profile_lc_init(dst) < 0 || profile_lc_reserve(dst, n) < 0)
        return -1;
    for (size_t i = 0; i < src->n; i++)
        if (keep[src->e[i].frame])
            *lc_get(dst, src->e[i].frame, src->e[i].key) = src->e[i];
    return 0;
}

static int cmp_linecount(const void *a, const void *b)
{
    const struct profile_linecount *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

long profile_lines(const struct profile *p, uint32_t frame, bool by_addr,
                   struct profile_linecount **out)
{
    const struct lcmap *m = by_addr ? &p->addrs : &p->lines;
    long n = 0;

    *out = NULL;
    for (size_t i = 0; i < m->n; i++)
        n += m->e[i].frame == frame;
    if (n == 0)
        return 0;
    *out = malloc((size_t)n * sizeof(**out));
    if (!*out)
        return -1;
    n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->e[i].frame == frame)
            (*out)[n++] = (struct profile_linecount){
                m->e[i].key, m->e[i].self, m->e[i].total };
    sorted_sort(*out, (size_t)n, sizeof(**out), cmp_linecount);
    return n;
}

/* One frame's counts at one address, for profile_code_counts. */
struct code_count {
    uint64_t key, self, thru;
};

static int cmp_code_count(const void *a, const void *b)
{
    const struct code_count *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

long profile_code_counts(const struct profile *p, const char *module,
                         uint64_t lo, uint64_t hi,
                         struct profile_linecount **out)
{
    const struct lcmap *m = &p->addrs;
    struct code_count *v = NULL;
    size_t n = 0;
    uint32_t mod = module ? strarena_lookup(&p->strs, module, strlen(module))
                          : STR_NULL;

    *out = NULL;
    if (module && mod == UINT32_MAX)
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < m->n; i++) {
            const struct lcent *e = &m->e[i];
            if (e->key < lo || e->key >= hi ||
                (module && p->fid[e->frame].module != mod))
                continue;
            if (v)
                v[n] = (struct code_count){ e->key, e->self,
                                            e->total - e->self };
            n++;
        }
        if (pass == 0) {
            if (n == 0)
                return 0;
            if (!(v = malloc(n * sizeof(*v))))
                return -1;
            n = 0;
        }
    }
    sorted_sort(v, n, sizeof(*v), cmp_code_count);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o && v[o - 1].key == v[i].key) {
            v[o - 1].self += v[i].self;
            if (v[i].thru < v[o - 1].thru)
                v[o - 1].thru = v[i].thru;
        } else {
            v[o++] = v[i];
        }
    }
    *out = malloc(o * sizeof(**out));
    if (!*out) {
        free(v);
        return -1;
    }
    for (size_t i = 0; i < o; i++)
        (*out)[i] = (struct profile_linecount){ v[i].key, v[i].self,
                                                v[i].self + v[i].thru };
    free(v);
    return (long)o;
}

/* --- ingest -------------------------------------------------------------- */

/* The stamp that dedups per-sample totals, for the next stack. */
static void next_stamp(struct profile *p)
{
    if (++p->stamp != 0)
        return;
    /* Wrapped after 2^32 calls: an entry untouched since then could carry
     * the new stamp and miss a count, so clear them all. */
    for (size_t i = 0; i < p->lines.n; i++)
        p->lines.e[i].stamp = 0;
    for (size_t i = 0; i < p->addrs.n; i++)
        p->addrs.e[i].stamp = 0;
    p->stamp = 1;
}

int profile_add_weighted(struct profile *p, uint32_t thread,
                         const struct stack_frame *frames, size_t n,
                         uint64_t samples, uint64_t weight)
{
    uint32_t node;

    if (!p || thread >= p->nthreads || (n && !frames) || n > ID_LIMIT)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (frames[i].frame >= p->nframes)
            return -1;
    if (weight == 0)
        return 0;
    /* Reserve everything first so an OOM leaves the profile untouched. */
    if (profile_tree_reserve(p, n) || profile_lc_reserve(&p->lines, n) ||
        profile_lc_reserve(&p->addrs, n))
        return -1;
    next_stamp(p);
    node = p->th[thread].node;
    p->nodes[PROFILE_ROOT].total += weight;
    p->nodes[node].total += weight;
    for (size_t i = 0; i < n; i++) {
        bool leaf = i + 1 == n;

        node = tree_step(p, node, frames[i].frame, weight);
        lc_count(&p->lines, frames[i].frame, frames[i].line, p->stamp,
                 weight, leaf, &p->aux[node].line_e);
        lc_count(&p->addrs, frames[i].frame, frames[i].addr, p->stamp,
                 weight, leaf, &p->aux[node].addr_e);
    }
    p->nodes[node].self += weight;
    p->samples += weight;
    p->nsamples += samples;
    return 0;
}

int profile_add_stack(struct profile *p, uint32_t thread,
                      const struct stack_frame *frames, size_t n,
                      uint64_t count)
{
    return profile_add_weighted(p, thread, frames, n, count, count);
}

uint64_t profile_samples(const struct profile *p)
{
    return !p ? 0 : p->graph ? p->graph->samples : p->samples;
}

/* --- node queries -------------------------------------------------------- */

uint32_t profile_node_count(const struct profile *p)
{
    return p ? p->nnodes : 0;
}

const struct profile_node *profile_node(const struct profile *p, uint32_t id)
{
    return p && id < p->nnodes ? &p->nodes[id] : NULL;
}

uint32_t profile_child(const struct profile *p, uint32_t parent,
                       uint32_t frame)
{
    if (!p || parent >= p->nnodes)
        return PROFILE_NONE;
    return profile_tree_find(p, parent, frame);
}

size_t profile_node_path(const struct profile *p, uint32_t node,
                         uint32_t *out, size_t cap)
{
    size_t len;
    uint32_t levels = 0;

    if (!p || node >= p->nnodes || node == PROFILE_ROOT)
        return 0;
    /* The process and thread nodes are the top of the path. */
    for (uint32_t a = node; a != PROFILE_ROOT; a = p->nodes[a].parent)
        levels += profile_frame_is_level(&p->fd[p->nodes[a].frame]);
    len = p->nodes[node].depth - levels;
    for (size_t i = len; i-- > 0; node = p->nodes[node].parent)
        if (i < cap)
            out[i] = p->nodes[node].frame;
    return len;
}

/* A process frame is interned per derived profile: its PID is its key. */
#define PROCESS_KEY_TAG 0x8000000000000000ull

uint64_t profile_node_key(const struct profile *p, uint32_t node)
{
    uint64_t h = 0x5350524f46544f50ull; /* any fixed seed */

    if (!p || node >= p->nnodes)
        return 0;
    /* Hash leaf to root: the order is fixed, so equal paths give equal
     * keys in any profile that shares the frame ids. */
    for (; node != PROFILE_ROOT; node = p->nodes[node].parent) {
        const struct frame_desc *d = &p->fd[p->nodes[node].frame];

        h = util_mix64(h ^ (d->kind == FRAME_PROCESS
                                ? (d->addr | PROCESS_KEY_TAG)
                                : p->nodes[node].frame));
    }
    return h;
}

uint32_t profile_node_thread(const struct profile *p, uint32_t node)
{
    if (!p || node == PROFILE_ROOT || node >= p->nnodes)
        return PROFILE_NONE;
    while (node != PROFILE_ROOT &&
           p->fd[p->nodes[node].frame].kind != FRAME_THREAD)
        node = p->nodes[node].parent;
    if (node == PROFILE_ROOT)
        return PROFILE_NONE;
    /* Its own thread node, or (below a process root) one of its frame. */
    for (uint32_t t = 0; t < p->nthreads; t++)
        if (p->th[t].node == node)
            return t;
    for (uint32_t t = 0; t < p->nthreads; t++)
        if (p->th[t].frame == p->nodes[node].frame)
            return t;
    return PROFILE_NONE;
}

/* --- walks --------------------------------------------------------------- */

int profile_tree_walk(const struct profile *p, uint32_t top,
                      profile_enter_fn enter, profile_leave_fn leave,
                      void *ctx)
{
    const struct profile_node *nodes = p->nodes;
    uint32_t n = nodes[top].first_child;

    while (n != PROFILE_NONE) {
        int rc = enter(ctx, n);

        if (rc)
            return rc;
        if (nodes[n].first_child != PROFILE_NONE) {
            n = nodes[n].first_child;
            continue;
        }
        for (;;) {
            if (leave)
                leave(ctx, n);
            if (nodes[n].next_sibling != PROFILE_NONE) {
                n = nodes[n].next_sibling;
                break;
            }
            n = nodes[n].parent;
            if (n == top)
                return 0;
        }
    }
    return 0;
}

struct stack_walk {
    const struct profile *p;
    profile_node_stack_fn fn; /* user callback */
    void *ctx;             /* its context */
    uint32_t thread;       /* thread being walked */
    uint32_t *path;        /* frames bottom first, indexed depth - 2 */
};

static int stack_enter(void *ctx, uint32_t node)
{
    struct stack_walk *w = ctx;
    const struct profile_node *n = &w->p->nodes[node];

    w->path[n->depth - 2] = n->frame;
    return w->fn(w->ctx, w->thread, node, w->path, n->depth - 1);
}

int profile_tree_stacks(const struct profile *p, profile_node_stack_fn fn,
                        void *ctx)
{
    uint32_t small[64];
    struct stack_walk w = { p, fn, ctx, 0, small };
    int rc = 0;

    if (p->max_depth > 1 + 64) {
        w.path = malloc(p->max_depth * sizeof(*w.path));
        if (!w.path)
            return -1;
    }
    for (uint32_t t = 0; t < p->nthreads && rc == 0; t++) {
        w.thread = t;
        rc = fn(ctx, t, p->th[t].node, w.path, 0);
        if (rc == 0)
            rc = profile_tree_walk(p, p->th[t].node, stack_enter, NULL, &w);
    }
    if (w.path != small)
        free(w.path);
    return rc;
}

struct self_walk {
    const struct profile *p;
    profile_stack_fn fn;
    void *ctx;
};

/* profile_foreach_stack's filter: the nodes that end samples. */
static int self_stack(void *ctx, uint32_t thread, uint32_t node,
                      const uint32_t *frames, size_t n)
{
    struct self_walk *w = ctx;
    uint64_t self = w->p->nodes[node].self;

    return self ? w->fn(w->ctx, thread, frames, n, self) : 0;
}

int profile_foreach_stack(const struct profile *p, profile_stack_fn fn,
                          void *ctx)
{
    struct self_walk w = { p, fn, ctx };

    return profile_tree_stacks(p, self_stack, &w);
}
