/* collect.c - the live source; see collect.h.
 *
 * Owns the sampler (one, whatever the number of processes), its ingest
 * buffer, the folds (a base holding the profile, and one sibling per
 * process: its maps, pc cache and symbolizer) and the collector thread.
 * The sampler announces each process (on_process) before its first maps
 * or record; the collector hands each run of records to the fold of the
 * process it names.  Lock order: none is nested; the collector thread
 * takes the ingest lock (swap), procs_lock and the fold's locks one at a
 * time.
 */
#include "collect.h"

#include "annot.h"
#include "clock.h"
#include "dbgfetch.h"
#include "fold.h"
#include "idtab.h"
#include "ingest.h"
#include "profile.h"
#include "sym_preload.h"
#include "sym_store.h"
#include "symbols.h"
#include "target.h"
#include "tasks.h"
#include "util.h"
#include "vec.h"

#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INGEST_BYTES (8u << 20) /* per buffer: ~0.5 s of 64 threads x 1 kHz */
#define PERIOD_NS 200000000ull  /* collector wake-up: as often as the
                                   sampler that never stops the target
                                   drains its rings */

/* One sampled process (one image of it: an exec makes another): its
 * fold, adding into the base's profile. */
struct cproc {
    struct fold *fold;         /* with its symbolizer, released when the
                                  process exits (INGEST_EXIT) */
    pid_t pid;
    bool old;                  /* a newer one has its pid */
    char *maps;                /* the text of its last maps, for its code
                                  once it has exited (annot.h); swapped
                                  under procs_lock */
    size_t maps_len;
};

struct collect {
    struct source src;
    /* Processes: appended by the sampler thread (on_process), looked up
     * by it (on_maps) and by the collector, walked by the controlling
     * thread, all under procs_lock.  Each cproc stays where it is. */
    pthread_mutex_t procs_lock;
    struct cproc **procs;
    size_t nprocs, procs_cap;
    struct idtab ids;          /* pid -> procs index (the newest image) */

    struct sampler *sampler;
    struct ingest *ingest;
    struct fold *fold;         /* the base: the profile every process adds to */
    struct dbgfetch *fetch;    /* debuginfod fetches for all, NULL when off */
    struct sym_store *store;   /* every process's modules (sym_store.h) */
    struct tasks *tasks;       /* the live threads' figures (tasks.h) */
    struct sym_preload pre;    /* a launched command's modules, loaded
                                  before it started, held until it exits
                                  (its symbolizers find them there) */
    pid_t pid;                 /* the first target (0 with -a) */

    pthread_t thread;          /* the collector */
    atomic_bool quit;
    atomic_bool finished;
    atomic_bool paused;        /* as last set by set_paused */
    atomic_uint_fast64_t min_interval; /* shortest interval asked so far:
                                  the profile's nominal interval, so no
                                  on-CPU sample counts less than 1 */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake;

    bool launched;             /* cfg.argv: a command was launched */
    uint64_t t0_wall;
    char comm[64];
    char cmdline[256];
    bool idle;
};

struct pid_key {
    struct collect *c;
    pid_t pid;
};

static int proc_eq(void *ctx, uint32_t id)
{
    const struct pid_key *k = ctx;
    return k->c->procs[id]->pid == k->pid && !k->c->procs[id]->old;
}

/* The newest image of pid; procs_lock held.  NULL when not announced. */
static struct cproc *proc_find(struct collect *c, pid_t pid)
{
    struct pid_key k = {c, pid};
    uint32_t i = idtab_find(&c->ids, util_mix64((uint64_t)pid), proc_eq, &k);
    return i == IDTAB_NONE ? NULL : c->procs[i];
}

static void proc_free(struct cproc *p)
{
    if (!p)
        return;
    fold_free(p->fold);
    free(p->maps);
    free(p);
}

/* A fold for process pid, its samples marked with it, named comm.  Its
 * symbolizer is made now, while the process surely exists.  NULL on
 * failure (its records are then dropped). */
static struct cproc *proc_new(struct collect *c, pid_t pid, const char *comm)
{
    struct cproc *p = calloc(1, sizeof *p);
    struct symbols *sym = NULL;
    char err[200];
    if (!p || !(p->fold = fold_new_sibling(c->fold)) ||
        !(sym = symbols_new(c->store, pid, err, sizeof err))) {
        proc_free(p);
        return NULL;
    }
    p->pid = pid;
    fold_set_symbols(p->fold, sym);
    fold_set_process(p->fold, pid, comm);
    return p;
}

/* sampler thread: a process (or a new image of one, or a new process
 * with a pid used before) will be named: its records go to a new fold */
static void on_process(void *ctx, pid_t pid, const char *comm, bool exec)
{
    struct collect *c = ctx;
    (void)exec;
    struct cproc *p = proc_new(c, pid, comm);
    if (!p)
        return;
    pthread_mutex_lock(&c->procs_lock);
    int rc = VEC_RESERVE(c->procs, c->procs_cap, c->nprocs + 1);
    if (rc == 0)
        rc = idtab_reserve(&c->ids, c->nprocs + 1);
    if (rc == 0) {
        struct cproc *prev = proc_find(c, pid);
        if (prev)
            prev->old = true;
        c->procs[c->nprocs] = p;
        idtab_insert(&c->ids, util_mix64((uint64_t)pid), (uint32_t)c->nprocs);
        c->nprocs++;
    }
    pthread_mutex_unlock(&c->procs_lock);
    if (rc < 0)
        proc_free(p);
}

/* sampler thread: the maps of a new generation of process pid */
static void on_maps(void *ctx, pid_t pid, uint64_t gen, const char *text, size_t len)
{
    struct collect *c = ctx;
    char *copy = malloc(len ? len : 1);  /* not under the lock */
    if (copy)
        memcpy(copy, text, len);
    pthread_mutex_lock(&c->procs_lock);
    struct cproc *p = proc_find(c, pid);
    if (p && copy) {
        char *old = p->maps;
        p->maps = copy;
        p->maps_len = len;
        copy = old;
    }
    pthread_mutex_unlock(&c->procs_lock);
    free(copy);
    if (p)
        fold_add_maps(p->fold, gen, text, len);
}

/* Collector thread, or the controlling one once the collector has ended:
 * every run of records to its process's fold. */
static void drain_once(struct collect *c)
{
    const uint8_t *data;
    size_t len, off = 0, n;
    int32_t pid;
    ingest_swap(c->ingest, &data, &len);
    while ((n = ingest_run(data, len, off, &pid)) > 0) {
        pthread_mutex_lock(&c->procs_lock);
        struct cproc *p = proc_find(c, (pid_t)pid);
        pthread_mutex_unlock(&c->procs_lock);
        if (p)
            fold_records(p->fold, data + off, n);
        /* the launched command is gone: what was loaded for it goes
         * now, as what it used does (the store's thread: collector) */
        if (p && c->pre.n && pid == c->pid && fold_released(p->fold))
            sym_preload_release(&c->pre, c->store);
        off += n;
    }
    pthread_mutex_lock(&c->procs_lock);
    size_t np = c->nprocs;
    pthread_mutex_unlock(&c->procs_lock);
    for (size_t i = 0; i < np; i++) {
        pthread_mutex_lock(&c->procs_lock);
        struct cproc *p = c->procs[i];
        pthread_mutex_unlock(&c->procs_lock);
        fold_update_names(p->fold);
    }
}

static void get_stats(struct collect *c, struct sampler_stats *st)
{
    sampler_get_stats(c->sampler, st);
}

/* The sampler runs at `ns` now: the nominal interval is the shortest. */
static uint64_t note_interval(struct collect *c, uint64_t ns)
{
    uint_fast64_t cur = atomic_load(&c->min_interval);
    while (ns && (!cur || ns < cur) &&
           !atomic_compare_exchange_weak(&c->min_interval, &cur, ns))
        ;
    return atomic_load(&c->min_interval);
}

static void update_meta(struct collect *c)
{
    struct sampler_stats st;
    get_stats(c, &st);
    struct profile_meta m = {
        .pid = c->pid,
        .cmdline = c->cmdline,
        .comm = c->comm,
        .interval_ns = note_interval(c, st.interval_ns),
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
        drain_once(c);
        update_meta(c);
        /* The recent window moves with time even when no sample comes;
         * paused, it stays where the user stopped it. */
        if (!atomic_load(&c->paused))
            fold_advance(c->fold, clock_mono_ns());
        tasks_refresh(c->tasks, c->sampler, clock_mono_ns());
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

static void cut_note(struct collect *c, const struct sampler_stats *st,
                     char *buf, size_t n);

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
    cut_note(c, &st, o->copy_note, sizeof o->copy_note);
    o->lost = st.lost; /* ingest full, or the kernel's ring buffer full */
    o->throttled = st.throttled;
    snprintf(o->backend, sizeof o->backend, "%s", st.backend ? st.backend : "");
    snprintf(o->fallback, sizeof o->fallback, "%s", st.fallback);
    snprintf(o->script, sizeof o->script, "%s", st.script);
    o->median_stop_ns = st.stop_median_ns;
    o->stops_target = !(st.caps & SAMPLER_CAP_NOSTOP);
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
    atomic_store(&c->paused, paused);
    sampler_set_paused(c->sampler, paused);
    return 0;
}

static int op_set_interval(struct source *src, uint64_t ns)
{
    struct collect *c = src->impl;
    struct sampler_stats st;
    sampler_set_interval(c->sampler, ns);
    get_stats(c, &st);  /* the interval as the sampler clamped it */
    note_interval(c, st.interval_ns);
    return 0;
}

static int op_reset(struct source *src)
{
    struct collect *c = src->impl;
    fold_reset(c->fold);
    return 0;
}

static void wake_collector(struct collect *c)
{
    pthread_mutex_lock(&c->wake_lock);
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->wake_lock);
}

static int op_tasks(struct source *src, struct source_tasks *out)
{
    struct collect *c = src->impl;
    bool wake;
    int rc = tasks_copy(c->tasks, out, clock_mono_ns(), &wake);
    if (wake && !atomic_load(&c->quit))
        wake_collector(c); /* nobody asked for a while: a table now */
    return rc;
}

static void stop_collector(struct collect *c)
{
    if (atomic_exchange(&c->quit, true))
        return;
    wake_collector(c);
    pthread_join(c->thread, NULL);
}

static void op_finish(struct source *src)
{
    struct collect *c = src->impl;
    if (atomic_exchange(&c->finished, true))
        return;
    /* the sampler first: after it has detached nothing new is pushed */
    sampler_halt(c->sampler);
    stop_collector(c);
    /* both buffers: the one the collector had not swapped yet, then the
     * one the sampler was filling */
    drain_once(c);
    drain_once(c);
    update_meta(c);
}

/* Free what collect_start made; the threads have ended (or never ran). */
static void collect_free(struct collect *c)
{
    sampler_stop(c->sampler);
    for (size_t i = c->nprocs; i-- > 0;)
        proc_free(c->procs[i]); /* siblings before the base */
    fold_free(c->fold);
    if (c->store)
        sym_preload_release(&c->pre, c->store); /* still running */
    sym_store_free(c->store); /* after the symbolizers */
    dbgfetch_free(c->fetch);  /* after the store that asks it */
    ingest_free(c->ingest);
    tasks_free(c->tasks);
    free(c->procs);
    idtab_free(&c->ids);
    pthread_mutex_destroy(&c->procs_lock);
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
    fprintf(f, "  %-8d %-16s %8" PRIu64 " samples  %8.1f Hz over %.2f s  (due %" PRIu64
            ", PID %d)\n", (int)t->tid, t->name, t->samples, secs > 0 ? (double)t->samples / secs : 0.0,
            secs, t->due, (int)t->pid);
}

/* The processes whose stacks the stack copy cuts short, worst first:
 * found in two walks of the sampler's threads (which pids: those of the
 * CUT_MAX threads cut most; then their sums), with no allocation under
 * its stats lock. */
#define CUT_MAX 8
struct cut_proc {
    pid_t pid;
    char name[32];             /* its leader's name, else a thread's */
    uint64_t samples, cut;
};
struct cut_walk {
    struct cut_proc p[CUT_MAX];
    size_t n;
    bool sum;                  /* the second walk */
    bool summed;               /* ...has begun: the first's cuts reset */
};

static void cut_visit(void *ctx, const struct sampler_thread_stats *t)
{
    struct cut_walk *w = ctx;
    size_t i = 0;

    while (i < w->n && w->p[i].pid != t->pid)
        i++;
    if (!w->sum) {
        /* which: the processes of the threads cut most (a full table
         * gives up its least cut one) */
        size_t least = 0;
        for (size_t k = 1; k < w->n; k++)
            least = w->p[k].cut < w->p[least].cut ? k : least;
        if (!t->cut)
            return;
        if (i < w->n)
            w->p[i].cut = t->cut > w->p[i].cut ? t->cut : w->p[i].cut;
        else if (w->n < CUT_MAX)
            w->p[w->n++] = (struct cut_proc){ .pid = t->pid, .cut = t->cut };
        else if (t->cut > w->p[least].cut)
            w->p[least] = (struct cut_proc){ .pid = t->pid, .cut = t->cut };
        return;
    }
    if (!w->summed) {
        w->summed = true;
        for (size_t k = 0; k < w->n; k++)
            w->p[k].cut = 0;
    }
    if (i == w->n)
        return;
    w->p[i].samples += t->samples;
    w->p[i].cut += t->cut;
    if (!w->p[i].name[0] || t->tid == t->pid)
        snprintf(w->p[i].name, sizeof w->p[i].name, "%s", t->name);
}

static int cut_cmp(const void *a, const void *b)
{
    const struct cut_proc *x = a, *y = b;
    return (x->cut < y->cut) - (x->cut > y->cut);
}

/* Fills w (worst first); returns how many processes are cut. */
static size_t cut_procs(struct collect *c, struct cut_walk *w)
{
    memset(w, 0, sizeof *w);
    sampler_foreach_thread(c->sampler, cut_visit, w);
    w->sum = true;
    sampler_foreach_thread(c->sampler, cut_visit, w);
    qsort(w->p, w->n, sizeof w->p[0], cut_cmp);
    return w->n;
}

/* "stack copy too small for NAME (pid P): 40% of its stacks cut; try
 * --stack-size N" for the worst process, "" when none is cut. */
static void cut_note(struct collect *c, const struct sampler_stats *st,
                     char *buf, size_t n)
{
    struct cut_walk w;

    buf[0] = '\0';
    if (!st->unwind_end[UNWIND_COPY] || !cut_procs(c, &w))
        return;
    const struct cut_proc *p = &w.p[0];
    snprintf(buf, n, "stack copy too small for %s (pid %d)%s: %.0f%% of "
             "its stacks cut; try --stack-size %u", p->name, (int)p->pid,
             w.n > 1 ? " and others" : "",
             p->samples ? 100.0 * (double)p->cut / (double)p->samples : 0.0,
             2 * st->stack_bytes);
}

/* --stats: which processes the copy cuts, and by how much. */
static void print_cut(struct collect *c, const struct sampler_stats *st,
                      FILE *f)
{
    struct cut_walk w;

    if (!st->unwind_end[UNWIND_COPY] || !cut_procs(c, &w))
        return;
    fprintf(f, "stack copy too small: %" PRIu64 " stacks (%.1f%% of all);",
            st->unwind_end[UNWIND_COPY],
            st->samples ? 100.0 * (double)st->unwind_end[UNWIND_COPY] /
                              (double)st->samples : 0.0);
    for (size_t i = 0; i < w.n; i++)
        fprintf(f, "%s %s (pid %d) %" PRIu64 " of %" PRIu64, i ? "," : "",
                w.p[i].name, (int)w.p[i].pid, w.p[i].cut, w.p[i].samples);
    fprintf(f, "%s; try --stack-size %u\n", w.n == CUT_MAX ? ", ..." : "",
            2 * st->stack_bytes);
}

/* --stats: what every backend reports; each prints its own figures after
 * the threads (sampler_print_stats). */
static void print_sampler(const struct sampler_stats *st, FILE *f)
{
    fprintf(f, "sampler: %s, %u-byte stack copies%s%s\n", st->backend ? st->backend : "?",
            st->stack_bytes, st->fallback[0] ? "; " : "", st->fallback);
    fprintf(f, "samples: %" PRIu64 " (%" PRIu64 " reused idle stacks), stops %" PRIu64
            ", lost %" PRIu64 ", throttled %" PRIu64 "\n", st->samples, st->reused,
            st->stops, st->lost, st->throttled);
    fprintf(f, "threads: %u live, %u seen; processes: %u live, %u seen\n", st->threads,
            st->threads_seen, st->processes, st->processes_seen);
    if (st->script[0]) {
        /* the label names the language first: "Python 3.11.2", "Ruby
         * 3.1.2" */
        char lang[16], key[16];
        size_t n = strcspn(st->script, " :");
        if (n >= sizeof lang)
            n = sizeof lang - 1;
        memcpy(lang, st->script, n);
        lang[n] = '\0';
        for (size_t i = 0; i <= n; i++)
            key[i] = (char)tolower((unsigned char)lang[i]);
        fprintf(f, "%s: %s; %" PRIu64 " samples with %s frames,"
                " %s frames unreadable %" PRIu64 "\n", key, st->script,
                st->script_samples, lang, lang, st->script_torn);
    }
}

static void print_costs(const struct sampler_stats *st, FILE *f)
{
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
            ", EINTR restarts: %" PRIu64 "\n", st->signals, st->group_stops,
            st->eintr_restarts);
}

static void print_debuginfo(struct collect *c, const struct symbols_stats *ss,
                            const struct fold_stats *fs, FILE *f)
{
    fprintf(f, "debug info: %" PRIu64 " modules without it", ss->no_debuginfo);
    if (!c->fetch) {
        fprintf(f, "; debuginfod off\n");
        return;
    }
    struct dbgfetch_stats ds;
    dbgfetch_get_stats(c->fetch, &ds);
    fprintf(f, "; debuginfod: %u found, %u missing, %u gave up after %u s,"
            " %u pending%s%s\n",
            ds.found, ds.missing, ds.gave_up, ds.timeout_s, ds.pending,
            ds.error[0] ? "; last error: " : "", ds.error);
    fprintf(f, "late names: %" PRIu64 " modules given debug info, %" PRIu64
            " frames renamed, %" PRIu64 " samples taken before\n",
            ss->late_debuginfo, fs->renamed, fs->samples_before);
}

/* The symbolizers' and folds' figures summed over every process. */
static void sum_symbols(struct collect *c, struct symbols_stats *ss, struct fold_stats *fs)
{
    memset(ss, 0, sizeof *ss);
    memset(fs, 0, sizeof *fs);
    pthread_mutex_lock(&c->procs_lock);
    for (size_t i = 0; i < c->nprocs; i++) {
        struct symbols_stats o;
        struct fold_stats g;
        fold_get_symbols_stats(c->procs[i]->fold, &o);
        fold_get_stats(c->procs[i]->fold, &g);
        ss->lookups += o.lookups;
        ss->hits += o.hits;
        ss->misses += o.misses;
        ss->miss_ns += o.miss_ns;
        ss->reloads += o.reloads;
        ss->no_debuginfo += o.no_debuginfo;
        ss->late_debuginfo += o.late_debuginfo;
        fs->renamed += g.renamed;
        if (!fs->samples_before)
            fs->samples_before = g.samples_before;
    }
    pthread_mutex_unlock(&c->procs_lock);
}

static void op_print_stats(struct source *src, FILE *f)
{
    struct collect *c = src->impl;
    struct sampler_stats st;
    sampler_get_stats(c->sampler, &st);
    struct symbols_stats ss;
    struct fold_stats fs;
    sum_symbols(c, &ss, &fs);
    double asked = st.interval_ns ? 1e9 / (double)st.interval_ns : 0;
    fprintf(f, "sproftop stats: PID %d, %.2f s, asked %.1f Hz per thread, mode %s\n",
            (int)c->pid, (double)st.elapsed_ns / 1e9, asked,
            c->idle ? "idle (wall-clock)" : "on-CPU");
    print_sampler(&st, f);
    sampler_foreach_thread(c->sampler, print_thread, f);
    sampler_print_stats(c->sampler, f);
    print_costs(&st, f);
    print_cut(c, &st, f);
    fprintf(f, "symbols: %" PRIu64 " lookups, %.1f%% cache hits, %" PRIu64
            " misses at %.1f us each, %" PRIu64 " map reloads\n",
            ss.lookups, ss.lookups ? 100.0 * (double)ss.hits / (double)ss.lookups : 0.0,
            ss.misses, ss.misses ? (double)ss.miss_ns / 1e3 / (double)ss.misses : 0.0,
            ss.reloads);
    print_debuginfo(c, &ss, &fs, f);
    if (c->launched)
        fprintf(f, "loaded before the launch: %zu modules in %.1f ms (%s)\n",
                c->pre.loaded, (double)c->pre.ns / 1e6, c->pre.names);
    sym_store_print_stats(c->store, f);
}

/* The processes and their last maps, copied for annot_live: room is
 * made outside procs_lock (the sampler takes it: no allocation under
 * it), then filled under it, again if the maps grew meanwhile.  The
 * newest images first.  The count, or -1 on OOM. */
static long copy_procs(struct collect *c, struct annot_proc **out,
                       char **text)
{
    for (int tries = 0; tries < 4; tries++) {
        size_t cap, need = 0, used = 0;
        pthread_mutex_lock(&c->procs_lock);
        cap = c->nprocs;
        for (size_t i = 0; i < cap; i++)
            need += c->procs[i]->maps_len;
        pthread_mutex_unlock(&c->procs_lock);
        struct annot_proc *v = malloc((cap ? cap : 1) * sizeof *v);
        char *buf = malloc(need ? need : 1);
        if (!v || !buf) {
            free(v);
            free(buf);
            return -1;
        }
        bool fits = true;
        pthread_mutex_lock(&c->procs_lock);
        for (size_t i = 0; i < cap && fits; i++) {
            const struct cproc *p = c->procs[cap - 1 - i];
            fits = used + p->maps_len <= need;
            if (fits && p->maps)
                memcpy(buf + used, p->maps, p->maps_len);
            v[i] = (struct annot_proc){p->pid, NULL, p->maps ? p->maps_len : 0};
            used += v[i].len;
        }
        pthread_mutex_unlock(&c->procs_lock);
        if (!fits) {
            free(v);
            free(buf);
            continue;
        }
        for (size_t i = 0, o = 0; i < cap; o += v[i].len, i++)
            v[i].maps = v[i].len ? buf + o : NULL;
        *out = v;
        *text = buf;
        return (long)cap;
    }
    return -1;
}

/* The machine code of a function, from the file of one of the
 * processes that map (or mapped) it (annot.h). */
static struct annotation *op_annotate(struct source *src,
                                      const struct annot_request *rq)
{
    struct collect *c = src->impl;
    struct annot_proc *procs = NULL;
    char *text = NULL;
    long n = copy_procs(c, &procs, &text);
    if (n < 0)
        return NULL;
    struct annotation *a = annot_live(procs, (size_t)n, rq);
    free(procs);
    free(text);
    return a;
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
    .tasks = op_tasks,
    .annotate = op_annotate,
};

/* --- start -------------------------------------------------------------- */

static struct source *start(const struct sampler_config *cfg_in, char *err,
                            size_t errlen, int *code)
{
    *code = 1;
    struct sampler_config cfg = *cfg_in;
    struct collect *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->procs_lock, NULL);
    pthread_mutex_init(&c->wake_lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    c->src.ops = &live_ops;
    c->src.impl = c;
    c->idle = cfg.idle;
    c->t0_wall = clock_wall_ns();
    c->ingest = ingest_new(INGEST_BYTES);
    c->fold = fold_new();
    c->fetch = dbgfetch_new();  /* NULL: $DEBUGINFOD_URLS names no server */
    c->store = sym_store_new(c->fetch);
    c->tasks = tasks_new();
    if (!c->ingest || !c->fold || !c->store || !c->tasks) {
        snprintf(err, errlen, "out of memory");
        collect_free(c);
        return NULL;
    }
    /* A command to launch: its start-up symbol work is done now, before
     * it runs, not in its first fold (sym_preload.h). */
    c->launched = cfg.argv != NULL;
    if (c->launched)
        sym_preload_run(&c->pre, c->store, cfg.argv[0]);
    cfg.ingest = c->ingest;
    cfg.on_process = on_process;
    cfg.on_maps = on_maps;
    cfg.ctx = c;
    c->sampler = sampler_start(&cfg, err, errlen, code);
    if (!c->sampler) {
        collect_free(c);
        return NULL;
    }
    c->pid = sampler_pid(c->sampler);
    if (cfg.all) {
        snprintf(c->comm, sizeof c->comm, "all");
        snprintf(c->cmdline, sizeof c->cmdline, "every process (-a)");
    } else {
        target_thread_name(c->pid, c->pid, c->comm, sizeof c->comm);
        target_cmdline(c->pid, c->cmdline, sizeof c->cmdline);
        /* -p A,B: the session is all of them, "cmd A | cmd B" */
        for (size_t i = 1; i < cfg.npids && cfg.pids; i++) {
            char one[sizeof c->cmdline];
            size_t len = strlen(c->cmdline);
            target_cmdline(cfg.pids[i], one, sizeof one);
            snprintf(c->cmdline + len, sizeof c->cmdline - len, " | %s", one);
        }
    }
    update_meta(c);
    if (pthread_create(&c->thread, NULL, collector_main, c) != 0) {
        snprintf(err, errlen, "cannot start the collector thread");
        atomic_store(&c->quit, true); /* stop_collector: nothing to join */
        collect_free(c);
        return NULL;
    }
    return &c->src;
}

struct source *collect_start(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code)
{
    return start(cfg, err, errlen, code);
}

struct source *collect_start_pids(const struct sampler_config *cfg,
                                  const pid_t *pids, size_t npids,
                                  bool children, char *err, size_t errlen,
                                  int *code)
{
    struct sampler_config many = *cfg;
    many.pids = npids ? pids : NULL;
    many.npids = npids;
    many.children = children;
    return start(&many, err, errlen, code);
}

struct source *collect_start_all(const struct sampler_config *cfg, char *err,
                                 size_t errlen, int *code)
{
    struct sampler_config all = *cfg;
    all.all = true;
    all.pid = 0;
    all.argv = NULL;
    return start(&all, err, errlen, code);
}
