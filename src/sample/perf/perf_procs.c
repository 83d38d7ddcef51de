/* perf_procs.c - the perf sampler's process and thread tables; see
 * perf_int.h.
 *
 * A process enters the table when it is attached or launched, when a
 * target forks it (--children), or (-a) when a record first names it; a
 * thread when a scan of /proc/PID/task, a FORK record or a sample names
 * it.  Each process has its own maps and unwinder (made at its first
 * unwind, so -a's idle processes cost one table entry) and is announced
 * to the collector (cfg.on_process) just before its first maps or record.
 * A pid or tid used again gets a new entry; the old one is kept
 * (superseded) so records read late still find what they belonged to.
 * At the bottom of the backend: it calls neither the maps (perf_maps.c)
 * nor the events (perf_attach.c) nor the stacks (perf_stack.c).
 */
#include "perf_int.h"

#include "clock.h"
#include "ingest.h"
#include "maps.h"
#include "util.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

/* --- processes ------------------------------------------------------------- */

struct pid_key {
    struct pf_sampler *s;
    pid_t pid;
};

static int proc_eq(void *ctx, uint32_t id)
{
    const struct pid_key *k = ctx;
    return k->s->procs[id].pid == k->pid && !k->s->procs[id].superseded;
}

uint32_t pf_proc_find(struct pf_sampler *s, pid_t pid)
{
    struct pid_key k = {s, pid};
    return idtab_find(&s->proc_ids, util_mix64((uint64_t)pid), proc_eq, &k);
}

/* Watch target i's exit through a pidfd.  False when it is gone already
 * (reaped: a child that ran for less than a drain before its FORK record
 * was read), which no pidfd would ever say. */
static bool proc_watch(struct pf_sampler *s, uint32_t i)
{
    struct pproc *p = &s->procs[i];
    p->watched = true;
    s->watched_live++;
    p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
    if (p->pidfd < 0 && errno == ESRCH)
        return false;
    if (p->pidfd >= 0) {
        struct epoll_event ev = {.events = EPOLLIN,
                                 .data.u64 = PERF_EP_PROC | i};
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, p->pidfd, &ev);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)p->pid);
    p->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    return true;
}

uint32_t pf_proc_add(struct pf_sampler *s, pid_t pid, bool watched,
                     const char *comm)
{
    uint32_t old = pf_proc_find(s, pid);
    if (old != PERF_NONE && !s->procs[old].exited)
        return old;
    if (VEC_RESERVE(s->procs, s->capprocs, s->nprocs + 1) < 0 ||
        idtab_reserve(&s->proc_ids, s->nprocs + 1) < 0)
        return PERF_NONE;
    if (old != PERF_NONE)
        s->procs[old].superseded = true;
    uint32_t i = (uint32_t)s->nprocs++;
    struct pproc *p = &s->procs[i];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->pidfd = p->stat_fd = -1;
    p->maps_dirty = true;
    if (comm)
        snprintf(p->comm, sizeof p->comm, "%s", comm);
    else
        target_thread_name(pid, pid, p->comm, sizeof p->comm);
    idtab_insert(&s->proc_ids, util_mix64((uint64_t)pid), i);
    s->procs_live++;
    s->live.processes_seen++;
    if (watched && !proc_watch(s, i))
        pf_proc_exit(s, i);
    return i;
}

void pf_proc_exit(struct pf_sampler *s, uint32_t i)
{
    struct pproc *p = &s->procs[i];
    if (p->exited)
        return;
    p->exited = true;
    s->procs_live--;
    if (p->watched)
        s->watched_live--;
    if (p->pidfd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, p->pidfd, NULL);
        close(p->pidfd);
        p->pidfd = -1;
    }
    if (p->stat_fd >= 0) {
        close(p->stat_fd);
        p->stat_fd = -1;
    }
    /* its maps and unwinder stay for its records still in the rings */
    p->exit_drain = s->drains;
}

void pf_proc_announce(struct pf_sampler *s, struct pproc *p)
{
    if (p->announced && !p->exec_pending)
        return;
    if (!p->comm[0])
        target_thread_name(p->pid, p->pid, p->comm, sizeof p->comm);
    /* a generation of its own: its records are told from those of the
     * image before it, and of an older process with its pid */
    p->gen = ++s->gen_seq;
    if (s->cfg.on_process)
        s->cfg.on_process(s->cfg.ctx, p->pid, p->comm, p->exec_pending,
                          p->gen);
    if (p->exec_pending) {
        /* the new image's records go to a new process: its threads are
         * named there again, and its maps handed over again */
        for (size_t k = 0; k < s->nalive; k++)
            if (&s->procs[s->thr[s->alive[k]].proc] == p)
                s->thr[s->alive[k]].named = false;
        p->maps_forced = true;
    }
    p->announced = true;
    p->exec_pending = false;
}

struct unwinder *pf_proc_unwinder(struct pf_sampler *s, struct pproc *p)
{
    if (p->unw)
        return p->unw;
    char err[200];
    p->unw = unwinder_new(p->pid, err, sizeof err);
    if (!p->unw)
        return NULL;
    unwinder_set_live_reads(p->unw, 0);
    if (p->maps)
        unwinder_set_maps(p->unw, p->maps);
    (void)s;
    return p->unw;
}

/* --- threads --------------------------------------------------------------- */

static int thr_eq(void *ctx, uint32_t id)
{
    const struct pid_key *k = ctx;
    return k->s->thr[id].tid == k->pid && !k->s->thr[id].superseded;
}

uint32_t pf_thr_find(struct pf_sampler *s, pid_t tid)
{
    struct pid_key k = {s, tid};
    return idtab_find(&s->thr_ids, util_mix64((uint64_t)tid), thr_eq, &k);
}

static void alive_add(struct pf_sampler *s, uint32_t i)
{
    if (VEC_RESERVE(s->alive, s->capalive, s->nalive + 1) < 0)
        return; /* only --idle's flush and the scans walk this list */
    s->thr[i].alive_pos = (uint32_t)s->nalive;
    s->alive[s->nalive++] = i;
}

static void alive_del(struct pf_sampler *s, uint32_t i)
{
    uint32_t pos = s->thr[i].alive_pos;
    if (pos >= s->nalive || s->alive[pos] != i)
        return;
    s->alive[pos] = s->alive[--s->nalive];
    s->thr[s->alive[pos]].alive_pos = pos;
}

uint32_t pf_thr_add(struct pf_sampler *s, uint32_t proc, pid_t tid,
                    const char *name, uint64_t born)
{
    /* a retired process has no threads: compact drops what it had */
    if (s->procs[proc].retired)
        return PERF_NONE;
    uint32_t old = pf_thr_find(s, tid);
    if (old != PERF_NONE && s->thr[old].alive && s->thr[old].proc == proc)
        return old;
    if (VEC_RESERVE(s->thr, s->capthr, s->nthr + 1) < 0 ||
        idtab_reserve(&s->thr_ids, s->nthr + 1) < 0)
        return PERF_NONE;
    if (old != PERF_NONE) {
        pf_thr_exit(s, old, born); /* its process exec'd, or -a missed
                                      its EXIT */
        s->thr[old].superseded = true;
    }
    uint32_t i = (uint32_t)s->nthr++;
    struct pthr *t = &s->thr[i];
    struct pproc *p = &s->procs[proc];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->proc = proc;
    t->alive = true;
    t->born_ns = born;
    if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    else
        target_thread_name(p->pid, tid, t->name, sizeof t->name);
    idtab_insert(&s->thr_ids, util_mix64((uint64_t)tid), i);
    alive_add(s, i);
    p->nalive++;
    pthread_mutex_lock(&s->lock);
    t->stats_idx = PERF_NONE;
    if (VEC_RESERVE(s->tstats, s->captstats, s->ntstats + 1) == 0) {
        t->stats_idx = (uint32_t)s->ntstats;
        struct sampler_thread_stats *ts = &s->tstats[s->ntstats++];
        memset(ts, 0, sizeof *ts);
        ts->pid = p->pid;
        ts->tid = tid;
        ts->alive = true;
        snprintf(ts->name, sizeof ts->name, "%s", t->name);
    }
    s->st.threads_seen++;
    pthread_mutex_unlock(&s->lock);
    return i;
}

void pf_thr_stats_sync(struct pf_sampler *s, struct pthr *t, uint64_t now)
{
    if (t->stats_idx == PERF_NONE)
        return;
    struct sampler_thread_stats *ts = &s->tstats[t->stats_idx];
    ts->samples = t->samples;
    ts->cut = t->cut;
    ts->alive_ns = now - t->born_ns;
    ts->alive = t->alive;
    ts->tid = t->tid;
}

void pf_thr_exit(struct pf_sampler *s, uint32_t i, uint64_t now)
{
    struct pthr *t = &s->thr[i];
    if (!t->alive)
        return;
    t->alive = false;
    t->dead_ns = now;
    t->dead_drain = s->drains;
    s->thr_dead++;
    t->t_out = 0;
    alive_del(s, i);
    s->procs[t->proc].nalive--;
    pthread_mutex_lock(&s->lock);
    pf_thr_stats_sync(s, t, now);
    pthread_mutex_unlock(&s->lock);
}

void pf_thr_push_name(struct pf_sampler *s, struct pthr *t, uint64_t time)
{
    struct pproc *p = &s->procs[t->proc];
    pf_proc_announce(s, p);
    struct ingest_rec h = {.type = INGEST_THREAD, .pid = p->pid, .tid = t->tid,
                           .time = time, .gen = p->gen};
    if (ingest_push(s->cfg.ingest, &h, t->name, strlen(t->name)) == 0)
        t->named = true;
}

void pf_thr_rename(struct pf_sampler *s, struct pthr *t, const char *name, uint64_t time)
{
    if (!name[0] || strcmp(name, t->name) == 0)
        return;
    snprintf(t->name, sizeof t->name, "%s", name);
    if (t->named)
        pf_thr_push_name(s, t, time);
    pthread_mutex_lock(&s->lock);
    if (t->stats_idx != PERF_NONE)
        snprintf(s->tstats[t->stats_idx].name, sizeof s->tstats[t->stats_idx].name,
                 "%s", name);
    pthread_mutex_unlock(&s->lock);
}

/* Free p's maps and unwinder (pf_proc_unwinder). */
static void proc_free_maps(struct pproc *p)
{
    unwinder_free(p->unw);
    p->unw = NULL;
    maps_free(p->maps);
    p->maps = NULL;
    maps_free(p->next);
    p->next = NULL;
}

/* --- retiring what has exited ------------------------------------------ */

/* Every record of p has been read: the collector may free what only p
 * used (its fold, symbolizer and pc cache) and fold its samples by
 * command; so may we. */
static void proc_retire(struct pf_sampler *s, uint32_t pi, uint64_t now)
{
    struct pproc *p = &s->procs[pi];
    if (p->announced) {
        struct ingest_rec h = {.type = INGEST_EXIT, .pid = p->pid,
                               .time = now, .gen = p->gen};
        if (ingest_push(s->cfg.ingest, &h, NULL, 0) < 0)
            return; /* the buffer is full: after the next drain */
    }
    /* every one in the list, whatever p->nalive says: a thread left in
     * it would outlive its process in the table */
    for (size_t k = s->nalive; k-- > 0;)
        if (s->thr[s->alive[k]].proc == pi)
            pf_thr_exit(s, s->alive[k], now); /* no EXIT record was read */
    p->retired = true;
    s->procs_retired++;
    pf_script_forget(s, p); /* its records are all read: the drains came */
    proc_free_maps(p);
}

/* Whether thread t stays in the table: alive, or dead too recently for
 * its last records to have been read (final: every record is read), in
 * a process not retired. */
static bool thr_kept(const struct pf_sampler *s, const struct pthr *t,
                     bool final)
{
    return !s->procs[t->proc].retired &&
           (t->alive || (!final && s->drains < t->dead_drain + 2));
}

/* The readers' list of threads: the entries of the threads still in the
 * table (tmap: old thread index -> new, PERF_NONE when dropped), and of
 * the last SAMPLER_EXITED_LISTED exited ones; the others are summed into
 * gone_threads and gone_samples.  Under the stats lock. */
static void tstats_compact(struct pf_sampler *s, const uint32_t *tmap,
                           size_t nthr_old, uint32_t *owner)
{
    /* owner[j]: the kept thread (new index) whose entry j is */
    for (size_t j = 0; j < s->ntstats; j++)
        owner[j] = PERF_NONE;
    for (size_t i = 0; i < nthr_old; i++)
        if (tmap[i] != PERF_NONE && s->thr[tmap[i]].stats_idx != PERF_NONE)
            owner[s->thr[tmap[i]].stats_idx] = tmap[i];
    size_t orphans = 0;
    for (size_t j = 0; j < s->ntstats; j++)
        orphans += owner[j] == PERF_NONE;
    size_t skip = orphans > SAMPLER_EXITED_LISTED ? orphans - SAMPLER_EXITED_LISTED : 0;
    size_t n = 0;
    for (size_t j = 0; j < s->ntstats; j++) {
        if (owner[j] == PERF_NONE && skip) {
            skip--;
            s->gone_threads++;
            s->gone_samples += s->tstats[j].samples;
            continue;
        }
        if (owner[j] != PERF_NONE)
            s->thr[owner[j]].stats_idx = (uint32_t)n;
        s->tstats[n++] = s->tstats[j];
    }
    s->ntstats = n;
}

/* Dead thread t, whose records have all been read, leaves the table: a
 * thread of a live process the collector knows is said to be gone, so
 * its samples can join those of its process's other exited threads (a
 * thread pool's churn would otherwise grow the profile's threads
 * without end).  False when the buffer is full: t stays in the table,
 * to be told at the next compaction. */
static bool thr_retire(struct pf_sampler *s, const struct pthr *t)
{
    const struct pproc *p = &s->procs[t->proc];
    /* not the leader, nor a tid a newer thread has (an exec's leader) */
    if (p->exited || !p->announced || !t->named || t->superseded ||
        t->tid == p->pid)
        return true;
    struct ingest_rec h = {.type = INGEST_THREAD_EXIT, .pid = p->pid,
                           .tid = t->tid, .time = t->dead_ns, .gen = p->gen};
    return ingest_push(s->cfg.ingest, &h, NULL, 0) == 0;
}

/* What a thread holds of its last off-CPU stretch: its stacks, native
 * and Python (the one rule for a thread leaving the table, dropped or at
 * the end). */
static void thr_free_off(struct pthr *t)
{
    free(t->off_pcs);
    free(t->off_py);
    t->off_pcs = t->off_kpcs = NULL;
    t->off_py = NULL;
}

/* Drop the retired processes, and the dead threads whose records have
 * all been read (final: every dead one), from both tables; every index
 * into them moves. */
static void compact(struct pf_sampler *s, bool final)
{
    size_t nthr_old = s->nthr;
    uint32_t *pmap = malloc((s->nprocs + 1) * sizeof *pmap);
    uint32_t *tmap = malloc((s->nthr + 1) * sizeof *tmap);
    uint32_t *owner = malloc((s->ntstats + 1) * sizeof *owner);
    if (!pmap || !tmap || !owner)
        goto out; /* again after the next drain */
    size_t np = 0, nt = 0;
    uint32_t dead = 0;
    for (size_t i = 0; i < s->nthr; i++) {
        struct pthr *t = &s->thr[i];
        if (!thr_kept(s, t, final) && thr_retire(s, t)) {
            tmap[i] = PERF_NONE;
            thr_free_off(t);
            continue;
        }
        tmap[i] = (uint32_t)nt;
        dead += !t->alive;
        if (nt != i)
            s->thr[nt] = *t;
        nt++;
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (p->retired) {
            pmap[i] = PERF_NONE;
            continue;
        }
        pmap[i] = (uint32_t)np;
        if (np != i) {
            s->procs[np] = *p;
            if (p->pidfd >= 0) { /* its epoll data names its index */
                struct epoll_event ev = {.events = EPOLLIN,
                                         .data.u64 = PERF_EP_PROC | np};
                epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->procs[np].pidfd, &ev);
            }
        }
        np++;
    }
    for (size_t i = 0; i < nt; i++)
        s->thr[i].proc = pmap[s->thr[i].proc];
    if (s->kproc != PERF_NONE) /* -a's [kernel] process never exits */
        s->kproc = pmap[s->kproc];
    /* the list keeps the kept threads only (one of a retired process,
     * should any be listed still, goes with it) */
    size_t na = 0;
    for (size_t k = 0; k < s->nalive; k++) {
        uint32_t ni = tmap[s->alive[k]];
        if (ni == PERF_NONE)
            continue;
        s->alive[na] = ni;
        s->thr[ni].alive_pos = (uint32_t)na++;
    }
    s->nalive = na;
    for (size_t e = 0; e < s->nevs; e++)
        if (s->evs[e].thr != PERF_NONE && s->evs[e].thr != PERF_GONE &&
            (s->evs[e].thr = tmap[s->evs[e].thr]) == PERF_NONE)
            s->evs[e].thr = PERF_GONE;
    pthread_mutex_lock(&s->lock);
    s->nthr = nt; /* tstats_compact reads the moved threads */
    tstats_compact(s, tmap, nthr_old, owner);
    pthread_mutex_unlock(&s->lock);
    s->nprocs = np;
    idtab_clear(&s->proc_ids);
    for (size_t i = 0; i < np; i++)
        (void)idtab_insert(&s->proc_ids, util_mix64((uint64_t)s->procs[i].pid),
                           (uint32_t)i);
    idtab_clear(&s->thr_ids);
    for (size_t i = 0; i < nt; i++)
        (void)idtab_insert(&s->thr_ids, util_mix64((uint64_t)s->thr[i].tid),
                           (uint32_t)i);
    s->procs_retired = 0;
    s->thr_dead = dead;
out:
    free(pmap);
    free(tmap);
    free(owner);
}

void pf_procs_retire(struct pf_sampler *s, bool final)
{
    uint64_t now = clock_mono_ns();
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (p->exited && !p->retired &&
            (final || s->drains >= p->exit_drain + 2))
            proc_retire(s, (uint32_t)i, now);
    }
    /* amortised: the tables are rebuilt when what they hold of the dead
     * is as much as what lives; at the end, so that the collector is
     * told of every thread that exited (its samples fold) */
    size_t gone = (size_t)s->procs_retired + s->thr_dead;
    if ((final && gone > 0) || (gone >= 64 && 2 * gone >= s->nprocs + s->nthr))
        compact(s, final);
}

void pf_procs_free(struct pf_sampler *s)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (p->pidfd >= 0)
            close(p->pidfd);
        if (p->stat_fd >= 0)
            close(p->stat_fd);
        proc_free_maps(p);
        script_proc_free(p->script);
    }
    for (size_t i = 0; i < s->nthr; i++)
        thr_free_off(&s->thr[i]);
    free(s->procs);
    free(s->thr);
    free(s->alive);
    free(s->tstats);
    idtab_free(&s->proc_ids);
    idtab_free(&s->thr_ids);
}
