/* diff.c - align a baseline with a profile and pair their trees; see
 * diff.h.
 *
 * Both passes are linear: alignment interns each baseline frame once and
 * re-adds each baseline stack once; matching walks node ids in order,
 * which lists every parent before its children, with one child-index
 * probe per node.
 */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

#include "profile_impl.h"
#include "util.h"

/* The thread of cur that base's thread `t` stands for, made if none. */
static uint32_t align_thread(struct profile *cur,
                             const struct profile_thread *t)
{
    uint32_t same = profile_tid_find(cur, t->tid);

    if (same != PROFILE_NONE && strcmp(cur->th[same].name, t->name) == 0)
        return same;
    for (uint32_t i = 0; i < cur->nthreads; i++)
        if (strcmp(cur->th[i].name, t->name) == 0)
            return i;
    if (same != PROFILE_NONE) {
        /* Its tid names another thread here: give it an unused one. */
        int64_t tid = t->tid;

        for (uint32_t i = 0; i < cur->nthreads; i++)
            if (cur->th[i].tid >= tid)
                tid = cur->th[i].tid + 1;
        return profile_thread(cur, tid, t->name);
    }
    return profile_thread(cur, t->tid, t->name);
}

/* cur's frames by name: the first frame of each name, and for each
 * frame the next one of the same name (PROFILE_NONE ends a chain). */
struct name_index {
    const struct profile *p;
    struct idtab ix;       /* hash of a name -> its first frame */
    uint32_t *next;        /* frame -> next frame of the same name */
    const char *probe;     /* name being looked up */
};

static uint64_t name_hash(const char *name)
{
    return util_hash_bytes(name, strlen(name), 0);
}

static int name_eq(void *ctx, uint32_t id)
{
    const struct name_index *x = ctx;

    return strcmp(x->p->fd[id].name, x->probe) == 0;
}

/* Index the frames cur has now.  0, or -1 on OOM. */
static int name_index_build(struct name_index *x, const struct profile *p)
{
    uint32_t *last;

    *x = (struct name_index){ .p = p };
    x->next = malloc((p->nframes ? p->nframes : 1) * sizeof(*x->next));
    last = malloc((p->nframes ? p->nframes : 1) * sizeof(*last));
    if (!x->next || !last || idtab_reserve(&x->ix, p->nframes) < 0) {
        free(last);
        return -1;
    }
    for (uint32_t f = 0; f < p->nframes; f++) {
        uint64_t h = name_hash(p->fd[f].name);
        uint32_t first;

        x->next[f] = PROFILE_NONE;
        x->probe = p->fd[f].name;
        first = idtab_find(&x->ix, h, name_eq, x);
        if (first == IDTAB_NONE) {
            (void)idtab_insert(&x->ix, h, f);
            last[f] = f;
        } else {
            x->next[last[first]] = f;
            last[first] = f;
        }
    }
    free(last);
    return 0;
}

static void name_index_free(struct name_index *x)
{
    idtab_free(&x->ix);
    free(x->next);
}

/* Whether two frames are one row to the user: a function (or a special
 * frame such as "[truncated]": formats disagree on which kind bracketed
 * names are) against a function, a level against the same level, and a
 * source file and a first line that agree wherever both know them.  The
 * module and the build-id do not count: one format carries them and
 * another does not (folded, difffolded.pl's input, carries names only). */
static bool same_row(const struct frame_desc *a, const struct frame_desc *b)
{
    bool code_a = a->kind == FRAME_FUNC || a->kind == FRAME_SPECIAL;
    bool code_b = b->kind == FRAME_FUNC || b->kind == FRAME_SPECIAL;

    if (code_a != code_b || (!code_a && a->kind != b->kind))
        return false;
    if (a->file && b->file && strcmp(a->file, b->file) != 0)
        return false;
    return !a->line || !b->line || a->line == b->line;
}

/* The frame of cur that base's frame d stands for: the one with d's
 * identity, else the first of d's name that is the same row (same_row),
 * else d interned as a new frame.  PROFILE_NONE on OOM. */
static uint32_t align_frame(struct profile *cur, struct name_index *x,
                            const struct frame_desc *d)
{
    uint32_t id = profile_frame_lookup(cur, d);

    if (id != PROFILE_NONE)
        return id;
    x->probe = d->name;
    for (id = idtab_find(&x->ix, name_hash(d->name), name_eq, x);
         id != IDTAB_NONE && id != PROFILE_NONE; id = x->next[id])
        if (same_row(&cur->fd[id], d))
            return id;
    return profile_intern_frame(cur, d);
}

struct align_ctx {
    struct profile *q;
    const uint32_t *fmap;  /* base frame -> cur frame */
    const uint32_t *tmap;  /* base thread -> cur thread */
    uint32_t *buf;
};

static int align_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t count)
{
    struct align_ctx *a = ctx;

    for (size_t i = 0; i < n; i++)
        a->buf[i] = a->fmap[frames[i]];
    return profile_tree_add(a->q, a->q->th[a->tmap[thread]].node, a->buf, n,
                            count);
}

struct profile *diff_align(struct profile *cur, const struct profile *base)
{
    uint32_t nf = base->nframes, nt = base->nthreads;
    uint32_t *fmap = malloc((nf ? nf : 1) * sizeof(*fmap));
    uint32_t *tmap = malloc((nt ? nt : 1) * sizeof(*tmap));
    struct align_ctx a = { 0 };
    struct name_index x = { 0 };
    uint32_t i = 0;

    a.buf = malloc((base->max_depth + 1) * sizeof(*a.buf));
    if (fmap && tmap && a.buf && name_index_build(&x, cur) == 0)
        while (i < nf &&
               (fmap[i] = align_frame(cur, &x, &base->fd[i])) != PROFILE_NONE)
            i++;
    name_index_free(&x);
    if (!fmap || !tmap || !a.buf || i < nf)
        goto fail;
    for (i = 0; i < nt; i++)
        if ((tmap[i] = align_thread(cur, &base->th[i])) == PROFILE_NONE)
            goto fail;
    a.q = profile_copy(cur, false);
    a.fmap = fmap;
    a.tmap = tmap;
    if (!a.q)
        goto fail;
    a.q->unit_ns = base->unit_ns;  /* base's weights, as they are */
    if (profile_foreach_stack(base, align_stack, &a) != 0 ||
        profile_set_meta(a.q, &base->meta) < 0)
        goto fail;
    a.q->nsamples = base->nsamples;
    /* Line counts are cur's in the copy: the baseline's are not kept. */
    profile_lc_clear(&a.q->lines);
    profile_lc_clear(&a.q->addrs);
    free(fmap);
    free(tmap);
    free(a.buf);
    return a.q;
fail:
    profile_free(a.q);
    free(fmap);
    free(tmap);
    free(a.buf);
    return NULL;
}

/* Add to t, without samples, every node of b that t lacks. */
static int graft(struct profile *t, const struct profile *b)
{
    uint32_t *in_t = malloc(b->nnodes * sizeof(*in_t));

    if (!in_t || profile_tree_reserve(t, b->nnodes)) {
        free(in_t);
        return -1;
    }
    in_t[PROFILE_ROOT] = PROFILE_ROOT;
    for (uint32_t n = 1; n < b->nnodes; n++) {
        uint32_t parent = in_t[b->nodes[n].parent];
        uint32_t frame = b->nodes[n].frame;
        uint32_t c = profile_tree_find(t, parent, frame);

        in_t[n] = c != PROFILE_NONE ? c
                                    : profile_tree_node_add(t, parent, frame);
    }
    free(in_t);
    return 0;
}

int diff_match(struct profile *t, const struct profile *b, bool do_graft,
               uint32_t **out)
{
    uint32_t *m;

    *out = NULL;
    if (do_graft && graft(t, b) < 0)
        return -1;
    if (!(m = malloc(t->nnodes * sizeof(*m))))
        return -1;
    m[PROFILE_ROOT] = PROFILE_ROOT;
    for (uint32_t n = 1; n < t->nnodes; n++) {
        uint32_t parent = m[t->nodes[n].parent];

        m[n] = parent == PROFILE_NONE
                   ? PROFILE_NONE
                   : profile_tree_find(b, parent, t->nodes[n].frame);
    }
    *out = m;
    return 0;
}

int diff_pair_new(struct diff_pair *d, const struct profile *cur,
                  const struct profile *base)
{
    *d = (struct diff_pair){ 0 };
    d->cur = profile_clone(cur);
    if (!d->cur || !(d->base = diff_align(d->cur, base)) ||
        diff_match(d->cur, d->base, true, &d->match) < 0) {
        diff_pair_free(d);
        return -1;
    }
    return 0;
}

void diff_pair_free(struct diff_pair *d)
{
    profile_free(d->cur);
    profile_free(d->base);
    free(d->match);
    *d = (struct diff_pair){ 0 };
}

struct pair_walk {
    const struct diff_pair *d;
    diff_stack_fn fn;
    void *ctx;
};

/* A stack of cur with its self samples on both sides, when it has any. */
static int pair_stack(void *ctx, uint32_t thread, uint32_t node,
                      const uint32_t *frames, size_t n)
{
    struct pair_walk *w = ctx;
    uint64_t now = w->d->cur->nodes[node].self;
    uint32_t b = w->d->match[node];
    uint64_t then = b == PROFILE_NONE ? 0 : w->d->base->nodes[b].self;

    return now || then ? w->fn(w->ctx, thread, frames, n, then, now) : 0;
}

int diff_foreach_stack(const struct diff_pair *d, diff_stack_fn fn,
                       void *ctx)
{
    struct pair_walk w = { d, fn, ctx };

    return profile_tree_stacks(d->cur, pair_stack, &w);
}
