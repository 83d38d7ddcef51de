/* ptrace_sampler.c - the ptrace backend: its ops and its thread's loop;
 * see ptrace_int.h for what it promises and its parts.
 *
 * One loop on one thread:
 *   1. drain wait events (waitpid(-1, __WALL|WNOHANG)): our interrupt
 *      stops are sampled (registers + one process_vm_readv of the stack)
 *      and resumed at once; signal stops are re-injected; group stops get
 *      PTRACE_LISTEN; exits drop the thread (ptrace_events.c);
 *   2. unwind the copies taken in step 1 (threads already running) and
 *      push the raw stacks to the ingest buffer (ptrace_stop.c);
 *   3. now and then, rescan the threads and re-read the maps;
 *   4. on a tick, interrupt every due thread that is running
 *      (ptrace_tick.c);
 *   (between 2, 3 and 4, drain again: a signal-delivery stop waits for
 *   us, and the signal with it)
 *   5. busy-poll briefly for the stops just asked for, then sleep in
 *      sigtimedwait(SIGCHLD) until the next tick or event.
 */
#include "ptrace_int.h"

#include "clock.h"
#include "maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This backend's table (at the end), which sampler.c's registry lists. */
extern const struct sampler_backend ptrace_backend;

#define MAPS_FAST_NS 10000000ull  /* maps re-read period right after exec */
#define WINDOW_NS 1000000000ull   /* achieved-rate window */
#define PUBLISH_NS 50000000ull    /* stats copied for readers this often */

struct pt_sampler *pt_new(const struct sampler_config *cfg)
{
    struct pt_sampler *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->pcs = malloc((size_t)cfg->max_depth * sizeof *s->pcs);
    if (!s->pcs) {
        free(s);
        return NULL;
    }
    s->cfg = *cfg;
    s->pid = cfg->pid;
    s->cpu_now = -1;
    s->pstat_fd = -1;
    s->owner = pthread_self();
    s->stats_tail = &s->stats;
    atomic_init(&s->stop, false);
    atomic_init(&s->paused, false);
    atomic_init(&s->interval_ns, cfg->interval_ns);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    return s;
}

void pt_free(struct pt_sampler *s)
{
    /* the owner has ended (joined) or is the caller: its state is ours */
    s->owner = pthread_self();
    pt_threads_free(s);
    pt_stop_free(s);
    free(s->pcs);
    unwinder_free(s->unw);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

/* --- the figures readers see ------------------------------------------- */

/* The per-thread rate over the window that just ended: samples over the
 * threads that were eligible (ran, or blocked with --idle). */
static void close_window(struct pt_sampler *s, uint64_t now)
{
    double secs = (double)(now - s->win_start) / 1e9;
    s->live.achieved_hz = s->win_threads
        ? (double)s->win_samples / secs / s->win_threads : 0;
    s->win_id++;
    s->win_start = now;
    s->win_samples = 0;
    s->win_threads = 0;
}

/* Copy the sampler's figures to where readers see them: at most every
 * PUBLISH_NS (percentiles scan the histograms), or now when `force`. */
static void publish(struct pt_sampler *s, uint64_t now, bool force)
{
    if (!force && now - s->t_publish < PUBLISH_NS)
        return;
    s->t_publish = now;
    struct sampler_stats *l = &s->live;
    l->stop_median_ns = hist_pct(&s->stop_h, 50);
    s->pt_live.stop_p99_ns = hist_pct(&s->stop_h, 99);
    s->pt_live.stop_max_ns = s->stop_h.max;
    s->pt_live.latency_median_ns = hist_pct(&s->lat_h, 50);
    l->unwind_median_ns = hist_pct(&s->unw_h, 50);
    l->tracer_cpu_ns = clock_thread_cpu_ns();
    l->elapsed_ns = now - s->t_start;
    l->threads = (uint32_t)s->nthreads;
    bool stopped = s->nthreads > 0;
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i]->state != T_GROUPSTOP)
            stopped = false;
    if (l->target == SAMPLER_RUNNING || l->target == SAMPLER_STOPPED)
        l->target = stopped ? SAMPLER_STOPPED : SAMPLER_RUNNING;
    if (now - s->win_start >= WINDOW_NS)
        close_window(s, now);
    pthread_mutex_lock(&s->lock);
    s->st = *l;
    s->pt_st = s->pt_live;
    pthread_mutex_unlock(&s->lock);
    pt_threads_publish(s);
}

/* --- the thread ----------------------------------------------------------- */

/* Attach (or launch), and tell ps_start how it went.  0 or -1. */
static int start_up(struct pt_sampler *s)
{
    char err[256] = "";
    int code = 1;
    int rc = pt_attach(s, err, sizeof err, &code);
    if (rc == 0 && !(s->unw = unwinder_new(s->pid, err, sizeof err)))
        rc = -1;
    if (rc == 0)
        pt_stop_refresh_maps(s);
    s->live.pid = s->pid;
    sampler_attach_report(&s->attach, &s->lock, &s->cond, rc, err, code);
    return rc;
}

/* The periodic work of one turn: threads, maps. */
static void housekeeping(struct pt_sampler *s, uint64_t now)
{
    if (now >= s->t_rescan + PT_RESCAN_NS)
        pt_threads_refresh(s, now);
    uint64_t period = now < s->maps_fast_until ? MAPS_FAST_NS : s->maps_period;
    if (!s->maps || now >= s->t_maps + period)
        pt_stop_refresh_maps(s);
}

static void *sampler_main(void *arg)
{
    struct pt_sampler *s = arg;
    s->owner = pthread_self();
    sampler_block_signals();
    if (start_up(s) < 0)
        return NULL;

    s->t_start = s->win_start = s->t_rescan = clock_mono_ns();
    while (!atomic_load(&s->stop)) {
        if (pt_events_drain(s) < 0)
            break;
        pt_stop_unwind(s);
        /* the threads that exited: their last samples are in */
        pt_threads_tell_exited(s);
        /* A signal-delivery stop holds the signal until we hand it back:
         * drain before each piece of work that can take a while
         * (unwinding a batch, a /proc rescan or maps read, reading every
         * thread's state), not only at the top of the loop. */
        if (pt_events_drain(s) < 0)
            break;
        uint64_t now = clock_mono_ns();
        housekeeping(s, now);
        if (pt_events_drain(s) < 0)
            break;
        if (pt_tick(s, now)) {
            pt_events_spin(s, s->cfg.spin_us);
            continue; /* unwind what was collected before sleeping */
        }
        publish(s, now, false);
        if (s->ncopies)
            continue;
        pt_events_wait(pt_tick_deadline(s, clock_mono_ns()));
    }
    pt_events_finish(s);
    pt_stop_unwind(s); /* the last copies, taken just before the stop */
    pt_threads_tell_exited(s);
    if (s->live.target != SAMPLER_EXITED)
        s->live.target = SAMPLER_ENDED;
    publish(s, clock_mono_ns(), true);
    /* Returning ends this thread; the kernel then detaches every tracee,
     * including blocked threads, without interrupting them. */
    return NULL;
}

/* --- the backend's ops ------------------------------------------------------ */

static struct sampler *ps_start(const struct sampler_config *cfg, char *err,
                                size_t errlen, int *code,
                                struct sampler_refusal *why)
{
    *code = 1;
    why->denied = false; /* the last resort: its failures are final */
    struct pt_sampler *s = pt_new(cfg);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (sampler_thread_start(&s->thread, sampler_main, s, &s->attach,
                             &s->lock, &s->cond, err, errlen, code) < 0) {
        pt_free(s);
        return NULL;
    }
    s->base.ops = &ptrace_backend;
    s->base.pid = s->pid;
    return &s->base;
}

static void ps_halt(struct sampler *base)
{
    struct pt_sampler *s = (struct pt_sampler *)base;

    sampler_join(s->thread, &s->stop, &s->joined);
}

static void ps_free(struct sampler *base)
{
    ps_halt(base);
    pt_free((struct pt_sampler *)base);
}

static void ps_set_paused(struct sampler *base, bool paused)
{
    struct pt_sampler *s = (struct pt_sampler *)base;

    atomic_store(&s->paused, paused);
}

static void ps_set_interval(struct sampler *base, uint64_t interval_ns)
{
    struct pt_sampler *s = (struct pt_sampler *)base;

    atomic_store(&s->interval_ns, interval_ns);
}

static void ps_get_stats(struct sampler *base, struct sampler_stats *out)
{
    struct pt_sampler *s = (struct pt_sampler *)base;

    pthread_mutex_lock(&s->lock);
    *out = s->st;
    pthread_mutex_unlock(&s->lock);
    out->interval_ns = atomic_load(&s->interval_ns);
}

static void ps_foreach_thread(struct sampler *base,
                              void (*fn)(void *ctx,
                                         const struct sampler_thread_stats *t),
                              void *ctx)
{
    pt_threads_foreach((struct pt_sampler *)base, fn, ctx);
}

static void ps_print_stats(struct sampler *base, FILE *f)
{
    struct pt_sampler *s = (struct pt_sampler *)base;
    pthread_mutex_lock(&s->lock);
    struct pt_stats st = s->pt_st;
    uint64_t median = s->st.stop_median_ns;
    bool script = s->st.script[0] != 0;
    uint64_t gone = s->gone_threads, gone_samples = s->gone_samples;
    pthread_mutex_unlock(&s->lock);
    sampler_print_unlisted(f, gone, gone_samples);
    if (script)
        fprintf(f, "ptrace: interpreter frames read while the thread is stopped\n");
    fprintf(f, "ptrace: %" PRIu64 " stops of blocked threads, missed ticks %"
            PRIu64 ", dropped at a library swap %" PRIu64 ", stops that found "
            "the thread asleep (not counted): %" PRIu64 ", interrupts given "
            "up: %" PRIu64 "\n", st.stops_blocked, st.missed, st.stale_maps,
            st.discarded, st.given_up);
    fprintf(f, "target stop time per sample: median %.1f us, p99 %.1f us, "
            "max %.1f us (interrupt->stop seen: median %.1f us)\n",
            (double)median / 1e3, (double)st.stop_p99_ns / 1e3,
            (double)st.stop_max_ns / 1e3, (double)st.latency_median_ns / 1e3);
}

const struct sampler_backend ptrace_backend = {
    .name = "ptrace",
    .title = "ptrace",
    .caps = SAMPLER_CAP_OFFCPU | SAMPLER_CAP_SCRIPT | SAMPLER_CAP_DUMP,
    /* docs/PERFORMANCE.md, section 9: the highest rate at which the
     * target's slowdown stays about 1% */
    .default_hz = 99,
    /* up to the stack's end: one process_vm_readv, the size costs
     * nothing */
    .default_stack = 256u << 10,
    .max_stack = SIZE_MAX,
    .start = ps_start,
    .halt = ps_halt,
    .free = ps_free,
    .set_paused = ps_set_paused,
    .set_interval = ps_set_interval,
    .get_stats = ps_get_stats,
    .print_stats = ps_print_stats,
    .foreach_thread = ps_foreach_thread,
    .dump = pt_dump,
};
