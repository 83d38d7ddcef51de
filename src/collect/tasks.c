/* tasks.c - the live table of threads and processes; see tasks.h. */
#include "tasks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"
#include "source.h"
#include "taskstat.h"
#include "vec.h"
#include "sorted.h"

struct tasks {
    /* the collector's */
    struct taskstat *stat;       /* kept-open stat files */
    struct source_task *next;    /* the table being built: the threads,
                                    then their processes */
    size_t n, next_cap;
    size_t need;                 /* threads the last gathering counted */
    struct taskstat_fig *fig;    /* the live ones, to be read */
    size_t fig_cap;
    uint64_t at;                 /* last refresh (mono ns), 0: none */
    /* shared */
    atomic_uint_fast64_t asked;  /* last tasks_copy (mono ns), 0: never */
    pthread_mutex_t lock;        /* guards the three below: swap, memcpy */
    struct source_task *pub;     /* the published table */
    size_t npub, pub_cap;
};

struct tasks *tasks_new(void)
{
    struct tasks *t = calloc(1, sizeof *t);
    if (!t || !(t->stat = taskstat_new())) {
        free(t);
        return NULL;
    }
    atomic_init(&t->asked, 0);
    pthread_mutex_init(&t->lock, NULL);
    return t;
}

void tasks_free(struct tasks *t)
{
    if (!t)
        return;
    taskstat_free(t->stat);
    free(t->fig);
    free(t->next);
    free(t->pub);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* sampler_foreach_thread, under the backend's stats lock: no allocation,
 * only a copy into the room made beforehand (and a count of the rest). */
static void gather_one(void *ctx, const struct sampler_thread_stats *st)
{
    struct tasks *t = ctx;
    if (t->need++ < t->next_cap)
        t->next[t->n++] = (struct source_task){
            .pid = st->pid, .tid = st->tid, .state = st->alive ? 'R' : 0};
}

/* The sampler's threads into next (state 'R': alive, to be read; 0:
 * gone); the room grows between two passes, outside the lock. */
static void gather(struct tasks *t, struct sampler *s)
{
    for (int pass = 0; pass < 2; pass++) {
        t->n = t->need = 0;
        sampler_foreach_thread(s, gather_one, t);
        if (t->need <= t->next_cap ||
            VEC_RESERVE(t->next, t->next_cap, t->need * 2 + 16) < 0)
            return;
    }
}

/* Make a tid listed twice (used again) one entry, alive if either is,
 * and add one entry per process: to be read when a thread of it is
 * alive, else gone.  The table's order (source_task_cmp) after.  0, or
 * -1 on OOM. */
static int add_processes(struct tasks *t)
{
    sorted_sort(t->next, t->n, sizeof *t->next, source_task_cmp);
    size_t n = 0, nproc = 0;
    for (size_t i = 0; i < t->n; i++) {
        struct source_task *prev = n ? &t->next[n - 1] : NULL;
        if (prev && prev->pid == t->next[i].pid && prev->tid == t->next[i].tid) {
            prev->state |= t->next[i].state;
            continue;
        }
        nproc += !prev || prev->pid != t->next[i].pid;
        t->next[n++] = t->next[i];
    }
    if (VEC_RESERVE(t->next, t->next_cap, n + nproc) < 0)
        return -1;
    t->n = n;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && t->next[i - 1].pid == t->next[i].pid)
            continue;
        struct source_task p = {.pid = t->next[i].pid};
        for (size_t j = i; j < n && t->next[j].pid == p.pid; j++)
            p.state |= t->next[j].state;
        t->next[t->n++] = p;
    }
    sorted_sort(t->next, t->n, sizeof *t->next, source_task_cmp);
    return 0;
}

/* Read the live ones (state 'R' until read) through taskstat; the gone
 * ones (state 0) keep no figures.  0, or -1 on OOM. */
static int read_live(struct tasks *t, uint64_t now)
{
    size_t nlive = 0;
    if (VEC_RESERVE(t->fig, t->fig_cap, t->n) < 0)
        return -1;
    for (size_t i = 0; i < t->n; i++)
        if (t->next[i].state)
            t->fig[nlive++] = (struct taskstat_fig){.pid = t->next[i].pid,
                                                    .tid = t->next[i].tid};
    if (taskstat_read(t->stat, t->fig, nlive, now) < 0)
        return -1;
    for (size_t i = 0, k = 0; i < t->n; i++) {
        struct source_task *e = &t->next[i];
        const struct taskstat_fig *f = e->state ? &t->fig[k++] : NULL;
        e->cpu_ns = f ? f->cpu_ns : 0;
        e->cpu_pct = f ? f->pct : -1;
        e->state = f ? f->state : 0;
    }
    return 0;
}

void tasks_refresh(struct tasks *t, struct sampler *s, uint64_t now_ns)
{
    uint64_t asked = atomic_load(&t->asked);
    if (!asked || now_ns - asked > TASKS_WANTED_NS ||
        (t->at && now_ns - t->at < TASKS_PERIOD_NS))
        return;
    t->at = now_ns;
    gather(t, s);
    if (add_processes(t) < 0 || read_live(t, now_ns) < 0)
        return;
    pthread_mutex_lock(&t->lock);
    struct source_task *old = t->pub;
    size_t old_cap = t->pub_cap;
    t->pub = t->next;
    t->pub_cap = t->next_cap;
    t->npub = t->n;
    t->next = old;
    t->next_cap = old_cap;
    pthread_mutex_unlock(&t->lock);
}

int tasks_copy(struct tasks *t, struct source_tasks *out, uint64_t now_ns,
               bool *wake)
{
    uint64_t asked = atomic_exchange(&t->asked, now_ns);
    *wake = !asked || now_ns - asked > TASKS_WANTED_NS;
    for (;;) {
        pthread_mutex_lock(&t->lock);
        size_t n = t->npub;
        if (n <= out->cap) {
            if (n)
                memcpy(out->v, t->pub, n * sizeof *out->v);
            out->n = n;
            pthread_mutex_unlock(&t->lock);
            return 0;
        }
        pthread_mutex_unlock(&t->lock);
        if (VEC_RESERVE(out->v, out->cap, n) < 0)
            return -1;
    }
}
