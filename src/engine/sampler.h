/* sampler.h - the sampling interface: start, stop, pause, interval,
 * stats and threads, whichever backend takes the samples.
 *
 * A backend attaches to a target (or launches it), takes samples of its
 * threads' user stacks on a thread of its own, unwinds each copy
 * (unwind.h) and appends raw stacks (pcs) to the ingest buffer, each
 * record naming its process; it announces each process through
 * cfg->on_process and reports maps changes through cfg->on_maps before
 * any sample of the new generation.  The perf backend serves several
 * processes with one thread (a PID list, --children, -a); ptrace one.  Nothing above this interface (collect.c, batch, the UI)
 * knows which backend runs.
 *
 * Backends:
 *   - perf (perf_sampler.c): the kernel samples each thread from a
 *     cpu-clock timer and copies its user registers and the top of its
 *     stack into a ring buffer; the target never stops.  Needs
 *     perf_event_open for the target (perf_event_paranoid <= 2 for your
 *     own processes, or root / CAP_PERFMON).
 *   - ptrace (ptrace_sampler.c): PTRACE_SEIZE, interrupt each due thread,
 *     copy registers and stack, resume at once.  Works wherever ptrace
 *     attach is allowed; costs the target two context switches a sample.
 * `auto` (the default) picks perf when the kernel permits it for the
 * target and says why when it falls back to ptrace.
 *
 * The calls below may be made from one controlling thread (the
 * collector's owner: main or UI thread); each backend does its work on its
 * own thread and these calls take only short locks.
 */
#ifndef SPROFTOP_SAMPLER_H
#define SPROFTOP_SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind.h"

struct ingest;

/* Stack bytes copied per sample unless --stack-size says otherwise. */
#define SAMPLER_PTRACE_STACK (256u << 10) /* ptrace: up to the stack's end
                                             (one process_vm_readv: the
                                             size costs nothing) */
#define SAMPLER_PERF_STACK 16384u     /* perf: the kernel copies this much
                                         in the timer interrupt; chosen in
                                         docs/PERFORMANCE.md */
#define SAMPLER_PERF_STACK_MAX 65528u /* a perf record is under 64 KiB */

/* Samples per second per thread unless -F says otherwise: the highest
 * common rate at which the target's slowdown stays about 1% (make bench,
 * docs/PERFORMANCE.md section 9). */
#define SAMPLER_PERF_HZ 199u
#define SAMPLER_PTRACE_HZ 99u

enum sampler_placement {
    SAMPLER_PLACE_FREE = 0, /* let the scheduler place the sampler */
    SAMPLER_PLACE_FOLLOW,   /* move to the CPU the due thread last ran on */
};

enum sampler_kind {
    SAMPLER_AUTO = 0,  /* perf_event when permitted, else ptrace */
    SAMPLER_PERF,      /* perf_event only: fail when it is refused */
    SAMPLER_PTRACE,    /* ptrace only */
};

struct sampler_config {
    int kind;                  /* enum sampler_kind */
    pid_t pid;                 /* attach to this process... */
    const pid_t *pids;         /* ...or to these (npids > 0; perf only;
                                  pid is ignored then) */
    size_t npids;
    char *const *argv;         /* ...or launch this command (pid == 0) */
    bool children;             /* perf only: also every process the
                                  targets fork from now on */
    bool all;                  /* perf only: every process on every CPU
                                  (pid, pids and argv unused) */
    bool quiet_child;          /* launched command's stdio -> /dev/null */
    int child_out;             /* >= 0: the launched command's stdout and
                                  stderr go to this fd (its stdin stays
                                  as quiet_child says); -1: default */
    uint64_t interval_ns;      /* per-thread sampling interval... */
    bool interval_set;         /* ...when set (-F, a rate change); otherwise
                                  each backend uses its own default */
    bool idle;                 /* also sample blocked threads */
    size_t stack_max;          /* stack bytes copied per sample... */
    bool stack_max_set;        /* ...when set (--stack-size); otherwise
                                  each backend uses its own default */
    int max_depth;             /* frames kept per stack */
    int placement;             /* enum sampler_placement */
    uint32_t spin_us;          /* busy-poll this long after interrupting */
    struct ingest *ingest;     /* where raw stacks go (records carry their
                                  process's pid) */
    /* Called on the sampler thread when a process is first about to be
     * named by a record or by on_maps (at attach, when a target forks a
     * child with `children`, when `all` meets one), and again when it
     * execs (exec true: a new image, comm its new name; its records from
     * then on belong to the new one).  Must not block. */
    void (*on_process)(void *ctx, pid_t pid, const char *comm, bool exec);
    /* Called on the sampler thread whenever a process's mappings change
     * (attach, exec, dlopen...), before any sample of that generation. */
    void (*on_maps)(void *ctx, pid_t pid, uint64_t gen, const char *text,
                    size_t len);
    void *ctx;
};

/* Fill defaults: each backend's rate (SAMPLER_PERF_HZ, SAMPLER_PTRACE_HZ)
 * and stack copy size (ptrace 256 KiB, perf SAMPLER_PERF_STACK), on-CPU,
 * 512 frames, backend auto, a launched command's output where sproftop's
 * goes. */
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
    uint64_t lost;             /* stacks dropped: ingest full, or (perf)
                                  the kernel's ring buffer full */
    uint64_t lost_ring;        /* perf: ...of which the ring buffer's
                                  (PERF_RECORD_LOST) */
    uint64_t throttled;        /* perf: PERF_RECORD_THROTTLE, the kernel
                                  slowing sampling down (interrupts too
                                  long: perf_cpu_time_max_percent) */
    uint64_t script_samples;   /* stacks pushed with Python frames */
    uint64_t script_torn;      /* stacks of a Python process whose Python
                                  frames could not be read ("Python frames
                                  unreadable"): native frames only */
    char script[160];          /* the interpreter found ("Python 3.11.2"),
                                  or why its frames are not read; "" if
                                  none */
    uint64_t script_orphans;   /* perf: walks of the BPF program whose
                                  sample never came (lost) */
    uint64_t script_dropped;   /* perf: walks the BPF ring had no room
                                  for (their samples count as
                                  unreadable) */
    uint64_t offcpu;           /* perf --idle: switch-outs sampled */
    uint64_t offcpu_ns;        /* ...and the off-CPU time they stand for */
    uint32_t events;           /* perf: perf_event fds open */
    uint32_t cpus;             /* perf: CPUs (one ring each) */
    uint32_t processes;        /* processes sampled now (live) */
    uint32_t processes_seen;   /* ...and ever */
    uint32_t sampler_threads;  /* threads the backend runs (1) */
    uint32_t stack_bytes;      /* stack bytes copied per sample */
    uint64_t stale_maps;       /* ptrace: stacks dropped, a library having
                                  been replaced at their addresses since
                                  the maps were read (named by neither it
                                  nor the old) */
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
    const char *backend;       /* "ptrace", "perf": the backend running */
    char fallback[200];        /* why auto did not pick the faster backend,
                                  with the fix; "" when it did */
    char error[200];           /* fatal error that ended sampling, or "" */
};

/* Per-thread figures for --stats. */
struct sampler_thread_stats {
    pid_t pid;           /* its process */
    pid_t tid;
    char name[32];
    uint64_t samples;
    uint64_t alive_ns;   /* time it was seized */
    uint64_t due;        /* ticks it was due and running (or blocked, --idle) */
};

/* A running sampler.  Each backend's own struct starts with this one. */
struct sampler {
    const struct sampler_backend *ops;
    char fallback[200];  /* set by sampler_start: see sampler_stats */
    uint32_t stack_bytes;/* set by sampler_start: see sampler_stats */
};

/* A backend: what sampler_start and the wrappers below dispatch to.  The
 * contracts are those of the wrappers. */
struct sampler_backend {
    const char *name;
    struct sampler *(*start)(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code);
    void (*halt)(struct sampler *s);
    void (*free)(struct sampler *s);       /* halts first */
    void (*set_paused)(struct sampler *s, bool paused);
    void (*set_interval)(struct sampler *s, uint64_t interval_ns);
    void (*get_stats)(struct sampler *s, struct sampler_stats *out);
    void (*foreach_thread)(struct sampler *s,
                           void (*fn)(void *ctx,
                                      const struct sampler_thread_stats *t),
                           void *ctx);
    pid_t (*pid)(struct sampler *s);
};

/* Start sampling with the backend cfg->kind asks for (auto: the first
 * that is permitted), which attaches (or launches and attaches).  Returns
 * once attached.  On failure returns NULL, with a one-line reason in err
 * (naming the cause and the fix), and sets *code to the exit code to use
 * (1 runtime failure, 2 usage).  Controlling thread. */
struct sampler *sampler_start(const struct sampler_config *cfg, char *err,
                              size_t errlen, int *code);

/* Ask the sampler to stop and wait for its thread to end, which detaches
 * from every thread.  Stats stay readable.  Idempotent; safe once the
 * target has exited.  Controlling thread. */
void sampler_halt(struct sampler *s);

/* sampler_halt, then free everything.  NULL is a no-op. */
void sampler_stop(struct sampler *s);

/* Pause/resume sampling; the target runs free while paused.  Any thread. */
void sampler_set_paused(struct sampler *s, bool paused);

/* Change the interval (clamped to 100 us .. 1 s); effective at once.
 * Any thread. */
void sampler_set_interval(struct sampler *s, uint64_t interval_ns);

/* Current figures (a consistent copy).  Any thread. */
void sampler_get_stats(struct sampler *s, struct sampler_stats *out);

/* Per-thread figures: calls fn for every thread ever sampled, under the
 * backend's stats lock (fn must not call back into the sampler). */
void sampler_foreach_thread(struct sampler *s,
                            void (*fn)(void *ctx,
                                       const struct sampler_thread_stats *t),
                            void *ctx);

/* The PID of the target (the launched child's once launched; the first
 * listed of several; 0 with `all`). */
pid_t sampler_pid(struct sampler *s);

/* The name of the backend: "ptrace" or "perf". */
const char *sampler_name(const struct sampler *s);

/* Parse a --sampler value ("auto", "perf", "ptrace"): the enum
 * sampler_kind, or -1. */
int sampler_kind_parse(const char *name);

/* For --version: which backend `auto` would pick for a process of this
 * user, and why (one line, with the fix when it is ptrace).  Probes
 * perf_event_open on the calling process.  Any thread. */
void sampler_describe_auto(bool idle, char *buf, size_t len);

/* The signal mask of every engine thread (a backend's, the collector's):
 * the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) go to the main
 * thread, whose handlers set the flag it polls, and SIGCHLD stays blocked
 * so a backend can wait for it with sigtimedwait.  Call first thing on the
 * new thread. */
void sampler_block_signals(void);

/* For backends: record how the target ended from its wait status
 * (exit_code, or exit_signal when a signal killed it; exit_known).  The
 * backend's own thread, on its private copy of the figures. */
void sampler_stats_set_exit(struct sampler_stats *st, int status);

/* For backends' halt: set *stop, then join the backend's thread unless
 * *joined says it was already joined.  Controlling thread. */
void sampler_join(pthread_t thread, atomic_bool *stop, bool *joined);

#endif
