/* feed.h - the data the TUI shows: the source, its status, the snapshot
 * and the model built over it.
 *
 * The shell keeps one struct feed.  Every refresh interval feed_tick
 * reads the source's status (accounting for pauses) and, when its
 * generation changed, asks the feed's builder thread for a snapshot and
 * the model over it (the scope's, with the filter and thresholds copied
 * into the request); feed_poll, called every turn of the main loop,
 * shows a finished one unless the filter, window or baseline changed
 * since it was asked for (then a new one is asked for).  So however
 * long a large profile's copy and model take, keys are answered
 * meanwhile.  Builds are paced so that they take at most a fifth of the
 * builder's time (and of the collector's, whose lock the copy holds).
 * Every tick also reads the live tasks for the header's On CPU and has
 * the views that show them (view_ops.live_tasks) rebuilt with them.
 * A forced tick (a key's refresh, a :load, the first) builds on the UI
 * thread at once, after waiting for a build in flight, as do rebuilds
 * after the filter changed.  A model and snapshot no longer shown are
 * freed on the builder thread when it runs.  The views are told through
 * the tabs (their cursors noted on the old model, their lines rebuilt
 * over the new one).  The feed owns the snapshot and the model; it calls only the
 * scope and the tabs below it.  Every function: UI thread only.
 */
#ifndef SPROFTOP_FEED_H
#define SPROFTOP_FEED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "header_cpu.h"
#include "source.h"

struct feed_builder;
struct model;
struct profile;
struct scope;
struct tabs;
struct ui_ctx;

struct feed {
    struct source *src;            /* what the views show */
    struct source *own_src;        /* a file source a :load opened (closed
                                      by feed_free) */
    struct source_status status;   /* as last read */
    uint64_t paused_ns;            /* sampling time lost to past pauses */
    uint64_t pause_start_ns;       /* status.elapsed_ns when the current
                                      pause began */
    bool was_paused;               /* status.paused at the last read */
    struct profile *snap;          /* owned: the last snapshot */
    struct model *model;           /* owned: the model over it (it
                                      borrows snap) */
    uint64_t generation;           /* the source's, at the last snapshot */
    bool have_generation;
    double refresh_s;              /* new data at most this often */
    double next_refresh;           /* monotonic seconds */
    double snap_cost_s;            /* the last snapshot and model took */
    double next_snapshot;          /* none before (monotonic seconds):
                                      paced by snap_cost_s (feed_tick) */
    struct scope *scope;           /* builds the model (scope_model);
                                      held while a build reads it */
    struct feed_builder *bld;      /* owned: the builder thread, NULL
                                      until the first periodic build */
    uint64_t settings;             /* changes when the filter, window or
                                      baseline does (feed_rebuild): a
                                      build asked for before is not
                                      shown */
    bool in_flight;                /* a build was asked of bld and not
                                      yet taken by feed_poll */
    unsigned builds, stale;        /* builds shown, and thrown away */
    struct tabs *tabs;             /* told of a new model */
    struct ui_ctx *ctx;            /* model, timeline, messages */
    struct header_cpu hcpu;        /* the header's On CPU (header_cpu.h) */
    bool told_nodebug;             /* the hint about hot code without
                                      debug info was given */
    bool told_copy;                /* ...and the one about the stack copy */
    source_annotate_fn *annotate_file; /* machine code for a file a :load
                                      opens (ui_options), NULL: none */
};

/* Monotonic time in seconds. */
double feed_now(void);

/* Set up over src, refreshing every refresh_s seconds (at least 0.1). */
void feed_init(struct feed *f, struct source *src, double refresh_s,
               struct scope *scope, struct tabs *tabs, struct ui_ctx *ctx);

/* End the builder (a build in flight ends after its snapshot, without
 * its model); free the snapshot, the model and a source of the feed's
 * own. */
void feed_free(struct feed *f);

/* Read the source's status (and redraw), accounting for pauses. */
void feed_status(struct feed *f);

/* How long the source has been sampling, pauses excluded; and, when
 * paused, for how long (else 0) in *paused_for. */
uint64_t feed_sampling_ns(const struct feed *f, uint64_t *paused_for);

/* Status, then, when the source's generation changed, a new snapshot
 * and model: asked of the builder no sooner after the last one ended
 * than SNAP_SPACING times what it took, none while one is in flight; or,
 * when `force`, built here at once (a build in flight waited for and
 * thrown away).  The live tasks for On CPU and the task views, every
 * tick.  Schedules the next tick.  When the builder thread cannot start
 * (no memory, no thread), it is built here, as forced. */
void feed_tick(struct feed *f, bool force);

/* Show the build that finished, if any (or throw it away and ask
 * again when the settings changed since): true when a new model is
 * shown.  Cheap when none finished: call it every turn of the loop. */
bool feed_poll(struct feed *f);


/* How often new data comes, in seconds: the refresh interval, or longer
 * when snapshots are paced by their cost (a very large profile). */
double feed_refresh_every(const struct feed *f);

/* A new model over the current snapshot with the current filter,
 * thresholds and scope (after one changed), built here; a build in
 * flight will not be shown.  Keeps the old model on OOM. */
void feed_rebuild(struct feed *f);

/* Apply new hide thresholds (ctx's) to the model; the views rebuild. */
void feed_set_hide(struct feed *f);

/* From now on show profile q (owned from now on), read from `path`, as
 * if the data had changed under the views: its samples over the frames
 * and threads of the current snapshot, so the views' keys mean the same
 * functions, in a file source of the feed's own.  0, or -1 on OOM. */
int feed_load(struct feed *f, struct profile *q, const char *path);

#endif
