/* profile_impl.h - the profile's private representation, shared by the
 * three files that implement profile.h and by nothing else:
 *   profile.c        strings, frames, threads, metadata, and the storage
 *                    every part builds on (the node table, the counter
 *                    maps): the bottom, which calls none of the others;
 *   profile_life.c   a whole profile's lifecycle and copies, each part
 *                    in turn: above the parts;
 *   profile_tree.c   the call tree, the ingest path (profile_add_stack),
 *                    walks, and per-line / per-address counts;
 *   profile_query.c  what is computed from the tree: merge, derive, the
 *                    flat table, the caller->callee edges;
 *   profile_weight.c what weights mean: their unit, time and count, the
 *                    copy in counts the count writers read;
 *   window.c         the per-second ring of samples (window.h);
 *   diff.c           aligning and matching a baseline (diff.h).
 *
 * Storage: every table is a dense array indexed by id (grown with
 * VEC_RESERVE) plus an idtab from a key's hash to its id, so steady-state
 * ingest of known stacks allocates nothing.  Strings live in a strarena:
 * frames and threads compare strings by id, and a copy duplicates each
 * distinct string once.
 */
#ifndef SPROFTOP_PROFILE_IMPL_H
#define SPROFTOP_PROFILE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idtab.h"
#include "profile.h"
#include "strarena.h"

#define STR_NULL 0xfffffffeu  /* string id of a NULL string */
#define ID_LIMIT 0x7fffffffu  /* ids stay far below PROFILE_NONE */

/* A (frame, line) or (frame, address) counter: 32 bytes, as there can be
 * one per node of the tree. */
struct lcent {
    uint32_t frame;  /* function */
    uint32_t stamp;  /* add_stack call that last counted total */
    uint64_t key;    /* line or address */
    uint64_t self;   /* weight with this as the leaf's line/address */
    uint64_t total;  /* weight of the samples containing it, once each */
};

struct lcmap {
    struct lcent *e;  /* dense entries */
    size_t n;         /* entries used */
    size_t cap;       /* entries allocated */
    struct idtab ix;  /* (frame, key) -> entry */
};

/* String ids of a frame's identity, parallel to the frame_desc array. */
struct frame_ids {
    uint32_t name;    /* string id */
    uint32_t module;  /* string id or STR_NULL */
    uint32_t file;    /* string id or STR_NULL */
    uint32_t build_id; /* string id or STR_NULL */
};

/* What a node keeps beside its public profile_node. */
struct node_aux {
    uint32_t last_child; /* its newest child, so children stay in
                            first-seen order and a loaded file's stacks
                            come back out in its order */
    uint32_t line_e;     /* hint: lines entry this node counted last, or
                            NONE (a caller's return address rarely
                            changes, so this saves a probe) */
    uint32_t addr_e;     /* hint: addrs entry, likewise */
};

/* A call graph held instead of stacks (profile.h profile_set_graph). */
struct profile_graph {
    struct profile_flat *flat;   /* as profile_flat returns them */
    size_t nflat;
    struct profile_edge *edges;  /* sorted as profile_edges returns them */
    size_t nedges;
    uint64_t *thread_samples;    /* by thread index, nthreads entries */
    uint32_t nthreads;
    uint32_t *ft_off;            /* profile_frame_threads, nframes + 1 */
    uint32_t *ft;
    uint32_t nframes;            /* frames when it was set */
    uint64_t samples;            /* the sum of thread_samples */
};

struct profile {
    struct strarena strs;        /* every string, by id */

    /* frames */
    struct frame_desc *fd;       /* frame by id, strings into strs */
    size_t fd_cap;
    struct frame_ids *fid;       /* string ids of each frame's identity */
    size_t fid_cap;
    uint32_t nframes;            /* frames interned */
    struct idtab frame_ix;       /* (kind, name, module, file) -> frame */

    /* threads */
    struct profile_thread *th;   /* thread by index */
    size_t th_cap;
    uint32_t *th_name;           /* string id of each thread's name */
    size_t th_name_cap;
    uint32_t *th_proc;           /* string id of each thread's process
                                    name, or STR_NULL */
    size_t th_proc_cap;
    uint32_t nthreads;           /* threads created */
    struct idtab tid_ix;         /* tid -> thread index */
    uint32_t *free_frames;       /* FRAME_THREAD frames of threads folded
                                    away (profile_fold_processes), named
                                    "" and out of the frame index, for new
                                    threads to take */
    size_t nfree, free_cap;
    uint32_t *cool_frames;       /* frames no node, thread, counter or
                                    sample used any more, freed by the
                                    last fold (profile_fold.c): named ""
                                    and out of the index, free from the
                                    next fold on, so an id a view holds
                                    does not name another function in the
                                    first refresh after */
    size_t ncool, cool_cap;
    struct profile_cut cut;      /* rare stacks of folded threads cut
                                    (profile_fold.c) */
    int64_t next_agg;            /* the last synthetic id an aggregate of
                                    exited processes took (0: none yet) */
    uint64_t serial;             /* the last thread's serial (0: none) */

    /* call tree */
    struct profile_node *nodes;  /* node by id, 0 is the root */
    size_t nodes_cap;
    struct node_aux *aux;        /* by node id */
    size_t aux_cap;
    uint32_t nnodes;             /* nodes used */
    struct idtab child_ix;       /* (parent, frame) -> child node */
    uint32_t max_depth;          /* deepest node's depth */
    uint64_t samples;            /* sum of all self weights */
    uint64_t nsamples;           /* samples added (profile_sample_count) */
    uint64_t unit_ns;            /* ns per unit of weight, 0: counts */

    /* per-function counts */
    struct lcmap lines;          /* keyed (frame, line) */
    struct lcmap addrs;          /* keyed (frame, address) */
    uint32_t stamp;              /* add_stack call counter for dedup;
                                    never 0 after the first call */

    /* per-second counts (window.c), NULL when not kept */
    struct profile_time *time;

    /* a call graph instead of stacks (profile_graph.c), NULL for stacks */
    struct profile_graph *graph;

    /* metadata; strings are interned */
    struct profile_meta meta;    /* what profile_meta returns */
    uint32_t meta_cmdline;       /* string id or STR_NULL */
    uint32_t meta_comm;          /* string id or STR_NULL */
};

/* --- profile.c ----------------------------------------------------------- */

/* The string with id `id`, NULL for STR_NULL. */
const char *profile_str(const struct profile *p, uint32_t id);

/* Index of the thread with this tid, or PROFILE_NONE. */
uint32_t profile_tid_find(const struct profile *p, int64_t tid);

/* Give frame `id` the description d in place (d's kind is the
 * frame's): its strings are interned, the frame index learns the new
 * identity, the old one no longer finds it.  d's identity must be new.
 * 0, or -1 on OOM (the frame is unchanged). */
int profile_frame_set(struct profile *p, uint32_t id,
                      const struct frame_desc *d);

/* The frame with d's identity, or PROFILE_NONE; interns nothing. */
uint32_t profile_frame_lookup(const struct profile *p,
                              const struct frame_desc *d);

/* Copy everything but the tree; with_tree copies the tree (and the
 * per-second ring and the sample count) as well, otherwise the copy gets
 * empty thread nodes, no ring and no samples.  Ids of strings, frames
 * and threads, and the weight unit, are kept.  NULL on OOM. */
struct profile *profile_copy(const struct profile *p, bool with_tree);

/* The string id of s (NULL gives STR_NULL), interned in p;
 * PROFILE_NONE on OOM. */
uint32_t profile_str_intern(struct profile *p, const char *s);

/* Frame id takes the description its string ids (p->fid[id]) say, and
 * is found by it in p's frame index (room reserved). */
void profile_frame_adopt(struct profile *p, uint32_t id);

/* The storage under every part: the node table and its child index, and
 * the counter maps (profile.c, so the parts call down to it). */

/* Make room for `extra` more nodes (array and child index), so that the
 * tree walks that follow cannot fail half-way.  0 or -1 on OOM. */
int profile_tree_reserve(struct profile *p, uint64_t extra);

/* Child of `parent` with frame `frame`, or PROFILE_NONE. */
uint32_t profile_tree_find(const struct profile *p, uint32_t parent,
                           uint32_t frame);

/* Create that child (room reserved, not present yet); returns its id. */
uint32_t profile_tree_node_add(struct profile *p, uint32_t parent,
                               uint32_t frame);

/* Root only, or root plus one fresh node per thread (ids 1..nthreads in
 * thread order), with empty counts; room for them must exist. */
void profile_tree_rebuild(struct profile *p);

/* Line/address counter maps: an empty map, room for `extra` more
 * counters, a copy, forgetting every counter, freeing.  0 or -1 on OOM. */
int profile_lc_init(struct lcmap *m);
int profile_lc_reserve(struct lcmap *m, uint64_t extra);
int profile_lc_copy(struct lcmap *dst, const struct lcmap *src);
void profile_lc_clear(struct lcmap *m);
void profile_lc_free(struct lcmap *m);

/* A copy of n elements of src of elem bytes each (one allocated at
 * least), NULL on OOM. */
void *profile_dup_n(const void *src, size_t n, size_t elem);

/* A call graph from the pieces (copied: profile_set_graph, profile_copy),
 * NULL on OOM; its arrays and itself freed (NULL: nothing). */
struct profile_graph *profile_graph_new(const struct profile_graph_desc *g,
                                        uint32_t nthreads, uint32_t nframes);
void profile_graph_free(struct profile_graph *g);

/* profile.c's share of profile_copy (profile_life.c) into q, zeroed:
 * strings, frames, threads, metadata, the weight unit, the counter maps,
 * and the tree with with_tree (else empty thread nodes).  0, or -1 on OOM
 * (q half made: profile_free frees it).  And of profile_free: what those
 * hold (not the ring, the graph, nor p itself). */
int profile_core_copy(struct profile *q, const struct profile *p,
                      bool with_tree);
void profile_core_free(struct profile *p);

/* --- profile_tree.c ------------------------------------------------------ */

/* Add a stack of plain frame ids, weighing `weight`, below a thread
 * node, or below the root itself for a merged tree (tree only: no
 * line/address counts, no sample count).  Frames must be valid.  0 or -1
 * on OOM, then nothing was added. */
int profile_tree_add(struct profile *p, uint32_t thread_node,
                     const uint32_t *frames, size_t n, uint64_t weight);

/* The sample count of a profile built from another's weights (a derived
 * tree, a window, an aligned baseline): profile_weight_count of its
 * total weight. */
void profile_count_from_weight(struct profile *p);

/* Multiply every weight of p (tree, line and address counts, per-second
 * buckets) by k, which the caller has checked cannot pass the limits. */
void profile_scale_weights(struct profile *p, uint64_t k);

/* Depth-first walk of the subtree below `top` (top excluded): enter(n)
 * before a node's children, leave(n) (may be NULL) after them.  Stops
 * when enter returns non-zero and returns that value. */
typedef int (*profile_enter_fn)(void *ctx, uint32_t node);
typedef void (*profile_leave_fn)(void *ctx, uint32_t node);
int profile_tree_walk(const struct profile *p, uint32_t top,
                      profile_enter_fn enter, profile_leave_fn leave,
                      void *ctx);

/* Every node below each thread node, depth-first, threads in index
 * order, in profile_foreach_stack's order: fn(ctx, thread, node, frames,
 * n) with the frames from the thread node's child down to node (the
 * thread node itself first, with n == 0), whatever its counts.  frames
 * is valid during the call only.  Stops and returns fn's non-zero value;
 * -1 when the path buffer cannot be allocated; 0 otherwise.  The one walk
 * under profile_foreach_stack and the ring's and the diff's walks. */
typedef int (*profile_node_stack_fn)(void *ctx, uint32_t thread,
                                     uint32_t node, const uint32_t *frames,
                                     size_t n);
int profile_tree_stacks(const struct profile *p, profile_node_stack_fn fn,
                        void *ctx);

/* Add src's line/address counters times k into dst, frame ids mapped
 * through fmap.  0 or -1 on OOM. */
int profile_lc_merge(struct lcmap *dst, const struct lcmap *src,
                     const uint32_t *fmap, uint64_t k);

/* dst (not made yet) becomes a copy of src's counters whose frame f has
 * keep[f].  0 or -1 on OOM (dst half made: profile_lc_free frees it). */
int profile_lc_copy_kept(struct lcmap *dst, const struct lcmap *src,
                         const bool *keep);


/* --- profile_graph.c ----------------------------------------------------- */



/* --- window.c ------------------------------------------------------------ */

/* The ring's share of profile_free, profile_reset (forget every count and
 * sample, keep the ring's size) and profile_copy (dst->time becomes a
 * deep copy of src's, or NULL when src keeps none; 0 or -1 on OOM), which
 * profile_life.c calls. */
void profile_time_free(struct profile_time *t);
void profile_time_clear(struct profile_time *t);
int profile_time_copy(struct profile *dst, const struct profile *src);

/* The ring's share of profile_footprint: its trie nodes and bucket
 * entries, and the bytes they take (0s without a ring). */
void profile_time_footprint(const struct profile_time *t, uint64_t *trie,
                            uint64_t *entries, uint64_t *bytes);

/* dst->time: src's ring with every sample's thread t moved to thread
 * tmap[t] of dst and every frame f to fmap[f] (fmap NULL: the same frame
 * ids), the samples of one stack that now share a thread summed; only
 * what the ring's seconds hold is kept, so the trie loses the samples no
 * bucket counts any more.  0 or -1 on OOM (dst->time NULL). */
int profile_time_remap(struct profile *dst, const struct profile *src,
                       const uint32_t *tmap, const uint32_t *fmap);

/* used[f] = true for each frame f a sample of the ring holds (f below
 * nframes). */
void profile_time_frames(const struct profile_time *t, bool *used,
                         uint32_t nframes);

/* Each sample the ring counts in seconds from .. to (inclusive), its
 * weight summed over them: fn(ctx, thread, frames, n, weight), frames
 * root first (valid during the call).  Stops at fn's first non-zero and
 * returns it; -1 on OOM; 0 (no call) without a ring.  profile_window's
 * walk (window_profile.c). */
typedef int (*profile_time_range_fn)(void *ctx, uint32_t thread,
                                     const struct stack_frame *frames,
                                     size_t n, uint64_t weight);
int profile_time_range(const struct profile *p, uint64_t from, uint64_t to,
                       profile_time_range_fn fn, void *ctx);

/* meta's start_ns and duration_ns for seconds from .. to as p's ring holds
 * them (duration 0 when it holds none of them, or has none). */
void profile_time_range_meta(const struct profile *p, uint64_t from,
                             uint64_t to, struct profile_meta *meta);

/* Every bucket entry w of the ring becomes fn(p, w) (its bucket's sum
 * follows), for profile_counts and profile_scale_weights. */
typedef uint64_t (*profile_weight_map_fn)(const struct profile *p,
                                          uint64_t w, uint64_t k);
void profile_time_map(struct profile *p, profile_weight_map_fn fn,
                      uint64_t k);

/* The graph's share of the same change (profile_graph.c): every weight
 * w becomes fn(p, w, k), every edge time t (a fraction of weights)
 * t * factor.  No graph: nothing. */
void profile_graph_map(struct profile *p, profile_weight_map_fn fn,
                       uint64_t k, double factor);

#endif
