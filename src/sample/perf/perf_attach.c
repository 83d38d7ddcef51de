/* perf_attach.c - the perf sampler's events and rings, attaching to (or
 * launching) its targets, and saying why the kernel refuses; see
 * perf_int.h.
 *
 * One ring per CPU serves every process of the session.  -p and a
 * launched command: each ring is owned by a dummy event on sproftop, and
 * each thread of each target found at attach gets one event per CPU
 * (inherited by the threads it creates, and with --children by the
 * processes it forks) whose records go into that CPU's ring.  -a: one
 * clock event per CPU with pid -1 owns the ring (and with --idle one
 * context-switch event per CPU goes into it), so the events are as many
 * as the CPUs whatever the number of processes.
 */
#include "perf_int.h"

#include "clock.h"
#include "maps.h"
#include "perf_record.h"
#include "perf_ring.h"
#include "util.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#define RING_FILL_MS 600u        /* a ring holds this long at the asked rate:
                                    the loop drains every 200 ms, and wakes
                                    early only at half (a wake-up costs
                                    more than the records it reads) */
#define RING_MIN (256u << 10)
#define RING_MAX (16u << 20)
#define RING_FLOOR (64u << 10)   /* smallest ring when memory is locked */
#define ATTACH_PASSES 16         /* /proc/PID/task rescans at attach */

struct ev_key {
    struct pf_sampler *s;
    uint64_t id;
};

static int ev_eq(void *ctx, uint32_t i)
{
    const struct ev_key *k = ctx;
    return k->s->evs[i].id == k->id;
}

struct pev *pf_ev_find(struct pf_sampler *s, uint64_t id)
{
    struct ev_key k = {s, id};
    uint32_t i = idtab_find(&s->ev_ids, util_mix64(id), ev_eq, &k);
    return i == IDTAB_NONE ? NULL : &s->evs[i];
}

static int ev_keep(struct pf_sampler *s, int fd, uint64_t id, uint32_t thr, int kind)
{
    if (VEC_RESERVE(s->evs, s->capevs, s->nevs + 1) < 0 ||
        idtab_reserve(&s->ev_ids, s->nevs + 1) < 0) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    s->evs[s->nevs] = (struct pev){fd, id, thr, (uint8_t)kind};
    idtab_insert(&s->ev_ids, util_mix64(id), (uint32_t)s->nevs);
    s->nevs++;
    s->pf_live.events++;
    return 0;
}

int pf_open_events(struct pf_sampler *s, uint32_t i)
{
    int kinds = s->cfg.idle ? 2 : 1;
    for (int k = 0; k < kinds; k++) {
        for (int c = 0; c < s->ncpus; c++) {
            uint64_t id = 0;
            int fd = perf_events_open(&s->eo, (enum perf_ev_kind)k, s->thr[i].tid,
                                      s->cpus[c], s->owners[c], &id);
            if (fd < 0 || ev_keep(s, fd, id, i, k) < 0)
                return -1;
            pf_script_attach(s, fd);
            s->thr[i].own_events = true;
        }
    }
    return 0;
}

void pf_close_events_of(struct pf_sampler *s, uint32_t thr)
{
    for (size_t i = 0; i < s->nevs; i++) {
        if (s->evs[i].thr != thr || s->evs[i].fd < 0)
            continue;
        close(s->evs[i].fd);
        s->evs[i].fd = -1;
        s->pf_live.events--;
    }
}

void pf_ioctl_all(struct pf_sampler *s, unsigned long req, void *arg, int kind)
{
    for (size_t i = 0; i < s->nevs; i++)
        if (s->evs[i].fd >= 0 && (kind < 0 || s->evs[i].kind == kind))
            ioctl(s->evs[i].fd, req, arg);
}

static size_t ring_bytes(const struct pf_sampler *s)
{
    if (s->cfg.ring_bytes)
        return s->cfg.ring_bytes; /* --ring-size */
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

/* The fd that owns CPU c's ring: -a's clock event on it (also an event
 * of evs, closed as the owner), else a dummy (counted as an event). */
static int open_owner(struct pf_sampler *s, int c, uint32_t wakeup)
{
    if (!s->cfg.all) {
        int fd = perf_events_open_owner(s->cpus[c], wakeup);
        if (fd >= 0)
            s->pf_live.events++;
        return fd;
    }
    uint64_t id;
    int fd = perf_events_open_cpu(&s->eo, PERF_EV_CLOCK, s->cpus[c], -1, wakeup, &id);
    if (fd < 0 || ev_keep(s, fd, id, PERF_NONE, PERF_EV_CLOCK) < 0)
        return -1;
    return fd;
}

static bool is_owner(const struct pev *e)
{
    return e->thr == PERF_NONE && e->kind == PERF_EV_CLOCK;
}

static int setup_rings(struct pf_sampler *s)
{
    s->ncpus = perf_events_cpus(s->cpus, PERF_MAX_CPUS);
    s->pf_live.cpus = (uint32_t)s->ncpus;
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
        s->owners[c] = open_owner(s, c, (uint32_t)(bytes / 2));
        if (s->owners[c] < 0)
            return -1;
        if (perf_ring_map(&s->rings[c], s->owners[c], bytes, RING_FLOOR) < 0) {
            if (errno == EPERM)
                errno = ENOMEM; /* the locked-memory limit */
            return -1;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)c};
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->owners[c], &ev) < 0)
            return -1;
        if (s->cfg.all && s->cfg.idle) {
            uint64_t id;
            int fd = perf_events_open_cpu(&s->eo, PERF_EV_SWITCH, s->cpus[c],
                                          s->owners[c], 0, &id);
            if (fd < 0 || ev_keep(s, fd, id, PERF_NONE, PERF_EV_SWITCH) < 0)
                return -1;
        }
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

static void refuse(struct pf_sampler *s, pid_t pid, int e, char *err, size_t errlen, int *code)
{
    perf_events_explain(e, pid, false, &s->refusal);
    snprintf(err, errlen, "perf_event: %s; %s (or use --sampler ptrace)",
             s->refusal.cause, s->refusal.fix);
    *code = 1;
}

static int first_other(void *ctx, pid_t tid)
{
    pid_t *tidp = ctx;
    if (tid == *tidp)
        return 0;
    *tidp = tid;
    return 1;
}

static pid_t probe_pid(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char st = fd >= 0 ? target_stat_state(fd, NULL) : 0;
    if (fd >= 0)
        close(fd);
    if (st != 'Z')
        return pid;
    pid_t tid = pid;
    target_tasks(pid, first_other, &tid);
    return tid;
}

pid_t pf_probe_tid(const struct sampler_config *cfg)
{
    if (cfg->argv || cfg->all)
        return 0;
    return probe_pid(cfg->npids ? cfg->pids[0] : cfg->pid);
}

/* Attach to process pid: its threads (rescanned until a pass finds
 * nothing new: a thread made by one we have not opened yet inherits
 * nothing). */
static int attach_pid(struct pf_sampler *s, pid_t pid, char *err, size_t errlen, int *code)
{
    if (target_check(pid, err, errlen) < 0)
        return -1;
    uint32_t proc = pf_proc_add(s, pid, true, NULL);
    if (proc == PERF_NONE) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* its maps now, so that a Python process's events carry the BPF
     * program that reads its frames from their first sample */
    pf_proc_refresh_maps(s, &s->procs[proc]);
    uint64_t now = clock_mono_ns();
    int pass = 0, n;
    do {
        n = pf_scan_tasks(s, proc, true, now);
        if (n < 0) {
            if (errno == ESRCH && s->procs[proc].nalive == 0) {
                snprintf(err, errlen, "PID %d exited before it could be attached",
                         (int)pid);
                return -1;
            }
            if (errno != ESRCH) {
                refuse(s, pid, errno, err, errlen, code);
                return -1;
            }
            break;
        }
    } while (n > 0 && ++pass < ATTACH_PASSES);
    uint32_t leader = pf_thr_find(s, pid);
    if (leader == PERF_NONE || !s->thr[leader].alive)
        s->procs[proc].leader_gone = true; /* a zombie leader */
    return 0;
}

static int launch(struct pf_sampler *s, char *err, size_t errlen, int *code)
{
    if (target_spawn(&s->spawn, s->cfg.argv, s->cfg.quiet_child,
                     s->cfg.child_out, err, errlen) < 0)
        return -1;
    s->pid = s->spawn.pid;
    s->launched = true;
    s->eo.enable_on_exec = true;
    uint32_t proc = pf_proc_add(s, s->pid, true, NULL);
    uint32_t i = proc == PERF_NONE ? PERF_NONE
                                   : pf_thr_add(s, proc, s->pid, "", clock_mono_ns());
    if (i == PERF_NONE || pf_open_events(s, i) < 0) {
        int e = i == PERF_NONE ? ENOMEM : errno;
        target_spawn_abort(&s->spawn);
        refuse(s, s->pid, e, err, errlen, code);
        return -1;
    }
    s->procs[proc].comm[0] = '\0'; /* named at its exec */
    s->eo.enable_on_exec = false;
    return target_spawn_go(&s->spawn, s->cfg.argv[0], err, errlen);
}

int pf_attach(struct pf_sampler *s, char *err, size_t errlen, int *code)
{
    *code = 1;
    bool kernel;
    const pid_t *pids = s->cfg.npids ? s->cfg.pids : &s->cfg.pid;
    size_t npids = s->cfg.npids ? s->cfg.npids : 1;
    if (!s->cfg.argv && !s->cfg.all && npids == 1 &&
        target_check(pids[0], err, errlen) < 0)
        return -1;
    if (s->cfg.all && perf_events_all_allowed(err, errlen) < 0)
        return -1;
    if (perf_events_probe(pf_probe_tid(&s->cfg), s->cfg.idle, &kernel, &s->refusal) < 0) {
        snprintf(err, errlen, "perf_event: %s; %s (or use --sampler ptrace)",
                 s->refusal.cause, s->refusal.fix);
        return -1;
    }
    s->eo.kernel = kernel;
    s->eo.kernel_frames = kernel && s->cfg.kernel_frames;
    s->eo.switch_chain = kernel && s->cfg.reasons;
    s->base.kernel_stacks = s->eo.kernel_frames ||
                            (s->cfg.idle && s->eo.switch_chain);
    /* --no-kernel is said by sampler_start, for every backend */
    if (s->cfg.kernel_frames && !kernel)
        perf_events_kernel_refusal(s->base.kernel_off,
                                   sizeof s->base.kernel_off);
    s->eo.children = s->cfg.children;
    raise_fd_limit();
    struct epoll_event kick = {.events = EPOLLIN, .data.u64 = PERF_EP_KICK};
    if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->kick_fd, &kick) < 0 ||
        setup_rings(s) < 0) {
        refuse(s, s->cfg.all ? -1 : pids[0], errno, err, errlen, code);
        return -1;
    }
    if (s->cfg.all)
        return 0;
    if (s->cfg.argv)
        return launch(s, err, errlen, code);
    for (size_t k = 0; k < npids; k++) {
        char why[200];
        if (attach_pid(s, pids[k], why, sizeof why, code) == 0)
            continue;
        char name[24];
        snprintf(name, sizeof name, "PID %d", (int)pids[k]);
        if (npids > 1 && !strstr(why, name))
            snprintf(err, errlen, "%s: %s", name, why);
        else
            snprintf(err, errlen, "%s", why);
        return -1;
    }
    s->pid = pids[0];
    return 0;
}

void pf_detach(struct pf_sampler *s)
{
    for (size_t i = 0; i < s->nevs; i++)
        if (s->evs[i].fd >= 0 && !is_owner(&s->evs[i]))
            close(s->evs[i].fd);
    for (int c = 0; s->rings && c < s->ncpus; c++)
        perf_ring_unmap(&s->rings[c]);
    for (int c = 0; s->owners && c < s->ncpus; c++)
        if (s->owners[c] >= 0)
            close(s->owners[c]);
    if (s->epfd >= 0)
        close(s->epfd);
    free(s->evs);
    free(s->owners);
    free(s->rings);
    idtab_free(&s->ev_ids);
}

/* --- /proc scans: threads (with their events) and maps after a pause -------- */

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

int pf_scan_tasks(struct pf_sampler *s, uint32_t proc, bool open_new, uint64_t now)
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

void pf_sweep_gone(struct pf_sampler *s, uint64_t now, bool lost)
{
    for (size_t k = s->nalive; k-- > 0;) {
        uint32_t i = s->alive[k];
        const struct pproc *p = &s->procs[s->thr[i].proc];
        char path[96];
        /* a kernel thread's process is the [kernel] pseudo one */
        if (s->thr[i].proc == s->kproc)
            snprintf(path, sizeof path, "/proc/%d", (int)s->thr[i].tid);
        else
            snprintf(path, sizeof path, "/proc/%d/task/%d", (int)p->pid,
                     (int)s->thr[i].tid);
        if (access(path, F_OK) != 0) {
            pf_thr_exit(s, i, now);
            s->pf_live.swept_threads += lost;
        }
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        /* a watched target's pidfd says when it ends */
        if (p->exited || p->superseded || p->watched || i == s->kproc)
            continue;
        char path[32];
        snprintf(path, sizeof path, "/proc/%d", (int)p->pid);
        if (access(path, F_OK) != 0 || (p->leader_gone && p->nalive == 0)) {
            pf_proc_exit(s, (uint32_t)i);
            s->pf_live.swept_procs += lost;
        }
    }
    s->swept_lost = s->live.lost;
    s->swept_ns = now;
}

void pf_reconcile(struct pf_sampler *s, uint64_t now)
{
    /* records were missed while paused: /proc tells what is */
    pf_sweep_gone(s, now, false);
    for (size_t i = 0; i < s->nprocs; i++) {
        struct pproc *p = &s->procs[i];
        if (p->exited || p->superseded)
            continue;
        p->known = false;
        maps_free(p->next);
        p->next = NULL;
        p->maps_dirty = true;
        if (p->watched)
            pf_scan_tasks(s, (uint32_t)i, false, now);
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
