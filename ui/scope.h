/* scope.h - what stretch of time the views show, and what they compare
 * it with.
 *
 * The time window is since the start (the aggregate as it is), the
 * recent N seconds (moving with time), or a range picked on the timeline
 * with its cursor and mark.  The baseline is a profile pinned earlier
 * (or loaded with --baseline) that the views can show the change from.
 * One struct scope lives in struct ui; views read it through
 * ui_ctx.scope.  scope.c acts on the requests of the "Time and baseline"
 * group and builds, from each snapshot, the model the views read;
 * timeline.c draws the strip.  UI thread only.
 */
#ifndef SPROFTOP_SCOPE_H
#define SPROFTOP_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;

/* The recent window's length when none is asked for, seconds. */
#define SCOPE_RECENT_DEFAULT 5u

enum scope_time {
    SCOPE_ALL = 0,   /* since the start */
    SCOPE_RECENT,    /* the last recent_s seconds, moving */
    SCOPE_RANGE,     /* seconds from .. to, fixed */
};

struct scope {
    enum scope_time time;      /* what the views show */
    enum scope_time before;    /* what clearing the range goes back to */
    uint32_t recent_s;         /* the recent window's length, seconds */
    bool cursor_on;            /* the timeline shows its cursor */
    uint64_t cursor;           /* the cursor's second */
    bool marking;              /* a mark is set: the range follows the
                                  cursor */
    uint64_t mark;             /* the mark's second */
    uint64_t from, to;         /* SCOPE_RANGE: the seconds shown */
    uint32_t step;             /* seconds per timeline column, as last
                                  drawn (the cursor moves by one column) */
    struct profile *baseline;  /* owned: the pinned profile, or NULL */
    char baseline_name[96];    /* "pinned 12:00:03", a file's name */
    bool diff;                 /* the views show the change from it */
    bool recent_col;           /* the flat table shows the recent window
                                  beside the totals */
};

/* The window in words, into buf: "since start", "last 5s", or the
 * range's wall-clock start and length "12:00:03 +7s" (snap's clock).
 * Returns buf. */
const char *scope_label(const struct scope *s, const struct profile *snap,
                        char *buf, size_t n);

/* "12:00:03": the wall-clock time of second s of p's ring, into buf. */
const char *scope_clock(const struct profile *p, uint64_t s, char *buf,
                        size_t n);

#endif
