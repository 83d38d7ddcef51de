/* flame_view.c - the icicle; see flame_view.h.
 *
 * refresh lays the frames out as boxes with the model's tree walker
 * (tree_walk.h) from the zoomed frame: each box knows its node, its
 * depth below the zoom, its parent box and its columns.  A box starts
 * at its samples' offset from the zoomed frame's left edge (the walk's
 * row offset), scaled to the width, and ends where the next sample
 * offset falls, so siblings tile their parent exactly and a frame's
 * width is proportional to its samples (to one column).  Frames under
 * one column, or folded by the hide-subs rule the tree view uses, are
 * left out with their subtrees.  The boxes are then put row by row,
 * left to right (breadth first), and are the view's lines: the cursor,
 * its key across refreshes, search and n/N are the generic ones.
 *
 * The zoom is kept as the path of frame ids from the root, so a refresh
 * with new data keeps it; zooms nest (Enter zooms into a frame shown, a
 * descendant), so zooming out is going up to a remembered depth.
 */
#include "flame_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree_walk.h"
#include "vec.h"

#define NO_BOX TREE_NO_ROW  /* the walk numbers boxes as its rows */
#define FLAME_HISTORY 64

/* A frame as laid out. */
struct box {
    uint32_t node;     /* node of model->tree */
    uint32_t parent;   /* parent box, NO_BOX for the zoomed frame */
    uint32_t depth;    /* rows below the zoomed frame */
    uint64_t offset;   /* samples left of it, from the zoomed frame's edge */
    int x, w;          /* columns */
};

/* Where to go back to on Backspace. */
struct zoom_back {
    uint32_t depth;    /* the zoom's depth in the tree then */
    uint64_t cursor;   /* the cursor's node key then */
    uint32_t top;      /* the first row shown then */
};

struct flame_priv {
    struct box *boxes;
    size_t cap;
    uint32_t *path;          /* the zoomed frame: frame ids from the root */
    size_t npath, path_cap;
    struct zoom_back back[FLAME_HISTORY];
    size_t nback;
    uint32_t zoom;           /* the zoomed node, as resolved by refresh */
    uint32_t top;            /* first depth on screen */
    int width;               /* columns the layout was made for */
    bool by_heat;            /* colour by share, else by module */
    uint8_t *module_fill;    /* frame id -> fills[] index of its module */
    size_t module_fill_cap;
    uint32_t nmodule_fill;   /* frames it covers */
};

static const struct model *model_of(const struct view *v)
{
    return v->ctx->model;
}

/* The zoomed node: the path followed as far as the tree still has it. */
static uint32_t resolve_zoom(struct view *v)
{
    struct flame_priv *fp = v->priv;
    const struct profile *t = model_of(v)->tree;
    uint32_t node = PROFILE_ROOT;

    for (size_t i = 0; i < fp->npath; i++) {
        uint32_t c = profile_child(t, node, fp->path[i]);

        if (c == PROFILE_NONE || profile_node(t, c)->total == 0) {
            fp->npath = i;  /* gone from the data: stop above it */
            break;
        }
        node = c;
    }
    return node;
}

/* The columns of a box of `samples` at `offset`, scaled so the zoomed
 * frame's `all` samples fill `width`. */
static void place(struct box *b, uint64_t samples, uint64_t all, int width)
{
    double scale = all ? (double)width / (double)all : 0;

    b->x = (int)((double)b->offset * scale);
    b->w = (int)((double)(b->offset + samples) * scale) - b->x;
}

/* What the icicle leaves out: empty frames, and those the hide-subs
 * rule folds in the tree view. */
static enum tree_keep flame_keep(void *arg, uint32_t node)
{
    const struct view *v = arg;
    const struct model *m = model_of(v);

    return profile_node(m->tree, node)->total == 0 ||
                   model_node_hidden(m, node, v->ctx->hide_subs)
               ? TREE_SKIP : TREE_SHOW;
}

struct layout {
    struct view *v;
    uint64_t all;       /* the zoomed frame's samples */
};

/* A row of the walk as a box, unless it is under one column (then
 * neither are its children). */
static int add_box(void *arg, const struct tree_row *row)
{
    struct layout *l = arg;
    struct flame_priv *fp = l->v->priv;
    const struct profile *t = model_of(l->v)->tree;
    struct box b = { .node = row->node, .parent = row->parent,
                     .depth = row->level, .offset = row->offset };

    /* The zoomed frame takes the whole width (no rounding). */
    if (row->level == 0)
        b.w = fp->width;
    else
        place(&b, profile_node(t, row->node)->total, l->all, fp->width);
    if (b.w < 1)
        return TREE_DROP;
    if (VEC_RESERVE(fp->boxes, fp->cap, l->v->lines + 1) < 0)
        return -1;
    fp->boxes[l->v->lines++] = b;
    return TREE_ON;
}

/* Boxes come from the walk depth first; the view wants them row by
 * row, left to right: a stable sort by depth (depth first already has
 * each row left to right), the parents renumbered.  0, or -1 on OOM. */
static int rows_first(struct view *v)
{
    struct flame_priv *fp = v->priv;
    size_t n = v->lines, at = 0;
    uint32_t maxd = 0, *where = malloc((n ? n : 1) * sizeof(*where));
    struct box *out = malloc((n ? n : 1) * sizeof(*out));

    if (!where || !out) {
        free(where);
        free(out);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (fp->boxes[i].depth > maxd)
            maxd = fp->boxes[i].depth;
    for (uint32_t d = 0; d <= maxd; d++)
        for (size_t i = 0; i < n; i++)
            if (fp->boxes[i].depth == d) {
                where[i] = (uint32_t)at;
                out[at++] = fp->boxes[i];
            }
    for (size_t i = 0; i < n; i++)
        if (out[i].parent != NO_BOX)
            out[i].parent = where[out[i].parent];
    memcpy(fp->boxes, out, n * sizeof(*out));
    free(where);
    free(out);
    return 0;
}

static void flame_layout(struct view *v)
{
    struct flame_priv *fp = v->priv;
    const struct model *m = model_of(v);

    v->lines = 0;
    if (!m || !profile_node(m->tree, PROFILE_ROOT)->total)
        return;
    fp->zoom = resolve_zoom(v);
    struct layout l = { v, profile_node(m->tree, fp->zoom)->total };
    const struct tree_walk w = {
        .tree = m->tree, .start = fp->zoom, .with_start = true,
        .cmp = model_node_cmp, .cmp_arg = (void *)m, .keep = flame_keep,
        .arg = v,
    };

    if (tree_walk(&w, add_box, &l) < 0 || rows_first(v) < 0)
        ctx_message(v->ctx, true, "out of memory laying out the flame graph");
}

/* Module colours: the modules in the order the profile first met them
 * (frame ids never change, so neither do the colours), a fill each,
 * cycling through the four calm ones. */
static void color_modules(struct view *v)
{
    struct flame_priv *fp = v->priv;
    const struct profile *t = v->ctx->model ? v->ctx->model->tree : NULL;
    uint32_t n = t ? profile_frame_count(t) : 0;
    const char *seen[4] = { 0 };
    uint32_t nseen = 0;

    fp->nmodule_fill = 0;
    if (!n || VEC_RESERVE(fp->module_fill, fp->module_fill_cap, n) < 0)
        return;
    for (uint32_t f = 0; f < n; f++) {
        const char *m = profile_frame(t, f)->module;
        uint32_t k = 0;

        /* Strings are interned: one module, one pointer.  Past four
         * modules the fills repeat, by the module's rank. */
        while (k < nseen && k < 4 && seen[k] != m)
            k++;
        if (k == nseen) {
            if (nseen < 4)
                seen[nseen] = m;
            nseen++;
        }
        fp->module_fill[f] = (uint8_t)(k % 4);
    }
    fp->nmodule_fill = n;
}

static void flame_refresh(struct view *v)
{
    struct flame_priv *fp = v->priv;

    if (fp->width <= 0)
        fp->width = COLS > 0 ? COLS : 80;
    color_modules(v);
    flame_layout(v);
}

static const struct box *cursor_box(const struct view *v)
{
    const struct flame_priv *fp = v->priv;

    return v->lines ? &fp->boxes[v->cursor] : NULL;
}

static uint64_t flame_line_key(struct view *v, size_t line)
{
    const struct flame_priv *fp = v->priv;

    return profile_node_key(model_of(v)->tree, fp->boxes[line].node);
}

static uint32_t flame_line_frame(struct view *v, size_t line)
{
    const struct flame_priv *fp = v->priv;
    const struct profile *t = model_of(v)->tree;
    uint32_t node = fp->boxes[line].node;

    if (node == PROFILE_ROOT)
        return PROFILE_NONE;
    uint32_t f = profile_node(t, node)->frame;
    return profile_frame_is_level(profile_frame(t, f)) ? PROFILE_NONE : f;
}

/* A process box stands for its process (f limits the views to it). */
static int64_t flame_line_process(struct view *v, size_t line)
{
    const struct flame_priv *fp = v->priv;

    return model_node_pid(model_of(v), fp->boxes[line].node);
}

/* A box's label: the frame's (view_frame_label), into buf. */
static const char *box_name(const struct view *v, const struct box *b,
                            char *buf, size_t n)
{
    const struct profile *t = model_of(v)->tree;

    if (b->node == PROFILE_ROOT)
        return "all";
    return view_frame_label(profile_frame(t, profile_node(t, b->node)->frame),
                            buf, n);
}

static bool fp_by_heat(const struct view *v)
{
    return ((const struct flame_priv *)v->priv)->by_heat;
}

/* The fills: module colours cycle through these, heat climbs them. */
static const enum ui_color fills[] = { UC_FL0, UC_FL1, UC_FL2, UC_FL3,
                                       UC_FL4, UC_FL5 };

static attr_t box_attr(const struct view *v, const struct box *b)
{
    const struct theme *t = v->ctx->theme;
    const struct model *m = model_of(v);
    const struct profile *tree = m->tree;
    const struct profile_node *n = profile_node(tree, b->node);
    const struct frame_desc *d =
        b->node == PROFILE_ROOT ? NULL : profile_frame(tree, n->frame);
    struct model_delta delta;

    if (v->ctx->search && d && !profile_frame_is_level(d) &&
        regexec(v->ctx->search, d->name, 0, NULL, 0) == 0)
        return t->attr[UC_MATCH];
    if (view_diff(v) && model_delta_node(m, b->node, &delta))
        return t->attr[delta.total >= 0.05 ? UC_FL5
                       : delta.total <= -0.05 ? UC_FL3 : UC_FL4];
    if (d && profile_frame_is_reason(d))
        return t->attr[UC_FL3];
    if (!d || d->kind != FRAME_FUNC)
        return t->attr[UC_FL4];
    /* kernel functions apart, in either colouring */
    if (profile_frame_is_kernel(d))
        return t->attr[UC_FLK];
    if (fp_by_heat(v)) {
        double share = (double)n->total /
                       (double)profile_node(tree, PROFILE_ROOT)->total;
        return t->attr[share >= 0.25 ? UC_FL5 : share >= 0.05 ? UC_FL0
                       : share >= 0.01 ? UC_FL1 : UC_FL2];
    }
    /* Module colours (color_modules), never the alarm red. */
    const struct flame_priv *fp = v->priv;
    return t->attr[fills[n->frame < fp->nmodule_fill
                             ? fp->module_fill[n->frame] : 0]];
}

/* A frame: its name clipped into all but the last column, which holds
 * the edge mark in the plain colours, so neighbours stay apart in any
 * colours (and in a screen dump).  The cursor's frame is its fill
 * reversed and bold. */
static void draw_box(struct view *v, const struct box *b, int y, bool cur)
{
    const struct theme *t = v->ctx->theme;
    attr_t a = box_attr(v, b);

    if (cur)
        a = (a ^ A_REVERSE) | A_BOLD;
    char name[512];
    if (b->w > 1)
        draw_text(t, y, b->x, b->w - 1, box_name(v, b, name, sizeof(name)), a,
                  DT_PAD);
    draw_text(t, y, b->x + b->w - 1, 1, t->g.edge, t->attr[UC_NORMAL], 0);
}

/* The title row: the frame under the cursor, its share, the zoom. */
static void draw_title(struct view *v, int y, int width)
{
    struct flame_priv *fp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct profile *tree = model_of(v)->tree;
    const struct box *b = cursor_box(v);
    char left[1100], right[600] = "", name[512];

    draw_text(t, y, 0, width, "", t->attr[UC_COLHDR], DT_PAD);
    if (!b)
        return;
    const struct profile_node *n = profile_node(tree, b->node);
    uint64_t all = profile_node(tree, PROFILE_ROOT)->total;
    snprintf(left, sizeof(left), "%s: %llu samples, %.1f%%",
             box_name(v, b, name, sizeof(name)),
             (unsigned long long)profile_weight_count(tree, n->total),
             all ? 100.0 * (double)n->total / (double)all : 0.0);
    if (fp->zoom != PROFILE_ROOT)
        snprintf(right, sizeof(right), "zoom: %s (Backspace: out)",
                 box_name(v, &fp->boxes[0], name, sizeof(name)));
    int rw = text_width(t, right);
    if (rw && rw + 4 < width / 2)
        draw_text(t, y, width - rw - 1, rw, right, t->attr[UC_COLHDR], 0);
    else
        rw = -2;
    draw_text(t, y, 1, width - rw - 4, left, t->attr[UC_COLHDR], DT_ELLIPSIS);
}

static void flame_draw(struct view *v, int header_y, int top, int height,
                       int width)
{
    struct flame_priv *fp = v->priv;
    const struct theme *t = v->ctx->theme;

    if (width != fp->width) {
        /* A new width: lay out again, the cursor on the same frame. */
        uint64_t key = v->lines ? flame_line_key(v, v->cursor) : 0;
        bool had = v->lines > 0;

        fp->width = width;
        flame_layout(v);
        size_t at = had ? view_find_key(v, key) : SIZE_MAX;
        v->cursor = at != SIZE_MAX ? at : 0;
    }
    if (header_y >= 0)
        draw_title(v, header_y, width);
    if (!v->lines) {
        if (height > 0)
            draw_text(t, top, 2, width - 2, "no samples", t->attr[UC_DIM], 0);
        return;
    }
    if (v->cursor >= v->lines)
        v->cursor = v->lines - 1;
    /* Scroll the rows so the cursor's depth is on screen. */
    uint32_t d = fp->boxes[v->cursor].depth;
    uint32_t h = height > 0 ? (uint32_t)height : 1;
    if (d < fp->top)
        fp->top = d;
    if (d >= fp->top + h)
        fp->top = d - h + 1;
    for (size_t i = 0; i < v->lines; i++) {
        const struct box *b = &fp->boxes[i];

        if (b->depth >= fp->top && b->depth < fp->top + h)
            draw_box(v, b, top + (int)(b->depth - fp->top), i == v->cursor);
    }
}

/* Up: the parent frame (above the zoom: nothing). */
static bool flame_up(struct view *v, enum request req)
{
    const struct box *b = cursor_box(v);

    (void)req;
    if (b->parent != NO_BOX)
        view_goto(v, b->parent);
    return true;
}

/* Down: the hottest child shown. */
static bool flame_down(struct view *v, enum request req)
{
    const struct flame_priv *fp = v->priv;

    (void)req;
    for (size_t i = v->cursor + 1; i < v->lines; i++)
        if (fp->boxes[i].parent == v->cursor) {
            view_goto(v, i);
            break;
        }
    return true;
}

/* Left and Right: the neighbour on the same row. */
static bool flame_side(struct view *v, enum request req)
{
    const struct flame_priv *fp = v->priv;
    uint32_t d = fp->boxes[v->cursor].depth;

    if (req == REQ_COLLAPSE && v->cursor > 0 &&
        fp->boxes[v->cursor - 1].depth == d)
        view_goto(v, v->cursor - 1);
    else if (req == REQ_EXPAND && v->cursor + 1 < v->lines &&
             fp->boxes[v->cursor + 1].depth == d)
        view_goto(v, v->cursor + 1);
    return true;
}

/* The path of frames from the root to node, as the zoom. */
static int set_zoom(struct view *v, uint32_t node)
{
    struct flame_priv *fp = v->priv;
    const struct profile *t = model_of(v)->tree;
    uint32_t depth = profile_node(t, node)->depth;

    if (VEC_RESERVE(fp->path, fp->path_cap, depth + 1) < 0)
        return -1;
    fp->npath = depth;
    for (uint32_t n = node; n != PROFILE_ROOT; n = profile_node(t, n)->parent)
        fp->path[profile_node(t, n)->depth - 1] = profile_node(t, n)->frame;
    return 0;
}

/* Enter: zoom into the frame under the cursor. */
static bool flame_zoom(struct view *v, enum request req)
{
    struct flame_priv *fp = v->priv;
    const struct box *b = cursor_box(v);
    uint64_t key = flame_line_key(v, v->cursor);
    uint32_t depth = (uint32_t)fp->npath;

    (void)req;
    if (b->node == fp->zoom) {
        char name[512];
        ctx_message(v->ctx, false, "zoomed on %s already",
                    box_name(v, b, name, sizeof(name)));
        return true;
    }
    if (set_zoom(v, b->node) < 0)
        return true;
    *(struct zoom_back *)view_history_push(fp->back, &fp->nback,
                                           FLAME_HISTORY, sizeof(fp->back[0])) =
        (struct zoom_back){ depth, key, fp->top };
    fp->top = 0;
    view_refresh(v);
    view_goto(v, 0);
    return true;
}

/* Backspace: back to the zoom before, the cursor where it was. */
static bool flame_unzoom(struct view *v, enum request req)
{
    struct flame_priv *fp = v->priv;
    const struct zoom_back *back = view_history_pop(v, fp->back, &fp->nback,
                                                    sizeof(fp->back[0]),
                                                    "not zoomed");

    (void)req;
    if (!back)
        return true;
    struct zoom_back z = *back;
    if (z.depth < fp->npath)
        fp->npath = z.depth;
    fp->top = z.top;
    view_refresh(v);
    size_t at = view_find_key(v, z.cursor);
    view_goto(v, at != SIZE_MAX ? at : 0);
    return true;
}

static bool flame_color(struct view *v, enum request req)
{
    struct flame_priv *fp = v->priv;

    (void)req;
    fp->by_heat = !fp->by_heat;
    ctx_message(v->ctx, false, "flame graph coloured by %s%s",
                fp->by_heat ? "heat" : "module",
                view_diff(v) ? " (change from the baseline: D hides it)" : "");
    return true;
}

/* I: the bottom-up tree as an icicle (callers below), and back; the
 * zoom's path means nothing in the other tree. */
static bool flame_invert(struct view *v, enum request req)
{
    struct flame_priv *fp = v->priv;

    (void)req;
    fp->npath = 0;
    fp->nback = 0;
    fp->top = 0;
    v->ctx->filter.inverted = !v->ctx->filter.inverted;
    v->ctx->want_model = true;
    ctx_message(v->ctx, false, "%s flame graph",
                v->ctx->filter.inverted ? "bottom-up (callers below)"
                                        : "top-down");
    return true;
}

static const struct view_action flame_actions[] = {
    { REQ_INVERT, flame_invert, false },
    { REQ_MOVE_UP, flame_up, true },
    { REQ_MOVE_DOWN, flame_down, true },
    { REQ_COLLAPSE, flame_side, true },
    { REQ_EXPAND, flame_side, true },
    { REQ_ENTER, flame_zoom, true },
    { REQ_BACK, flame_unzoom, false },
    { REQ_FLAME_COLOR, flame_color, false },
    { REQ_NONE, NULL, false },
};

static const char *flame_info(struct view *v, char *buf, size_t n)
{
    /* Bottom-up first: it changes what the rows mean. */
    snprintf(buf, n, "%s", v->ctx->filter.inverted ? "bottom-up"
                           : view_diff(v) ? "by change"
                           : fp_by_heat(v) ? "by heat" : "by module");
    return buf;
}

static void flame_close(struct view *v)
{
    struct flame_priv *fp = v->priv;

    free(fp->boxes);
    free(fp->path);
    free(fp->module_fill);
}

const struct view_ops flame_view_ops = {
    .name = "Flame", .priv_size = sizeof(struct flame_priv),
    .refresh = flame_refresh, .close = flame_close, .draw = flame_draw,
    .actions = flame_actions,
    .line_key = flame_line_key, .line_frame = flame_line_frame,
    .line_process = flame_line_process,
    .info = flame_info,
    .needs_stacks = true,
};
