/* header_cpu.h - the figures behind the header's "On CPU" (oncpu.h):
 * the %CPU of every live thread of the target's processes, the sleeping
 * ones included, from the same table of live tasks the threads and
 * processes views read (the source's tasks op, gathered off the UI
 * thread from the sampler's own tables), so the header and the views
 * agree.  A thread is measured from its second read on.  UI thread only.
 */
#ifndef SPROFTOP_HEADER_CPU_H
#define SPROFTOP_HEADER_CPU_H

#include <stddef.h>

#include "source.h"

struct header_cpu {
    struct source_tasks tasks; /* the live tasks, as of this tick */
    double *pct;               /* this tick's %CPU of each live thread */
    size_t cap;
    double on_cpu;             /* oncpu_share of pct; -1: not known */
};

/* Copy src's table of live tasks and set h->on_cpu from its live threads;
 * -1 for a file (no tasks op) or a target that is not running or
 * stopped.  A zeroed struct is ready. */
void header_cpu_update(struct header_cpu *h, struct source *src,
                       const struct source_status *st);

/* Free what h holds. */
void header_cpu_free(struct header_cpu *h);

#endif
