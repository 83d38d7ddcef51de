/* oncpu.h - the header's "On CPU": how much of their time the target's
 * threads ran.
 *
 * One definition over plain per-thread figures, so that whoever measures
 * them (the sampler's own thread table, through the source's tasks op,
 * as the threads and processes views read it) gets the same number.  Independent of the sampling rate: it is not a count of
 * samples.  Pure: libc only, no state.
 */
#ifndef SPROFTOP_ONCPU_H
#define SPROFTOP_ONCPU_H

#include <stddef.h>

/* On CPU, in percent: the live threads' CPU time over the last window as
 * a share of their time, the mean of their %CPU (the threads view's CPU%
 * column, each 0..100; a negative value is a thread not measured yet and
 * is left out, a value past 100 counts 100).  One busy thread and one
 * sleeping thread: 50.  -1 when no thread is measured.  Any thread. */
double oncpu_share(const double *thread_pct, size_t n);

#endif
