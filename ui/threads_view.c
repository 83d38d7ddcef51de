/* threads_view.c - the threads view.
 *
 * See threads_view.h.  Thread states come from /proc/PID/task/TID/stat,
 * read once per refresh for each thread: plain procfs reads, no ptrace,
 * so the UI thread never waits on the target.
 */
#include "threads_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct thread_row {
    uint32_t index;     /* thread index in the snapshot */
    uint64_t samples;   /* its thread node's total */
    char state[16];     /* "running", "sleeping", "exited", "-" */
};

struct threads_priv {
    struct thread_row *rows;
    size_t cap;
};

/* State letter of /proc/PID/task/TID/stat in words; "exited" when the
 * thread is gone. */
static void thread_state(pid_t pid, int64_t tid, char *buf, size_t n)
{
    char path[64], line[512];
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/task/%" PRId64 "/stat", (int)pid,
             tid);
    f = fopen(path, "re");
    if (!f) {
        snprintf(buf, n, "exited");
        return;
    }
    size_t len = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[len] = '\0';
    /* The comm field may hold spaces and parentheses: the state follows
     * the last ')'. */
    const char *p = strrchr(line, ')');
    char c = p && p[1] == ' ' ? p[2] : '?';
    const char *word;
    switch (c) {
    case 'R': word = "running"; break;
    case 'S': word = "sleeping"; break;
    case 'D': word = "disk wait"; break;
    case 'T': word = "stopped"; break;
    case 't': word = "traced"; break;
    case 'Z': word = "zombie"; break;
    case 'X': word = "dead"; break;
    case 'I': word = "idle"; break;
    default: word = "?"; break;
    }
    snprintf(buf, n, "%s", word);
}

static int row_cmp(const void *a, const void *b)
{
    const struct thread_row *x = a, *y = b;

    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
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
    if (tp->cap < n) {
        struct thread_row *nr = realloc(tp->rows, n * sizeof(*nr));
        if (!nr)
            return;
        tp->rows = nr;
        tp->cap = n;
    }
    bool live = st && st->pid > 0 && (st->state == TARGET_RUNNING ||
                                      st->state == TARGET_STOPPED);
    for (uint32_t i = 0; i < n; i++) {
        const struct profile_thread *th = profile_thread_at(m->snap, i);
        struct thread_row *r = &tp->rows[v->lines++];
        r->index = i;
        r->samples = profile_node(m->snap, th->node)->total;
        if (live)
            thread_state(st->pid, th->tid, r->state, sizeof(r->state));
        else
            snprintf(r->state, sizeof(r->state), "%s",
                     st && st->state == TARGET_EXITED ? "exited" : "-");
    }
    if (v->lines > 1)
        qsort(tp->rows, v->lines, sizeof(*tp->rows), row_cmp);
}

static void threads_header(struct view *v, int y, int width)
{
    const struct theme *t = v->ctx->theme;

    draw_fmt(t, y, 0, width, t->attr[UC_COLHDR], "   %9s  %-16s  %8s  %6s  %s",
             "TID", "Name", "Samples", "Share", "State");
}

static void threads_draw(struct view *v, size_t line, int y, int width)
{
    const struct threads_priv *tp = v->priv;
    const struct model *m = v->ctx->model;
    const struct theme *t = v->ctx->theme;
    const struct thread_row *r = &tp->rows[line];
    const struct profile_thread *th = profile_thread_at(m->snap, r->index);
    double all = (double)profile_node(m->snap, PROFILE_ROOT)->total;
    char a[32];

    if (m->thread == r->index)
        draw_text(t, y, 1, 1, "*", t->attr[UC_VALUE], 0);
    snprintf(a, sizeof(a), "%" PRId64, th->tid);
    draw_text(t, y, 3, 9, a, t->attr[UC_NORMAL], DT_RIGHT);
    draw_text(t, y, 14, 16, th->name ? th->name : "?", t->attr[UC_NORMAL],
              DT_ELLIPSIS);
    draw_text(t, y, 32, 8, fmt_count(r->samples, 8, a, sizeof(a)),
              t->attr[UC_NORMAL], DT_RIGHT);
    draw_text(t, y, 42, 6, fmt_pct((double)r->samples, all, a, sizeof(a)),
              theme_heat(t, all > 0 ? (double)r->samples / all : 0), DT_RIGHT);
    draw_text(t, y, 50, width - 50, r->state, t->attr[UC_NORMAL], 0);
}

static uint64_t threads_line_key(struct view *v, size_t line)
{
    const struct threads_priv *tp = v->priv;

    return (uint64_t)profile_thread_at(v->ctx->model->snap,
                                       tp->rows[line].index)->tid;
}

/* Enter: only the thread under the cursor. */
static bool threads_pick(struct view *v, enum request req)
{
    const struct threads_priv *tp = v->priv;

    (void)req;
    if (!v->lines)
        return false;
    const struct profile_thread *th =
        profile_thread_at(v->ctx->model->snap, tp->rows[v->cursor].index);
    v->ctx->filter.has_thread = true;
    v->ctx->filter.tid = th->tid;
    v->ctx->want_model = true;
    ctx_message(v->ctx, false, "showing thread %s (%" PRId64 ") only; "
                "A shows all threads", th->name ? th->name : "?", th->tid);
    return true;
}

static const struct view_action threads_actions[] = {
    { REQ_ENTER, threads_pick },
    { REQ_NONE, NULL },
};

static const char *threads_info(struct view *v, char *buf, size_t n)
{
    const struct model *m = v->ctx->model;

    if (!m)
        return NULL;
    snprintf(buf, n, "%u threads", profile_thread_count(m->snap));
    return buf;
}

static int threads_open(struct view *v)
{
    v->priv = calloc(1, sizeof(struct threads_priv));
    return v->priv ? 0 : -1;
}

static void threads_close(struct view *v)
{
    struct threads_priv *tp = v->priv;

    if (tp)
        free(tp->rows);
    free(tp);
}

const struct view_ops threads_view_ops = {
    .name = "Threads",
    .open = threads_open,
    .refresh = threads_refresh,
    .header = threads_header,
    .draw = threads_draw,
    .actions = threads_actions,
    .line_key = threads_line_key,
    .info = threads_info,
    .close = threads_close,
};
