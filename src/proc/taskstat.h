/* taskstat.h - what top shows of a set of live threads and processes
 * (state, CPU time, %CPU), read from /proc through stat files kept open:
 * one pread per task and read, and no open for a task already known.
 *
 * The owner hands over the whole set at each read (taskstat_read); a
 * task the previous read had and this one lacks is forgotten, its file
 * closed.  %CPU is the CPU time used since the newest earlier read at
 * least TASKSTAT_WINDOW_NS older (closer reads give a noisy figure).  At
 * most TASKSTAT_MAX_FDS files stay open; tasks beyond are opened and
 * closed at each read.
 *
 * One owner thread (the collector's, src/collect/collect.c), no lock, no
 * ptrace: plain procfs reads that never wait on the target.  libc only.
 */
#ifndef SPROFTOP_TASKSTAT_H
#define SPROFTOP_TASKSTAT_H

#include <stddef.h>
#include <stdint.h>

#define TASKSTAT_WINDOW_NS 500000000ull
#define TASKSTAT_MAX_FDS 4096

/* One task's figures. */
struct taskstat_fig {
    int64_t pid;      /* its process (set by the caller) */
    int64_t tid;      /* the thread, or 0: the process as a whole (set by
                         the caller) */
    uint64_t cpu_ns;  /* CPU time so far (user + system) */
    double pct;       /* %CPU (100: one CPU), -1 until known */
    char state;       /* /proc's state letter (R, S, D, T, t, Z, X, I),
                         0 when the task is gone */
};

struct taskstat;

/* An empty set.  NULL on OOM. */
struct taskstat *taskstat_new(void);

/* Close every file and free.  NULL is a no-op. */
void taskstat_free(struct taskstat *t);

/* Read the n tasks of v (each's pid and tid set, at most one entry per
 * task) at now_ns (CLOCK_MONOTONIC), filling the rest of each.  0, or
 * -1 on OOM (then every figure is as if the task were new: state read,
 * %CPU unknown). */
int taskstat_read(struct taskstat *t, struct taskstat_fig *v, size_t n,
                  uint64_t now_ns);

#endif
