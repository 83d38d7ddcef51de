/* report.h - the short text summary of a profile.
 *
 * Batch mode prints it when there is no -o and stdout is not a terminal
 * (sproftop -p PID -d 5 | less): a header about the run, then the top
 * functions by self and by total samples.  Pure: libc only, no state.
 */
#ifndef SPROFTOP_REPORT_H
#define SPROFTOP_REPORT_H

#include <stdio.h>

struct profile;

/* Write the summary of p to f: header lines (pid, command, samples,
 * threads, interval and rate, duration, mode), then "Top functions by
 * self" and "Top functions by total", top_n rows each (all rows when
 * top_n <= 0) with samples, percent of all samples, function, and
 * "module file:line".  Returns 0, or -1 on a write error or OOM. */
int report_write_summary(const struct profile *p, FILE *f, int top_n);

#endif
