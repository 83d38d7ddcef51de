/* codecache.c - interpreters' code objects, checked and cached by
 * address; see codecache.h. */
#include "codecache.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"

void codecache_init(struct codecache *c, const struct codecache_ops *ops,
                    void *ctx, struct rmem *m)
{
    memset(c, 0, sizeof *c);
    c->ops = ops;
    c->ctx = ctx;
    c->m = m;
    c->gen = 1;
}

static void entry_clear(struct codecache_entry *e)
{
    free(e->name);
    free(e->file);
    free(e->aux);
    e->name = e->file = NULL;
    e->aux = NULL;
    e->aux_len = 0;
}

void codecache_free(struct codecache *c)
{
    for (size_t i = 0; i < c->n; i++)
        entry_clear(&c->v[i]);
    free(c->v);
    free(c->id_entry);
    idtab_free(&c->by_addr);
    memset(c, 0, sizeof *c);
}

/* A new id for entry index idx.  -1 on OOM. */
static int give_id(struct codecache *c, struct codecache_entry *e,
                   uint32_t idx)
{
    if (c->nids >= CODECACHE_MAX_IDS ||
        VEC_RESERVE(c->id_entry, c->capids, c->nids + 1) < 0)
        return -1;
    e->id = (uint32_t)c->nids;
    c->id_entry[c->nids++] = idx;
    e->gen = c->gen;
    return 0;
}

static void cache_reset(struct codecache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->id_entry[c->v[i].id] = UINT32_MAX;
        entry_clear(&c->v[i]);
    }
    c->n = 0;
    idtab_clear(&c->by_addr);
}

/* Fill e (emptied) from the object at addr whose header is check. */
static int fill(struct codecache *c, struct codecache_entry *e, uint64_t addr,
                const uint64_t *check)
{
    e->addr = addr;
    memcpy(e->check, check, sizeof e->check);
    e->firstlineno = 0;
    c->st.read++;
    if (c->ops->fill(c->ctx, e) < 0 || !e->name || !e->file) {
        entry_clear(e);
        c->st.bad++;
        return -1;
    }
    return 0;
}

struct eq_ctx {
    const struct codecache *c;
    uint64_t addr;
};

static int eq_addr(void *ctx, uint32_t idx)
{
    const struct eq_ctx *q = ctx;
    return q->c->v[idx].addr == q->addr;
}

const struct codecache_entry *codecache_get(struct codecache *c,
                                            uint64_t addr)
{
    struct eq_ctx q = {c, addr};
    uint64_t hash = util_mix64(addr);
    uint32_t idx = idtab_find(&c->by_addr, hash, eq_addr, &q);
    uint64_t check[CODECACHE_CHECK] = {0};
    c->used = true;
    if (idx != IDTAB_NONE) {
        struct codecache_entry *e = &c->v[idx];
        if (e->gen == c->gen)
            return e;
        c->st.checked++;
        if (c->ops->head(c->ctx, addr, check) < 0) {
            /* the target ended after its last samples: the names
             * checked in the last generation that had samples still
             * serve them (e->gen left as it is, so no longer) */
            if (e->name && e->gen == c->active_gen &&
                c->gen - c->active_gen <= CODECACHE_GONE_GENS &&
                rmem_gone(c->m)) {
                c->st.unchecked++;
                return e;
            }
            c->st.bad++;
            return NULL;
        }
        if (e->name && memcmp(e->check, check, sizeof check) == 0) {
            e->gen = c->gen;
            return e;
        }
        /* another object at the same address: read it as new */
        if (e->name)
            c->id_entry[e->id] = UINT32_MAX;
        entry_clear(e);
        if (fill(c, e, addr, check) < 0) {
            /* keep the slot, emptied (no name), so it is never matched
             * again without a new read */
            e->gen = 0;
            return NULL;
        }
        return give_id(c, e, idx) < 0 ? NULL : e;
    }
    if (c->ops->head(c->ctx, addr, check) < 0) {
        c->st.bad++;
        return NULL;
    }
    if (c->n >= CODECACHE_MAX_CODES)
        cache_reset(c);
    if (VEC_RESERVE(c->v, c->cap, c->n + 1) < 0 ||
        idtab_reserve(&c->by_addr, c->n + 1) < 0)
        return NULL;
    struct codecache_entry *e = &c->v[c->n];
    memset(e, 0, sizeof *e);
    if (fill(c, e, addr, check) < 0)
        return NULL;
    if (give_id(c, e, (uint32_t)c->n) < 0 ||
        idtab_insert(&c->by_addr, hash, (uint32_t)c->n) < 0) {
        entry_clear(e);
        return NULL;
    }
    c->n++;
    return e;
}

const struct codecache_entry *codecache_by_id(const struct codecache *c,
                                              uint32_t id)
{
    if (id >= c->nids || c->id_entry[id] == UINT32_MAX)
        return NULL;
    return &c->v[c->id_entry[id]];
}

uint32_t codecache_count(const struct codecache *c)
{
    return (uint32_t)c->nids;
}

void codecache_next_generation(struct codecache *c)
{
    if (c->used)
        c->active_gen = c->gen;
    c->used = false;
    c->gen++;
    if (c->gen == 0)
        c->gen = 1;
    rmem_forget(c->m);
}

int codecache_resolve(struct codecache *c, const struct pyread_stack *st,
                      struct pyread_frame *out, bool *torn)
{
    *torn = st->status == PYWALK_TORN;
    uint32_t k = 0;
    for (; k < st->n && k < PYWALK_MAX_DEPTH; k++) {
        const struct codecache_entry *e = codecache_get(c, st->f[k].code);
        if (!e) {
            *torn = true;
            break;
        }
        out[k] = (struct pyread_frame){e->id,
                                       c->ops->line(c->ctx, e, &st->f[k]),
                                       st->entry[k] != 0};
    }
    return k == 0 && st->n > 0 ? -1 : (int)k;
}

int codecache_code(const struct codecache *c, uint32_t id,
                   struct pyread_code *out)
{
    const struct codecache_entry *e = codecache_by_id(c, id);
    if (!e)
        return -1;
    *out = (struct pyread_code){e->id, e->firstlineno, e->name, e->file};
    return 0;
}

int codereader_resolve(struct codereader *r, const struct pyread_stack *st,
                       struct pyread_frame *out, bool *torn)
{
    int k = codecache_resolve(&r->codes, st, out, torn);
    if (*torn && st->status != PYWALK_TORN)
        r->st.torn++;
    return k;
}

void codereader_stats(const struct codereader *r, struct pyread_stats *out)
{
    *out = r->st;
    out->codes_read = r->codes.st.read;
    out->codes_checked = r->codes.st.checked;
    out->codes_bad = r->codes.st.bad;
    out->codes_unchecked = r->codes.st.unchecked;
}

void *codereader_new(size_t size, const struct codecache_ops *ops,
                     struct rmem *m)
{
    struct codereader *r = size >= sizeof *r ? calloc(1, size) : NULL;
    if (!r)
        return NULL;
    codecache_init(&r->codes, ops, r, m);
    return r;
}

void codereader_free(struct codereader *r)
{
    if (!r)
        return;
    codecache_free(&r->codes);
    free(r);
}

uint64_t codereader_walk_start(struct codereader *r, int64_t tid,
                               struct pyread_stack *st)
{
    r->st.walks++;
    rmem_forget(r->codes.m);
    st->n = 0;
    st->flags = 0;
    const struct codereader_hint *h =
        &r->hints[(uint64_t)tid % CODEREADER_HINTS];
    return h->tid == tid ? h->at : 0;
}

void codereader_hint_set(struct codereader *r, int64_t tid, uint64_t at)
{
    r->hints[(uint64_t)tid % CODEREADER_HINTS] =
        (struct codereader_hint){tid, at};
}

int codereader_walk_none(struct codereader *r, struct pyread_stack *st)
{
    r->st.not_python++;
    return st->status = PYWALK_NONE_THREAD;
}

int codereader_walk_end(struct codereader *r, struct pyread_stack *st)
{
    if (st->status == PYWALK_TORN)
        r->st.torn++;
    return st->status;
}
