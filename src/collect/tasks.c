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

struct tasks {
    /* the collector's */
    struct taskstat *stat;       /* kept-open stat files */
    struct taskstat_fig *fig;    /* the threads, then their processes */
    size_t nfig, fig_cap;
    size_t need;                 /* threads the last gathering counted */
    struct source_task *next;    /* the table being built */
    size_t next_cap;
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
    if (t->need++ < t->fig_cap)
        t->fig[t->nfig++] = (struct taskstat_fig){
            .pid = st->pid, .tid = st->tid, .state = st->alive ? 'R' : 0};
}

/* The sampler's threads into fig (state 'R': alive, to be read; 0:
 * gone); the room grows between two passes, outside the lock. */
static void gather(struct tasks *t, struct sampler *s)
{
    for (int pass = 0; pass < 2; pass++) {
        t->nfig = t->need = 0;
        sampler_foreach_thread(s, gather_one, t);
        if (t->need <= t->fig_cap ||
            VEC_RESERVE(t->fig, t->fig_cap, t->need * 2 + 16) < 0)
            return;
    }
}

static int fig_cmp(const void *a, const void *b)
{
    const struct taskstat_fig *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Sort the threads, make a tid listed twice (used again) one entry,
 * alive if either is, and append one entry per process: to be read when
 * a thread of it is alive, else gone.  0, or -1 on OOM. */
static int add_processes(struct tasks *t)
{
    qsort(t->fig, t->nfig, sizeof *t->fig, fig_cmp);
    size_t n = 0, nproc = 0;
    for (size_t i = 0; i < t->nfig; i++) {
        struct taskstat_fig *prev = n ? &t->fig[n - 1] : NULL;
        if (prev && prev->pid == t->fig[i].pid && prev->tid == t->fig[i].tid) {
            prev->state |= t->fig[i].state;
            continue;
        }
        nproc += !prev || prev->pid != t->fig[i].pid;
        t->fig[n++] = t->fig[i];
    }
    if (VEC_RESERVE(t->fig, t->fig_cap, n + nproc) < 0)
        return -1;
    t->nfig = n;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && t->fig[i - 1].pid == t->fig[i].pid)
            continue;
        struct taskstat_fig p = {.pid = t->fig[i].pid};
        for (size_t j = i; j < n && t->fig[j].pid == p.pid; j++)
            p.state |= t->fig[j].state;
        t->fig[t->nfig++] = p;
    }
    return 0;
}

/* Read the live ones (state 'R' until read), moved to the front; the gone
 * ones (state 0) keep no figures. */
static int read_live(struct tasks *t, uint64_t now)
{
    size_t nlive = 0;
    for (size_t i = 0; i < t->nfig; i++) {
        struct taskstat_fig f = t->fig[i];
        if (!f.state) {
            t->fig[i].cpu_ns = 0;
            t->fig[i].pct = -1;
            continue;
        }
        t->fig[i] = t->fig[nlive];
        t->fig[nlive++] = f;
    }
    return taskstat_read(t->stat, t->fig, nlive, now);
}

void tasks_refresh(struct tasks *t, struct sampler *s, uint64_t now_ns)
{
    uint64_t asked = atomic_load(&t->asked);
    if (!asked || now_ns - asked > TASKS_WANTED_NS ||
        (t->at && now_ns - t->at < TASKS_PERIOD_NS))
        return;
    t->at = now_ns;
    gather(t, s);
    if (add_processes(t) < 0 || read_live(t, now_ns) < 0 ||
        VEC_RESERVE(t->next, t->next_cap, t->nfig) < 0)
        return;
    qsort(t->fig, t->nfig, sizeof *t->fig, fig_cmp);
    for (size_t i = 0; i < t->nfig; i++)
        t->next[i] = (struct source_task){
            .pid = t->fig[i].pid, .tid = t->fig[i].tid,
            .cpu_ns = t->fig[i].cpu_ns, .cpu_pct = t->fig[i].pct,
            .state = t->fig[i].state};
    pthread_mutex_lock(&t->lock);
    struct source_task *old = t->pub;
    size_t old_cap = t->pub_cap;
    t->pub = t->next;
    t->pub_cap = t->next_cap;
    t->npub = t->nfig;
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
