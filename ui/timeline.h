/* timeline.h - samples per second as a strip of block characters.
 *
 * The strip under the header (timeline_draw; frame.c places it) and the
 * threads view's per-thread strips draw the same seconds the same way:
 * one column per second when they fit, else a few seconds summed per
 * column, each column's height in eighths of the tallest (▁▂▃▄▅▆▇█, or
 * an ASCII ramp without UTF-8).  The strip owns its layout (struct
 * timeline: how many seconds a column holds, which the time cursor
 * moves by); what it shows of the window it reads from the scope.  UI
 * thread only.
 */
#ifndef SPROFTOP_TIMELINE_H
#define SPROFTOP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "draw.h"

struct profile;
struct scope;

/* The strip under the header, as last drawn. */
struct timeline {
    uint32_t step;      /* seconds per column (0: not drawn yet) */
};

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

/* Rows the strip takes under the header: 1 when snap keeps times and
 * the terminal has room, else 0. */
int timeline_rows(const struct profile *snap);

/* Draw the strip of snap on row y, across the screen: the window of sc
 * in words and highlighted, its time cursor, the peak rate.  Sets
 * tl->step. */
void timeline_draw(struct timeline *tl, const struct theme *t,
                   const struct profile *snap, const struct scope *sc,
                   int y);

#endif
