/* collect.c - the live source; see collect.h.
 *
 * Owns the sampler (one, whatever the number of processes), its ingest
 * buffer, the folds (a base holding the profile, and one sibling per
 * process: its maps, pc cache and symbolizer) and the collector thread.
 * The sampler announces each process (on_process) before its first maps
 * or record; the collector hands each run of records to the fold of the
 * process it names (an exec announces a new image: the samples the old
 * one left in the buffer, of an older maps generation than the new
 * image's first, still go to the old image's fold, whose symbolizer
 * knows their code).  Lock order: none is nested; the collector thread
 * takes the ingest lock (swap), procs_lock and the fold's locks one at a
 * time.
 */
#include "collect.h"

#include "annot.h"
#include "bounds.h"
#include "clock.h"
#include "dbgfetch.h"
#include "fold.h"
#include "idtab.h"
#include "ingest.h"
#include "ksyms.h"
#include "profile.h"
#include "sorted.h"
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
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* -a's kernel threads: the sampler's pseudo process is the model's. */
_Static_assert(SAMPLER_KERNEL_PID == PROFILE_KERNEL_PID &&
                   sizeof SAMPLER_KERNEL_PROCESS ==
                       sizeof PROFILE_KERNEL_PROCESS,
               "the [kernel] process: sampler and model agree");

#define INGEST_BYTES (8u << 20) /* per buffer: ~0.5 s of 64 threads x 1 kHz */
/* A binary's module no process holds any more stays for the next
 * process of it (a build's cc1 after cc1, and a build loop's linker or
 * clang, once a build), this long, while the kept ones' files add up to
 * at most this: more than libLLVM's 105 MiB, which 96 MiB never kept
 * (docs/PERFORMANCE.md, section 14).  A kept module's files are mapped,
 * not read: they cost the pages its lookups touched. */
#define SYM_KEEP_BYTES (256ull << 20)
#define SYM_KEEP_NS (300ull * 1000000000ull)
/* Exited processes that stay separate (the newest; older ones fold into
 * their command's aggregate, profile.h "exited processes"), how many
 * more wait before a fold, and how many exited threads of live
 * processes (a thread pool that churns).  Each fold rebuilds the
 * profile, O(its size): it is done for a batch, and at most once in
 * FOLD_NS (a busy machine ends hundreds of processes a second:
 * docs/PERFORMANCE.md, section 12; on a loop of builds, folds every 2 s
 * were 26.6 s of sproftop's 47.9 s of CPU in 10 minutes, while the
 * processes that wait 10 s for theirs hold a few MiB). */
#define EXITED_KEEP 64u
#define EXITED_BATCH 64u
#define DEAD_BATCH 1024u
#define FOLD_NS 10000000000ull
/* ...and, as the profile grows, a fold waits FOLD_SPACING times its last
 * one's cost after that one ended: folding takes at most 1 / (1 +
 * FOLD_SPACING) of the collector's time however large the profile
 * (docs/PERFORMANCE.md, section 14: the hour's CPU grew with it). */
#define FOLD_SPACING 9u
#define GONE_MAPS_MAX 256u      /* executables whose last maps stay */
#define TRIM_NS 5000000000ull   /* the heap given back at most this often */
#define PERIOD_NS 200000000ull  /* collector wake-up: as often as the
                                   sampler that never stops the target
                                   drains its rings */

/* One sampled process (one image of it: an exec makes another): its
 * fold, adding into the base's profile.  Freed once its last record is
 * folded: its process's INGEST_EXIT (the images before it with it). */
struct cproc {
    struct fold *fold;         /* with its symbolizer */
    pid_t pid;
    bool old;                  /* a newer one has its pid */
    uint64_t first_gen;        /* its records' maps generation is at least
                                  this (sampler_config.on_process) */
    struct cproc *prev;        /* the one before it with its pid, until
                                  that one is freed */
    uint32_t slot;             /* its index in procs */
    char *maps;                /* the text of its last maps, for its code
                                  once it has exited (annot.h); swapped
                                  under procs_lock */
    size_t maps_len;
};

/* The last maps of a freed image, kept for annotate (annot.h): one per
 * executable (the first file its maps name), so what is kept grows with
 * the binaries seen, not with the processes. */
struct gone_maps {
    char *exe;                 /* malloc'd */
    char *maps;                /* malloc'd */
    size_t len;
    pid_t pid;
};

struct collect {
    struct source src;
    /* Processes: appended by the sampler thread (on_process), looked up
     * by it (on_maps) and by the collector, walked by the controlling
     * thread, all under procs_lock.  Each cproc stays where it is. */
    pthread_mutex_t procs_lock;
    struct cproc **procs;      /* NULL: freed (compacted away later) */
    size_t nprocs, procs_cap;
    size_t nfreed;             /* NULL slots in procs */
    struct idtab ids;          /* pid -> procs index (the newest image) */
    struct gone_maps gone[GONE_MAPS_MAX]; /* newest first; written by the
                                  collector, read by annotate */
    size_t ngone;
    /* collector thread only */
    int64_t *exited;           /* exited processes not folded yet, oldest
                                  first (EXITED_KEEP stay) */
    size_t nexited, exited_cap;
    int64_t *dead;             /* exited threads of live processes not
                                  folded yet (profile_thread_key) */
    uint64_t exited_nodes;     /* the nodes below folded threads kept
                                  near (sampler_config.exited_nodes) */
    uint32_t *held;            /* scratch: the frame ids the folds hold
                                  (frames_held) */
    size_t nheld, held_cap;
    struct fold **held_folds;  /* scratch: the folds walked for them */
    size_t held_folds_cap;
    size_t ndead, dead_cap;
    uint64_t trimmed_ns;       /* when the heap was last trimmed */
    uint64_t fold_next_ns;     /* no fold of exited ones before this */
    /* the folds of exited ones (written by the collector; --stats) */
    atomic_uint_fast64_t folds, fold_ns, fold_last_ns, fold_max_ns;
    uint64_t unrouted;         /* samples of no image known (--stats) */
    struct symbols_stats gone_sym; /* the symbolizers of freed processes */
    struct fold_stats gone_fold;   /* under procs_lock, with the above */

    struct sampler *sampler;
    struct ingest *ingest;
    struct fold *fold;         /* the base: the profile every process adds to */
    struct ksyms *ksyms;       /* kernel addresses' names, for every
                                  process's fold (collector thread) */
    bool show_kernel;          /* kernel frames go into the stacks */
    bool kernel_stacks;        /* the sampler takes kernel stacks: kernel
                                  frames, or --idle's reasons */
    char kernel_note[200];     /* why stacks have no (named) kernel
                                  frames, with the fix; "" */
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
    const struct cproc *p = k->c->procs[id];
    return p && p->pid == k->pid && !p->old;
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
    /* -a's [kernel] pseudo process has kernel frames only: no maps, no
     * symbolizer */
    bool kernel = pid == PROFILE_KERNEL_PID;
    if (!p || !(p->fold = fold_new_sibling(c->fold)) ||
        (!kernel && !(sym = symbols_new(c->store, pid, err, sizeof err)))) {
        proc_free(p);
        return NULL;
    }
    p->pid = pid;
    fold_set_symbols(p->fold, sym);
    fold_set_kernel(p->fold, c->ksyms, c->show_kernel);
    fold_set_process(p->fold, pid, comm);
    return p;
}

/* sampler thread: a process (or a new image of one, or a new process
 * with a pid used before) will be named: its records, those of
 * generation `gen` on, go to a new fold */
static void on_process(void *ctx, pid_t pid, const char *comm, bool exec,
                       uint64_t gen)
{
    struct collect *c = ctx;
    /* an exec's old image and an earlier process of the pid alike stay
     * linked (prev) until their records are all folded: proc_route */
    struct cproc *p = proc_new(c, pid, comm);
    if (!p)
        return;
    p->first_gen = gen;
    pthread_mutex_lock(&c->procs_lock);
    int rc = VEC_RESERVE(c->procs, c->procs_cap, c->nprocs + 1);
    if (rc == 0)
        rc = idtab_reserve(&c->ids, c->nprocs + 1);
    if (rc == 0) {
        struct cproc *prev = proc_find(c, pid);
        if (prev)
            prev->old = true;
        /* an exec goes on with the process's threads; a new process of
         * the pid has none of the earlier one's */
        if (prev && exec)
            fold_same_process(p->fold, prev->fold);
        p->prev = prev;
        p->slot = (uint32_t)c->nprocs;
        c->procs[c->nprocs] = p;
        idtab_insert(&c->ids, util_mix64((uint64_t)pid), (uint32_t)c->nprocs);
        c->nprocs++;
    }
    pthread_mutex_unlock(&c->procs_lock);
    if (rc < 0)
        proc_free(p);
}

/* procs without its freed slots, the index rebuilt; procs_lock held.
 * Only when the room is there (no allocation under the lock): else later. */
static void procs_compact(struct collect *c)
{
    size_t n = 0;
    if (idtab_reserve(&c->ids, c->nprocs) < 0)
        return;
    idtab_clear(&c->ids);
    for (size_t i = 0; i < c->nprocs; i++) {
        struct cproc *p = c->procs[i];
        if (!p)
            continue;
        p->slot = (uint32_t)n;
        c->procs[n] = p;
        if (!p->old)
            idtab_insert(&c->ids, util_mix64((uint64_t)p->pid), (uint32_t)n);
        n++;
    }
    c->nprocs = n;
    c->nfreed = 0;
}

/* p's maps become the last of its executable *exe (taken: *exe is set
 * to what is to be freed); procs_lock held, no allocation. */
static void gone_keep(struct collect *c, struct cproc *p, char **exe)
{
    size_t i = 0;
    while (i < c->ngone && strcmp(c->gone[i].exe, *exe) != 0)
        i++;
    if (i == c->ngone && c->ngone < GONE_MAPS_MAX)
        c->ngone++;
    else if (i == c->ngone)
        i--;    /* full: the oldest goes */
    struct gone_maps old = c->gone[i];
    memmove(c->gone + 1, c->gone, i * sizeof *c->gone);
    c->gone[0] = (struct gone_maps){*exe, p->maps, p->maps_len, p->pid};
    p->maps = NULL;
    p->maps_len = 0;
    free(old.maps);     /* free() under the lock: no allocation */
    *exe = old.exe;
}

/* Collector thread: every record of p has been folded.  Free it (and
 * the images before it); exited: it is a process's end, to be folded
 * into its command's aggregate in time. */
static void proc_done(struct collect *c, struct cproc *p, bool exited)
{
    if (exited && VEC_RESERVE(c->exited, c->exited_cap, c->nexited + 1) == 0)
        c->exited[c->nexited++] = p->pid;
    /* the launched command is gone: what was loaded for it goes now, as
     * what it used does (the store's thread: collector) */
    if (exited && c->pre.n && p->pid == c->pid)
        sym_preload_release(&c->pre, c->store);
    while (p) {
        struct cproc *prev = p->prev;
        struct symbols_stats o;
        struct fold_stats g;
        fold_get_symbols_stats(p->fold, &o);
        fold_get_stats(p->fold, &g);
        char *exe = fold_maps_exe(p->maps, p->maps_len);
        pthread_mutex_lock(&c->procs_lock);
        if (exe)
            gone_keep(c, p, &exe);
        /* a newer image points at it no more */
        for (size_t i = p->slot + 1; i < c->nprocs; i++)
            if (c->procs[i] && c->procs[i]->prev == p)
                c->procs[i]->prev = NULL;
        c->procs[p->slot] = NULL;
        c->nfreed++;
        c->gone_sym.lookups += o.lookups;
        c->gone_sym.hits += o.hits;
        c->gone_sym.misses += o.misses;
        c->gone_sym.miss_ns += o.miss_ns;
        c->gone_sym.reloads += o.reloads;
        c->gone_fold.renamed += g.renamed;
        c->gone_fold.dropped += g.dropped;
        if (!c->gone_fold.samples_before)
            c->gone_fold.samples_before = g.samples_before;
        if (c->nfreed >= 64 && 2 * c->nfreed >= c->nprocs)
            procs_compact(c);
        pthread_mutex_unlock(&c->procs_lock);
        free(exe);
        proc_free(p);
        p = prev;
    }
}

/* The image a record of pid in generation gen belongs to: the newest
 * one whose records start at or before gen, else the oldest kept (a
 * record pushed before any maps were read: generation 0).  NULL when no
 * image of pid is known. */
static struct cproc *proc_route(struct collect *c, pid_t pid, uint64_t gen)
{
    pthread_mutex_lock(&c->procs_lock);
    struct cproc *p = proc_find(c, pid);
    while (p && p->prev && gen < p->first_gen)
        p = p->prev;   /* the oldest image takes what is older still */
    pthread_mutex_unlock(&c->procs_lock);
    return p;
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
    if (p && !p->first_gen)
        p->first_gen = gen;
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

/* Hand the records run[0..len) of one process to the folds of its
 * images, each stretch of one image at once; the images of a process
 * whose INGEST_EXIT came are done. */
static void fold_run(struct collect *c, pid_t pid, const uint8_t *run,
                     size_t len)
{
    size_t off = 0, start = 0;
    struct cproc *cur = NULL;
    const void *payload;
    const struct ingest_rec *r;
    for (;;) {
        size_t at = off;
        r = ingest_next(run, len, &off, &payload);
        if (r && r->type == INGEST_THREAD_EXIT &&
            VEC_RESERVE(c->dead, c->dead_cap, c->ndead + 1) == 0)
            c->dead[c->ndead++] = profile_thread_key(r->pid, r->tid);
        /* an interpreter's code is announced for the image that runs
         * now, and carries no generation: the newest image's */
        struct cproc *p = r ? proc_route(c, pid, r->type == INGEST_CODE
                                                     ? UINT64_MAX : r->gen)
                            : NULL;
        if (r && !p && r->type == INGEST_SAMPLE)
            c->unrouted++;
        if (r && p == cur && r->type != INGEST_EXIT)
            continue;
        if (cur && at > start)
            fold_records(cur->fold, run + start, at - start);
        if (!r)
            return;
        /* An image an exec replaced stays until the process's end: the
         * rings of the CPUs are read in turn, so its last records may
         * come after the new image's first. */
        if (p && r->type == INGEST_EXIT) {
            fold_records(p->fold, run + at, off - at);
            proc_done(c, p, true);
            p = NULL;
            at = off;
        }
        cur = p;
        start = at;
    }
}

/* c->held: the frame ids every fold holds, which a fold must keep.
 * Collector thread: the folds are taken under procs_lock (the sampler
 * appends to procs) and walked after it, as only this thread frees a
 * process or touches its fold's caches.  0 or -1 on OOM. */
static int frames_held(struct collect *c)
{
    size_t n = 0;
    int rc = 0;

    pthread_mutex_lock(&c->procs_lock);
    if (VEC_RESERVE(c->held_folds, c->held_folds_cap, c->nprocs + 1) < 0)
        rc = -1;
    for (size_t i = 0; i < c->nprocs && rc == 0; i++)
        if (c->procs[i])
            c->held_folds[n++] = c->procs[i]->fold;
    pthread_mutex_unlock(&c->procs_lock);
    c->nheld = 0;
    if (rc == 0)
        rc = fold_frames_held(c->fold, &c->held, &c->nheld, &c->held_cap);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = fold_frames_held(c->held_folds[i], &c->held, &c->nheld,
                              &c->held_cap);
    return rc;
}

/* Fold the exited processes beyond the newest EXITED_KEEP into their
 * commands' aggregates, and the exited threads of live processes into
 * their processes' exited threads, a batch at a time, at most once in
 * FOLD_NS and FOLD_SPACING times the last fold's cost after it (final:
 * all, now). */
static void fold_exited(struct collect *c, bool final)
{
    bool procs = c->nexited >= EXITED_KEEP + (final ? 1 : EXITED_BATCH);
    if (!procs && c->ndead < (final ? 1 : DEAD_BATCH))
        return;
    uint64_t now = clock_mono_ns();
    if (!final && now < c->fold_next_ns)
        return;
    size_t n = procs ? c->nexited - EXITED_KEEP : 0;
    if (frames_held(c) < 0)
        return; /* OOM: they fold later */
    fold_processes(c->fold, c->exited, n, c->dead, c->ndead, c->exited_nodes,
                   c->held, c->nheld);
    uint64_t end = clock_mono_ns(), cost = end - now;
    c->fold_next_ns = end + FOLD_SPACING * cost > now + FOLD_NS
                          ? end + FOLD_SPACING * cost
                          : now + FOLD_NS;
    atomic_fetch_add_explicit(&c->folds, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->fold_ns, cost, memory_order_relaxed);
    atomic_store_explicit(&c->fold_last_ns, cost, memory_order_relaxed);
    if (cost > atomic_load_explicit(&c->fold_max_ns, memory_order_relaxed))
        atomic_store_explicit(&c->fold_max_ns, cost, memory_order_relaxed);
    c->ndead = 0;
    if (!procs)
        return;
    memmove(c->exited, c->exited + n, EXITED_KEEP * sizeof *c->exited);
    c->nexited = EXITED_KEEP;
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
        fold_run(c, (pid_t)pid, data + off, n);
        off += n;
    }
    pthread_mutex_lock(&c->procs_lock);
    size_t np = c->nprocs;
    pthread_mutex_unlock(&c->procs_lock);
    for (size_t i = 0; i < np; i++) {
        pthread_mutex_lock(&c->procs_lock);
        struct cproc *p = i < c->nprocs ? c->procs[i] : NULL;
        pthread_mutex_unlock(&c->procs_lock);
        if (p)
            fold_update_names(p->fold);
    }
    fold_exited(c, false);
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

/* Collector thread: give the heap's free pages back to the system now
 * and then.  Each fold of exited processes builds the profile anew and
 * frees the old one, and modules come and go: the free space left
 * between live blocks would otherwise stay in the RSS. */
static void trim_heap(struct collect *c)
{
    uint64_t now = clock_mono_ns();
    if (now - c->trimmed_ns < TRIM_NS)
        return;
    c->trimmed_ns = now;
    malloc_trim(0);
}

static void *collector_main(void *arg)
{
    struct collect *c = arg;
    sampler_block_signals();
    /* kallsyms now, rather than at the first kernel frame, mid-session */
    if (c->kernel_stacks)
        ksyms_load(c->ksyms, clock_mono_ns());
    while (!atomic_load(&c->quit)) {
        /* a module loaded or unloaded: its names (at most once a second) */
        ksyms_check(c->ksyms, clock_mono_ns());
        drain_once(c);
        update_meta(c);
        /* The recent window moves with time even when no sample comes;
         * paused, it stays where the user stopped it. */
        if (!atomic_load(&c->paused))
            fold_advance(c->fold, clock_mono_ns());
        tasks_refresh(c->tasks, c->sampler, clock_mono_ns());
        trim_heap(c);
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
    snprintf(o->kernel, sizeof o->kernel, "%s", c->kernel_note);
    o->kernel_frames = !st.kernel_off[0];
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
    fold_exited(c, true);
    update_meta(c);
    /* no process will take them again */
    sym_store_drop_idle(c->store);
}

/* Free what collect_start made; the threads have ended (or never ran). */
static void collect_free(struct collect *c)
{
    sampler_stop(c->sampler);
    for (size_t i = c->nprocs; i-- > 0;)
        proc_free(c->procs[i]); /* siblings before the base */
    free(c->exited);
    free(c->dead);
    free(c->held);
    free(c->held_folds);
    for (size_t i = 0; i < c->ngone; i++) {
        free(c->gone[i].exe);
        free(c->gone[i].maps);
    }
    fold_free(c->fold);
    if (c->store)
        sym_preload_release(&c->pre, c->store); /* still running */
    sym_store_free(c->store); /* after the symbolizers */
    dbgfetch_free(c->fetch);  /* after the store that asks it */
    ksyms_free(c->ksyms);     /* after the folds that name with it */
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
    sorted_sort(w->p, w->n, sizeof w->p[0], cut_cmp);
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
    if (st->first_ns)
        fprintf(f, "samples taken: from %.6f to %.6f s (CLOCK_MONOTONIC)\n",
                (double)st->first_ns / 1e9, (double)st->last_ns / 1e9);
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

/* Kernel frames: whether they are taken, how they were named, and -a's
 * kernel threads; the samples no view shows are counted here. */
static void print_kernel(struct collect *c, const struct sampler_stats *st,
                         const struct fold_stats *fs, FILE *f)
{
    struct ksyms_stats ks;
    ksyms_get_stats(c->ksyms, &ks);
    fprintf(f, "kernel: %s; %" PRIu64 " stacks with kernel frames, %" PRIu64
            " samples with an address outside every symbol ([kernel]+0x...)\n",
            c->kernel_note[0] ? c->kernel_note : "frames on", st->kstacks,
            fs->kernel_unnamed);
    fprintf(f, "kallsyms: %" PRIu64 " symbols, %" PRIu64 " modules, %" PRIu64
            " lookups, %" PRIu64 " outside every symbol, %" PRIu64 " reads,"
            " %" PRIu64 " bad lines%s%s\n", ks.symbols, ks.modules, ks.lookups,
            ks.misses, ks.reloads, ks.bad_lines,
            ks.hidden ? "; addresses hidden (all 0)" : "",
            ks.unreadable ? "; unreadable" : "");
    if (st->kthread_samples || fs->idle_dropped)
        fprintf(f, "kernel threads (-a): %" PRIu64 " samples of kernel threads"
                " and interrupt work; idle loop left out: %" PRIu64
                " samples\n", st->kthread_samples, fs->idle_dropped);
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

/* The folds of exited processes and threads: how many, and their cost
 * (each rebuilds the profile). */
static void print_folds(struct collect *c, FILE *f)
{
    uint64_t n = atomic_load_explicit(&c->folds, memory_order_relaxed);
    uint64_t all = atomic_load_explicit(&c->fold_ns, memory_order_relaxed);
    fprintf(f, "folds of exited processes and threads: %" PRIu64
            ", %.1f ms in all, the last %.1f ms, the longest %.1f ms\n", n,
            (double)all / 1e6,
            (double)atomic_load_explicit(&c->fold_last_ns,
                                         memory_order_relaxed) / 1e6,
            (double)atomic_load_explicit(&c->fold_max_ns,
                                         memory_order_relaxed) / 1e6);
}

/* What the live profile holds and the memory it takes, by part, so a
 * long session can tell what grew. */
static void print_footprint(struct collect *c, FILE *f)
{
    struct profile_footprint fp;
    struct profile_cut cut;
    const double mib = 1024.0 * 1024.0;

    fold_get_footprint(c->fold, &fp, &cut);
    fprintf(f, "profile: %.1f MiB; %" PRIu64 " nodes %.1f MiB, %" PRIu64
            " frames (%" PRIu64 " free) %.1f, %" PRIu64 " threads %.1f, %"
            PRIu64
            " strings %.1f, %" PRIu64 " line and %" PRIu64
            " address counters %.1f, the recent seconds' %" PRIu64
            " samples and %" PRIu64 " entries %.1f\n",
            (double)fp.bytes / mib, fp.nodes, (double)fp.tree_bytes / mib,
            fp.frames, fp.free_frames, (double)fp.frame_bytes / mib,
            fp.threads,
            (double)fp.thread_bytes / mib, fp.strings,
            (double)fp.string_bytes / mib, fp.lines, fp.addrs,
            (double)fp.counter_bytes / mib, fp.trie, fp.ring_entries,
            (double)fp.ring_bytes / mib);
    if (!cut.folded_nodes && !cut.nodes)
        return; /* nothing folded (-p of one process, say): nothing to cut */
    fprintf(f, "rare stacks of exited processes and threads: %" PRIu64
            " nodes below them of %" PRIu64 " kept; %" PRIu64
            " nodes cut into "
            PROFILE_RARE_STACKS " (%" PRIu64 " samples), below %" PRIu64
            " samples each\n", cut.folded_nodes, c->exited_nodes, cut.nodes,
            cut.weight, cut.min_total);
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
    pthread_mutex_lock(&c->procs_lock);
    *ss = c->gone_sym;
    *fs = c->gone_fold;
    for (size_t i = 0; i < c->nprocs; i++) {
        struct symbols_stats o;
        struct fold_stats g;
        if (!c->procs[i])
            continue;
        fold_get_symbols_stats(c->procs[i]->fold, &o);
        fold_get_stats(c->procs[i]->fold, &g);
        ss->lookups += o.lookups;
        ss->hits += o.hits;
        ss->misses += o.misses;
        ss->miss_ns += o.miss_ns;
        ss->reloads += o.reloads;
        /* the store's counters, the same in each */
        if (o.no_debuginfo > ss->no_debuginfo)
            ss->no_debuginfo = o.no_debuginfo;
        if (o.late_debuginfo > ss->late_debuginfo)
            ss->late_debuginfo = o.late_debuginfo;
        fs->renamed += g.renamed;
        fs->dropped += g.dropped;
        fs->kernel_unnamed += g.kernel_unnamed;
        fs->idle_dropped += g.idle_dropped;
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
    fprintf(f, "dropped: %" PRIu64 " samples of no process the collector "
            "knew, %" PRIu64 " kernel-only ones of a process read after its "
            "exit was folded, %" PRIu64 " out of memory\n", c->unrouted,
            st.late, fs.dropped);
    sampler_foreach_thread(c->sampler, print_thread, f);
    sampler_print_stats(c->sampler, f);
    print_costs(&st, f);
    print_folds(c, f);
    print_footprint(c, f);
    print_cut(c, &st, f);
    fprintf(f, "symbols: %" PRIu64 " lookups, %.1f%% cache hits, %" PRIu64
            " misses at %.1f us each, %" PRIu64 " map reloads\n",
            ss.lookups, ss.lookups ? 100.0 * (double)ss.hits / (double)ss.lookups : 0.0,
            ss.misses, ss.misses ? (double)ss.miss_ns / 1e3 / (double)ss.misses : 0.0,
            ss.reloads);
    print_debuginfo(c, &ss, &fs, f);
    print_kernel(c, &st, &fs, f);
    if (c->launched)
        fprintf(f, "loaded before the launch: %zu modules in %.1f ms (%s)\n",
                c->pre.loaded, (double)c->pre.ns / 1e6, c->pre.names);
    sym_store_print_stats(c->store, f);
}

/* The processes and their last maps, copied for annot_live: room is
 * made outside procs_lock (the sampler takes it: no allocation under
 * it), then filled under it, again if they grew meanwhile.  The newest
 * images first, then the last maps of each executable of the freed ones
 * (gone).  The count, or -1 on OOM. */
static long copy_procs(struct collect *c, struct annot_proc **out,
                       char **text)
{
    for (int tries = 0; tries < 4; tries++) {
        size_t cap = 0, need = 0, used = 0, n = 0;
        pthread_mutex_lock(&c->procs_lock);
        for (size_t i = 0; i < c->nprocs; i++)
            if (c->procs[i]) {
                need += c->procs[i]->maps_len;
                cap++;
            }
        for (size_t i = 0; i < c->ngone; i++)
            need += c->gone[i].len;
        cap += c->ngone;
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
        for (size_t i = c->nprocs + c->ngone; i-- > 0 && fits;) {
            pid_t pid;
            const char *maps;
            size_t len;
            if (i >= c->ngone) {
                const struct cproc *p = c->procs[i - c->ngone];
                if (!p)
                    continue;
                pid = p->pid, maps = p->maps, len = maps ? p->maps_len : 0;
            } else {
                const struct gone_maps *g = &c->gone[c->ngone - 1 - i];
                pid = g->pid, maps = g->maps, len = g->len;
            }
            fits = n < cap && used + len <= need;
            if (!fits)
                break;
            if (len)
                memcpy(buf + used, maps, len);
            v[n++] = (struct annot_proc){pid, NULL, len};
            used += len;
        }
        pthread_mutex_unlock(&c->procs_lock);
        if (!fits) {
            free(v);
            free(buf);
            continue;
        }
        for (size_t i = 0, o = 0; i < n; o += v[i].len, i++)
            v[i].maps = v[i].len ? buf + o : NULL;
        *out = v;
        *text = buf;
        return (long)n;
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

/* The header's command and command line: "all" for -a, else the first
 * target's, and for -p A,B all of them, "cmd A | cmd B". */
static void name_session(struct collect *c, const struct sampler_config *cfg)
{
    if (cfg->all) {
        snprintf(c->comm, sizeof c->comm, "all");
        snprintf(c->cmdline, sizeof c->cmdline, "every process (-a)");
        return;
    }
    target_thread_name(c->pid, c->pid, c->comm, sizeof c->comm);
    target_cmdline(c->pid, c->cmdline, sizeof c->cmdline);
    for (size_t i = 1; i < cfg->npids && cfg->pids; i++) {
        char one[sizeof c->cmdline];
        size_t len = strlen(c->cmdline);
        target_cmdline(cfg->pids[i], one, sizeof one);
        snprintf(c->cmdline + len, sizeof c->cmdline - len, " | %s", one);
    }
}

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
    c->exited_nodes = cfg.exited_nodes ? cfg.exited_nodes
                                       : SP_EXITED_NODES_DEFAULT;
    c->t0_wall = clock_wall_ns();
    c->ingest = ingest_new(INGEST_BYTES);
    c->fold = fold_new();
    c->fetch = dbgfetch_new();  /* NULL: $DEBUGINFOD_URLS names no server */
    c->store = sym_store_new(c->fetch);
    if (c->store)
        sym_store_set_keep(c->store, SYM_KEEP_BYTES, SYM_KEEP_NS);
    c->ksyms = ksyms_new(cfg.kallsyms); /* read below, or as the collector starts */
    c->show_kernel = cfg.kernel_frames;
    c->tasks = tasks_new();
    if (!c->ingest || !c->fold || !c->store || !c->ksyms || !c->tasks) {
        snprintf(err, errlen, "out of memory");
        collect_free(c);
        return NULL;
    }
    /* A command to launch: its start-up symbol work is done now, before
     * it runs, not in its first fold (sym_preload.h). */
    c->launched = cfg.argv != NULL;
    if (c->launched)
        sym_preload_run(&c->pre, c->store, cfg.argv[0]);
    /* ...and kallsyms (about 60 ms of CPU) is read before it runs too,
     * where its kernel stacks may be named or give reasons: the collector
     * thread, not yet started, finds it read */
    if (c->launched && (cfg.kernel_frames || cfg.idle))
        ksyms_load(c->ksyms, clock_mono_ns());
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
    struct sampler_stats st;
    sampler_get_stats(c->sampler, &st);
    c->kernel_stacks = st.kernel_stacks;
    if (st.kernel_off[0])
        snprintf(c->kernel_note, sizeof c->kernel_note, "%s", st.kernel_off);
    else
        ksyms_refusal(cfg.kallsyms, c->kernel_note, sizeof c->kernel_note);
    name_session(c, &cfg);
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
