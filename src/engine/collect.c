/* collect.c - the live source; see collect.h.
 *
 * Owns the sampler, the ingest buffer, the fold (profile and symbolizer)
 * and the collector thread.  Lock order: none is nested; the collector
 * thread takes the ingest lock (swap) and the fold's locks one at a time.
 */
#include "collect.h"

#include "clock.h"
#include "dbgfetch.h"
#include "fold.h"
#include "ingest.h"
#include "profile.h"
#include "sym_store.h"
#include "symbols.h"
#include "target.h"
#include "vec.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INGEST_BYTES (8u << 20) /* per buffer: ~0.5 s of 64 threads x 1 kHz */
#define PERIOD_NS 50000000ull   /* collector wake-up */
#define PENDING_MAX 256         /* children reported, not yet attached */

/* One sampled process (-p takes a list): its sampler, its ingest buffer
 * and its fold (maps and symbolizer), adding into the first's profile. */
struct cproc {
    struct sampler *sampler;
    struct ingest *ingest;
    struct fold *fold;         /* procs[0]'s is the base, the others siblings */
    struct symbols *sym;       /* owned by fold; read for --stats after finish */
    pid_t pid;
    struct collect *c;
};

struct collect {
    struct source src;
    /* Processes: appended by collect_start, then (--children) by the
     * collector thread alone, under procs_lock, which the controlling
     * thread takes to walk them.  Each cproc stays where it is (it is
     * its sampler's ctx). */
    pthread_mutex_t procs_lock;
    struct cproc **procs;
    size_t nprocs, procs_cap;
    struct sampler_config child_cfg; /* --children: how to start one */
    bool children;
    atomic_bool closing;       /* finish began: attach no more children */

    /* children reported by samplers (on_child), for the collector */
    pthread_mutex_t pend_lock;
    pid_t pending[PENDING_MAX];
    unsigned npending;

    struct sampler *sampler;   /* procs[0]'s */
    struct fold *fold;         /* procs[0]'s: the profile every process adds to */
    struct dbgfetch *fetch;    /* debuginfod fetches, NULL when off */
    struct sym_store *store;   /* every process's modules (sym_store.h) */
    pid_t pid;                 /* procs[0]'s */

    pthread_t thread;          /* the collector */
    atomic_bool quit;
    atomic_bool finished;
    atomic_bool paused;        /* as last set by set_paused */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake;

    uint64_t t0_wall;
    char comm[64];
    char cmdline[256];
    bool idle;
};

/* sampler thread: the maps of a new generation */
static void on_maps(void *ctx, uint64_t gen, const char *text, size_t len)
{
    struct cproc *p = ctx;
    fold_add_maps(p->fold, gen, text, len);
}

/* sampler thread: a process forked a child (--children) */
static void on_child(void *ctx, pid_t pid)
{
    struct collect *c = ((struct cproc *)ctx)->c;
    pthread_mutex_lock(&c->pend_lock);
    if (c->npending < PENDING_MAX)
        c->pending[c->npending++] = pid;
    pthread_mutex_unlock(&c->pend_lock);
    pthread_mutex_lock(&c->wake_lock);
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->wake_lock);
}

/* Collector thread, or the controlling one once the collector has ended:
 * only the collector appends, so it walks the list unlocked. */
static void drain_once(struct collect *c)
{
    for (size_t i = 0; i < c->nprocs; i++) {
        const uint8_t *data;
        size_t len;
        ingest_swap(c->procs[i]->ingest, &data, &len);
        if (len)
            fold_records(c->procs[i]->fold, data, len);
        fold_update_names(c->procs[i]->fold);
    }
}

static struct cproc *proc_start(struct collect *c, const struct sampler_config *cfg,
                                char *err, size_t errlen, int *code);
static void proc_free(struct cproc *p);

/* Collector thread: attach to the children reported since the last tick
 * (one that is gone already, or refused, is let go without a word). */
static void adopt_children(struct collect *c)
{
    pid_t todo[PENDING_MAX];
    pthread_mutex_lock(&c->pend_lock);
    unsigned n = c->npending;
    memcpy(todo, c->pending, n * sizeof *todo);
    c->npending = 0;
    pthread_mutex_unlock(&c->pend_lock);
    for (unsigned k = 0; k < n && !atomic_load(&c->closing); k++) {
        bool known = false;
        for (size_t i = 0; i < c->nprocs && !known; i++)
            known = c->procs[i]->pid == todo[k];
        if (known)
            continue;
        pthread_mutex_lock(&c->procs_lock);
        struct sampler_config cfg = c->child_cfg;
        pthread_mutex_unlock(&c->procs_lock);
        cfg.pid = todo[k];
        char err[200];
        int code;
        struct cproc *p = proc_start(c, &cfg, err, sizeof err, &code);
        if (!p)
            continue;
        if (atomic_load(&c->paused))
            sampler_set_paused(p->sampler, true);
        pthread_mutex_lock(&c->procs_lock);
        int rc = VEC_RESERVE(c->procs, c->procs_cap, c->nprocs + 1);
        if (rc == 0)
            c->procs[c->nprocs++] = p;
        pthread_mutex_unlock(&c->procs_lock);
        if (rc < 0)
            proc_free(p);
    }
}

/* The figures of every process summed into *st, the first's for the rest;
 * the target state is the liveliest of theirs. */
static void get_stats(struct collect *c, struct sampler_stats *st)
{
    sampler_get_stats(c->sampler, st);
    pthread_mutex_lock(&c->procs_lock);
    for (size_t i = 1; i < c->nprocs; i++) {
        struct sampler_stats o;
        sampler_get_stats(c->procs[i]->sampler, &o);
        st->samples += o.samples;
        st->truncated += o.truncated;
        for (int k = 0; k < UNWIND_NCAUSES; k++)
            st->unwind_end[k] += o.unwind_end[k];
        st->lost += o.lost;
        st->lost_ring += o.lost_ring;
        st->throttled += o.throttled;
        st->events += o.events;
        st->threads += o.threads;
        st->threads_seen += o.threads_seen;
        if (o.target < st->target)
            st->target = o.target;
        if (!st->error[0])
            snprintf(st->error, sizeof st->error, "%s", o.error);
    }
    pthread_mutex_unlock(&c->procs_lock);
}

static void update_meta(struct collect *c)
{
    struct sampler_stats st;
    get_stats(c, &st);
    struct profile_meta m = {
        .pid = c->pid,
        .cmdline = c->cmdline,
        .comm = c->comm,
        .interval_ns = st.interval_ns,
        .start_ns = c->t0_wall,
        .duration_ns = st.elapsed_ns,
        .idle = c->idle,
    };
    fold_set_meta(c->fold, &m);
}

static void *collector_main(void *arg)
{
    struct collect *c = arg;
    sampler_block_signals();
    while (!atomic_load(&c->quit)) {
        if (c->children)
            adopt_children(c);
        drain_once(c);
        update_meta(c);
        /* The recent window moves with time even when no sample comes;
         * paused, it stays where the user stopped it. */
        if (!atomic_load(&c->paused))
            fold_advance(c->fold, clock_mono_ns());
        pthread_mutex_lock(&c->wake_lock);
        if (!atomic_load(&c->quit)) {
            /* pthread_cond_timedwait's default clock is CLOCK_REALTIME */
            uint64_t until = clock_wall_ns() + PERIOD_NS;
            struct timespec ts = {(time_t)(until / 1000000000ull),
                                  (long)(until % 1000000000ull)};
            pthread_cond_timedwait(&c->wake, &c->wake_lock, &ts);
        }
        pthread_mutex_unlock(&c->wake_lock);
    }
    return NULL;
}

/* --- source ops --------------------------------------------------------- */

static struct profile *op_snapshot(struct source *src)
{
    struct collect *c = src->impl;
    return fold_snapshot(c->fold);
}

static enum target_state target_state_of(int sampler_target)
{
    switch (sampler_target) {
    case SAMPLER_RUNNING: return TARGET_RUNNING;
    case SAMPLER_STOPPED: return TARGET_STOPPED;
    case SAMPLER_EXITED: return TARGET_EXITED;
    default: return TARGET_DETACHED;
    }
}

static void op_status(struct source *src, struct source_status *o)
{
    struct collect *c = src->impl;
    struct sampler_stats st;
    get_stats(c, &st);
    memset(o, 0, sizeof *o);
    o->pid = c->pid;
    snprintf(o->comm, sizeof o->comm, "%s", c->comm);
    snprintf(o->cmdline, sizeof o->cmdline, "%s", c->cmdline);
    o->state = target_state_of(st.target);
    o->exit_code = st.exit_code;
    o->exit_signal = st.exit_signal;
    o->idle = c->idle;
    o->paused = atomic_load(&c->paused);
    o->threads = st.threads;
    o->interval_ns = st.interval_ns;
    o->achieved_hz = st.target == SAMPLER_RUNNING ? st.achieved_hz : 0;
    o->samples = fold_samples(c->fold);
    o->unwind_failures = st.truncated;
    o->truncated_copy = st.unwind_end[UNWIND_COPY];
    o->lost = st.lost; /* ingest full, or the kernel's ring buffer full */
    o->throttled = st.throttled;
    snprintf(o->backend, sizeof o->backend, "%s", st.backend ? st.backend : "");
    snprintf(o->fallback, sizeof o->fallback, "%s", st.fallback);
    o->median_stop_ns = st.stop_median_ns;
    o->elapsed_ns = st.elapsed_ns;
    snprintf(o->error, sizeof o->error, "%.159s", st.error);
    struct dbgfetch_stats ds;
    dbgfetch_get_stats(c->fetch, &ds);
    o->debuginfod = c->fetch != NULL;
    o->dbg_pending = ds.pending;
    o->dbg_found = ds.found;
    o->dbg_missing = ds.missing;
    o->dbg_gave_up = ds.gave_up;
}

static uint64_t op_generation(struct source *src)
{
    struct collect *c = src->impl;
    return fold_generation(c->fold);
}

static int op_set_paused(struct source *src, bool paused)
{
    struct collect *c = src->impl;
    pthread_mutex_lock(&c->procs_lock);
    atomic_store(&c->paused, paused);
    for (size_t i = 0; i < c->nprocs; i++)
        sampler_set_paused(c->procs[i]->sampler, paused);
    pthread_mutex_unlock(&c->procs_lock);
    return 0;
}

static int op_set_interval(struct source *src, uint64_t ns)
{
    struct collect *c = src->impl;
    pthread_mutex_lock(&c->procs_lock);
    c->child_cfg.interval_ns = ns;
    c->child_cfg.interval_set = true;
    for (size_t i = 0; i < c->nprocs; i++)
        sampler_set_interval(c->procs[i]->sampler, ns);
    pthread_mutex_unlock(&c->procs_lock);
    return 0;
}

static int op_reset(struct source *src)
{
    struct collect *c = src->impl;
    fold_reset(c->fold);
    return 0;
}

static void stop_collector(struct collect *c)
{
    if (atomic_exchange(&c->quit, true))
        return;
    pthread_mutex_lock(&c->wake_lock);
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->wake_lock);
    pthread_join(c->thread, NULL);
}

static void op_finish(struct source *src)
{
    struct collect *c = src->impl;
    if (atomic_exchange(&c->finished, true))
        return;
    /* samplers first: after they have detached nothing new is pushed;
     * then the collector, after which no child is added */
    atomic_store(&c->closing, true);
    pthread_mutex_lock(&c->procs_lock);
    for (size_t i = 0; i < c->nprocs; i++)
        sampler_halt(c->procs[i]->sampler);
    pthread_mutex_unlock(&c->procs_lock);
    stop_collector(c);
    for (size_t i = 0; i < c->nprocs; i++) /* one the collector just added */
        sampler_halt(c->procs[i]->sampler);
    /* both buffers: the one the collector had not swapped yet, then the
     * one the sampler was filling */
    drain_once(c);
    drain_once(c);
    update_meta(c);
}

/* Free what collect_start made; the threads have ended (or never ran). */
static void proc_free(struct cproc *p)
{
    if (!p)
        return;
    sampler_stop(p->sampler);
    fold_free(p->fold);
    ingest_free(p->ingest);
    free(p);
}

static void collect_free(struct collect *c)
{
    for (size_t i = c->nprocs; i-- > 0;)
        proc_free(c->procs[i]); /* siblings before the base */
    free(c->procs);
    sym_store_free(c->store);  /* after the symbolizers */
    dbgfetch_free(c->fetch);   /* after the store that asks it */
    pthread_mutex_destroy(&c->procs_lock);
    pthread_mutex_destroy(&c->pend_lock);
    pthread_mutex_destroy(&c->wake_lock);
    pthread_cond_destroy(&c->wake);
    free(c);
}

static void op_close(struct source *src)
{
    struct collect *c = src->impl;
    op_finish(src);
    collect_free(c);
}

static void print_thread(void *ctx, const struct sampler_thread_stats *t)
{
    FILE *f = ctx;
    double secs = (double)t->alive_ns / 1e9;
    fprintf(f, "  %-8d %-16s %8" PRIu64 " samples  %8.1f Hz over %.2f s  (due %" PRIu64 ")\n",
            (int)t->tid, t->name, t->samples, secs > 0 ? (double)t->samples / secs : 0.0,
            secs, t->due);
}

static void print_sampler(const struct sampler_stats *st, FILE *f)
{
    fprintf(f, "sampler: %s, %u-byte stack copies%s%s\n", st->backend ? st->backend : "?",
            st->stack_bytes, st->fallback[0] ? "; " : "", st->fallback);
    if (st->backend && strcmp(st->backend, "perf") == 0)
        fprintf(f, "perf: %u events open; lost in the ring buffers %" PRIu64 ", throttled %" PRIu64
                "; off-CPU: %" PRIu64 " switch-outs, %.3f s\n", st->events, st->lost_ring,
                st->throttled, st->offcpu, (double)st->offcpu_ns / 1e9);
    fprintf(f, "samples: %" PRIu64 " (%" PRIu64 " reused idle stacks), stops %" PRIu64
            " (%" PRIu64 " of blocked threads), lost %" PRIu64 ", missed ticks %" PRIu64
            ", dropped at a library swap %" PRIu64 "\n",
            st->samples, st->reused, st->stops, st->stops_blocked, st->lost, st->missed,
            st->stale_maps);
    fprintf(f, "threads: %u live, %u seen\n", st->threads, st->threads_seen);
}

static void print_costs(const struct sampler_stats *st, FILE *f)
{
    fprintf(f, "target stop time per sample: median %.1f us, p99 %.1f us, max %.1f us"
            " (interrupt->stop seen: median %.1f us)\n",
            (double)st->stop_median_ns / 1e3, (double)st->stop_p99_ns / 1e3,
            (double)st->stop_max_ns / 1e3, (double)st->latency_median_ns / 1e3);
    fprintf(f, "tracer CPU: %.1f ms total, %.1f us per sample; unwind median %.1f us\n",
            (double)st->tracer_cpu_ns / 1e6,
            st->samples ? (double)st->tracer_cpu_ns / 1e3 / (double)st->samples : 0.0,
            (double)st->unwind_median_ns / 1e3);
    uint64_t all = clock_process_cpu_ns();
    fprintf(f, "sproftop CPU (all threads): %.1f ms, %.1f us per sample\n", (double)all / 1e6,
            st->samples ? (double)all / 1e3 / (double)st->samples : 0.0);
    fprintf(f, "unwind: %" PRIu64 " truncated;", st->truncated);
    for (int i = 0; i < UNWIND_NCAUSES; i++)
        fprintf(f, " %s %" PRIu64, unwind_end_name((enum unwind_end)i), st->unwind_end[i]);
    fprintf(f, "\n");
    fprintf(f, "signals re-injected: %" PRIu64 ", group stops: %" PRIu64
            ", EINTR restarts: %" PRIu64 ", stops that found the thread asleep"
            " (not counted): %" PRIu64 ", interrupts given up: %" PRIu64 "\n",
            st->signals, st->group_stops, st->eintr_restarts, st->discarded,
            st->given_up);
}

static void print_debuginfo(struct cproc *p, const struct symbols_stats *ss,
                            FILE *f)
{
    fprintf(f, "debug info: %" PRIu64 " modules without it", ss->no_debuginfo);
    if (!p->c->fetch) {
        fprintf(f, "; debuginfod off\n");
        return;
    }
    struct dbgfetch_stats ds;
    struct fold_stats fs;
    dbgfetch_get_stats(p->c->fetch, &ds);
    fold_get_stats(p->fold, &fs);
    fprintf(f, "; debuginfod: %u found, %u missing, %u gave up after %u s,"
            " %u pending%s%s\n",
            ds.found, ds.missing, ds.gave_up, ds.timeout_s, ds.pending,
            ds.error[0] ? "; last error: " : "", ds.error);
    fprintf(f, "late names: %" PRIu64 " modules given debug info, %" PRIu64
            " frames renamed, %" PRIu64 " samples taken before\n",
            ss->late_debuginfo, fs.renamed, fs.samples_before);
}

static void print_proc(struct collect *c, struct cproc *p, FILE *f)
{
    struct sampler_stats st;
    sampler_get_stats(p->sampler, &st);
    struct symbols_stats ss;
    symbols_get_stats(p->sym, &ss);
    double asked = st.interval_ns ? 1e9 / (double)st.interval_ns : 0;
    fprintf(f, "sproftop stats: PID %d, %.2f s, asked %.1f Hz per thread, mode %s\n",
            (int)p->pid, (double)st.elapsed_ns / 1e9, asked, c->idle ? "idle (wall-clock)" : "on-CPU");
    print_sampler(&st, f);
    sampler_foreach_thread(p->sampler, print_thread, f);
    print_costs(&st, f);
    fprintf(f, "symbols: %" PRIu64 " lookups, %.1f%% cache hits, %" PRIu64
            " misses at %.1f us each, %" PRIu64 " map reloads\n",
            ss.lookups, ss.lookups ? 100.0 * (double)ss.hits / (double)ss.lookups : 0.0,
            ss.misses, ss.misses ? (double)ss.miss_ns / 1e3 / (double)ss.misses : 0.0,
            ss.reloads);
    print_debuginfo(p, &ss, f);
}

static void op_print_stats(struct source *src, FILE *f)
{
    struct collect *c = src->impl;
    pthread_mutex_lock(&c->procs_lock);
    for (size_t i = 0; i < c->nprocs; i++)
        print_proc(c, c->procs[i], f);
    pthread_mutex_unlock(&c->procs_lock);
    sym_store_print_stats(c->store, f);
}

static const struct source_ops live_ops = {
    .snapshot = op_snapshot,
    .status = op_status,
    .generation = op_generation,
    .set_paused = op_set_paused,
    .set_interval = op_set_interval,
    .reset = op_reset,
    .close = op_close,
    .finish = op_finish,
    .print_stats = op_print_stats,
};

/* --- start -------------------------------------------------------------- */

/* Start sampling one process (cfg->pid, or cfg->argv to launch) into a
 * new fold: the base for the first, a sibling of procs[0]'s after.
 * NULL with err and *code on failure. */
static struct cproc *proc_start(struct collect *c, const struct sampler_config *cfg_in,
                                char *err, size_t errlen, int *code)
{
    struct cproc *p = calloc(1, sizeof *p);
    if (p) {
        p->c = c;
        p->ingest = ingest_new(INGEST_BYTES);
        p->fold = c->nprocs ? fold_new_sibling(c->procs[0]->fold) : fold_new();
    }
    if (!p || !p->ingest || !p->fold) {
        snprintf(err, errlen, "out of memory");
        *code = 1;
        proc_free(p);
        return NULL;
    }
    struct sampler_config cfg = *cfg_in;
    cfg.ingest = p->ingest;
    cfg.on_maps = on_maps;
    cfg.on_child = c->children ? on_child : NULL;
    cfg.ctx = p;
    p->sampler = sampler_start(&cfg, err, errlen, code);
    if (!p->sampler) {
        proc_free(p);
        return NULL;
    }
    p->pid = sampler_pid(p->sampler);
    p->sym = symbols_new(c->store, p->pid, err, errlen);
    if (!p->sym) {
        proc_free(p);
        return NULL;
    }
    fold_set_symbols(p->fold, p->sym);
    char comm[64];
    target_thread_name(p->pid, p->pid, comm, sizeof comm);
    fold_set_process(p->fold, p->pid, comm);
    return p;
}

struct source *collect_start(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code)
{
    return collect_start_pids(cfg, &cfg->pid, 1, false, err, errlen, code);
}

static struct source *start_many(const struct sampler_config *cfg,
                                  const pid_t *pids, size_t npids,
                                  bool children, bool all, char *err,
                                  size_t errlen, int *code);

struct source *collect_start_pids(const struct sampler_config *cfg,
                                  const pid_t *pids, size_t npids,
                                  bool children, char *err, size_t errlen,
                                  int *code)
{
    return start_many(cfg, pids, npids, children, false, err, errlen, code);
}

/* Whether this process may sample every process: root, CAP_PERFMON (or
 * CAP_SYS_ADMIN), or perf_event_paranoid <= 0.  0, or -1 with which one
 * is missing in err. */
static int all_allowed(char *err, size_t errlen)
{
    int paranoid = 2;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = 2;
        fclose(f);
    }
    unsigned long long caps = 0;
    char line[256];
    if ((f = fopen("/proc/self/status", "r"))) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "CapEff: %llx", &caps) == 1)
                break;
        fclose(f);
    }
    bool perfmon = caps & (1ull << 38), sys_admin = caps & (1ull << 21);
    if (geteuid() == 0 || perfmon || sys_admin || paranoid <= 0)
        return 0;
    snprintf(err, errlen, "-a samples every process: it needs root, CAP_PERFMON "
             "or perf_event_paranoid <= 0 (it is %d; sysctl "
             "kernel.perf_event_paranoid=0)", paranoid);
    return -1;
}

struct source *collect_start_all(const struct sampler_config *cfg, char *err,
                                 size_t errlen, int *code)
{
    *code = 1;
    if (all_allowed(err, errlen) < 0)
        return NULL;
    DIR *d = opendir("/proc");
    if (!d) {
        snprintf(err, errlen, "cannot list /proc: %s", strerror(errno));
        return NULL;
    }
    pid_t *pids = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    char why[200];
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || (pid_t)pid == getpid() ||
            target_check((pid_t)pid, why, sizeof why) < 0)
            continue;
        if (VEC_RESERVE(pids, cap, n + 1) < 0)
            break;
        pids[n++] = (pid_t)pid;
    }
    closedir(d);
    struct source *src = NULL;
    if (!n)
        snprintf(err, errlen, "no process to sample");
    else
        src = start_many(cfg, pids, n, true, true, err, errlen, code);
    free(pids);
    return src;
}

static struct source *start_many(const struct sampler_config *cfg,
                                  const pid_t *pids, size_t npids,
                                  bool children, bool all, char *err,
                                  size_t errlen, int *code)
{
    *code = 1;
    struct sampler_config many = *cfg;
    if (npids > 1 || children) {
        /* Each ptrace sampler thread waits with waitpid(-1), which also
         * reaps the stops of the other threads' tracees; and only perf
         * reports forks without stopping anyone. */
        if (cfg->kind == SAMPLER_PTRACE) {
            snprintf(err, errlen, "%s need the perf_event sampler "
                     "(--sampler ptrace takes one process)",
                     children ? "--children" : "several PIDs");
            *code = 2;
            return NULL;
        }
        many.kind = SAMPLER_PERF;
        cfg = &many;
    }
    struct collect *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->procs_lock, NULL);
    pthread_mutex_init(&c->pend_lock, NULL);
    pthread_mutex_init(&c->wake_lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    c->src.ops = &live_ops;
    c->src.impl = c;
    c->idle = cfg->idle;
    c->children = children;
    c->child_cfg = *cfg;
    c->child_cfg.argv = NULL;
    c->t0_wall = clock_wall_ns();
    c->fetch = dbgfetch_new();  /* NULL: $DEBUGINFOD_URLS names no server */
    if (!(c->store = sym_store_new(c->fetch))) {
        snprintf(err, errlen, "out of memory");
        collect_free(c);
        return NULL;
    }
    for (size_t i = 0; i < (npids ? npids : 1); i++) {
        struct sampler_config one = *cfg;
        if (npids)
            one.pid = pids[i];
        char why[200];
        struct cproc *p = NULL;
        if (VEC_RESERVE(c->procs, c->procs_cap, c->nprocs + 1) < 0) {
            snprintf(why, sizeof why, "out of memory");
        } else if ((p = proc_start(c, &one, why, sizeof why, code))) {
            c->procs[c->nprocs++] = p;
        }
        if (!p && all) /* a process gone meanwhile */
            continue;
        if (!p) {
            char name[24];
            snprintf(name, sizeof name, "PID %d", npids ? (int)pids[i] : 0);
            if (npids > 1 && !strstr(why, name))
                snprintf(err, errlen, "%s: %s", name, why);
            else
                snprintf(err, errlen, "%s", why);
            collect_free(c);
            return NULL;
        }
        if (c->nprocs == 1) {
            c->sampler = p->sampler;
            c->fold = p->fold;
            c->pid = p->pid;
        }
    }
    if (!c->nprocs) {
        snprintf(err, errlen, "no process could be sampled");
        collect_free(c);
        return NULL;
    }
    if (all) {
        snprintf(c->comm, sizeof c->comm, "all");
        snprintf(c->cmdline, sizeof c->cmdline, "every process (-a)");
    } else {
        target_thread_name(c->pid, c->pid, c->comm, sizeof c->comm);
        target_cmdline(c->pid, c->cmdline, sizeof c->cmdline);
    }
    update_meta(c);
    if (pthread_create(&c->thread, NULL, collector_main, c) != 0) {
        snprintf(err, errlen, "cannot start the collector thread");
        collect_free(c);
        return NULL;
    }
    return &c->src;
}
