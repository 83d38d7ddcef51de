/* diff.h - comparing a profile with a baseline (pin and diff).
 *
 * A baseline is any other profile: one pinned earlier in the session, or
 * a file (--baseline FILE), with frame ids of its own.  diff_align puts
 * it in the current profile's terms: the same frame and thread ids, so a
 * function, a caller->callee edge or a tree path means the same thing on
 * both sides.  diff_match then pairs the nodes of two trees by path, and
 * can graft into the current tree, with no samples, the paths only the
 * baseline has, so views can list rows that exist on one side only.
 *
 * Called by the view model (view_model.c, for the UI's diff columns) and
 * by the writers of differential output (folded with two counts, the
 * differential flame graph).  libc + profile.h; not thread-safe, like
 * the profiles it reads.
 */
#ifndef SPROFTOP_DIFF_H
#define SPROFTOP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Map base's frames and threads into cur, adding no samples to cur, and
 * return a new profile with cur's frames, threads and ids that holds
 * base's stacks (its tree, in base's weight unit; no line counts) and
 * base's metadata.  Frames
 * match by what the user sees, as difffolded.pl matches folded lines: a
 * base frame is the cur frame with its identity, else the first cur
 * frame of its name whose source file and first line agree where both
 * know them (a function or special frame against either: formats differ
 * on bracketed names), never by module or build-id, which one format
 * carries and another lacks; else it is interned into cur as a new
 * frame.  A thread of base is matched with
 * the thread of cur that has its tid and name, else the first with its
 * name (another run of the same program), else it becomes a new thread
 * of cur.  NULL on OOM (cur may then hold some of base's frames). */
struct profile *diff_align(struct profile *cur, const struct profile *base);

/* Pair the trees of t and b, two profiles with the same frame and thread
 * ids derived the same way (b from diff_align, both filtered or inverted
 * alike): (*out)[n], for each node n of t, is the node of b with the
 * same path from the root, or PROFILE_NONE.  With graft, each path that
 * only b has is first added to t as nodes without samples, so every node
 * of b has its match.  *out is malloc'd, profile_node_count(t) entries
 * (after grafting).  0, or -1 on OOM (t may then hold part of the
 * grafted paths, all without samples). */
int diff_match(struct profile *t, const struct profile *b, bool graft,
               uint32_t **out);

/* A profile and its baseline side by side, for the writers of
 * differential output (folded with two counts, the differential flame
 * graph). */
struct diff_pair {
    struct profile *cur;   /* a copy of the profile, with the baseline's
                              frames and threads interned and its paths
                              grafted in without samples */
    struct profile *base;  /* the baseline, aligned: cur's ids */
    uint32_t *match;       /* node of cur -> node of base with the same
                              path (every base node has one) */
};

/* Build the pair for cur (not changed) and base.  0, or -1 on OOM (then
 * *d holds nothing).  Free with diff_pair_free. */
int diff_pair_new(struct diff_pair *d, const struct profile *cur,
                  const struct profile *base);
void diff_pair_free(struct diff_pair *d);

/* Call fn for every unique stack of either side, in d->cur's tree order
 * (profile_foreach_stack's), with its weight in the baseline and now (one
 * of them may be 0; each in its own side's unit).  Stops and returns
 * fn's non-zero value; -1 on OOM; 0 otherwise. */
typedef int (*diff_stack_fn)(void *ctx, uint32_t thread,
                             const uint32_t *frames, size_t n,
                             uint64_t base_count, uint64_t cur_count);
int diff_foreach_stack(const struct diff_pair *d, diff_stack_fn fn,
                       void *ctx);

#endif
