/* cpustat.h - CPU time, %CPU and state of live threads and processes,
 * read from /proc as htop does, for the threads and processes views.
 *
 * A read gives the state letter in words and the CPU time so far
 * (utime + stime); a meter keeps, per id (a TID or a PID), the last read
 * at least CPU_WINDOW_NS old and the %CPU between the two.  Plain procfs
 * reads, no ptrace, so the UI thread never waits on the target.  UI
 * thread only; a meter is owned by one view.
 */
#ifndef SPROFTOP_CPUSTAT_H
#define SPROFTOP_CPUSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idtab.h"

/* Reads closer than this give a noisy %CPU: the last one is kept. */
#define CPU_WINDOW_NS 500000000ull

/* The CPU time of one thread or process. */
struct cpu_sample {
    int64_t id;         /* TID or PID */
    uint64_t ticks;     /* utime + stime at the last read, clock ticks */
    uint64_t at_ns;     /* when (clock_mono_ns) */
    double pct;         /* %CPU over the last window, -1: not yet known */
};

struct cpu_meter {
    struct idtab ix;    /* id -> index in v */
    struct cpu_sample *v;
    size_t n, cap;
};

/* Read /proc/PID/task/TID/stat, or /proc/PID/stat (the whole process)
 * when tid is 0: the state in words ("running", "sleeping"...) into
 * state (n bytes) and the CPU time so far in *ticks.  False, with state
 * "exited", when it is gone. */
bool cpustat_read(int64_t pid, int64_t tid, char *state, size_t n,
                  uint64_t *ticks);

/* Record id's CPU time read at `now`; returns its index in m->v, or
 * IDTAB_NONE on OOM. */
uint32_t cpu_meter_update(struct cpu_meter *m, int64_t id, uint64_t ticks,
                          uint64_t now);

/* Free what the meter holds (zeroed meters are fine). */
void cpu_meter_free(struct cpu_meter *m);

/* "12.5", or "-" when not known yet, into buf (n bytes); returns buf. */
const char *cpustat_pct(const struct cpu_sample *s, char *buf, size_t n);

/* top's TIME+ ("1:02.35") of s's CPU time into buf; returns buf. */
const char *cpustat_time(const struct cpu_sample *s, char *buf, size_t n);

#endif
