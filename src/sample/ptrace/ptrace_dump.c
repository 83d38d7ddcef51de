/* ptrace_dump.c - --dump's capture for the ptrace backend
 * (ptrace_backend.dump, sampler_dump): every thread stopped once, its
 * registers and stack copied, detached at once, and only then unwound.
 * The caller names and prints the stacks (src/collect/dump.c). */
#include "ptrace_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "maps.h"
#include "sorted.h"

#define DUMP_WAIT_NS 1000000000ull /* how long threads get to stop */

/* Wait for the stops asked for, until none is pending or the time is up.
 * Each stop is sampled and detached at once. */
static void collect_stops(struct pt_sampler *s)
{
    uint64_t deadline = clock_mono_ns() + DUMP_WAIT_NS;
    while (pt_threads_pending(s) && clock_mono_ns() < deadline) {
        int status;
        pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
        if (tid < 0 && errno != EINTR)
            return;
        if (tid <= 0) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
            continue;
        }
        struct sthread *t = pt_threads_find(s, tid);
        int ev = (status >> 16) & 0xff;
        if (!t)
            continue;
        if (!WIFSTOPPED(status)) {
            pt_threads_drop(s, tid);
        } else if (ev == PTRACE_EVENT_STOP && t->state == T_INTERRUPTED) {
            /* our stop, or a group stop: registers are readable in both,
             * and PTRACE_DETACH puts a group-stopped thread back into its
             * stop */
            pt_stop_take(s, t, clock_mono_ns());
            t->state = T_DETACHED;
        } else {
            ptrace(PTRACE_CONT, tid, 0, ev ? 0 : WSTOPSIG(status));
        }
    }
}

/* Seize pid and stop every thread once.  0, or -1 with err and *code. */
static int stop_all(struct pt_sampler *s, char *err, size_t errlen, int *code)
{
    if (pt_attach(s, err, errlen, code) < 0)
        return -1;
    if (!(s->unw = unwinder_new(s->pid, err, errlen)))
        return -1;
    pt_stop_refresh_maps(s);
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        t->t_interrupt = clock_mono_ns();
        if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
            t->state = T_INTERRUPTED;
    }
    collect_stops(s);
    return 0;
}

static int copy_by_tid(const void *a, const void *b)
{
    pid_t x = ((const struct pt_copy *)a)->tid;
    pid_t y = ((const struct pt_copy *)b)->tid;
    return (x > y) - (x < y);
}

/* Hand over the maps, then unwind every copy (all threads detached by
 * now) and hand it over, then the threads that did not stop. */
static void hand_over(struct pt_sampler *s,
                      void (*fn)(void *ctx, const struct sampler_dump_thread *t))
{
    const struct sampler_config *cfg = &s->cfg;
    if (cfg->on_maps)
        cfg->on_maps(cfg->ctx, s->pid, s->gen, s->maps ? s->maps->text : "",
                     s->maps ? s->maps->text_len : 0);
    /* thread-id order (the leader first), not stop order */
    sorted_sort(s->copies, s->ncopies, sizeof *s->copies, copy_by_tid);
    for (size_t i = 0; i < s->ncopies; i++) {
        const struct pt_copy *c = &s->copies[i];
        struct sampler_dump_thread t = {.pid = s->pid, .tid = c->tid,
                                        .pcs = s->pcs};
        t.n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7],
                              c->len, s->pcs, cfg->max_depth, &t.end);
        fn(cfg->ctx, &t);
    }
    for (size_t i = 0; i < s->nthreads; i++) {
        if (s->threads[i]->state != T_INTERRUPTED)
            continue;
        struct sampler_dump_thread t = {.pid = s->pid,
                                        .tid = s->threads[i]->tid};
        fn(cfg->ctx, &t);
    }
}

int pt_dump(const struct sampler_config *cfg,
            void (*fn)(void *ctx, const struct sampler_dump_thread *t),
            char *err, size_t errlen, int *code)
{
    *code = 1;
    struct pt_sampler *s = pt_new(cfg);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->dump_mode = true;
    int rc = stop_all(s, err, errlen, code);
    if (rc == 0)
        hand_over(s, fn);
    /* Threads that never stopped stay seized until this process exits,
     * when the kernel detaches them without a stop. */
    pt_free(s);
    return rc;
}
