/* collect.c - live source; see collect.h. */
#include "collect.h"

#include "clock.h"
#include "ingest.h"
#include "profile.h"
#include "symbols.h"
#include "target.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INGEST_BYTES (8u << 20) /* per buffer: ~0.5 s of 64 threads x 1 kHz */
#define PERIOD_NS 50000000ull   /* collector wake-up */
#define MAX_INLINE 16           /* frames one address can expand to */

struct maps_gen {
    uint64_t gen;
    char *text;
    size_t len;
};

struct pc_slot {
    uint64_t key;   /* pc << 1 | is_return; 0 = empty */
    uint32_t off;   /* into frames pool */
    uint32_t n;
};

struct collect {
    struct source src;
    struct sampler *sampler;
    struct ingest *ingest;
    struct symbols *sym;
    pid_t pid;

    pthread_t thread;
    atomic_bool quit;
    atomic_bool finished;
    atomic_bool paused;        /* as last set by set_paused */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake;

    pthread_mutex_t maps_lock; /* guards gens (written by the sampler) */
    struct maps_gen *gens;
    size_t ngens, capgens;

    pthread_mutex_t prof_lock; /* guards prof */
    struct profile *prof;
    atomic_uint_fast64_t generation;

    /* collector-thread only */
    uint64_t cur_gen;
    struct pc_slot *pcs;
    size_t pcs_cap, pcs_used;
    struct stack_frame *pool;
    size_t pool_n, pool_cap;
    struct stack_frame *stack; /* scratch, leaf first then reversed */
    size_t stack_cap;
    uint32_t f_truncated;
    uint64_t t0_wall;
    char comm[64];
    char cmdline[256];
    bool idle;
};

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* sampler thread: remember the maps text of a generation */
static void on_maps(void *ctx, uint64_t gen, const char *text, size_t len)
{
    struct collect *c = ctx;
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, text, len);
    copy[len] = '\0';
    pthread_mutex_lock(&c->maps_lock);
    if (c->ngens == c->capgens) {
        size_t cap = c->capgens ? c->capgens * 2 : 4;
        struct maps_gen *n = realloc(c->gens, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&c->maps_lock);
            free(copy);
            return;
        }
        c->gens = n;
        c->capgens = cap;
    }
    c->gens[c->ngens++] = (struct maps_gen){gen, copy, len};
    pthread_mutex_unlock(&c->maps_lock);
}

/* Switch the symbolizer to generation gen (or the newest before it). */
static void use_gen(struct collect *c, uint64_t gen)
{
    pthread_mutex_lock(&c->maps_lock);
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < c->ngens; i++)
        if (c->gens[i].gen <= gen &&
            (best == SIZE_MAX || c->gens[i].gen > c->gens[best].gen))
            best = i;
    char *text = NULL;
    size_t len = 0;
    if (best != SIZE_MAX) {
        text = c->gens[best].text;
        len = c->gens[best].len;
        /* older generations will not be asked for again */
        size_t w = 0;
        for (size_t i = 0; i < c->ngens; i++) {
            if (c->gens[i].gen < c->gens[best].gen) {
                free(c->gens[i].text);
                continue;
            }
            c->gens[w++] = c->gens[i];
        }
        c->ngens = w;
    }
    pthread_mutex_unlock(&c->maps_lock);
    /* the text of `best` is only freed by a later use_gen on this thread */
    if (text)
        symbols_load_maps(c->sym, text, len);
    if (c->pcs)
        memset(c->pcs, 0, c->pcs_cap * sizeof *c->pcs);
    c->pcs_used = 0;
    c->pool_n = 0;
    c->cur_gen = gen;
}

static int pool_reserve(struct collect *c, size_t more)
{
    if (c->pool_n + more <= c->pool_cap)
        return 0;
    size_t cap = c->pool_cap ? c->pool_cap : 4096;
    while (cap < c->pool_n + more)
        cap *= 2;
    struct stack_frame *n = realloc(c->pool, cap * sizeof *n);
    if (!n)
        return -1;
    c->pool = n;
    c->pool_cap = cap;
    return 0;
}

static int pcs_grow(struct collect *c)
{
    size_t cap = c->pcs_cap ? c->pcs_cap * 2 : 4096;
    struct pc_slot *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < c->pcs_cap; i++) {
        if (!c->pcs[i].key)
            continue;
        size_t h = (size_t)(c->pcs[i].key * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (n[h].key)
            h = (h + 1) & (cap - 1);
        n[h] = c->pcs[i];
    }
    free(c->pcs);
    c->pcs = n;
    c->pcs_cap = cap;
    return 0;
}

/* Frames of one address, innermost first; NULL on OOM. */
static const struct pc_slot *lookup_pc(struct collect *c, uint64_t pc, bool is_ret)
{
    if ((c->pcs_used + 1) * 2 > c->pcs_cap && pcs_grow(c) < 0)
        return NULL;
    uint64_t key = pc << 1 | (is_ret ? 1 : 0);
    if (!key)
        key = 2; /* pc 0 as a return address never happens; keep 0 free */
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (c->pcs_cap - 1);
    while (c->pcs[h].key) {
        if (c->pcs[h].key == key)
            return &c->pcs[h];
        h = (h + 1) & (c->pcs_cap - 1);
    }
    struct sym_frame sf[MAX_INLINE];
    int n = symbols_lookup(c->sym, pc, is_ret, sf, MAX_INLINE);
    if (n < 1 || pool_reserve(c, (size_t)n) < 0)
        return NULL;
    struct pc_slot *slot = &c->pcs[h];
    slot->off = (uint32_t)c->pool_n;
    slot->n = 0;
    pthread_mutex_lock(&c->prof_lock);
    for (int i = 0; i < n; i++) {
        struct frame_desc d = {
            .name = sf[i].name,
            .module = sf[i].module,
            .file = sf[i].file,
            .addr = sf[i].sym_addr,
            .line = sf[i].func_line,
            .kind = FRAME_FUNC,
            .inlined = sf[i].inlined,
        };
        uint32_t id = profile_intern_frame(c->prof, &d);
        if (id == PROFILE_NONE)
            break;
        c->pool[c->pool_n++] = (struct stack_frame){id, sf[i].line, pc};
        slot->n++;
    }
    pthread_mutex_unlock(&c->prof_lock);
    slot->key = key;
    c->pcs_used++;
    return slot;
}

static int stack_reserve(struct collect *c, size_t n)
{
    if (n <= c->stack_cap)
        return 0;
    size_t cap = c->stack_cap ? c->stack_cap : 1024;
    while (cap < n)
        cap *= 2;
    struct stack_frame *s = realloc(c->stack, cap * sizeof *s);
    if (!s)
        return -1;
    c->stack = s;
    c->stack_cap = cap;
    return 0;
}

/* Symbolize one raw stack into c->stack, bottom first.  Returns its depth
 * or -1 on OOM. */
static long symbolize(struct collect *c, const uint64_t *pcs, size_t n, uint32_t flags)
{
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pc_slot *slot = lookup_pc(c, pcs[i], i > 0);
        if (!slot)
            return -1;
        if (stack_reserve(c, depth + slot->n + 1) < 0)
            return -1;
        memcpy(c->stack + depth, c->pool + slot->off, slot->n * sizeof *c->stack);
        depth += slot->n;
    }
    if (flags & INGEST_F_TRUNCATED) {
        if (stack_reserve(c, depth + 1) < 0)
            return -1;
        c->stack[depth++] = (struct stack_frame){c->f_truncated, 0, 0};
    }
    for (size_t i = 0; i < depth / 2; i++) {
        struct stack_frame t = c->stack[i];
        c->stack[i] = c->stack[depth - 1 - i];
        c->stack[depth - 1 - i] = t;
    }
    return (long)depth;
}

/* Fold one swapped ingest buffer into the profile. */
static void process(struct collect *c, const uint8_t *data, size_t len)
{
    size_t off = 0;
    const void *payload;
    const struct ingest_rec *r;
    bool any = false;
    while ((r = ingest_next(data, len, &off, &payload))) {
        if (r->type == INGEST_THREAD) {
            char name[64];
            size_t l = r->len < sizeof name - 1 ? r->len : sizeof name - 1;
            memcpy(name, payload, l);
            name[l] = '\0';
            pthread_mutex_lock(&c->prof_lock);
            profile_thread(c->prof, r->tid, name[0] ? name : "?");
            pthread_mutex_unlock(&c->prof_lock);
            continue;
        }
        if (r->type != INGEST_SAMPLE)
            continue;
        if (r->gen != c->cur_gen)
            use_gen(c, r->gen);
        size_t n = r->len / sizeof(uint64_t);
        long depth = symbolize(c, payload, n, r->flags);
        if (depth < 0)
            continue;
        pthread_mutex_lock(&c->prof_lock);
        uint32_t th = profile_thread(c->prof, r->tid, NULL);
        if (th != PROFILE_NONE)
            profile_add_stack(c->prof, th, c->stack, (size_t)depth,
                              r->count ? r->count : 1);
        pthread_mutex_unlock(&c->prof_lock);
        any = true;
    }
    if (any)
        atomic_fetch_add(&c->generation, 1);
}

static void drain_once(struct collect *c)
{
    const uint8_t *data;
    size_t len;
    ingest_swap(c->ingest, &data, &len);
    if (len)
        process(c, data, len);
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
    pthread_mutex_lock(&c->prof_lock);
    profile_set_meta(c->prof, &m);
    pthread_mutex_unlock(&c->prof_lock);
}

static void *collector_main(void *arg)
{
    struct collect *c = arg;
    /* stop signals go to the main thread, whose handler sets the flag
     * main reads */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    while (!atomic_load(&c->quit)) {
        drain_once(c);
        update_meta(c);
        pthread_mutex_lock(&c->wake_lock);
        if (!atomic_load(&c->quit)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += (long)PERIOD_NS;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
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
    pthread_mutex_lock(&c->prof_lock);
    struct profile *p = profile_clone(c->prof);
    pthread_mutex_unlock(&c->prof_lock);
    return p;
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
    switch (st.target) {
    case SAMPLER_RUNNING: o->state = TARGET_RUNNING; break;
    case SAMPLER_STOPPED: o->state = TARGET_STOPPED; break;
    case SAMPLER_EXITED: o->state = TARGET_EXITED; break;
    default: o->state = TARGET_DETACHED; break;
    }
    o->exit_code = st.exit_code;
    o->exit_signal = st.exit_signal;
    o->idle = c->idle;
    o->paused = atomic_load(&c->paused);
    o->threads = st.threads;
    o->interval_ns = st.interval_ns;
    o->achieved_hz = st.target == SAMPLER_RUNNING ? st.achieved_hz : 0;
    pthread_mutex_lock(&c->prof_lock);
    o->samples = profile_samples(c->prof);
    pthread_mutex_unlock(&c->prof_lock);
    o->unwind_failures = st.truncated;
    o->truncated_copy = st.unwind_end[UNWIND_COPY];
    o->lost = st.lost; /* ingest full, or the kernel's ring buffer full */
    o->throttled = st.throttled;
    snprintf(o->backend, sizeof o->backend, "%s", st.backend ? st.backend : "");
    snprintf(o->fallback, sizeof o->fallback, "%s", st.fallback);
    o->median_stop_ns = st.stop_median_ns;
    o->elapsed_ns = st.elapsed_ns;
    snprintf(o->error, sizeof o->error, "%.159s", st.error);
}

static uint64_t op_generation(struct source *src)
{
    struct collect *c = src->impl;
    return atomic_load(&c->generation);
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
    pthread_mutex_lock(&c->prof_lock);
    profile_reset(c->prof);
    pthread_mutex_unlock(&c->prof_lock);
    atomic_fetch_add(&c->generation, 1);
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

void collect_finish(struct source *src)
{
    struct collect *c = src->impl;
    if (atomic_exchange(&c->finished, true))
        return;
    /* sampler first: after it has detached nothing new is pushed */
    sampler_halt(c->sampler);
    stop_collector(c);
    drain_once(c);
    drain_once(c);
    update_meta(c);
}

static void op_close(struct source *src)
{
    struct collect *c = src->impl;
    collect_finish(src);
    sampler_stop(c->sampler);
    symbols_free(c->sym);
    ingest_free(c->ingest);
    for (size_t i = 0; i < c->ngens; i++)
        free(c->gens[i].text);
    free(c->gens);
    free(c->pcs);
    free(c->pool);
    free(c->stack);
    profile_free(c->prof);
    pthread_mutex_destroy(&c->prof_lock);
    pthread_mutex_destroy(&c->maps_lock);
    pthread_mutex_destroy(&c->wake_lock);
    pthread_cond_destroy(&c->wake);
    free(c);
}

static const struct source_ops live_ops = {
    .snapshot = op_snapshot,
    .status = op_status,
    .generation = op_generation,
    .set_paused = op_set_paused,
    .set_interval = op_set_interval,
    .reset = op_reset,
    .close = op_close,
};

struct source *collect_start(const struct sampler_config *cfg_in, char *err,
                             size_t errlen, int *code)
{
    *code = 1;
    struct collect *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->prof_lock, NULL);
    pthread_mutex_init(&c->maps_lock, NULL);
    pthread_mutex_init(&c->wake_lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    c->src.ops = &live_ops;
    c->src.impl = c;
    c->idle = cfg_in->idle;
    c->ingest = ingest_new(INGEST_BYTES);
    c->prof = profile_new();
    if (!c->ingest || !c->prof) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    struct frame_desc trunc = {.name = "[truncated]", .kind = FRAME_SPECIAL};
    c->f_truncated = profile_intern_frame(c->prof, &trunc);
    struct sampler_config cfg = *cfg_in;
    cfg.ingest = c->ingest;
    cfg.on_maps = on_maps;
    cfg.ctx = c;
    c->t0_wall = wall_ns();
    c->sampler = sampler_start(&cfg, err, errlen, code);
    if (!c->sampler)
        goto fail;
    c->pid = sampler_pid(c->sampler);
    target_thread_name(c->pid, c->pid, c->comm, sizeof c->comm);
    target_cmdline(c->pid, c->cmdline, sizeof c->cmdline);
    c->sym = symbols_new(c->pid, err, errlen);
    if (!c->sym) {
        sampler_stop(c->sampler);
        goto fail;
    }
    update_meta(c);
    if (pthread_create(&c->thread, NULL, collector_main, c) != 0) {
        snprintf(err, errlen, "cannot start the collector thread");
        sampler_stop(c->sampler);
        symbols_free(c->sym);
        goto fail;
    }
    return &c->src;
fail:
    ingest_free(c->ingest);
    profile_free(c->prof);
    for (size_t i = 0; i < c->ngens; i++)
        free(c->gens[i].text);
    free(c->gens);
    free(c);
    return NULL;
}

void collect_sampler_stats(struct source *src, struct sampler_stats *out)
{
    struct collect *c = src->impl;
    sampler_get_stats(c->sampler, out);
}

static void print_thread(void *ctx, const struct sampler_thread_stats *t)
{
    FILE *f = ctx;
    double secs = (double)t->alive_ns / 1e9;
    fprintf(f, "  %-8d %-16s %8" PRIu64 " samples  %8.1f Hz over %.2f s  (due %" PRIu64 ")\n",
            (int)t->tid, t->name, t->samples, secs > 0 ? (double)t->samples / secs : 0.0,
            secs, t->due);
}

void collect_print_stats(struct source *src, FILE *f)
{
    struct collect *c = src->impl;
    struct sampler_stats st;
    sampler_get_stats(c->sampler, &st);
    struct symbols_stats ss;
    symbols_get_stats(c->sym, &ss);
    double asked = st.interval_ns ? 1e9 / (double)st.interval_ns : 0;
    fprintf(f, "sproftop stats: PID %d, %.2f s, asked %.1f Hz per thread, mode %s\n",
            (int)c->pid, (double)st.elapsed_ns / 1e9, asked, c->idle ? "idle (wall-clock)" : "on-CPU");
    fprintf(f, "sampler: %s, %u-byte stack copies%s%s\n", st.backend ? st.backend : "?",
            st.stack_bytes, st.fallback[0] ? "; " : "", st.fallback);
    if (st.backend && strcmp(st.backend, "perf") == 0)
        fprintf(f, "perf: %u events open; lost in the ring buffers %" PRIu64 ", throttled %" PRIu64
                "; off-CPU: %" PRIu64 " switch-outs, %.3f s\n", st.events, st.lost_ring,
                st.throttled, st.offcpu, (double)st.offcpu_ns / 1e9);
    fprintf(f, "samples: %" PRIu64 " (%" PRIu64 " reused idle stacks), stops %" PRIu64
            " (%" PRIu64 " of blocked threads), lost %" PRIu64 ", missed ticks %" PRIu64 "\n",
            st.samples, st.reused, st.stops, st.stops_blocked, st.lost, st.missed);
    fprintf(f, "threads: %u live, %u seen\n", st.threads, st.threads_seen);
    sampler_foreach_thread(c->sampler, print_thread, f);
    fprintf(f, "target stop time per sample: median %.1f us, p99 %.1f us, max %.1f us"
            " (interrupt->stop seen: median %.1f us)\n",
            (double)st.stop_median_ns / 1e3, (double)st.stop_p99_ns / 1e3,
            (double)st.stop_max_ns / 1e3, (double)st.latency_median_ns / 1e3);
    fprintf(f, "tracer CPU: %.1f ms total, %.1f us per sample; unwind median %.1f us\n",
            (double)st.tracer_cpu_ns / 1e6,
            st.samples ? (double)st.tracer_cpu_ns / 1e3 / (double)st.samples : 0.0,
            (double)st.unwind_median_ns / 1e3);
    uint64_t all = clock_process_cpu_ns();
    fprintf(f, "sproftop CPU (all threads): %.1f ms, %.1f us per sample\n", (double)all / 1e6,
            st.samples ? (double)all / 1e3 / (double)st.samples : 0.0);
    fprintf(f, "unwind: %" PRIu64 " truncated;", st.truncated);
    for (int i = 0; i < UNWIND_NCAUSES; i++)
        fprintf(f, " %s %" PRIu64, unwind_end_name((enum unwind_end)i), st.unwind_end[i]);
    fprintf(f, "\n");
    fprintf(f, "signals re-injected: %" PRIu64 ", group stops: %" PRIu64
            ", EINTR restarts: %" PRIu64 ", stops that found the thread asleep"
            " (not counted): %" PRIu64 ", interrupts given up: %" PRIu64 "\n",
            st.signals, st.group_stops, st.eintr_restarts, st.discarded,
            st.given_up);
    fprintf(f, "symbols: %" PRIu64 " lookups, %.1f%% cache hits, %" PRIu64
            " misses at %.1f us each, %" PRIu64 " map reloads\n",
            ss.lookups, ss.lookups ? 100.0 * (double)ss.hits / (double)ss.lookups : 0.0,
            ss.misses, ss.misses ? (double)ss.miss_ns / 1e3 / (double)ss.misses : 0.0,
            ss.reloads);
}
