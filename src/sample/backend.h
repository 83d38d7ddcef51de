/* backend.h - the contract between the sampling interface and its
 * backends: the config, the figures and the capabilities both sides
 * speak of, what a backend implements (struct sampler_backend), and the
 * helpers a backend may use.
 *
 * A backend lives in a room of its own (src/sample/perf/,
 * src/sample/ptrace/), includes this header (never sampler.h, whose
 * calls are for the interface's callers) and is reached only through
 * its table: sampler.c lists the tables in its registry, chooses one by
 * its caps (enum sampler_cap), and starts, probes, dumps and stops every
 * backend through its ops, so nothing above the interface names one.
 * Adding a backend: fill a struct sampler_backend and list it in
 * sampler.c's registry.
 */
#ifndef SPROFTOP_BACKEND_H
#define SPROFTOP_BACKEND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "unwind.h"

struct ingest;

/* What a backend can do (struct sampler_backend.caps); sampler_start asks
 * for what the config needs. */
enum sampler_cap {
    SAMPLER_CAP_MANY = 1u << 0,     /* several processes at once */
    SAMPLER_CAP_CHILDREN = 1u << 1, /* the processes the targets fork */
    SAMPLER_CAP_ALL = 1u << 2,      /* every process of the machine */
    SAMPLER_CAP_OFFCPU = 1u << 3,   /* off-CPU samples (blocked threads) */
    SAMPLER_CAP_KERNEL = 1u << 4,   /* kernel frames in each stack (the
                                       kernel's call chain above the user
                                       stack, ingest_rec.kernel), where
                                       the kernel permits them
                                       (kernel_probe) */
    SAMPLER_CAP_SCRIPT = 1u << 5,   /* script frames read from the
                                       target (CPython: issue 22; Ruby:
                                       issue 23), spliced into its native
                                       stacks (src/frames/script_frames.h) */
    SAMPLER_CAP_DUMP = 1u << 6,     /* stop every thread once and unwind
                                       it (sampler_dump, --dump) */
    SAMPLER_CAP_NOSTOP = 1u << 7,   /* samples without ever stopping the
                                       target (no stop time to show) */
};

/* With `all` and SAMPLER_CAP_KERNEL, kernel threads and interrupt work
 * are threads of one pseudo process: this PID (above any real one,
 * PID_MAX_LIMIT), this name.  The model's PROFILE_KERNEL_PID is the same
 * number (collect.c checks). */
#define SAMPLER_KERNEL_PID 4194304
#define SAMPLER_KERNEL_PROCESS "[kernel]"

enum sampler_placement {
    SAMPLER_PLACE_FREE = 0, /* let the scheduler place the sampler */
    SAMPLER_PLACE_FOLLOW,   /* move to the CPU the due thread last ran on */
};

/* 0: auto; else 1 + a backend's place in sampler.c's registry, as
 * sampler_kind_parse returns it. */
enum sampler_kind {
    SAMPLER_AUTO = 0,
};

struct sampler_config {
    int kind;                  /* enum sampler_kind */
    pid_t pid;                 /* attach to this process... */
    const pid_t *pids;         /* ...or to these (npids > 0; pid is
                                  ignored then; SAMPLER_CAP_MANY when
                                  more than one) */
    size_t npids;
    char *const *argv;         /* ...or launch this command (pid == 0) */
    bool children;             /* also every process the targets fork
                                  from now on (SAMPLER_CAP_CHILDREN) */
    bool all;                  /* every process on every CPU: pid, pids
                                  and argv unused (SAMPLER_CAP_ALL) */
    bool quiet_child;          /* launched command's stdio -> /dev/null */
    int child_out;             /* >= 0: the launched command's stdout and
                                  stderr go to this fd (its stdin stays
                                  as quiet_child says); -1: default */
    uint64_t interval_ns;      /* per-thread sampling interval... */
    bool interval_set;         /* ...when set (-F, a rate change); otherwise
                                  each backend uses its own default */
    bool idle;                 /* also sample blocked threads
                                  (SAMPLER_CAP_OFFCPU) */
    bool kernel_frames;        /* SAMPLER_CAP_KERNEL: the kernel's call
                                  chain above each stack, where the
                                  kernel permits it (on unless
                                  --no-kernel); --idle's reasons read it
                                  either way */
    bool reasons;              /* --idle: each off-CPU stretch's reason,
                                  from the kernel's stack at the
                                  switch-out (on; SPROFTOP_OFFCPU_REASONS=0,
                                  a benchmark knob, turns it off) */
    const char *kallsyms;      /* the collector names kernel frames from
                                  this file (NULL: /proc/kallsyms; tests
                                  set SPROFTOP_KALLSYMS); no backend reads
                                  it */
    uint64_t exited_nodes;     /* the collector keeps the stacks of
                                  exited processes and threads near this
                                  many nodes (--exited-nodes; bounds.h);
                                  0: SP_EXITED_NODES_DEFAULT; no backend
                                  reads it */
    size_t stack_max;          /* stack bytes copied per sample... */
    bool stack_max_set;        /* ...when set (--stack-size); otherwise
                                  each backend uses its own default */
    size_t ring_bytes;         /* each CPU's ring buffer, for a backend
                                  that has them (--ring-size); 0: its own
                                  rule */
    int max_depth;             /* frames kept per stack */
    int placement;             /* enum sampler_placement */
    uint32_t spin_us;          /* busy-poll this long after interrupting */
    struct ingest *ingest;     /* where raw stacks go (records carry their
                                  process's pid) */
    /* Called on the sampler thread when a process is first about to be
     * named by a record or by on_maps (at attach, when a target forks a
     * child with `children`, when `all` meets one), and again when it
     * execs (exec true: a new image, comm its new name; its records from
     * then on belong to the new one).  Its records carry a maps
     * generation of at least `gen`, those of an older image or of an
     * older process with the same pid a smaller one (generations grow
     * over the whole session), so a record names its image by (pid,
     * gen).  Must not block. */
    void (*on_process)(void *ctx, pid_t pid, const char *comm, bool exec,
                       uint64_t gen);
    /* Called on the sampler thread whenever a process's mappings change
     * (attach, exec, dlopen...), before any sample of that generation. */
    void (*on_maps)(void *ctx, pid_t pid, uint64_t gen, const char *text,
                    size_t len);
    void *ctx;
};

enum sampler_target {
    SAMPLER_RUNNING = 0,
    SAMPLER_STOPPED,   /* group-stopped by the user */
    SAMPLER_EXITED,    /* the target process is gone */
    SAMPLER_ENDED,     /* the sampler ended (stopped, or fatal error) */
};

/* What every backend reports; what only one has, it prints itself
 * (sampler_print_stats).  stops, signals and eintr_restarts are what
 * sampling did to the target, so a backend that never stops it reports
 * them as 0 rather than leaving them out. */
struct sampler_stats {
    uint64_t samples;          /* stacks pushed (incl. reused) */
    uint64_t first_ns, last_ns; /* CLOCK_MONOTONIC times of the earliest and
                                  latest stack pushed (0: none), the
                                  clock `perf record -k CLOCK_MONOTONIC`
                                  stamps its samples with */
    uint64_t reused;           /* --idle stacks reused without an unwind */
    uint64_t stops;            /* target threads stopped to take a sample */
    uint64_t signals;          /* signals handed back (re-injected) */
    uint64_t eintr_restarts;   /* syscalls restarted after our interrupt */
    uint64_t group_stops;      /* group stops seen (kill -STOP) */
    uint64_t truncated;        /* stacks not unwound to the end */
    uint64_t unwind_end[UNWIND_NCAUSES]; /* stacks by end cause */
    uint64_t lost;             /* stacks dropped: the ingest buffer or the
                                  kernel's ring buffer full */
    uint64_t throttled;        /* times the kernel slowed sampling down
                                  (interrupts too long) */
    uint64_t kstacks;          /* SAMPLER_CAP_KERNEL: stacks pushed with
                                  kernel frames */
    uint64_t kthread_samples;  /* ...with `all`: samples of kernel threads
                                  and interrupt work (the
                                  SAMPLER_KERNEL_PID process) */
    uint64_t late;             /* ...with `all`: kernel-only samples of a
                                  process read after its exit was handed
                                  on (its task tearing down, the sample
                                  in another CPU's ring), left out */
    uint64_t script_samples;   /* stacks pushed with script frames */
    uint64_t script_torn;      /* stacks of a script process whose script
                                  frames could not be read ("Python
                                  frames unreadable"): native frames
                                  only */
    char script[160];          /* the interpreter found ("Python 3.11.2"),
                                  or why its frames are not read; "" if
                                  none */
    uint32_t processes;        /* processes sampled now (live) */
    uint32_t processes_seen;   /* ...and ever */
    uint32_t stack_bytes;      /* stack bytes copied per sample */
    uint64_t stop_median_ns;   /* stop seen -> resumed, median (0 for a
                                  backend with SAMPLER_CAP_NOSTOP) */
    uint64_t unwind_median_ns; /* unwind time per stack, median */
    uint64_t tracer_cpu_ns;    /* sampler thread CPU time */
    uint64_t elapsed_ns;       /* since sampling started */
    uint64_t interval_ns;      /* current interval */
    double achieved_hz;        /* per-thread rate over the last window */
    uint32_t threads;          /* live threads */
    uint32_t threads_seen;     /* threads ever sampled */
    int target;                /* enum sampler_target */
    int exit_code;             /* valid when EXITED and exit_signal == 0 */
    int exit_signal;           /* signal that killed the target, or 0 */
    bool exit_known;           /* exit_code/exit_signal are valid */
    pid_t pid;                 /* the target (known after launch) */
    const char *backend;       /* the backend running (its name) */
    unsigned caps;             /* ...and what it can do (sampler_cap) */
    char fallback[200];        /* why auto did not pick the first backend,
                                  with the fix; "" when it did */
    char kernel_off[200];      /* why stacks have no kernel frames, with
                                  the fix ("kernel frames off: ..."); ""
                                  when they have them */
    bool kernel_stacks;        /* the backend takes kernel stacks: kernel
                                  frames, or --idle's reasons */
    char error[200];           /* fatal error that ended sampling, or "" */
};

/* Per-thread figures for --stats. */
struct sampler_thread_stats {
    pid_t pid;           /* its process */
    pid_t tid;
    char name[32];
    uint64_t samples;
    uint64_t cut;        /* ...of them cut short by the stack copy's end
                            (UNWIND_COPY): its stack is deeper than the
                            copy (0 for a backend that reads live) */
    uint64_t alive_ns;   /* time it was sampled */
    uint64_t due;        /* ticks it was due and running (or blocked, --idle) */
    bool alive;          /* still running (as far as the sampler knows) */
};

/* One thread's stack, as sampler_dump hands it over. */
struct sampler_dump_thread {
    pid_t pid, tid;
    const uint64_t *pcs;  /* n pcs, leaf first (valid during the call);
                             NULL: the thread did not stop in time */
    int n;
    enum unwind_end end;  /* why the unwind stopped */
};


/* A running sampler.  Each backend's own struct starts with this one. */
struct sampler {
    const struct sampler_backend *ops;
    char fallback[200];  /* set by sampler_start: see sampler_stats */
    char kernel_off[200];/* set by the backend's start when the kernel
                            refuses them (SAMPLER_CAP_KERNEL), else by
                            sampler_start (--no-kernel, or a backend
                            without the capability): see sampler_stats */
    bool kernel_stacks;  /* set by the backend's start: see sampler_stats */
    uint32_t stack_bytes;/* set by sampler_start: see sampler_stats */
    pid_t pid;           /* the target, set by the backend's start once
                            attached (sampler_pid) */
};

/* Why a backend cannot serve a config, in two parts, so that sampler.c
 * can say "CAUSE: using NEXT; FIX for the faster sampler" or
 * "CAUSE; FIX". */
struct sampler_refusal {
    char cause[88];   /* "perf_event_paranoid=3" */
    char fix[72];     /* "sysctl kernel.perf_event_paranoid=2 or run as
                         root" (both fit sampler_stats.fallback) */
    bool denied;      /* a permission, a limit or a missing kernel feature
                         (another backend may work), not the target */
};

/* A backend.  The ops' contracts are those of the sampler.h wrappers;
 * sampler.c fills the config's defaults (rate, stack copy) from the
 * fields below before it calls probe, start or dump. */
struct sampler_backend {
    const char *name;        /* --sampler NAME, --stats, the header */
    const char *title;       /* as messages name it ("the T sampler") */
    unsigned caps;           /* enum sampler_cap: what it can do */
    uint32_t default_hz;     /* samples per second per thread unless -F:
                                the highest rate at which the target's
                                slowdown stays about 1% (make bench,
                                docs/PERFORMANCE.md section 9) */
    size_t default_stack;    /* stack bytes copied per sample unless
                                --stack-size */
    size_t max_stack;        /* ...and at most */
    const char *all_needs;   /* with SAMPLER_CAP_ALL: the privilege that
                                sampling every process takes (--help and
                                the refusal say it) */
    /* Whether the kernel lets this backend serve cfg: 0, or -1 with why
     * filled.  Cheap (opens and closes an event at most); NULL: always.
     * Any thread. */
    int (*probe)(const struct sampler_config *cfg,
                 struct sampler_refusal *why);
    /* With SAMPLER_CAP_KERNEL: whether the kernel gives cfg's target
     * kernel frames: 0, or -1 with the one-line reason and its fix in
     * why (n bytes: "kernel frames off: ...").  Cheap (opens and closes
     * an event or two).  Any thread.  NULL otherwise. */
    int (*kernel_probe)(const struct sampler_config *cfg, char *why,
                        size_t n);
    /* As sampler_start; on failure *why says whether the backend was
     * refused (why->denied) rather than the target, so that auto may try
     * the next. */
    struct sampler *(*start)(const struct sampler_config *cfg, char *err,
                             size_t errlen, int *code,
                             struct sampler_refusal *why);
    void (*halt)(struct sampler *s);
    void (*free)(struct sampler *s);       /* halts first */
    void (*set_paused)(struct sampler *s, bool paused);
    void (*set_interval)(struct sampler *s, uint64_t interval_ns);
    void (*get_stats)(struct sampler *s, struct sampler_stats *out);
    void (*print_stats)(struct sampler *s, FILE *f);
    void (*foreach_thread)(struct sampler *s,
                           void (*fn)(void *ctx,
                                      const struct sampler_thread_stats *t),
                           void *ctx);
    /* With SAMPLER_CAP_DUMP: as sampler_dump.  NULL otherwise. */
    int (*dump)(const struct sampler_config *cfg,
                void (*fn)(void *ctx, const struct sampler_dump_thread *t),
                char *err, size_t errlen, int *code);
};

/* The signal mask of every engine thread (a backend's, the collector's):
 * the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) go to the main
 * thread, whose handlers set the flag it polls, and SIGCHLD stays blocked
 * so a backend can wait for it with sigtimedwait.  Call first thing on the
 * new thread. */
void sampler_block_signals(void);

/* The attach handshake between a backend's start (the controlling
 * thread) and its sampler thread, which attaches or launches: the
 * thread reports once, the start waits for it.  Guarded by the
 * backend's stats lock. */
struct sampler_attach {
    int done;            /* 0 waiting, 1 attached, -1 failed */
    char err[256];       /* why it failed */
    int code;            /* ...and the exit code to use */
};

/* Sampler thread: report how attaching went (rc 0 or -1, with err and
 * code) under lock, and wake the start waiting on cond. */
void sampler_attach_report(struct sampler_attach *a, pthread_mutex_t *lock,
                           pthread_cond_t *cond, int rc, const char *err,
                           int code);

/* Controlling thread (a backend's start): start the sampler thread
 * (*thread, running fn(arg)) and wait on cond (under lock) for its
 * report.  0 once attached; else -1 with the reason in err and *code,
 * the thread (if it started) joined. */
int sampler_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg,
                         struct sampler_attach *a, pthread_mutex_t *lock,
                         pthread_cond_t *cond, char *err, size_t errlen,
                         int *code);

/* For backends: --stats' list of threads (sampler_foreach_thread) keeps
 * the live ones and the newest SAMPLER_EXITED_LISTED exited ones; the
 * older exited ones are only counted, so the list does not grow with
 * every thread ever seen (a thread pool that churns). */
#define SAMPLER_EXITED_LISTED 64u

/* For backends: the line after that list that counts the exited threads
 * left out of it, and their samples (nothing when there are none).  Any
 * thread. */
void sampler_print_unlisted(FILE *f, uint64_t threads, uint64_t samples);

/* For backends: record how the target ended from its wait status
 * (exit_code, or exit_signal when a signal killed it; exit_known).  The
 * backend's own thread, on its private copy of the figures. */
void sampler_stats_set_exit(struct sampler_stats *st, int status);

/* For backends' halt: set *stop, then join the backend's thread unless
 * *joined says it was already joined.  Controlling thread. */
void sampler_join(pthread_t thread, atomic_bool *stop, bool *joined);

#endif
