/* ingest.c - double-buffered record queue; see ingest.h. */
#include "ingest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct ingest {
    pthread_mutex_t lock;
    uint8_t *buf[2];   /* buf[active] is appended to */
    size_t used[2];
    size_t cap;
    int active;
    atomic_uint_fast64_t lost;
};

struct ingest *ingest_new(size_t bytes)
{
    struct ingest *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    in->cap = bytes;
    in->buf[0] = malloc(bytes);
    in->buf[1] = malloc(bytes);
    if (!in->buf[0] || !in->buf[1]) {
        ingest_free(in);
        return NULL;
    }
    pthread_mutex_init(&in->lock, NULL);
    return in;
}

void ingest_free(struct ingest *in)
{
    if (!in)
        return;
    if (in->buf[0] && in->buf[1])
        pthread_mutex_destroy(&in->lock);
    free(in->buf[0]);
    free(in->buf[1]);
    free(in);
}

static size_t pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* Append a record whose payload is a[0..alen) then b[0..blen). */
static int push_parts(struct ingest *in, const struct ingest_rec *hdr,
                      const void *a, size_t alen, const void *b, size_t blen)
{
    size_t len = alen + blen;
    size_t need = sizeof *hdr + pad8(len);
    struct ingest_rec h = *hdr;
    h.len = (uint32_t)len;
    pthread_mutex_lock(&in->lock);
    int act = in->active;
    if (in->used[act] + need > in->cap) {
        pthread_mutex_unlock(&in->lock);
        atomic_fetch_add(&in->lost, 1);
        return -1;
    }
    uint8_t *dst = in->buf[act] + in->used[act];
    memcpy(dst, &h, sizeof h);
    if (alen)
        memcpy(dst + sizeof h, a, alen);
    if (blen)
        memcpy(dst + sizeof h + alen, b, blen);
    in->used[act] += need;
    pthread_mutex_unlock(&in->lock);
    return 0;
}

int ingest_push(struct ingest *in, const struct ingest_rec *hdr,
                const void *payload, size_t len)
{
    return push_parts(in, hdr, payload, len, NULL, 0);
}

int ingest_push_stack(struct ingest *in, const struct ingest_rec *hdr,
                      const uint64_t *kpcs, size_t nk, const uint64_t *pcs,
                      size_t n)
{
    struct ingest_rec h = *hdr;
    h.kernel = (uint32_t)nk;
    return push_parts(in, &h, kpcs, nk * sizeof *kpcs, pcs, n * sizeof *pcs);
}

void ingest_swap(struct ingest *in, const uint8_t **data, size_t *len)
{
    pthread_mutex_lock(&in->lock);
    int full = in->active;
    in->active = !full;
    in->used[in->active] = 0;
    pthread_mutex_unlock(&in->lock);
    /* The consumer owns buf[full] until its next swap; the producer only
     * touches buf[active]. */
    *data = in->buf[full];
    *len = in->used[full];
}

const struct ingest_rec *ingest_next(const uint8_t *data, size_t len,
                                     size_t *off, const void **payload)
{
    if (*off + sizeof(struct ingest_rec) > len)
        return NULL;
    const struct ingest_rec *r = (const struct ingest_rec *)(data + *off);
    size_t need = sizeof *r + pad8(r->len);
    if (*off + need > len)
        return NULL;
    *payload = data + *off + sizeof *r;
    *off += need;
    return r;
}

uint64_t ingest_lost(struct ingest *in)
{
    return atomic_load(&in->lost);
}

size_t ingest_run(const uint8_t *data, size_t len, size_t off, int32_t *pid)
{
    size_t end = off;
    const void *payload;
    const struct ingest_rec *r = ingest_next(data, len, &end, &payload);
    if (!r)
        return 0;
    *pid = r->pid;
    size_t next = end;
    while ((r = ingest_next(data, len, &next, &payload)) && r->pid == *pid)
        end = next;
    return end - off;
}
