/* ptrace_events.c - what waitpid reports, handled; see ptrace_int.h.
 *
 *   - our interrupt stop (PTRACE_EVENT_STOP, SIGTRAP): take the sample;
 *   - a group-stop (PTRACE_EVENT_STOP with a stop signal): PTRACE_LISTEN,
 *     so the user's kill -STOP sticks and our waits never block on it;
 *   - a signal-delivery stop: the signal is handed back (PTRACE_CONT sig);
 *   - PTRACE_EVENT_EXEC: only the exec'ing thread remains, with new maps;
 *   - an exit: the thread is dropped; the process is gone with its last.
 */
#include "ptrace_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "maps.h"
#include "target.h"

#define MAPS_WATCH_NS 1000000000ull /* after an exec, re-read the maps
                                       often this long: ld.so maps the
                                       libraries after the exec event */
#define FINAL_WAIT_NS 200000000ull  /* wait for pending stops at the end */

static bool is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void target_gone(struct pt_sampler *s, int status)
{
    s->live.target = SAMPLER_EXITED;
    sampler_stats_set_exit(&s->live, status);
}

static void handle_exec(struct pt_sampler *s, pid_t tid)
{
    /* the copies taken before the exec show the old image: unwind them
     * with its maps while they are still here */
    pt_stop_unwind_old(s);
    /* After exec only the leader remains (with the PID as its tid). */
    for (size_t i = s->nthreads; i-- > 0;)
        if (s->threads[i]->tid != tid)
            pt_threads_drop(s, s->threads[i]->tid);
    struct sthread *t = pt_threads_find(s, tid);
    if (!t)
        t = pt_threads_add(s, tid);
    if (t) {
        char name[32];
        target_thread_name(s->pid, tid, name, sizeof name);
        s->launch_pending = false;
        pt_threads_rename(s, t, name);
        t->have_last = false;
        /* exec may swallow an interrupt we had sent */
        t->state = T_FREE;
    }
    /* the old image's maps are gone: nothing may unwind with them, even
     * if the new ones cannot be read */
    unwinder_set_maps(s->unw, NULL);
    maps_free(s->maps);
    s->maps = NULL;
    /* a new image: the interpreter, if any, is found again */
    script_proc_free(s->script);
    s->script = NULL;
    pt_stop_refresh_maps(s);
    s->maps_fast_until = clock_mono_ns() + MAPS_WATCH_NS;
}

/* A thread exited.  Returns false when the process is gone. */
static bool handle_exit(struct pt_sampler *s, pid_t tid, int status)
{
    pt_threads_exited(s, tid);
    if (tid == s->pid) {
        /* A leader that called pthread_exit exits first while its other
         * threads go on: the process is gone only with its last thread. */
        s->leader_status = status;
        s->leader_exited = true;
    }
    if (s->nthreads > 0)
        return true;
    target_gone(s, s->leader_exited ? s->leader_status : status);
    return false;
}

/* PTRACE_EVENT_STOP: a group-stop, our interrupt, or a stop we no longer
 * want (an interrupt given up on). */
static void handle_event_stop(struct pt_sampler *s, struct sthread *t, int sig,
                              uint64_t t_seen)
{
    if (is_stop_signal(sig)) {
        /* stay stopped as the user asked, without blocking our waits;
         * SIGCONT will report another PTRACE_EVENT_STOP */
        ptrace(PTRACE_LISTEN, t->tid, 0, 0);
        t->state = T_GROUPSTOP;
        s->live.group_stops++;
    } else if (t->state == T_INTERRUPTED) {
        pt_stop_take(s, t, t_seen);
    } else {
        ptrace(PTRACE_CONT, t->tid, 0, 0);
        t->state = T_FREE;
    }
}

/* Handle one wait status.  Returns false when the target is gone. */
static bool handle_event(struct pt_sampler *s, pid_t tid, int status, uint64_t t_seen)
{
    if (WIFEXITED(status) || WIFSIGNALED(status))
        return handle_exit(s, tid, status);
    if (!WIFSTOPPED(status))
        return true;
    int sig = WSTOPSIG(status);
    int event = (status >> 16) & 0xff;
    struct sthread *t = pt_threads_find(s, tid);
    if (!t) {
        /* Not one of ours any more (e.g. a thread dropped at exec): let it
         * go on. */
        ptrace(PTRACE_CONT, tid, 0, is_stop_signal(sig) || event ? 0 : sig);
    } else if (event == PTRACE_EVENT_STOP) {
        handle_event_stop(s, t, sig, t_seen);
    } else if (event == PTRACE_EVENT_EXEC) {
        handle_exec(s, tid);
        ptrace(PTRACE_CONT, tid, 0, 0);
    } else if (event) {
        ptrace(PTRACE_CONT, tid, 0, 0);
    } else {
        /* signal-delivery-stop: hand the signal back to the target.  Our
         * own interrupt, if any, is still pending and will stop it next. */
        ptrace(PTRACE_CONT, tid, 0, sig);
        s->live.signals++;
    }
    return true;
}

/* Drain pending wait events.  Returns the number handled, -1 when the
 * target is gone. */
int pt_events_drain(struct pt_sampler *s)
{
    int handled = 0;
    for (;;) {
        int status;
        pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
        if (tid == 0)
            return handled;
        if (tid < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ECHILD) {
                /* nothing left to wait for: every thread is gone */
                s->live.target = SAMPLER_EXITED;
                return -1;
            }
            return handled;
        }
        handled++;
        if (!handle_event(s, tid, status, clock_mono_ns()))
            return -1;
    }
}

/* Sleep until deadline (monotonic ns) or a SIGCHLD, which stays blocked in
 * every thread for this. */
void pt_events_wait(uint64_t deadline)
{
    uint64_t now = clock_mono_ns();
    if (deadline <= now)
        return;
    uint64_t d = deadline - now;
    struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigtimedwait(&set, NULL, &ts);
}

/* Busy-poll for the stops just asked for, at most spin_us: a stop
 * reported to a sleeping tracer costs an idle-CPU wake-up (PTRACE.md). */
void pt_events_spin(struct pt_sampler *s, uint32_t spin_us)
{
    uint64_t until = clock_mono_ns() + (uint64_t)spin_us * 1000;
    while (pt_threads_pending(s) && clock_mono_ns() < until) {
        if (pt_events_drain(s) < 0)
            return;
    }
}

/* Stops we asked for and have not handled yet: a blocking call our
 * interrupt broke has already failed with EINTR inside the kernel, and
 * only our stop handling (pt_stop_take) restarts it; released by the
 * detach instead, the thread would see the EINTR.  Wait for them, bounded:
 * a thread in D may not stop for seconds. */
void pt_events_finish(struct pt_sampler *s)
{
    uint64_t until = clock_mono_ns() + FINAL_WAIT_NS;
    while (pt_threads_pending(s) && clock_mono_ns() < until) {
        if (pt_events_drain(s) < 0)
            break;
        if (pt_threads_pending(s)) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}
