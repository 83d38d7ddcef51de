/* perf_sampler.c - the perf_event sampling thread and the backend's ops;
 * see perf_int.h for what it promises and its parts.
 *
 * One loop on one thread, for every process of the session:
 *   1. wait (epoll) until a ring is half full, a target exits, or
 *      DRAIN_NS passes;
 *   2. apply a pause, resume or new interval asked for meanwhile
 *      (PERF_EVENT_IOC_DISABLE / ENABLE / PERIOD on every event);
 *   3. drain every ring, merge the records by time (a thread's records can
 *      sit in several CPUs' rings), and route each by its pid and tid:
 *      samples are unwound with their process's maps and pushed,
 *      side-band records update the process and thread tables and maps;
 *   4. --idle: count the off-CPU time of threads still off CPU so far;
 *   5. publish the stats (at most every PUBLISH_NS).
 */
#include "perf_int.h"

#include "clock.h"
#include "maps.h"
#include "perf_pybpf.h"
#include "perf_record.h"
#include "perf_ring.h"
#include "vec.h"
#include "sorted.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* This backend's table (at the end), which sampler.c's registry lists. */
extern const struct sampler_backend perf_backend;

#define DRAIN_NS 200000000ull    /* drain the rings at least this often: a
                                    wake-up costs more than a ring of
                                    records (docs/PERFORMANCE.md, 10) */
#define PUBLISH_NS 50000000ull   /* stats copied for readers this often */
#define WINDOW_NS 1000000000ull  /* achieved-rate window */
#define FLUSH_NS 100000000ull    /* --idle: count a long off-CPU stretch
                                    so far at least this often */
#define SWEEP_NS 1000000000ull   /* records lost: /proc asked which
                                    threads and processes are gone (an
                                    EXIT record may be among them) at
                                    most this often */
#define TRIM_NS 50000000ull      /* BPF records of Python frames are kept
                                    this long past a drain's last record:
                                    one whose sample is written just after
                                    the ring heads were read is taken at
                                    the next drain */

/* --- samples ---------------------------------------------------------------- */

/* The events' interval is `ns` from `since` on (0: from the start).  The
 * oldest change is forgotten when the list is full: a sample that old
 * was read long ago (a drain is at most 200 ms). */
static void interval_changed(struct pf_sampler *s, uint64_t since, uint64_t ns)
{
    if (s->nivs == PERF_INTERVALS) {
        memmove(s->ivs, s->ivs + 1, (PERF_INTERVALS - 1) * sizeof *s->ivs);
        s->nivs--;
    }
    s->ivs[s->nivs++] = (struct pf_interval){since, ns};
}

uint64_t pf_interval_at(const struct pf_sampler *s, uint64_t time)
{
    for (uint32_t i = s->nivs; i-- > 0;)
        if (s->ivs[i].since <= time)
            return s->ivs[i].ns;
    return s->nivs ? s->ivs[0].ns : s->cur_interval;
}

/* The process a record of pid belongs to: known, or (-a, or a child whose
 * FORK record was lost) added now.  PERF_NONE: not one of ours. */
static uint32_t proc_of(struct pf_sampler *s, pid_t pid)
{
    if (pid <= 0 || pid == s->self)
        return PERF_NONE;
    uint32_t pi = pf_proc_find(s, pid);
    if (pi != PERF_NONE && s->procs[pi].retired)
        pi = PERF_NONE; /* its records were all read: a new process */
    if (pi != PERF_NONE || !(s->cfg.all || s->cfg.children))
        return pi;
    return pf_proc_add(s, pid, !s->cfg.all, NULL);
}

/* -a: the process of a sample without user registers: a process of
 * ours in its exit (its memory gone), or the [kernel] pseudo process for
 * a kernel thread, or interrupt work on the idle task (pid 0; the
 * collector tells it from the idle loop by its stack).  PERF_NONE on
 * OOM, or for a process already retired (counted as late). */
static uint32_t kernel_sample_proc(struct pf_sampler *s, pid_t pid, pid_t tid)
{
    uint32_t i = pf_thr_find(s, tid);
    if (i != PERF_NONE && s->thr[i].alive && s->thr[i].proc == s->kproc &&
        s->kproc != PERF_NONE)
        return s->kproc;
    uint32_t pi = pid > 0 ? pf_proc_find(s, pid) : PERF_NONE;
    if (pi != PERF_NONE && s->procs[pi].retired) {
        s->live.late++; /* its records were handed on: it is gone */
        return PERF_NONE;
    }
    if (pi != PERF_NONE || (pid > 0 && !target_is_kthread(pid) &&
                            (pi = proc_of(s, pid)) != PERF_NONE))
        return pi;
    if (s->kproc == PERF_NONE) {
        s->kproc = pf_proc_add(s, SAMPLER_KERNEL_PID, false, NULL);
        if (s->kproc != PERF_NONE)
            snprintf(s->procs[s->kproc].comm, sizeof s->procs[s->kproc].comm,
                     "%s", SAMPLER_KERNEL_PROCESS);
    }
    return s->kproc;
}

/* -a: a sample without user registers: its kernel frames only. */
static void on_kernel_sample(struct pf_sampler *s,
                             const struct perf_sample *smp)
{
    int nk = perf_record_kernel_chain(smp, s->kpcs, PERF_RECORD_KSTACK);
    pid_t pid = (pid_t)smp->pid, tid = (pid_t)smp->tid;
    uint32_t pi;
    if (nk == 0 || (pi = kernel_sample_proc(s, pid, tid)) == PERF_NONE)
        return;
    uint32_t i = pf_thr_find(s, tid);
    if (i == PERF_NONE || s->thr[i].proc != pi || !s->thr[i].alive) {
        char name[32] = "swapper";
        if (tid > 0)
            target_thread_name(pi == s->kproc ? tid : pid, tid, name,
                               sizeof name);
        i = pf_thr_add(s, pi, tid, name[0] ? name : "?", smp->time);
        if (i == PERF_NONE)
            return;
    }
    pf_push_stack(s, &s->thr[i], NULL, 0, 0, smp->time,
                  pf_interval_at(s, smp->time), NULL, s->kpcs, nk);
    if (pi == s->kproc)
        s->live.kthread_samples++;
    s->win_samples++;
}

static void on_sample(struct pf_sampler *s, const struct perf_event_header *h)
{
    struct perf_sample smp;
    if (perf_record_sample(h, &smp) < 0)
        return;
    struct pev *ev = pf_ev_find(s, smp.id);
    if (!ev || ev->fd < 0)
        return; /* an event closed since (a thread found twice) */
    if (!smp.user_regs) {
        /* a kernel thread, or no user context */
        if (s->cfg.all && s->eo.kernel_frames && ev->kind == PERF_EV_CLOCK &&
            (pid_t)smp.pid != s->self)
            on_kernel_sample(s, &smp);
        return;
    }
    uint32_t pi = proc_of(s, (pid_t)smp.pid);
    if (pi == PERF_NONE)
        return;
    uint32_t i = pf_thr_find(s, (pid_t)smp.tid);
    /* a sample from before its thread's exit, read after the EXIT record
     * (it sat in another CPU's ring) still belongs to that thread */
    if (i == PERF_NONE || s->thr[i].proc != pi ||
        (!s->thr[i].alive && smp.time > s->thr[i].dead_ns))
        i = pf_thr_add(s, pi, (pid_t)smp.tid, NULL, smp.time);
    if (i == PERF_NONE)
        return;
    struct pthr *t = &s->thr[i];
    if (ev->thr != i && t->own_events) {
        /* We opened events on t while it also inherited its creator's
         * (it was created during the attach): keep the inherited ones.
         * Closing ours also ends the copies t's own children inherited,
         * who have the others too. */
        pf_close_events_of(s, i);
        t->own_events = false;
    }
    if (ev->kind == PERF_EV_SWITCH) {
        int nk = perf_record_kernel_chain(&smp, s->kpcs, PERF_RECORD_KSTACK);
        pf_off_begin(s, t, smp.regs, smp.stack, smp.stack_len, smp.time,
                     s->kpcs, nk);
        return;
    }
    /* on CPU: a switch-in record was lost if it still looks off CPU */
    t->t_out = 0;
    uint32_t flags;
    int n = pf_unwind(s, &s->procs[pi], smp.regs, smp.stack, smp.stack_len, &flags);
    /* which threads (and so processes) the copy is too small for */
    t->cut += s->last_end == UNWIND_COPY;
    int nk = s->eo.kernel_frames
                 ? perf_record_kernel_chain(&smp, s->kpcs, PERF_RECORD_KSTACK)
                 : 0;
    pf_script_sample(s, t, smp.time, &s->py);
    pf_push_stack(s, t, s->pcs, n, flags, smp.time,
                  pf_interval_at(s, smp.time), &s->py, s->kpcs, nk);
    s->win_samples++;
}

/* --- side-band records ------------------------------------------------------ */

/* COMM with COMM_EXEC: the process has a new image; every other thread is
 * gone (exec from a non-leader thread gives the caller the PID).  Once
 * announced, the new image is announced again as a process of its own. */
static void on_exec(struct pf_sampler *s, uint32_t pi, pid_t tid, const char *name,
                    uint64_t time)
{
    for (size_t k = s->nalive; k-- > 0;) {
        uint32_t i = s->alive[k];
        if (s->thr[i].proc == pi && s->thr[i].tid != tid)
            pf_thr_exit(s, i, time);
    }
    uint32_t i = pf_thr_find(s, tid);
    if (i == PERF_NONE || !s->thr[i].alive || s->thr[i].proc != pi)
        i = pf_thr_add(s, pi, tid, name, time);
    struct pproc *p = &s->procs[pi];
    snprintf(p->comm, sizeof p->comm, "%s", name);
    if (p->announced)
        p->exec_pending = true;
    p->leader_gone = false; /* the caller has the PID now */
    pf_maps_exec(s, p);
    /* the interpreter found is the old image's, unless the maps were read
     * after the exec (a launched command, read as it started) */
    if (p->t_maps <= time)
        pf_script_forget(s, p);
    if (i != PERF_NONE) {
        s->thr[i].have_off = false;
        pf_thr_rename(s, &s->thr[i], name, time);
    }
}

static void on_comm(struct pf_sampler *s, const struct perf_event_header *h)
{
    const uint8_t *end = (const uint8_t *)h + h->size;
    const struct perf_record_comm *r = (const struct perf_record_comm *)(h + 1);
    struct perf_sample_id sid;
    if (h->size < sizeof *h + 16 || perf_record_id(h, &sid) < 0)
        return;
    uint32_t pi = pf_proc_find(s, (pid_t)r->pid);
    if (pi == PERF_NONE)
        return;
    char name[32];
    size_t room = (size_t)(end - (const uint8_t *)r->comm);
    snprintf(name, sizeof name, "%.*s", (int)(room < 31 ? room : 31), r->comm);
    if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
        on_exec(s, pi, (pid_t)r->tid, name, sid.time);
        return;
    }
    uint32_t i = pf_thr_find(s, (pid_t)r->tid);
    if (i != PERF_NONE && s->thr[i].alive && s->thr[i].proc == pi)
        pf_thr_rename(s, &s->thr[i], name, sid.time);
}

static void on_fork(struct pf_sampler *s, const struct perf_record_task *r)
{
    pid_t pid = (pid_t)r->pid;
    uint32_t parent = pf_proc_find(s, (pid_t)r->ppid);
    /* a new thread has its creator's name (pf_thr_add may move s->thr) */
    char name[32] = "";
    uint32_t ct = pf_thr_find(s, (pid_t)r->ptid);
    if (ct != PERF_NONE)
        snprintf(name, sizeof name, "%s", s->thr[ct].name);
    if (r->tid != r->pid) {
        uint32_t pi = pf_proc_find(s, pid);
        if (pi != PERF_NONE)
            pf_thr_add(s, pi, (pid_t)r->tid, name[0] ? name : NULL, r->time);
        return;
    }
    /* a new process: a pid we knew is used again */
    uint32_t old = pf_proc_find(s, pid);
    if (old != PERF_NONE) {
        pf_proc_exit(s, old);
        s->procs[old].superseded = true;
    }
    /* -a takes every process; --children follows a target's.  Met at its
     * birth, it has its parent's maps and command until it execs, and
     * keeps its records even when it is gone before they are read. */
    if (!s->cfg.all && (!s->cfg.children || parent == PERF_NONE ||
                        s->procs[parent].exited))
        return;
    /* a copy: adding the child may move the table the parent is in */
    char comm[sizeof s->procs[0].comm];
    snprintf(comm, sizeof comm, "%s", parent != PERF_NONE
                                          ? s->procs[parent].comm : name);
    uint32_t pi = pf_proc_add(s, pid, !s->cfg.all, comm[0] ? comm : NULL);
    if (pi == PERF_NONE)
        return;
    if (parent != PERF_NONE)
        pf_maps_fork(s, &s->procs[pi], &s->procs[parent]);
    pf_thr_add(s, pi, pid, name[0] ? name : NULL, r->time);
}

static void on_exit_rec(struct pf_sampler *s, const struct perf_record_task *r)
{
    uint32_t pi = pf_proc_find(s, (pid_t)r->pid);
    if (pi == PERF_NONE)
        return;
    uint32_t i = pf_thr_find(s, (pid_t)r->tid);
    if (i != PERF_NONE && s->thr[i].proc == pi)
        pf_thr_exit(s, i, r->time);
    struct pproc *p = &s->procs[pi];
    if (r->tid == r->pid)
        p->leader_gone = true;
    /* -a watches no pidfd: the leader gone and no thread of its process
     * known to be alive is the process's end (a target's pidfd says so),
     * whichever left last */
    if (!p->watched && p->leader_gone && p->nalive == 0)
        pf_proc_exit(s, pi);
}

/* A switch record: a switch-in ends the thread's off-CPU stretch; a
 * switch-out (it follows the switch-out sample that began the stretch)
 * says whether the thread was preempted, and when it left the CPU. */
static void on_switch(struct pf_sampler *s, const struct perf_event_header *h)
{
    struct perf_sample_id sid;
    if (perf_record_id(h, &sid) < 0)
        return;
    uint32_t i = pf_thr_find(s, (pid_t)sid.tid);
    if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
        if (i == PERF_NONE)
            return;
        struct pthr *t = &s->thr[i];
        if (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
            pf_off_preempted(s, t);
        /* The stretch begins at the switch, not at the sample before it:
         * in between the thread was still on its CPU, copying its stack
         * for us, time its task clock counts and its on-CPU samples (due
         * then, they fire as it comes back) weigh already. */
        if (t->t_out && sid.time > t->t_out)
            t->t_out = sid.time;
        return;
    }
    if (i != PERF_NONE && s->thr[i].t_out) {
        pf_off_count(s, &s->thr[i], sid.time);
        s->thr[i].t_out = 0;
    }
}

static void count_lost(struct pf_sampler *s, uint64_t n)
{
    s->pf_live.lost_ring += n;
    s->live.lost += n;
}

static void on_record(struct pf_sampler *s, const struct perf_event_header *h)
{
    switch (h->type) {
    case PERF_RECORD_SAMPLE:
        on_sample(s, h);
        return;
    case PERF_RECORD_MMAP2:
        if (h->size >= sizeof *h + sizeof(struct perf_record_mmap2))
            pf_maps_mmap(s, (const struct perf_record_mmap2 *)(h + 1),
                         (const uint8_t *)h + h->size);
        return;
    case PERF_RECORD_COMM:
        on_comm(s, h);
        return;
    case PERF_RECORD_FORK:
        if (h->size >= sizeof *h + sizeof(struct perf_record_task))
            on_fork(s, (const struct perf_record_task *)(h + 1));
        return;
    case PERF_RECORD_EXIT:
        if (h->size >= sizeof *h + sizeof(struct perf_record_task))
            on_exit_rec(s, (const struct perf_record_task *)(h + 1));
        return;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
        on_switch(s, h);
        return;
    case PERF_RECORD_LOST:
        if (h->size >= sizeof *h + sizeof(struct perf_record_lost))
            count_lost(s, ((const struct perf_record_lost *)(h + 1))->lost);
        return;
    case PERF_RECORD_LOST_SAMPLES: {
        uint64_t n;
        if (h->size >= sizeof *h + sizeof n) {
            memcpy(&n, h + 1, sizeof n);
            count_lost(s, n);
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
static void drain(struct pf_sampler *s)
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
    /* the BPF program wrote each sample's Python frames before the
     * kernel wrote the sample: every sample read now has its record */
    if (s->pybpf) {
        pf_pybpf_consume(s->pybpf);
        for (size_t i = 0; i < s->nprocs; i++)
            script_next_generation(s->procs[i].script, clock_mono_ns());
    }
    if (s->nrecs > 1)
        sorted_sort(s->recs, s->nrecs, sizeof *s->recs, rec_cmp);
    for (size_t i = 0; i < s->nrecs; i++)
        on_record(s, s->recs[i].h);
    for (int c = 0; c < s->ncpus; c++)
        perf_ring_end(&s->rings[c]);
    s->drains++;
    if (s->pybpf && s->nrecs > 0 && s->recs[s->nrecs - 1].time > TRIM_NS)
        pf_pybpf_trim(s->pybpf, s->recs[s->nrecs - 1].time - TRIM_NS);
}

/* --- the thread ------------------------------------------------------------------- */

/* kill -STOP: nothing to do but say so (the kernel stops the threads,
 * and stopped threads take no samples).  Stopped when every target
 * still running is. */
static void watch_stop(struct pf_sampler *s)
{
    int running = 0, stopped = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (!p->watched || p->exited || p->stat_fd < 0)
            continue;
        char st = target_stat_state(p->stat_fd, NULL);
        if (st == 'T')
            stopped++;
        else if (st)
            running++;
    }
    bool now_stopped = stopped && !running;
    if (now_stopped && s->live.target == SAMPLER_RUNNING) {
        s->live.group_stops++;
        /* --idle: time stopped is not time spent in the call it stopped
         * in; the stretches end here, uncounted past the last flush */
        for (size_t k = 0; k < s->nalive; k++)
            s->thr[s->alive[k]].t_out = 0;
    }
    s->live.target = now_stopped ? SAMPLER_STOPPED : SAMPLER_RUNNING;
}

/* CPU time the sampled processes used: the targets', or with -a every
 * CPU's busy time (/proc/stat). */
static uint64_t targets_cpu_ns(struct pf_sampler *s)
{
    uint64_t sum = 0;
    if (s->cfg.all) {
        FILE *f = fopen("/proc/stat", "re");
        unsigned long long v[8] = {0};
        if (f) {
            if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
                memset(v, 0, sizeof v);
            fclose(f);
        }
        long hz = sysconf(_SC_CLK_TCK);
        uint64_t busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        return busy * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
    }
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].watched && !s->procs[i].exited)
            sum += clock_pid_cpu_ns(s->procs[i].pid);
    return sum;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void publish(struct pf_sampler *s, uint64_t now, bool force)
{
    if (!force && now - s->t_publish < PUBLISH_NS)
        return;
    s->t_publish = now;
    struct sampler_stats *l = &s->live;
    if (force || now - s->win_start >= WINDOW_NS) {
        /* the median of the latest unwinds, once a second */
        uint32_t tmp[PERF_UNWIND_KEEP];
        size_t n = s->unw_n < PERF_UNWIND_KEEP ? (size_t)s->unw_n : PERF_UNWIND_KEEP;
        memcpy(tmp, s->unw_last, n * sizeof *tmp);
        sorted_sort(tmp, n, sizeof *tmp, u32_cmp);
        l->unwind_median_ns = n ? tmp[n / 2] : 0;
    }
    l->tracer_cpu_ns = clock_thread_cpu_ns();
    l->elapsed_ns = now - s->t_start;
    l->threads = (uint32_t)s->nalive;
    s->pf_live.script_bpf = s->pybpf != NULL;
    if (s->pybpf) {
        struct pf_pybpf_stats b;
        pf_pybpf_get_stats(s->pybpf, &b);
        s->pf_live.script_matched = b.match.matched;
        s->pf_live.script_near = b.match.near;
        s->pf_live.script_orphans = b.match.orphans;
        s->pf_live.script_dropped = b.dropped;
    }
    l->processes = s->procs_live;
    if (l->target == SAMPLER_RUNNING || l->target == SAMPLER_STOPPED)
        watch_stop(s);
    if (now - s->win_start >= WINDOW_NS) {
        /* per thread: samples per second of the threads' CPU time */
        uint64_t cpu = targets_cpu_ns(s);
        double secs = (double)(cpu - s->win_cpu) / 1e9;
        l->achieved_hz = cpu > s->win_cpu && secs > 0.001 ? (double)s->win_samples / secs : 0;
        s->win_cpu = cpu;
        s->win_start = now;
        s->win_samples = 0;
    }
    pthread_mutex_lock(&s->lock);
    uint32_t seen = s->st.threads_seen;
    s->st = *l;
    s->st.threads_seen = seen; /* counted by pf_thr_add under the lock */
    s->pf_st = s->pf_live;
    for (size_t k = 0; k < s->nalive; k++)
        pf_thr_stats_sync(s, &s->thr[s->alive[k]], now);
    pthread_mutex_unlock(&s->lock);
}

/* Apply a pause, resume or new interval asked for by another thread. */
static void apply_controls(struct pf_sampler *s, uint64_t now)
{
    bool paused = atomic_load(&s->paused);
    if (paused != s->is_paused) {
        s->is_paused = paused;
        pf_ioctl_all(s, paused ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, NULL, -1);
        if (paused) {
            for (size_t k = 0; k < s->nalive; k++)
                s->thr[s->alive[k]].t_out = 0;
        } else {
            pf_reconcile(s, now);
            if (s->cfg.idle && s->cfg.all)
                pf_off_meet_all(s, now);
            if (s->cfg.idle)
                pf_off_bootstrap_blocked(s, now);
        }
    }
    uint64_t iv = atomic_load(&s->interval_ns);
    if (iv != s->cur_interval) {
        /* reaches the events inherited from these too (measured) */
        pf_ioctl_all(s, PERF_EVENT_IOC_PERIOD, &iv, PERF_EV_CLOCK);
        s->cur_interval = iv;
        interval_changed(s, clock_mono_ns(), iv);
    }
}

/* Every target is gone: the launched command's exit status. */
static void target_gone(struct pf_sampler *s)
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

/* Wait for the rings or a target's exit; handle what came. */
static void step(struct pf_sampler *s)
{
    struct epoll_event evs[16];
    uint32_t exited[16];
    int nexited = 0;
    int n = epoll_wait(s->epfd, evs, 16, (int)(DRAIN_NS / 1000000));
    for (int k = 0; k < n; k++)
        if (evs[k].data.u64 == PERF_EP_KICK) {
            uint64_t v;
            if (read(s->kick_fd, &v, sizeof v) < 0)
                continue; /* EAGAIN: another read took it */
        } else if (evs[k].data.u64 & PERF_EP_PROC)
            exited[nexited++] = (uint32_t)(evs[k].data.u64 & ~PERF_EP_PROC);
    uint64_t now = clock_mono_ns();
    apply_controls(s, now);
    drain(s);
    /* after the drain: its last records, and any child it forked, are in */
    for (int k = 0; k < nexited; k++)
        pf_proc_exit(s, exited[k]);
    if (s->live.lost != s->swept_lost && !s->is_paused &&
        now - s->swept_ns >= SWEEP_NS)
        pf_sweep_gone(s, now, true);
    pf_procs_retire(s, false);
    if (s->cfg.idle && !s->is_paused && s->live.target == SAMPLER_RUNNING) {
        /* `now` was taken before the rings were read: every record up
         * to it has been handled */
        for (size_t k = 0; k < s->nalive; k++) {
            struct pthr *t = &s->thr[s->alive[k]];
            if (t->t_out && t->t_out + FLUSH_NS <= now)
                pf_off_count(s, t, now);
        }
    }
    publish(s, clock_mono_ns(), false);
}

static void *sampler_main(void *arg)
{
    struct pf_sampler *s = arg;
    char err[256] = "";
    int code = 1;
    sampler_block_signals();

    int rc = (s->pcs = malloc((size_t)s->cfg.max_depth * sizeof *s->pcs)) ? 0 : -1;
    if (rc == 0)
        rc = pf_attach(s, err, sizeof err, &code);
    for (size_t i = 0; rc == 0 && i < s->nprocs; i++)
        pf_proc_refresh_maps(s, &s->procs[i]);
    s->t_start = s->win_start = s->t_publish = clock_mono_ns();
    s->win_cpu = targets_cpu_ns(s);
    if (rc == 0 && s->cfg.idle && s->cfg.all)
        pf_off_meet_all(s, s->t_start);
    if (rc == 0 && s->cfg.idle)
        pf_off_bootstrap_blocked(s, s->t_start);
    s->live.pid = s->pid;
    sampler_attach_report(&s->attach, &s->lock, &s->cond, rc, err, code);
    if (rc < 0)
        return NULL;

    while (!atomic_load(&s->stop) && (s->cfg.all || s->watched_live > 0))
        step(s);
    bool gone = !s->cfg.all && s->watched_live == 0;
    /* the last records: samples up to the stop, or the targets' exit */
    drain(s);
    uint64_t now = clock_mono_ns();
    /* the end's figures count no thread whose EXIT was lost as alive */
    if (s->live.lost != s->swept_lost)
        pf_sweep_gone(s, now, true);
    if (s->cfg.idle && !s->is_paused)
        for (size_t k = 0; k < s->nalive; k++)
            pf_off_count(s, &s->thr[s->alive[k]], now);
    pf_procs_retire(s, true);
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

static void sampler_free(struct pf_sampler *s)
{
    pf_detach(s);
    pf_procs_free(s);
    pf_pybpf_free(s->pybpf);
    free(s->recs);
    free(s->pcs);
    free(s->boot_buf);
    close(s->kick_fd);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

static struct sampler *pf_start(const struct sampler_config *cfg, char *err,
                                size_t errlen, int *code,
                                struct sampler_refusal *why)
{
    *code = 1;
    memset(why, 0, sizeof *why);
    struct pf_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->pid = cfg->all ? 0 : cfg->npids ? cfg->pids[0] : cfg->pid;
    s->self = getpid();
    s->epfd = -1;
    if ((s->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        free(s);
        return NULL;
    }
    s->spawn.go_fd = s->spawn.err_fd = -1;
    s->kproc = PERF_NONE;
    s->eo.period_ns = cfg->interval_ns;
    s->eo.stack_bytes = (uint32_t)(cfg->stack_max & ~(size_t)7);
    s->cur_interval = cfg->interval_ns;
    interval_changed(s, 0, cfg->interval_ns);
    atomic_init(&s->stop, false);
    atomic_init(&s->paused, false);
    atomic_init(&s->interval_ns, cfg->interval_ns);
    s->live.target = SAMPLER_RUNNING;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (sampler_thread_start(&s->thread, sampler_main, s, &s->attach,
                             &s->lock, &s->cond, err, errlen, code) < 0) {
        *why = s->refusal;
        sampler_free(s);
        return NULL;
    }
    s->base.ops = &perf_backend;
    s->base.pid = s->pid;
    return &s->base;
}

static int pf_probe(const struct sampler_config *cfg,
                    struct sampler_refusal *why)
{
    bool kernel;
    return perf_events_probe(pf_probe_tid(cfg), cfg->idle, &kernel, why);
}

/* perf_backend.kernel_probe: kernel-mode samples carry the kernel's call
 * chain, so kernel frames are allowed where those are. */
static int pf_kernel_probe(const struct sampler_config *cfg, char *buf,
                           size_t n)
{
    bool kernel;
    struct sampler_refusal why;
    if (perf_events_probe(pf_probe_tid(cfg), false, &kernel, &why) == 0 &&
        kernel)
        return 0;
    perf_events_kernel_refusal(buf, n);
    return -1;
}

/* Wake the loop (any thread): a control or a halt is waiting. */
static void kick(struct pf_sampler *s)
{
    uint64_t one = 1;
    if (write(s->kick_fd, &one, sizeof one) < 0)
        return; /* the counter is full: the loop is woken already */
}

static void pf_halt(struct sampler *base)
{
    struct pf_sampler *s = (struct pf_sampler *)base;
    atomic_store(&s->stop, true);
    kick(s);

    sampler_join(s->thread, &s->stop, &s->joined);
}

static void pf_free(struct sampler *base)
{
    pf_halt(base);
    sampler_free((struct pf_sampler *)base);
}

static void pf_set_paused(struct sampler *base, bool paused)
{
    atomic_store(&((struct pf_sampler *)base)->paused, paused);
    kick((struct pf_sampler *)base);
}

static void pf_set_interval(struct sampler *base, uint64_t interval_ns)
{
    atomic_store(&((struct pf_sampler *)base)->interval_ns, interval_ns);
    kick((struct pf_sampler *)base);
}

static void pf_get_stats(struct sampler *base, struct sampler_stats *out)
{
    struct pf_sampler *s = (struct pf_sampler *)base;
    pthread_mutex_lock(&s->lock);
    *out = s->st;
    out->interval_ns = atomic_load(&s->interval_ns);
    pthread_mutex_unlock(&s->lock);
}

static void pf_foreach_thread(struct sampler *base,
                              void (*fn)(void *ctx, const struct sampler_thread_stats *t),
                              void *ctx)
{
    struct pf_sampler *s = (struct pf_sampler *)base;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->ntstats; i++)
        fn(ctx, &s->tstats[i]);
    pthread_mutex_unlock(&s->lock);
}

static void pf_print_stats(struct sampler *base, FILE *f)
{
    struct pf_sampler *s = (struct pf_sampler *)base;
    pthread_mutex_lock(&s->lock);
    struct pf_stats st = s->pf_st;
    uint64_t throttled = s->st.throttled;
    uint64_t gone = s->gone_threads, gone_samples = s->gone_samples;
    pthread_mutex_unlock(&s->lock);
    sampler_print_unlisted(f, gone, gone_samples);
    fprintf(f, "perf: 1 sampler thread(s), %u events open on %u CPUs; lost in "
            "the ring buffers %" PRIu64 ", throttled %" PRIu64 "; off-CPU: %"
            PRIu64 " switch-outs, %.3f s\n", st.events, st.cpus, st.lost_ring,
            throttled, st.offcpu, (double)st.offcpu_ns / 1e9);
    if (st.swept_threads || st.swept_procs)
        fprintf(f, "perf: exits whose record was lost, found in /proc: %"
                PRIu64 " threads, %" PRIu64 " processes\n", st.swept_threads,
                st.swept_procs);
    if (s->cfg.idle && s->cfg.reasons)
        fprintf(f, "off-CPU reasons: %" PRIu64 " preemptions (waiting for a"
                " CPU) of %" PRIu64 " switch-outs\n", st.preempted, st.offcpu);
    if (st.script_bpf)
        fprintf(f, "perf: interpreter frames read in the sampling interrupt "
                "by a BPF program; its walks matched to their sample %" PRIu64
                " (by the sample's own time stamp %" PRIu64 ", by the nearest "
                "clock reading %" PRIu64 "), without their sample (lost) %"
                PRIu64 ", without room in its ring %" PRIu64 "\n",
                st.script_matched, st.script_matched - st.script_near,
                st.script_near, st.script_orphans, st.script_dropped);
}

const struct sampler_backend perf_backend = {
    .name = "perf",
    .title = "perf_event",
    .caps = SAMPLER_CAP_MANY | SAMPLER_CAP_CHILDREN | SAMPLER_CAP_ALL |
            SAMPLER_CAP_OFFCPU | SAMPLER_CAP_KERNEL | SAMPLER_CAP_SCRIPT |
            SAMPLER_CAP_NOSTOP,
    /* docs/PERFORMANCE.md: sections 9 (the rate) and 7 (16 KiB cut none
     * of the targets measured; the kernel copies it all every sample) */
    .default_hz = 199,
    .default_stack = 16384,
    .max_stack = 65528,   /* a perf record is under 64 KiB */
    .all_needs = PERF_ALL_NEEDS,
    .probe = pf_probe,
    .kernel_probe = pf_kernel_probe,
    .start = pf_start,
    .halt = pf_halt,
    .free = pf_free,
    .set_paused = pf_set_paused,
    .set_interval = pf_set_interval,
    .get_stats = pf_get_stats,
    .print_stats = pf_print_stats,
    .foreach_thread = pf_foreach_thread,
};
