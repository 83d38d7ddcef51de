/* tree_view.c - the call tree view.
 *
 * One walker (tree_walk) produces the rows in display order: thread nodes,
 * then each open node's children sorted by total, with the children under
 * the hide-subs share folded into one "hidden" row.  Line building, search
 * (which walks as if every node were open) and the hottest-path expansion
 * all go through it, so what search finds is exactly what can be shown.
 */
#include "tree_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idtab.h"
#include "vec.h"

#define NO_LINE UINT32_MAX

/* A row, as the walker emits it and the view stores it. */
struct tree_line {
    uint32_t node;         /* node of model->tree, PROFILE_NONE: hidden row */
    uint32_t parent;       /* index of the parent row, NO_LINE at top */
    uint32_t level;        /* 0 for thread rows */
    uint32_t nhidden;      /* hidden row: how many children it stands for */
    uint64_t hidden_total; /* hidden row: their samples */
    bool last;             /* last row among its siblings */
    bool open;             /* expanded (and has children) */
    bool kids;             /* has children, shown or hidden */
};

/* Expansion state, keyed by profile_node_key (a hash of the node's path
 * of frames): the idtab maps a key to its index in `val`.  It never
 * shrinks but on collapse-all; a long session opens a few thousand nodes. */
enum { ST_UNSET = 0, ST_OPEN = 1, ST_CLOSED = 2,
       ST_REVEAL = 4 /* its children under hide-subs are shown too */ };

struct keystate {
    struct idtab ids;
    uint8_t *val;    /* ST_OPEN or ST_CLOSED, with ST_REVEAL, by id */
    size_t n, cap;
};

struct tree_priv {
    struct tree_line *lines;
    size_t cap;
    struct keystate st;
    bool threads_closed;   /* after collapse-all thread rows start closed */
    bool by_delta;         /* with a baseline: children by their change */
    uint32_t seek_frame;   /* after an inversion: put the cursor on the
                              first row of this function, PROFILE_NONE */
    bool manual;           /* the user acted on the tree: until then every
                              refresh opens the hottest path (and only it)
                              and puts the cursor at its end */
};

static uint8_t ks_get(const struct keystate *k, uint64_t key)
{
    uint32_t id = idtab_find(&k->ids, key, NULL, NULL);

    return id == IDTAB_NONE ? ST_UNSET : k->val[id];
}

static void ks_put(struct keystate *k, uint64_t key, uint8_t val)
{
    uint32_t id = idtab_find(&k->ids, key, NULL, NULL);

    if (id != IDTAB_NONE) {
        k->val[id] = val;
        return;
    }
    /* On OOM the node just does not stay open. */
    if (VEC_RESERVE(k->val, k->cap, k->n + 1) < 0 ||
        idtab_insert(&k->ids, key, (uint32_t)k->n) < 0)
        return;
    k->val[k->n++] = val;
}

static void ks_clear(struct keystate *k)
{
    idtab_free(&k->ids);
    free(k->val);
    memset(k, 0, sizeof(*k));
}

static const struct profile *tree_prof(const struct view *v)
{
    return v->ctx->model ? v->ctx->model->tree : NULL;
}

static bool node_open(const struct view *v, uint32_t node)
{
    const struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    uint8_t s = ks_get(&tp->st, profile_node_key(p, node));

    if (s & (ST_OPEN | ST_CLOSED))
        return s & ST_OPEN;
    /* Process and thread rows start open so the first screen shows where
     * time goes. */
    return profile_frame_is_level(
               profile_frame(p, profile_node(p, node)->frame)) &&
           !tp->threads_closed;
}

/* Open keeps a node's revealed children; closing forgets them. */
static void node_set_open(struct view *v, uint32_t node, bool open)
{
    struct tree_priv *tp = v->priv;
    uint64_t key = profile_node_key(tree_prof(v), node);

    ks_put(&tp->st, key, open ? (ST_OPEN | (ks_get(&tp->st, key) & ST_REVEAL))
                              : ST_CLOSED);
}

/* Whether node shows all its children, hidden ones included. */
static bool node_revealed(const struct view *v, uint32_t node)
{
    const struct tree_priv *tp = v->priv;

    return ks_get(&tp->st, profile_node_key(tree_prof(v), node)) & ST_REVEAL;
}

/* A child below the hide-subs share of all samples is folded away (the
 * model's rule, shared with the flame graph), unless its parent was asked
 * to show them all. */
static bool node_hidden(const struct view *v, uint32_t node)
{
    return model_node_hidden(v->ctx->model, node, v->ctx->hide_subs) &&
           !node_revealed(v, profile_node(tree_prof(v), node)->parent);
}

/* A node with samples on either side: filters leave empty ones behind,
 * and a diff grafts the baseline's (with samples on its side only). */
static bool node_live(const struct view *v, uint32_t node)
{
    struct model_delta d;

    if (profile_node(tree_prof(v), node)->total)
        return true;
    return view_diff(v) && model_delta_node(v->ctx->model, node, &d) &&
           d.in_base;
}

/* Children in view order: by samples, or with a baseline and the Δ sort,
 * by the change of their total share (growth first). */
static int child_cmp(const void *a, const void *b, void *arg)
{
    const struct view *v = arg;
    const struct tree_priv *tp = v->priv;
    const struct model *m = v->ctx->model;
    struct model_delta x, y;

    if (tp->by_delta && view_diff(v) &&
        model_delta_node(m, *(const uint32_t *)a, &x) &&
        model_delta_node(m, *(const uint32_t *)b, &y) && x.total != y.total)
        return x.total > y.total ? -1 : 1;
    return model_node_cmp(a, b, (void *)m);
}

/* Whether node has a child to show (filters leave empty ones). */
static bool has_kids(const struct view *v, uint32_t node)
{
    const struct profile *p = tree_prof(v);

    for (uint32_t c = profile_node(p, node)->first_child; c != PROFILE_NONE;
         c = profile_node(p, c)->next_sibling)
        if (node_live(v, c))
            return true;
    return false;
}

typedef int (*walk_fn)(void *arg, const struct tree_line *row);

/* The walk's stack of rows still to emit, and a scratch list of the
 * children being sorted. */
struct walk {
    struct view *v;
    bool all;                /* as if every node were open */
    struct tree_line *stack;
    size_t sn, scap;
    uint32_t *kids;
    size_t nkids, kcap;
};

/* Push the rows under `parent` (emitted as row parent_index): its shown
 * children, hottest first, then one row for those under the hide-subs
 * share.  0, or -1 on OOM. */
static int push_children(struct walk *w, const struct tree_line *parent,
                         uint32_t parent_index)
{
    const struct profile *p = tree_prof(w->v);
    uint32_t nh = 0;
    uint64_t ht = 0;

    w->nkids = 0;
    for (uint32_t c = profile_node(p, parent->node)->first_child;
         c != PROFILE_NONE; c = profile_node(p, c)->next_sibling) {
        /* Filters leave empty nodes behind: not even hidden. */
        if (!node_live(w->v, c))
            continue;
        if (node_hidden(w->v, c)) {
            nh++;
            ht += profile_node(p, c)->total;
        } else if (VEC_RESERVE(w->kids, w->kcap, w->nkids + 1) < 0) {
            return -1;
        } else {
            w->kids[w->nkids++] = c;
        }
    }
    if (w->nkids > 1)
        qsort_r(w->kids, w->nkids, sizeof(uint32_t), child_cmp, w->v);
    if (VEC_RESERVE(w->stack, w->scap, w->sn + w->nkids + 1) < 0)
        return -1;
    uint32_t level = parent->node == PROFILE_ROOT ? 0 : parent->level + 1;
    /* Pushed in reverse: the hidden row comes out last. */
    if (nh)
        w->stack[w->sn++] = (struct tree_line){
            .node = PROFILE_NONE, .parent = parent_index, .level = level,
            .nhidden = nh, .hidden_total = ht, .last = true };
    for (size_t i = w->nkids; i-- > 0;) {
        uint32_t c = w->kids[i];
        bool k = has_kids(w->v, c);
        w->stack[w->sn++] = (struct tree_line){
            .node = c, .parent = parent_index, .level = level,
            .last = i + 1 == w->nkids && !nh, .kids = k,
            .open = k && (w->all || node_open(w->v, c)) };
    }
    return 0;
}

/* Walk rows in display order, calling fn for each (its index is the
 * number of rows emitted before it).  `all` walks as if every node were
 * open.  Returns fn's non-zero value if it stopped the walk, -1 on OOM. */
static int tree_walk(struct view *v, bool all, walk_fn fn, void *arg)
{
    struct walk w = { .v = v, .all = all };
    uint32_t emitted = 0;
    int ret = 0;
    /* The root itself is not a row: its children (threads) are level 0. */
    struct tree_line cur = { .node = PROFILE_ROOT, .parent = NO_LINE };

    if (!tree_prof(v))
        return 0;
    for (;;) {
        uint32_t index = NO_LINE;
        if (cur.node != PROFILE_ROOT) {
            if ((ret = fn(arg, &cur)) != 0)
                break;
            index = emitted++;
        }
        if ((cur.node == PROFILE_ROOT || (cur.kids && cur.open)) &&
            push_children(&w, &cur, index) < 0) {
            ret = -1;
            break;
        }
        if (w.sn == 0)
            break;
        /* The parent index of a popped row was fixed when it was pushed. */
        cur = w.stack[--w.sn];
    }
    free(w.stack);
    free(w.kids);
    return ret;
}

static int build_row(void *arg, const struct tree_line *row)
{
    struct view *v = arg;
    struct tree_priv *tp = v->priv;

    if (VEC_RESERVE(tp->lines, tp->cap, v->lines + 1) < 0)
        return -1;
    tp->lines[v->lines++] = *row;
    return 0;
}

/* "file.c:42", or the module, or "" for a frame. */
static const char *frame_location(const struct frame_desc *d, char *buf,
                                  size_t n)
{
    buf[0] = '\0';
    if (d->file) {
        const char *b = strrchr(d->file, '/');
        b = b ? b + 1 : d->file;
        if (d->line)
            snprintf(buf, n, "%s:%u", b, d->line);
        else
            snprintf(buf, n, "%s", b);
    } else if (d->module) {
        snprintf(buf, n, "%s", d->module);
    }
    return buf;
}

static uint32_t open_hot_path(struct view *v, uint32_t node);

static void tree_refresh(struct view *v)
{
    struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    uint32_t hot = PROFILE_NONE;

    v->lines = 0;
    v->tail_want = 0;
    if (!p)
        return;
    /* Until the user takes over, the screen follows the data: the
     * hottest path, and only it, open (perf top and py-spy top open on
     * the hottest functions too). */
    if (!tp->manual && profile_node(p, PROFILE_ROOT)->total) {
        ks_clear(&tp->st);
        hot = open_hot_path(v, PROFILE_ROOT);
    }
    if (tree_walk(v, false, build_row, v) < 0)
        ctx_message(v->ctx, true, "out of memory building the tree");
    /* The location column is as wide as the widest location of any
     * function, shown or not, so it stays put as nodes open and close. */
    const struct model *m = v->ctx->model;
    for (size_t i = 0; i < m->nflat; i++) {
        char loc[256];
        const struct frame_desc *d = profile_frame(p, m->flat[i].frame);
        int w = text_width(v->ctx->theme, frame_location(d, loc, sizeof(loc)));
        if (w > v->tail_want)
            v->tail_want = w;
    }
    if (hot != PROFILE_NONE && hot != PROFILE_ROOT) {
        uint64_t key = profile_node_key(p, hot);
        for (size_t i = 0; i < v->lines; i++)
            if (tp->lines[i].node != PROFILE_NONE &&
                profile_node_key(p, tp->lines[i].node) == key) {
                v->cursor = i;
                v->placed = true;
                break;
            }
    }
    if (tp->seek_frame != PROFILE_NONE) {
        /* Node keys differ between the two trees: find the function. */
        v->cursor = 0;
        for (size_t i = 0; i < v->lines; i++)
            if (tp->lines[i].node != PROFILE_NONE &&
                profile_node(p, tp->lines[i].node)->frame == tp->seek_frame) {
                v->cursor = i;
                break;
            }
        v->offset = 0;
        v->placed = true;
        tp->seek_frame = PROFILE_NONE;
    }
}

enum tree_col { TC_TOTAL_PCT, TC_SELF_PCT, TC_SAMPLES, TC_DTOTAL, TC_DSELF,
                TC_SIDE, TC_FUNCTION, TC_LOCATION };

/* The change columns show with a baseline only. */
static const struct view_col tree_cols[] = {
    { .id = TC_TOTAL_PCT, .title = "Total%", .width = 6, .flags = DT_RIGHT },
    { .id = TC_SELF_PCT, .title = "Self%", .width = 6, .flags = DT_RIGHT },
    { .id = TC_SAMPLES, .title = "Samples", .width = 8, .flags = DT_RIGHT },
    { .id = TC_DTOTAL, .width = 6, .flags = DT_RIGHT },
    { .id = TC_DSELF, .width = 6, .flags = DT_RIGHT },
    { .id = TC_SIDE, .width = 1, .gap = 1 },
    { .id = TC_FUNCTION, .title = "Function (callees below)",
      .flags = DT_ELLIPSIS },
    { .id = TC_LOCATION, .flags = DT_ELLIPSIS | VIEW_COL_TAIL },
};

static bool tree_shown(struct view *v, int col)
{
    return (col != TC_DTOTAL && col != TC_DSELF && col != TC_SIDE) ||
           view_diff(v);
}

static const char *tree_title(struct view *v, int col)
{
    if (col == TC_DTOTAL)
        return COL_DELTA_TITLE(v, "\u0394Tot%", "dTot%");
    if (col == TC_DSELF)
        return v->ctx->filter.inverted
                   ? "" : COL_DELTA_TITLE(v, "\u0394Self%", "dSelf%");
    if (!v->ctx->filter.inverted)
        return NULL;
    /* Bottom-up, a node's self count is the samples whose outermost frame
     * it is: meaningless, so the column stays empty. */
    if (col == TC_SELF_PCT)
        return "";
    return col == TC_FUNCTION ? "Function (callers below)" : NULL;
}

/* Guides of the ancestors of `line`, outermost first, into buf: at most
 * `maxlev` levels (the innermost ones) are drawn. */
static void tree_guides(const struct view *v, size_t line, char *buf,
                        size_t n, uint32_t maxlev)
{
    const struct tree_priv *tp = v->priv;
    const struct glyphs *g = &v->ctx->theme->g;
    const struct tree_line *l = &tp->lines[line];
    bool last[64];
    uint32_t levels = l->level > 1 ? l->level - 1 : 0;
    uint32_t shown = levels < maxlev ? levels : maxlev;
    size_t o = 0;

    if (shown > 64)
        shown = 64;
    /* Walk up just `shown` ancestors: deep recursion stays O(screen). */
    uint32_t p = l->parent;
    for (uint32_t k = shown; k > 0 && p != NO_LINE; k--) {
        last[k - 1] = tp->lines[p].last;
        p = tp->lines[p].parent;
    }
    buf[0] = '\0';
    if (shown < levels)
        o += (size_t)snprintf(buf + o, n - o, "%s", g->ellipsis);
    for (uint32_t k = 0; k < shown && o < n; k++)
        o += (size_t)snprintf(buf + o, n - o, "%s",
                              last[k] ? g->blank : g->vert);
    if (l->level > 0 && o < n)
        snprintf(buf + o, n - o, "%s", l->last ? g->elbow : g->tee);
}

/* The function cell: the guides, the node's mark and its name, as many
 * levels of guides as leave room for the name. */
static void function_cell(struct view *v, size_t line, struct view_cell *c)
{
    const struct tree_priv *tp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct profile *p = tree_prof(v);
    const struct tree_line *l = &tp->lines[line];
    char guides[512];
    uint32_t maxlev = c->width > 24 ? (uint32_t)(c->width - 16) / 4 : 1;

    tree_guides(v, line, guides, sizeof(guides), maxlev);
    c->text = c->buf;
    if (l->node == PROFILE_NONE) {
        snprintf(c->buf, sizeof(c->buf), "%s%s %u hidden: under hide-subs "
                 "%.1f%%", guides, t->g.ellipsis, l->nhidden,
                 v->ctx->hide_subs);
        c->attr = t->attr[UC_DIM];
        return;
    }
    const struct frame_desc *d =
        profile_frame(p, profile_node(p, l->node)->frame);
    const char *mark = !l->kids ? t->g.leaf : l->open ? t->g.open
                                                      : t->g.closed;
    char name[512];
    snprintf(c->buf, sizeof(c->buf), "%s%s %s", guides, mark,
             view_frame_label(d, name, sizeof(name)));
    c->attr = view_frame_attr(v, d, c->attr);
    if (profile_frame_is_level(d))
        c->attr = t->attr[UC_VALUE];
}

static void tree_cell(struct view *v, size_t line, int col,
                      struct view_cell *c)
{
    const struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    const struct tree_line *l = &tp->lines[line];
    double root = (double)profile_node(p, PROFILE_ROOT)->total;
    const struct profile_node *nd =
        l->node != PROFILE_NONE ? profile_node(p, l->node) : NULL;
    /* A hidden row shows its children's share and count, dimmed. */
    double total = nd ? (double)nd->total : (double)l->hidden_total;
    struct model_delta d;

    switch ((enum tree_col)col) {
    case TC_DTOTAL:
    case TC_DSELF:
    case TC_SIDE:
        /* Bottom-up, self means nothing (see tree_title). */
        if (nd && model_delta_node(v->ctx->model, l->node, &d) &&
            (col != TC_DSELF || !v->ctx->filter.inverted))
            cell_change(v, c, &d, col == TC_SIDE ? CHANGE_SIDE
                                  : col == TC_DSELF ? CHANGE_SELF
                                                    : CHANGE_TOTAL);
        return;
    case TC_TOTAL_PCT:
        cell_pct(v, c, total, root);
        break;
    case TC_SELF_PCT:
        if (nd && !v->ctx->filter.inverted)
            cell_pct(v, c, (double)nd->self, root);
        return;
    case TC_SAMPLES:
        cell_count(c, nd ? nd->total : l->hidden_total);
        break;
    case TC_FUNCTION:
        function_cell(v, line, c);
        return;
    case TC_LOCATION:
        if (nd)
            c->text = frame_location(profile_frame(p, nd->frame), c->buf,
                                     sizeof(c->buf));
        c->attr = v->ctx->theme->attr[UC_LOC];
        return;
    }
    if (!nd)
        c->attr = v->ctx->theme->attr[UC_DIM];
}

/* Hidden rows get their parent's key mixed with a constant, so they keep
 * the cursor too. */
#define HIDDEN_ROW_SALT 0x9e3779b97f4a7c15ull

static uint64_t tree_line_key(struct view *v, size_t line)
{
    const struct tree_priv *tp = v->priv;
    const struct tree_line *l = &tp->lines[line];

    if (l->node != PROFILE_NONE)
        return profile_node_key(tree_prof(v), l->node);
    if (l->parent == NO_LINE)
        return HIDDEN_ROW_SALT;
    return profile_node_key(tree_prof(v), tp->lines[l->parent].node) ^
           HIDDEN_ROW_SALT;
}

static uint32_t tree_line_frame(struct view *v, size_t line)
{
    const struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    uint32_t node = tp->lines[line].node;

    if (node == PROFILE_NONE)
        return PROFILE_NONE;
    uint32_t f = profile_node(p, node)->frame;
    return profile_frame_is_level(profile_frame(p, f)) ? PROFILE_NONE : f;
}

/* A thread row stands for its thread (per-thread trees). */
static const struct profile_thread *tree_line_thread(struct view *v,
                                                     size_t line)
{
    const struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    uint32_t node = tp->lines[line].node;

    if (node == PROFILE_NONE ||
        profile_frame(p, profile_node(p, node)->frame)->kind != FRAME_THREAD)
        return NULL;
    return profile_thread_at(p, profile_node_thread(p, node));
}

/* A process row stands for its process (f limits the views to it). */
static int64_t tree_line_process(struct view *v, size_t line)
{
    const struct tree_priv *tp = v->priv;

    return model_node_pid(v->ctx->model, tp->lines[line].node);
}

/* Rebuild the rows and put the cursor on `node`. */
static void tree_show_node(struct view *v, uint32_t node)
{
    uint64_t key = profile_node_key(tree_prof(v), node);

    view_refresh(v);
    size_t at = view_find_key(v, key);
    if (at != SIZE_MAX)
        view_goto(v, at);
}

/* Open every ancestor of node (not node itself) so its row exists. */
static void tree_reveal(struct view *v, uint32_t node)
{
    const struct profile *p = tree_prof(v);

    for (uint32_t a = profile_node(p, node)->parent;
         a != PROFILE_NONE && a != PROFILE_ROOT; a = profile_node(p, a)->parent)
        node_set_open(v, a, true);
}

/* Any key or click the tree handles: the user has taken over. */
static void tree_touch(struct view *v)
{
    ((struct tree_priv *)v->priv)->manual = true;
}

/* A search walks every row (as if every node were open) and numbers the
 * matches in that order, the cursor's own row included. */
struct search_ctx {
    struct view *v;
    const regex_t *re;
    uint32_t from;        /* the cursor's node */
    bool passed;          /* the walk went past `from` */
    size_t count;         /* matches so far */
    struct search_mark {
        uint32_t node;    /* PROFILE_NONE: none yet */
        size_t nth;
    } first, last, before, after, self;
    /* first and last match overall, the last before the cursor and the
     * first after it, and the cursor's own row when it matches */
};

static int search_row(void *arg, const struct tree_line *row)
{
    struct search_ctx *s = arg;
    const struct profile *p = tree_prof(s->v);

    if (row->node == PROFILE_NONE)
        return 0;
    uint32_t f = profile_node(p, row->node)->frame;
    bool match = !profile_frame_is_level(profile_frame(p, f)) &&
                 regexec(s->re, profile_frame(p, f)->name, 0, NULL, 0) == 0;
    if (row->node == s->from)
        s->passed = true;
    if (!match)
        return 0;
    struct search_mark m = { row->node, ++s->count };
    if (row->node == s->from)
        s->self = m;
    else if (!s->passed)
        s->before = m;
    else if (s->after.node == PROFILE_NONE)
        s->after = m;
    if (s->first.node == PROFILE_NONE)
        s->first = m;
    s->last = m;
    return 0;
}

static bool tree_search(struct view *v, const regex_t *re, bool forward,
                        struct search_hit *hit)
{
    const struct tree_priv *tp = v->priv;
    const struct search_mark none = { PROFILE_NONE, 0 };
    struct search_ctx s = {
        .v = v, .re = re, .from = PROFILE_NONE, .first = none, .last = none,
        .before = none, .after = none, .self = none,
    };

    if (!tree_prof(v))
        return false;
    if (v->lines)
        s.from = tp->lines[v->cursor].node;
    if (s.from == PROFILE_NONE)
        s.passed = true;
    if (tree_walk(v, true, search_row, &s) < 0 || s.count == 0)
        return false;

    /* The next match, wrapping around; the cursor's row when it is the
     * only one. */
    struct search_mark t;
    if (forward)
        t = s.after.node != PROFILE_NONE ? s.after : s.first;
    else
        t = s.before.node != PROFILE_NONE ? s.before : s.last;
    hit->nth = t.nth;
    hit->count = s.count;
    tree_touch(v);
    tree_reveal(v, t.node);
    tree_show_node(v, t.node);
    return true;
}

static uint32_t cursor_node(const struct view *v)
{
    const struct tree_priv *tp = v->priv;

    return v->lines ? tp->lines[v->cursor].node : PROFILE_NONE;
}

/* The hottest child of node that is not folded away, or NONE. */
static uint32_t hottest_child(const struct view *v, uint32_t node)
{
    const struct profile *p = tree_prof(v);
    uint32_t best = PROFILE_NONE;

    for (uint32_t c = profile_node(p, node)->first_child; c != PROFILE_NONE;
         c = profile_node(p, c)->next_sibling) {
        if (node_hidden(v, c) || profile_node(p, c)->total == 0)
            continue;
        if (best == PROFILE_NONE ||
            model_node_cmp(&c, &best, (void *)v->ctx->model) < 0)
            best = c;
    }
    return best;
}

/* Open the hottest path down from node; returns its last node. */
static uint32_t open_hot_path(struct view *v, uint32_t node)
{
    for (uint32_t c; (c = hottest_child(v, node)) != PROFILE_NONE; node = c)
        if (node != PROFILE_ROOT)
            node_set_open(v, node, true);
    return node;
}

static void expand_subtree(struct view *v, uint32_t node)
{
    const struct profile *p = tree_prof(v);
    uint32_t *todo = NULL;
    size_t n = 0, cap = 0;

    if (VEC_RESERVE(todo, cap, 1) < 0)
        return;
    todo[n++] = node;
    while (n) {
        uint32_t at = todo[--n];
        if (!has_kids(v, at))
            continue;
        node_set_open(v, at, true);
        for (uint32_t c = profile_node(p, at)->first_child; c != PROFILE_NONE;
             c = profile_node(p, c)->next_sibling) {
            if (VEC_RESERVE(todo, cap, n + 1) < 0)
                goto out;
            todo[n++] = c;
        }
    }
out:
    free(todo);
}

/* I: the other tree, the cursor on the same function. */
static bool tree_invert(struct view *v, enum request req)
{
    struct tree_priv *tp = v->priv;
    uint32_t node = cursor_node(v);

    (void)req;
    tp->seek_frame = node != PROFILE_NONE
                         ? profile_node(tree_prof(v), node)->frame
                         : PROFILE_NONE;
    v->ctx->filter.inverted = !v->ctx->filter.inverted;
    v->ctx->want_model = true;
    ctx_message(v->ctx, false, "%s tree",
                v->ctx->filter.inverted ? "bottom-up (inverted)" : "top-down");
    return true;
}

/* C: everything closed, the cursor on the thread it was under. */
static bool tree_collapse_all(struct view *v, enum request req)
{
    struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    uint32_t top = cursor_node(v);

    (void)req;
    while (p && top != PROFILE_NONE && profile_node(p, top)->depth > 1)
        top = profile_node(p, top)->parent;
    ks_clear(&tp->st);
    tp->threads_closed = true;
    if (top != PROFILE_NONE)
        tree_show_node(v, top);
    else
        view_refresh(v);
    return true;
}

/* The cursor's row (the view has lines: the actions are on_line). */
static const struct tree_line *cursor_row(const struct view *v)
{
    return &((const struct tree_priv *)v->priv)->lines[v->cursor];
}

/* Enter: open or close the node; on a hidden row, show the rows it
 * stands for (for that parent only: the thresholds stay). */
static bool tree_toggle(struct view *v, enum request req)
{
    struct tree_priv *tp = v->priv;
    const struct tree_line *l = cursor_row(v);

    (void)req;
    if (l->node == PROFILE_NONE) {
        uint32_t parent = l->parent == NO_LINE ? PROFILE_ROOT
                                               : tp->lines[l->parent].node;
        uint64_t key = profile_node_key(tree_prof(v), parent);
        ks_put(&tp->st, key, ks_get(&tp->st, key) | ST_REVEAL);
        ctx_message(v->ctx, false, "%u row%s under hide-subs %.1f%% shown "
                    "here; t or { } change it everywhere", l->nhidden,
                    l->nhidden == 1 ? "" : "s", v->ctx->hide_subs);
        view_refresh(v);
    } else if (l->kids) {
        node_set_open(v, l->node, !l->open);
        view_refresh(v);
    }
    return true;
}

/* Right: open the node, or go to its first child when open. */
static bool tree_expand(struct view *v, enum request req)
{
    const struct tree_line *l = cursor_row(v);

    (void)req;
    if (l->node == PROFILE_NONE || !l->kids)
        return true;
    if (!l->open) {
        node_set_open(v, l->node, true);
        view_refresh(v);
    } else if (v->cursor + 1 < v->lines) {
        view_goto(v, v->cursor + 1);
    }
    return true;
}

/* Left: close the node, or go to its parent when closed. */
static bool tree_collapse(struct view *v, enum request req)
{
    const struct tree_line *l = cursor_row(v);

    (void)req;
    if (l->node != PROFILE_NONE && l->open) {
        node_set_open(v, l->node, false);
        view_refresh(v);
    } else if (l->parent != NO_LINE) {
        view_goto(v, l->parent);
    }
    return true;
}

/* *: open the whole subtree under the cursor. */
static bool tree_expand_all(struct view *v, enum request req)
{
    uint32_t node = cursor_node(v);

    (void)req;
    if (node != PROFILE_NONE) {
        expand_subtree(v, node);
        view_refresh(v);
    }
    return true;
}

/* E: open the hottest path down from the cursor and go to its end. */
static bool tree_expand_hot(struct view *v, enum request req)
{
    uint32_t node = cursor_node(v);

    (void)req;
    if (node == PROFILE_NONE)
        return true;
    tree_show_node(v, open_hot_path(v, node));
    return true;
}

/* T: threads merged into one tree, or one subtree per thread; the
 * cursor stays on its function. */
static bool tree_merge_threads(struct view *v, enum request req)
{
    struct tree_priv *tp = v->priv;
    uint32_t node = cursor_node(v);
    struct model_filter *f = &v->ctx->filter;

    (void)req;
    tp->seek_frame = node != PROFILE_NONE
                         ? profile_node(tree_prof(v), node)->frame
                         : PROFILE_NONE;
    f->merge_threads = !f->merge_threads;
    v->ctx->want_model = true;
    ctx_message(v->ctx, false, "%s", f->merge_threads
                ? "threads merged: one tree for all threads"
                : "one subtree per thread");
    return true;
}

/* o: with a baseline, children by their change or by their samples. */
static bool tree_sort(struct view *v, enum request req)
{
    struct tree_priv *tp = v->priv;

    (void)req;
    if (!view_diff(v)) {
        ctx_message(v->ctx, true, "the tree sorts by change only against a "
                    "baseline (b pins one)");
        return true;
    }
    tp->by_delta = !tp->by_delta;
    ctx_message(v->ctx, false, "children sorted by %s",
                tp->by_delta ? "change from the baseline" : "samples");
    view_refresh(v);
    return true;
}

static const struct view_action tree_actions[] = {
    { REQ_INVERT, tree_invert, false },
    { REQ_SORT, tree_sort, false },
    { REQ_MERGE_THREADS, tree_merge_threads, false },
    { REQ_COLLAPSE_ALL, tree_collapse_all, false },
    { REQ_ENTER, tree_toggle, true },
    { REQ_EXPAND, tree_expand, true },
    { REQ_COLLAPSE, tree_collapse, true },
    { REQ_EXPAND_ALL, tree_expand_all, true },
    { REQ_EXPAND_HOT, tree_expand_hot, true },
    { REQ_NONE, NULL, false },
};

static const char *tree_info(struct view *v, char *buf, size_t n)
{
    const struct tree_priv *tp = v->priv;

    snprintf(buf, n, "%s, %s", tp->by_delta && view_diff(v) ? "by change"
                               : v->ctx->filter.inverted ? "bottom-up"
                                                         : "top-down",
             v->ctx->filter.merge_threads ? "merged" : "per thread");
    return buf;
}


static int tree_open(struct view *v)
{
    ((struct tree_priv *)v->priv)->seek_frame = PROFILE_NONE;
    return 0;
}

static void tree_close(struct view *v)
{
    struct tree_priv *tp = v->priv;

    ks_clear(&tp->st);
    free(tp->lines);
}

const struct view_ops tree_view_ops = {
    .name = "Tree", .priv_size = sizeof(struct tree_priv),
    .open = tree_open, .refresh = tree_refresh, .close = tree_close,
    VIEW_COLUMNS(tree_cols), .cell = tree_cell, .title = tree_title,
    .shown = tree_shown,
    .actions = tree_actions,
    .line_key = tree_line_key, .line_frame = tree_line_frame,
    .line_thread = tree_line_thread, .line_process = tree_line_process,
    .search = tree_search, .info = tree_info, .touch = tree_touch,
};
