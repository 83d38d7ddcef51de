/* window.h - the aggregate's time axis: samples per second, and the
 * profile of any stretch of it (the recent window, a selected range).
 *
 * A profile can keep, beside its call tree, a ring of per-second buckets:
 * each bucket sums the weights (profile.h) of each unique stack added
 * during that second, so a second sampled at twice the rate is no
 * taller.  A stack here is the full sample - thread, and per frame the
 * frame, line and address - interned once in a trie, so a window replays
 * exactly what the tree, the flat table and the source view would have
 * counted.  The ring holds the newest `seconds` seconds; a bucket is
 * dropped (reused) when time moves past it, so memory is bounded by
 * unique stacks x buckets whatever the run's length.  The tree keeps
 * counting everything since the start, as before.
 *
 * Who calls what:
 *   - the live collector (src/collect/collect.c) enables the ring, adds
 *     each sample with its CLOCK_MONOTONIC time and advances "now" every
 *     tick, under its profile lock;
 *   - loaders of files with per-sample times (pprof's timestamp labels)
 *     enable it with the file's span and add with wall-clock times;
 *   - the UI and writers read snapshots (profile_clone copies the ring):
 *     the span, per-second series for the timeline, and window profiles.
 * Times are nanoseconds of one clock per profile, chosen by whoever adds;
 * profile_time_wall_offset converts them to wall-clock time.  Like the
 * rest of the profile, not thread-safe.  libc only.
 */
#ifndef SPROFTOP_WINDOW_H
#define SPROFTOP_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define WINDOW_NS_PER_S 1000000000ull
/* Seconds a live profile keeps: the timeline's last minute. */
#define WINDOW_LIVE_SECONDS 60u
/* Most seconds any profile keeps (a loaded file's span is cut to its
 * newest hour: the ring is an array of that many buckets). */
#define WINDOW_MAX_SECONDS 3600u

/* Keep per-second counts for the newest `seconds` seconds (1 ..
 * WINDOW_MAX_SECONDS; clamped), forgetting any kept so far.  Samples
 * added before this call have no time.  0, or -1 on OOM. */
int profile_time_enable(struct profile *p, uint32_t seconds);

/* Whether p keeps per-second counts (a live aggregate, a loaded file
 * with times, or a clone of one).  Window and derived profiles do not. */
bool profile_time_enabled(const struct profile *p);

/* Wall-clock ns = time + offset (0 when times are wall-clock already).
 * The collector sets it once; readers use it to print and save times. */
void profile_time_set_wall_offset(struct profile *p, int64_t offset_ns);
int64_t profile_time_wall_offset(const struct profile *p);

/* For a profile loaded from a file, once its samples are in: shrink the
 * ring to the seconds from the oldest with samples to the newest, and put
 * now at the end of the newest (its samples are not in the future), so
 * the timeline shows the file's span and the recent window its last
 * seconds.  0, or -1 on OOM (the ring is then as it was). */
int profile_time_fit(struct profile *p);

/* profile_add_weighted, and add the weight to the stack's in the bucket
 * of t_ns.  A time past the newest second moves the ring on (as
 * profile_time_advance); a time older than the ring counts in the tree
 * only.  Without a ring it is profile_add_weighted.  0, or -1 on OOM or
 * bad ids (nothing added). */
int profile_add_weighted_at(struct profile *p, uint32_t thread,
                            const struct stack_frame *frames, size_t n,
                            uint64_t samples, uint64_t weight, uint64_t t_ns);

/* profile_add_weighted_at of `count` samples of one unit each (a file of
 * counts with times). */
int profile_add_stack_at(struct profile *p, uint32_t thread,
                         const struct stack_frame *frames, size_t n,
                         uint64_t count, uint64_t t_ns);

/* Time has reached t_ns even if no sample came: "now" for the recent
 * window, and buckets older than the ring are dropped.  Earlier times
 * are ignored.  Returns true when the newest second changed (the window
 * moved), false otherwise or without a ring. */
bool profile_time_advance(struct profile *p, uint64_t t_ns);

/* What the ring covers.  Seconds are absolute: time / 1e9. */
struct profile_timespan {
    bool on;            /* the profile keeps a ring */
    bool any;           /* some sample has a time */
    uint64_t now_ns;    /* newest time added or advanced to */
    uint64_t first;     /* oldest second the ring holds */
    uint64_t last;      /* newest second (now's) */
    uint32_t seconds;   /* ring capacity */
};

/* Fill *out (all zero without a ring or before any time). */
void profile_time_span(const struct profile *p, struct profile_timespan *out);

/* Weight in each of the n seconds from `first` (out[i] for second
 * first + i; 0 for a second the ring does not hold), over every thread
 * (thread == PROFILE_NONE) or one thread index.  Returns the largest
 * value written. */
uint64_t profile_time_series(const struct profile *p, uint32_t thread,
                             uint64_t first, uint32_t n, uint64_t *out);

/* The seconds of the recent window of `secs` seconds ending at now: the
 * buckets that start no earlier than now - secs, so no sample in it is
 * older than secs seconds (and none younger than secs - 1 is left out).
 * *from > *to when there is no time yet. */
void profile_time_recent(const struct profile *p, uint32_t secs,
                         uint64_t *from, uint64_t *to);

/* A new profile holding only the samples of seconds from .. to
 * (inclusive): same frame and thread ids as p, its tree and its
 * line/address counts those of the samples in range, no ring of its own;
 * p's weight unit, a sample count from its weight
 * (profile_sample_count); metadata of p with start_ns and duration_ns of
 * the range.  NULL on OOM
 * or without a ring.  Free with profile_free. */
struct profile *profile_window(const struct profile *p, uint64_t from,
                               uint64_t to);

/* For writers that keep times (pprof): call fn for every (stack, second)
 * the ring holds, in tree order (profile_foreach_stack's), seconds
 * ascending within a stack, with the weight in that second; then (with
 * second UINT64_MAX) the weight of the stack the ring does not hold
 * (older than it, or added without a time), when there are any.  The
 * tree stack is given as profile_foreach_stack gives it.  Stops and
 * returns fn's non-zero value; -1 on OOM; 0 otherwise. */
typedef int (*profile_time_stack_fn)(void *ctx, uint32_t thread,
                                     const uint32_t *frames, size_t n,
                                     uint64_t second, uint64_t count);
int profile_time_foreach(const struct profile *p, profile_time_stack_fn fn,
                         void *ctx);

#endif
