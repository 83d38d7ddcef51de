/* tree_walk.h - the one walk over a call tree, for every output that
 * shows one.
 *
 * A walk visits the rows of a profile's tree (a model's tree, or any
 * profile) depth first, in display order: each open row, then its
 * children in the order a comparator gives, then one row for the
 * children folded away (under a threshold).  Each row knows its parent
 * row, its level, whether it is the last of its siblings (for tree
 * guides), and its offset: the samples of the siblings before it, from
 * its parent's offset, which is where it starts in a flame graph.  The
 * tree view builds its lines with it (and ":print" writes them), the
 * flame view lays its boxes out with it, and the SVG writer draws its
 * frames with it (perf's print_callchain_entry_fn, ncdu's dir_output:
 * one walk, several outputs).
 *
 * Pure: libc and profile.h.  Any thread, on a profile nobody changes
 * meanwhile.
 */
#ifndef SPROFTOP_TREE_WALK_H
#define SPROFTOP_TREE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

/* No row: the parent of a top row. */
#define TREE_NO_ROW UINT32_MAX

/* A row as the walk emits it. */
struct tree_row {
    uint32_t node;         /* node of the tree; PROFILE_NONE: the row that
                              stands for its parent's folded children */
    uint32_t parent;       /* index of the parent row (rows are numbered
                              in the order they are emitted), TREE_NO_ROW
                              for a top row */
    uint32_t level;        /* 0 for a top row */
    uint32_t nfolded;      /* folded row: how many children it stands for */
    uint64_t folded_total; /* folded row: their samples */
    uint64_t offset;       /* its parent's offset plus the samples of the
                              siblings shown before it */
    bool last;             /* the last row among its siblings (a folded
                              row always is) */
    bool kids;             /* it has a child that is not skipped */
    bool open;             /* kids, and its children are walked */
};

/* What becomes of a child. */
enum tree_keep {
    TREE_SHOW = 0,         /* a row of its own */
    TREE_FOLD,             /* counted in its parent's folded row */
    TREE_SKIP,             /* left out, with its subtree and samples */
};

/* What the row function says of a row. */
enum tree_walk_step {
    TREE_ON = 0,           /* a row; its children are walked if open */
    TREE_PRUNE,            /* a row, but its children are not walked */
    TREE_DROP,             /* not a row (no index), nor are its children;
                              siblings keep their offsets and `last` */
};

struct tree_walk {
    const struct profile *tree;
    uint32_t start;        /* the walk is of this node's subtree */
    bool with_start;       /* start is the first row (level 0, always
                              open); else its children are the top rows */
    /* Sibling order, qsort_r style on node ids; NULL: the tree's. */
    int (*cmp)(const void *a, const void *b, void *arg);
    void *cmp_arg;
    /* What becomes of a child (NULL: every child is shown). */
    enum tree_keep (*keep)(void *arg, uint32_t node);
    /* Whether a row with kids is open (NULL: every one is). */
    bool (*open)(void *arg, uint32_t node);
    void *arg;             /* for keep and open */
};

/* Called for each row in display order: returns an enum tree_walk_step, or
 * a negative number to stop the walk. */
typedef int (*tree_row_fn)(void *arg, const struct tree_row *row);

/* Walk w's tree, calling fn for each row.  Returns 0, fn's negative
 * number when it stopped the walk, or -1 on OOM.  O(rows walked and
 * their children), sorting each open row's children once. */
int tree_walk(const struct tree_walk *w, tree_row_fn fn, void *arg);

#endif
