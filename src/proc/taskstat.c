/* taskstat.c - top's figures of threads and processes; see taskstat.h. */
#include "taskstat.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "idtab.h"
#include "target.h"
#include "util.h"
#include "vec.h"

struct entry {
    int64_t pid, tid;
    int fd;             /* its stat file, -1: opened at each read */
    uint64_t base_cpu;  /* CPU time at the base read */
    uint64_t base_at;   /* ...and when, 0: never read */
    double pct;         /* %CPU since the base read before it */
    bool taken;         /* carried into the current read */
};

struct taskstat {
    struct entry *v, *w;   /* the last read's tasks; scratch for the next */
    size_t n, cap, wcap;
    struct idtab ix;       /* (pid, tid) -> index in v */
    size_t nfds;           /* files kept open */
};

struct key {
    const struct taskstat *t;
    int64_t pid, tid;
};

static uint64_t hash_of(int64_t pid, int64_t tid)
{
    return util_mix64(((uint64_t)(tid ? tid : pid) << 1) | (tid == 0));
}

static int entry_eq(void *ctx, uint32_t i)
{
    const struct key *k = ctx;
    return k->t->v[i].pid == k->pid && k->t->v[i].tid == k->tid;
}

struct taskstat *taskstat_new(void)
{
    return calloc(1, sizeof(struct taskstat));
}

static void entry_close(struct taskstat *t, struct entry *e)
{
    if (e->fd >= 0) {
        close(e->fd);
        t->nfds--;
    }
    e->fd = -1;
}

void taskstat_free(struct taskstat *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        entry_close(t, &t->v[i]);
    free(t->v);
    free(t->w);
    idtab_free(&t->ix);
    free(t);
}

static int open_stat(int64_t pid, int64_t tid)
{
    char path[96];
    if (tid)
        snprintf(path, sizeof path, "/proc/%" PRId64 "/task/%" PRId64 "/stat",
                 pid, tid);
    else
        snprintf(path, sizeof path, "/proc/%" PRId64 "/stat", pid);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Read e's task into f, at now. */
static void read_one(struct taskstat *t, struct entry *e,
                     struct taskstat_fig *f, uint64_t now)
{
    int fd = e->fd;
    if (fd < 0 && (fd = open_stat(e->pid, e->tid)) >= 0 &&
        t->nfds < TASKSTAT_MAX_FDS) {
        e->fd = fd;
        t->nfds++;
    }
    uint64_t cpu = 0;
    f->state = 0;
    if (fd >= 0 && target_stat_times(fd, &f->state, &cpu) < 0)
        f->state = 0;
    if (fd >= 0 && e->fd < 0)
        close(fd);
    if (!f->state) {   /* gone: its file is of no more use */
        entry_close(t, e);
        f->cpu_ns = e->base_cpu;
        f->pct = -1;
        return;
    }
    if (!e->base_at) {
        e->pct = -1;
        e->base_cpu = cpu;
        e->base_at = now;
    } else if (now - e->base_at >= TASKSTAT_WINDOW_NS) {
        e->pct = cpu >= e->base_cpu
            ? 100.0 * (double)(cpu - e->base_cpu) / (double)(now - e->base_at)
            : -1;
        e->base_cpu = cpu;
        e->base_at = now;
    }
    f->cpu_ns = cpu;
    f->pct = e->pct;
}

int taskstat_read(struct taskstat *t, struct taskstat_fig *v, size_t n,
                  uint64_t now_ns)
{
    int rc = VEC_RESERVE(t->w, t->wcap, n) < 0 ? -1 : 0;
    for (size_t i = 0; i < n; i++) {
        struct key k = {t, v[i].pid, v[i].tid};
        uint32_t j = idtab_find(&t->ix, hash_of(k.pid, k.tid), entry_eq, &k);
        struct entry fresh = {.pid = k.pid, .tid = k.tid, .fd = -1, .pct = -1};
        struct entry *e = j == IDTAB_NONE || t->v[j].taken ? &fresh : &t->v[j];
        read_one(t, e, &v[i], now_ns);
        e->taken = true;
        if (rc == 0) {
            t->w[i] = *e;
            t->w[i].taken = false;
        } else if (e == &fresh) {
            entry_close(t, e);
        }
    }
    if (rc < 0) {    /* the last read's tasks stay, for the next one */
        for (size_t j = 0; j < t->n; j++)
            t->v[j].taken = false;
        return -1;
    }
    for (size_t j = 0; j < t->n; j++)
        if (!t->v[j].taken)
            entry_close(t, &t->v[j]);
    struct entry *old = t->v;
    size_t oldcap = t->cap;
    t->v = t->w;
    t->cap = t->wcap;
    t->w = old;
    t->wcap = oldcap;
    t->n = n;
    idtab_clear(&t->ix);
    /* on OOM a task is not found next time: read as new, and this entry
     * closed then */
    for (size_t i = 0; i < n; i++)
        (void)idtab_insert(&t->ix, hash_of(t->v[i].pid, t->v[i].tid),
                           (uint32_t)i);
    return 0;
}
