/* header_cpu.h - the figures behind the header's "On CPU" (oncpu.h):
 * the %CPU of every live thread of the target's processes, the sleeping
 * ones included, read from /proc at each data tick the way the threads
 * view reads its rows (cpustat.h), so the header and the views agree.
 * A thread is measured from its second read on (CPU_WINDOW_NS apart).
 * UI thread only.
 */
#ifndef SPROFTOP_HEADER_CPU_H
#define SPROFTOP_HEADER_CPU_H

#include <stddef.h>

#include "cpustat.h"
#include "profile.h"
#include "source.h"

struct header_cpu {
    struct cpu_meter meter;  /* CPU time by tid */
    double *pct;             /* this tick's %CPU of each live thread */
    size_t cap;
    int64_t *pids;           /* scratch: the processes to read */
    size_t pids_cap;
    double on_cpu;           /* oncpu_share of pct; -1: not known */
};

/* Read every thread of st's target and of the processes snap's threads
 * belong to, and set h->on_cpu; -1 for a file or a target that is not
 * running or stopped.  snap may be NULL.  A zeroed struct is ready. */
void header_cpu_update(struct header_cpu *h, const struct profile *snap,
                       const struct source_status *st);

/* Free what h holds. */
void header_cpu_free(struct header_cpu *h);

#endif
