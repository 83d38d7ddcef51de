/* perf_sampler.c - the perf_event sampling thread; see perf_sampler.h.
 *
 * One loop on one thread:
 *   1. wait (epoll) until a ring is a quarter full, the target exits, or
 *      DRAIN_NS passes;
 *   2. apply a pause, resume or new interval asked for meanwhile
 *      (PERF_EVENT_IOC_DISABLE / ENABLE / PERIOD on every event);
 *   3. drain every ring, merge the records by time (a thread's records can
 *      sit in several CPUs' rings), and handle each: samples are unwound
 *      and pushed, side-band records update the thread table and maps;
 *   4. --idle: count the off-CPU time of threads still off CPU so far;
 *   5. publish the stats (at most every PUBLISH_NS).
 */
#include "perf_sampler.h"

#include "clock.h"
#include "idtab.h"
#include "ingest.h"
#include "maps.h"
#include "perf_record.h"
#include "perf_ring.h"
#include "target.h"
#include "unwind.h"
#include "util.h"
#include "vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define DRAIN_NS 20000000ull     /* drain the rings at least this often */
#define PUBLISH_NS 50000000ull   /* stats copied for readers this often */
#define WINDOW_NS 1000000000ull  /* achieved-rate window */
#define FLUSH_NS 100000000ull    /* --idle: count a long off-CPU stretch
                                    so far at least this often */
#define UNKNOWN_MAPS_NS 1000000000ull /* maps re-read for an unknown IP at
                                         most this often */
#define RING_FILL_MS 200u        /* a ring holds this long at the asked rate */
#define RING_MIN (256u << 10)
#define RING_MAX (16u << 20)
#define RING_FLOOR (64u << 10)   /* smallest ring when memory is locked */
#define MAX_CPUS 1024
#define ATTACH_PASSES 16         /* /proc/PID/task rescans at attach */
#define BOOT_STACK (256u << 10)  /* stack read for a thread blocked at attach */
#define UNWIND_KEEP 1024u       /* unwind times kept for the median */

struct pev {               /* an event we opened */
    int fd;                /* -1 once closed */
    uint64_t id;
    uint32_t thr;          /* the thread it was opened on */
    uint8_t kind;          /* enum perf_ev_kind */
};

struct pthr {              /* a thread of the target */
    pid_t tid;
    char name[32];
    bool alive;
    bool superseded;       /* a newer thread has the same tid */
    bool named;            /* its name went to the ingest */
    bool own_events;       /* we opened events on it (it did not only
                              inherit its creator's) */
    uint32_t alive_pos;    /* index in the alive list */
    uint32_t stats_idx;    /* index in the per-thread stats table */
    uint64_t born_ns;
    uint64_t dead_ns;      /* time of its EXIT record (alive: 0) */
    uint64_t samples;
    /* --idle: the stack it left the CPU with */
    uint64_t *off_pcs;
    int off_n;
    uint32_t off_flags;
    uint64_t off_ip, off_sp, off_bp; /* where that stack was taken */
    bool have_off;
    uint64_t t_out;        /* off CPU since then (ns); 0: on CPU */
};

struct precord {           /* a record of one drain, for the time merge */
    uint64_t time;
    uint32_t seq;
    const struct perf_event_header *h;
};

struct psampler {
    struct sampler base;   /* the interface; first, so a sampler * casts */
    struct sampler_config cfg;
    struct perf_events_opts eo;
    pthread_t thread;
    pid_t pid;
    atomic_bool stop;
    atomic_bool paused;
    atomic_uint_fast64_t interval_ns;
    bool joined;

    /* attach handshake */
    pthread_mutex_t lock;  /* guards: handshake, st, tstats */
    pthread_cond_t cond;
    int attach_done;       /* 0 waiting, 1 ok, -1 failed */
    char attach_err[256];
    int attach_code;
    struct perf_refusal refusal;

    /* sampler-thread-only state */
    int cpus[MAX_CPUS];
    int ncpus;
    int *owners;           /* per CPU: the ring's dummy owner event */
    struct perf_ring *rings;
    int epfd, pidfd, stat_fd;
    struct pev *evs;
    size_t nevs, capevs;
    struct idtab ev_ids;   /* sample id -> evs index */
    struct pthr *thr;
    size_t nthr, capthr;
    struct idtab thr_ids;  /* tid -> thr index (the newest) */
    uint32_t *alive;       /* indexes of live threads */
    size_t nalive, capalive;
    struct precord *recs;
    size_t nrecs, caprecs;
    struct maps *maps;
    uint64_t gen;
    bool maps_dirty;       /* an MMAP2 named a mapping we do not have */
    uint64_t t_maps;
    struct unwinder *unw;
    uint64_t *pcs;         /* unwind output, max_depth */
    uint8_t *boot_buf;     /* --idle: stack of a thread blocked at attach */
    bool launched;
    bool leader_gone;      /* the leader exited; other threads run on */
    struct target_spawn spawn;
    bool is_paused;        /* as applied to the events */
    uint64_t cur_interval;
    uint64_t dither;       /* --idle: xorshift state for off-CPU weights */
    uint64_t t_start, t_publish;
    uint64_t win_start, win_samples, win_cpu;

    struct sampler_stats st;   /* readers' copy (lock) */
    struct sampler_stats live; /* the sampler thread's own */
    uint32_t unw_last[UNWIND_KEEP]; /* the latest unwind times (ns) */
    uint64_t unw_n;
    struct sampler_thread_stats *tstats; /* lock */
    size_t ntstats, captstats;
};

/* --- tables ------------------------------------------------------------ */

struct tid_key {
    struct psampler *s;
    pid_t tid;
};

static int thr_eq(void *ctx, uint32_t id)
{
    const struct tid_key *k = ctx;
    return k->s->thr[id].tid == k->tid && !k->s->thr[id].superseded;
}

static uint32_t thr_find(struct psampler *s, pid_t tid)
{
    struct tid_key k = {s, tid};
    return idtab_find(&s->thr_ids, util_mix64((uint64_t)tid), thr_eq, &k);
}

static void alive_add(struct psampler *s, uint32_t i)
{
    if (VEC_RESERVE(s->alive, s->capalive, s->nalive + 1) < 0)
        return; /* only --idle's flush walks this list */
    s->thr[i].alive_pos = (uint32_t)s->nalive;
    s->alive[s->nalive++] = i;
}

static void alive_del(struct psampler *s, uint32_t i)
{
    uint32_t pos = s->thr[i].alive_pos;
    if (pos >= s->nalive || s->alive[pos] != i)
        return;
    s->alive[pos] = s->alive[--s->nalive];
    s->thr[s->alive[pos]].alive_pos = pos;
}

/* A new thread (or a tid used again).  name NULL: read it from /proc. */
static uint32_t thr_add(struct psampler *s, pid_t tid, const char *name, uint64_t born)
{
    uint32_t old = thr_find(s, tid);
    if (old != IDTAB_NONE && s->thr[old].alive)
        return old;
    if (VEC_RESERVE(s->thr, s->capthr, s->nthr + 1) < 0 ||
        idtab_reserve(&s->thr_ids, s->nthr + 1) < 0)
        return IDTAB_NONE;
    if (old != IDTAB_NONE)
        s->thr[old].superseded = true;
    uint32_t i = (uint32_t)s->nthr++;
    struct pthr *t = &s->thr[i];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->alive = true;
    t->born_ns = born;
    if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    else
        target_thread_name(s->pid, tid, t->name, sizeof t->name);
    idtab_insert(&s->thr_ids, util_mix64((uint64_t)tid), i);
    alive_add(s, i);
    pthread_mutex_lock(&s->lock);
    t->stats_idx = UINT32_MAX;
    if (VEC_RESERVE(s->tstats, s->captstats, s->ntstats + 1) == 0) {
        t->stats_idx = (uint32_t)s->ntstats;
        struct sampler_thread_stats *ts = &s->tstats[s->ntstats++];
        memset(ts, 0, sizeof *ts);
        ts->tid = tid;
        snprintf(ts->name, sizeof ts->name, "%s", t->name);
    }
    s->st.threads_seen++;
    pthread_mutex_unlock(&s->lock);
    return i;
}

static void thr_stats_sync(struct psampler *s, struct pthr *t, uint64_t now)
{
    if (t->stats_idx == UINT32_MAX)
        return;
    struct sampler_thread_stats *ts = &s->tstats[t->stats_idx];
    ts->samples = t->samples;
    ts->alive_ns = now - t->born_ns;
    ts->tid = t->tid;
}

static void close_events_of(struct psampler *s, uint32_t thr)
{
    for (size_t i = 0; i < s->nevs; i++) {
        if (s->evs[i].thr != thr || s->evs[i].fd < 0)
            continue;
        close(s->evs[i].fd);
        s->evs[i].fd = -1;
        s->live.events--;
    }
}

/* Thread i is gone.  Its events stay open: closing one would also end
 * the copies every thread it created inherited, which may be all they
 * have (and after an exec from another thread, the caller's). */
static void thr_exit(struct psampler *s, uint32_t i, uint64_t now)
{
    struct pthr *t = &s->thr[i];
    if (!t->alive)
        return;
    t->alive = false;
    t->dead_ns = now;
    t->t_out = 0;
    alive_del(s, i);
    pthread_mutex_lock(&s->lock);
    thr_stats_sync(s, t, now);
    pthread_mutex_unlock(&s->lock);
}

static void push_name(struct psampler *s, struct pthr *t, uint64_t time)
{
    struct ingest_rec h = {.type = INGEST_THREAD, .tid = t->tid, .time = time,
                           .gen = s->gen};
    if (ingest_push(s->cfg.ingest, &h, t->name, strlen(t->name)) == 0)
        t->named = true;
}

static void thr_rename(struct psampler *s, struct pthr *t, const char *name, uint64_t time)
{
    if (!name[0] || strcmp(name, t->name) == 0)
        return;
    snprintf(t->name, sizeof t->name, "%s", name);
    if (t->named)
        push_name(s, t, time);
    pthread_mutex_lock(&s->lock);
    if (t->stats_idx != UINT32_MAX)
        snprintf(s->tstats[t->stats_idx].name, sizeof s->tstats[t->stats_idx].name, "%s", name);
    pthread_mutex_unlock(&s->lock);
}

struct ev_key {
    struct psampler *s;
    uint64_t id;
};

static int ev_eq(void *ctx, uint32_t i)
{
    const struct ev_key *k = ctx;
    return k->s->evs[i].id == k->id;
}

static struct pev *ev_find(struct psampler *s, uint64_t id)
{
    struct ev_key k = {s, id};
    uint32_t i = idtab_find(&s->ev_ids, util_mix64(id), ev_eq, &k);
    return i == IDTAB_NONE ? NULL : &s->evs[i];
}

/* Open every event of thread i (one per CPU and kind).  0; -1 with errno
 * when the kernel refuses (ESRCH: the thread is gone, not an error). */
static int open_events(struct psampler *s, uint32_t i)
{
    int kinds = s->cfg.idle ? 2 : 1;
    for (int k = 0; k < kinds; k++) {
        for (int c = 0; c < s->ncpus; c++) {
            if (VEC_RESERVE(s->evs, s->capevs, s->nevs + 1) < 0 ||
                idtab_reserve(&s->ev_ids, s->nevs + 1) < 0) {
                errno = ENOMEM;
                return -1;
            }
            uint64_t id = 0;
            int fd = perf_events_open(&s->eo, (enum perf_ev_kind)k, s->thr[i].tid,
                                      s->cpus[c], s->owners[c], &id);
            if (fd < 0)
                return -1;
            s->evs[s->nevs] = (struct pev){fd, id, i, (uint8_t)k};
            idtab_insert(&s->ev_ids, util_mix64(id), (uint32_t)s->nevs);
            s->nevs++;
            s->live.events++;
            s->thr[i].own_events = true;
        }
    }
    return 0;
}

static void ioctl_all(struct psampler *s, unsigned long req, void *arg, int kind)
{
    for (size_t i = 0; i < s->nevs; i++)
        if (s->evs[i].fd >= 0 && (kind < 0 || s->evs[i].kind == kind))
            ioctl(s->evs[i].fd, req, arg);
}

/* --- maps ----------------------------------------------------------------- */

/* Read /proc/PID/maps again; on a change, a new generation for the
 * unwinder and the collector.  Returns true when they changed. */
static bool refresh_maps(struct psampler *s)
{
    struct maps *m = maps_read(s->pid);
    /* a zombie leader's maps are empty: read them through a live thread */
    for (size_t i = 0; (!m || m->n == 0) && i < s->nalive; i++) {
        pid_t tid = s->thr[s->alive[i]].tid;
        if (tid == s->pid)
            continue;
        maps_free(m);
        m = maps_read_task(s->pid, tid);
    }
    s->t_maps = clock_mono_ns();
    s->maps_dirty = false;
    if (!m)
        return false;
    if (s->maps && maps_same(s->maps, m)) {
        maps_free(m);
        return false;
    }
    maps_free(s->maps);
    s->maps = m;
    s->gen++;
    unwinder_set_maps(s->unw, m);
    if (s->cfg.on_maps)
        s->cfg.on_maps(s->cfg.ctx, s->gen, m->text, m->text_len);
    return true;
}

/* An executable mapping was created: unless the maps we have hold it
 * already, read them again before the next sample. */
static void on_mmap2(struct psampler *s, const struct perf_record_mmap2 *r,
                     const uint8_t *end)
{
    if (!(r->prot & PROT_EXEC) || (pid_t)r->pid != s->pid)
        return;
    const struct map_entry *e = s->maps ? maps_find(s->maps, r->addr) : NULL;
    size_t room = (size_t)(end - (const uint8_t *)r->filename);
    if (e && e->start == r->addr && e->x &&
        strncmp(e->path, r->filename, room) == 0)
        return;
    s->maps_dirty = true;
}

/* --- samples --------------------------------------------------------------- */

static void push_stack(struct psampler *s, struct pthr *t, const uint64_t *pcs, int n,
                       uint32_t flags, uint64_t time, uint64_t count)
{
    if (!t->named) {
        if (!t->name[0]) /* launched: named at its exec, and that was lost */
            target_thread_name(s->pid, t->tid, t->name, sizeof t->name);
        push_name(s, t, time);
    }
    struct ingest_rec h = {.type = INGEST_SAMPLE, .tid = t->tid, .flags = flags,
                           .time = time, .gen = s->gen, .count = count};
    if (ingest_push(s->cfg.ingest, &h, pcs, (size_t)n * sizeof *pcs) < 0) {
        s->live.lost++;
        return;
    }
    s->live.samples++;
    t->samples++;
}

/* Unwind a copy into s->pcs; returns the depth, sets *end.  Not counted
 * in the stats (see count_end). */
static int unwind_raw(struct psampler *s, struct pthr *t, const uint64_t *regs,
                      const uint8_t *stack, uint64_t len, enum unwind_end *end)
{
    if (s->maps_dirty)
        refresh_maps(s);
    /* Memory the copy lacks (text, unwind tables) is read through a thread
     * that still exists: the leader, unless it has exited (main called
     * pthread_exit); a sample is handled after its thread may be gone. */
    pid_t via = s->pid;
    if (s->leader_gone)
        via = s->nalive ? s->thr[s->alive[s->nalive - 1]].tid : t->tid;
    uint64_t t0 = clock_mono_ns();
    int n = unwinder_unwind(s->unw, via, regs, stack, regs[7], (size_t)len,
                            s->pcs, s->cfg.max_depth, end);
    if (unwinder_saw_unknown(s->unw) && t0 - s->t_maps > UNKNOWN_MAPS_NS &&
        refresh_maps(s))
        n = unwinder_unwind(s->unw, via, regs, stack, regs[7], (size_t)len,
                            s->pcs, s->cfg.max_depth, end);
    uint64_t took = clock_mono_ns() - t0;
    s->unw_last[s->unw_n++ % UNWIND_KEEP] = took > UINT32_MAX ? UINT32_MAX : (uint32_t)took;
    return n;
}

/* Count how a stack ended; returns its ingest flags. */
static uint32_t count_end(struct psampler *s, enum unwind_end end)
{
    s->live.unwind_end[end]++;
    if (end == UNWIND_COMPLETE)
        return 0;
    s->live.truncated++;
    return INGEST_F_TRUNCATED;
}

static int unwind(struct psampler *s, struct pthr *t, const uint64_t *regs,
                  const uint8_t *stack, uint64_t len, uint32_t *flags)
{
    enum unwind_end end;
    int n = unwind_raw(s, t, regs, stack, len, &end);
    *flags = count_end(s, end);
    return n;
}

/* --idle: thread t has been off its CPU since t->t_out; count that time
 * up to `until` with its stack, in intervals.  The fraction of an interval
 * left over counts as one more with that probability: a remainder carried
 * to the thread's next stretch would land on whatever stack that one has
 * (a sleep's remainder on the spin that follows it: measured 4-11 points
 * too much spinning on halfsleep under load), rounding would favour long
 * stretches over short ones; dithering is right on average for both. */
static void off_count(struct psampler *s, struct pthr *t, uint64_t until)
{
    if (!t->t_out || !t->have_off || until <= t->t_out)
        return;
    uint64_t iv = s->cur_interval;
    uint64_t w = until - t->t_out;
    s->live.offcpu_ns += w;
    /* xorshift64: a generator of our own, no shared state */
    s->dither ^= s->dither << 13;
    s->dither ^= s->dither >> 7;
    s->dither ^= s->dither << 17;
    uint64_t n = w / iv + (s->dither % iv < w % iv ? 1 : 0);
    if (n)
        push_stack(s, t, t->off_pcs, t->off_n, t->off_flags, t->t_out, n);
    t->t_out = until;
}

/* --idle: t leaves its CPU with this stack (a switch-out sample, or a
 * thread found blocked). */
static void off_begin(struct psampler *s, struct pthr *t, const uint64_t *regs,
                      const uint8_t *stack, uint64_t len, uint64_t time)
{
    if (!t->off_pcs &&
        !(t->off_pcs = malloc((size_t)s->cfg.max_depth * sizeof *t->off_pcs)))
        return;
    /* A thread that blocks again in the same call, with the same stack
     * and frame pointers, is in the same call chain: reuse it, unwind
     * nothing. */
    if (!t->have_off || t->off_ip != regs[16] || t->off_sp != regs[7] ||
        t->off_bp != regs[6] || s->maps_dirty) {
        uint32_t flags;
        int n = unwind(s, t, regs, stack, len, &flags);
        memcpy(t->off_pcs, s->pcs, (size_t)n * sizeof *s->pcs);
        t->off_n = n;
        t->off_flags = flags;
        t->off_ip = regs[16];
        t->off_sp = regs[7];
        t->off_bp = regs[6];
        t->have_off = true;
    } else {
        s->live.reused++;
    }
    t->t_out = time;
    s->live.offcpu++;
}

static void on_sample(struct psampler *s, const struct perf_event_header *h)
{
    struct perf_sample smp;
    if (perf_record_sample(h, &smp) < 0 || (pid_t)smp.pid != s->pid)
        return;
    struct pev *ev = ev_find(s, smp.id);
    if (!ev || ev->fd < 0)
        return; /* an event closed since (a thread found twice) */
    uint32_t i = thr_find(s, (pid_t)smp.tid);
    /* a sample from before its thread's exit, read after the EXIT record
     * (it sat in another CPU's ring) still belongs to that thread */
    if (i == IDTAB_NONE || (!s->thr[i].alive && smp.time > s->thr[i].dead_ns))
        i = thr_add(s, (pid_t)smp.tid, NULL, smp.time);
    if (i == IDTAB_NONE)
        return;
    struct pthr *t = &s->thr[i];
    if (ev->thr != i && t->own_events) {
        /* We opened events on t while it also inherited its creator's
         * (it was created during the attach): keep the inherited ones.
         * Closing ours also ends the copies t's own children inherited,
         * who have the others too. */
        close_events_of(s, i);
        t->own_events = false;
    }
    if (!smp.user_regs)
        return; /* no user context (cannot happen for a user thread) */
    if (ev->kind == PERF_EV_SWITCH) {
        off_begin(s, t, smp.regs, smp.stack, smp.stack_len, smp.time);
        return;
    }
    /* on CPU: a switch-in record was lost if it still looks off CPU */
    t->t_out = 0;
    uint32_t flags;
    int n = unwind(s, t, smp.regs, smp.stack, smp.stack_len, &flags);
    push_stack(s, t, s->pcs, n, flags, smp.time, 1);
    s->win_samples++;
}

/* --- side-band records ------------------------------------------------------ */

/* COMM with COMM_EXEC: the process has a new image; every other thread is
 * gone (exec from a non-leader thread gives the caller the PID). */
static void on_exec(struct psampler *s, pid_t tid, const char *name, uint64_t time)
{
    for (size_t k = s->nalive; k-- > 0;) {
        uint32_t i = s->alive[k];
        if (s->thr[i].tid != tid)
            thr_exit(s, i, time);
    }
    uint32_t i = thr_find(s, tid);
    if (i == IDTAB_NONE || !s->thr[i].alive)
        i = thr_add(s, tid, name, time);
    if (i != IDTAB_NONE) {
        s->thr[i].have_off = false;
        thr_rename(s, &s->thr[i], name, time);
        if (!s->thr[i].named)
            push_name(s, &s->thr[i], time);
    }
    s->leader_gone = false; /* the caller has the PID now */
    s->maps_dirty = true;
}

static void on_record(struct psampler *s, const struct perf_event_header *h)
{
    const uint8_t *end = (const uint8_t *)h + h->size;
    struct perf_sample_id sid;
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        on_sample(s, h);
        return;
    case PERF_RECORD_MMAP2:
        if (h->size >= sizeof *h + sizeof(struct perf_record_mmap2))
            on_mmap2(s, (const struct perf_record_mmap2 *)(h + 1), end);
        return;
    case PERF_RECORD_COMM: {
        const struct perf_record_comm *r = (const struct perf_record_comm *)(h + 1);
        if (h->size < sizeof *h + 16 || (pid_t)r->pid != s->pid ||
            perf_record_id(h, &sid) < 0)
            return;
        char name[32];
        size_t room = (size_t)(end - (const uint8_t *)r->comm);
        snprintf(name, sizeof name, "%.*s", (int)(room < 31 ? room : 31), r->comm);
        if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
            on_exec(s, (pid_t)r->tid, name, sid.time);
            return;
        }
        uint32_t i = thr_find(s, (pid_t)r->tid);
        if (i != IDTAB_NONE && s->thr[i].alive)
            thr_rename(s, &s->thr[i], name, sid.time);
        return;
    }
    case PERF_RECORD_FORK: {
        const struct perf_record_task *r = (const struct perf_record_task *)(h + 1);
        if (h->size < sizeof *h + sizeof *r)
            return;
        /* a new process of ours: its own sampler follows it (--children) */
        if ((pid_t)r->pid != s->pid && (pid_t)r->ppid == s->pid &&
            r->tid == r->pid && s->cfg.on_child)
            s->cfg.on_child(s->cfg.ctx, (pid_t)r->pid);
        if ((pid_t)r->pid != s->pid || r->tid == r->pid)
            return;
        /* a new thread has its creator's name (thr_add may move s->thr) */
        char name[32];
        uint32_t p = thr_find(s, (pid_t)r->ptid);
        snprintf(name, sizeof name, "%s", p != IDTAB_NONE ? s->thr[p].name : "");
        thr_add(s, (pid_t)r->tid, name[0] ? name : NULL, r->time);
        return;
    }
    case PERF_RECORD_EXIT: {
        const struct perf_record_task *r = (const struct perf_record_task *)(h + 1);
        if (h->size < sizeof *h + sizeof *r || (pid_t)r->pid != s->pid)
            return;
        uint32_t i = thr_find(s, (pid_t)r->tid);
        if (i != IDTAB_NONE)
            thr_exit(s, i, r->time);
        if ((pid_t)r->tid == s->pid)
            s->leader_gone = true;
        return;
    }
    case PERF_RECORD_SWITCH:
        if (h->misc & PERF_RECORD_MISC_SWITCH_OUT || perf_record_id(h, &sid) < 0)
            return;
        {
            uint32_t i = thr_find(s, (pid_t)sid.tid);
            if (i != IDTAB_NONE && s->thr[i].t_out) {
                off_count(s, &s->thr[i], sid.time);
                s->thr[i].t_out = 0;
            }
        }
        return;
    case PERF_RECORD_LOST: {
        const struct perf_record_lost *r = (const struct perf_record_lost *)(h + 1);
        if (h->size >= sizeof *h + sizeof *r) {
            s->live.lost_ring += r->lost;
            s->live.lost += r->lost;
        }
        return;
    }
    case PERF_RECORD_LOST_SAMPLES: {
        uint64_t n;
        if (h->size >= sizeof *h + sizeof n) {
            memcpy(&n, h + 1, sizeof n);
            s->live.lost_ring += n;
            s->live.lost += n;
        }
        return;
    }
    case PERF_RECORD_THROTTLE:
        s->live.throttled++;
        return;
    default:
        return;
    }
}

static int rec_cmp(const void *a, const void *b)
{
    const struct precord *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Read every ring up to now and handle the records in time order. */
static void drain(struct psampler *s)
{
    s->nrecs = 0;
    for (int c = 0; c < s->ncpus; c++) {
        struct perf_ring *r = &s->rings[c];
        if (!perf_ring_begin(r))
            continue;
        const struct perf_event_header *h;
        while ((h = perf_ring_next(r))) {
            if (VEC_RESERVE(s->recs, s->caprecs, s->nrecs + 1) < 0)
                break;
            s->recs[s->nrecs] = (struct precord){perf_record_time(h),
                                                 (uint32_t)s->nrecs, h};
            s->nrecs++;
        }
    }
    if (s->nrecs > 1)
        qsort(s->recs, s->nrecs, sizeof *s->recs, rec_cmp);
    for (size_t i = 0; i < s->nrecs; i++)
        on_record(s, s->recs[i].h);
    for (int c = 0; c < s->ncpus; c++)
        perf_ring_end(&s->rings[c]);
}

/* --- threads blocked at attach (--idle) -------------------------------------- */

/* A frame-pointer guess for a blocked thread: /proc gives only its SP and
 * PC, and code built with frame pointers finds its caller through %rbp.
 * A candidate is a stack slot holding a saved %rbp (0, or a slot further
 * up) followed by an address in executable memory (a return address). */
static bool fp_candidate(const struct maps *m, const uint8_t *buf, uint64_t sp,
                         uint64_t len, uint64_t off)
{
    uint64_t saved, ret;
    memcpy(&saved, buf + off, 8);
    memcpy(&ret, buf + off + 8, 8);
    const struct map_entry *e = maps_find(m, ret);
    if (!e || !e->x)
        return false;
    if (saved == 0)
        return true;
    if (saved <= sp + off || saved + 16 > sp + len || (saved & 7))
        return false;
    memcpy(&ret, buf + (saved - sp) + 8, 8);
    e = maps_find(m, ret);
    return e && e->x;
}

/* Read the stack of thread t, blocked in the kernel, and make it t's
 * off-CPU stack from `now`.  No stop: /proc/PID/task/TID/syscall gives its
 * user SP and PC, process_vm_readv the stack. */
static void off_bootstrap(struct psampler *s, struct pthr *t, uint64_t now)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)s->pid, (int)t->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    uint64_t sp, pc;
    int rc = target_syscall_sp_pc(fd, &sp, &pc);
    close(fd);
    const struct map_entry *e = rc == 0 ? maps_find(s->maps, sp) : NULL;
    if (!e)
        return;
    uint64_t len = e->end - sp < BOOT_STACK ? e->end - sp : BOOT_STACK;
    struct iovec local = {s->boot_buf, len};
    struct iovec remote = {(void *)(uintptr_t)sp, len};
    ssize_t got = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
    if (got < 16)
        return;
    len = (uint64_t)got;
    uint64_t regs[UNWIND_NREGS] = {0};
    regs[7] = sp;
    regs[16] = pc;
    /* Try %rbp = 0 first (code without frame pointers needs none), then
     * the first few frame-pointer candidates; keep the deepest stack. */
    uint64_t best[8] = {0};
    int nbest = 1;
    for (uint64_t off = 0; off + 16 <= len && nbest < 8; off += 8)
        if (fp_candidate(s->maps, s->boot_buf, sp, len, off))
            best[nbest++] = sp + off;
    if (!t->off_pcs &&
        !(t->off_pcs = malloc((size_t)s->cfg.max_depth * sizeof *t->off_pcs)))
        return;
    int keep_n = -1;
    enum unwind_end keep_end = UNWIND_OTHER;
    for (int k = 0; k < nbest && keep_end != UNWIND_COMPLETE; k++) {
        regs[6] = best[k];
        enum unwind_end end;
        int n = unwind_raw(s, t, regs, s->boot_buf, len, &end);
        if (n > keep_n || end == UNWIND_COMPLETE) {
            memcpy(t->off_pcs, s->pcs, (size_t)n * sizeof *s->pcs);
            t->off_n = keep_n = n;
            keep_end = end;
        }
    }
    t->off_flags = count_end(s, keep_end);
    t->off_ip = pc;
    t->off_sp = sp;
    t->off_bp = 0; /* unknown: the next switch-out unwinds again */
    t->have_off = true;
    t->t_out = now;
    s->live.offcpu++;
}

/* --idle: give every live thread blocked right now its stack. */
static void bootstrap_blocked(struct psampler *s, uint64_t now)
{
    if (!s->boot_buf && !(s->boot_buf = malloc(BOOT_STACK)))
        return;
    for (size_t k = 0; k < s->nalive; k++) {
        struct pthr *t = &s->thr[s->alive[k]];
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)s->pid, (int)t->tid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        char st = target_stat_state(fd, NULL);
        close(fd);
        if (st == 'S' || st == 'D')
            off_bootstrap(s, t, now);
    }
}

/* --- attach ------------------------------------------------------------------- */

/* One pass over /proc/PID/task: threads we have not seen get events of
 * their own.  Returns how many, or -1 with errno when the kernel refuses
 * (not when a thread is just gone). */
static int scan_tasks(struct psampler *s, bool open_new, uint64_t now)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)s->pid);
    DIR *d = opendir(path);
    if (!d) {
        errno = ESRCH;
        return -1;
    }
    int added = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        pid_t tid = (pid_t)atoi(de->d_name);
        uint32_t i = thr_find(s, tid);
        if (i != IDTAB_NONE && s->thr[i].alive)
            continue;
        i = thr_add(s, tid, NULL, now);
        if (i == IDTAB_NONE || !open_new)
            continue;
        if (open_events(s, i) < 0) {
            if (errno == ESRCH) {
                thr_exit(s, i, now);
                continue;
            }
            int e = errno;
            closedir(d);
            errno = e;
            return -1;
        }
        added++;
    }
    closedir(d);
    return added;
}

/* After a pause (no side-band record while disabled): forget threads that
 * are gone, learn the ones made meanwhile (they inherited the events), and
 * re-read names and maps. */
static void reconcile(struct psampler *s, uint64_t now)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)s->pid);
    for (size_t k = s->nalive; k-- > 0;) {
        uint32_t i = s->alive[k];
        char p[96];
        snprintf(p, sizeof p, "%s/%d", path, (int)s->thr[i].tid);
        if (access(p, F_OK) != 0)
            thr_exit(s, i, now);
    }
    scan_tasks(s, false, now);
    for (size_t k = 0; k < s->nalive; k++) {
        struct pthr *t = &s->thr[s->alive[k]];
        char name[32];
        target_thread_name(s->pid, t->tid, name, sizeof name);
        thr_rename(s, t, name, now);
    }
    refresh_maps(s);
}

static size_t ring_bytes(const struct psampler *s)
{
    /* at most one sample per interval on a CPU (one thread runs there at a
     * time), plus --idle's switch-outs, which are not bounded: assume as
     * many again, at least 1,000 a second */
    uint64_t iv = atomic_load(&s->interval_ns);
    uint64_t rate = 1000000000ull / (iv ? iv : 1);
    if (s->cfg.idle)
        rate += rate > 1000 ? rate : 1000;
    uint64_t rec = s->eo.stack_bytes + 8 * PERF_RECORD_NREGS + 128;
    uint64_t b = rate * rec * RING_FILL_MS / 1000;
    return b < RING_MIN ? RING_MIN : b > RING_MAX ? RING_MAX : (size_t)b;
}

static int setup_rings(struct psampler *s)
{
    s->ncpus = perf_events_cpus(s->cpus, MAX_CPUS);
    s->owners = malloc((size_t)s->ncpus * sizeof *s->owners);
    s->rings = calloc((size_t)s->ncpus, sizeof *s->rings);
    if (!s->owners || !s->rings) {
        errno = ENOMEM;
        return -1;
    }
    for (int c = 0; c < s->ncpus; c++)
        s->owners[c] = -1;
    size_t bytes = ring_bytes(s);
    for (int c = 0; c < s->ncpus; c++) {
        s->owners[c] = perf_events_open_owner(s->cpus[c], (uint32_t)(bytes / 4));
        if (s->owners[c] < 0)
            return -1;
        s->live.events++;
        if (perf_ring_map(&s->rings[c], s->owners[c], bytes, RING_FLOOR) < 0) {
            if (errno == EPERM)
                errno = ENOMEM; /* the locked-memory limit */
            return -1;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)c};
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->owners[c], &ev) < 0)
            return -1;
    }
    return 0;
}

/* Open more files than the default 1,024 when the hard limit allows: one
 * event per thread and CPU (two with --idle). */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void refuse(struct psampler *s, int e, char *err, size_t errlen, int *code)
{
    perf_events_explain(e, s->pid, false, &s->refusal);
    snprintf(err, errlen, "perf_event: %s; %s (or use --sampler ptrace)",
             s->refusal.cause, s->refusal.fix);
    *code = 1;
}

/* A thread of pid perf_event_open accepts: the leader, or, when it has
 * exited (main called pthread_exit: a zombie, refused with ESRCH),
 * another thread; 0 for a command we launch. */
static pid_t probe_tid(const struct sampler_config *cfg)
{
    if (cfg->argv)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)cfg->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char st = fd >= 0 ? target_stat_state(fd, NULL) : 0;
    if (fd >= 0)
        close(fd);
    if (st != 'Z')
        return cfg->pid;
    snprintf(path, sizeof path, "/proc/%d/task", (int)cfg->pid);
    DIR *d = opendir(path);
    pid_t tid = cfg->pid;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        pid_t t = (pid_t)atoi(de->d_name);
        if (t > 0 && t != cfg->pid) {
            tid = t;
            break;
        }
    }
    if (d)
        closedir(d);
    return tid;
}

static int attach(struct psampler *s, char *err, size_t errlen, int *code)
{
    *code = 1;
    bool kernel;
    if (!s->cfg.argv && target_check(s->pid, err, errlen) < 0)
        return -1;
    if (perf_events_probe(probe_tid(&s->cfg), s->cfg.idle, &kernel, &s->refusal) < 0) {
        snprintf(err, errlen, "perf_event: %s; %s (or use --sampler ptrace)",
                 s->refusal.cause, s->refusal.fix);
        return -1;
    }
    s->eo.kernel = kernel;
    raise_fd_limit();
    if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 || setup_rings(s) < 0) {
        refuse(s, errno, err, errlen, code);
        return -1;
    }
    uint64_t now = clock_mono_ns();
    if (s->cfg.argv) {
        if (target_spawn(&s->spawn, s->cfg.argv, s->cfg.quiet_child,
                         s->cfg.child_out, err, errlen) < 0)
            return -1;
        s->pid = s->spawn.pid;
        s->launched = true;
        s->eo.enable_on_exec = true;
        uint32_t i = thr_add(s, s->pid, "", now);
        if (i == IDTAB_NONE || open_events(s, i) < 0) {
            int e = i == IDTAB_NONE ? ENOMEM : errno;
            target_spawn_abort(&s->spawn);
            refuse(s, e, err, errlen, code);
            return -1;
        }
        s->eo.enable_on_exec = false;
        if (target_spawn_go(&s->spawn, s->cfg.argv[0], err, errlen) < 0)
            return -1;
    } else {
        /* Repeat until a pass finds nothing new: a thread made by one we
         * have not opened yet inherits nothing. */
        int pass = 0, n;
        do {
            n = scan_tasks(s, true, now);
            if (n < 0) {
                if (errno == ESRCH && s->nalive == 0) {
                    snprintf(err, errlen, "PID %d exited before it could be attached",
                             (int)s->pid);
                    return -1;
                }
                if (errno != ESRCH) {
                    refuse(s, errno, err, errlen, code);
                    return -1;
                }
                break;
            }
        } while (n > 0 && ++pass < ATTACH_PASSES);
    }
    uint32_t leader = thr_find(s, s->pid);
    if (leader == IDTAB_NONE || !s->thr[leader].alive)
        s->leader_gone = true; /* a zombie leader: read memory via others */
    s->pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
    if (s->pidfd >= 0) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->pidfd, &ev);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)s->pid);
    s->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    return 0;
}

/* --- the thread ------------------------------------------------------------------- */

/* kill -STOP: nothing to do but say so (the kernel stops the threads,
 * and stopped threads take no samples). */
static void watch_stop(struct psampler *s)
{
    char st = s->stat_fd >= 0 ? target_stat_state(s->stat_fd, NULL) : 0;
    if (st == 'T' && s->live.target == SAMPLER_RUNNING) {
        s->live.group_stops++;
        /* --idle: time stopped is not time spent in the call it stopped
         * in; the stretches end here, uncounted past the last flush */
        for (size_t k = 0; k < s->nalive; k++)
            s->thr[s->alive[k]].t_out = 0;
    }
    s->live.target = st == 'T' ? SAMPLER_STOPPED : SAMPLER_RUNNING;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void publish(struct psampler *s, uint64_t now, bool force)
{
    if (!force && now - s->t_publish < PUBLISH_NS)
        return;
    s->t_publish = now;
    struct sampler_stats *l = &s->live;
    if (force || now - s->win_start >= WINDOW_NS) {
        /* the median of the latest UNWIND_KEEP unwinds, once a second */
        uint32_t tmp[UNWIND_KEEP];
        size_t n = s->unw_n < UNWIND_KEEP ? (size_t)s->unw_n : UNWIND_KEEP;
        memcpy(tmp, s->unw_last, n * sizeof *tmp);
        qsort(tmp, n, sizeof *tmp, u32_cmp);
        l->unwind_median_ns = n ? tmp[n / 2] : 0;
    }
    l->tracer_cpu_ns = clock_thread_cpu_ns();
    l->elapsed_ns = now - s->t_start;
    l->threads = (uint32_t)s->nalive;
    if (l->target == SAMPLER_RUNNING || l->target == SAMPLER_STOPPED)
        watch_stop(s);
    if (now - s->win_start >= WINDOW_NS) {
        /* per thread: samples per second of the threads' CPU time */
        uint64_t cpu = clock_pid_cpu_ns(s->pid);
        double secs = (double)(cpu - s->win_cpu) / 1e9;
        l->achieved_hz = cpu > s->win_cpu && secs > 0.001 ? (double)s->win_samples / secs : 0;
        s->win_cpu = cpu;
        s->win_start = now;
        s->win_samples = 0;
    }
    pthread_mutex_lock(&s->lock);
    uint32_t seen = s->st.threads_seen;
    s->st = *l;
    s->st.threads_seen = seen; /* counted by thr_add under the lock */
    for (size_t k = 0; k < s->nalive; k++)
        thr_stats_sync(s, &s->thr[s->alive[k]], now);
    pthread_mutex_unlock(&s->lock);
}

/* Apply a pause, resume or new interval asked for by another thread. */
static void apply_controls(struct psampler *s, uint64_t now)
{
    bool paused = atomic_load(&s->paused);
    if (paused != s->is_paused) {
        s->is_paused = paused;
        ioctl_all(s, paused ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, NULL, -1);
        if (paused) {
            for (size_t k = 0; k < s->nalive; k++)
                s->thr[s->alive[k]].t_out = 0;
        } else {
            reconcile(s, now);
            if (s->cfg.idle)
                bootstrap_blocked(s, now);
        }
    }
    uint64_t iv = atomic_load(&s->interval_ns);
    if (iv != s->cur_interval) {
        /* reaches the events inherited from these too (measured) */
        ioctl_all(s, PERF_EVENT_IOC_PERIOD, &iv, PERF_EV_CLOCK);
        s->cur_interval = iv;
    }
}

/* The target is gone: its exit status when it was our child. */
static void target_gone(struct psampler *s)
{
    s->live.target = SAMPLER_EXITED;
    if (!s->launched)
        return;
    int status;
    pid_t r;
    while ((r = waitpid(s->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (r != s->pid)
        return;
    sampler_stats_set_exit(&s->live, status);
}

static void *sampler_main(void *arg)
{
    struct psampler *s = arg;
    char err[256] = "";
    int code = 1;
    sampler_block_signals();

    int rc = (s->pcs = malloc((size_t)s->cfg.max_depth * sizeof *s->pcs)) ? 0 : -1;
    if (rc == 0)
        rc = attach(s, err, sizeof err, &code);
    if (rc == 0 && !(s->unw = unwinder_new(s->pid, err, sizeof err)))
        rc = -1;
    if (rc == 0) {
        unwinder_set_live_reads(s->unw, 0);
        refresh_maps(s);
    }
    s->t_start = s->win_start = s->t_publish = clock_mono_ns();
    s->win_cpu = clock_pid_cpu_ns(s->pid);
    if (rc == 0 && s->cfg.idle)
        bootstrap_blocked(s, s->t_start);
    pthread_mutex_lock(&s->lock);
    s->attach_done = rc == 0 ? 1 : -1;
    snprintf(s->attach_err, sizeof s->attach_err, "%s", err);
    s->attach_code = code;
    s->live.pid = s->st.pid = s->pid;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    if (rc < 0)
        return NULL;

    bool gone = false;
    while (!atomic_load(&s->stop) && !gone) {
        struct epoll_event evs[16];
        int n = epoll_wait(s->epfd, evs, 16, (int)(DRAIN_NS / 1000000));
        for (int k = 0; k < n; k++)
            if (evs[k].data.u32 == UINT32_MAX)
                gone = true;
        uint64_t now = clock_mono_ns();
        apply_controls(s, now);
        drain(s);
        if (s->cfg.idle && !s->is_paused && s->live.target == SAMPLER_RUNNING) {
            /* `now` was taken before the rings were read: every record up
             * to it has been handled */
            for (size_t k = 0; k < s->nalive; k++) {
                struct pthr *t = &s->thr[s->alive[k]];
                if (t->t_out && t->t_out + FLUSH_NS <= now)
                    off_count(s, t, now);
            }
        }
        publish(s, clock_mono_ns(), false);
    }
    /* the last records: samples up to the stop, or the target's exit */
    drain(s);
    uint64_t now = clock_mono_ns();
    if (s->cfg.idle && !s->is_paused)
        for (size_t k = 0; k < s->nalive; k++)
            off_count(s, &s->thr[s->alive[k]], now);
    if (gone) {
        target_gone(s);
    } else {
        watch_stop(s);
        s->live.target = SAMPLER_ENDED;
    }
    publish(s, now, true);
    return NULL;
}

/* --- lifecycle ----------------------------------------------------------------------- */

static void sampler_free(struct psampler *s)
{
    for (size_t i = 0; i < s->nevs; i++)
        if (s->evs[i].fd >= 0)
            close(s->evs[i].fd);
    for (int c = 0; s->rings && c < s->ncpus; c++)
        perf_ring_unmap(&s->rings[c]);
    for (int c = 0; s->owners && c < s->ncpus; c++)
        if (s->owners[c] >= 0)
            close(s->owners[c]);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->pidfd >= 0)
        close(s->pidfd);
    if (s->stat_fd >= 0)
        close(s->stat_fd);
    for (size_t i = 0; i < s->nthr; i++)
        free(s->thr[i].off_pcs);
    free(s->thr);
    free(s->alive);
    free(s->evs);
    free(s->recs);
    free(s->owners);
    free(s->rings);
    free(s->tstats);
    free(s->pcs);
    free(s->boot_buf);
    idtab_free(&s->thr_ids);
    idtab_free(&s->ev_ids);
    unwinder_free(s->unw);
    maps_free(s->maps);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

struct sampler *perf_sampler_start(const struct sampler_config *cfg,
                                   char *err, size_t errlen, int *code,
                                   struct perf_refusal *why)
{
    *code = 1;
    memset(why, 0, sizeof *why);
    struct psampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->pid = cfg->pid;
    s->epfd = s->pidfd = s->stat_fd = -1;
    s->spawn.go_fd = s->spawn.err_fd = -1;
    s->eo.period_ns = cfg->interval_ns;
    s->eo.stack_bytes = (uint32_t)(cfg->stack_max & ~(size_t)7);
    s->cur_interval = cfg->interval_ns;
    s->dither = clock_mono_ns() | 1;
    atomic_init(&s->stop, false);
    atomic_init(&s->paused, false);
    atomic_init(&s->interval_ns, cfg->interval_ns);
    s->live.target = SAMPLER_RUNNING;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        snprintf(err, errlen, "cannot start the sampler thread");
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->cond);
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->attach_done)
        pthread_cond_wait(&s->cond, &s->lock);
    int ok = s->attach_done > 0;
    pthread_mutex_unlock(&s->lock);
    if (!ok) {
        pthread_join(s->thread, NULL);
        snprintf(err, errlen, "%s", s->attach_err);
        *code = s->attach_code;
        *why = s->refusal;
        sampler_free(s);
        return NULL;
    }
    s->base.ops = &perf_backend;
    return &s->base;
}

static struct sampler *pf_start(const struct sampler_config *cfg, char *err,
                                size_t errlen, int *code)
{
    struct perf_refusal why;
    return perf_sampler_start(cfg, err, errlen, code, &why);
}

int perf_sampler_probe(const struct sampler_config *cfg, struct perf_refusal *why)
{
    bool kernel;
    return perf_events_probe(probe_tid(cfg), cfg->idle, &kernel, why);
}

static void pf_halt(struct sampler *base)
{
    struct psampler *s = (struct psampler *)base;

    sampler_join(s->thread, &s->stop, &s->joined);
}

static void pf_free(struct sampler *base)
{
    pf_halt(base);
    sampler_free((struct psampler *)base);
}

static void pf_set_paused(struct sampler *base, bool paused)
{
    atomic_store(&((struct psampler *)base)->paused, paused);
}

static void pf_set_interval(struct sampler *base, uint64_t interval_ns)
{
    atomic_store(&((struct psampler *)base)->interval_ns, interval_ns);
}

static void pf_get_stats(struct sampler *base, struct sampler_stats *out)
{
    struct psampler *s = (struct psampler *)base;
    pthread_mutex_lock(&s->lock);
    *out = s->st;
    out->interval_ns = atomic_load(&s->interval_ns);
    pthread_mutex_unlock(&s->lock);
}

static void pf_foreach_thread(struct sampler *base,
                              void (*fn)(void *ctx, const struct sampler_thread_stats *t),
                              void *ctx)
{
    struct psampler *s = (struct psampler *)base;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->ntstats; i++)
        fn(ctx, &s->tstats[i]);
    pthread_mutex_unlock(&s->lock);
}

static pid_t pf_pid(struct sampler *base)
{
    return ((struct psampler *)base)->pid;
}

const struct sampler_backend perf_backend = {
    .name = "perf",
    .start = pf_start,
    .halt = pf_halt,
    .free = pf_free,
    .set_paused = pf_set_paused,
    .set_interval = pf_set_interval,
    .get_stats = pf_get_stats,
    .foreach_thread = pf_foreach_thread,
    .pid = pf_pid,
};
