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

enum cc_kind { CC_TITLE_CALLERS, CC_CALLER, CC_SELF, CC_TITLE_CALLEES,
               CC_CALLEE, CC_HIDDEN_CALLERS, CC_HIDDEN_CALLEES };

struct cc_row {
    enum cc_kind kind;
    uint32_t frame;       /* the caller/callee/selected function */
    uint64_t samples;     /* edge samples (or the function's total) */
    double time;          /* Racket edge time */
    uint32_t count;       /* titles: rows in the section; hidden: count */
};

/* Navigation history for Backspace; older entries fall off the end. */
#define CC_HISTORY 64

struct cc_priv {
    struct cc_row *rows;
    size_t cap;
    uint32_t shown;              /* function of the last refresh */
    uint32_t history[CC_HISTORY];
    size_t nhistory;
    int loc_width;
};

static int cc_push(struct view *v, struct cc_row r)
{
    struct cc_priv *cp = v->priv;

    if (v->lines == cp->cap) {
        size_t ncap = cp->cap ? cp->cap * 2 : 64;
        struct cc_row *nr = realloc(cp->rows, ncap * sizeof(*nr));
        if (!nr)
            return -1;
        cp->rows = nr;
        cp->cap = ncap;
    }
    cp->rows[v->lines++] = r;
    return 0;
}

static int row_cmp(const void *a, const void *b, void *arg)
{
    const struct model *m = arg;
    const struct cc_row *x = a, *y = b;

    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    return strcmp(model_frame_name(m, x->frame), model_frame_name(m, y->frame));
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
            continue;
        }
        cc_push(v, (struct cc_row){ .kind = callers ? CC_CALLER : CC_CALLEE,
                                    .frame = other, .samples = e->samples,
                                    .time = callers ? e->caller_time
                                                    : e->callee_time });
    }
    if (v->lines > first)
        qsort_r(cp->rows + first, v->lines - first, sizeof(struct cc_row),
                row_cmp, (void *)m);
    if (title < v->lines)
        cp->rows[title].count = (uint32_t)(v->lines - first);
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
    uint32_t f = v->ctx->selected;

    v->lines = 0;
    cp->loc_width = 0;
    if (!m)
        return;
    /* Nothing selected yet (or gone under a filter): the top function. */
    if (!model_flat_of(m, f)) {
        f = m->nflat ? m->flat[0].frame : PROFILE_NONE;
        v->ctx->selected = f;
    }
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
            if (w > cp->loc_width)
                cp->loc_width = w;
        }
    }
}

/* Columns: " Samples  Local%  Total%   Self%  " then the function. */
#define CC_COLS 35

static void cc_header(struct view *v, int y, int width)
{
    const struct theme *t = v->ctx->theme;

    draw_fmt(t, y, 0, width, t->attr[UC_COLHDR], " %8s  %6s  %6s  %6s  %s",
             "Samples", "Local%", "Total%", "Self%", "Function");
}

static void cc_draw(struct view *v, size_t line, int y, int width)
{
    const struct cc_priv *cp = v->priv;
    const struct model *m = v->ctx->model;
    const struct theme *t = v->ctx->theme;
    const struct cc_row *r = &cp->rows[line];
    const struct frame_desc *d = profile_frame(m->snap, r->frame);
    const struct profile_flat *fl = model_flat_of(m, r->frame);
    const struct profile_flat *sel = model_flat_of(m, v->ctx->selected);
    double tot = (double)m->total;
    char a[16], text[1024];
    int modw = cp->loc_width > (width - CC_COLS) / 3 ? (width - CC_COLS) / 3
                                                     : cp->loc_width;

    if (modw < 6)
        modw = 0;
    switch (r->kind) {
    case CC_TITLE_CALLERS:
    case CC_TITLE_CALLEES:
        snprintf(text, sizeof(text), "%s of %s: %u",
                 r->kind == CC_TITLE_CALLERS ? "Callers" : "Callees",
                 d->name, r->count);
        draw_text(t, y, 1, width - 1, text, t->attr[UC_LABEL], DT_ELLIPSIS);
        return;
    case CC_HIDDEN_CALLERS:
    case CC_HIDDEN_CALLEES:
        snprintf(text, sizeof(text), "    %s %u hidden", t->g.ellipsis,
                 r->count);
        draw_text(t, y, CC_COLS - 2, width - CC_COLS + 2, text,
                  t->attr[UC_DIM], DT_ELLIPSIS);
        return;
    case CC_CALLER:
    case CC_CALLEE:
    case CC_SELF:
        break;
    }

    draw_text(t, y, 1, 8, fmt_count(r->samples, 8, a, sizeof(a)),
              t->attr[UC_NORMAL], DT_RIGHT);
    if (r->kind != CC_SELF && sel && sel->total > 0) {
        double local = r->time / (double)sel->total;
        draw_text(t, y, 11, 6, fmt_pct(r->time, (double)sel->total, a,
                  sizeof(a)), theme_heat(t, local), DT_RIGHT);
    }
    if (fl) {
        draw_text(t, y, 19, 6, fmt_pct((double)fl->total, tot, a, sizeof(a)),
                  theme_heat(t, tot > 0 ? (double)fl->total / tot : 0),
                  DT_RIGHT);
        draw_text(t, y, 27, 6, fmt_pct((double)fl->self, tot, a, sizeof(a)),
                  theme_heat(t, tot > 0 ? (double)fl->self / tot : 0),
                  DT_RIGHT);
    }
    if (r->kind == CC_SELF)
        snprintf(text, sizeof(text), "%s", d->name);
    else
        snprintf(text, sizeof(text), "  %s %s",
                 r->kind == CC_CALLER ? t->g.up : t->g.down, d->name);
    draw_text(t, y, 35, width - 35 - (modw ? modw + 2 : 0), text,
              r->kind == CC_SELF ? t->attr[UC_VALUE] : t->attr[UC_NORMAL],
              DT_ELLIPSIS);
    if (modw && d->module)
        draw_text(t, y, width - modw, modw, d->module, t->attr[UC_LOC],
                  DT_ELLIPSIS);
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

static bool cc_request(struct view *v, enum request req)
{
    struct cc_priv *cp = v->priv;

    switch (req) {
    case REQ_ENTER: {
        if (!v->lines)
            return true;
        const struct cc_row *r = &cp->rows[v->cursor];
        if (r->kind != CC_CALLER && r->kind != CC_CALLEE)
            return true;
        if (cp->nhistory == CC_HISTORY) {
            memmove(cp->history, cp->history + 1,
                    (CC_HISTORY - 1) * sizeof(cp->history[0]));
            cp->nhistory--;
        }
        cp->history[cp->nhistory++] = v->ctx->selected;
        v->ctx->selected = r->frame;
        cc_show_selected(v);
        return true;
    }
    case REQ_BACK:
        if (!cp->nhistory) {
            ctx_message(v->ctx, true, "no previous function");
            return true;
        }
        v->ctx->selected = cp->history[--cp->nhistory];
        cc_show_selected(v);
        return true;
    default:
        return false;
    }
}

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
    snprintf(buf, n, "%s", model_frame_name(m, v->ctx->selected));
    return buf;
}

static int cc_open(struct view *v)
{
    struct cc_priv *cp = calloc(1, sizeof(*cp));

    if (!cp)
        return -1;
    cp->shown = PROFILE_NONE;
    v->priv = cp;
    return 0;
}

static void cc_close(struct view *v)
{
    struct cc_priv *cp = v->priv;

    if (cp)
        free(cp->rows);
    free(cp);
}

const struct view_ops callers_view_ops = {
    .name = "Callers",
    .open = cc_open,
    .refresh = cc_refresh_outer,
    .header = cc_header,
    .draw = cc_draw,
    .request = cc_request,
    .line_key = cc_line_key,
    .line_frame = cc_line_frame,
    .info = cc_info,
    .close = cc_close,
};
