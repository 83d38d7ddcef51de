/* header_cpu.c - the header's "On CPU" figures; see header_cpu.h. */
#include "header_cpu.h"

#include <stdlib.h>

#include "oncpu.h"
#include "vec.h"

void header_cpu_update(struct header_cpu *h, struct source *src,
                       const struct source_status *st)
{
    size_t n = 0;

    h->on_cpu = -1;
    if (!st || st->is_file || !src->ops->tasks ||
        (st->state != TARGET_RUNNING && st->state != TARGET_STOPPED) ||
        src->ops->tasks(src, &h->tasks) < 0 ||
        VEC_RESERVE(h->pct, h->cap, h->tasks.n) < 0)
        return;
    for (size_t i = 0; i < h->tasks.n; i++) {
        const struct source_task *t = &h->tasks.v[i];
        if (t->tid && t->state)   /* a live thread, not a process */
            h->pct[n++] = t->cpu_pct;
    }
    h->on_cpu = oncpu_share(h->pct, n);
}

void header_cpu_free(struct header_cpu *h)
{
    source_tasks_free(&h->tasks);
    free(h->pct);
    h->pct = NULL;
    h->cap = 0;
}
