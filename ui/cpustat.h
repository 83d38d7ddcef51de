/* cpustat.h - how the threads and processes views show a live task's
 * figures (state, %CPU, TIME+), as htop and top do.
 *
 * The figures come from the source (source.h: the tasks op), gathered off
 * the UI thread from the sampler's own tables; here they are only put
 * into words.  UI thread.
 */
#ifndef SPROFTOP_CPUSTAT_H
#define SPROFTOP_CPUSTAT_H

#include <stddef.h>

#include "source.h"

/* The state letter in words ("running", "sleeping", "disk wait"...);
 * "exited" for 0 (gone). */
const char *cpustat_state(char state);

/* "12.5", or "-" when t is NULL or its %CPU not known yet, into buf (n
 * bytes); returns buf. */
const char *cpustat_pct(const struct source_task *t, char *buf, size_t n);

/* top's TIME+ ("1:02.35") of t's CPU time into buf; returns buf. */
const char *cpustat_time(const struct source_task *t, char *buf, size_t n);

#endif
