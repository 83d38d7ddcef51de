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

#define UNKNOWN_MAPS_NS 1000000000ull /* see pf_unwind_raw */

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

uint32_t pf_proc_add(struct pf_sampler *s, pid_t pid, bool watched)
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
    /* the collector may free what only it used once it reads this (the
     * process's records are all before it: the drain came first) */
    if (p->announced) {
        struct ingest_rec h = {.type = INGEST_EXIT, .pid = p->pid,
                               .time = clock_mono_ns(), .gen = p->gen};
        ingest_push(s->cfg.ingest, &h, NULL, 0);
    }
    /* what only it used: a record read late makes them again if it can */
    pf_script_forget(s, p);
    unwinder_free(p->unw);
    p->unw = NULL;
    maps_free(p->maps);
    p->maps = NULL;
}

void pf_proc_announce(struct pf_sampler *s, struct pproc *p)
{
    if (p->announced && !p->exec_pending)
        return;
    if (!p->comm[0])
        target_thread_name(p->pid, p->pid, p->comm, sizeof p->comm);
    if (s->cfg.on_process)
        s->cfg.on_process(s->cfg.ctx, p->pid, p->comm, p->exec_pending);
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

bool pf_proc_refresh_maps(struct pf_sampler *s, struct pproc *p)
{
    struct maps *m = maps_read(p->pid);
    /* a zombie leader's maps are empty: read them through a live thread */
    for (size_t i = 0; (!m || m->n == 0) && i < s->nalive; i++) {
        const struct pthr *t = &s->thr[s->alive[i]];
        if (t->tid == p->pid || &s->procs[t->proc] != p)
            continue;
        maps_free(m);
        m = maps_read_task(p->pid, t->tid);
    }
    p->t_maps = clock_mono_ns();
    p->maps_dirty = false;
    if (!m)
        return false;
    pf_proc_announce(s, p);
    if (p->maps && maps_same(p->maps, m) && !p->maps_forced) {
        maps_free(m);
        return false;
    }
    p->maps_forced = false;
    if (p->unw)
        unwinder_set_maps(p->unw, m);
    maps_free(p->maps);
    p->maps = m;
    p->gen++;
    if (s->cfg.on_maps)
        s->cfg.on_maps(s->cfg.ctx, p->pid, p->gen, m->text, m->text_len);
    /* the interpreter, once its executable or libpython is mapped */
    if (!p->script && (p->script = script_proc_find(p->pid, m)))
        pf_script_found(s, p);
    return true;
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

/* --- /proc scans ------------------------------------------------------------- */

struct scan {
    struct pf_sampler *s;
    uint32_t proc;
    bool open_new;
    uint64_t now;
    int added;
    int err;
};

static int scan_one(void *ctx, pid_t tid)
{
    struct scan *c = ctx;
    struct pf_sampler *s = c->s;
    uint32_t i = pf_thr_find(s, tid);
    if (i != PERF_NONE && s->thr[i].alive && s->thr[i].proc == c->proc)
        return 0;
    i = pf_thr_add(s, c->proc, tid, NULL, c->now);
    if (i == PERF_NONE || !c->open_new)
        return 0;
    if (pf_open_events(s, i) < 0) {
        if (errno == ESRCH) {
            pf_thr_exit(s, i, c->now);
            return 0;
        }
        c->err = errno;
        return 1;
    }
    c->added++;
    return 0;
}

int pf_procs_scan_tasks(struct pf_sampler *s, uint32_t proc, bool open_new, uint64_t now)
{
    struct scan c = {s, proc, open_new, now, 0, 0};
    int rc = target_tasks(s->procs[proc].pid, scan_one, &c);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        errno = c.err;
        return -1;
    }
    return c.added;
}

void pf_procs_reconcile(struct pf_sampler *s, uint64_t now)
{
    for (size_t k = s->nalive; k-- > 0;) {
        uint32_t i = s->alive[k];
        char p[96];
        snprintf(p, sizeof p, "/proc/%d/task/%d", (int)s->procs[s->thr[i].proc].pid,
                 (int)s->thr[i].tid);
        if (access(p, F_OK) != 0)
            pf_thr_exit(s, i, now);
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (p->exited || p->superseded)
            continue;
        if (p->watched)
            pf_procs_scan_tasks(s, (uint32_t)i, false, now);
        if (p->announced)
            pf_proc_refresh_maps(s, p);
    }
    for (size_t k = 0; k < s->nalive; k++) {
        struct pthr *t = &s->thr[s->alive[k]];
        char name[32];
        target_thread_name(s->procs[t->proc].pid, t->tid, name, sizeof name);
        pf_thr_rename(s, t, name, now);
    }
}

void pf_procs_free(struct pf_sampler *s)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (p->pidfd >= 0)
            close(p->pidfd);
        if (p->stat_fd >= 0)
            close(p->stat_fd);
        unwinder_free(p->unw);
        maps_free(p->maps);
        script_proc_free(p->script);
    }
    for (size_t i = 0; i < s->nthr; i++) {
        free(s->thr[i].off_pcs);
        free(s->thr[i].off_py);
    }
    free(s->procs);
    free(s->thr);
    free(s->alive);
    free(s->tstats);
    idtab_free(&s->proc_ids);
    idtab_free(&s->thr_ids);
}

int pf_unwind_raw(struct pf_sampler *s, struct pproc *p, const uint64_t *regs,
                  const uint8_t *stack, uint64_t len, enum unwind_end *end)
{
    if (p->maps_dirty || !p->maps)
        pf_proc_refresh_maps(s, p);
    struct unwinder *u = p->maps ? pf_proc_unwinder(s, p) : NULL;
    if (!u) { /* gone before its maps could be read */
        *end = UNWIND_OTHER;
        s->pcs[0] = regs[16];
        return 1;
    }
    /* Memory the copy lacks (text, unwind tables) is read through a thread
     * that still exists: the leader, unless it has exited (main called
     * pthread_exit); a sample is handled after its thread may be gone. */
    pid_t via = p->pid;
    for (size_t k = s->nalive; p->leader_gone && k-- > 0;)
        if (&s->procs[s->thr[s->alive[k]].proc] == p) {
            via = s->thr[s->alive[k]].tid;
            break;
        }
    uint64_t t0 = clock_mono_ns();
    int n = unwinder_unwind(u, via, regs, stack, regs[7], (size_t)len,
                            s->pcs, s->cfg.max_depth, end);
    if (unwinder_saw_unknown(u) && t0 - p->t_maps > UNKNOWN_MAPS_NS &&
        pf_proc_refresh_maps(s, p))
        n = unwinder_unwind(u, via, regs, stack, regs[7], (size_t)len,
                            s->pcs, s->cfg.max_depth, end);
    uint64_t took = clock_mono_ns() - t0;
    s->unw_last[s->unw_n++ % PERF_UNWIND_KEEP] = took > UINT32_MAX ? UINT32_MAX
                                                                    : (uint32_t)took;
    return n;
}

/* --- stacks: unwound, counted, pushed ----------------------------------------- */

void pf_push_stack(struct pf_sampler *s, struct pthr *t, const uint64_t *pcs,
                   int n, uint32_t flags, uint64_t time, uint64_t weight,
                   const struct script_stack *py)
{
    struct pproc *p = &s->procs[t->proc];
    pf_proc_announce(s, p);
    if (!t->named) {
        if (!t->name[0]) /* launched: named at its exec, and that was lost */
            target_thread_name(p->pid, t->tid, t->name, sizeof t->name);
        pf_thr_push_name(s, t, time);
    }
    struct ingest_rec h = {.type = INGEST_SAMPLE, .pid = p->pid, .tid = t->tid,
                           .flags = flags, .time = time, .gen = p->gen,
                           .weight = weight};
    if (script_push(p->script, s->cfg.ingest, &s->live, &h, pcs, n, py,
                    NULL, NULL))
        t->samples++;
}

uint32_t pf_count_end(struct pf_sampler *s, enum unwind_end end)
{
    s->live.unwind_end[end]++;
    if (end == UNWIND_COMPLETE)
        return 0;
    s->live.truncated++;
    return INGEST_F_TRUNCATED;
}

int pf_unwind(struct pf_sampler *s, struct pproc *p, const uint64_t *regs,
              const uint8_t *stack, uint64_t len, uint32_t *flags)
{
    enum unwind_end end;
    int n = pf_unwind_raw(s, p, regs, stack, len, &end);
    *flags = pf_count_end(s, end);
    s->last_end = end;
    return n;
}
