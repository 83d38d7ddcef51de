/* tree_walk.c - the depth-first walk of a call tree; see tree_walk.h.
 *
 * Rows still to emit wait on an explicit stack (a 512-frame recursion
 * must not recurse here): a row's children are pushed, last first, when
 * it is emitted, so its index is known to them.
 */
#include "tree_walk.h"

#include <stdlib.h>

#include "vec.h"
#include "sorted.h"

struct walker {
    const struct tree_walk *w;
    struct tree_row *stack;  /* rows waiting, the next one on top */
    size_t sn, scap;
    uint32_t *kids;          /* scratch: the children being sorted */
    size_t nkids, kcap;
};

static enum tree_keep keep_of(const struct tree_walk *w, uint32_t node)
{
    return w->keep ? w->keep(w->arg, node) : TREE_SHOW;
}

/* Whether node has a child that is not skipped. */
static bool has_kids(const struct tree_walk *w, uint32_t node)
{
    const struct profile *t = w->tree;

    for (uint32_t c = profile_node(t, node)->first_child; c != PROFILE_NONE;
         c = profile_node(t, c)->next_sibling)
        if (keep_of(w, c) != TREE_SKIP)
            return true;
    return false;
}

/* The rows under `parent` (emitted as row `index`; top: the start when
 * it is no row): its shown children, sorted, then one row for the
 * folded ones, pushed so that they come out in that order.  0, or -1
 * on OOM. */
static int push_children(struct walker *k, const struct tree_row *parent,
                         uint32_t index, bool top)
{
    const struct tree_walk *w = k->w;
    const struct profile *t = w->tree;
    uint32_t nfolded = 0;
    uint64_t folded = 0, shown = 0;

    k->nkids = 0;
    for (uint32_t c = profile_node(t, parent->node)->first_child;
         c != PROFILE_NONE; c = profile_node(t, c)->next_sibling) {
        enum tree_keep how = keep_of(w, c);

        if (how == TREE_SKIP)
            continue;
        if (how == TREE_FOLD) {
            nfolded++;
            folded += profile_node(t, c)->total;
        } else if (VEC_RESERVE(k->kids, k->kcap, k->nkids + 1) < 0) {
            return -1;
        } else {
            k->kids[k->nkids++] = c;
            shown += profile_node(t, c)->total;
        }
    }
    if (k->nkids > 1 && w->cmp)
        sorted_sort_r(k->kids, k->nkids, sizeof(*k->kids), w->cmp, w->cmp_arg);
    if (VEC_RESERVE(k->stack, k->scap, k->sn + k->nkids + 1) < 0)
        return -1;
    uint32_t level = top ? 0 : parent->level + 1;
    uint64_t end = parent->offset + shown;
    if (nfolded)
        k->stack[k->sn++] = (struct tree_row){
            .node = PROFILE_NONE, .parent = index, .level = level,
            .nfolded = nfolded, .folded_total = folded, .offset = end,
            .last = true };
    for (size_t i = k->nkids; i-- > 0;) {
        uint32_t c = k->kids[i];
        bool kids = has_kids(w, c);

        end -= profile_node(t, c)->total;
        k->stack[k->sn++] = (struct tree_row){
            .node = c, .parent = index, .level = level, .offset = end,
            .last = i + 1 == k->nkids && !nfolded, .kids = kids,
            .open = kids && (!w->open || w->open(w->arg, c)) };
    }
    return 0;
}

int tree_walk(const struct tree_walk *w, tree_row_fn fn, void *arg)
{
    struct walker k = { .w = w };
    uint32_t emitted = 0;
    int ret = 0;
    bool top = !w->with_start;   /* the start, when it is no row */
    struct tree_row cur = { .node = w->start, .parent = TREE_NO_ROW,
                            .last = true, .open = true };

    if (!w->tree || w->start >= profile_node_count(w->tree))
        return 0;
    cur.kids = has_kids(w, w->start);
    for (;;) {
        uint32_t index = TREE_NO_ROW;
        int step = TREE_ON;

        if (!top) {
            if ((step = fn(arg, &cur)) < 0) {
                ret = step;
                break;
            }
            if (step != TREE_DROP)
                index = emitted++;
        }
        if (step == TREE_ON && cur.node != PROFILE_NONE && cur.kids &&
            cur.open && push_children(&k, &cur, index, top) < 0) {
            ret = -1;
            break;
        }
        top = false;
        if (k.sn == 0)
            break;
        cur = k.stack[--k.sn];
    }
    free(k.stack);
    free(k.kids);
    return ret;
}
