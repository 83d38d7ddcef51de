/* view_model.h - what the views read: one snapshot, filtered and
 * summarised.
 *
 * The UI takes a snapshot from the source, then builds a model over it:
 * the process/thread/focus filter applied (profile_derive), the tree as
 * the tree view shows it (bottom-up when inverted, without the thread
 * level when threads are merged, with a process level above it when it
 * shows more than one process: the one rule of process roots), the flat
 * table, the caller->callee
 * edges and Racket's hide rule per function.  Views only read a model;
 * ui.c rebuilds it when a new snapshot arrives or a filter changes, so
 * views never derive anything twice.  The text report (export_text)
 * builds one over the whole profile, so it hides what the views hide.
 *
 * libc + profile.h only: no curses here.
 */
#ifndef SPROFTOP_VIEW_MODEL_H
#define SPROFTOP_VIEW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct model_filter {
    bool has_thread;   /* restrict to one thread */
    int64_t tid;       /* its OS thread id (stable across snapshots) */
    uint32_t focus;    /* frame id stacks must pass through, or PROFILE_NONE */
    bool inverted;     /* the tree is bottom-up */
    bool merge_threads; /* the tree has no thread level: one path taken by
                          several threads is one node.  The flat table and
                          the edges are over all threads either way */
    bool has_process;  /* restrict every view to one process */
    int64_t pid;       /* its PID (stable across snapshots) */
    bool hide_kernel;  /* kernel frames left out of every view (K): their
                          time goes to the user frame below them */
    uint8_t cpu;       /* enum profile_cpu_filter: with off-CPU reasons
                          (--idle), on-CPU samples only, off-CPU only,
                          or both */
    bool python_only;  /* stacks with Python frames show only those (P,
                          --python-only): native frames' time goes to
                          their Python caller */
};

/* What a model can show beside the snapshot's own counts (model_new_ext). */
struct model_extra {
    const struct profile *baseline; /* diff against this profile (any ids:
                                       diff_align interns its frames and
                                       threads into snap); NULL: no diff */
    struct profile *recent;         /* the recent window of snap (same ids),
                                       for a recent column; NULL: none.
                                       The model frees it */
    bool own_snap;                  /* the model frees snap */
};

struct model {
    const struct profile *snap;   /* the snapshot, borrowed (or owned) */
    struct profile *own_snap;     /* snap, when the model frees it */
    struct profile *derived;      /* owned: snap filtered, NULL if no filter */
    const struct profile *base;   /* derived or snap: what the views read */
    struct profile *shaped;       /* owned: base inverted and/or with its
                                     threads merged, NULL unless asked */
    const struct profile *tree;   /* what the tree view walks: shaped or
                                     base */
    uint32_t thread;              /* filter's thread index, PROFILE_NONE = all */
    int64_t pid;                  /* filter's process, 0 = all */
    bool processes;               /* the tree has process roots (depth 1):
                                     it shows more than one process, or
                                     processes merged by command (a
                                     baseline's model follows its
                                     model's) */
    uint32_t focus;               /* filter's focus frame, PROFILE_NONE */
    uint64_t total;               /* samples in base */
    bool has_kernel;              /* snap has kernel frames */
    bool has_reasons;             /* snap has off-CPU reason frames */
    struct profile_flat *flat;    /* per-function totals of base */
    size_t nflat;
    uint32_t *flat_of;            /* frame id -> index in flat, or NONE */
    uint32_t nframes;             /* frames of snap (length of flat_of) */
    struct profile_edge *edges;   /* caller->callee edges of base */
    size_t nedges;
    bool *hidden;                 /* per frame: hidden by the thresholds
                                     (in why's allocation) */
    size_t nhidden;               /* functions with samples that are hidden */
    struct model_why *why;        /* per frame: what the hide rule compared
                                     (model_set_hide) */

    /* With a baseline (diff): its model over the aligned baseline, with
     * the same filter.  flat and edges then also hold, with no samples,
     * the functions and edges only the baseline has (after the others);
     * the tree holds, with no samples, the paths only the baseline has;
     * a function is hidden only when both sides hide it. */
    struct model *bm;             /* owned; NULL without a baseline */
    struct profile *bsnap;        /* owned: the baseline, aligned */
    uint32_t *bnode;              /* per node of tree: bm->tree's node of
                                     the same path, or PROFILE_NONE */
    uint32_t nbnode;
    /* With a recent window: its model, same filter, not inverted. */
    struct model *rm;             /* owned; NULL without */
};

/* What the hide rule compares for one function f (Racket's
 * get-hidden): its self share of all samples, and its largest share on
 * each side of its edges.  Each share is "of the other function's
 * time": an edge f -> x counts f's caller_time over x's total (the part
 * of x's time spent under calls from f), an edge y -> f counts f's
 * callee_time over y's total (the part of y's time spent in f; y
 * PROFILE_NONE: the stack bottom, over all samples).  Racket's leaf ->
 * "*" edge is f's self over all samples: the self share again. */
struct model_why {
    double self;                  /* self / all samples, 0..1 */
    double of_callee;             /* largest share over f's callee edges */
    uint32_t callee;              /* ...that callee (PROFILE_NONE: none) */
    double of_caller;             /* largest share over f's caller edges */
    uint32_t caller;              /* ...that caller (PROFILE_NONE: the
                                     stack bottom) */
};

/* A row's change from the baseline: shares in percent of each side's
 * samples, and on which sides it has samples. */
struct model_delta {
    double self, total;           /* current share - baseline share, points */
    bool in_cur, in_base;         /* has samples now / in the baseline */
};

/* Build a model over `snap` (borrowed: it must outlive the model).  A
 * filter thread or process that snap does not have, or a focus frame
 * out of range, is ignored; so is every filter and shape when snap holds
 * a call graph (profile_has_stacks false): then the flat table and the
 * edges are the graph's, and the tree has no stacks.  hide_self/hide_subs are percentages (see
 * model_set_hide).  NULL on OOM.  Free with model_free. */
struct model *model_new(const struct profile *snap,
                        const struct model_filter *f, double hide_self,
                        double hide_subs);

/* model_new with a baseline to diff against and a recent window (see
 * struct model_extra; NULLs and false give model_new).  snap is not
 * const: the baseline's frames and threads are interned into it (no
 * samples), so every row of either side has a name and an id.  NULL on
 * OOM (an owned snap and the recent window are freed then too). */
struct model *model_new_ext(struct profile *snap, const struct model_filter *f,
                            double hide_self, double hide_subs,
                            const struct model_extra *x);
/* The samples f selects, to save or export "the view": snap with f's
 * process, thread and focus applied, as the flat table and the callers
 * view count them (inverted and merge_threads shape only the tree: not
 * applied).
 * A new profile, a plain copy when f selects everything or snap holds a
 * call graph (which has no stacks to select); NULL on OOM.  Any thread;
 * snap is only read. */
struct profile *model_filter_profile(const struct profile *snap,
                                     const struct model_filter *f);

/* Free a model (not its snapshot).  NULL is a no-op. */
void model_free(struct model *m);

/* Recompute `hidden` with Racket's rule (profile-lib utils.rkt
 * get-hidden), the one rule every view and the text report apply: a
 * function is hidden when its self share is at most hide_self% of all
 * samples AND each edge to a callee has a caller_time at most hide_subs%
 * of that callee's total AND each edge from a caller has a callee_time
 * at most hide_subs% of that caller's total.  The edges to and from
 * Racket's "*" node count: the leaf edge (the self time over all
 * samples) and the bottom edge (over all samples).  Both thresholds at 0
 * hide nothing.  Caller: whoever owns m (the UI thread, an exporter). */
void model_set_hide(struct model *m, double hide_self, double hide_subs);

/* What the hide rule compared for function `frame` (the current side;
 * with a baseline a function also shows when the baseline shows it).
 * false when the frame has no samples. */
bool model_why(const struct model *m, uint32_t frame, struct model_why *w);

/* Flat entry of a frame, NULL when the frame has no samples in base. */
const struct profile_flat *model_flat_of(const struct model *m,
                                         uint32_t frame);

/* The change of function `frame` from the baseline (flat self and total
 * shares); false without a baseline. */
bool model_delta_frame(const struct model *m, uint32_t frame,
                       struct model_delta *d);

/* The change of node `node` of m->tree from the baseline's node of the
 * same path; false without a baseline. */
bool model_delta_node(const struct model *m, uint32_t node,
                      struct model_delta *d);

/* The recent window's flat entry of a frame (NULL without a recent window
 * or when the frame has no recent samples), and the window's samples. */
const struct profile_flat *model_recent_of(const struct model *m,
                                           uint32_t frame);
uint64_t model_recent_total(const struct model *m);

/* Whether node `node` of m->tree is folded away in the tree views: it
 * has under hide_subs% of all samples (with a baseline, on both sides;
 * a node without samples on either side is folded too).  The tree and
 * the flame graph apply this one rule. */
bool model_node_hidden(const struct model *m, uint32_t node,
                       double hide_subs);

/* The order of sibling nodes of m->tree in the views: samples
 * descending, then name, then node id (qsort_r style on node ids). */
int model_node_cmp(const void *a, const void *b, void *model);

/* The PID a process row (node of m->tree) stands for, 0 when node is
 * not one. */
int64_t model_node_pid(const struct model *m, uint32_t node);

/* Name of a frame of the snapshot ("?" when out of range). */
const char *model_frame_name(const struct model *m, uint32_t frame);

#endif
