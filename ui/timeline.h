/* timeline.h - samples per second as a strip of block characters.
 *
 * The strip under the header (timeline.c's timeline_draw, through
 * ui_state.h) and the threads view's per-thread strips draw the same
 * seconds the same way: one column per second when they fit, else a few
 * seconds summed per column, each column's height in eighths of the
 * tallest (▁▂▃▄▅▆▇█, or an ASCII ramp without UTF-8).  UI thread only.
 */
#ifndef SPROFTOP_TIMELINE_H
#define SPROFTOP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "draw.h"

struct profile;

/* The seconds a timeline of p shows: the whole ring (a live profile's
 * last minute, a loaded file's span).  false when p keeps no times or
 * has none yet. */
bool timeline_span(const struct profile *p, uint64_t *first, uint32_t *n);

/* Seconds per column to show n seconds in at most cols columns (>= 1). */
uint32_t timeline_step(uint32_t n, int cols);

/* Per-column sums of v[0..n), `step` seconds a column, into out (room for
 * n / step + 1); returns the number of columns and sets *max to the
 * largest sum. */
uint32_t timeline_columns(const uint64_t *v, uint32_t n, uint32_t step,
                          uint64_t *out, uint64_t *max);

/* One column's glyph: its sum scaled to max in eighths; any sample shows
 * at least the lowest bar. */
const char *timeline_glyph(const struct theme *t, uint64_t sum,
                           uint64_t max);

/* The strip of columns c[0..ncols) scaled to max, as text into buf. */
const char *timeline_spark(const struct theme *t, const uint64_t *c,
                           uint32_t ncols, uint64_t max, char *buf,
                           size_t cap);

#endif
