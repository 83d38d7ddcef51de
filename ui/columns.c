/* columns.c - lay out and draw a view from its column table.
 *
 * See columns.h.  The layout rule, once: the fixed columns from column 1,
 * each `gap` blanks after the one before; the flexible column takes what
 * is left, less the tail column (module, location) at the right edge,
 * which gets at most a third of the room after the fixed columns and is
 * left out when that is under 6 columns.  On a row whose flexible cell
 * (a function name) is wider than its column, the name wins: it runs on
 * into the tail's room, and the tail is shortened, or left out when
 * under 6 columns would remain.  The tail stays where it is.  A flexible
 * column that would get less than its `min` takes the room from the
 * columns that may narrow (`least`), in order, and is left out when that
 * is not enough: a one-column strip under a cut title says nothing.
 */
#include "columns.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* Below this a tail column (a module name) says too little to show. */
#define TAIL_MIN 6

static bool col_shown(struct view *v, const struct view_col *c)
{
    return !v->ops->shown || v->ops->shown(v, c->id);
}

void columns_layout(struct view *v, int width, struct col_layout *lay)
{
    const struct view_ops *o = v->ops;
    int x = 1, flex = -1, tail = -1;
    bool first = true;

    for (size_t i = 0; i < o->ncols && i < VIEW_MAX_COLS; i++) {
        const struct view_col *c = &o->cols[i];
        lay->x[i] = lay->w[i] = 0;
        lay->on[i] = false;
        if (!col_shown(v, c))
            continue;
        if (c->flags & VIEW_COL_TAIL) {
            tail = (int)i;
            continue;
        }
        if (!first)
            x += c->gap ? c->gap : 2;
        first = false;
        lay->x[i] = x;
        lay->w[i] = c->width;
        lay->on[i] = true;
        if (c->width == 0)
            flex = (int)i;
        x += c->width;
    }
    if (flex < 0)
        return;
    int need = o->cols[flex].min - (width - lay->x[flex]);
    for (size_t i = 0; need > 0 && i < (size_t)flex; i++) {
        int give = lay->on[i] && o->cols[i].least ? lay->w[i] -
                                                     o->cols[i].least : 0;
        if (give <= 0)
            continue;
        give = give < need ? give : need;
        need -= give;
        lay->w[i] -= give;
        for (size_t k = i + 1; k <= (size_t)flex; k++)
            lay->x[k] -= give;
    }
    if (need > 0) {
        lay->on[flex] = false;
        return;
    }
    int tw = 0;
    if (tail >= 0) {
        int room = (width - lay->x[flex]) / 3;
        tw = v->tail_want < room ? v->tail_want : room;
        if (tw < TAIL_MIN)
            tw = 0;
        lay->x[tail] = width - tw;
        lay->w[tail] = tw;
        lay->on[tail] = tw > 0;
    }
    lay->w[flex] = width - lay->x[flex] - (tw ? tw + 2 : 0);
}

void columns_draw_titles(struct view *v, const struct col_layout *lay, int y,
                         int width)
{
    const struct theme *t = v->ctx->theme;
    char buf[256];

    for (size_t i = 0; i < v->ops->ncols && i < VIEW_MAX_COLS; i++) {
        const struct view_col *c = &v->ops->cols[i];
        if (!lay->on[i])
            continue;
        const char *title = v->ops->title ? v->ops->title(v, c->id) : NULL;
        if (!title)
            title = c->title;
        if (!title)
            continue;
        if (c->brief && text_width(t, title) > lay->w[i])
            title = c->brief;
        /* Right-aligned in the column, and like every title free to run
         * on to the row's end: a long title is clipped there, not at its
         * column. */
        if (c->flags & DT_RIGHT) {
            /* Pad by display width: "ΔTot%" is 5 columns, 6 bytes. */
            int pad = lay->w[i] - text_width(t, title);
            snprintf(buf, sizeof(buf), "%*s%s", pad > 0 ? pad : 0, "", title);
            title = buf;
        }
        draw_text(t, y, lay->x[i], width - lay->x[i], title,
                  t->attr[UC_COLHDR], 0);
    }
}

void columns_draw_line(struct view *v, const struct col_layout *lay,
                       size_t line, int y, int width)
{
    const struct theme *t = v->ctx->theme;
    int ncols = (int)(v->ops->ncols < VIEW_MAX_COLS ? v->ops->ncols
                                                    : VIEW_MAX_COLS);
    int flex = -1, tail = -1;
    int x[VIEW_MAX_COLS], w[VIEW_MAX_COLS];

    for (int i = 0; i < ncols; i++) {
        x[i] = lay->x[i];
        w[i] = lay->w[i];
        if (!lay->on[i])
            continue;
        if (v->ops->cols[i].flags & VIEW_COL_TAIL)
            tail = i;
        else if (v->ops->cols[i].width == 0)
            flex = i;
    }
    for (int i = 0; i < ncols; i++) {
        const struct view_col *col = &v->ops->cols[i];
        struct view_cell c = { .attr = t->attr[UC_NORMAL], .width = w[i] };
        if (!lay->on[i] || w[i] <= 0)
            continue;
        v->ops->cell(v, line, col->id, &c);
        if (!c.text)
            continue;
        if (c.span) {
            draw_text(t, y, x[i], width - x[i], c.text, c.attr, DT_ELLIPSIS);
            return;
        }
        if (i == flex && tail > flex) {
            /* The name takes what it needs of the tail's room. */
            int need = text_width(t, c.text) - w[i];
            int take = need <= 0 ? 0 : need < w[tail] + 2 ? need
                                                            : w[tail] + 2;
            int left = w[tail] + 2 - take - 2;
            w[i] += take;
            if (take && left < TAIL_MIN) {
                w[i] += left > 0 ? left : 0;
                w[tail] = 0;
            } else if (take) {
                x[tail] += w[tail] - left;
                w[tail] = left;
            }
        }
        const char *s = c.text;
        if (i == tail && text_width(t, s) > w[i]) {
            /* A shortened location keeps its end (the line number). */
            int n = draw_text(t, y, x[i], w[i], t->g.ellipsis, c.attr, 0);
            while (*s && text_width(t, s) > w[i] - n)
                s++;
            while (((unsigned char)*s & 0xc0) == 0x80)
                s++;
            draw_text(t, y, x[i] + n, w[i] - n, s, c.attr, 0);
            continue;
        }
        draw_text(t, y, x[i] + col->inset, w[i] - col->inset, s, c.attr,
                  col->flags & (DT_RIGHT | DT_ELLIPSIS));
    }
}

/* A printed line: text and its width in columns so far. */
struct pline {
    char buf[8192];
    size_t len;
    int col;
};

/* Append s at column x (blanks up to it; one blank after text that ran
 * past x), padded on the left to `right` columns when right > 0. */
static void pline_put(const struct theme *t, struct pline *l, int x,
                      const char *s, int right)
{
    int w = text_width(t, s);
    int pad = right > w ? right - w : 0;

    if (x < l->col)
        x = l->col + 1;
    for (int n = x - l->col + pad; n > 0 && l->len + 1 < sizeof(l->buf);
         n--)
        l->buf[l->len++] = ' ';
    size_t sl = strlen(s);
    if (l->len + sl >= sizeof(l->buf))
        sl = sizeof(l->buf) - l->len - 1;
    memcpy(l->buf + l->len, s, sl);
    l->len += sl;
    l->buf[l->len] = '\0';
    l->col = x + pad + w;
}

/* Where the tail column goes in print: after the widest flexible cell
 * (and its title), two blanks on; 0 without a flexible column. */
static int print_tail_x(struct view *v, const struct col_layout *lay,
                        int flex)
{
    const struct theme *t = v->ctx->theme;
    const struct view_col *col;
    int widest = 0;

    if (flex < 0)
        return 0;
    col = &v->ops->cols[flex];
    const char *title = v->ops->title ? v->ops->title(v, col->id) : NULL;
    widest = text_width(t, title ? title : col->title ? col->title : "");
    for (size_t line = 0; line < v->lines; line++) {
        struct view_cell c = { .width = lay->w[flex], .print = true };
        v->ops->cell(v, line, col->id, &c);
        if (c.text && !c.span && text_width(t, c.text) > widest)
            widest = text_width(t, c.text);
    }
    return lay->x[flex] + col->inset + widest + 2;
}

/* The title row, or line `line` (SIZE_MAX: the titles), into l. */
static void print_row(struct view *v, const struct col_layout *lay,
                      size_t line, int tail_x, struct pline *l)
{
    const struct theme *t = v->ctx->theme;

    l->len = 0;
    l->col = 0;
    l->buf[0] = '\0';
    if (line != SIZE_MAX)
        pline_put(t, l, 0, line == v->cursor ? ">" : "", 0);
    for (size_t i = 0; i < v->ops->ncols && i < VIEW_MAX_COLS; i++) {
        const struct view_col *col = &v->ops->cols[i];
        bool tail = col->flags & VIEW_COL_TAIL;
        struct view_cell c = { .width = lay->w[i], .print = true };
        const char *s;

        if (!col_shown(v, col) || (tail && v->tail_want <= 0))
            continue;
        if (line == SIZE_MAX) {
            s = v->ops->title ? v->ops->title(v, col->id) : NULL;
            s = s ? s : col->title;
        } else {
            v->ops->cell(v, line, col->id, &c);
            s = c.text;
        }
        if (!s || !s[0])
            continue;
        int x = tail ? tail_x : lay->x[i] + (line == SIZE_MAX ? 0
                                                               : col->inset);
        pline_put(t, l, x, s, col->flags & DT_RIGHT ? lay->w[i] : 0);
        if (c.span)
            break;
    }
    while (l->len && l->buf[l->len - 1] == ' ')
        l->buf[--l->len] = '\0';
}

int columns_print(struct view *v, FILE *f)
{
    struct col_layout lay;
    struct pline *l = malloc(sizeof(*l));
    int flex = -1;

    if (!l) {
        errno = ENOMEM;
        return -1;
    }
    columns_layout(v, COLS > 0 ? COLS : 80, &lay);
    for (size_t i = 0; i < v->ops->ncols && i < VIEW_MAX_COLS; i++)
        if (lay.on[i] && v->ops->cols[i].width == 0 &&
            !(v->ops->cols[i].flags & VIEW_COL_TAIL))
            flex = (int)i;
    int tail_x = print_tail_x(v, &lay, flex);
    print_row(v, &lay, SIZE_MAX, tail_x, l);
    fprintf(f, "%s\n", l->buf);
    for (size_t line = 0; line < v->lines; line++) {
        print_row(v, &lay, line, tail_x, l);
        fprintf(f, "%s\n", l->buf);
    }
    free(l);
    return ferror(f) ? -1 : 0;
}

size_t columns_next_sort(const struct view_col *cols, size_t n, size_t cur)
{
    for (size_t k = 1; k <= n; k++)
        if (cols[(cur + k) % n].sort)
            return (cur + k) % n;
    return cur;
}

void cell_count(struct view_cell *c, uint64_t n)
{
    c->text = fmt_count(n, c->width, c->buf, sizeof(c->buf));
}

const char *view_frame_label(const struct frame_desc *d, char *buf, size_t n)
{
    const char *name = d->name[0] ? d->name : "[unknown]";

    snprintf(buf, n, "%s%s", profile_frame_is_kernel(d) ? "[k] " : "", name);
    return buf;
}

attr_t view_frame_attr(const struct view *v, const struct frame_desc *d,
                       attr_t other)
{
    const struct theme *t = v->ctx->theme;

    if (profile_frame_is_kernel(d))
        return t->attr[UC_KERNEL];
    if (profile_frame_is_reason(d))
        return t->attr[UC_REASON];
    return other;
}

void cell_weight(struct view *v, struct view_cell *c, uint64_t w)
{
    cell_count(c, profile_weight_count(v->ctx->model->snap, w));
}

void cell_printf(struct view_cell *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->buf, sizeof(c->buf), fmt, ap);
    va_end(ap);
    c->text = c->buf;
}

void cell_hidden_note(struct view *v, struct view_cell *c,
                      const char *indent, size_t n, bool revealed)
{
    const struct theme *t = v->ctx->theme;

    cell_printf(c, "%s%s %zu %s (hide-self %.1f%%, hide-subs %.1f%%)",
                indent, t->g.ellipsis, n, revealed ? "dimmed" : "hidden",
                v->ctx->hide_self, v->ctx->hide_subs);
    c->attr = t->attr[UC_DIM];
    c->span = true;
}

void cell_pct(struct view *v, struct view_cell *c, double part, double whole)
{
    c->text = fmt_pct(part, whole, c->buf, sizeof(c->buf));
    c->attr = theme_heat(v->ctx->theme, whole > 0 ? part / whole : 0);
}

/* Under this a change shows uncoloured: it rounds to 0.0. */
#define DELTA_EPS 0.05

void cell_change(struct view *v, struct view_cell *c,
                 const struct model_delta *d, enum cell_change what)
{
    const struct theme *t = v->ctx->theme;
    double points = what == CHANGE_SELF ? d->self : d->total;

    if (what == CHANGE_SIDE) {
        if (d->in_cur != d->in_base) {
            c->text = d->in_cur ? "+" : "-";
            c->attr = t->attr[d->in_cur ? UC_MORE : UC_LESS];
        }
        return;
    }
    c->text = fmt_delta(points, c->buf, sizeof(c->buf));
    if (points >= DELTA_EPS)
        c->attr = t->attr[UC_MORE];
    else if (points <= -DELTA_EPS)
        c->attr = t->attr[UC_LESS];
}

enum cell_change cell_change_of(int col, int side_col, int self_col)
{
    return col == side_col ? CHANGE_SIDE
           : col == self_col ? CHANGE_SELF : CHANGE_TOTAL;
}

void cell_frame_change(struct view *v, struct view_cell *c, uint32_t frame,
                       enum cell_change what)
{
    struct model_delta d;

    if (model_delta_frame(v->ctx->model, frame, &d))
        cell_change(v, c, &d, what);
}

void cell_function(struct view *v, struct view_cell *c,
                   const struct frame_desc *d, attr_t other)
{
    c->text = view_frame_label(d, c->buf, sizeof(c->buf));
    c->attr = view_frame_attr(v, d, other);
}

void cell_module(struct view *v, struct view_cell *c,
                 const struct frame_desc *d)
{
    c->text = d->module;
    c->attr = v->ctx->theme->attr[UC_LOC];
}
