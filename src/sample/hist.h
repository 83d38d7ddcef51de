/* hist.h - a latency histogram with percentiles, in constant memory.
 *
 * 1 us buckets up to 2 ms, then powers of two: the sampler records every
 * stop, interrupt latency and unwind in one, at ~1 kHz per thread, and
 * publishes medians and p99s from it.  Not thread-safe: one owner.  libc
 * only.
 */
#ifndef SPROFTOP_HIST_H
#define SPROFTOP_HIST_H

#include <stdint.h>

#define HIST_LIN 2000  /* 1 us buckets up to 2 ms */
#define HIST_LOG 24    /* then powers of two */

struct hist {
    uint64_t lin[HIST_LIN];
    uint64_t log[HIST_LOG];
    uint64_t n;    /* values recorded */
    uint64_t max;  /* largest value, ns */
};

/* An empty histogram needs no set-up: struct hist h = {0}. */

/* Record one value in ns. */
void hist_add(struct hist *h, uint64_t ns);

/* The pct-th percentile (0..100) in ns: the middle of its 1 us bucket, or
 * the low end of its power-of-two bucket; 0 when empty. */
uint64_t hist_pct(const struct hist *h, double pct);

#endif
