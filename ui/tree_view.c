/* tree_view.c - the call tree view.
 *
 * The model's walker (src/model/tree_walk.h) produces the rows in display
 * order: thread nodes, then each open node's children sorted by total,
 * with the children under the hide-subs share folded into one "hidden"
 * row.  Line building, search (which walks as if every node were open
 * and none folded) and :print all go through it, so what search finds is
 * exactly what can be shown.
 */
#include "tree_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idtab.h"
#include "tree_walk.h"
#include "vec.h"
#include "sorted.h"

#define NO_LINE TREE_NO_ROW


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
    struct tree_row *lines;
    size_t cap;
    struct keystate st;
    bool threads_closed;   /* after collapse-all thread rows start closed */
    bool by_delta;         /* with a baseline: children by their change */
    uint32_t seek_frame;   /* after an inversion: put the cursor on the
                              first row of this function, PROFILE_NONE */
    uint64_t gen;          /* counts refreshes (the lines changed) */
    struct slot_window {   /* screen_slot's last answer, and for what */
        uint64_t gen;
        size_t offset, end;
        uint32_t w, off;
    } win;
    bool manual;           /* the user acted on the tree: until then every
                              refresh opens the hottest path (and only it)
                              and puts the cursor on its row of most self
                              time (open_hot_path) */
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

/* What becomes of a child in the tree: folded under hide-subs (unless
 * its parent shows them all), skipped when empty. */
static enum tree_keep keep_folded(void *arg, uint32_t node)
{
    struct view *v = arg;

    if (!node_live(v, node))
        return TREE_SKIP;
    return node_hidden(v, node) ? TREE_FOLD : TREE_SHOW;
}

/* For a search: every child with samples, folded or not. */
static enum tree_keep keep_every(void *arg, uint32_t node)
{
    return node_live(arg, node) ? TREE_SHOW : TREE_SKIP;
}

static bool open_of(void *arg, uint32_t node)
{
    return node_open(arg, node);
}

/* Which rows a walk of the tree visits. */
enum rows_of {
    ROWS_SHOWN,     /* those on screen: open nodes, folding applied */
    ROWS_OPEN,      /* as if every node were open (e: the next by self) */
    ROWS_EVERY,     /* every node with samples, folded ones too (search) */
};

/* Walk the tree's rows in display order, calling fn for each.  Returns
 * fn's negative value if it stopped the walk, -1 on OOM. */
static int tree_rows(struct view *v, enum rows_of which, tree_row_fn fn,
                     void *arg)
{
    const struct tree_walk w = {
        .tree = tree_prof(v), .start = PROFILE_ROOT, .with_start = false,
        .cmp = child_cmp, .cmp_arg = v,
        .keep = which == ROWS_EVERY ? keep_every : keep_folded,
        .open = which == ROWS_SHOWN ? open_of : NULL, .arg = v,
    };

    return tree_walk(&w, fn, arg);
}

static int build_row(void *arg, const struct tree_row *row)
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

/* The longer of `than` and the width of d's location: a location whose
 * length in bytes (a bound of its width: text_width) is not above
 * `than` is not formatted, which most functions of a large profile are
 * not (hours of -a: hundreds of thousands, each refresh). */
static int wider_location(const struct theme *t, const struct frame_desc *d,
                          int than)
{
    char loc[256];
    size_t bytes = 0;

    if (d->file) {
        const char *b = strrchr(d->file, '/');
        /* the name, and ':' with at most ten digits of a line */
        bytes = strlen(b ? b + 1 : d->file) + (d->line ? 11 : 0);
    } else if (d->module) {
        bytes = strlen(d->module);
    }
    if (bytes <= (size_t)than)
        return than;
    int w = text_width(t, frame_location(d, loc, sizeof(loc)));
    return w > than ? w : than;
}

static uint32_t open_hot_path(struct view *v, uint32_t node);

static void tree_refresh(struct view *v)
{
    struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    uint32_t hot = PROFILE_NONE;

    v->lines = 0;
    v->tail_want = 0;
    tp->gen++;
    if (!p)
        return;
    /* Until the user takes over, the screen follows the data: the
     * hottest path, and only it, open (perf top and py-spy top open on
     * the hottest functions too). */
    if (!tp->manual && profile_node(p, PROFILE_ROOT)->total) {
        ks_clear(&tp->st);
        hot = open_hot_path(v, PROFILE_ROOT);
        /* Several processes: each one's hottest path, the cursor on the
         * hottest of all (one open process among closed ones hides where
         * the others spend their time). */
        for (uint32_t c = profile_node(p, PROFILE_ROOT)->first_child;
             c != PROFILE_NONE; c = profile_node(p, c)->next_sibling)
            if (profile_frame(p, profile_node(p, c)->frame)->kind ==
                    FRAME_PROCESS && !node_hidden(v, c))
                open_hot_path(v, c);
    }
    if (tree_rows(v, ROWS_SHOWN, build_row, v) < 0)
        ctx_message(v->ctx, true, "out of memory building the tree");
    /* The location column is as wide as the widest location of any
     * function, shown or not, so it stays put as nodes open and close. */
    const struct model *m = v->ctx->model;
    for (size_t i = 0; i < m->nflat; i++)
        v->tail_want = wider_location(v->ctx->theme,
                                      profile_frame(p, m->flat[i].frame),
                                      v->tail_want);
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

/* Guide slots: slot k (two columns) is the guide of the ancestor at
 * level k + 1, and a row at level L > 0 has its connector (├─ or └─)
 * in slot L - 1; top rows have none.  A row shows the slots from `off`
 * (after a … when off > 0) and at most `w` of them: a row whose
 * connector falls past that shows, in the last one, … and how many
 * levels are not shown ("…3"), then its connector, so a parent and its
 * child out there still differ. */
#define MAX_SLOTS 160   /* most slots a cell draws (4 bytes each, UTF-8) */

static void tree_guides(const struct view *v, size_t line, uint32_t off,
                        uint32_t w, char *buf, size_t n)
{
    const struct tree_priv *tp = v->priv;
    const struct glyphs *g = &v->ctx->theme->g;
    const struct tree_row *l = &tp->lines[line];
    bool last[MAX_SLOTS];
    size_t o = 0;

    buf[0] = '\0';
    if (l->level == 0)
        return;
    uint32_t conn = l->level - 1;
    uint32_t before = conn > off ? conn - off : 0;  /* ancestor slots */
    bool clip = w > 0 && before >= w;
    uint32_t keep = clip ? w - 1 : before;

    if (keep > MAX_SLOTS)
        keep = MAX_SLOTS;
    /* Up from the parent (slot conn - 1) to the ancestor in slot off. */
    uint32_t p = l->parent;
    for (uint32_t slot = conn; slot-- > off && p != NO_LINE;) {
        if (slot - off < keep)
            last[slot - off] = tp->lines[p].last;
        p = tp->lines[p].parent;
    }
    if (off > 0)
        o += (size_t)snprintf(buf + o, n - o, "%s", g->ellipsis);
    for (uint32_t k = 0; k < keep && o < n; k++)
        o += (size_t)snprintf(buf + o, n - o, "%s",
                              last[k] ? g->blank : g->vert);
    if (clip && o < n)
        o += (size_t)snprintf(buf + o, n - o, "%s%u", g->ellipsis,
                              conn - off - keep);
    if (o < n)
        snprintf(buf + o, n - o, "%s", l->last ? g->elbow : g->tee);
}

/* The first slot the screen shows, the same for every row on it, so a
 * guide stays in its column from row to row and siblings line up
 * however deep the tree is: as many of the shallower slots as leave the
 * deepest row's connector within the w slots, but never past the
 * shallowest row's connector (that row would lose its place); rows
 * deeper than the w slots then show … for the slots between. */
static uint32_t screen_slot(struct view *v, uint32_t w)
{
    struct tree_priv *tp = v->priv;
    size_t end = v->offset + (size_t)(v->height > 0 ? v->height : 1);
    uint32_t lo = UINT32_MAX, hi = 0;

    if (tp->win.gen == tp->gen && tp->win.offset == v->offset &&
        tp->win.end == end && tp->win.w == w)
        return tp->win.off;
    for (size_t i = v->offset; i < end && i < v->lines; i++) {
        uint32_t level = tp->lines[i].level;

        if (level == 0) {
            lo = 0;
            break;
        }
        lo = level - 1 < lo ? level - 1 : lo;
        hi = level - 1 > hi ? level - 1 : hi;
    }
    uint32_t off = hi >= w ? hi - w + 1 : 0;
    if (lo != UINT32_MAX && off > lo)
        off = lo;
    tp->win = (struct slot_window){ tp->gen, v->offset, end, w, off };
    return off;
}

/* The function cell: the guides, the node's mark and its name.  On
 * screen the guides take at most about half the cell, all rows from the
 * same slot (screen_slot); printed, they are whole. */
static void function_cell(struct view *v, size_t line, struct view_cell *c)
{
    const struct tree_priv *tp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct profile *p = tree_prof(v);
    const struct tree_row *l = &tp->lines[line];
    char guides[MAX_SLOTS * 4 + 16];
    uint32_t w = c->width > 24 ? (uint32_t)(c->width - 16) / 4 + 1 : 2;

    if (c->print)
        tree_guides(v, line, 0, MAX_SLOTS, guides, sizeof(guides));
    else
        tree_guides(v, line, screen_slot(v, w), w, guides, sizeof(guides));
    c->text = c->buf;
    if (l->node == PROFILE_NONE) {
        snprintf(c->buf, sizeof(c->buf), "%s%s %u hidden: under hide-subs "
                 "%.1f%%", guides, t->g.ellipsis, l->nfolded,
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
    const struct tree_row *l = &tp->lines[line];
    double root = (double)profile_node(p, PROFILE_ROOT)->total;
    const struct profile_node *nd =
        l->node != PROFILE_NONE ? profile_node(p, l->node) : NULL;
    /* A hidden row shows its children's share and count, dimmed. */
    double total = nd ? (double)nd->total : (double)l->folded_total;
    struct model_delta d;

    switch ((enum tree_col)col) {
    case TC_DTOTAL:
    case TC_DSELF:
    case TC_SIDE:
        /* Bottom-up, self means nothing (see tree_title). */
        if (nd && model_delta_node(v->ctx->model, l->node, &d) &&
            (col != TC_DSELF || !v->ctx->filter.inverted))
            cell_change(v, c, &d, cell_change_of(col, TC_SIDE, TC_DSELF));
        return;
    case TC_TOTAL_PCT:
        cell_pct(v, c, total, root);
        break;
    case TC_SELF_PCT:
        if (nd && !v->ctx->filter.inverted)
            cell_pct(v, c, (double)nd->self, root);
        return;
    case TC_SAMPLES:
        cell_weight(v, c, nd ? nd->total : l->folded_total);
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
    const struct tree_row *l = &tp->lines[line];

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

/* Where node, or an ancestor, is folded under hide-subs, its parent
 * shows its folded rows from now on (as Enter on the "… hidden" row
 * does), so node's row can be shown.  Returns whether one was folded. */
static bool tree_unfold(struct view *v, uint32_t node)
{
    struct tree_priv *tp = v->priv;
    const struct profile *p = tree_prof(v);
    bool folded = false;

    for (uint32_t a = node; a != PROFILE_NONE && a != PROFILE_ROOT;
         a = profile_node(p, a)->parent) {
        if (!node_hidden(v, a))
            continue;
        uint64_t key = profile_node_key(p, profile_node(p, a)->parent);
        ks_put(&tp->st, key, ks_get(&tp->st, key) | ST_REVEAL);
        folded = true;
    }
    return folded;
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

static int search_row(void *arg, const struct tree_row *row)
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
    if (tree_rows(v, ROWS_EVERY, search_row, &s) < 0 || s.count == 0)
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
    if (tree_unfold(v, t.node))
        snprintf(hit->note, sizeof(hit->note), "was under hide-subs %.1f%%",
                 v->ctx->hide_subs);
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

/* What a row ranks by for E, the first screen and e: top-down, its
 * self samples (perf top's first line is the hottest symbol); bottom-up,
 * where self means nothing, a top function row's total (the samples it
 * was itself running) and 0 below it.  0 for thread and process rows. */
static uint64_t self_heat(const struct view *v, uint32_t node)
{
    const struct profile *p = tree_prof(v);
    const struct profile_node *n = profile_node(p, node);

    if (node == PROFILE_ROOT ||
        profile_frame_is_level(profile_frame(p, n->frame)))
        return 0;
    if (!v->ctx->filter.inverted)
        return n->self;
    if (n->parent != PROFILE_ROOT &&
        !profile_frame_is_level(
            profile_frame(p, profile_node(p, n->parent)->frame)))
        return 0;
    return n->total;
}

/* Open the hottest path down from node (the hottest child each step);
 * returns where the cursor goes: top-down, the node of most self
 * samples on the path, node included (a small leaf below
 * _PyEval_EvalFrameDefault is not where the time goes); bottom-up, or
 * when no node on it has self samples, its last node (the outermost
 * caller). */
static uint32_t open_hot_path(struct view *v, uint32_t node)
{
    uint32_t best = PROFILE_NONE;
    uint64_t heat = 0;

    for (uint32_t c;; node = c) {
        if (!v->ctx->filter.inverted && self_heat(v, node) > heat) {
            heat = self_heat(v, node);
            best = node;
        }
        if ((c = hottest_child(v, node)) == PROFILE_NONE)
            break;
        if (node != PROFILE_ROOT)
            node_set_open(v, node, true);
    }
    return best != PROFILE_NONE ? best : node;
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
static const struct tree_row *cursor_row(const struct view *v)
{
    return &((const struct tree_priv *)v->priv)->lines[v->cursor];
}

/* Enter: open or close the node; on a hidden row, show the rows it
 * stands for (for that parent only: the thresholds stay). */
static bool tree_toggle(struct view *v, enum request req)
{
    struct tree_priv *tp = v->priv;
    const struct tree_row *l = cursor_row(v);

    (void)req;
    if (l->node == PROFILE_NONE) {
        uint32_t parent = l->parent == NO_LINE ? PROFILE_ROOT
                                               : tp->lines[l->parent].node;
        uint64_t key = profile_node_key(tree_prof(v), parent);
        ks_put(&tp->st, key, ks_get(&tp->st, key) | ST_REVEAL);
        ctx_message(v->ctx, false, "%u row%s under hide-subs %.1f%% shown "
                    "here; t or { } change it everywhere", l->nfolded,
                    l->nfolded == 1 ? "" : "s", v->ctx->hide_subs);
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
    const struct tree_row *l = cursor_row(v);

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
    const struct tree_row *l = cursor_row(v);

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

/* E: open the hottest path down from the cursor and go to its hottest
 * row by self time (open_hot_path). */
static bool tree_expand_hot(struct view *v, enum request req)
{
    uint32_t node = cursor_node(v);

    (void)req;
    if (node == PROFILE_NONE)
        return true;
    tree_show_node(v, open_hot_path(v, node));
    return true;
}

/* A row in the order e visits them: by self_heat, then walk order. */
struct heat_rank {
    uint32_t node;
    uint64_t heat;
    size_t order;
};

struct heat_ctx {
    struct view *v;
    struct heat_rank *r;
    size_t n, cap, rows;
};

static int heat_row(void *arg, const struct tree_row *row)
{
    struct heat_ctx *h = arg;
    uint64_t heat = row->node != PROFILE_NONE ? self_heat(h->v, row->node)
                                              : 0;

    h->rows++;
    if (!heat)
        return TREE_ON;
    if (VEC_RESERVE(h->r, h->cap, h->n + 1) < 0)
        return -1;
    h->r[h->n++] = (struct heat_rank){ row->node, heat, h->rows };
    return TREE_ON;
}

static int heat_cmp(const void *a, const void *b)
{
    const struct heat_rank *x = a, *y = b;

    if (x->heat != y->heat)
        return x->heat > y->heat ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* e: the row after the cursor's by self time, over every row the
 * thresholds show (opened to reach it), from the hottest again after
 * the last; from a row with no self time, the hottest. */
static bool tree_next_hot(struct view *v, enum request req)
{
    const struct profile *p = tree_prof(v);
    struct heat_ctx h = { .v = v };
    uint32_t from = cursor_node(v);
    size_t to = 0;

    (void)req;
    if (!p || tree_rows(v, ROWS_OPEN, heat_row, &h) < 0 || h.n == 0) {
        ctx_message(v->ctx, true, "no row with self time");
        free(h.r);
        return true;
    }
    sorted_sort(h.r, h.n, sizeof(*h.r), heat_cmp);
    for (size_t i = 0; i < h.n; i++)
        if (h.r[i].node == from)
            to = i + 1 < h.n ? i + 1 : 0;
    uint32_t node = h.r[to].node;
    double all = (double)profile_node(p, PROFILE_ROOT)->total;
    ctx_message(v->ctx, false, "by self time: %zu of %zu, %s %.1f%% "
                "(e: next)", to + 1, h.n,
                profile_frame(p, profile_node(p, node)->frame)->name,
                all > 0 ? 100.0 * (double)h.r[to].heat / all : 0.0);
    free(h.r);
    tree_reveal(v, node);
    tree_show_node(v, node);
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
    { REQ_NEXT_HOT, tree_next_hot, false },
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
    .needs_stacks = true,
};
