/* scope.h - what stretch of time the views show, and what they compare
 * it with.
 *
 * The time window is since the start (the aggregate as it is), the
 * recent N seconds (moving with time), or a range picked on the timeline
 * with its cursor and mark.  The baseline is a profile pinned earlier
 * (or loaded with --baseline) that the views can show the change from.
 * The scope owns that state: one struct scope lives in the shell, views
 * read it through ui_ctx.scope, timeline.c draws it, and scope.c alone
 * changes it (the requests of the "Time and baseline" group) and builds,
 * from each snapshot, the model the views read.  It is handed what it
 * reads of the rest (struct scope_env) and calls nothing above it.  UI
 * thread only.
 */
#ifndef SPROFTOP_SCOPE_H
#define SPROFTOP_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

struct model;
struct model_filter;
struct profile;
struct ui_ctx;

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
    struct profile *baseline;  /* owned: the pinned profile, or NULL */
    char baseline_name[96];    /* "pinned 12:00:03", a file's name */
    bool diff;                 /* the views show the change from it */
    bool recent_col;           /* the flat table shows the recent window
                                  beside the totals */
    bool merge_commands;       /* processes of one command merged
                                  (profile_merge_commands) */
    unsigned held;             /* builds reading baseline on another
                                  thread (scope_hold) */
    struct profile **retired;  /* owned: baselines replaced while held,
                                  freed at the last scope_release */
    size_t nretired;
};

/* The window in words, into buf: "since start", "last 5s", or the
 * range's wall-clock start and length "12:00:03 +7s" (snap's clock).
 * Returns buf. */
const char *scope_label(const struct scope *s, const struct profile *snap,
                        char *buf, size_t n);

/* "12:00:03": the wall-clock time of second s of p's ring, into buf. */
const char *scope_clock(const struct profile *p, uint64_t s, char *buf,
                        size_t n);

/* What a request of the scope reads of the rest of the TUI. */
struct scope_env {
    const struct profile *snap;  /* the whole snapshot (ring included),
                                    NULL before the first */
    const struct model *model;   /* the model on screen, NULL before */
    struct ui_ctx *ctx;          /* messages, want_model, redraw */
    bool is_file;                /* the source is a loaded file */
    uint32_t step;               /* seconds per timeline column, as last
                                    drawn: the cursor moves by one */
};

/* Set up (no window, 5 s recent length, no baseline) and free. */
void scope_init(struct scope *s);
void scope_free(struct scope *s);

/* The model the views read for snapshot `snap` (which it borrows), with
 * filter f and the hide thresholds: its window, the recent window for
 * the flat table, the baseline.  NULL on OOM.  Reads only s, snap and
 * the baseline: any thread may call it, with s a copy taken on the UI
 * thread while scope_hold keeps the baseline alive. */
struct model *scope_model(const struct scope *s, struct profile *snap,
                          const struct model_filter *f, double hide_self,
                          double hide_subs);

/* A build on another thread reads s's baseline from now on (through a
 * copy of s): until the matching scope_release, a baseline that is
 * replaced is kept, not freed.  UI thread only, as is scope_release,
 * which frees the kept ones at the last release. */
void scope_hold(struct scope *s);
void scope_release(struct scope *s);

/* p cut to the window the views show (p is freed and the window
 * returned; p itself when they show everything).  NULL on OOM. */
struct profile *scope_apply(const struct scope *s, struct profile *p);

/* Whether second `sec` of snap is one the views show (false when they
 * show everything). */
bool scope_shows(const struct scope *s, const struct profile *snap,
                 uint64_t sec);

/* A request of the "Time and baseline" group but the W prompt (the
 * shell asks it and calls scope_set_recent). */
void scope_act(struct scope *s, const struct scope_env *e,
               enum request req);

/* Show the recent window, `secs` long (the W prompt's answer). */
void scope_set_recent(struct scope *s, const struct scope_env *e,
                      uint32_t secs);

/* Use b (owned from now on; NULL: none) as the baseline, shown as
 * `name`, and show the change from it; asks ctx for a new model.  The
 * old one is freed, or kept while a build holds the scope; -1 when it
 * can be neither (OOM): b is freed and nothing changes.  UI thread. */
int scope_set_baseline(struct scope *s, struct ui_ctx *ctx,
                       struct profile *b, const char *name);

#endif
