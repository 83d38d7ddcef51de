/* threads_view.c - the threads view.
 *
 * See threads_view.h.  A live thread's state, %CPU and CPU time come
 * from the source's table of tasks (ctx_tasks: gathered off the UI
 * thread from the sampler's own tables), copied once per refresh.  Rows
 * keep the threads' own order (first seen first) unless o
 * picks a sort, so a refresh never moves the cursor's thread under it.
 */
#include "threads_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpustat.h"
#include "timeline.h"
#include "vec.h"
#include "window.h"
#include "sorted.h"

struct thread_row {
    uint32_t index;     /* thread index in the snapshot */
    uint64_t samples;   /* its thread node's total */
    const char *state;  /* "running", "sleeping", "exited", "-" */
    const struct source_task *cpu; /* its figures in tasks, NULL: none (a
                                      file, or the thread is gone) */
};

struct threads_priv {
    struct thread_row *rows;
    size_t cap;
    struct source_tasks tasks; /* the live tasks, as of the refresh */
    struct view_sort sort;  /* by TID unless o says otherwise */
    /* The strips: samples per second of each thread of the timeline. */
    uint64_t *series;     /* thread i's seconds at series[i * nsec] */
    size_t series_cap;
    uint32_t nthreads;    /* threads in series */
    uint32_t nsec;        /* seconds per thread, 0: no strips */
    uint32_t step;        /* seconds per column max was found for */
    uint64_t max;         /* tallest column of any thread at that step */
    uint64_t *cols;       /* scratch: one thread's columns */
    size_t cols_cap;
};

/* Every thread's samples per second over the timeline's span. */
static void load_series(struct view *v)
{
    struct threads_priv *tp = v->priv;
    const struct profile *tl = v->ctx->timeline;
    uint64_t first;
    uint32_t n;

    tp->nsec = 0;
    tp->step = 0;
    if (!tl || !timeline_span(tl, &first, &n))
        return;
    uint32_t nt = profile_thread_count(tl);
    if (VEC_RESERVE(tp->series, tp->series_cap, (size_t)nt * n) < 0 ||
        VEC_RESERVE(tp->cols, tp->cols_cap, (size_t)n + 1) < 0)
        return;
    for (uint32_t i = 0; i < nt; i++)
        profile_time_series(tl, i, first, n, tp->series + (size_t)i * n);
    tp->nthreads = nt;
    tp->nsec = n;
}

/* Thread i's strip in `width` columns, on the scale of the busiest
 * thread's tallest column, so the strips compare. */
static const char *strip(struct view *v, uint32_t i, int width,
                         struct view_cell *c)
{
    struct threads_priv *tp = v->priv;
    uint32_t step = timeline_step(tp->nsec, width), ncols = 0;
    uint64_t max;

    if (i >= tp->nthreads)
        return NULL;
    if (step != tp->step) {
        tp->step = step;
        tp->max = 0;
        for (uint32_t k = 0; k < tp->nthreads; k++) {
            timeline_columns(tp->series + (size_t)k * tp->nsec, tp->nsec, step,
                             tp->cols, &max);
            if (max > tp->max)
                tp->max = max;
        }
    }
    ncols = timeline_columns(tp->series + (size_t)i * tp->nsec, tp->nsec, step,
                             tp->cols, &max);
    return timeline_spark(v->ctx->theme, tp->cols, ncols, tp->max, c->buf,
                          sizeof(c->buf));
}

/* THC_CPU, THC_TIME, THC_STATE: consecutive, as CPUSTAT_COLS wants */
enum threads_col { THC_MARK, THC_TID, THC_NAME, THC_SAMPLES, THC_SHARE,
                   THC_CPU, THC_TIME, THC_STATE, THC_WHY, THC_STRIP };

/* The columns; those with a sort name are the orders o cycles through,
 * from the first (the threads' ids: an order a refresh does not
 * change). */
static const struct view_col threads_cols[] = {
    { .id = THC_MARK, .width = 1 },       /* '*': the thread shown alone */
    { .id = THC_TID, .title = "TID", .width = 9, .gap = 1,
      .flags = DT_RIGHT, .sort = "tid" },
    { .id = THC_NAME, .title = "Name", .width = 16, .least = 8,
      .flags = DT_ELLIPSIS },
    { .id = THC_SAMPLES, .title = "Samples", .width = 8, .flags = DT_RIGHT,
      .sort = "samples" },
    { .id = THC_SHARE, .title = "Share", .width = 6, .flags = DT_RIGHT },
    CPUSTAT_COLS(THC_CPU, "cpu"),
    /* with off-CPU reasons (--idle): where each thread's time went,
     * in the strips' place */
    { .id = THC_WHY, .title = "On CPU, and off it by reason",
      .flags = DT_ELLIPSIS },
    /* with sample times: each thread's timeline (timeline.h); at 80
     * columns a live view's names give it room for its brief title */
    { .id = THC_STRIP, .title = "Samples per second", .min = 9,
      .brief = "Samples/s" },
};

struct sort_arg {
    const struct threads_priv *tp;
    const struct profile *snap;
    enum threads_col by;
    bool reverse;
};

static double row_pct(const struct thread_row *r)
{
    return r->cpu ? r->cpu->cpu_pct : -1;
}

static int row_cmp(const void *a, const void *b, void *arg)
{
    const struct sort_arg *s = arg;
    const struct thread_row *x = a, *y = b;
    int64_t xt = profile_thread_at(s->snap, x->index)->tid;
    int64_t yt = profile_thread_at(s->snap, y->index)->tid;
    double xp = row_pct(x), yp = row_pct(y);
    int c = 0;

    switch (s->by) {
    case THC_SAMPLES:
        c = view_cmp_desc_u64(x->samples, y->samples);
        break;
    case THC_CPU:
        c = view_cmp_desc(xp, yp);
        break;
    case THC_TID:      /* by tid, below */
    case THC_MARK:     /* not sort columns */
    case THC_WHY:
    case THC_NAME:
    case THC_SHARE:
    case THC_TIME:
    case THC_STATE:
    case THC_STRIP:
        break;
    }
    if (!c)
        c = xt < yt ? -1 : xt > yt;
    return s->reverse ? -c : c;
}

static void threads_refresh(struct view *v)
{
    struct threads_priv *tp = v->priv;
    const struct model *m = v->ctx->model;
    const struct source_status *st = v->ctx->status;

    v->lines = 0;
    if (!m)
        return;
    uint32_t n = profile_thread_count(m->snap);
    if (VEC_RESERVE(tp->rows, tp->cap, n) < 0)
        return;
    bool live = st && (st->state == TARGET_RUNNING ||
                       st->state == TARGET_STOPPED) &&
                ctx_tasks(v->ctx, &tp->tasks);
    for (uint32_t i = 0; i < n; i++) {
        const struct profile_thread *th = profile_thread_at(m->snap, i);
        if (m->pid && th->pid != m->pid)
            continue;  /* the process filter: its threads only */
        struct thread_row *r = &tp->rows[v->lines++];
        r->index = i;
        r->samples = profile_node(m->snap, th->node)->total;
        /* each thread under its own process (-p takes a list) */
        r->cpu = live ? source_task_find(&tp->tasks,
                                         th->pid ? th->pid : st->pid, th->tid)
                      : NULL;
        r->state = r->cpu ? cpustat_state(r->cpu->state)
                   : profile_thread_is_folded(th) ||
                             (!live && st && st->state == TARGET_EXITED)
                       ? "exited"
                       : "-";
        if (r->cpu && !r->cpu->state)
            r->cpu = NULL;  /* gone: no figures */
    }
    struct sort_arg sa = { tp, m->snap,
                           (enum threads_col)threads_cols[tp->sort.col].id,
                           tp->sort.reverse };
    if (v->lines > 1)
        sorted_sort_r(tp->rows, v->lines, sizeof(*tp->rows), row_cmp, &sa);
    load_series(v);
}

/* A thread's time, on CPU and off it by reason, most first: "disk I/O
 * 62%  on CPU 30%  lock 8%" into c->buf. */
static const char *why_text(const struct model *m, uint32_t thread,
                            struct view_cell *c)
{
    struct profile_reason_count r[17];
    size_t n = profile_thread_reasons(m->snap, thread, r, 16), o = 0;
    const struct profile_thread *th = profile_thread_at(m->snap, thread);
    uint64_t all = profile_node(m->snap, th->node)->total, off = 0;

    if (!all)
        return NULL;
    for (size_t i = 0; i < n; i++)
        off += r[i].samples;
    /* on CPU (PROFILE_NONE) takes its place among them by its share */
    size_t at = 0;
    while (at < n && r[at].samples > all - off)
        at++;
    memmove(r + at + 1, r + at, (n - at) * sizeof(*r));
    r[at] = (struct profile_reason_count){ PROFILE_NONE, all - off };
    c->buf[0] = '\0';
    for (size_t i = 0; i <= n && o < sizeof(c->buf); i++) {
        char label[128];
        /* what rounds to 0% says nothing */
        if (200 * r[i].samples < all)
            continue;
        const char *what =
            r[i].frame == PROFILE_NONE
                ? "on CPU"
                : profile_reason_label(profile_frame(m->snap, r[i].frame),
                                       label, sizeof(label));
        int w = snprintf(c->buf + o, sizeof(c->buf) - o, "%s%s %.0f%%",
                         o ? "  " : "", what,
                         100.0 * (double)r[i].samples / (double)all);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return c->buf;
}

/* CPU columns only for a live target (a file has no live tasks); strips
 * when the data has times, unless the reasons take their place. */
static bool threads_shown(struct view *v, int col)
{
    const struct source_status *st = v->ctx->status;
    const struct threads_priv *tp = v->priv;

    bool why = v->ctx->model && v->ctx->model->has_reasons;
    if (col == THC_STRIP)
        return tp->nsec > 0 && !why;
    if (col == THC_WHY)
        return why;
    return (col != THC_CPU && col != THC_TIME) || (st && !st->is_file);
}

static void threads_cell(struct view *v, size_t line, int col,
                         struct view_cell *c)
{
    const struct threads_priv *tp = v->priv;
    const struct model *m = v->ctx->model;
    const struct thread_row *r = &tp->rows[line];
    const struct profile_thread *th = profile_thread_at(m->snap, r->index);
    const struct source_task *cpu = r->cpu;
    double all = (double)profile_node(m->snap, PROFILE_ROOT)->total;

    switch ((enum threads_col)col) {
    case THC_MARK:
        if (m->thread == r->index) {
            c->text = "*";
            c->attr = v->ctx->theme->attr[UC_VALUE];
        }
        break;
    case THC_TID:  /* exited threads' aggregate: no thread of its own */
        cell_printf(c, profile_thread_is_folded(th) ? "-" : "%" PRId64,
                    th->tid);
        break;
    case THC_NAME:
        c->text = th->name ? th->name : "?";
        break;
    case THC_SAMPLES:
        cell_weight(v, c, r->samples);
        break;
    case THC_SHARE:
        cell_pct(v, c, (double)r->samples, all);
        break;
    case THC_CPU:
    case THC_TIME:
    case THC_STATE:
        cpustat_cell((enum cpustat_col)(col - THC_CPU), cpu, r->state, c);
        break;
    case THC_WHY:
        c->text = why_text(m, r->index, c);
        break;
    case THC_STRIP:
        c->text = strip(v, r->index, c->width, c);
        c->attr = v->ctx->theme->attr[UC_INFO];
        break;
    }
}

static uint64_t threads_line_key(struct view *v, size_t line)
{
    const struct threads_priv *tp = v->priv;

    return (uint64_t)profile_thread_at(v->ctx->model->snap,
                                       tp->rows[line].index)->tid;
}

/* A search matches the thread's frame name, "NAME-TID". */
static const char *threads_line_name(struct view *v, size_t line, char *buf,
                                     size_t n)
{
    const struct threads_priv *tp = v->priv;
    const struct model *m = v->ctx->model;
    const struct profile_thread *th =
        profile_thread_at(m->snap, tp->rows[line].index);

    snprintf(buf, n, "%s", model_frame_name(m, th->frame));
    return buf;
}

static const struct profile_thread *threads_line_thread(struct view *v,
                                                        size_t line)
{
    const struct threads_priv *tp = v->priv;

    return profile_thread_at(v->ctx->model->snap, tp->rows[line].index);
}

/* Enter: only the thread under the cursor. */
static bool threads_pick(struct view *v, enum request req)
{
    (void)req;
    ctx_show_thread(v->ctx, threads_line_thread(v, v->cursor));
    return true;
}

static const struct view_action threads_actions[] = {
    { REQ_ENTER, threads_pick, true },
    { REQ_NONE, NULL, false },
};

static const char *threads_info(struct view *v, char *buf, size_t n)
{
    const struct threads_priv *tp = v->priv;
    const struct model *m = v->ctx->model;

    if (!m)
        return NULL;
    /* The order by TID goes without saying. */
    bool said = threads_cols[tp->sort.col].id != THC_TID || tp->sort.reverse;
    snprintf(buf, n, "%zu threads%s%s%s", v->lines,
             said ? ", by " : "", said ? threads_cols[tp->sort.col].sort : "",
             tp->sort.reverse ? " (rev)" : "");
    return buf;
}

static struct view_sort *threads_sort(struct view *v)
{
    return &((struct threads_priv *)v->priv)->sort;
}

static void threads_close(struct view *v)
{
    struct threads_priv *tp = v->priv;

    free(tp->rows);
    source_tasks_free(&tp->tasks);
    free(tp->series);
    free(tp->cols);
}

const struct view_ops threads_view_ops = {
    .name = "Threads", .priv_size = sizeof(struct threads_priv),
    .refresh = threads_refresh, .close = threads_close,
    VIEW_COLUMNS(threads_cols), .cell = threads_cell, .shown = threads_shown,
    .sort = threads_sort,
    .actions = threads_actions,
    .line_key = threads_line_key, .line_name = threads_line_name,
    .line_thread = threads_line_thread,
    .info = threads_info,
    .needs_stacks = true,
    .live_tasks = true,
};
