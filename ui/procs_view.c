/* procs_view.c - the processes view.
 *
 * See procs_view.h.  Rows are built from the snapshot's threads, grouped
 * by PID (a thread of no known process is its own "[unknown process]"
 * row, PID 0); a live process's state, %CPU and CPU time come from the
 * source's table of tasks (ctx_tasks), gathered off the UI thread.  A
 * row of processes merged by command (J) counts their threads in the
 * whole snapshot (ctx->timeline, not merged) and sums their figures.
 * The share order keeps the previous
 * refresh's order where shares are within SWAP_MARGIN of each other.
 *
 * Exited processes are rows too: the newest few each of its own, the
 * others one row per command ("cc1 (1,040 exited)", profile.h "exited
 * processes").  X hides them all (the rows the tasks table says are gone
 * and the aggregates) and shows them again; the info line says how many
 * it hides.
 */
#include "procs_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpustat.h"
#include "idtab.h"
#include "util.h"
#include "vec.h"
#include "sorted.h"

/* A row passes the one above it only with this much more of all samples
 * (a fraction), so near-equal processes keep their places. */
#define SWAP_MARGIN 0.005

struct proc_row {
    int64_t pid;        /* 0: threads of no known process */
    uint32_t thread;    /* its first thread in the snapshot (command) */
    uint32_t nthreads;
    uint64_t samples;
    size_t rank;        /* its place in the last refresh's order */
    const struct source_task *cpu; /* its figures in tasks, NULL: none (a
                                      file, gone) */
    struct source_task sum; /* processes merged (J): their figures
                               summed; cpu is then NULL and has_sum set */
    bool has_sum;
    uint32_t nprocs;    /* processes it stands for (J: of its command) */
    const char *state;  /* "running", "sleeping", "exited", "-" */
    bool exited;        /* an aggregate of exited processes, or a process
                           the tasks table says is gone */
};

struct procs_priv {
    struct proc_row *rows;
    size_t cap;
    int64_t *order;     /* the PIDs in the order of the last refresh */
    size_t norder, order_cap;
    struct idtab rows_ix; /* pid -> row, while the rows are built */
    struct idtab order_ix; /* pid -> its index in order */
    struct view_sort sort;
    struct source_tasks tasks; /* the live tasks, as of the refresh */
    bool hide_exited;   /* X: the exited rows are left out */
    size_t hidden;      /* ...how many were, at the last refresh */
    int64_t *members;   /* scratch: the PIDs of a merged row */
    size_t members_cap;
};

/* PC_CPU, PC_TIME, PC_STATE: consecutive, as CPUSTAT_COLS wants */
enum procs_col { PC_MARK, PC_PID, PC_COMMAND, PC_SHARE, PC_SAMPLES,
                 PC_THREADS, PC_CPU, PC_TIME, PC_STATE };

/* The orders o cycles through: share (the first), then PID. */
static const struct view_col procs_cols[] = {
    { .id = PC_MARK, .width = 1 },       /* '*': the process shown alone */
    { .id = PC_PID, .title = "PID", .width = 9, .gap = 1,
      .flags = DT_RIGHT, .sort = "pid" },
    { .id = PC_SHARE, .title = "Share", .width = 6, .flags = DT_RIGHT,
      .sort = "share" },
    { .id = PC_SAMPLES, .title = "Samples", .width = 8, .flags = DT_RIGHT },
    { .id = PC_THREADS, .title = "Threads", .width = 7, .flags = DT_RIGHT },
    /* a live target's, from the source's tasks (top's) */
    CPUSTAT_COLS(PC_CPU, NULL),
    { .id = PC_COMMAND, .title = "Command", .flags = DT_ELLIPSIS },
};

struct pid_key {
    const struct procs_priv *pp;
    int64_t want;
};

static int row_eq(void *ctx, uint32_t id)
{
    const struct pid_key *k = ctx;

    return k->pp->rows[id].pid == k->want;
}

static int order_eq(void *ctx, uint32_t id)
{
    const struct pid_key *k = ctx;

    return k->pp->order[id] == k->want;
}

/* Where pid is in the index ix of n entries, whose eq compares an
 * entry's pid with a pid_key's, or n when it is not there. */
static size_t pid_index(const struct procs_priv *pp, const struct idtab *ix,
                        size_t n, int (*eq)(void *, uint32_t), int64_t pid)
{
    struct pid_key k = { pp, pid };
    uint32_t id = n ? idtab_find(ix, util_mix64((uint64_t)pid), eq, &k)
                    : IDTAB_NONE;

    return id == IDTAB_NONE ? n : id;
}

/* The row of pid, or n (the rows so far) when it has none. */
static size_t row_of(const struct procs_priv *pp, size_t n, int64_t pid)
{
    return pid_index(pp, &pp->rows_ix, n, row_eq, pid);
}

/* One row per process, in thread order; 0 or -1 on OOM.  O(threads). */
static int build_rows(struct view *v, const struct profile *snap)
{
    struct procs_priv *pp = v->priv;
    uint32_t n = profile_thread_count(snap);

    v->lines = 0;
    idtab_clear(&pp->rows_ix);
    for (uint32_t t = 0; t < n; t++) {
        const struct profile_thread *th = profile_thread_at(snap, t);
        size_t i = row_of(pp, v->lines, th->pid);

        if (i == v->lines) {
            if (VEC_RESERVE(pp->rows, pp->cap, v->lines + 1) < 0 ||
                idtab_insert(&pp->rows_ix, util_mix64((uint64_t)th->pid),
                             (uint32_t)v->lines) < 0)
                return -1;
            pp->rows[v->lines++] = (struct proc_row){ .pid = th->pid,
                                                      .thread = t };
        }
        pp->rows[i].nthreads++;
        pp->rows[i].samples += profile_node(snap, th->node)->total;
    }
    for (size_t i = 0; i < v->lines; i++) {
        const struct profile_thread *th =
            profile_thread_at(snap, pp->rows[i].thread);
        pp->rows[i].nprocs = th->processes ? th->processes : 1;
        /* merged: the threads of its processes, not its merged ones */
        if (th->processes && v->ctx->timeline)
            profile_command_members(v->ctx->timeline, th->process, NULL, 0,
                                    &pp->rows[i].nthreads);
    }
    return 0;
}

/* Rank of a PID in the last refresh's order (new ones last). */
static size_t old_rank(const struct procs_priv *pp, int64_t pid)
{
    return pid_index(pp, &pp->order_ix, pp->norder, order_eq, pid);
}

/* The old order, newcomers after it by samples (then PID). */
static int by_rank(const void *a, const void *b)
{
    const struct proc_row *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static int by_pid(const void *a, const void *b)
{
    const struct proc_row *x = a, *y = b;

    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Hottest first, with hysteresis: from the last order (new processes
 * after, by samples), a row moves up past one only when it has more than
 * SWAP_MARGIN of all samples more.  O(rows log rows) and the moves,
 * which are few when the order holds. */
static void sort_by_share(struct procs_priv *pp, size_t n, uint64_t all)
{
    double margin = SWAP_MARGIN * (double)all;

    for (size_t i = 0; i < n; i++)
        pp->rows[i].rank = old_rank(pp, pp->rows[i].pid);
    sorted_sort(pp->rows, n, sizeof(*pp->rows), by_rank);
    for (size_t i = 1; i < n; i++) {
        struct proc_row r = pp->rows[i];
        size_t j = i;

        while (j > 0 && (double)r.samples >
                            (double)pp->rows[j - 1].samples + margin) {
            pp->rows[j] = pp->rows[j - 1];
            j--;
        }
        pp->rows[j] = r;
    }
}

/* Whether the processes are live, so the source has their figures. */
static bool procs_live(const struct view *v)
{
    const struct source_status *st = v->ctx->status;

    return st && !st->is_file && (st->state == TARGET_RUNNING ||
                                  st->state == TARGET_STOPPED);
}

/* The state that says most of several processes: one running makes the
 * command running, else the first live one's. */
static char merged_state(char a, char b)
{
    return a == 'R' || !b ? a : b == 'R' || !a ? b : a;
}

/* A row of processes merged by command: the sum of their figures (their
 * CPU time and %CPU add up, as top's do for a process's threads), from
 * the whole snapshot's PIDs of that command.  false when none is live. */
static bool sum_members(struct view *v, struct proc_row *r,
                        const struct profile_thread *th)
{
    struct procs_priv *pp = v->priv;
    uint32_t nth;
    size_t n = profile_command_members(v->ctx->timeline, th->process, NULL,
                                       0, &nth);

    if (!n || VEC_RESERVE(pp->members, pp->members_cap, n) < 0)
        return false;
    n = profile_command_members(v->ctx->timeline, th->process, pp->members,
                                n, &nth);
    r->sum = (struct source_task){ .pid = r->pid, .cpu_pct = -1 };
    for (size_t k = 0; k < n; k++) {
        const struct source_task *t =
            source_task_find(&pp->tasks, pp->members[k], 0);
        if (!t || !t->state)
            continue;
        r->sum.cpu_ns += t->cpu_ns;
        if (t->cpu_pct >= 0)
            r->sum.cpu_pct = (r->sum.cpu_pct < 0 ? 0 : r->sum.cpu_pct) +
                             t->cpu_pct;
        r->sum.state = merged_state(r->sum.state, t->state);
    }
    return r->sum.state != 0;
}

/* Each row's state and CPU time, for a live target. */
static void read_cpu(struct view *v, const struct profile *snap)
{
    struct procs_priv *pp = v->priv;
    bool live = procs_live(v) && ctx_tasks(v->ctx, &pp->tasks);

    for (size_t i = 0; i < v->lines; i++) {
        struct proc_row *r = &pp->rows[i];
        const struct profile_thread *th = profile_thread_at(snap, r->thread);

        r->cpu = NULL;
        r->has_sum = false;
        r->state = "-";
        r->exited = profile_thread_is_exited(th);
        if (r->exited)
            r->state = cpustat_state(0);
        if (!live || !r->pid || r->exited)
            continue;
        if (th->processes > 1) {
            if (v->ctx->timeline && sum_members(v, r, th)) {
                r->has_sum = true;
                r->state = cpustat_state(r->sum.state);
            } else {
                r->state = cpustat_state(0);
            }
            continue;
        }
        r->cpu = source_task_find(&pp->tasks, r->pid, 0);
        if (r->cpu)
            r->state = cpustat_state(r->cpu->state);
        if (r->cpu && !r->cpu->state) {
            r->cpu = NULL;  /* gone: no figures */
            r->exited = true;
        }
    }
}

/* X: the rows of exited processes left out. */
static void drop_exited(struct view *v)
{
    struct procs_priv *pp = v->priv;
    size_t n = 0;

    pp->hidden = 0;
    if (!pp->hide_exited)
        return;
    for (size_t i = 0; i < v->lines; i++) {
        if (pp->rows[i].exited)
            pp->hidden++;
        else
            pp->rows[n++] = pp->rows[i];
    }
    v->lines = n;
}

static void procs_refresh(struct view *v)
{
    struct procs_priv *pp = v->priv;
    const struct model *m = v->ctx->model;

    v->lines = 0;
    if (!m || build_rows(v, m->snap) < 0)
        return;
    read_cpu(v, m->snap);
    drop_exited(v);
    if (procs_cols[pp->sort.col].id == PC_PID)
        sorted_sort(pp->rows, v->lines, sizeof(*pp->rows), by_pid);
    else
        sort_by_share(pp, v->lines,
                      profile_node(m->snap, PROFILE_ROOT)->total);
    if (pp->sort.reverse)
        for (size_t i = 0, j = v->lines; i + 1 < j--; i++) {
            struct proc_row r = pp->rows[i];
            pp->rows[i] = pp->rows[j];
            pp->rows[j] = r;
        }
    if (VEC_RESERVE(pp->order, pp->order_cap, v->lines ? v->lines : 1) < 0) {
        pp->norder = 0;
        return;
    }
    pp->norder = 0;
    idtab_clear(&pp->order_ix);
    if (idtab_reserve(&pp->order_ix, v->lines) < 0)
        return;  /* no order kept: the next refresh sorts afresh */
    for (size_t i = 0; i < v->lines; i++) {
        pp->order[i] = pp->rows[i].pid;
        (void)idtab_insert(&pp->order_ix, util_mix64((uint64_t)pp->order[i]),
                           (uint32_t)i);
    }
    pp->norder = v->lines;
}

static const struct profile_thread *row_thread(struct view *v, size_t line)
{
    const struct procs_priv *pp = v->priv;

    return profile_thread_at(v->ctx->model->snap, pp->rows[line].thread);
}

static void procs_cell(struct view *v, size_t line, int col,
                       struct view_cell *c)
{
    const struct procs_priv *pp = v->priv;
    const struct model *m = v->ctx->model;
    const struct proc_row *r = &pp->rows[line];
    const struct source_task *cpu = r->has_sum ? &r->sum : r->cpu;

    switch ((enum procs_col)col) {
    case PC_MARK:
        if (m->pid && m->pid == r->pid) {
            c->text = "*";
            c->attr = v->ctx->theme->attr[UC_VALUE];
        }
        break;
    case PC_PID:  /* exited processes' aggregate: no PID (< 0) */
        cell_printf(c, r->pid > 0 ? "%" PRId64 : "-", r->pid);
        break;
    case PC_COMMAND:
        c->text = profile_process_label(row_thread(v, line), false, c->buf,
                                        sizeof(c->buf));
        break;
    case PC_SHARE:
        cell_pct(v, c, (double)r->samples,
                 (double)profile_node(m->snap, PROFILE_ROOT)->total);
        break;
    case PC_SAMPLES:
        cell_weight(v, c, r->samples);
        break;
    case PC_THREADS:
        cell_printf(c, "%u", r->nthreads);
        break;
    case PC_CPU:
    case PC_TIME:
    case PC_STATE:
        cpustat_cell((enum cpustat_col)(col - PC_CPU), cpu, r->state, c);
        break;
    }
}

/* CPU columns only for a live target: a file has no /proc. */
static bool procs_shown(struct view *v, int col)
{
    return (col != PC_CPU && col != PC_TIME && col != PC_STATE) ||
           procs_live(v);
}

static uint64_t procs_line_key(struct view *v, size_t line)
{
    return (uint64_t)((const struct procs_priv *)v->priv)->rows[line].pid;
}

/* A search matches "PID COMMAND". */
static const char *procs_line_name(struct view *v, size_t line, char *buf,
                                   size_t n)
{
    const struct procs_priv *pp = v->priv;
    char comm[256];

    snprintf(buf, n, "%" PRId64 " %s", pp->rows[line].pid,
             profile_process_label(row_thread(v, line), false, comm,
                                   sizeof(comm)));
    return buf;
}

static int64_t procs_line_process(struct view *v, size_t line)
{
    return ((const struct procs_priv *)v->priv)->rows[line].pid;
}

/* Enter: only the process under the cursor. */
static bool procs_pick(struct view *v, enum request req)
{
    (void)req;
    ctx_show_process(v->ctx, row_thread(v, v->cursor));
    return true;
}

/* X: hide the exited processes, or show them again. */
static bool procs_hide_exited(struct view *v, enum request req)
{
    struct procs_priv *pp = v->priv;

    (void)req;
    pp->hide_exited = !pp->hide_exited;
    view_refresh(v);
    if (pp->hide_exited)
        ctx_message(v->ctx, false, "%zu exited process row%s hidden "
                    "(X: show)", pp->hidden, pp->hidden == 1 ? "" : "s");
    else
        ctx_message(v->ctx, false, "exited processes shown (X: hide)");
    return true;
}

static const struct view_action procs_actions[] = {
    { REQ_ENTER, procs_pick, true },
    { REQ_HIDE_EXITED, procs_hide_exited, false },
    { REQ_NONE, NULL, false },
};

static const char *procs_info(struct view *v, char *buf, size_t n)
{
    const struct procs_priv *pp = v->priv;

    size_t procs = 0;

    if (!v->ctx->model)
        return NULL;
    for (size_t i = 0; i < v->lines; i++)
        procs += pp->rows[i].nprocs;
    char rows[48] = "", hidden[48] = "";
    if (procs != v->lines) /* J: a row per command */
        snprintf(rows, sizeof rows, " in %zu row%s", v->lines,
                 v->lines == 1 ? "" : "s");
    if (pp->hide_exited)
        snprintf(hidden, sizeof hidden, " (%zu exited hidden)", pp->hidden);
    snprintf(buf, n, "%zu process%s%s%s, by %s%s", procs,
             procs == 1 ? "" : "es", rows, hidden,
             procs_cols[pp->sort.col].sort, pp->sort.reverse ? " (rev)" : "");
    return buf;
}

static struct view_sort *procs_sort(struct view *v)
{
    struct procs_priv *pp = v->priv;

    /* The share order starts over from the samples alone. */
    pp->norder = 0;
    return &pp->sort;
}

/* Share first: view_init starts on the first column that sorts (PID). */
static int procs_open(struct view *v)
{
    ((struct procs_priv *)v->priv)->sort.col = 2;
    return 0;
}

static void procs_close(struct view *v)
{
    struct procs_priv *pp = v->priv;

    free(pp->rows);
    free(pp->members);
    free(pp->order);
    idtab_free(&pp->rows_ix);
    idtab_free(&pp->order_ix);
    source_tasks_free(&pp->tasks);
}

const struct view_ops procs_view_ops = {
    .name = "Procs", .priv_size = sizeof(struct procs_priv),
    .open = procs_open, .refresh = procs_refresh, .close = procs_close,
    VIEW_COLUMNS(procs_cols), .cell = procs_cell, .shown = procs_shown,
    .sort = procs_sort,
    .actions = procs_actions,
    .line_key = procs_line_key, .line_name = procs_line_name,
    .line_process = procs_line_process,
    .info = procs_info,
    .needs_stacks = true,
    .live_tasks = true,
};
