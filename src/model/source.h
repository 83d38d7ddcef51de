/* source.h - where the TUI and batch mode get their data from.
 *
 * A source is either the live sampler (src/collect/collect.c) or a
 * static profile loaded from files (source_file.c).  Both feed the same
 * aggregate and are read the same way, so UI tests run on recorded data
 * and see the same screen every time (ncdu's dir_scan/dir_import idea).
 *
 * All ops are called from one thread (the UI / main thread), but for
 * snapshot, which the TUI's builder thread (ui/feed.c) may call at the
 * same time as the others: a source makes its copy under a lock of its
 * own.  The live source does its work on its own threads; these calls
 * only take short locks (the copy holds the collector's for as long as
 * it takes, which no other op waits for) and never block on the
 * target.
 */
#ifndef SPROFTOP_SOURCE_H
#define SPROFTOP_SOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct annot_request;
struct annotation;
struct profile;

enum target_state {
    TARGET_NONE = 0,      /* no target: a loaded file */
    TARGET_RUNNING,       /* attached and sampling (or paused) */
    TARGET_STOPPED,       /* group-stopped by the user (kill -STOP) */
    TARGET_EXITED,        /* exited; exit_code / exit_signal say how */
    TARGET_DETACHED,      /* sampling ended (duration, error) */
};

/* What the header line shows.  Plain numbers; filled by status(). */
struct source_status {
    pid_t pid;                 /* 0 for a file */
    char comm[64];             /* command name, or file basename */
    char cmdline[256];         /* command line (truncated), or file path */
    enum target_state state;
    int exit_code;             /* when EXITED and not signalled */
    int exit_signal;           /* when EXITED by a signal, else 0 */
    bool idle;                 /* wall-clock mode (--idle) */
    bool paused;
    bool is_file;              /* a loaded profile, not a live target */
    uint32_t threads;          /* live threads (or threads in the file) */
    uint64_t interval_ns;      /* asked sampling interval */
    double achieved_hz;        /* per-thread rate achieved over the last
                                  second, averaged over sampled threads */
    uint64_t samples;          /* samples in the aggregate */
    uint64_t unwind_failures;  /* stacks that ended in an unwind error */
    uint64_t lost;             /* samples dropped (ingest full, ...) */
    uint64_t throttled;        /* times the kernel throttled sampling */
    uint64_t truncated_copy;   /* ...of unwind_failures: the stack copy
                                  was too small */
    char copy_note[160];       /* ...for which process, and the fix ("" if
                                  none) */
    char backend[16];          /* the sampler's name; "" for a file */
    char fallback[200];        /* why the faster sampler is not used, with
                                  the fix; "" when it is */
    bool kernel_frames;        /* kernel frames are taken (perf) */
    char kernel[200];          /* why stacks have no (named) kernel
                                  frames, with the fix; "" when they do */
    char script[160];          /* the interpreter found in the target
                                  ("Python 3.11.2"), or why its frames are
                                  not read; "" when none */
    uint64_t median_stop_ns;   /* median target stop time per sample */
    bool stops_target;         /* the sampler stops the target's threads
                                  (median_stop_ns means something) */
    uint64_t elapsed_ns;       /* since sampling started (or file span) */
    char error[160];           /* last runtime error, "" if none */
    bool debuginfod;           /* fetching debug info from debuginfod */
    uint32_t dbg_pending;      /* ...fetches not answered yet */
    uint32_t dbg_found;        /* ...debug files fetched (or cached) */
    uint32_t dbg_missing;      /* ...that no server had (or answered) */
    uint32_t dbg_gave_up;      /* ...given up after the time bound */
};

/* One live thread (tid != 0) or process (tid == 0), as top shows it. */
struct source_task {
    int64_t pid;               /* its process */
    int64_t tid;               /* the thread; 0: the process as a whole */
    uint64_t cpu_ns;           /* CPU time so far (user + system) */
    double cpu_pct;            /* %CPU (100: one CPU) over the last half
                                  second or more; -1 until known */
    char state;                /* /proc's state letter (R, S, D, T, t, Z,
                                  I...); 0: gone */
};

/* A copy of a source's table of tasks (the tasks op), owned by its
 * reader. */
struct source_tasks {
    struct source_task *v;     /* sorted by pid, then tid (a process
                                  before its threads) */
    size_t n, cap;
};

struct source;

struct source_ops {
    /* A new immutable copy of the aggregate (profile_clone), owned by the
     * caller; NULL on OOM. */
    struct profile *(*snapshot)(struct source *s);
    /* Fill *out with the current status. */
    void (*status)(struct source *s, struct source_status *out);
    /* Counter that changes whenever the aggregate changes; lets the UI skip
     * a refresh when nothing is new. */
    uint64_t (*generation)(struct source *s);
    /* Pause (true) or resume sampling; the target runs free while paused.
     * 0, or -1 when the source cannot (a file). */
    int (*set_paused)(struct source *s, bool paused);
    /* Change the sampling interval (ns, clamped by sp_interval_clamp,
     * bounds.h); takes effect at the next tick.  0, or -1 when not
     * applicable. */
    int (*set_interval)(struct source *s, uint64_t interval_ns);
    /* Drop all samples collected so far.  0 or -1. */
    int (*reset)(struct source *s);
    /* Stop everything, detach, free.  The source is gone afterwards. */
    void (*close)(struct source *s);
    /* Stop sampling (detaching from the target) and fold every pending
     * sample in; the source stays readable.  Idempotent.  NULL when there
     * is nothing to finish (a file). */
    void (*finish)(struct source *s);
    /* Write the --stats report (how sampling went) to f, after finish.
     * NULL when the source has none (a file). */
    void (*print_stats)(struct source *s, FILE *f);
    /* The threads the sampler knows (gone ones with state 0) and their
     * processes, with their state, CPU time and %CPU, gathered on the
     * source's own thread (never this one) from the sampler's tables
     * while someone asks: copied into *out, grown as needed, under a
     * short lock.  The first call after a pause may find nothing yet.
     * 0, or -1 on OOM (*out unchanged).  NULL when the source has none
     * (a file). */
    int (*tasks)(struct source *s, struct source_tasks *out);
    /* The machine code of the function rq names (annotate.h), read from
     * its module's file: a new annotation (the caller frees it) whose
     * `why` says in one line what could not be shown, or NULL on OOM.
     * Opens and reads files: seconds at worst (a function is decoded to
     * ANNOT_MAX_BYTES).  NULL when the source has no machine code. */
    struct annotation *(*annotate)(struct source *s,
                                   const struct annot_request *rq);
};

struct source {
    const struct source_ops *ops;
    void *impl;
};

/* The table's order, for qsort: by pid, then tid. */
int source_task_cmp(const void *a, const void *b);

/* The task (pid, tid) of t (tid 0: the process), or NULL. */
const struct source_task *source_task_find(const struct source_tasks *t,
                                           int64_t pid, int64_t tid);

/* Free what t holds; a zeroed t is fine, and is what it is left as. */
void source_tasks_free(struct source_tasks *t);

/* A source over a fixed profile (takes ownership of p).  `path` is shown in
 * the header as "file: NAME".  NULL on OOM (p is then freed). */
struct source *source_file_new(struct profile *p, const char *path);

/* Where a file source's machine code comes from: the module files on
 * this machine, found from what the profile p says of them (the engine
 * fills it: src/symbols/annot.h).  Same contract as the annotate op. */
typedef struct annotation *source_annotate_fn(const struct profile *p,
                                              const struct annot_request *rq);

/* Serve file source s's annotate op (from source_file_new) with fn over
 * its profile; without it (or with NULL) the op says no module files
 * are read. */
void source_file_set_annotate(struct source *s, source_annotate_fn *fn);

#endif
