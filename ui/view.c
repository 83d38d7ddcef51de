/* view.c - cursor, scrolling, cursor preservation and search, for all views.
 *
 * See view.h.  Views only build and draw lines; everything that depends
 * on the cursor position alone lives here so every view moves the same.
 */
#include "view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctx_message(struct ui_ctx *c, bool error, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
    va_end(ap);
    c->msg_error = error;
}

bool ctx_tasks(struct ui_ctx *c, struct source_tasks *out)
{
    return c->source && c->source->ops->tasks &&
           c->source->ops->tasks(c->source, out) == 0;
}

void ctx_show_thread(struct ui_ctx *c, const struct profile_thread *th)
{
    if (c->filter.has_process && c->filter.pid != th->pid)
        c->filter.has_process = false;
    c->filter.has_thread = true;
    c->filter.tid = th->tid;
    c->want_model = true;
    ctx_message(c, false, "showing thread %s (%lld) only; A shows all threads",
                th->name ? th->name : "?", (long long)th->tid);
}

void ctx_show_process(struct ui_ctx *c, const struct profile_thread *th)
{
    char name[256];

    c->filter.has_process = true;
    c->filter.pid = th->pid;
    c->filter.has_thread = false;
    c->want_model = true;
    ctx_message(c, false, "showing process %s only; A shows all processes",
                profile_process_label(th, true, name, sizeof(name)));
}

int view_init(struct view *v, const struct view_ops *ops,
              struct ui_ctx *ctx)
{
    v->ops = ops;
    v->ctx = ctx;
    v->priv = NULL;
    v->lines = v->cursor = v->offset = 0;
    v->height = 1;
    v->placed = false;
    v->saved = false;
    v->tail_want = 0;
    if (ops->priv_size && !(v->priv = calloc(1, ops->priv_size)))
        return -1;
    if (ops->sort)
        ops->sort(v)->col = columns_next_sort(ops->cols, ops->ncols,
                                              ops->ncols - 1);
    return ops->open ? ops->open(v) : 0;
}

void view_close(struct view *v)
{
    if (v->priv && v->ops->close)
        v->ops->close(v);
    free(v->priv);
    v->priv = NULL;
}

/* Keep offset so the cursor is on screen. */
static void view_clamp(struct view *v)
{
    size_t h = v->height > 0 ? (size_t)v->height : 1;

    if (v->lines == 0) {
        v->cursor = v->offset = 0;
        return;
    }
    if (v->cursor >= v->lines)
        v->cursor = v->lines - 1;
    if (v->cursor < v->offset)
        v->offset = v->cursor;
    if (v->cursor >= v->offset + h)
        v->offset = v->cursor - h + 1;
    /* No empty space below the last line when there is more above. */
    if (v->offset + h > v->lines)
        v->offset = v->lines > h ? v->lines - h : 0;
}

size_t view_find_key(struct view *v, uint64_t key)
{
    if (!v->ops->line_key)
        return SIZE_MAX;
    for (size_t i = 0; i < v->lines; i++)
        if (v->ops->line_key(v, i) == key)
            return i;
    return SIZE_MAX;
}

void *view_history_push(void *arr, size_t *n, size_t cap, size_t size)
{
    char *a = arr;

    if (*n == cap) {
        memmove(a, a + size, (cap - 1) * size);
        (*n)--;
    }
    return a + (*n)++ * size;
}

const void *view_history_pop(struct view *v, const void *arr, size_t *n,
                             size_t size, const char *empty)
{
    if (!*n) {
        if (empty)
            ctx_message(v->ctx, true, "%s", empty);
        return NULL;
    }
    return (const char *)arr + --*n * size;
}

void view_save_cursor(struct view *v)
{
    /* Already saved: the lines still point into an older model. */
    if (v->saved || v->lines == 0 || !v->ops->line_key)
        return;
    v->saved_key = v->ops->line_key(v, v->cursor);
    v->saved_row = v->cursor >= v->offset ? v->cursor - v->offset : 0;
    v->saved = true;
}

void view_refresh(struct view *v)
{
    view_save_cursor(v);
    bool had = v->saved;
    uint64_t key = v->saved_key;
    size_t row = v->saved_row;
    bool at_top = v->offset == 0;
    size_t h = v->height > 0 ? (size_t)v->height : 1;

    v->saved = false;
    v->placed = false;
    (v->ops->refresh)(v);  /* parenthesised: curses defines a refresh() macro */
    if (had && !v->placed) {
        size_t at = view_find_key(v, key);
        if (at != SIZE_MAX) {
            v->cursor = at;
            /* a view showing its first lines goes on showing them (a
             * live ranking's top stays in sight, as in top) while the
             * cursor's line is on screen */
            v->offset = at_top && at < h ? 0 : at >= row ? at - row : 0;
        }
    }
    view_clamp(v);
}

void view_goto(struct view *v, size_t line)
{
    v->cursor = line;
    view_clamp(v);
}

void view_draw(struct view *v, int header_y, int top, int height,
               int width)
{
    const struct theme *t = v->ctx->theme;
    struct col_layout lay;

    v->height = height > 0 ? height : 1;
    view_clamp(v);
    if (v->ops->needs_stacks && v->ctx->model &&
        !profile_has_stacks(v->ctx->model->snap)) {
        if (header_y >= 0)
            draw_text(t, header_y, 0, width, "", t->attr[UC_COLHDR], DT_PAD);
        if (height > 0)
            draw_text(t, top, 2, width - 2, PROFILE_NO_STACKS ": see 2 "
                      "Flat and 3 Callers", t->attr[UC_DIM], DT_ELLIPSIS);
        return;
    }
    if (v->ops->draw) {
        v->ops->draw(v, header_y, top, height, width);
        return;
    }
    columns_layout(v, width, &lay);
    if (header_y >= 0) {
        draw_text(t, header_y, 0, width, "", t->attr[UC_COLHDR], DT_PAD);
        columns_draw_titles(v, &lay, header_y, width);
    }
    if (v->lines == 0 && height > 0) {
        char buf[256];
        const char *e = v->ops->empty ? v->ops->empty(v, buf, sizeof(buf))
                                      : NULL;
        if (!e) {
            const struct source_status *st = v->ctx->status;
            bool live = st && !st->is_file && st->state == TARGET_RUNNING;
            e = live && st->samples == 0 ? "waiting for samples..."
                                         : "no samples";
        }
        draw_text(t, top, 2, width - 2, e, t->attr[UC_DIM], DT_ELLIPSIS);
        return;
    }
    for (int r = 0; r < height; r++) {
        size_t line = v->offset + (size_t)r;
        if (line >= v->lines)
            break;
        columns_draw_line(v, &lay, line, top + r, width);
        if (line == v->cursor) {
            /* A mark as well as the bar: monochrome terminals and screen
             * dumps show where the cursor is. */
            draw_text(t, top + r, 0, 1, ">", t->attr[UC_NORMAL], 0);
            draw_recolor(top + r, 0, width, t->attr[UC_CURSOR]);
        }
    }
}

bool view_diff(const struct view *v)
{
    const struct ui_ctx *c = v->ctx;

    return c->scope && c->scope->diff && c->model && c->model->bm;
}

bool view_recent(const struct view *v)
{
    const struct ui_ctx *c = v->ctx;

    return c->scope && c->scope->recent_col && c->model && c->model->rm;
}

uint32_t view_selected(struct view *v)
{
    const struct model *m = v->ctx->model;

    if (!m)
        return PROFILE_NONE;
    if (!model_flat_of(m, v->ctx->selected))
        v->ctx->selected = m->nflat ? m->flat[0].frame : PROFILE_NONE;
    return v->ctx->selected;
}

uint32_t view_cursor_frame(struct view *v)
{
    if (v->lines == 0 || !v->ops->line_frame)
        return PROFILE_NONE;
    return v->ops->line_frame(v, v->cursor);
}

/* Whether line i matches re: its line_name, else its function's name. */
int view_cmp_desc(double x, double y)
{
    return x != y ? (x > y ? -1 : 1) : 0;
}

int view_cmp_desc_u64(uint64_t x, uint64_t y)
{
    return x != y ? (x > y ? -1 : 1) : 0;
}

static bool line_matches(struct view *v, size_t i, const regex_t *re)
{
    const struct model *m = v->ctx->model;
    char buf[256];
    const char *s = v->ops->line_name ? v->ops->line_name(v, i, buf,
                                                          sizeof(buf))
                                      : NULL;

    if (!s) {
        uint32_t f = v->ops->line_frame ? v->ops->line_frame(v, i)
                                        : PROFILE_NONE;
        if (!m || f == PROFILE_NONE)
            return false;
        s = model_frame_name(m, f);
    }
    return regexec(re, s, 0, NULL, 0) == 0;
}

const struct profile_thread *view_cursor_thread(struct view *v)
{
    if (v->lines == 0 || !v->ops->line_thread)
        return NULL;
    return v->ops->line_thread(v, v->cursor);
}

int64_t view_cursor_process(struct view *v)
{
    if (v->lines == 0 || !v->ops->line_process)
        return 0;
    return v->ops->line_process(v, v->cursor);
}

bool view_search_lines(struct view *v, const regex_t *re, bool forward,
                       struct search_hit *hit)
{
    size_t to = SIZE_MAX;

    if (v->lines == 0)
        return false;
    /* The last step comes back to the cursor: the only match stays. */
    for (size_t step = 1; step <= v->lines && to == SIZE_MAX; step++) {
        size_t i = forward ? (v->cursor + step) % v->lines
                           : (v->cursor + v->lines - step % v->lines) % v->lines;
        if (line_matches(v, i, re))
            to = i;
    }
    if (to == SIZE_MAX)
        return false;
    hit->nth = hit->count = 0;
    for (size_t i = 0; i < v->lines; i++)
        if (line_matches(v, i, re)) {
            hit->count++;
            if (i == to)
                hit->nth = hit->count;
        }
    view_goto(v, to);
    return true;
}

size_t view_hidden_matches(const struct view *v, const regex_t *re)
{
    const struct model *m = v->ctx->model;
    size_t n = 0;

    for (size_t i = 0; m && i < m->nflat; i++) {
        uint32_t f = m->flat[i].frame;
        const struct frame_desc *d = profile_frame(m->snap, f);

        if (m->hidden[f] && d && !profile_frame_is_level(d) &&
            regexec(re, d->name, 0, NULL, 0) == 0)
            n++;
    }
    return n;
}

void view_search(struct view *v, const regex_t *re, bool forward)
{
    struct search_hit hit = { 0, 0, "" };
    bool found = v->ops->search ? v->ops->search(v, re, forward, &hit)
                                : view_search_lines(v, re, forward, &hit);
    /* Lines that are functions: say what the thresholds keep from it. */
    size_t hidden = !found && !v->ops->line_name ? view_hidden_matches(v, re)
                                                  : 0;

    if (hidden)
        ctx_message(v->ctx, true, "no match shown: %zu hidden by hide-self "
                    "%.1f%%, hide-subs %.1f%%: press t to show", hidden,
                    v->ctx->hide_self, v->ctx->hide_subs);
    else if (!found)
        ctx_message(v->ctx, true, "no match in the %s view", v->ops->name);
    else
        ctx_message(v->ctx, false, "match %zu of %zu (n: next, N: previous)"
                    "%s%s", hit.nth, hit.count, hit.note[0] ? "; " : "",
                    hit.note);
}

static void view_touch(struct view *v)
{
    if (v->ops->touch)
        v->ops->touch(v);
}

void view_click(struct view *v, int row)
{
    size_t line = v->offset + (size_t)(row < 0 ? 0 : row);

    view_touch(v);
    if (line < v->lines)
        view_goto(v, line);
}

void view_scroll(struct view *v, int n)
{
    size_t h = v->height > 0 ? (size_t)v->height : 1;
    size_t max_off = v->lines > h ? v->lines - h : 0;

    view_touch(v);
    if (n < 0)
        v->offset = v->offset > (size_t)-n ? v->offset - (size_t)-n : 0;
    else
        v->offset = v->offset + (size_t)n > max_off ? max_off
                                                    : v->offset + (size_t)n;
    if (v->cursor < v->offset)
        v->cursor = v->offset;
    if (v->cursor >= v->offset + h)
        v->cursor = v->offset + h - 1;
    view_clamp(v);
}

/* Rows a page key moves: one less than the body, so a line stays. */
static size_t page_rows(const struct view *v)
{
    return v->height > 1 ? (size_t)v->height - 1 : 1;
}

static bool move_up(struct view *v, enum request req)
{
    (void)req;
    if (v->cursor > 0)
        view_goto(v, v->cursor - 1);
    return true;
}

static bool move_down(struct view *v, enum request req)
{
    (void)req;
    if (v->cursor + 1 < v->lines)
        view_goto(v, v->cursor + 1);
    return true;
}

static bool move_page_up(struct view *v, enum request req)
{
    size_t h = page_rows(v);

    (void)req;
    view_goto(v, v->cursor > h ? v->cursor - h : 0);
    return true;
}

static bool move_page_down(struct view *v, enum request req)
{
    size_t h = page_rows(v);

    (void)req;
    view_goto(v, v->cursor + h < v->lines ? v->cursor + h
                                          : (v->lines ? v->lines - 1 : 0));
    return true;
}

static bool move_first(struct view *v, enum request req)
{
    (void)req;
    view_goto(v, 0);
    return true;
}

static bool move_last(struct view *v, enum request req)
{
    (void)req;
    view_goto(v, v->lines ? v->lines - 1 : 0);
    return true;
}

/* n and N: the last search again, forward or backward. */
static bool search_again(struct view *v, enum request req)
{
    if (!v->ctx->search)
        ctx_message(v->ctx, true, "no search yet: press / first");
    else
        view_search(v, v->ctx->search, req == REQ_SEARCH_NEXT);
    return true;
}

/* After a new sort order: say so and rebuild, the cursor on its line,
 * the view from the top when the line fits on the first page. */
static void resorted(struct view *v, const struct view_sort *s)
{
    ctx_message(v->ctx, false, "sorted by %s%s", v->ops->cols[s->col].sort,
                s->reverse ? ", reversed" : "");
    view_refresh(v);
    v->offset = 0;
    view_goto(v, v->cursor);
}

/* o: the next column that sorts, among those shown; O: reversed. */
static bool sort_change(struct view *v, enum request req)
{
    struct view_sort *s = v->ops->sort ? v->ops->sort(v) : NULL;

    if (!s)
        return false;
    if (req == REQ_SORT_REVERSE) {
        s->reverse = !s->reverse;
    } else {
        size_t from = s->col;
        do
            s->col = columns_next_sort(v->ops->cols, v->ops->ncols, s->col);
        while (s->col != from && v->ops->shown &&
               !v->ops->shown(v, v->ops->cols[s->col].id));
        s->reverse = false;
    }
    resorted(v, s);
    return true;
}

/* What every view does the same way. */
static const struct view_action common_actions[] = {
    { REQ_MOVE_UP, move_up, false },
    { REQ_MOVE_DOWN, move_down, false },
    { REQ_MOVE_PAGE_UP, move_page_up, false },
    { REQ_MOVE_PAGE_DOWN, move_page_down, false },
    { REQ_MOVE_FIRST, move_first, false },
    { REQ_MOVE_LAST, move_last, false },
    { REQ_SEARCH_NEXT, search_again, false },
    { REQ_SEARCH_PREV, search_again, false },
    { REQ_SORT, sort_change, false },
    { REQ_SORT_REVERSE, sort_change, false },
    { REQ_NONE, NULL, false },
};

static const struct view_action *find_action(const struct view_action *t,
                                             enum request req)
{
    for (; t && t->req != REQ_NONE; t++)
        if (t->req == req)
            return t;
    return NULL;
}

bool view_request(struct view *v, enum request req)
{
    /* A view's own action wins: the flame graph moves between frames. */
    const struct view_action *a = find_action(v->ops->actions, req);

    if (!a)
        a = find_action(common_actions, req);
    if (!a || (a->on_line && v->lines == 0))
        return false;
    view_touch(v);
    return a->run(v, req);
}
