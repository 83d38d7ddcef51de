/* flat_view.c - the flat function table.
 *
 * See flat_view.h.  Rows are indexes into model->flat, so a refresh is a
 * filter and a sort; the cursor follows its function by frame id.
 */
#include "flat_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum flat_sort { SORT_SELF, SORT_TOTAL, SORT_NAME, SORT_COUNT };

static const char *const sort_names[SORT_COUNT] = { "self", "total", "name" };

struct flat_priv {
    uint32_t *rows;       /* indexes into model->flat; NO_ROW: hidden row */
    size_t cap;
    enum flat_sort sort;
    bool reverse;
    int mod_width;        /* widest module name */
};

#define NO_ROW UINT32_MAX

struct sort_arg {
    const struct model *m;
    enum flat_sort sort;
    bool reverse;
};

static int flat_cmp(const void *a, const void *b, void *arg)
{
    const struct sort_arg *s = arg;
    const struct profile_flat *x = &s->m->flat[*(const uint32_t *)a];
    const struct profile_flat *y = &s->m->flat[*(const uint32_t *)b];
    const char *xn = model_frame_name(s->m, x->frame);
    const char *yn = model_frame_name(s->m, y->frame);
    int c = 0;

    switch (s->sort) {
    case SORT_SELF:
        c = x->self != y->self ? (x->self > y->self ? -1 : 1)
          : x->total != y->total ? (x->total > y->total ? -1 : 1) : 0;
        break;
    case SORT_TOTAL:
        c = x->total != y->total ? (x->total > y->total ? -1 : 1)
          : x->self != y->self ? (x->self > y->self ? -1 : 1) : 0;
        break;
    case SORT_NAME:
    case SORT_COUNT:
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
    fp->mod_width = 0;
    if (!m)
        return;
    if (fp->cap < m->nflat + 1) {
        uint32_t *nr = realloc(fp->rows, (m->nflat + 1) * sizeof(*nr));
        if (!nr)
            return;
        fp->rows = nr;
        fp->cap = m->nflat + 1;
    }
    size_t hidden = 0;
    for (size_t i = 0; i < m->nflat; i++) {
        const struct frame_desc *d = profile_frame(m->snap, m->flat[i].frame);
        if (!d || d->kind == FRAME_THREAD)
            continue;
        if (m->hidden[m->flat[i].frame]) {
            hidden++;
            continue;
        }
        fp->rows[v->lines++] = (uint32_t)i;
        if (d->module) {
            int w = text_width(v->ctx->theme, d->module);
            if (w > fp->mod_width)
                fp->mod_width = w;
        }
    }
    struct sort_arg sa = { m, fp->sort, fp->reverse };
    if (v->lines > 1)
        qsort_r(fp->rows, v->lines, sizeof(uint32_t), flat_cmp, &sa);
    if (hidden)
        fp->rows[v->lines++] = NO_ROW;
}

/* "   Self  Self%    Total  Total%  Function" */
#define FLAT_COLS 37

static void flat_header(struct view *v, int y, int width)
{
    const struct theme *t = v->ctx->theme;
    const struct flat_priv *fp = v->priv;
    int modw = fp->mod_width > (width - FLAT_COLS) / 3 ? (width - FLAT_COLS) / 3
                                                       : fp->mod_width;

    draw_fmt(t, y, 0, width, t->attr[UC_COLHDR], " %8s  %6s  %8s  %6s  %s",
             "Self", "Self%", "Total", "Total%", "Function");
    if (modw >= 6)
        draw_text(t, y, width - modw, modw, "Module", t->attr[UC_COLHDR], 0);
}

static void flat_draw(struct view *v, size_t line, int y, int width)
{
    const struct flat_priv *fp = v->priv;
    const struct model *m = v->ctx->model;
    const struct theme *t = v->ctx->theme;
    double tot = (double)m->total;
    char a[16], b[16];
    int modw = fp->mod_width > (width - FLAT_COLS) / 3 ? (width - FLAT_COLS) / 3
                                                       : fp->mod_width;

    if (modw < 6)
        modw = 0;
    if (fp->rows[line] == NO_ROW) {
        char text[128];
        snprintf(text, sizeof(text), "%s %zu hidden (hide-self %.1f%%, "
                 "hide-subs %.1f%%)", t->g.ellipsis, m->nhidden,
                 v->ctx->hide_self, v->ctx->hide_subs);
        draw_text(t, y, FLAT_COLS, width - FLAT_COLS, text, t->attr[UC_DIM],
                  DT_ELLIPSIS);
        return;
    }
    const struct profile_flat *f = &m->flat[fp->rows[line]];
    const struct frame_desc *d = profile_frame(m->snap, f->frame);
    draw_text(t, y, 1, 8, fmt_count(f->self, 8, a, sizeof(a)),
              t->attr[UC_NORMAL], DT_RIGHT);
    draw_text(t, y, 11, 6, fmt_pct((double)f->self, tot, b, sizeof(b)),
              theme_heat(t, tot > 0 ? (double)f->self / tot : 0), DT_RIGHT);
    draw_text(t, y, 19, 8, fmt_count(f->total, 8, a, sizeof(a)),
              t->attr[UC_NORMAL], DT_RIGHT);
    draw_text(t, y, 29, 6, fmt_pct((double)f->total, tot, b, sizeof(b)),
              theme_heat(t, tot > 0 ? (double)f->total / tot : 0), DT_RIGHT);
    draw_text(t, y, FLAT_COLS, width - FLAT_COLS - (modw ? modw + 2 : 0),
              d->name, t->attr[UC_NORMAL], DT_ELLIPSIS);
    if (modw && d->module)
        draw_text(t, y, width - modw, modw, d->module, t->attr[UC_LOC],
                  DT_ELLIPSIS);
}

/* After a new order: the same function under the cursor, but from the
 * top of the new order when it fits on the first page. */
static void flat_resort(struct view *v)
{
    const struct flat_priv *fp = v->priv;

    ctx_message(v->ctx, false, "sorted by %s%s", sort_names[fp->sort],
                fp->reverse ? ", reversed" : "");
    view_refresh(v);
    v->offset = 0;
    view_goto(v, v->cursor);
}

static bool flat_sort_next(struct view *v, enum request req)
{
    struct flat_priv *fp = v->priv;

    (void)req;
    fp->sort = (enum flat_sort)((fp->sort + 1) % SORT_COUNT);
    fp->reverse = false;
    flat_resort(v);
    return true;
}

static bool flat_sort_reverse(struct view *v, enum request req)
{
    struct flat_priv *fp = v->priv;

    (void)req;
    fp->reverse = !fp->reverse;
    flat_resort(v);
    return true;
}

static const struct view_action flat_actions[] = {
    { REQ_SORT, flat_sort_next },
    { REQ_SORT_REVERSE, flat_sort_reverse },
    { REQ_NONE, NULL },
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

    snprintf(buf, n, "sort: %s%s", sort_names[fp->sort],
             fp->reverse ? " (rev)" : "");
    return buf;
}

static int flat_open(struct view *v)
{
    v->priv = calloc(1, sizeof(struct flat_priv));
    return v->priv ? 0 : -1;
}

static void flat_close(struct view *v)
{
    struct flat_priv *fp = v->priv;

    if (fp)
        free(fp->rows);
    free(fp);
}

const struct view_ops flat_view_ops = {
    .name = "Flat",
    .open = flat_open,
    .refresh = flat_refresh,
    .header = flat_header,
    .draw = flat_draw,
    .actions = flat_actions,
    .line_key = flat_line_key,
    .line_frame = flat_line_frame,
    .info = flat_info,
    .close = flat_close,
};
