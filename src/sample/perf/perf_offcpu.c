/* perf_offcpu.c - --idle for the perf sampler; see perf_int.h.
 *
 * Every switch of a sampled thread off its CPU is sampled: its stack is
 * unwound (or reused, when it blocks again where it did last time) and
 * weighted by how long the thread stays off the CPU, up to its
 * PERF_RECORD_SWITCH back in (ns: ingest_rec.weight).  Threads
 * already blocked at attach (or at a resume) never switch out while we
 * watch: their stack is read once from /proc/PID/task/TID/syscall (user
 * SP and PC) and process_vm_readv.  With -a, no record names them
 * either: /proc is walked for them first (pf_off_meet_all).
 */
#include "perf_int.h"

#include "ingest.h"
#include "maps.h"
#include "offcpu_reason.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define BOOT_STACK (256u << 10)  /* stack read for a thread blocked at attach */

/* The stretch off CPU so far, up to `until`, weighs its own length: no
 * rounding to intervals, so short and long stretches, and the on-CPU
 * samples around them (each its interval), add up to wall-clock time. */
void pf_off_count(struct pf_sampler *s, struct pthr *t, uint64_t until)
{
    if (!t->t_out || !t->have_off || until <= t->t_out)
        return;
    uint64_t w = until - t->t_out;
    s->pf_live.offcpu_ns += w;
    /* counted with the samples it is in, as ptrace counts its reuses (a
     * switch-out whose stretch is never pushed is no sample) */
    if (pf_push_stack(s, t, t->off_pcs, t->off_n, t->off_flags, t->t_out, w,
                      t->off_py, t->off_kpcs, t->off_nk) && t->off_reused)
        s->live.reused++;
    t->t_out = until;
}

/* t's room for an off-CPU stack: max_depth user pcs, then the kernel's. */
static bool off_room(struct pf_sampler *s, struct pthr *t)
{
    size_t n = (size_t)s->cfg.max_depth + PERF_RECORD_KSTACK;
    if (!t->off_pcs && !(t->off_pcs = malloc(n * sizeof *t->off_pcs)))
        return false;
    t->off_kpcs = t->off_pcs + s->cfg.max_depth;
    return true;
}

void pf_off_preempted(struct pf_sampler *s, struct pthr *t)
{
    if (!t->t_out || !t->have_off || t->off_flags & INGEST_F_PREEMPT ||
        !s->cfg.reasons)
        return;
    t->off_flags |= INGEST_F_PREEMPT;
    s->pf_live.preempted++;
}

void pf_off_begin(struct pf_sampler *s, struct pthr *t, const uint64_t *regs,
                  const uint8_t *stack, uint64_t len, uint64_t time,
                  const uint64_t *kpcs, int nk)
{
    struct pproc *p = &s->procs[t->proc];
    if (!off_room(s, t))
        return;
    /* The kernel's part, where the reason is read, is new every time:
     * the same user call can wait for different things. */
    memcpy(t->off_kpcs, kpcs, (size_t)nk * sizeof *kpcs);
    t->off_nk = nk;
    /* A thread that blocks again in the same call, with the same stack
     * and frame pointers, is in the same call chain: reuse it, unwind
     * nothing. */
    if (!t->have_off || t->off_ip != regs[16] || t->off_sp != regs[7] ||
        t->off_bp != regs[6] || pf_maps_pending(p)) {
        uint32_t flags;
        int n = pf_unwind(s, p, regs, stack, len, &flags);
        memcpy(t->off_pcs, s->pcs, (size_t)n * sizeof *s->pcs);
        t->off_n = n;
        t->off_flags = flags | (s->cfg.reasons ? INGEST_F_OFFCPU : 0);
        t->off_ip = regs[16];
        t->off_sp = regs[7];
        t->off_bp = regs[6];
        t->have_off = true;
        t->off_reused = false;
    } else {
        /* a new stretch: its own switch-out says if it was preempted,
         * its own kernel stack why it waits */
        t->off_flags &= ~((uint32_t)INGEST_F_PREEMPT | INGEST_REASON_MASK);
        t->off_reused = true;
    }
    /* its Python stack of this moment: a thread that blocks again at the
     * same native place may run other Python code (Python calls Python
     * without a native frame) */
    if (p->script && (t->off_py || (t->off_py = malloc(sizeof *t->off_py))))
        pf_script_sample(s, t, time, t->off_py);
    t->t_out = time;
    s->pf_live.offcpu++;
}

/* The reason a thread blocked since before we watched waits for, from
 * the names /proc/PID/task/TID/stack gives (root only; 0 otherwise). */
static uint32_t boot_reason(pid_t pid, pid_t tid)
{
    char path[96], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stack", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return 0;
    buf[got] = '\0';
    /* "[<0>] do_nanosleep+0x6d/0x140" per line, innermost first */
    const char *names[64];
    size_t n = 0, which;
    for (char *line = strtok(buf, "\n"); line && n < 64;
         line = strtok(NULL, "\n")) {
        char *name = strchr(line, ']');
        if (name && name[1] == ' ')
            names[n++] = name + 2;
    }
    enum offcpu_reason r = offcpu_classify(names, n, false, &which);
    return (uint32_t)r << INGEST_REASON_SHIFT;
}

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

/* The state letter of thread tid of pid, 0 when it cannot be read. */
static char task_state(pid_t pid, pid_t tid)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char st = target_stat_state(fd, NULL);
    close(fd);
    return st;
}

/* Thread tid's time on a CPU so far (ns), or UINT64_MAX when unknown. */
static uint64_t task_runtime(pid_t pid, pid_t tid)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid,
             (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t ns = UINT64_MAX;
    if (fd >= 0 && target_runtime(fd, &ns) != 0)
        ns = UINT64_MAX;
    if (fd >= 0)
        close(fd);
    return ns;
}

#define BOOT_TRIES 3 /* reads of a blocked thread that woke while read */

/* Read the user SP and PC of thread t, blocked in the kernel, its stack
 * into s->boot_buf and its script frames into t->off_py: the stack
 * length read, or 0.  Blocked means still: the read holds only when the
 * thread was blocked after it and ran no nanosecond while it was read
 * (its CPU time the same before and after), else it is read again,
 * BOOT_TRIES times at most; 0 when it keeps running (its own switch-outs
 * will be sampled). */
static uint64_t boot_read(struct pf_sampler *s, struct pthr *t,
                          uint64_t *sp, uint64_t *pc)
{
    struct pproc *p = &s->procs[t->proc];
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)p->pid,
             (int)t->tid);
    pf_maps_current(s, p);
    for (int k = 0; k < BOOT_TRIES; k++) {
        uint64_t ran = task_runtime(p->pid, t->tid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return 0;
        int rc = target_syscall_sp_pc(fd, sp, pc);
        close(fd);
        const struct map_entry *e =
            rc == 0 && p->maps ? maps_find(p->maps, *sp) : NULL;
        if (!e)
            return 0;
        uint64_t len = e->end - *sp < BOOT_STACK ? e->end - *sp : BOOT_STACK;
        struct iovec local = {s->boot_buf, len};
        struct iovec remote = {(void *)(uintptr_t)*sp, len};
        ssize_t got = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
        if (got < 16)
            return 0;
        if (p->script && t->off_py)
            script_walk(p->script, t->tid, t->off_py);
        char st = task_state(p->pid, t->tid);
        if (ran != UINT64_MAX && (st == 'S' || st == 'D') &&
            task_runtime(p->pid, t->tid) == ran)
            return (uint64_t)got;
    }
    return 0;
}

/* Read the stack of thread t, blocked in the kernel, and make it t's
 * off-CPU stack from `now`. */
static void off_bootstrap(struct pf_sampler *s, struct pthr *t, uint64_t now)
{
    struct pproc *p = &s->procs[t->proc];
    if (!off_room(s, t) ||
        (p->script && !t->off_py && !(t->off_py = malloc(sizeof *t->off_py))))
        return;
    uint64_t sp, pc;
    uint64_t len = boot_read(s, t, &sp, &pc);
    if (!len)
        return;
    uint64_t regs[UNWIND_NREGS] = {0};
    regs[7] = sp;
    regs[16] = pc;
    /* Try %rbp = 0 first (code without frame pointers needs none), then
     * the first few frame-pointer candidates; keep the deepest stack. */
    uint64_t best[8] = {0};
    int nbest = 1;
    for (uint64_t off = 0; off + 16 <= len && nbest < 8; off += 8)
        if (fp_candidate(p->maps, s->boot_buf, sp, len, off))
            best[nbest++] = sp + off;
    int keep_n = -1;
    enum unwind_end keep_end = UNWIND_OTHER;
    for (int k = 0; k < nbest && keep_end != UNWIND_COMPLETE; k++) {
        regs[6] = best[k];
        enum unwind_end end;
        int n = pf_unwind_raw(s, p, regs, s->boot_buf, len, &end);
        if (n > keep_n || end == UNWIND_COMPLETE) {
            memcpy(t->off_pcs, s->pcs, (size_t)n * sizeof *s->pcs);
            t->off_n = keep_n = n;
            keep_end = end;
        }
    }
    t->off_flags = pf_count_end(s, keep_end);
    if (s->cfg.reasons)
        t->off_flags |= INGEST_F_OFFCPU | boot_reason(p->pid, t->tid);
    t->off_nk = 0;
    t->off_ip = pc;
    t->off_sp = sp;
    t->off_bp = 0; /* unknown: the next switch-out unwinds again */
    t->have_off = true;
    t->t_out = now;
    s->pf_live.offcpu++;
}

struct meet {
    struct pf_sampler *s;
    pid_t pid;
    uint32_t proc;  /* PERF_NONE until a blocked thread needs it */
    uint64_t now;
};

/* A thread of m->pid: into the tables when it is blocked now (it would
 * not switch while we watch, so no record would ever name it). */
static int meet_task(void *ctx, pid_t tid)
{
    struct meet *m = ctx;
    struct pf_sampler *s = m->s;
    char st = task_state(m->pid, tid);
    if (st != 'S' && st != 'D')
        return 0;
    if (m->proc == PERF_NONE &&
        (m->proc = pf_proc_add(s, m->pid, false, NULL)) == PERF_NONE)
        return 1;
    uint32_t i = pf_thr_find(s, tid);
    if (i == PERF_NONE || !s->thr[i].alive || s->thr[i].proc != m->proc)
        pf_thr_add(s, m->proc, tid, NULL, m->now);
    return 0;
}

void pf_off_meet_all(struct pf_sampler *s, uint64_t now)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        pid_t pid = (pid_t)atoi(de->d_name);
        char cmd[8];
        if (pid == s->self)
            continue;
        /* kernel threads have no command line, and no user stack */
        target_cmdline(pid, cmd, sizeof cmd);
        if (!cmd[0])
            continue;
        uint32_t known = pf_proc_find(s, pid);
        struct meet m = {s, pid, known != PERF_NONE &&
                                 !s->procs[known].exited ? known : PERF_NONE,
                         now};
        target_tasks(pid, meet_task, &m);
    }
    closedir(d);
}

void pf_off_bootstrap_blocked(struct pf_sampler *s, uint64_t now)
{
    if (!s->boot_buf && !(s->boot_buf = malloc(BOOT_STACK)))
        return;
    for (size_t k = 0; k < s->nalive; k++) {
        struct pthr *t = &s->thr[s->alive[k]];
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat",
                 (int)s->procs[t->proc].pid, (int)t->tid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        char st = target_stat_state(fd, NULL);
        close(fd);
        if (st == 'S' || st == 'D')
            off_bootstrap(s, t, now);
    }
}
