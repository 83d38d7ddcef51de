/* callers_view.c - the caller/callee (butterfly) view.
 *
 * See callers_view.h.  Edges come from model->edges (profile_edges), whose
 * Racket times divide each sample by the selected function's occurrences
 * in the stack, so Local% stays at most 100% under recursion.
 */
#include "callers_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"
#include "sorted.h"

enum cc_kind { CC_TITLE_CALLERS, CC_CALLER, CC_SELF, CC_TITLE_CALLEES,
               CC_CALLEE, CC_HIDDEN_CALLERS, CC_HIDDEN_CALLEES };

struct cc_row {
    enum cc_kind kind;
    uint32_t frame;       /* the caller/callee/selected function */
    uint64_t samples;     /* edge samples (or the function's total) */
    double time;          /* Racket edge time */
    uint32_t count;       /* titles: rows in the section; hidden: count */
    uint32_t hidden;      /* titles: rows the thresholds hide */
};

/* Navigation history for Backspace; older entries fall off the end. */
#define CC_HISTORY 64

struct cc_priv {
    struct cc_row *rows;
    size_t cap;
    uint32_t shown;              /* function of the last refresh */
    uint32_t reveal;             /* function whose hidden callers and
                                    callees are listed, PROFILE_NONE */
    uint32_t history[CC_HISTORY];
    size_t nhistory;
    struct view_sort sort;       /* within each section: by Local% time, or
                                    by the change from a baseline */
};

static int cc_push(struct view *v, struct cc_row r)
{
    struct cc_priv *cp = v->priv;

    if (VEC_RESERVE(cp->rows, cp->cap, v->lines + 1) < 0)
        return -1;
    cp->rows[v->lines++] = r;
    return 0;
}

enum cc_col { CCOL_SAMPLES, CCOL_LOCAL_PCT, CCOL_TOTAL_PCT, CCOL_SELF_PCT,
              CCOL_DTOTAL, CCOL_DSELF, CCOL_SIDE, CCOL_FUNCTION, CCOL_MODULE };

/* The change columns (each row's function's, as Total% and Self% are)
 * show with a baseline only; o sorts each section by Local% (the edge's
 * time) or by them. */
static const struct view_col cc_cols[] = {
    { .id = CCOL_SAMPLES, .title = "Samples", .width = 8, .flags = DT_RIGHT },
    { .id = CCOL_LOCAL_PCT, .title = "Local%", .width = 6, .flags = DT_RIGHT,
      .sort = "local" },
    { .id = CCOL_TOTAL_PCT, .title = "Total%", .width = 6, .flags = DT_RIGHT },
    { .id = CCOL_SELF_PCT, .title = "Self%", .width = 6, .flags = DT_RIGHT },
    { .id = CCOL_DTOTAL, .width = 6, .flags = DT_RIGHT, .sort = "dtotal" },
    { .id = CCOL_DSELF, .width = 6, .flags = DT_RIGHT, .sort = "dself" },
    { .id = CCOL_SIDE, .width = 1, .gap = 1 },
    { .id = CCOL_FUNCTION, .title = "Function", .flags = DT_ELLIPSIS },
    { .id = CCOL_MODULE, .flags = DT_ELLIPSIS | VIEW_COL_TAIL },
};

static bool cc_shown(struct view *v, int col)
{
    return (col != CCOL_DTOTAL && col != CCOL_DSELF && col != CCOL_SIDE) ||
           view_diff(v);
}

struct sort_arg {
    const struct model *m;
    int by;                      /* cc_col */
    bool reverse;
};

/* A row's change of share for the change sorts. */
static double row_delta(const struct sort_arg *s, const struct cc_row *r)
{
    struct model_delta d;

    if (!model_delta_frame(s->m, r->frame, &d))
        return 0;
    return s->by == CCOL_DSELF ? d.self : d.total;
}

static int row_cmp(const void *a, const void *b, void *arg)
{
    const struct sort_arg *s = arg;
    const struct cc_row *x = a, *y = b;
    double xv = x->time, yv = y->time;
    int c;

    if (s->by == CCOL_DTOTAL || s->by == CCOL_DSELF) {
        xv = row_delta(s, x);
        yv = row_delta(s, y);
    }
    c = view_cmp_desc(xv, yv);
    if (!c)
        c = strcmp(model_frame_name(s->m, x->frame),
                   model_frame_name(s->m, y->frame));
    return s->reverse ? -c : c;
}

/* Append one section: the edges into (callers) or out of (callees) f. */
static void add_section(struct view *v, uint32_t f, bool callers)
{
    struct cc_priv *cp = v->priv;
    const struct model *m = v->ctx->model;
    size_t title = v->lines, first;
    uint32_t hidden = 0;

    cc_push(v, (struct cc_row){ .kind = callers ? CC_TITLE_CALLERS
                                                : CC_TITLE_CALLEES,
                                .frame = f });
    first = v->lines;
    for (size_t i = 0; i < m->nedges; i++) {
        const struct profile_edge *e = &m->edges[i];
        uint32_t other = callers ? e->caller : e->callee;
        if ((callers ? e->callee : e->caller) != f || other == PROFILE_NONE)
            continue;
        if (m->hidden[other]) {
            hidden++;
            if (cp->reveal != f)
                continue;
        }
        cc_push(v, (struct cc_row){ .kind = callers ? CC_CALLER : CC_CALLEE,
                                    .frame = other, .samples = e->samples,
                                    .time = callers ? e->caller_time
                                                    : e->callee_time });
    }
    /* The order's column went away (no more baseline): by Local%. */
    if (!cc_shown(v, cc_cols[cp->sort.col].id))
        cp->sort = (struct view_sort){
            columns_next_sort(cc_cols, sizeof(cc_cols) / sizeof(cc_cols[0]),
                              sizeof(cc_cols) / sizeof(cc_cols[0]) - 1),
            false };
    struct sort_arg sa = { m, cc_cols[cp->sort.col].id, cp->sort.reverse };
    if (v->lines > first)
        sorted_sort_r(cp->rows + first, v->lines - first,
                      sizeof(struct cc_row), row_cmp, &sa);
    if (title < v->lines) {
        cp->rows[title].count = (uint32_t)(v->lines - first);
        cp->rows[title].hidden = cp->reveal == f ? 0 : hidden;
    }
    if (hidden)
        cc_push(v, (struct cc_row){ .kind = callers ? CC_HIDDEN_CALLERS
                                                    : CC_HIDDEN_CALLEES,
                                    .frame = f, .count = hidden });
}

static size_t self_row(const struct view *v)
{
    const struct cc_priv *cp = v->priv;

    for (size_t i = 0; i < v->lines; i++)
        if (cp->rows[i].kind == CC_SELF)
            return i;
    return 0;
}

static void cc_refresh(struct view *v)
{
    struct cc_priv *cp = v->priv;
    const struct model *m = v->ctx->model;
    uint32_t f = view_selected(v);

    v->lines = 0;
    v->tail_want = 0;
    if (f == PROFILE_NONE)
        return;

    const struct profile_flat *fl = model_flat_of(m, f);
    add_section(v, f, true);
    cc_push(v, (struct cc_row){ .kind = CC_SELF, .frame = f,
                                .samples = fl->total, .time = (double)fl->total });
    add_section(v, f, false);

    for (size_t i = 0; i < v->lines; i++) {
        const struct frame_desc *d = profile_frame(m->snap, cp->rows[i].frame);
        if (d && d->module) {
            int w = text_width(v->ctx->theme, d->module);
            if (w > v->tail_want)
                v->tail_want = w;
        }
    }
}

static const char *cc_title(struct view *v, int col)
{
    if (col == CCOL_DTOTAL)
        return COL_DELTA_TITLE(v, "\u0394Tot%", "dTot%");
    if (col == CCOL_DSELF)
        return COL_DELTA_TITLE(v, "\u0394Self%", "dSelf%");
    return NULL;
}

/* A section title ("Callers of f: 3", across the row) or the count of
 * hidden callers or callees (in the function column). */
static void note_cell(struct view *v, const struct cc_row *r,
                      const char *name, int col, struct view_cell *c)
{
    const struct theme *t = v->ctx->theme;
    bool title = r->kind == CC_TITLE_CALLERS || r->kind == CC_TITLE_CALLEES;

    if (col != (title ? CCOL_SAMPLES : CCOL_FUNCTION))
        return;
    if (!title) {
        cell_hidden_note(v, c, "  ", r->count,
                         ((const struct cc_priv *)v->priv)->reveal == r->frame);
        return;
    }
    if (r->hidden)
        cell_printf(c, "%s of %s: %u shown, %u hidden",
                    r->kind == CC_TITLE_CALLERS ? "Callers" : "Callees",
                    name, r->count, r->hidden);
    else
        cell_printf(c, "%s of %s: %u",
                    r->kind == CC_TITLE_CALLERS ? "Callers" : "Callees",
                    name, r->count);
    c->attr = t->attr[UC_LABEL];
    c->span = true;
}

/* "of X's time" (or "of all samples" for the stack bottom). */
static const char *share_of(const struct model *m, uint32_t other, char *buf,
                            size_t n)
{
    if (other == PROFILE_NONE)
        snprintf(buf, n, "of all samples");
    else
        snprintf(buf, n, "of %s's time", model_frame_name(m, other));
    return buf;
}

/* " (…)": why the one hide rule (model_why) shows a row that this
 * pane's own edge would not (its Local% is under hide-subs: its self
 * time, or its share of another function's time elsewhere), or hides a
 * row the pane lists dimmed (its self and its largest share); "" when
 * the row's Local% says it already. */
static const char *why_note(const struct view *v, const struct cc_row *r,
                            char *buf, size_t n)
{
    const struct model *m = v->ctx->model;
    const struct profile_flat *sel = model_flat_of(m, v->ctx->selected);
    struct model_why w;
    bool hidden = m->hidden[r->frame];
    char of[200];

    buf[0] = '\0';
    if (!sel || !sel->total || !model_why(m, r->frame, &w) ||
        (!hidden && 100.0 * r->time > v->ctx->hide_subs * (double)sel->total))
        return buf;
    bool by_caller = w.of_caller > w.of_callee;
    uint32_t other = by_caller ? w.caller : w.callee;
    double share = 100 * (by_caller ? w.of_caller : w.of_callee);
    /* as the Self% column has it (fmt_pct), to the same rounding */
    double self = 100.0 * (double)model_flat_of(m, r->frame)->self /
                  (double)m->total;
    bool any = by_caller || w.callee != PROFILE_NONE;

    if (hidden && any)
        snprintf(buf, n, " (self %.1f%%; at most %.1f%% %s)", self, share,
                 share_of(m, other, of, sizeof(of)));
    else if (hidden || self > v->ctx->hide_self || self > v->ctx->hide_subs)
        snprintf(buf, n, " (self %.1f%%)", self);
    else
        snprintf(buf, n, " (%.1f%% %s)", share,
                 share_of(m, other, of, sizeof(of)));
    return buf;
}

static void cc_cell(struct view *v, size_t line, int col, struct view_cell *c)
{
    const struct cc_priv *cp = v->priv;
    const struct model *m = v->ctx->model;
    const struct theme *t = v->ctx->theme;
    const struct cc_row *r = &cp->rows[line];
    const struct frame_desc *d = profile_frame(m->snap, r->frame);
    const struct profile_flat *fl = model_flat_of(m, r->frame);
    const struct profile_flat *sel = model_flat_of(m, v->ctx->selected);

    if (r->kind != CC_CALLER && r->kind != CC_CALLEE && r->kind != CC_SELF) {
        note_cell(v, r, d->name, col, c);
        return;
    }
    switch ((enum cc_col)col) {
    case CCOL_DTOTAL:
    case CCOL_DSELF:
    case CCOL_SIDE:
        cell_frame_change(v, c, r->frame,
                          cell_change_of(col, CCOL_SIDE, CCOL_DSELF));
        break;
    case CCOL_SAMPLES:
        cell_weight(v, c, r->samples);
        break;
    case CCOL_LOCAL_PCT:
        if (r->kind != CC_SELF && sel && sel->total > 0)
            cell_pct(v, c, r->time, (double)sel->total);
        break;
    case CCOL_TOTAL_PCT:
        if (fl)
            cell_pct(v, c, (double)fl->total, (double)m->total);
        break;
    case CCOL_SELF_PCT:
        if (fl)
            cell_pct(v, c, (double)fl->self, (double)m->total);
        break;
    case CCOL_FUNCTION:
        if (r->kind == CC_SELF) {
            cell_function(v, c, d, t->attr[UC_VALUE]);
            break;
        }
        char name[512], why[300];
        cell_printf(c, "  %s %s%s", r->kind == CC_CALLER ? t->g.up : t->g.down,
                    view_frame_label(d, name, sizeof(name)),
                    why_note(v, r, why, sizeof(why)));
        c->attr = view_frame_attr(v, d, c->attr);
        break;
    case CCOL_MODULE:
        cell_module(v, c, d);
        break;
    }
    if (r->kind != CC_SELF && m->hidden[r->frame])
        c->attr = t->attr[UC_DIM];
}

static uint32_t cc_line_frame(struct view *v, size_t line)
{
    const struct cc_priv *cp = v->priv;
    const struct cc_row *r = &cp->rows[line];

    return r->kind == CC_CALLER || r->kind == CC_CALLEE || r->kind == CC_SELF
               ? r->frame : PROFILE_NONE;
}

static uint64_t cc_line_key(struct view *v, size_t line)
{
    const struct cc_priv *cp = v->priv;
    const struct cc_row *r = &cp->rows[line];

    return (uint64_t)r->kind << 32 | r->frame;
}

/* Show ctx->selected with the cursor on its row. */
static void cc_show_selected(struct view *v)
{
    view_refresh(v);
    view_goto(v, self_row(v));
}

/* Enter on a caller or callee: it becomes the selected function.  On a
 * hidden row: list what the thresholds hide around this function
 * (dimmed), or hide it again. */
static bool cc_follow(struct view *v, enum request req)
{
    struct cc_priv *cp = v->priv;

    (void)req;
    if (!v->lines)
        return true;
    const struct cc_row *r = &cp->rows[v->cursor];
    if (r->kind == CC_HIDDEN_CALLERS || r->kind == CC_HIDDEN_CALLEES) {
        cp->reveal = cp->reveal == r->frame ? PROFILE_NONE : r->frame;
        view_refresh(v);
        return true;
    }
    if (r->kind != CC_CALLER && r->kind != CC_CALLEE)
        return true;
    *(uint32_t *)view_history_push(cp->history, &cp->nhistory, CC_HISTORY,
                                   sizeof(cp->history[0])) = v->ctx->selected;
    v->ctx->selected = r->frame;
    cc_show_selected(v);
    return true;
}

/* Backspace: the function selected before. */
static bool cc_back(struct view *v, enum request req)
{
    struct cc_priv *cp = v->priv;
    const uint32_t *f = view_history_pop(v, cp->history, &cp->nhistory,
                                         sizeof(cp->history[0]),
                                         "no previous function");

    (void)req;
    if (f) {
        v->ctx->selected = *f;
        cc_show_selected(v);
    }
    return true;
}

static const struct view_action cc_actions[] = {
    { REQ_ENTER, cc_follow, false },
    { REQ_BACK, cc_back, false },
    { REQ_NONE, NULL, false },
};

/* A new selection from another view puts the cursor on its row; a plain
 * refresh keeps the cursor where it was. */
static void cc_refresh_outer(struct view *v)
{
    struct cc_priv *cp = v->priv;
    bool moved = cp->shown != v->ctx->selected;

    cc_refresh(v);
    if (moved) {
        cp->shown = v->ctx->selected;
        v->cursor = self_row(v);
        v->offset = 0;
        v->placed = true;
    }
}

static const char *cc_info(struct view *v, char *buf, size_t n)
{
    const struct model *m = v->ctx->model;

    if (!m || v->ctx->selected == PROFILE_NONE)
        return NULL;
    const struct frame_desc *d = profile_frame(m->snap, v->ctx->selected);
    return d ? view_frame_label(d, buf, n) : NULL;
}

static struct view_sort *cc_sort(struct view *v)
{
    return &((struct cc_priv *)v->priv)->sort;
}

static int cc_open(struct view *v)
{
    struct cc_priv *cp = v->priv;

    cp->shown = cp->reveal = PROFILE_NONE;
    return 0;
}

static void cc_close(struct view *v)
{
    free(((struct cc_priv *)v->priv)->rows);
}

const struct view_ops callers_view_ops = {
    .name = "Callers", .priv_size = sizeof(struct cc_priv),
    .open = cc_open, .refresh = cc_refresh_outer, .close = cc_close,
    VIEW_COLUMNS(cc_cols), .cell = cc_cell, .title = cc_title,
    .shown = cc_shown, .sort = cc_sort,
    .actions = cc_actions,
    .line_key = cc_line_key, .line_frame = cc_line_frame,
    .info = cc_info,
};
