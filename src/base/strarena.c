/* strarena.c - see strarena.h.  Chunks of 64 KiB (larger for a longer
 * string), so a profile with 100k names makes a few dozen allocations. */
#include "strarena.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"

#define CHUNK_MIN 65536

struct strarena_chunk {
    struct strarena_chunk *next;
    size_t used, size;
    char data[];
};

struct match {
    const struct strarena *a;
    const char *p;
    size_t n;
};

static int str_eq(void *ctx, uint32_t id)
{
    const struct match *m = ctx;
    const char *s = m->a->str[id];

    return memcmp(s, m->p, m->n) == 0 && s[m->n] == '\0';
}

static char *chunk_alloc(struct strarena *a, size_t len)
{
    struct strarena_chunk *c = a->chunks;

    if (!c || c->size - c->used < len) {
        size_t size = len > CHUNK_MIN ? len : CHUNK_MIN;
        c = malloc(sizeof(*c) + size);
        if (!c)
            return NULL;
        c->used = 0;
        c->size = size;
        c->next = a->chunks;
        a->chunks = c;
    }
    char *r = c->data + c->used;
    c->used += len;
    return r;
}

uint32_t strarena_lookup(const struct strarena *a, const char *p, size_t n)
{
    struct match m = { a, p, n };

    return idtab_find(&a->ids, util_hash_bytes(p, n, 0), str_eq, &m);
}

uint32_t strarena_intern_id(struct strarena *a, const char *p, size_t n)
{
    uint64_t h = util_hash_bytes(p, n, 0);
    struct match m = { a, p, n };
    uint32_t id = idtab_find(&a->ids, h, str_eq, &m);

    if (id != IDTAB_NONE)
        return id;
    if (a->nstr >= UINT32_MAX - 1 || n >= SIZE_MAX - 1 ||
        VEC_RESERVE(a->str, a->capstr, a->nstr + 1) < 0 ||
        idtab_reserve(&a->ids, a->nstr + 1) < 0)
        return UINT32_MAX;
    char *c = chunk_alloc(a, n + 1);
    if (!c)
        return UINT32_MAX;
    memcpy(c, p, n);
    c[n] = '\0';
    id = (uint32_t)a->nstr;
    a->str[a->nstr++] = c;
    a->bytes += n + 1;
    idtab_insert(&a->ids, h, id); /* reserved: cannot fail */
    return id;
}

const char *strarena_intern(struct strarena *a, const char *p, size_t n)
{
    uint32_t id = strarena_intern_id(a, p, n);

    return id == UINT32_MAX ? NULL : a->str[id];
}

const char *strarena_str(const struct strarena *a, uint32_t id)
{
    return a->str[id];
}

int strarena_copy(struct strarena *dst, const struct strarena *src)
{
    struct strarena_chunk *c = malloc(sizeof(*c) + (src->bytes ? src->bytes
                                                                 : 1));

    memset(dst, 0, sizeof(*dst));
    dst->str = malloc((src->nstr ? src->nstr : 1) * sizeof(*dst->str));
    if (!c || !dst->str || idtab_copy(&dst->ids, &src->ids) < 0) {
        free(c);
        free(dst->str);
        memset(dst, 0, sizeof(*dst));
        return -1;
    }
    *c = (struct strarena_chunk){ .used = src->bytes, .size = src->bytes };
    dst->chunks = c;
    dst->capstr = src->nstr ? src->nstr : 1;
    for (char *at = c->data; dst->nstr < src->nstr; dst->nstr++) {
        size_t len = strlen(src->str[dst->nstr]) + 1;

        memcpy(at, src->str[dst->nstr], len);
        dst->str[dst->nstr] = at;
        at += len;
    }
    dst->bytes = src->bytes;
    return 0;
}

void strarena_free(struct strarena *a)
{
    while (a->chunks) {
        struct strarena_chunk *c = a->chunks;
        a->chunks = c->next;
        free(c);
    }
    free(a->str);
    idtab_free(&a->ids);
    memset(a, 0, sizeof(*a));
}

size_t strarena_footprint(const struct strarena *a)
{
    size_t b = a->capstr * sizeof(*a->str) + idtab_bytes(&a->ids);

    for (const struct strarena_chunk *c = a->chunks; c; c = c->next)
        b += sizeof(*c) + c->size;
    return b;
}
