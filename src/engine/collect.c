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
#include "symbols.h"
#include "target.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INGEST_BYTES (8u << 20) /* per buffer: ~0.5 s of 64 threads x 1 kHz */
#define PERIOD_NS 50000000ull   /* collector wake-up */

struct collect {
    struct source src;
    struct sampler *sampler;
    struct ingest *ingest;
    struct fold *fold;
    struct symbols *sym;       /* owned by fold; read for --stats after finish */
    struct dbgfetch *fetch;    /* debuginfod fetches, NULL when off */
    pid_t pid;

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
    struct collect *c = ctx;
    fold_add_maps(c->fold, gen, text, len);
}

static void drain_once(struct collect *c)
{
    const uint8_t *data;
    size_t len;
    ingest_swap(c->ingest, &data, &len);
    if (len)
        fold_records(c->fold, data, len);
    fold_update_names(c->fold);
}

static void update_meta(struct collect *c)
{
    struct sampler_stats st;
    sampler_get_stats(c->sampler, &st);
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
    sampler_get_stats(c->sampler, &st);
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
    sampler_set_paused(c->sampler, paused);
    atomic_store(&c->paused, paused);
    return 0;
}

static int op_set_interval(struct source *src, uint64_t ns)
{
    struct collect *c = src->impl;
    sampler_set_interval(c->sampler, ns);
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
    /* sampler first: after it has detached nothing new is pushed */
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
    fold_free(c->fold);
    dbgfetch_free(c->fetch);  /* after the symbolizer that asks it */
    ingest_free(c->ingest);
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

static void print_debuginfo(struct collect *c, const struct symbols_stats *ss,
                            FILE *f)
{
    fprintf(f, "debug info: %" PRIu64 " modules without it", ss->no_debuginfo);
    if (!c->fetch) {
        fprintf(f, "; debuginfod off\n");
        return;
    }
    struct dbgfetch_stats ds;
    struct fold_stats fs;
    dbgfetch_get_stats(c->fetch, &ds);
    fold_get_stats(c->fold, &fs);
    fprintf(f, "; debuginfod: %u found, %u missing, %u gave up after %u s,"
            " %u pending%s%s\n",
            ds.found, ds.missing, ds.gave_up, ds.timeout_s, ds.pending,
            ds.error[0] ? "; last error: " : "", ds.error);
    fprintf(f, "late names: %" PRIu64 " modules given debug info, %" PRIu64
            " frames renamed, %" PRIu64 " samples taken before\n",
            ss->late_debuginfo, fs.renamed, fs.samples_before);
}

static void op_print_stats(struct source *src, FILE *f)
{
    struct collect *c = src->impl;
    struct sampler_stats st;
    sampler_get_stats(c->sampler, &st);
    struct symbols_stats ss;
    symbols_get_stats(c->sym, &ss);
    double asked = st.interval_ns ? 1e9 / (double)st.interval_ns : 0;
    fprintf(f, "sproftop stats: PID %d, %.2f s, asked %.1f Hz per thread, mode %s\n",
            (int)c->pid, (double)st.elapsed_ns / 1e9, asked, c->idle ? "idle (wall-clock)" : "on-CPU");
    print_sampler(&st, f);
    sampler_foreach_thread(c->sampler, print_thread, f);
    print_costs(&st, f);
    fprintf(f, "symbols: %" PRIu64 " lookups, %.1f%% cache hits, %" PRIu64
            " misses at %.1f us each, %" PRIu64 " map reloads\n",
            ss.lookups, ss.lookups ? 100.0 * (double)ss.hits / (double)ss.lookups : 0.0,
            ss.misses, ss.misses ? (double)ss.miss_ns / 1e3 / (double)ss.misses : 0.0,
            ss.reloads);
    print_debuginfo(c, &ss, f);
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

/* Attach (start the sampler) and name the target.  0, or -1 with err. */
static int attach(struct collect *c, const struct sampler_config *cfg_in,
                  char *err, size_t errlen, int *code)
{
    struct sampler_config cfg = *cfg_in;
    cfg.ingest = c->ingest;
    cfg.on_maps = on_maps;
    cfg.ctx = c;
    c->t0_wall = clock_wall_ns();
    c->sampler = sampler_start(&cfg, err, errlen, code);
    if (!c->sampler)
        return -1;
    c->pid = sampler_pid(c->sampler);
    target_thread_name(c->pid, c->pid, c->comm, sizeof c->comm);
    target_cmdline(c->pid, c->cmdline, sizeof c->cmdline);
    c->sym = symbols_new(c->pid, err, errlen);
    if (!c->sym)
        return -1;
    c->fetch = dbgfetch_new();  /* NULL: $DEBUGINFOD_URLS names no server */
    symbols_set_fetcher(c->sym, c->fetch);
    fold_set_symbols(c->fold, c->sym);
    return 0;
}

struct source *collect_start(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code)
{
    *code = 1;
    struct collect *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->wake_lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    c->src.ops = &live_ops;
    c->src.impl = c;
    c->idle = cfg->idle;
    c->ingest = ingest_new(INGEST_BYTES);
    c->fold = fold_new();
    if (!c->ingest || !c->fold) {
        snprintf(err, errlen, "out of memory");
        collect_free(c);
        return NULL;
    }
    if (attach(c, cfg, err, errlen, code) < 0) {
        collect_free(c);
        return NULL;
    }
    update_meta(c);
    if (pthread_create(&c->thread, NULL, collector_main, c) != 0) {
        snprintf(err, errlen, "cannot start the collector thread");
        collect_free(c);
        return NULL;
    }
    return &c->src;
}
