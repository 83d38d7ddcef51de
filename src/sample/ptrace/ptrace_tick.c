/* ptrace_tick.c - which threads are due, and interrupting them; see
 * ptrace_int.h.
 *
 * One timer wake-up serves every due thread, and each thread keeps its
 * own schedule, so a thread slow to stop never delays the others.  The
 * default (on-CPU) mode never interrupts a thread blocked in the kernel:
 * PTRACE_INTERRUPT would make some syscalls fail with EINTR in the target
 * (PTRACE.md).  --idle samples blocked threads too, reusing a thread's
 * last stack while it has not moved from the same blocking call.
 */
#include "ptrace_int.h"

#include <sched.h>
#include <sys/ptrace.h>

#include "clock.h"
#include "ingest.h"
#include "target.h"

#define RAN_RECENT_NS 10000000ull   /* on-CPU: ran within this long */
#define STOP_GIVEUP_NS 500000000ull /* an interrupt unanswered this long */

static void place_on(struct pt_sampler *s, int cpu)
{
    if (cpu < 0 || cpu == s->cpu_now)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        s->cpu_now = cpu;
}

/* Whether t is due now (and moves its schedule on if so).  A sample
 * taken now stands for the slot it was due in: the interval its due time
 * was set with, which after a rate change is the old one (t->weight). */
static bool due_now(struct sthread *t, uint64_t now, uint64_t iv)
{
    if (t->next_due > now)
        return false;
    t->weight = t->slot_ns ? t->slot_ns : iv;
    t->slot_ns = iv;
    t->next_due += iv;
    if (t->next_due <= now)
        t->next_due = now + iv; /* fell behind: don't burst */
    return true;
}

/* A thread whose last interrupt is still unanswered: false while we wait
 * for it; after STOP_GIVEUP_NS (a thread stuck in D, like a vfork parent,
 * or whose trap was swallowed) we stop waiting: if the stop comes after
 * all, it is resumed without a sample. */
static bool interrupt_settled(struct pt_sampler *s, struct sthread *t,
                              uint64_t now)
{
    if (t->state != T_INTERRUPTED)
        return true;
    s->pt_live.missed++; /* still on its way to the last stop */
    if (now - t->t_interrupt < STOP_GIVEUP_NS)
        return false;
    t->state = T_FREE;
    s->pt_live.given_up++;
    return true;
}

/* On-CPU mode: a thread that has not run for RAN_RECENT_NS is blocked, or
 * has just woken and waits for a CPU; stopping it would sample run-queue
 * waits (stacks at syscall returns) that perf's cpu-clock never sees.  A
 * CPU-bound thread that is only preempted ran moments ago and is still
 * sampled.  schedstat is cheaper to read than stat, so it goes first. */
static bool ran_recently(struct sthread *t, uint64_t now)
{
    uint64_t rt;
    if (t->sched_fd < 0 || target_runtime(t->sched_fd, &rt) != 0)
        return true;
    if (rt != t->last_runtime || !t->t_ran)
        t->t_ran = now;
    t->last_runtime = rt;
    return now - t->t_ran <= RAN_RECENT_NS;
}

/* --idle: push the thread's last stack again if it has not moved from the
 * blocking call it was sampled in.  True when it did. */
static bool reuse_stack(struct pt_sampler *s, struct sthread *t, uint64_t now)
{
    uint64_t sp, pc;
    if (!t->have_last || t->syscall_fd < 0 ||
        target_syscall_sp_pc(t->syscall_fd, &sp, &pc) != 0 ||
        sp != t->last_sp || pc != t->last_pc)
        return false;
    pt_stop_push(s, t->tid, t, t->last_pcs, t->last_n,
                 t->last_flags | INGEST_F_REUSED, now, t->weight, NULL, NULL,
                 NULL);
    s->live.reused++;
    return true;
}

/* Count t as eligible in this rate window (it ran, or --idle). */
static void count_eligible(struct pt_sampler *s, struct sthread *t)
{
    if (t->win_mark != s->win_id + 1) {
        t->win_mark = s->win_id + 1;
        s->win_threads++;
    }
    t->due++;
}

/* Sample t now if it should be: interrupt it (true), reuse its stack, or
 * leave it alone. */
static bool sample_thread(struct pt_sampler *s, struct sthread *t, uint64_t now)
{
    if (!s->cfg.idle && !ran_recently(t, now))
        return false;
    int cpu = -1;
    char st = target_stat_state(t->stat_fd, &cpu);
    bool blocked = st == 'S' || st == 'D' || st == 'I';
    if (st != 'R' && !blocked)
        return false; /* gone (its exit event drops it), stopped, zombie */
    if (blocked && !s->cfg.idle)
        return false; /* never interrupt a blocked thread: it could see EINTR */
    count_eligible(s, t);
    if (blocked && reuse_stack(s, t, now))
        return false;
    if (s->cfg.placement == SAMPLER_PLACE_FOLLOW)
        place_on(s, cpu);
    t->t_interrupt = clock_mono_ns();
    if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
        return false; /* ESRCH: exiting; its exit event drops it */
    t->state = T_INTERRUPTED;
    t->was_blocked = blocked;
    return true;
}

/* Interrupt every due thread.  Returns how many interrupts were sent. */
int pt_tick(struct pt_sampler *s, uint64_t now)
{
    uint64_t iv = atomic_load(&s->interval_ns);
    bool paused = atomic_load(&s->paused);
    int sent = 0;
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (!due_now(t, now, iv) || paused || t->state == T_GROUPSTOP ||
            !interrupt_settled(s, t, now))
            continue;
        sent += sample_thread(s, t, now);
    }
    return sent;
}

/* When the loop must wake next: the earliest due thread, the next rescan,
 * and at least every 100 ms. */
uint64_t pt_tick_deadline(const struct pt_sampler *s, uint64_t now)
{
    uint64_t d = now + 100000000ull;
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct sthread *t = s->threads[i];
        if (t->state == T_FREE && t->next_due < d)
            d = t->next_due;
    }
    if (s->t_rescan + PT_RESCAN_NS < d)
        d = s->t_rescan + PT_RESCAN_NS;
    return d < now ? now : d;
}
