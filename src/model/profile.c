/* profile.c - the aggregate: interned strings and frames, one call tree,
 * per-function line/address counts, and the views derived from them.
 *
 * Called by the collector (profile_add_stack, ~10k times a second with
 * 20-500 frames), by the loaders, and read by the UI and exporters through
 * clones and derived profiles.  See profile.h for the model.
 *
 * Storage: every table is a dense array indexed by id plus an
 * open-addressing index (linear probing, power-of-two size, load <= 3/4,
 * no deletions).  Arrays grow geometrically, so steady-state ingest of
 * known stacks allocates nothing.  Strings are interned into a chunked
 * arena, so frames and threads compare strings by id and a clone copies
 * each distinct string once.
 */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define STR_NULL 0xfffffffeu      /* string id of a NULL string */
#define ID_LIMIT 0x7fffffffu      /* ids stay far below PROFILE_NONE */
#define ARENA_CHUNK (64u * 1024u) /* most frames are short; 64 KiB chunks
                                     keep malloc calls rare */

/* An index of dense ids 0..n-1: slot holds an id or PROFILE_NONE. */
struct idtab {
    uint32_t *slot; /* mask + 1 entries */
    uint32_t mask;  /* size - 1; size is a power of two */
};

struct chunk {
    struct chunk *next; /* older chunk */
    size_t used;        /* bytes used in data */
    size_t cap;         /* bytes available in data */
    char data[];
};

/* Child index entry.  Ingest is bound by cache misses, so the slot keeps
 * the key (a probe need not read the node) and, as hints, the line and
 * address counters this node's frame used last time (a caller's return
 * address rarely changes), which saves two index probes per frame. */
struct cslot {
    uint32_t parent; /* parent node id */
    uint32_t frame;  /* child's frame id */
    uint32_t node;   /* child node id, PROFILE_NONE when empty */
    uint32_t line_e; /* hint: lines entry last used here, or NONE */
    uint32_t addr_e; /* hint: addrs entry last used here, or NONE */
};

/* A (frame, line) or (frame, address) counter: 32 bytes, as there can be
 * one per node of the tree. */
struct lcent {
    uint32_t frame;  /* function */
    uint32_t stamp;  /* add_stack call that last counted total */
    uint64_t key;    /* line or address */
    uint64_t self;   /* samples with this as the leaf's line/address */
    uint64_t total;  /* samples containing it, once per sample */
};

struct lcmap {
    struct lcent *e; /* dense entries */
    uint32_t n;      /* entries used */
    uint32_t cap;    /* entries allocated */
    struct idtab ix; /* index over e by (frame, key) */
};

/* Strings ids of a frame's identity, parallel to the frame_desc array. */
struct frame_ids {
    uint32_t name;   /* string id */
    uint32_t module; /* string id or STR_NULL */
    uint32_t file;   /* string id or STR_NULL */
};

struct profile {
    /* strings */
    struct chunk *arena;     /* newest chunk first */
    char **str;              /* string by id (points into the arena) */
    uint64_t *str_hash;      /* hash by id, for rehashing */
    uint32_t nstr;           /* strings interned */
    uint32_t str_cap;        /* allocated entries of str/str_hash */
    struct idtab str_ix;     /* index over str */

    /* frames */
    struct frame_desc *fd;   /* frame by id, strings into the arena */
    struct frame_ids *fid;   /* string ids of each frame's identity */
    uint32_t nframes;        /* frames interned */
    uint32_t frames_cap;     /* allocated entries of fd/fid */
    struct idtab frame_ix;   /* index over (kind, name, module, file) */

    /* threads */
    struct profile_thread *th; /* thread by index */
    uint32_t *th_name;       /* string id of each thread's current name */
    uint32_t nthreads;       /* threads created */
    uint32_t threads_cap;    /* allocated entries of th/th_name */
    struct idtab tid_ix;     /* index over tid */

    /* call tree */
    struct profile_node *nodes; /* node by id, 0 is the root */
    uint32_t nnodes;         /* nodes used */
    uint32_t nodes_cap;      /* nodes allocated (also of last_child) */
    uint32_t *last_child;    /* by node: its newest child, so children
                                stay in first-seen order and a loaded
                                file's stacks come back out in its order */
    struct cslot *cs;        /* child index keyed (parent, frame) */
    uint32_t cs_mask;        /* child index size - 1 */
    uint32_t max_depth;      /* deepest node's depth */
    uint64_t samples;        /* sum of all self counts */

    /* per-function counts */
    struct lcmap lines;      /* keyed (frame, line) */
    struct lcmap addrs;      /* keyed (frame, address) */
    uint32_t stamp;          /* add_stack call counter for dedup; never 0
                                after the first call */

    /* metadata; strings are interned */
    struct profile_meta meta; /* what profile_meta returns */
    uint32_t meta_cmdline;   /* string id or STR_NULL */
    uint32_t meta_comm;      /* string id or STR_NULL */
};

/* --- generic growth ------------------------------------------------------ */

/* Make room for `need` elements in *arr (capacity *cap, doubling). */
static int grow(void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    uint64_t nc;
    void *n;

    if (need <= *cap)
        return 0;
    if (need > ID_LIMIT)
        return -1;
    nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    if (nc > (uint64_t)ID_LIMIT + 1)
        nc = (uint64_t)ID_LIMIT + 1;
    n = realloc(*arr, (size_t)nc * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = (uint32_t)nc;
    return 0;
}

/* Table size (power of two) that holds n entries at load <= 3/4. */
static uint64_t table_size_for(uint64_t n)
{
    uint64_t size = 16;

    while (size * 3 < n * 4 + 4)
        size *= 2;
    return size;
}

typedef uint64_t (*hash_of_fn)(const struct profile *p, const void *tab,
                               uint32_t id);

/* Ensure t can hold `want` ids; when it grows, ids first..count-1 are
 * reinserted using hash_of.  0 or -1 on OOM (t unchanged). */
static int idtab_reserve(struct idtab *t, uint64_t want, uint32_t first,
                         uint32_t count, hash_of_fn hash_of,
                         const struct profile *p, const void *tab)
{
    uint64_t size = table_size_for(want);
    uint32_t *slot;

    if (t->slot && size <= (uint64_t)t->mask + 1)
        return 0;
    if (size > (uint64_t)1 << 32)
        return -1;
    slot = malloc((size_t)size * sizeof(*slot));
    if (!slot)
        return -1;
    memset(slot, 0xff, (size_t)size * sizeof(*slot));
    for (uint32_t id = first; id < count; id++) {
        uint64_t i = hash_of(p, tab, id) & (size - 1);

        while (slot[i] != PROFILE_NONE)
            i = (i + 1) & (size - 1);
        slot[i] = id;
    }
    free(t->slot);
    t->slot = slot;
    t->mask = (uint32_t)(size - 1);
    return 0;
}

static void idtab_insert(struct idtab *t, uint64_t hash, uint32_t id)
{
    uint32_t i = (uint32_t)hash & t->mask;

    while (t->slot[i] != PROFILE_NONE)
        i = (i + 1) & t->mask;
    t->slot[i] = id;
}

static int idtab_copy(struct idtab *dst, const struct idtab *src)
{
    size_t bytes = ((size_t)src->mask + 1) * sizeof(*src->slot);

    dst->mask = src->mask;
    dst->slot = malloc(bytes);
    if (!dst->slot)
        return -1;
    memcpy(dst->slot, src->slot, bytes);
    return 0;
}

/* --- strings ------------------------------------------------------------- */

static uint64_t str_hash_of(const struct profile *p, const void *tab,
                            uint32_t id)
{
    (void)tab;
    return p->str_hash[id];
}

static uint32_t str_find(const struct profile *p, const char *s, size_t len,
                         uint64_t h)
{
    uint32_t i = (uint32_t)h & p->str_ix.mask;

    for (;;) {
        uint32_t id = p->str_ix.slot[i];

        if (id == PROFILE_NONE)
            return PROFILE_NONE;
        if (p->str_hash[id] == h && strncmp(p->str[id], s, len) == 0 &&
            p->str[id][len] == '\0')
            return id;
        i = (i + 1) & p->str_ix.mask;
    }
}

static char *arena_alloc(struct profile *p, size_t len)
{
    struct chunk *c = p->arena;

    if (!c || c->cap - c->used < len) {
        size_t cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;

        c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = p->arena;
        p->arena = c;
    }
    c->used += len;
    return c->data + c->used - len;
}

/* Id of string s (NULL gives STR_NULL), interning it if new;
 * PROFILE_NONE on OOM. */
static uint32_t str_intern(struct profile *p, const char *s)
{
    size_t len;
    uint64_t h;
    uint32_t id, cap;
    char *copy;

    if (!s)
        return STR_NULL;
    len = strlen(s);
    h = util_hash_bytes(s, len, 0);
    id = str_find(p, s, len, h);
    if (id != PROFILE_NONE)
        return id;
    cap = p->str_cap;
    if (grow((void **)&p->str, &cap, (uint64_t)p->nstr + 1, sizeof(*p->str)))
        return PROFILE_NONE;
    if (cap != p->str_cap) {
        /* str_cap covers both arrays: commit it once both have grown. */
        uint64_t *nh = realloc(p->str_hash, cap * sizeof(*nh));

        if (!nh)
            return PROFILE_NONE;
        p->str_hash = nh;
        p->str_cap = cap;
    }
    if (idtab_reserve(&p->str_ix, (uint64_t)p->nstr + 1, 0, p->nstr,
                      str_hash_of, p, NULL))
        return PROFILE_NONE;
    copy = arena_alloc(p, len + 1);
    if (!copy)
        return PROFILE_NONE;
    memcpy(copy, s, len + 1);
    id = p->nstr++;
    p->str[id] = copy;
    p->str_hash[id] = h;
    idtab_insert(&p->str_ix, h, id);
    return id;
}

/* Id of an existing string, STR_NULL for NULL, PROFILE_NONE if absent. */
static uint32_t str_lookup(const struct profile *p, const char *s)
{
    size_t len;

    if (!s)
        return STR_NULL;
    len = strlen(s);
    return str_find(p, s, len, util_hash_bytes(s, len, 0));
}

static const char *str_get(const struct profile *p, uint32_t id)
{
    return id == STR_NULL ? NULL : p->str[id];
}

/* --- frames -------------------------------------------------------------- */

static uint64_t frame_hash(uint32_t kind, const struct frame_ids *k)
{
    return util_mix64(((uint64_t)k->name << 32 | k->module) ^
                      util_mix64((uint64_t)k->file << 8 | kind));
}

static uint64_t frame_hash_of(const struct profile *p, const void *tab,
                              uint32_t id)
{
    (void)tab;
    return frame_hash(p->fd[id].kind, &p->fid[id]);
}

static uint32_t frame_find(const struct profile *p, uint32_t kind,
                           const struct frame_ids *k)
{
    uint32_t i = (uint32_t)frame_hash(kind, k) & p->frame_ix.mask;

    for (;;) {
        uint32_t id = p->frame_ix.slot[i];

        if (id == PROFILE_NONE)
            return PROFILE_NONE;
        if (p->fd[id].kind == kind && p->fid[id].name == k->name &&
            p->fid[id].module == k->module && p->fid[id].file == k->file)
            return id;
        i = (i + 1) & p->frame_ix.mask;
    }
}

uint32_t profile_intern_frame(struct profile *p, const struct frame_desc *d)
{
    struct frame_ids k;
    uint32_t id, cap;

    if (!p || !d || !d->name)
        return PROFILE_NONE;
    k.name = str_lookup(p, d->name);
    k.module = str_lookup(p, d->module);
    k.file = str_lookup(p, d->file);
    if (k.name != PROFILE_NONE && k.module != PROFILE_NONE &&
        k.file != PROFILE_NONE) {
        id = frame_find(p, d->kind, &k);
        if (id != PROFILE_NONE)
            return id;
    }
    k.name = str_intern(p, d->name);
    k.module = str_intern(p, d->module);
    k.file = str_intern(p, d->file);
    if (k.name == PROFILE_NONE || k.module == PROFILE_NONE ||
        k.file == PROFILE_NONE)
        return PROFILE_NONE;
    cap = p->frames_cap;
    if (grow((void **)&p->fd, &cap, (uint64_t)p->nframes + 1,
             sizeof(*p->fd)))
        return PROFILE_NONE;
    if (cap != p->frames_cap) {
        struct frame_ids *nf = realloc(p->fid, cap * sizeof(*nf));

        if (!nf)
            return PROFILE_NONE;
        p->fid = nf;
        p->frames_cap = cap;
    }
    if (idtab_reserve(&p->frame_ix, (uint64_t)p->nframes + 1, 0, p->nframes,
                      frame_hash_of, p, NULL))
        return PROFILE_NONE;
    id = p->nframes++;
    p->fd[id] = *d;
    p->fd[id].name = str_get(p, k.name);
    p->fd[id].module = str_get(p, k.module);
    p->fd[id].file = str_get(p, k.file);
    p->fid[id] = k;
    idtab_insert(&p->frame_ix, frame_hash(d->kind, &k), id);
    return id;
}

const struct frame_desc *profile_frame(const struct profile *p, uint32_t id)
{
    return p && id < p->nframes ? &p->fd[id] : NULL;
}

uint32_t profile_frame_count(const struct profile *p)
{
    return p ? p->nframes : 0;
}

/* --- call tree ----------------------------------------------------------- */

static uint64_t child_hash(uint32_t parent, uint32_t frame)
{
    return util_mix64((uint64_t)parent << 32 | frame);
}

/* Child node of (parent, frame), or PROFILE_NONE; *slot is set to its
 * slot, or to the empty slot where it would go. */
static uint32_t child_find(const struct profile *p, uint32_t parent,
                           uint32_t frame, uint32_t *slot)
{
    uint32_t i = (uint32_t)child_hash(parent, frame) & p->cs_mask;

    for (;;) {
        const struct cslot *s = &p->cs[i];

        if (s->node == PROFILE_NONE) {
            *slot = i;
            return PROFILE_NONE;
        }
        if (s->parent == parent && s->frame == frame) {
            *slot = i;
            return s->node;
        }
        i = (i + 1) & p->cs_mask;
    }
}

static void cs_clear(struct cslot *cs, uint32_t mask)
{
    for (uint64_t i = 0; i <= mask; i++)
        cs[i].node = PROFILE_NONE;
}

/* Make room for `extra` more nodes (array and child index), so that the
 * tree walks that follow cannot fail half-way. */
static int tree_reserve(struct profile *p, uint64_t extra)
{
    uint64_t want = (uint64_t)p->nnodes + extra;
    uint32_t cap = p->nodes_cap;
    uint64_t size;
    struct cslot *cs;

    if (want > ID_LIMIT)
        return -1;
    if (grow((void **)&p->nodes, &cap, want, sizeof(*p->nodes)))
        return -1;
    if (cap != p->nodes_cap) {
        uint32_t *lc = realloc(p->last_child, cap * sizeof(*lc));

        if (!lc)
            return -1;
        p->last_child = lc;
        p->nodes_cap = cap;
    }
    size = table_size_for(want);
    if (size <= (uint64_t)p->cs_mask + 1)
        return 0;
    cs = malloc((size_t)size * sizeof(*cs));
    if (!cs)
        return -1;
    cs_clear(cs, (uint32_t)(size - 1));
    for (uint32_t id = 1; id < p->nnodes; id++) {
        const struct profile_node *n = &p->nodes[id];
        uint64_t i = child_hash(n->parent, n->frame) & (size - 1);

        while (cs[i].node != PROFILE_NONE)
            i = (i + 1) & (size - 1);
        cs[i] = (struct cslot){ n->parent, n->frame, id, PROFILE_NONE,
                                PROFILE_NONE };
    }
    free(p->cs);
    p->cs = cs;
    p->cs_mask = (uint32_t)(size - 1);
    return 0;
}

/* Create a child; room must have been reserved. */
static uint32_t node_add(struct profile *p, uint32_t parent, uint32_t frame,
                         uint32_t slot)
{
    uint32_t id = p->nnodes++;
    struct profile_node *par = &p->nodes[parent];

    p->nodes[id] = (struct profile_node){
        .frame = frame,
        .parent = parent,
        .first_child = PROFILE_NONE,
        .next_sibling = PROFILE_NONE,
        .depth = par->depth + 1,
    };
    if (par->first_child == PROFILE_NONE)
        par->first_child = id;
    else
        p->nodes[p->last_child[parent]].next_sibling = id;
    p->last_child[parent] = id;
    if (p->nodes[id].depth > p->max_depth)
        p->max_depth = p->nodes[id].depth;
    p->cs[slot] = (struct cslot){ parent, frame, id, PROFILE_NONE,
                                  PROFILE_NONE };
    return id;
}

/* One step down the tree, creating the child if needed (room reserved),
 * adding count to its total.  *slot gets the child's index slot. */
static uint32_t tree_step(struct profile *p, uint32_t node, uint32_t frame,
                          uint64_t count, uint32_t *slot)
{
    uint32_t child = child_find(p, node, frame, slot);

    if (child == PROFILE_NONE)
        child = node_add(p, node, frame, *slot);
    p->nodes[child].total += count;
    return child;
}

/* Add a stack of plain frame ids below a thread node, or below the root
 * itself for a merged tree (tree only: no line/address counts).  Frames
 * must be valid.  0 or -1 on OOM, then nothing was added. */
static int tree_add(struct profile *p, uint32_t thread_node,
                    const uint32_t *frames, size_t n, uint64_t count)
{
    uint32_t node = thread_node;

    if (count == 0)
        return 0;
    if (n > ID_LIMIT || tree_reserve(p, n))
        return -1;
    p->nodes[PROFILE_ROOT].total += count;
    if (node != PROFILE_ROOT)
        p->nodes[node].total += count;
    for (size_t i = 0; i < n; i++) {
        uint32_t slot;

        node = tree_step(p, node, frames[i], count, &slot);
    }
    p->nodes[node].self += count;
    p->samples += count;
    return 0;
}

/* Root only, or root plus one fresh node per thread (ids 1..nthreads in
 * thread order), with empty counts. */
static void tree_rebuild(struct profile *p)
{
    p->nnodes = 1;
    p->nodes[0] = (struct profile_node){
        .frame = PROFILE_NONE,
        .parent = PROFILE_NONE,
        .first_child = PROFILE_NONE,
        .next_sibling = PROFILE_NONE,
    };
    p->max_depth = 0;
    p->samples = 0;
    cs_clear(p->cs, p->cs_mask);
    for (uint32_t t = 0; t < p->nthreads; t++) {
        uint32_t slot;

        (void)child_find(p, PROFILE_ROOT, p->th[t].frame, &slot);
        p->th[t].node = node_add(p, PROFILE_ROOT, p->th[t].frame, slot);
    }
}

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
    uint32_t slot;

    if (!p || parent >= p->nnodes)
        return PROFILE_NONE;
    return child_find(p, parent, frame, &slot);
}

size_t profile_node_path(const struct profile *p, uint32_t node,
                         uint32_t *out, size_t cap)
{
    size_t len;
    uint32_t top = node;

    if (!p || node >= p->nnodes || node == PROFILE_ROOT)
        return 0;
    while (p->nodes[top].depth > 1)
        top = p->nodes[top].parent;
    /* Below a thread node, or (merged tree) from the root's child. */
    len = p->nodes[node].depth -
          (p->fd[p->nodes[top].frame].kind == FRAME_THREAD ? 1 : 0);
    for (size_t i = len; i-- > 0; node = p->nodes[node].parent)
        if (i < cap)
            out[i] = p->nodes[node].frame;
    return len;
}

uint64_t profile_node_key(const struct profile *p, uint32_t node)
{
    uint64_t h = 0x5350524f46544f50ull; /* any fixed seed */

    if (!p || node >= p->nnodes)
        return 0;
    /* Hash leaf to root: the order is fixed, so equal paths give equal
     * keys in any profile that shares the frame ids. */
    for (; node != PROFILE_ROOT; node = p->nodes[node].parent)
        h = util_mix64(h ^ p->nodes[node].frame);
    return h;
}

/* Depth-first walk of the subtree below `top` (top excluded): enter(n)
 * before a node's children, leave(n) after them.  Stops when enter
 * returns non-zero and returns that value. */
typedef int (*enter_fn)(void *ctx, uint32_t node);
typedef void (*leave_fn)(void *ctx, uint32_t node);

static int tree_walk(const struct profile *p, uint32_t top, enter_fn enter,
                     leave_fn leave, void *ctx)
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
    profile_stack_fn fn;   /* user callback */
    void *ctx;             /* its context */
    uint32_t thread;       /* thread being walked */
    uint32_t *path;        /* frames bottom first, indexed depth - 2 */
};

static int stack_enter(void *ctx, uint32_t node)
{
    struct stack_walk *w = ctx;
    const struct profile_node *n = &w->p->nodes[node];

    w->path[n->depth - 2] = n->frame;
    if (n->self == 0)
        return 0;
    return w->fn(w->ctx, w->thread, w->path, n->depth - 1, n->self);
}

int profile_foreach_stack(const struct profile *p, profile_stack_fn fn,
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
        const struct profile_node *tn = &p->nodes[p->th[t].node];

        w.thread = t;
        if (tn->self)
            rc = fn(ctx, t, w.path, 0, tn->self);
        if (rc == 0)
            rc = tree_walk(p, p->th[t].node, stack_enter, NULL, &w);
    }
    if (w.path != small)
        free(w.path);
    return rc;
}

/* --- line / address counts ----------------------------------------------- */

static uint64_t lc_hash(uint32_t frame, uint64_t key)
{
    return util_mix64(key ^ util_mix64(frame));
}

static uint64_t lc_hash_of(const struct profile *p, const void *tab,
                           uint32_t id)
{
    const struct lcmap *m = tab;

    (void)p;
    return lc_hash(m->e[id].frame, m->e[id].key);
}

static int lc_reserve(struct lcmap *m, uint64_t extra)
{
    uint64_t want = (uint64_t)m->n + extra;

    if (grow((void **)&m->e, &m->cap, want, sizeof(*m->e)))
        return -1;
    return idtab_reserve(&m->ix, want, 0, m->n, lc_hash_of, NULL, m);
}

/* The counter of (frame, key), created if new; room must be reserved. */
static struct lcent *lc_get(struct lcmap *m, uint32_t frame, uint64_t key)
{
    uint64_t h = lc_hash(frame, key);
    uint32_t i = (uint32_t)h & m->ix.mask;
    uint32_t id;

    for (;;) {
        id = m->ix.slot[i];
        if (id == PROFILE_NONE)
            break;
        if (m->e[id].frame == frame && m->e[id].key == key)
            return &m->e[id];
        i = (i + 1) & m->ix.mask;
    }
    id = m->n++;
    m->e[id] = (struct lcent){ .frame = frame, .key = key };
    m->ix.slot[i] = id;
    return &m->e[id];
}

/* Count one stack's (frame, key); *hint is the entry this tree node used
 * last time, checked before probing the index. */
static void lc_count(struct lcmap *m, uint32_t frame, uint64_t key,
                     uint32_t stamp, uint64_t count, bool leaf,
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
        e->total += count;
    }
    if (leaf)
        e->self += count;
}

static void lc_clear(struct lcmap *m)
{
    m->n = 0;
    if (m->ix.slot)
        memset(m->ix.slot, 0xff, ((size_t)m->ix.mask + 1) * sizeof(uint32_t));
}

static int lc_copy(struct lcmap *dst, const struct lcmap *src)
{
    *dst = (struct lcmap){ 0 };
    if (idtab_copy(&dst->ix, &src->ix))
        return -1;
    dst->e = malloc((src->cap ? src->cap : 1) * sizeof(*dst->e));
    if (!dst->e)
        return -1;
    memcpy(dst->e, src->e, src->n * sizeof(*dst->e));
    dst->n = src->n;
    dst->cap = src->cap ? src->cap : 1;
    return 0;
}

static int lc_init(struct lcmap *m)
{
    *m = (struct lcmap){ 0 };
    return lc_reserve(m, 1);
}

/* Add src's counters into dst, mapping frame ids through fmap. */
static int lc_merge(struct lcmap *dst, const struct lcmap *src,
                    const uint32_t *fmap)
{
    if (lc_reserve(dst, src->n))
        return -1;
    for (uint32_t i = 0; i < src->n; i++) {
        struct lcent *e = lc_get(dst, fmap[src->e[i].frame], src->e[i].key);

        e->self += src->e[i].self;
        e->total += src->e[i].total;
    }
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
    for (uint32_t i = 0; i < m->n; i++)
        n += m->e[i].frame == frame;
    if (n == 0)
        return 0;
    *out = malloc((size_t)n * sizeof(**out));
    if (!*out)
        return -1;
    n = 0;
    for (uint32_t i = 0; i < m->n; i++)
        if (m->e[i].frame == frame)
            (*out)[n++] = (struct profile_linecount){
                m->e[i].key, m->e[i].self, m->e[i].total };
    qsort(*out, (size_t)n, sizeof(**out), cmp_linecount);
    return n;
}

/* --- threads ------------------------------------------------------------- */

static uint64_t tid_hash(int64_t tid)
{
    return util_mix64((uint64_t)tid);
}

static uint64_t tid_hash_of(const struct profile *p, const void *tab,
                            uint32_t id)
{
    (void)tab;
    return tid_hash(p->th[id].tid);
}

static uint32_t tid_find(const struct profile *p, int64_t tid)
{
    uint32_t i = (uint32_t)tid_hash(tid) & p->tid_ix.mask;

    for (;;) {
        uint32_t id = p->tid_ix.slot[i];

        if (id == PROFILE_NONE || p->th[id].tid == tid)
            return id;
        i = (i + 1) & p->tid_ix.mask;
    }
}

/* The FRAME_THREAD frame for a new thread: "NAME-TID", made unique with a
 * "#N" suffix in the odd case where another thread already uses that
 * name (e.g. "a-" with tid 1 and "a" with tid -1 both give "a--1"), since
 * thread nodes are keyed by frame under the root. */
static uint32_t thread_frame(struct profile *p, const char *name, int64_t tid)
{
    size_t cap = strlen(name) + 48;
    char *buf = malloc(cap);
    uint32_t id = PROFILE_NONE;

    if (!buf)
        return PROFILE_NONE;
    for (unsigned k = 1; k < 1000000; k++) {
        uint32_t slot;

        if (k == 1)
            snprintf(buf, cap, "%s-%lld", name, (long long)tid);
        else
            snprintf(buf, cap, "%s-%lld#%u", name, (long long)tid, k);
        id = profile_intern_frame(p, &(struct frame_desc){
                                         .name = buf, .kind = FRAME_THREAD });
        if (id == PROFILE_NONE ||
            child_find(p, PROFILE_ROOT, id, &slot) == PROFILE_NONE)
            break;
    }
    free(buf);
    return id;
}

/* After a rename (prctl, exec), give the thread's frame its new
 * "NAME-TID" so every view and format shows the current name.  Frame
 * identity is hashed, so the frame index is rebuilt (renames are rare);
 * on OOM or a clash with an existing frame the old name stays. */
static void rename_thread_frame(struct profile *p, uint32_t idx)
{
    const struct profile_thread *t = &p->th[idx];
    size_t cap = strlen(t->name) + 32;
    char *buf = malloc(cap);
    struct frame_ids k;
    struct idtab fresh = {0};

    if (!buf)
        return;
    snprintf(buf, cap, "%s-%lld", t->name, (long long)t->tid);
    k = p->fid[t->frame];
    k.name = str_intern(p, buf);
    free(buf);
    if (k.name == PROFILE_NONE || frame_find(p, FRAME_THREAD, &k) != PROFILE_NONE)
        return;
    uint32_t old = p->fid[t->frame].name;
    p->fid[t->frame].name = k.name;
    if (idtab_reserve(&fresh, p->nframes, 0, p->nframes, frame_hash_of, p,
                      NULL)) {
        p->fid[t->frame].name = old;
        return;
    }
    free(p->frame_ix.slot);
    p->frame_ix = fresh;
    p->fd[t->frame].name = str_get(p, k.name);
}

uint32_t profile_thread(struct profile *p, int64_t tid, const char *name)
{
    uint32_t idx, frame, slot, sid;

    if (!p)
        return PROFILE_NONE;
    idx = tid_find(p, tid);
    if (idx != PROFILE_NONE) {
        if (name && strcmp(name, p->th[idx].name) != 0) {
            sid = str_intern(p, name);
            if (sid == PROFILE_NONE)
                return PROFILE_NONE;
            p->th_name[idx] = sid;
            p->th[idx].name = p->str[sid];
            rename_thread_frame(p, idx);
        }
        return idx;
    }
    if (!name)
        name = "thread";
    sid = str_intern(p, name);
    if (sid == PROFILE_NONE)
        return PROFILE_NONE;
    frame = thread_frame(p, name, tid);
    if (frame == PROFILE_NONE)
        return PROFILE_NONE;
    {
        uint32_t cap = p->threads_cap;

        if (grow((void **)&p->th, &cap, (uint64_t)p->nthreads + 1,
                 sizeof(*p->th)))
            return PROFILE_NONE;
        if (cap != p->threads_cap) {
            uint32_t *nn = realloc(p->th_name, cap * sizeof(*nn));

            if (!nn)
                return PROFILE_NONE;
            p->th_name = nn;
            p->threads_cap = cap;
        }
    }
    if (idtab_reserve(&p->tid_ix, (uint64_t)p->nthreads + 1, 0, p->nthreads,
                      tid_hash_of, p, NULL) ||
        tree_reserve(p, 1))
        return PROFILE_NONE;
    (void)child_find(p, PROFILE_ROOT, frame, &slot);
    idx = p->nthreads++;
    p->th[idx] = (struct profile_thread){
        .tid = tid,
        .name = p->str[sid],
        .node = node_add(p, PROFILE_ROOT, frame, slot),
        .frame = frame,
    };
    p->th_name[idx] = sid;
    idtab_insert(&p->tid_ix, tid_hash(tid), idx);
    return idx;
}

uint32_t profile_thread_count(const struct profile *p)
{
    return p ? p->nthreads : 0;
}

const struct profile_thread *profile_thread_at(const struct profile *p,
                                               uint32_t idx)
{
    return p && idx < p->nthreads ? &p->th[idx] : NULL;
}

uint32_t profile_node_thread(const struct profile *p, uint32_t node)
{
    if (!p || node == PROFILE_ROOT || node >= p->nnodes)
        return PROFILE_NONE;
    while (p->nodes[node].depth > 1)
        node = p->nodes[node].parent;
    for (uint32_t t = 0; t < p->nthreads; t++)
        if (p->th[t].node == node)
            return t;
    return PROFILE_NONE;
}

/* --- lifecycle ----------------------------------------------------------- */

struct profile *profile_new(void)
{
    struct profile *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->meta_cmdline = p->meta_comm = STR_NULL;
    if (idtab_reserve(&p->str_ix, 1, 0, 0, str_hash_of, p, NULL) ||
        idtab_reserve(&p->frame_ix, 1, 0, 0, frame_hash_of, p, NULL) ||
        idtab_reserve(&p->tid_ix, 1, 0, 0, tid_hash_of, p, NULL) ||
        tree_reserve(p, 1) || lc_init(&p->lines) || lc_init(&p->addrs)) {
        profile_free(p);
        return NULL;
    }
    tree_rebuild(p);
    return p;
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    while (p->arena) {
        struct chunk *next = p->arena->next;

        free(p->arena);
        p->arena = next;
    }
    free(p->str);
    free(p->str_hash);
    free(p->str_ix.slot);
    free(p->fd);
    free(p->fid);
    free(p->frame_ix.slot);
    free(p->th);
    free(p->th_name);
    free(p->tid_ix.slot);
    free(p->nodes);
    free(p->last_child);
    free(p->cs);
    free(p->lines.e);
    free(p->lines.ix.slot);
    free(p->addrs.e);
    free(p->addrs.ix.slot);
    free(p);
}

void profile_reset(struct profile *p)
{
    if (!p)
        return;
    tree_rebuild(p);
    lc_clear(&p->lines);
    lc_clear(&p->addrs);
}

/* Duplicate array src of n elements (at least one allocated). */
static void *dup_array(const void *src, size_t n, size_t elem)
{
    void *d = malloc((n ? n : 1) * elem);

    if (d && n)
        memcpy(d, src, n * elem);
    return d;
}

/* Copy everything but the tree; with_tree copies the tree as well,
 * otherwise the copy gets empty thread nodes.  Ids of strings, frames and
 * threads are kept. */
static struct profile *profile_copy(const struct profile *p, bool with_tree)
{
    struct profile *q = calloc(1, sizeof(*q));
    size_t bytes = 0;
    char *dst;

    if (!q)
        return NULL;
    for (uint32_t i = 0; i < p->nstr; i++)
        bytes += strlen(p->str[i]) + 1;

    q->str_cap = p->nstr ? p->nstr : 1;
    q->str = malloc(q->str_cap * sizeof(*q->str));
    q->str_hash = dup_array(p->str_hash, p->nstr, sizeof(*q->str_hash));
    q->fd = dup_array(p->fd, p->nframes, sizeof(*q->fd));
    q->fid = dup_array(p->fid, p->nframes, sizeof(*q->fid));
    q->frames_cap = p->nframes ? p->nframes : 1;
    q->th = dup_array(p->th, p->nthreads, sizeof(*q->th));
    q->th_name = dup_array(p->th_name, p->nthreads, sizeof(*q->th_name));
    q->threads_cap = p->nthreads ? p->nthreads : 1;
    if (!q->str || !q->str_hash || !q->fd || !q->fid || !q->th ||
        !q->th_name || idtab_copy(&q->str_ix, &p->str_ix) ||
        idtab_copy(&q->frame_ix, &p->frame_ix) ||
        idtab_copy(&q->tid_ix, &p->tid_ix) ||
        lc_copy(&q->lines, &p->lines) || lc_copy(&q->addrs, &p->addrs))
        goto fail;
    dst = arena_alloc(q, bytes ? bytes : 1);
    if (!dst)
        goto fail;
    for (uint32_t i = 0; i < p->nstr; i++) {
        size_t len = strlen(p->str[i]) + 1;

        memcpy(dst, p->str[i], len);
        q->str[i] = dst;
        dst += len;
    }
    q->nstr = p->nstr;
    q->nframes = p->nframes;
    for (uint32_t i = 0; i < q->nframes; i++) {
        q->fd[i].name = str_get(q, q->fid[i].name);
        q->fd[i].module = str_get(q, q->fid[i].module);
        q->fd[i].file = str_get(q, q->fid[i].file);
    }
    q->nthreads = p->nthreads;
    for (uint32_t t = 0; t < q->nthreads; t++)
        q->th[t].name = q->str[q->th_name[t]];
    q->stamp = p->stamp;
    q->meta = p->meta;
    q->meta_cmdline = p->meta_cmdline;
    q->meta_comm = p->meta_comm;
    q->meta.cmdline = str_get(q, q->meta_cmdline);
    q->meta.comm = str_get(q, q->meta_comm);

    if (with_tree) {
        q->nodes = dup_array(p->nodes, p->nnodes, sizeof(*q->nodes));
        q->last_child = dup_array(p->last_child, p->nnodes,
                                  sizeof(*q->last_child));
        q->cs = dup_array(p->cs, (size_t)p->cs_mask + 1, sizeof(*q->cs));
        if (!q->nodes || !q->last_child || !q->cs)
            goto fail;
        q->nnodes = q->nodes_cap = p->nnodes;
        q->cs_mask = p->cs_mask;
        q->max_depth = p->max_depth;
        q->samples = p->samples;
    } else {
        if (tree_reserve(q, 1 + (uint64_t)q->nthreads))
            goto fail;
        tree_rebuild(q);
    }
    return q;
fail:
    profile_free(q);
    return NULL;
}

struct profile *profile_clone(const struct profile *p)
{
    return p ? profile_copy(p, true) : NULL;
}

/* --- metadata ------------------------------------------------------------ */

const struct profile_meta *profile_meta(const struct profile *p)
{
    return &p->meta;
}

int profile_set_meta(struct profile *p, const struct profile_meta *m)
{
    uint32_t cmd = str_intern(p, m->cmdline);
    uint32_t comm = str_intern(p, m->comm);

    if (cmd == PROFILE_NONE || comm == PROFILE_NONE)
        return -1;
    p->meta = *m;
    p->meta_cmdline = cmd;
    p->meta_comm = comm;
    p->meta.cmdline = str_get(p, cmd);
    p->meta.comm = str_get(p, comm);
    return 0;
}

/* --- ingest -------------------------------------------------------------- */

int profile_add_stack(struct profile *p, uint32_t thread,
                      const struct stack_frame *frames, size_t n,
                      uint64_t count)
{
    uint32_t node;

    if (!p || thread >= p->nthreads || (n && !frames) || n > ID_LIMIT)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (frames[i].frame >= p->nframes)
            return -1;
    if (count == 0)
        return 0;
    /* Reserve everything first so an OOM leaves the profile untouched. */
    if (tree_reserve(p, n) || lc_reserve(&p->lines, n) ||
        lc_reserve(&p->addrs, n))
        return -1;
    if (++p->stamp == 0) {
        /* Wrapped after 2^32 calls: an entry untouched since then could
         * carry the new stamp and miss a count, so clear them all. */
        for (uint32_t i = 0; i < p->lines.n; i++)
            p->lines.e[i].stamp = 0;
        for (uint32_t i = 0; i < p->addrs.n; i++)
            p->addrs.e[i].stamp = 0;
        p->stamp = 1;
    }
    node = p->th[thread].node;
    p->nodes[PROFILE_ROOT].total += count;
    p->nodes[node].total += count;
    for (size_t i = 0; i < n; i++) {
        bool leaf = i + 1 == n;
        uint32_t slot;
        struct cslot *cs;

        node = tree_step(p, node, frames[i].frame, count, &slot);
        cs = &p->cs[slot];
        lc_count(&p->lines, frames[i].frame, frames[i].line, p->stamp, count,
                 leaf, &cs->line_e);
        lc_count(&p->addrs, frames[i].frame, frames[i].addr, p->stamp, count,
                 leaf, &cs->addr_e);
    }
    p->nodes[node].self += count;
    p->samples += count;
    return 0;
}

uint64_t profile_samples(const struct profile *p)
{
    return p ? p->samples : 0;
}

struct merge_ctx {
    struct profile *dst;
    const uint32_t *fmap;  /* src frame id -> dst frame id */
    const uint32_t *tmap;  /* src thread index -> dst thread index */
    uint32_t *buf;         /* mapped frames */
};

static int merge_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t count)
{
    struct merge_ctx *m = ctx;

    for (size_t i = 0; i < n; i++)
        m->buf[i] = m->fmap[frames[i]];
    return tree_add(m->dst, m->dst->th[m->tmap[thread]].node, m->buf, n,
                    count);
}

/* Thread of dst that src thread `t` merges into, created if needed. */
static uint32_t merge_thread(struct profile *dst,
                             const struct profile_thread *t)
{
    int64_t tid = t->tid;

    for (uint32_t i = 0; i < dst->nthreads; i++)
        if (strcmp(dst->th[i].name, t->name) == 0)
            return i;
    /* A new name whose tid dst already uses for another name: give it an
     * unused tid rather than renaming dst's thread. */
    if (tid_find(dst, tid) != PROFILE_NONE) {
        for (uint32_t i = 0; i < dst->nthreads; i++)
            if (dst->th[i].tid >= tid)
                tid = dst->th[i].tid + 1;
    }
    return profile_thread(dst, tid, t->name);
}

int profile_merge(struct profile *dst, const struct profile *src)
{
    struct merge_ctx m = { .dst = dst };
    uint32_t *fmap = NULL, *tmap = NULL;
    const struct profile_meta *sm = &src->meta;
    struct profile_meta meta;
    int rc = -1;

    if (dst == src) {
        struct profile *copy = profile_clone(src);

        rc = copy ? profile_merge(dst, copy) : -1;
        profile_free(copy);
        return rc;
    }
    fmap = malloc((src->nframes ? src->nframes : 1) * sizeof(*fmap));
    tmap = malloc((src->nthreads ? src->nthreads : 1) * sizeof(*tmap));
    m.buf = malloc((src->max_depth ? src->max_depth : 1) * sizeof(*m.buf));
    if (!fmap || !tmap || !m.buf)
        goto out;
    for (uint32_t i = 0; i < src->nframes; i++) {
        fmap[i] = profile_intern_frame(dst, &src->fd[i]);
        if (fmap[i] == PROFILE_NONE)
            goto out;
    }
    for (uint32_t t = 0; t < src->nthreads; t++) {
        tmap[t] = merge_thread(dst, &src->th[t]);
        if (tmap[t] == PROFILE_NONE)
            goto out;
    }
    m.fmap = fmap;
    m.tmap = tmap;
    if (profile_foreach_stack(src, merge_stack, &m) ||
        lc_merge(&dst->lines, &src->lines, fmap) ||
        lc_merge(&dst->addrs, &src->addrs, fmap))
        goto out;
    /* dst's metadata wins; fields it never set are taken from src. */
    meta = dst->meta;
    meta.duration_ns += sm->duration_ns;
    if (!meta.pid)
        meta.pid = sm->pid;
    if (!meta.cmdline)
        meta.cmdline = sm->cmdline;
    if (!meta.comm)
        meta.comm = sm->comm;
    if (!meta.interval_ns)
        meta.interval_ns = sm->interval_ns;
    if (!meta.start_ns || (sm->start_ns && sm->start_ns < meta.start_ns))
        meta.start_ns = sm->start_ns;
    rc = profile_set_meta(dst, &meta);
out:
    free(fmap);
    free(tmap);
    free(m.buf);
    return rc;
}

/* --- derived views ------------------------------------------------------- */

struct derive_ctx {
    struct profile *q;
    const struct profile_filter *f;
    uint32_t *buf;  /* reversed stack for inverted views */
};

static int derive_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                        size_t n, uint64_t count)
{
    struct derive_ctx *d = ctx;
    const struct profile_filter *f = d->f;

    if (f->thread != PROFILE_NONE && f->thread != thread)
        return 0;
    if (f->focus != PROFILE_NONE) {
        size_t i = 0;

        while (i < n && frames[i] != f->focus)
            i++;
        if (i == n)
            return 0;
    }
    if (f->inverted) {
        for (size_t i = 0; i < n; i++)
            d->buf[i] = frames[n - 1 - i];
        frames = d->buf;
    }
    return tree_add(d->q, f->merge_threads ? PROFILE_ROOT
                                           : d->q->th[thread].node,
                    frames, n, count);
}

struct profile *profile_derive(const struct profile *p,
                               const struct profile_filter *f)
{
    struct derive_ctx d = { .f = f };

    if (!p || !f)
        return NULL;
    d.q = profile_copy(p, false);
    d.buf = malloc((p->max_depth ? p->max_depth : 1) * sizeof(*d.buf));
    if (!d.q || !d.buf || profile_foreach_stack(p, derive_stack, &d)) {
        profile_free(d.q);
        d.q = NULL;
    }
    free(d.buf);
    return d.q;
}

/* Flat table: a walk that keeps, per frame, how many times it is on the
 * current path, and adds a node's total only at the topmost occurrence,
 * so recursion never counts a sample twice. */
struct flat_ctx {
    const struct profile *p;
    struct profile_flat *acc; /* by frame id */
    uint32_t *onpath;         /* by frame id */
};

static int flat_enter(void *ctx, uint32_t node)
{
    struct flat_ctx *c = ctx;
    const struct profile_node *n = &c->p->nodes[node];

    if (c->p->fd[n->frame].kind == FRAME_THREAD)
        return 0;
    if (c->onpath[n->frame]++ == 0)
        c->acc[n->frame].total += n->total;
    c->acc[n->frame].self += n->self;
    return 0;
}

static void flat_leave(void *ctx, uint32_t node)
{
    struct flat_ctx *c = ctx;
    const struct profile_node *n = &c->p->nodes[node];

    if (c->p->fd[n->frame].kind != FRAME_THREAD)
        c->onpath[n->frame]--;
}

static int cmp_flat(const void *a, const void *b)
{
    const struct profile_flat *x = a, *y = b;

    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

static int flat_cmp_total(const void *a, const void *b)
{
    const struct profile_flat *x = a, *y = b;

    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

void profile_flat_sort_total(struct profile_flat *v, size_t n)
{
    if (v && n > 1)
        qsort(v, n, sizeof(*v), flat_cmp_total);
}

long profile_flat(const struct profile *p, struct profile_flat **out)
{
    size_t nf = p->nframes ? p->nframes : 1;
    struct flat_ctx c = { p, calloc(nf, sizeof(*c.acc)),
                          calloc(nf, sizeof(*c.onpath)) };
    long n = 0;

    *out = NULL;
    if (!c.acc || !c.onpath) {
        free(c.acc);
        free(c.onpath);
        return -1;
    }
    tree_walk(p, PROFILE_ROOT, flat_enter, flat_leave, &c);
    for (uint32_t i = 0; i < p->nframes; i++)
        if (c.acc[i].total) {
            c.acc[n] = c.acc[i];
            c.acc[n++].frame = i;
        }
    free(c.onpath);
    qsort(c.acc, (size_t)n, sizeof(*c.acc), cmp_flat);
    *out = c.acc;
    return n;
}

/* Edges: accumulated in a dense array indexed by (caller, callee). */
struct edge_acc {
    struct profile_edge e;
    uint64_t stamp;  /* stack that last counted e.samples */
};

struct edge_ctx {
    const struct profile *p;
    struct edge_acc *a;  /* edges found */
    uint32_t n;          /* edges used */
    uint32_t cap;        /* edges allocated */
    struct idtab ix;     /* index over a */
    uint32_t *occ;       /* per frame: occurrences in the current stack */
    uint64_t stamp;      /* current stack */
};

static uint64_t edge_hash(uint32_t caller, uint32_t callee)
{
    return util_mix64((uint64_t)caller << 32 | callee);
}

static uint64_t edge_hash_of(const struct profile *p, const void *tab,
                             uint32_t id)
{
    const struct edge_ctx *c = tab;

    (void)p;
    return edge_hash(c->a[id].e.caller, c->a[id].e.callee);
}

static struct edge_acc *edge_get(struct edge_ctx *c, uint32_t caller,
                                 uint32_t callee)
{
    uint32_t i = (uint32_t)edge_hash(caller, callee) & c->ix.mask;
    uint32_t id;

    for (;;) {
        id = c->ix.slot[i];
        if (id == PROFILE_NONE)
            break;
        if (c->a[id].e.caller == caller && c->a[id].e.callee == callee)
            return &c->a[id];
        i = (i + 1) & c->ix.mask;
    }
    if (grow((void **)&c->a, &c->cap, (uint64_t)c->n + 1, sizeof(*c->a)) ||
        idtab_reserve(&c->ix, (uint64_t)c->n + 1, 0, c->n, edge_hash_of, NULL,
                      c))
        return NULL;
    id = c->n++;
    c->a[id] = (struct edge_acc){ .e = { caller, callee, 0, 0.0 } };
    idtab_insert(&c->ix, edge_hash(caller, callee), id);
    return &c->a[id];
}

static int edge_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t count)
{
    struct edge_ctx *c = ctx;
    int rc = 0;

    (void)thread;
    c->stamp++;
    for (size_t i = 0; i < n; i++)
        c->occ[frames[i]]++;
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint32_t caller = i ? frames[i - 1] : PROFILE_NONE;
        struct edge_acc *e = edge_get(c, caller, frames[i]);

        if (!e) {
            rc = -1;
            break;
        }
        e->e.time += (double)count / c->occ[frames[i]];
        if (e->stamp != c->stamp) {
            e->stamp = c->stamp;
            e->e.samples += count;
        }
    }
    for (size_t i = 0; i < n; i++)
        c->occ[frames[i]]--;
    return rc;
}

static int cmp_edge(const void *a, const void *b)
{
    const struct profile_edge *x = a, *y = b;

    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    return (x->callee > y->callee) - (x->callee < y->callee);
}

long profile_edges(const struct profile *p, struct profile_edge **out)
{
    struct edge_ctx c = { .p = p };
    struct profile_edge *res = NULL;
    long n = -1;

    *out = NULL;
    c.occ = calloc(p->nframes ? p->nframes : 1, sizeof(*c.occ));
    if (!c.occ || idtab_reserve(&c.ix, 1, 0, 0, edge_hash_of, NULL, &c) ||
        profile_foreach_stack(p, edge_stack, &c))
        goto out;
    res = malloc((c.n ? c.n : 1) * sizeof(*res));
    if (!res)
        goto out;
    for (uint32_t i = 0; i < c.n; i++)
        res[i] = c.a[i].e;
    qsort(res, c.n, sizeof(*res), cmp_edge);
    *out = res;
    n = c.n;
out:
    free(c.occ);
    free(c.a);
    free(c.ix.slot);
    return n;
}
