/* flat_view.c - the flat function table.
 *
 * See flat_view.h.  Rows are indexes into model->flat, so a refresh is a
 * filter and a sort; the cursor follows its function by frame id.
 */
#include "flat_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"
#include "sorted.h"

enum flat_col { FC_SELF, FC_SELF_PCT, FC_TOTAL, FC_TOTAL_PCT, FC_RSELF,
                FC_RTOTAL, FC_DSELF, FC_DTOTAL, FC_SIDE, FC_NAME, FC_MODULE };

/* The columns; those with a sort name are the orders 'o' cycles through,
 * from the first, among those shown.  The recent columns (py-spy top's
 * current shares beside its totals) show with a recent window, the
 * change columns with a baseline. */
static const struct view_col flat_cols[] = {
    { .id = FC_SELF, .title = "Self", .width = 8, .flags = DT_RIGHT,
      .sort = "self" },
    { .id = FC_SELF_PCT, .title = "Self%", .width = 6, .flags = DT_RIGHT },
    { .id = FC_TOTAL, .title = "Total", .width = 8, .flags = DT_RIGHT,
      .sort = "total" },
    { .id = FC_TOTAL_PCT, .title = "Total%", .width = 6, .flags = DT_RIGHT },
    /* r: the recent window's, d: the change from the baseline */
    { .id = FC_RSELF, .width = 6, .flags = DT_RIGHT, .sort = "rself" },
    { .id = FC_RTOTAL, .width = 6, .flags = DT_RIGHT, .sort = "rtotal" },
    { .id = FC_DSELF, .width = 6, .flags = DT_RIGHT, .sort = "dself" },
    { .id = FC_DTOTAL, .width = 6, .flags = DT_RIGHT, .sort = "dtotal" },
    { .id = FC_SIDE, .width = 1, .gap = 1 },
    { .id = FC_NAME, .title = "Function", .flags = DT_ELLIPSIS,
      .sort = "name" },
    { .id = FC_MODULE, .title = "Module",
      .flags = DT_ELLIPSIS | VIEW_COL_TAIL },
};

static bool flat_shown(struct view *v, int col)
{
    switch ((enum flat_col)col) {
    case FC_RSELF:
    case FC_RTOTAL:
        return view_recent(v);
    case FC_DSELF:
    case FC_DTOTAL:
    case FC_SIDE:
        return view_diff(v);
    case FC_SELF:
    case FC_SELF_PCT:
    case FC_TOTAL:
    case FC_TOTAL_PCT:
    case FC_NAME:
    case FC_MODULE:
        break;
    }
    return true;
}

static const char *flat_title(struct view *v, int col)
{
    static char recent[2][16];

    switch ((enum flat_col)col) {
    case FC_RSELF:
    case FC_RTOTAL:
        /* "5s S%", "5s T%": the window's length in the title. */
        snprintf(recent[col == FC_RTOTAL], sizeof(recent[0]), "%us %s",
                 v->ctx->scope->recent_s, col == FC_RSELF ? "S%" : "T%");
        return recent[col == FC_RTOTAL];
    case FC_DSELF:
        return COL_DELTA_TITLE(v, "\u0394Self%", "dSelf%");
    case FC_DTOTAL:
        return COL_DELTA_TITLE(v, "\u0394Tot%", "dTot%");
    case FC_SELF:
    case FC_SELF_PCT:
    case FC_TOTAL:
    case FC_TOTAL_PCT:
    case FC_SIDE:
    case FC_NAME:
    case FC_MODULE:
        break;
    }
    return NULL;
}

struct flat_priv {
    uint32_t *rows;       /* indexes into model->flat; NO_ROW: hidden row */
    size_t cap;
    struct view_sort sort;
    bool reveal;          /* list the hidden functions too (dimmed) */
};

#define NO_ROW UINT32_MAX

struct sort_arg {
    const struct model *m;
    enum flat_col by;
    bool reverse;
};

/* The recent or change figure of a row a column sorts by. */
static double derived(const struct model *m, enum flat_col by, uint32_t f)
{
    const struct profile_flat *r;
    struct model_delta d;

    if (by == FC_RSELF || by == FC_RTOTAL) {
        r = model_recent_of(m, f);
        return !r ? 0 : (double)(by == FC_RSELF ? r->self : r->total);
    }
    if (!model_delta_frame(m, f, &d))
        return 0;
    return by == FC_DSELF ? d.self : d.total;
}

static int flat_cmp(const void *a, const void *b, void *arg)
{
    const struct sort_arg *s = arg;
    const struct profile_flat *x = &s->m->flat[*(const uint32_t *)a];
    const struct profile_flat *y = &s->m->flat[*(const uint32_t *)b];
    const char *xn = model_frame_name(s->m, x->frame);
    const char *yn = model_frame_name(s->m, y->frame);
    int c = 0;

    switch (s->by) {
    case FC_RSELF:
    case FC_RTOTAL:
    case FC_DSELF:
    case FC_DTOTAL:
        c = view_cmp_desc(derived(s->m, s->by, x->frame),
                          derived(s->m, s->by, y->frame));
        if (!c)
            c = view_cmp_desc_u64(x->total, y->total);
        break;
    case FC_SELF:
        c = view_cmp_desc_u64(x->self, y->self);
        if (!c)
            c = view_cmp_desc_u64(x->total, y->total);
        break;
    case FC_TOTAL:
        c = view_cmp_desc_u64(x->total, y->total);
        if (!c)
            c = view_cmp_desc_u64(x->self, y->self);
        break;
    case FC_NAME:        /* by name, below */
    case FC_SELF_PCT:    /* not sort columns */
    case FC_TOTAL_PCT:
    case FC_SIDE:
    case FC_MODULE:
        break;
    }
    if (!c)
        c = strcmp(xn, yn);
    if (!c)
        c = x->frame < y->frame ? -1 : x->frame > y->frame;
    return s->reverse ? -c : c;
}

static void flat_refresh(struct view *v)
{
    struct flat_priv *fp = v->priv;
    const struct model *m = v->ctx->model;

    v->lines = 0;
    v->tail_want = 0;
    if (!m)
        return;
    if (VEC_RESERVE(fp->rows, fp->cap, m->nflat + 1) < 0)
        return;
    /* The order's column went away (no more baseline): back to self. */
    if (!flat_shown(v, flat_cols[fp->sort.col].id))
        fp->sort = (struct view_sort){ 0, false };
    size_t hidden = 0;
    for (size_t i = 0; i < m->nflat; i++) {
        const struct frame_desc *d = profile_frame(m->snap, m->flat[i].frame);
        if (!d || profile_frame_is_level(d))
            continue;
        if (m->hidden[m->flat[i].frame]) {
            hidden++;
            if (!fp->reveal)
                continue;
        }
        fp->rows[v->lines++] = (uint32_t)i;
        if (d->module) {
            int w = text_width(v->ctx->theme, d->module);
            if (w > v->tail_want)
                v->tail_want = w;
        }
    }
    struct sort_arg sa = { m, (enum flat_col)flat_cols[fp->sort.col].id,
                           fp->sort.reverse };
    if (v->lines > 1)
        sorted_sort_r(fp->rows, v->lines, sizeof(uint32_t), flat_cmp, &sa);
    if (hidden)
        fp->rows[v->lines++] = NO_ROW;
}

static void flat_cell(struct view *v, size_t line, int col,
                      struct view_cell *c)
{
    const struct flat_priv *fp = v->priv;
    const struct model *m = v->ctx->model;
    const struct theme *t = v->ctx->theme;

    if (fp->rows[line] == NO_ROW) {
        if (col != FC_NAME)
            return;
        cell_hidden_note(v, c, "", m->nhidden, fp->reveal);
        return;
    }
    const struct profile_flat *f = &m->flat[fp->rows[line]];
    const struct frame_desc *d = profile_frame(m->snap, f->frame);
    uint64_t n = col == FC_SELF || col == FC_SELF_PCT ? f->self : f->total;
    bool dim = m->hidden[f->frame];
    const struct profile_flat *r = model_recent_of(m, f->frame);

    switch ((enum flat_col)col) {
    case FC_RSELF:
    case FC_RTOTAL:
        cell_pct(v, c, !r ? 0 : (double)(col == FC_RSELF ? r->self : r->total),
                 (double)model_recent_total(m));
        break;
    case FC_DSELF:
    case FC_DTOTAL:
    case FC_SIDE:
        cell_frame_change(v, c, f->frame,
                          cell_change_of(col, FC_SIDE, FC_DSELF));
        break;
    case FC_SELF:
    case FC_TOTAL:
        cell_weight(v, c, n);
        break;
    case FC_SELF_PCT:
    case FC_TOTAL_PCT:
        cell_pct(v, c, (double)n, (double)m->total);
        break;
    case FC_NAME:
        cell_function(v, c, d, c->attr);
        break;
    case FC_MODULE:
        cell_module(v, c, d);
        break;
    }
    if (dim)
        c->attr = t->attr[UC_DIM];
}

/* Enter: the callers and callees of the row's function; on the hidden
 * row, list the hidden functions (dimmed) or hide them again. */
static bool flat_enter(struct view *v, enum request req)
{
    struct flat_priv *fp = v->priv;

    (void)req;
    if (fp->rows[v->cursor] != NO_ROW) {
        v->ctx->selected = v->ctx->model->flat[fp->rows[v->cursor]].frame;
        v->ctx->want_view = VIEW_CALLERS;
        return true;
    }
    fp->reveal = !fp->reveal;
    view_refresh(v);
    return true;
}

/* A search finds hidden functions too: when one matches, the hidden
 * functions are listed (dimmed, as Enter on the "… hidden" row does)
 * before the search runs over the lines. */
static bool flat_search(struct view *v, const regex_t *re, bool forward,
                        struct search_hit *hit)
{
    struct flat_priv *fp = v->priv;
    size_t hidden = fp->reveal ? 0 : view_hidden_matches(v, re);

    if (hidden) {
        fp->reveal = true;
        view_refresh(v);
        snprintf(hit->note, sizeof(hit->note), "%zu w%s hidden: listed, "
                 "dimmed", hidden, hidden == 1 ? "as" : "ere");
    }
    return view_search_lines(v, re, forward, hit);
}

static const struct view_action flat_actions[] = {
    { REQ_ENTER, flat_enter, true },
    { REQ_NONE, NULL, false },
};

static uint32_t flat_line_frame(struct view *v, size_t line)
{
    const struct flat_priv *fp = v->priv;

    if (fp->rows[line] == NO_ROW)
        return PROFILE_NONE;
    return v->ctx->model->flat[fp->rows[line]].frame;
}

static uint64_t flat_line_key(struct view *v, size_t line)
{
    uint32_t f = flat_line_frame(v, line);

    return f == PROFILE_NONE ? UINT64_MAX : f;
}

static const char *flat_info(struct view *v, char *buf, size_t n)
{
    const struct flat_priv *fp = v->priv;

    snprintf(buf, n, "sort: %s%s", flat_cols[fp->sort.col].sort,
             fp->sort.reverse ? " (rev)" : "");
    return buf;
}

static struct view_sort *flat_sort(struct view *v)
{
    return &((struct flat_priv *)v->priv)->sort;
}

static void flat_close(struct view *v)
{
    free(((struct flat_priv *)v->priv)->rows);
}

const struct view_ops flat_view_ops = {
    .name = "Flat", .priv_size = sizeof(struct flat_priv),
    .refresh = flat_refresh, .close = flat_close,
    VIEW_COLUMNS(flat_cols), .cell = flat_cell, .sort = flat_sort,
    .search = flat_search,
    .title = flat_title, .shown = flat_shown,
    .actions = flat_actions,
    .line_key = flat_line_key, .line_frame = flat_line_frame,
    .info = flat_info,
};
