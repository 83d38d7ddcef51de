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

#include "vec.h"

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
    if (VEC_RESERVE(tp->rows, tp->cap, n) < 0)
        return;
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

enum threads_col { THC_MARK, THC_TID, THC_NAME, THC_SAMPLES, THC_SHARE,
                   THC_STATE };

static const struct view_col threads_cols[] = {
    { .id = THC_MARK, .width = 1 },       /* '*': the thread shown alone */
    { .id = THC_TID, .title = "TID", .width = 9, .gap = 1,
      .flags = DT_RIGHT },
    { .id = THC_NAME, .title = "Name", .width = 16, .flags = DT_ELLIPSIS },
    { .id = THC_SAMPLES, .title = "Samples", .width = 8, .flags = DT_RIGHT },
    { .id = THC_SHARE, .title = "Share", .width = 6, .flags = DT_RIGHT },
    { .id = THC_STATE, .title = "State" },
};

static void threads_cell(struct view *v, size_t line, int col,
                         struct view_cell *c)
{
    const struct threads_priv *tp = v->priv;
    const struct model *m = v->ctx->model;
    const struct thread_row *r = &tp->rows[line];
    const struct profile_thread *th = profile_thread_at(m->snap, r->index);
    double all = (double)profile_node(m->snap, PROFILE_ROOT)->total;

    switch ((enum threads_col)col) {
    case THC_MARK:
        if (m->thread == r->index) {
            c->text = "*";
            c->attr = v->ctx->theme->attr[UC_VALUE];
        }
        break;
    case THC_TID:
        snprintf(c->buf, sizeof(c->buf), "%" PRId64, th->tid);
        c->text = c->buf;
        break;
    case THC_NAME:
        c->text = th->name ? th->name : "?";
        break;
    case THC_SAMPLES:
        cell_count(c, r->samples);
        break;
    case THC_SHARE:
        cell_pct(v, c, (double)r->samples, all);
        break;
    case THC_STATE:
        c->text = r->state;
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

/* Enter: only the thread under the cursor. */
static bool threads_pick(struct view *v, enum request req)
{
    const struct threads_priv *tp = v->priv;

    (void)req;
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
    { REQ_ENTER, threads_pick, true },
    { REQ_NONE, NULL, false },
};

static const char *threads_info(struct view *v, char *buf, size_t n)
{
    const struct model *m = v->ctx->model;

    if (!m)
        return NULL;
    snprintf(buf, n, "%u threads", profile_thread_count(m->snap));
    return buf;
}

static void threads_close(struct view *v)
{
    free(((struct threads_priv *)v->priv)->rows);
}

const struct view_ops threads_view_ops = {
    .name = "Threads", .priv_size = sizeof(struct threads_priv),
    .refresh = threads_refresh, .close = threads_close,
    VIEW_COLUMNS(threads_cols), .cell = threads_cell,
    .actions = threads_actions,
    .line_key = threads_line_key, .line_name = threads_line_name,
    .info = threads_info,
};
