/* sampler.h - attach to a target, stop its threads briefly, unwind copies.
 *
 * The sampler runs on its own thread, and that thread makes every ptrace
 * call: it seizes the target (PTRACE_SEIZE, never SIGSTOP), and at each
 * tick interrupts the due threads that are running, copies registers and
 * the top of the stack, resumes each thread at once, then unwinds the
 * copies and appends raw stacks (pcs) to the ingest buffer.
 *
 * The target is sacred:
 *   - default (on-CPU) mode never interrupts a thread that is blocked in
 *     the kernel, and a syscall that still returns EINTR because of our
 *     interrupt (a race of a few microseconds) is restarted;
 *   - signals that arrive during a stop are re-injected; group-stop
 *     (kill -STOP) is respected with PTRACE_LISTEN;
 *   - every wait is bounded; a thread slow to stop never delays others;
 *   - detaching is done by the kernel when the sampler thread exits, which
 *     releases even threads that are blocked, without interrupting them.
 *
 * Callers: src/collect.c (live sessions) and src/main.c (--dump).
 */
#ifndef SPROFTOP_SAMPLER_H
#define SPROFTOP_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind.h"

struct ingest;

enum sampler_placement {
    SAMPLER_PLACE_FREE = 0, /* let the scheduler place the sampler */
    SAMPLER_PLACE_FOLLOW,   /* move to the CPU the due thread last ran on */
};

struct sampler_config {
    pid_t pid;                 /* attach to this process... */
    char *const *argv;         /* ...or launch this command (pid == 0) */
    bool quiet_child;          /* launched command's stdio -> /dev/null */
    uint64_t interval_ns;      /* per-thread sampling interval */
    bool idle;                 /* also sample blocked threads */
    size_t stack_max;          /* stack bytes copied per sample */
    int max_depth;             /* frames kept per stack */
    int placement;             /* enum sampler_placement */
    uint32_t spin_us;          /* busy-poll this long after interrupting */
    struct ingest *ingest;     /* where raw stacks go */
    /* Called on the sampler thread whenever the target's mappings change
     * (attach, exec, dlopen...), before any sample of that generation. */
    void (*on_maps)(void *ctx, uint64_t gen, const char *text, size_t len);
    void *ctx;
};

/* Fill defaults: 99 Hz, on-CPU, 256 KiB stacks, 512 frames. */
void sampler_config_default(struct sampler_config *c);

enum sampler_target {
    SAMPLER_RUNNING = 0,
    SAMPLER_STOPPED,   /* group-stopped by the user */
    SAMPLER_EXITED,    /* the target process is gone */
    SAMPLER_ENDED,     /* the sampler ended (stopped, or fatal error) */
};

struct sampler_stats {
    uint64_t samples;          /* stacks pushed (incl. reused) */
    uint64_t reused;           /* --idle stacks reused without a stop */
    uint64_t stops;            /* interrupt stops taken */
    uint64_t stops_blocked;    /* ...of threads that were seen blocked */
    uint64_t eintr_restarts;   /* syscalls restarted after our interrupt */
    uint64_t discarded;        /* on-CPU stops that found the thread asleep */
    uint64_t signals;          /* signals re-injected */
    uint64_t group_stops;      /* group-stop reports (kill -STOP) */
    uint64_t truncated;        /* stacks not unwound to the end */
    uint64_t unwind_end[UNWIND_NCAUSES]; /* stacks by end cause */
    uint64_t missed;           /* ticks skipped: thread not stopped yet */
    uint64_t given_up;         /* interrupts unanswered for 500 ms (a
                                  thread in D, or a trap swallowed) */
    uint64_t lost;             /* stacks dropped: ingest full */
    uint64_t stop_median_ns;   /* stop seen -> resumed, median */
    uint64_t stop_p99_ns;
    uint64_t stop_max_ns;
    uint64_t latency_median_ns;/* interrupt -> stop seen, median */
    uint64_t unwind_median_ns; /* unwind time per stack, median */
    uint64_t tracer_cpu_ns;    /* sampler thread CPU time */
    uint64_t elapsed_ns;       /* since sampling started */
    uint64_t interval_ns;      /* current interval */
    double achieved_hz;        /* per-thread rate over the last window */
    uint32_t threads;          /* live threads */
    uint32_t threads_seen;     /* threads ever seized */
    int target;                /* enum sampler_target */
    int exit_code;             /* valid when EXITED and exit_signal == 0 */
    int exit_signal;           /* signal that killed the target, or 0 */
    bool exit_known;           /* exit_code/exit_signal are valid */
    pid_t pid;                 /* the target (known after launch) */
    char error[200];           /* fatal error that ended sampling, or "" */
};

/* Per-thread figures for --stats. */
struct sampler_thread_stats {
    pid_t tid;
    char name[32];
    uint64_t samples;
    uint64_t alive_ns;   /* time it was seized */
    uint64_t due;        /* ticks it was due and running (or blocked, --idle) */
};

struct sampler;

/* Start the sampler thread, which attaches (or launches and attaches) and
 * starts sampling.  Returns once attached.  On failure returns NULL, with
 * a one-line reason in err (naming the cause and the fix), and sets *code
 * to the exit code to use (1 runtime failure, 2 usage). */
struct sampler *sampler_start(const struct sampler_config *cfg, char *err,
                              size_t errlen, int *code);

/* Ask the sampler to stop and wait for its thread to end, which detaches
 * from every thread.  Stats stay readable.  Idempotent; safe once the
 * target has exited. */
void sampler_halt(struct sampler *s);

/* sampler_halt, then free everything.  NULL is a no-op. */
void sampler_stop(struct sampler *s);

/* Pause/resume sampling; the target runs free while paused. */
void sampler_set_paused(struct sampler *s, bool paused);

/* Change the interval (clamped to 100 us .. 1 s); effective at once. */
void sampler_set_interval(struct sampler *s, uint64_t interval_ns);

/* Current figures (a consistent copy). */
void sampler_get_stats(struct sampler *s, struct sampler_stats *out);

/* Per-thread figures: calls fn for every thread ever seized. */
void sampler_foreach_thread(struct sampler *s,
                            void (*fn)(void *ctx,
                                       const struct sampler_thread_stats *t),
                            void *ctx);

/* The PID of the target (the launched child's once launched). */
pid_t sampler_pid(struct sampler *s);

/* --dump: on the calling thread, seize pid, stop every thread once (even
 * blocked ones, as eu-stack and gdb do), copy and detach, then unwind.
 * Calls fn per thread with its pcs (leaf first).  Returns 0, or -1 with a
 * one-line reason in err and *code set. */
struct dump_thread {
    pid_t tid;
    char name[32];
    const uint64_t *pcs;
    int n;
    enum unwind_end end;
    bool stopped;        /* false: did not stop within the time limit */
};
int sampler_dump(pid_t pid, int max_depth,
                 void (*fn)(void *ctx, const struct dump_thread *t,
                            const char *maps, size_t maps_len),
                 void *ctx, char *err, size_t errlen, int *code);

#endif
