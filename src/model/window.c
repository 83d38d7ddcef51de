/* window.c - the per-second ring of stack counts; see window.h.
 *
 * Storage (struct profile_time, reached from struct profile):
 *   - a trie of samples: a root per thread, then one node per (parent,
 *     frame, line, address), so a sample is one trie node id and the
 *     same sample twice is the same id.  Its size grows with unique
 *     samples, like the tree's with unique stacks, never with time;
 *   - a ring of `nb` buckets, second s in slot s % nb: a dense list of
 *     (trie node, count).  A trie node remembers its entry in the bucket
 *     of the second it was last counted in, so a sample counted again in
 *     the same second costs no lookup.  A slot whose second is not s, or
 *     is older than the ring, counts as empty and is overwritten when its
 *     second comes.
 * So the memory is trie nodes + at most unique samples x nb entries of 12
 * bytes: samples come in time order from the collector; a sample added
 * to an older second than its last one (a file out of order) gets an
 * entry of its own there, and every reader sums a bucket's entries.
 *
 * The ingest path (profile_add_stack_at) reserves the trie, the bucket
 * and the tree before it adds anything, so an OOM leaves the profile as
 * it was.  A window replays each sample of its range once
 * (profile_time_range), through profile_add_stack, into a fresh copy
 * (window_profile.c): O(unique samples x depth).
 */
#include "window.h"

#include <stdlib.h>
#include <string.h>

#include "profile_impl.h"
#include "util.h"
#include "vec.h"
#include "sorted.h"

#define TRIE_TOP UINT32_MAX   /* parent of a thread's root */
#define NO_SECOND UINT64_MAX

/* A node of the sample trie. */
struct tnode {
    uint32_t parent;  /* trie node, TRIE_TOP for a thread's root */
    uint32_t frame;   /* frame id; the thread index for a root */
    uint32_t line;    /* the frame's line in this sample */
    uint32_t thread;  /* thread index of the sample */
    uint32_t depth;   /* frames from the root: 0 for a root */
    uint32_t last_entry; /* its entry in the bucket of second last_sec */
    uint32_t hint;       /* the child a sample went on to last, or
                            TRIE_TOP: checked before probing the index */
    uint64_t last_sec;   /* second it was last counted in, NO_SECOND */
    uint64_t addr;    /* the frame's address in this sample */
};

/* A sample's weight in one second (packed: there are many). */
struct tb_ent {
    uint32_t stack;   /* trie node of the sample */
    uint32_t count_lo, count_hi;  /* the weight, split to keep 12 bytes */
};

struct tbucket {
    uint64_t sec;         /* second held, NO_SECOND when never used */
    uint64_t samples;     /* sum of the weights */
    struct tb_ent *e;     /* entries, dense */
    size_t n, cap;
};

static uint64_t ent_count(const struct tb_ent *e)
{
    return (uint64_t)e->count_hi << 32 | e->count_lo;
}

static void ent_add(struct tb_ent *e, uint64_t count)
{
    uint64_t c = ent_count(e) + count;

    e->count_lo = (uint32_t)c;
    e->count_hi = (uint32_t)(c >> 32);
}

struct profile_time {
    uint32_t nb;          /* buckets in the ring */
    struct tbucket *b;    /* the ring: second s in b[s % nb] */
    bool any;             /* a time was seen */
    uint64_t now_ns;      /* newest time seen */
    uint64_t newest;      /* now_ns's second */
    int64_t wall_offset;  /* wall-clock ns = time + wall_offset */
    struct tnode *tn;     /* trie nodes by id */
    size_t ntn, tn_cap;
    struct idtab tix;     /* (parent, frame, line, addr) -> trie node */
};

/* --- the trie ------------------------------------------------------------- */

static uint64_t tnode_hash(uint32_t parent, uint32_t frame, uint32_t line,
                           uint64_t addr)
{
    return util_mix64(((uint64_t)parent << 32 | frame) ^
                      util_mix64(addr ^ ((uint64_t)line << 40)));
}

struct tprobe {
    const struct profile_time *t;
    const struct tnode *k;
};

static int tnode_eq(void *ctx, uint32_t id)
{
    const struct tprobe *q = ctx;
    const struct tnode *a = &q->t->tn[id], *k = q->k;

    return a->parent == k->parent && a->frame == k->frame &&
           a->line == k->line && a->addr == k->addr;
}

/* The child of `k->parent` keyed as k, created if new (room reserved).
 * A sample's stack mostly repeats the path of the one before it, so the
 * parent's hint answers most steps without a probe. */
static uint32_t trie_step(struct profile_time *t, const struct tnode *k)
{
    struct tprobe q = { t, k };
    uint32_t *hint = k->parent != TRIE_TOP ? &t->tn[k->parent].hint : NULL;
    uint64_t h;
    uint32_t id;

    if (hint && *hint != TRIE_TOP && tnode_eq(&q, *hint))
        return *hint;
    h = tnode_hash(k->parent, k->frame, k->line, k->addr);
    id = idtab_find(&t->tix, h, tnode_eq, &q);
    if (id == IDTAB_NONE) {
        id = (uint32_t)t->ntn++;
        t->tn[id] = *k;
        t->tn[id].last_sec = NO_SECOND;
        t->tn[id].hint = TRIE_TOP;
        (void)idtab_insert(&t->tix, h, id);
    }
    if (hint)
        *hint = id;
    return id;
}

/* The trie node of a sample (room for n + 1 nodes reserved). */
static uint32_t trie_add(struct profile_time *t, uint32_t thread,
                         const struct stack_frame *frames, size_t n)
{
    struct tnode k = { .parent = TRIE_TOP, .frame = thread, .thread = thread };
    uint32_t node = trie_step(t, &k);

    for (size_t i = 0; i < n; i++) {
        k = (struct tnode){ .parent = node, .frame = frames[i].frame,
                            .line = frames[i].line, .addr = frames[i].addr,
                            .thread = thread, .depth = (uint32_t)i + 1 };
        node = trie_step(t, &k);
    }
    return node;
}

/* --- the ring ------------------------------------------------------------- */

static bool sec_held(const struct profile_time *t, uint64_t s)
{
    return t->any && s <= t->newest && t->newest - s < t->nb &&
           t->b[s % t->nb].sec == s;
}

/* The bucket of second s, emptied if it held an older second. */
static struct tbucket *bucket_for(struct profile_time *t, uint64_t s)
{
    struct tbucket *b = &t->b[s % t->nb];

    if (b->sec != s) {
        b->sec = s;
        b->samples = 0;
        b->n = 0;
    }
    return b;
}

static int bucket_reserve(struct tbucket *b, size_t extra)
{
    return VEC_RESERVE(b->e, b->cap, b->n + extra);
}

/* Count `count` of sample `stack` in b (room reserved): in its entry when
 * this second already has one, else in a new one. */
static void bucket_count(struct profile_time *t, struct tbucket *b,
                         uint32_t stack, uint64_t count)
{
    struct tnode *k = &t->tn[stack];

    if (k->last_sec != b->sec || k->last_entry >= b->n ||
        b->e[k->last_entry].stack != stack) {
        k->last_sec = b->sec;
        k->last_entry = (uint32_t)b->n;
        b->e[b->n++] = (struct tb_ent){ .stack = stack };
    }
    ent_add(&b->e[k->last_entry], count);
    b->samples += count;
}

static void bucket_free(struct tbucket *b)
{
    free(b->e);
}

/* Move now to t_ns; true when its second is newer than before. */
static bool ring_advance(struct profile_time *t, uint64_t t_ns)
{
    uint64_t s = t_ns / WINDOW_NS_PER_S;
    bool moved = !t->any || s > t->newest;

    if (!t->any || t_ns > t->now_ns)
        t->now_ns = t_ns;
    if (moved)
        t->newest = s;
    t->any = true;
    return moved;
}

/* --- lifecycle (profile_life.c calls these) ------------------------------- */

void profile_time_free(struct profile_time *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nb; i++)
        bucket_free(&t->b[i]);
    free(t->b);
    free(t->tn);
    idtab_free(&t->tix);
    free(t);
}

void profile_time_footprint(const struct profile_time *t, uint64_t *trie,
                            uint64_t *entries, uint64_t *bytes)
{
    *trie = *entries = *bytes = 0;
    if (!t)
        return;
    *trie = t->ntn;
    *bytes = sizeof(*t) + t->nb * sizeof(*t->b) + t->tn_cap * sizeof(*t->tn) +
             idtab_bytes(&t->tix);
    for (uint32_t i = 0; i < t->nb; i++) {
        *entries += sec_held(t, t->b[i].sec) ? t->b[i].n : 0;
        *bytes += t->b[i].cap * sizeof(*t->b[i].e);
    }
}

void profile_time_frames(const struct profile_time *t, bool *used,
                         uint32_t nframes)
{
    for (size_t i = 0; t && i < t->ntn; i++)
        if (t->tn[i].parent != TRIE_TOP && t->tn[i].frame < nframes)
            used[t->tn[i].frame] = true;
}

void profile_time_clear(struct profile_time *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nb; i++) {
        t->b[i].sec = NO_SECOND;
        t->b[i].samples = 0;
        t->b[i].n = 0;
    }
    t->ntn = 0;
    idtab_clear(&t->tix);
    t->any = false;
    t->now_ns = t->newest = 0;
}

static struct profile_time *ring_new(uint32_t nb)
{
    struct profile_time *t = calloc(1, sizeof(*t));

    if (!t || !(t->b = calloc(nb, sizeof(*t->b)))) {
        free(t);
        return NULL;
    }
    t->nb = nb;
    for (uint32_t i = 0; i < nb; i++)
        t->b[i].sec = NO_SECOND;
    return t;
}

/* dst->time: an empty ring of src's size and times (NULL without one in
 * src).  0, or -1 on OOM. */
static int ring_like(struct profile *dst, const struct profile *src)
{
    const struct profile_time *s = src->time;
    struct profile_time *t;

    dst->time = NULL;
    if (!s)
        return 0;
    if (!(t = ring_new(s->nb)))
        return -1;
    dst->time = t;
    t->any = s->any;
    t->now_ns = s->now_ns;
    t->newest = s->newest;
    t->wall_offset = s->wall_offset;
    return 0;
}

int profile_time_copy(struct profile *dst, const struct profile *src)
{
    const struct profile_time *s = src->time;
    struct profile_time *t;

    if (ring_like(dst, src) < 0)
        return -1;
    if (!(t = dst->time))
        return 0;
    if (VEC_RESERVE(t->tn, t->tn_cap, s->ntn ? s->ntn : 1) < 0 ||
        idtab_copy(&t->tix, &s->tix) < 0)
        return -1;
    if (s->ntn)   /* s->tn may be NULL when empty: no memcpy(NULL, 0) */
        memcpy(t->tn, s->tn, s->ntn * sizeof(*t->tn));
    t->ntn = s->ntn;
    for (uint32_t i = 0; i < s->nb; i++) {
        const struct tbucket *a = &s->b[i];
        struct tbucket *b = &t->b[i];

        if (!sec_held(s, a->sec))
            continue;  /* dropped already: not worth copying */
        if (VEC_RESERVE(b->e, b->cap, a->n ? a->n : 1) < 0)
            return -1;
        if (a->n)
            memcpy(b->e, a->e, a->n * sizeof(*b->e));
        b->n = a->n;
        b->sec = a->sec;
        b->samples = a->samples;
    }
    return 0;
}

/* How remap_node maps: threads through tmap, frames through fmap (NULL:
 * as they are). */
struct remap {
    const uint32_t *tmap, *fmap;
};

/* The trie node of dst standing for src's node `old` once its thread
 * and frames moved (m): created with its parents (room reserved).
 * newid memoizes (TRIE_TOP: not yet); a loop, not recursion, so a deep
 * stack costs no C stack. */
static uint32_t remap_node(struct profile_time *t, const struct profile_time *s,
                           const struct remap *m, uint32_t *newid,
                           uint32_t *chain, uint32_t old)
{
    size_t n = 0;

    /* up to the first node already mapped, or the root */
    for (uint32_t k = old; k != TRIE_TOP && newid[k] == TRIE_TOP;
         k = s->tn[k].parent)
        chain[n++] = k;
    while (n > 0) {
        uint32_t k = chain[--n];
        const struct tnode *o = &s->tn[k];
        uint32_t th = m->tmap[o->thread];
        struct tnode key = {
            .parent = o->parent == TRIE_TOP ? TRIE_TOP : newid[o->parent],
            .frame = o->parent == TRIE_TOP ? th
                     : m->fmap               ? m->fmap[o->frame]
                                             : o->frame,
            .line = o->line, .addr = o->addr, .thread = th,
            .depth = o->depth,
        };

        newid[k] = trie_step(t, &key);
    }
    return newid[old];
}

int profile_time_remap(struct profile *dst, const struct profile *src,
                       const uint32_t *tmap, const uint32_t *fmap)
{
    const struct remap m = {tmap, fmap};
    const struct profile_time *s = src->time;
    struct profile_time *t;
    uint32_t *newid = NULL, *chain = NULL;
    int rc = -1;

    if (ring_like(dst, src) < 0)
        return -1;
    if (!(t = dst->time))
        return 0;
    newid = malloc((s->ntn ? s->ntn : 1) * sizeof(*newid));
    chain = malloc((s->ntn ? s->ntn : 1) * sizeof(*chain));
    if (!newid || !chain ||
        VEC_RESERVE(t->tn, t->tn_cap, s->ntn ? s->ntn : 1) < 0 ||
        idtab_reserve(&t->tix, s->ntn) < 0)
        goto out;
    for (size_t i = 0; i < s->ntn; i++)
        newid[i] = TRIE_TOP;
    for (uint32_t i = 0; i < s->nb; i++) {
        const struct tbucket *a = &s->b[i];
        struct tbucket *b;

        if (!sec_held(s, a->sec))
            continue;
        b = bucket_for(t, a->sec);
        if (bucket_reserve(b, a->n ? a->n : 1) < 0)
            goto out;
        for (size_t e = 0; e < a->n; e++)
            bucket_count(t, b, remap_node(t, s, &m, newid, chain,
                                          a->e[e].stack),
                         ent_count(&a->e[e]));
    }
    rc = 0;
out:
    free(newid);
    free(chain);
    if (rc < 0) {
        profile_time_free(t);
        dst->time = NULL;
    }
    return rc;
}

/* --- public --------------------------------------------------------------- */

int profile_time_enable(struct profile *p, uint32_t seconds)
{
    struct profile_time *t;

    if (seconds < 1)
        seconds = 1;
    if (seconds > WINDOW_MAX_SECONDS)
        seconds = WINDOW_MAX_SECONDS;
    if (!(t = ring_new(seconds)))
        return -1;
    if (p->time)
        t->wall_offset = p->time->wall_offset;
    profile_time_free(p->time);
    p->time = t;
    return 0;
}

bool profile_time_enabled(const struct profile *p)
{
    return p && p->time;
}

void profile_time_set_wall_offset(struct profile *p, int64_t offset_ns)
{
    if (p->time)
        p->time->wall_offset = offset_ns;
}

int64_t profile_time_wall_offset(const struct profile *p)
{
    return p->time ? p->time->wall_offset : 0;
}

int profile_add_weighted_at(struct profile *p, uint32_t thread,
                            const struct stack_frame *frames, size_t n,
                            uint64_t samples, uint64_t weight, uint64_t t_ns)
{
    struct profile_time *t = p ? p->time : NULL;
    uint64_t s = t_ns / WINDOW_NS_PER_S;
    struct tbucket *b;

    if (!t)
        return profile_add_weighted(p, thread, frames, n, samples, weight);
    if (weight && (!t->any || s > t->newest || t->newest - s < t->nb)) {
        /* Reserve the trie and the bucket first: the tree then either
         * takes the sample whole or not at all, and the ring follows. */
        if (t->ntn + n + 1 > ID_LIMIT ||
            VEC_RESERVE(t->tn, t->tn_cap, t->ntn + n + 1) < 0 ||
            idtab_reserve(&t->tix, t->ntn + n + 1) < 0)
            return -1;
        ring_advance(t, t_ns);
        b = bucket_for(t, s);
        if (bucket_reserve(b, 1) < 0)
            return -1;
        if (profile_add_weighted(p, thread, frames, n, samples, weight) < 0)
            return -1;
        bucket_count(t, b, trie_add(t, thread, frames, n), weight);
        return 0;
    }
    return profile_add_weighted(p, thread, frames, n, samples, weight);
}

int profile_add_stack_at(struct profile *p, uint32_t thread,
                         const struct stack_frame *frames, size_t n,
                         uint64_t count, uint64_t t_ns)
{
    return profile_add_weighted_at(p, thread, frames, n, count, count, t_ns);
}

void profile_time_map(struct profile *p, profile_weight_map_fn fn,
                      uint64_t k)
{
    struct profile_time *t = p->time;

    for (uint32_t i = 0; t && i < t->nb; i++) {
        struct tbucket *b = &t->b[i];

        b->samples = 0;
        for (size_t e = 0; e < b->n; e++) {
            uint64_t w = fn(p, ent_count(&b->e[e]), k);

            b->e[e].count_lo = (uint32_t)w;
            b->e[e].count_hi = (uint32_t)(w >> 32);
            b->samples += w;
        }
    }
}

int profile_time_fit(struct profile *p)
{
    struct profile_time *t = p ? p->time : NULL, *f;
    uint64_t oldest = UINT64_MAX;

    if (!t || !t->any)
        return 0;
    for (uint32_t i = 0; i < t->nb; i++)
        if (sec_held(t, t->b[i].sec) && t->b[i].n && t->b[i].sec < oldest)
            oldest = t->b[i].sec;
    if (oldest == UINT64_MAX)
        oldest = t->newest;
    if (!(f = ring_new((uint32_t)(t->newest - oldest + 1))))
        return -1;
    /* The buckets move over whole: entries, index and all. */
    for (uint32_t i = 0; i < t->nb; i++) {
        struct tbucket *b = &t->b[i];

        if (sec_held(t, b->sec) && b->sec >= oldest) {
            f->b[b->sec % f->nb] = *b;
            *b = (struct tbucket){ .sec = NO_SECOND };
        }
    }
    for (uint32_t i = 0; i < t->nb; i++)
        bucket_free(&t->b[i]);
    free(t->b);
    t->b = f->b;
    t->nb = f->nb;
    free(f);
    t->now_ns = (t->newest + 1) * WINDOW_NS_PER_S - 1;
    return 0;
}

bool profile_time_advance(struct profile *p, uint64_t t_ns)
{
    return p && p->time && ring_advance(p->time, t_ns);
}

void profile_time_span(const struct profile *p, struct profile_timespan *out)
{
    const struct profile_time *t = p ? p->time : NULL;

    memset(out, 0, sizeof(*out));
    if (!t)
        return;
    out->on = true;
    out->seconds = t->nb;
    if (!t->any)
        return;
    out->any = true;
    out->now_ns = t->now_ns;
    out->last = t->newest;
    out->first = t->newest + 1 >= t->nb ? t->newest + 1 - t->nb : 0;
}

uint64_t profile_time_series(const struct profile *p, uint32_t thread,
                             uint64_t first, uint32_t n, uint64_t *out)
{
    const struct profile_time *t = p ? p->time : NULL;
    uint64_t max = 0;

    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = first + i, v = 0;
        const struct tbucket *b;

        out[i] = 0;
        if (!t || !sec_held(t, s))
            continue;
        b = &t->b[s % t->nb];
        if (thread == PROFILE_NONE) {
            v = b->samples;
        } else {
            for (size_t e = 0; e < b->n; e++)
                if (t->tn[b->e[e].stack].thread == thread)
                    v += ent_count(&b->e[e]);
        }
        out[i] = v;
        if (v > max)
            max = v;
    }
    return max;
}

void profile_time_recent(const struct profile *p, uint32_t secs,
                         uint64_t *from, uint64_t *to)
{
    const struct profile_time *t = p ? p->time : NULL;
    uint64_t span = (uint64_t)secs * WINDOW_NS_PER_S;

    *from = 1;
    *to = 0;
    if (!t || !t->any)
        return;
    *to = t->newest;
    /* The first bucket that starts at or after now - secs. */
    *from = t->now_ns >= span
                ? (t->now_ns - span + WINDOW_NS_PER_S - 1) / WINDOW_NS_PER_S
                : 0;
}

/* Counts of every sample over seconds from..to, by trie node: a calloc'd
 * array of t->ntn (at least 1) entries, NULL on OOM. */
static uint64_t *range_counts(const struct profile_time *t, uint64_t from,
                              uint64_t to)
{
    uint64_t *acc = calloc(t->ntn ? t->ntn : 1, sizeof(*acc));

    if (!acc)
        return NULL;
    for (uint32_t i = 0; i < t->nb; i++) {
        const struct tbucket *b = &t->b[i];

        if (!sec_held(t, b->sec) || b->sec < from || b->sec > to)
            continue;
        for (size_t e = 0; e < b->n; e++)
            acc[b->e[e].stack] += ent_count(&b->e[e]);
    }
    return acc;
}

/* The frames of trie node `id`, bottom first, into out (room for its
 * depth). */
static void trie_frames(const struct profile_time *t, uint32_t id,
                        struct stack_frame *out)
{
    for (const struct tnode *k = &t->tn[id]; k->parent != TRIE_TOP;
         k = &t->tn[k->parent])
        out[k->depth - 1] = (struct stack_frame){ k->frame, k->line,
                                                  k->addr };
}

int profile_time_range(const struct profile *p, uint64_t from, uint64_t to,
                       profile_time_range_fn fn, void *ctx)
{
    const struct profile_time *t = p->time;
    struct stack_frame *buf;
    uint64_t *acc;
    int rc = 0;

    if (!t)
        return 0;
    acc = range_counts(t, from, to);
    buf = malloc((p->max_depth + 1) * sizeof(*buf));
    if (!acc || !buf)
        rc = -1;
    for (size_t id = 0; rc == 0 && id < t->ntn; id++) {
        const struct tnode *k = &t->tn[id];

        if (!acc[id])
            continue;
        trie_frames(t, (uint32_t)id, buf);
        rc = fn(ctx, k->thread, buf, k->depth, acc[id]);
    }
    free(acc);
    free(buf);
    return rc;
}

void profile_time_range_meta(const struct profile *p, uint64_t from,
                             uint64_t to, struct profile_meta *meta)
{
    const struct profile_time *t = p->time;

    if (t && from <= to && t->any) {
        uint64_t hi = to < t->newest ? to : t->newest;
        uint64_t end = hi == t->newest ? t->now_ns
                                       : (hi + 1) * WINDOW_NS_PER_S;
        uint64_t start = from * WINDOW_NS_PER_S;

        meta->start_ns = (uint64_t)((int64_t)start + t->wall_offset);
        meta->duration_ns = end > start ? end - start : 0;
    } else {
        meta->duration_ns = 0;
    }
}

/* --- the timed stacks, for writers ---------------------------------------- */

/* A (tree node, second, count) of the ring. */
struct timed {
    uint32_t node;
    uint64_t sec;
    uint64_t count;
};

static int cmp_timed(const void *a, const void *b)
{
    const struct timed *x = a, *y = b;

    return util_cmp_pair(x->node, x->sec, y->node, y->sec);
}

struct timed_walk {
    const struct profile *p;
    profile_time_stack_fn fn;
    void *ctx;
    const struct timed *v;   /* sorted by node, then second */
    const uint32_t *first;   /* tree node -> its first entry in v, or NONE */
    size_t nv;
};

/* A stack of the tree with samples: its timed counts, then what the ring
 * does not hold. */
static int timed_stack(void *ctx, uint32_t thread, uint32_t node,
                       const uint32_t *frames, size_t n)
{
    struct timed_walk *w = ctx;
    uint64_t self = w->p->nodes[node].self, timed = 0;
    int rc;

    if (!self)
        return 0;
    for (size_t i = w->first[node] == PROFILE_NONE ? w->nv : w->first[node];
         i < w->nv && w->v[i].node == node; i++) {
        if (!w->v[i].count)
            continue;
        timed += w->v[i].count;
        rc = w->fn(w->ctx, thread, frames, n, w->v[i].sec, w->v[i].count);
        if (rc)
            return rc;
    }
    return self > timed ? w->fn(w->ctx, thread, frames, n, NO_SECOND,
                                self - timed)
                        : 0;
}

/* The ring's counts per (tree node, second), sorted, into *out (malloc'd,
 * may be NULL when none) and *n.  0, or -1 on OOM. */
static int timed_collect(const struct profile *p, struct timed **out,
                         size_t *n)
{
    const struct profile_time *t = p->time;
    uint32_t *tree_of = malloc((t->ntn ? t->ntn : 1) * sizeof(*tree_of));
    struct timed *v = NULL;
    size_t nv = 0, cap = 0;

    *out = NULL;
    *n = 0;
    if (!tree_of)
        return -1;
    /* Parents come before children in the trie, so one pass maps each
     * trie node to the tree node of the same frames. */
    for (size_t id = 0; id < t->ntn; id++) {
        const struct tnode *k = &t->tn[id];

        tree_of[id] = k->parent == TRIE_TOP
                          ? (k->thread < p->nthreads ? p->th[k->thread].node
                                                     : PROFILE_NONE)
                      : tree_of[k->parent] == PROFILE_NONE
                          ? PROFILE_NONE
                          : profile_tree_find(p, tree_of[k->parent], k->frame);
    }
    for (uint32_t i = 0; i < t->nb; i++) {
        const struct tbucket *b = &t->b[i];

        if (!sec_held(t, b->sec))
            continue;
        if (VEC_RESERVE(v, cap, nv + b->n) < 0) {
            free(v);
            free(tree_of);
            return -1;
        }
        for (size_t e = 0; e < b->n; e++)
            if (tree_of[b->e[e].stack] != PROFILE_NONE)
                v[nv++] = (struct timed){ tree_of[b->e[e].stack], b->sec,
                                          ent_count(&b->e[e]) };
    }
    free(tree_of);
    if (nv > 1)
        sorted_sort(v, nv, sizeof(*v), cmp_timed);
    /* One entry per (node, second): samples that differ only in lines or
     * addresses share a tree stack. */
    size_t w = 0;
    for (size_t i = 0; i < nv; i++) {
        if (w && v[w - 1].node == v[i].node && v[w - 1].sec == v[i].sec)
            v[w - 1].count += v[i].count;
        else
            v[w++] = v[i];
    }
    *out = v;
    *n = w;
    return 0;
}

int profile_time_foreach(const struct profile *p, profile_time_stack_fn fn,
                         void *ctx)
{
    struct timed_walk w = { .p = p, .fn = fn, .ctx = ctx };
    uint32_t *first = NULL;
    struct timed *v = NULL;
    int rc = -1;

    if (p->time && timed_collect(p, &v, &w.nv) < 0)
        return -1;
    if ((first = malloc(p->nnodes * sizeof(*first)))) {
        memset(first, 0xff, p->nnodes * sizeof(*first));
        for (size_t i = w.nv; i-- > 0;)
            first[v[i].node] = (uint32_t)i;
        w.v = v;
        w.first = first;
        rc = profile_tree_stacks(p, timed_stack, &w);
    }
    free(v);
    free(first);
    return rc;
}
