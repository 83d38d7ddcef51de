/* idtab.c - see idtab.h. */
#include "idtab.h"

#include <stdlib.h>
#include <string.h>

static int rehash(struct idtab *t, size_t size)
{
    struct idtab_slot *s = malloc(size * sizeof(*s));

    if (!s)
        return -1;
    for (size_t i = 0; i < size; i++)
        s[i].id = IDTAB_NONE;
    for (size_t i = 0; t->slots && i <= t->mask; i++) {
        if (t->slots[i].id == IDTAB_NONE)
            continue;
        size_t j = t->slots[i].hash & (size - 1);
        while (s[j].id != IDTAB_NONE)
            j = (j + 1) & (size - 1);
        s[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = s;
    t->mask = size - 1;
    return 0;
}

int idtab_reserve(struct idtab *t, size_t n)
{
    size_t size = t->slots ? t->mask + 1 : 16;

    if (n > SIZE_MAX / 4)
        return -1;
    while (size < 2 * n)
        size *= 2;
    if (t->slots && size == t->mask + 1)
        return 0;
    return rehash(t, size);
}

uint32_t idtab_find(const struct idtab *t, uint64_t h,
                    int (*eq)(void *ctx, uint32_t id), void *ctx)
{
    if (!t->slots)
        return IDTAB_NONE;
    for (size_t j = h & t->mask;; j = (j + 1) & t->mask) {
        const struct idtab_slot *s = &t->slots[j];
        if (s->id == IDTAB_NONE)
            return IDTAB_NONE;
        if (s->hash == h && (!eq || eq(ctx, s->id)))
            return s->id;
    }
}

int idtab_insert(struct idtab *t, uint64_t h, uint32_t id)
{
    if (idtab_reserve(t, t->n + 1) < 0)
        return -1;
    size_t j = h & t->mask;
    while (t->slots[j].id != IDTAB_NONE)
        j = (j + 1) & t->mask;
    t->slots[j].hash = h;
    t->slots[j].id = id;
    t->n++;
    return 0;
}

/* Whether home slot k lies cyclically in (gap, j]: the entry at j whose
 * home is k may not move back into the gap. */
static int home_between(size_t gap, size_t k, size_t j)
{
    return gap <= j ? gap < k && k <= j : gap < k || k <= j;
}

int idtab_remove(struct idtab *t, uint64_t h, uint32_t id)
{
    size_t gap;

    if (!t->slots)
        return -1;
    for (gap = h & t->mask;; gap = (gap + 1) & t->mask) {
        if (t->slots[gap].id == IDTAB_NONE)
            return -1;
        if (t->slots[gap].hash == h && t->slots[gap].id == id)
            break;
    }
    /* shift back every later entry of the run that may fill the gap */
    for (size_t j = (gap + 1) & t->mask; t->slots[j].id != IDTAB_NONE;
         j = (j + 1) & t->mask) {
        if (home_between(gap, t->slots[j].hash & t->mask, j))
            continue;
        t->slots[gap] = t->slots[j];
        gap = j;
    }
    t->slots[gap].id = IDTAB_NONE;
    t->n--;
    return 0;
}

int idtab_copy(struct idtab *dst, const struct idtab *src)
{
    size_t bytes = src->slots ? (src->mask + 1) * sizeof(*src->slots) : 0;

    *dst = *src;
    if (!src->slots)
        return 0;
    dst->slots = malloc(bytes);
    if (!dst->slots) {
        *dst = (struct idtab){ 0 };
        return -1;
    }
    memcpy(dst->slots, src->slots, bytes);
    return 0;
}

void idtab_clear(struct idtab *t)
{
    for (size_t i = 0; t->slots && i <= t->mask; i++)
        t->slots[i].id = IDTAB_NONE;
    t->n = 0;
}

void idtab_free(struct idtab *t)
{
    free(t->slots);
    t->slots = NULL;
    t->mask = 0;
    t->n = 0;
}

size_t idtab_bytes(const struct idtab *t)
{
    return t->slots ? (t->mask + 1) * sizeof(*t->slots) : 0;
}
