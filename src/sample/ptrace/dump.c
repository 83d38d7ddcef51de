/* dump.c - --dump; see dump.h. */
#include "dump.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "maps.h"
#include "ptrace_int.h"
#include "symbols.h"
#include "target.h"

#define DUMP_DEPTH 512             /* frames unwound per thread */
#define DUMP_WAIT_NS 1000000000ull /* how long threads get to stop */
#define DUMP_INLINE 16             /* frames one address can expand to */

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

static void print_frames(FILE *out, struct symbols *sym, const uint64_t *pcs,
                         int n, enum unwind_end end)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        struct sym_frame sf[DUMP_INLINE];
        int nf = symbols_lookup(sym, pcs[i], i > 0, sf, DUMP_INLINE);
        for (int j = 0; j < nf; j++) {
            fprintf(out, "#%-3d 0x%016llx %s", k++, (unsigned long long)pcs[i],
                    sf[j].name);
            if (sf[j].module)
                fprintf(out, " (%s)", sf[j].module);
            if (sf[j].file && sf[j].line)
                fprintf(out, " %s:%u", sf[j].file, sf[j].line);
            if (sf[j].inlined)
                fprintf(out, " [inlined]");
            fprintf(out, "\n");
        }
    }
    if (end != UNWIND_COMPLETE)
        fprintf(out, "#%-3d [truncated: %s]\n", k, unwind_end_name(end));
}

static void print_header(FILE *out, pid_t pid, pid_t tid)
{
    char name[32];
    target_thread_name(pid, tid, name, sizeof name);
    fprintf(out, "Thread %d (%s):\n", (int)tid, name);
}

static int copy_by_tid(const void *a, const void *b)
{
    pid_t x = ((const struct copy *)a)->tid, y = ((const struct copy *)b)->tid;
    return (x > y) - (x < y);
}

/* Unwind, symbolize and print every copy (all threads detached by now),
 * then the threads that did not stop. */
static void print_all(struct pt_sampler *s, struct symbols *sym, FILE *out)
{
    symbols_load_maps(sym, s->maps ? s->maps->text : "",
                      s->maps ? s->maps->text_len : 0);
    /* thread-id order (the leader first), not stop order */
    qsort(s->copies, s->ncopies, sizeof *s->copies, copy_by_tid);
    for (size_t i = 0; i < s->ncopies; i++) {
        const struct copy *c = &s->copies[i];
        enum unwind_end end;
        int n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7],
                                c->len, s->pcs, s->cfg.max_depth, &end);
        print_header(out, s->pid, c->tid);
        print_frames(out, sym, s->pcs, n, end);
        fprintf(out, "\n");
    }
    for (size_t i = 0; i < s->nthreads; i++) {
        if (s->threads[i]->state != T_INTERRUPTED)
            continue;
        print_header(out, s->pid, s->threads[i]->tid);
        fprintf(out, "    (did not stop within 1 s; not shown)\n\n");
    }
}

int dump_run(pid_t pid, FILE *out, char *err, size_t errlen, int *code)
{
    *code = 1;
    struct symbols *sym = symbols_new(NULL, pid, err, errlen);
    if (!sym)
        return -1;
    struct sampler_config cfg;
    sampler_config_default(&cfg);
    cfg.pid = pid;
    cfg.max_depth = DUMP_DEPTH;
    struct pt_sampler *s = pt_new(&cfg);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        symbols_free(sym);
        return -1;
    }
    s->dump_mode = true;
    int rc = stop_all(s, err, errlen, code);
    if (rc == 0)
        print_all(s, sym, out);
    /* Threads that never stopped stay seized until this process exits,
     * when the kernel detaches them without a stop. */
    pt_free(s);
    symbols_free(sym);
    return rc;
}
