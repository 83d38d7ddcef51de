/* frame.c - the frame around the view: header, tabs, footer, messages.
 *
 * See frame.h.  It reads every part of the shell (ui_state.h) and
 * changes none but the tabs' record of the layout; frame_dump writes
 * what curses holds, for the screen tests.
 */
#include "frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "ui_state.h"
#include "view_model.h"

/* Below this the layout cannot show one body row with its bars. */
#define MIN_COLS 40
#define MIN_LINES 7

struct hdr {
    struct ui *ui;
    int y, x, width;
};

/* Append "Label: value" if it fits on the row; fields that do not fit
 * are left out rather than cut in the middle. */
static void hdr_field(struct hdr *h, const char *label, attr_t vattr,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void hdr_field(struct hdr *h, const char *label, attr_t vattr,
                      const char *fmt, ...)
{
    const struct theme *t = &h->ui->theme;
    char val[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(val, sizeof(val), fmt, ap);
    va_end(ap);
    int need = (label[0] ? text_width(t, label) + 1 : 0) + text_width(t, val);
    int start = h->x > 1 ? h->x + 2 : h->x;
    if (start + need > h->width)
        return;
    h->x = start;
    if (label[0]) {
        h->x += draw_text(t, h->y, h->x, h->width - h->x, label,
                          t->attr[UC_LABEL], 0);
        h->x += 1;
    }
    h->x += draw_text(t, h->y, h->x, h->width - h->x, val, vattr, 0);
}

static const char *state_text(const struct source_status *s, char *buf,
                              size_t n)
{
    switch (s->state) {
    case TARGET_NONE:
        snprintf(buf, n, "%s", s->is_file ? "loaded file" : "no target");
        break;
    case TARGET_RUNNING:
        snprintf(buf, n, "running");
        break;
    case TARGET_STOPPED:
        snprintf(buf, n, "stopped by user");
        break;
    case TARGET_EXITED:
        if (s->exit_signal) {
            const char *abbr = sigabbrev_np(s->exit_signal);
            if (abbr)
                snprintf(buf, n, "killed by SIG%s", abbr);
            else
                snprintf(buf, n, "killed by signal %d", s->exit_signal);
        } else {
            snprintf(buf, n, "exited (code %d)", s->exit_code);
        }
        break;
    case TARGET_DETACHED:
        snprintf(buf, n, "detached");
        break;
    }
    return buf;
}

static const char *thread_text(const struct ui *ui, char *buf, size_t n)
{
    const struct model *m = ui->feed.model;

    if (!ui->ctx.filter.has_thread)
        return "all";
    if (m && m->thread != PROFILE_NONE) {
        const struct profile_thread *th = profile_thread_at(m->snap, m->thread);
        snprintf(buf, n, "%s (%lld)", th->name ? th->name : "?",
                 (long long)th->tid);
    } else {
        snprintf(buf, n, "%lld", (long long)ui->ctx.filter.tid);
    }
    return buf;
}

/* The process filter as the header shows it: "all", or "redis (pid
 * 200)"; NULL when the profile has one process and no filter (nothing
 * to say). */
static const char *process_text(const struct ui *ui, char *buf, size_t n)
{
    const struct model *m = ui->feed.model;

    if (!ui->ctx.filter.has_process)
        return m && profile_several_processes(m->snap) ? "all" : NULL;
    for (uint32_t i = 0; m && i < profile_thread_count(m->snap); i++)
        if (m->pid && profile_thread_at(m->snap, i)->pid == m->pid)
            return profile_process_label(profile_thread_at(m->snap, i), true,
                                         buf, n);
    snprintf(buf, n, "%lld", (long long)ui->ctx.filter.pid);
    return buf;
}

/* Rows of header shown for the screen height: the less important rows
 * go first when the terminal is short. */
static int header_rows(void)
{
    return LINES >= 20 ? 4 : LINES >= 14 ? 3 : LINES >= 10 ? 2 : 1;
}

/* The baseline's name right-aligned before column `right` (" vs NAME ",
 * dimmed while its change is hidden), in at most half the row; returns
 * the columns it took. */
static int baseline_badge(struct ui *ui, int right)
{
    const struct theme *t = &ui->theme;
    char badge[sizeof(ui->scope.baseline_name) + 8];

    if (!ui->scope.baseline)
        return 0;
    snprintf(badge, sizeof(badge), " vs %s ", ui->scope.baseline_name);
    int w = text_width(t, badge);
    if (w > COLS / 2)
        w = COLS / 2;
    draw_text(t, 0, right - w, w, badge,
              t->attr[ui->scope.diff ? UC_SELECT : UC_DIM], DT_ELLIPSIS);
    return w;
}

/* Row 0: what is profiled, the baseline and the PAUSED badge on the
 * right. */
static void header_target(struct ui *ui)
{
    const struct source_status *s = &ui->feed.status;
    const struct theme *t = &ui->theme;
    struct hdr h = { ui, 0, 1, COLS };
    int right = COLS;

    if (s->paused) {
        right = COLS - 8;
        draw_text(t, 0, right, 8, " PAUSED ", t->attr[UC_PAUSED], 0);
    }
    right -= baseline_badge(ui, right);
    h.width = right - 1;
    if (s->is_file) {
        hdr_field(&h, "file:", t->attr[UC_VALUE], "%s",
                  s->cmdline[0] ? s->cmdline : s->comm);
        return;
    }
    const struct model *m = ui->feed.model;
    const char *what = s->cmdline[0] ? s->cmdline : s->comm;
    char pids[256], label[128];
    /* the whole snapshot's processes: J merges them in m->snap only */
    size_t np = ui->feed.snap ? profile_pid_list(ui->feed.snap, pids,
                                                 sizeof pids) : 0;
    if (m && ui->ctx.filter.has_process && m->pid) {
        /* one process shown alone: it, not the session's first */
        for (uint32_t i = 0; i < profile_thread_count(m->snap); i++)
            if (profile_thread_at(m->snap, i)->pid == m->pid) {
                what = profile_process_label(profile_thread_at(m->snap, i),
                                             false, label, sizeof label);
                break;
            }
        hdr_field(&h, "PID", t->attr[UC_VALUE], "%lld", (long long)m->pid);
    } else if (np > 1) {
        if (s->pid <= 0) /* -a: how many, not which */
            hdr_field(&h, "Processes:", t->attr[UC_VALUE], "%zu", np);
        else
            hdr_field(&h, "PIDs", t->attr[UC_VALUE], "%s", pids);
    } else if (s->pid > 0) {
        /* -a has no target PID: its command line says so */
        hdr_field(&h, "PID", t->attr[UC_VALUE], "%d", (int)s->pid);
    }
    /* The command line takes what is left, clipped. */
    int start = h.x + 2;
    if (start < h.width)
        draw_text(t, 0, start, h.width - start, what, t->attr[UC_NORMAL],
                  DT_ELLIPSIS);
}

/* The threads the threads view lists (the snapshot's, of the process
 * shown alone), and the live ones of those processes (the sampler's,
 * sleeping ones included, which an on-CPU profile may not have sampled
 * yet); *live is 0 for a file. */
static uint32_t header_threads(const struct ui *ui, uint32_t *live)
{
    const struct model *m = ui->feed.model;
    const struct source_tasks *t = &ui->feed.hcpu.tasks;
    uint32_t n = 0;

    *live = ui->feed.status.is_file ? 0 : ui->feed.status.threads;
    if (!m)
        return ui->feed.status.threads;
    for (uint32_t i = 0; i < profile_thread_count(m->snap); i++)
        n += !m->pid || profile_thread_at(m->snap, i)->pid == m->pid;
    if (m->pid && *live) {
        *live = 0;
        for (size_t i = 0; i < t->n; i++)
            *live += t->v[i].pid == m->pid && t->v[i].tid && t->v[i].state;
    }
    return n;
}

/* Row 1: the target's state and the sampling rate. */
static void header_state(struct ui *ui)
{
    const struct source_status *s = &ui->feed.status;
    const struct theme *t = &ui->theme;
    attr_t v = t->attr[UC_VALUE];
    struct hdr h = { ui, 1, 1, COLS };
    char a[64], b[64], c[64];

    uint32_t live, shown = header_threads(ui, &live);
    if (live && live != shown)
        hdr_field(&h, "Threads:", v, "%u (%u live)", shown, live);
    else
        hdr_field(&h, "Threads:", v, "%u", shown);
    hdr_field(&h, "State:", s->state == TARGET_EXITED ? t->attr[UC_ERROR] : v,
              "%s", state_text(s, a, sizeof(a)));
    hdr_field(&h, "Mode:", v, "%s", s->idle ? "wall-clock (idle)" : "on-CPU");
    /* A loaded file may not say how often it was sampled. */
    if (!s->interval_ns)
        return;
    double asked = 1e9 / (double)s->interval_ns;
    hdr_field(&h, "Rate:", v, "%s", fmt_hz(asked, b, sizeof(b)));
    /* On CPU: how much of their time the live threads ran, from their
     * CPU times (oncpu.h), whatever the rate.  With --idle every thread
     * is due every tick: the rate it got says how well the sampler keeps
     * up. */
    if (s->idle && !s->is_file && s->achieved_hz > 0 && !s->paused &&
        s->state == TARGET_RUNNING)
        hdr_field(&h, "Achieved:", v, "%s",
                  fmt_hz(s->achieved_hz, c, sizeof(c)));
    else if (!s->idle && ui->feed.hcpu.on_cpu >= 0 &&
             s->state == TARGET_RUNNING)
        hdr_field(&h, "On CPU:", v, "%.0f%%", ui->feed.hcpu.on_cpu);
    hdr_field(&h, "Interval:", v, "%s",
              fmt_duration(s->interval_ns, a, sizeof(a)));
}

/* Row 2: how the sampling goes. */
static void header_counts(struct ui *ui)
{
    const struct source_status *s = &ui->feed.status;
    const struct theme *t = &ui->theme;
    attr_t v = t->attr[UC_VALUE], err = t->attr[UC_ERROR];
    struct hdr h = { ui, 2, 1, COLS };
    char a[64];

    hdr_field(&h, "Samples:", v, "%llu", (unsigned long long)s->samples);
    hdr_field(&h, "Unwind failures:", s->unwind_failures ? err : v, "%llu%s",
              (unsigned long long)s->unwind_failures,
              s->truncated_copy ? " (stack copy too small)" : "");
    if (s->throttled)
        hdr_field(&h, "Lost:", err, "%llu (throttled %llu)",
                  (unsigned long long)s->lost, (unsigned long long)s->throttled);
    else
        hdr_field(&h, "Lost:", s->lost ? err : v, "%llu",
                  (unsigned long long)s->lost);
    if (!s->is_file && s->backend[0])
        hdr_field(&h, "Sampler:", v, "%s", s->backend);
    if (!s->is_file && s->stops_target)
        hdr_field(&h, "Stop/sample:", v, "%s",
                  fmt_duration(s->median_stop_ns, a, sizeof(a)));
    /* "Python 3.11.2", or the one line saying why its frames are not
     * read (a version without a layout, BPF refused) */
    if (s->script[0])
        hdr_field(&h, "Interpreter:", strchr(s->script, ':') ? err : v,
                  "%s", s->script);
    if (s->is_file) {
        if (s->elapsed_ns)
            hdr_field(&h, "Span:", v, "%s",
                      fmt_elapsed(s->elapsed_ns, a, sizeof(a)));
        return;
    }
    uint64_t paused;
    hdr_field(&h, "Sampling:", v, "%s",
              fmt_elapsed(feed_sampling_ns(&ui->feed, &paused), a, sizeof(a)));
    if (s->paused)
        hdr_field(&h, "Paused:", v, "%s", fmt_elapsed(paused, a, sizeof(a)));
}

/* Row 3: what the views leave out. */
static void header_filters(struct ui *ui)
{
    attr_t v = ui->theme.attr[UC_VALUE];
    struct hdr h = { ui, 3, 1, COLS };
    char a[64];

    hdr_field(&h, "Hide:", v, "self %.1f%% subs %.1f%%", ui->ctx.hide_self,
              ui->ctx.hide_subs);
    /* paced by the snapshots' cost: how often new data really comes */
    double every = feed_refresh_every(&ui->feed);
    if (every > ui->feed.refresh_s * 1.05)
        hdr_field(&h, "Refresh:", v, "%gs (%.1fs: large profile)",
                  ui->feed.refresh_s, every);
    else
        hdr_field(&h, "Refresh:", v, "%gs", ui->feed.refresh_s);
    char pa[128];
    const char *proc = process_text(ui, pa, sizeof(pa));
    if (proc)
        hdr_field(&h, "Process:", v, "%s", proc);
    /* "Thread: all" says nothing a "Process:" field does not. */
    if (!proc || ui->ctx.filter.has_thread)
        hdr_field(&h, "Thread:", v, "%s", thread_text(ui, a, sizeof(a)));
    hdr_field(&h, "Focus:", v, "%s",
              ui->feed.model && ui->feed.model->focus != PROFILE_NONE
                  ? model_frame_name(ui->feed.model, ui->feed.model->focus)
                  : "none");
    if (ui->ctx.filter.python_only)
        hdr_field(&h, "Frames:", v, "script only");
    /* the fetches still waiting before K's and z's state: they change
     * what the views will show, and a narrow row drops what comes last */
    if (ui->feed.status.debuginfod)
        hdr_field(&h, "Debuginfod:", v, "%u ok %u wait %u miss",
                  ui->feed.status.dbg_found, ui->feed.status.dbg_pending,
                  ui->feed.status.dbg_missing + ui->feed.status.dbg_gave_up);
    /* K and z: what they leave out, once there is something to */
    if (ui->ctx.filter.hide_kernel ||
        (ui->feed.model && ui->feed.model->has_kernel))
        hdr_field(&h, "Kernel:", v, "%s",
                  ui->ctx.filter.hide_kernel ? "hidden" : "shown");
    if (ui->feed.model && ui->feed.model->has_reasons)
        hdr_field(&h, "Time:", v, "%s",
                  ui->ctx.filter.cpu == PROFILE_CPU_ON ? "on-CPU"
                  : ui->ctx.filter.cpu == PROFILE_CPU_OFF ? "off-CPU"
                                                          : "on+off-CPU");
}

/* The header's rows, most important first. */
static void (*const header_row[])(struct ui *ui) = {
    header_target, header_state, header_counts, header_filters,
};

static void draw_tabs(struct ui *ui, int y)
{
    const struct theme *t = &ui->theme;
    struct tabs *tb = &ui->tabs;
    int x = 0;
    char label[32], info[256];

    tb->tab_y = y;
    for (int i = 0; i < VIEW_COUNT; i++) {
        bool on = (int)tb->cur == i;
        snprintf(label, sizeof(label), on ? "[%d %s]" : " %d %s ", i + 1,
                 tabs_table[i]->name);
        tb->tab_x[i] = x;
        x += draw_text(t, y, x, COLS - x, label,
                       t->attr[on ? UC_TAB_ACTIVE : UC_TAB], 0);
    }
    tb->tab_x[VIEW_COUNT] = x;

    struct view *v = tabs_view(tb);
    const char *vi = v->ops->info ? v->ops->info(v, info, sizeof(info)) : NULL;
    char right[PROMPT_MAX + 300];
    snprintf(right, sizeof(right), "%s%s%s%s", vi ? vi : "",
             vi && ui->have_re ? "  " : "", ui->have_re ? "/" : "",
             ui->have_re ? ui->search_text : "");
    int w = text_width(t, right);
    int room = COLS - x - 1;
    if (room > 3 && right[0])
        draw_text(t, y, w < room ? COLS - 1 - w : x, w < room ? w : room,
                  right, t->attr[UC_DIM], DT_ELLIPSIS);
}

static void draw_footer(struct ui *ui, int y)
{
    const struct theme *t = &ui->theme;
    size_t n;
    const struct request_info *rt = request_table(&n);
    int x = 0;

    for (size_t i = 0; i < n; i++) {
        int keys[1];
        char name[16], label[32];
        if (!rt[i].footer || request_keys(rt[i].req, keys, 1) == 0)
            continue;
        request_key_name(keys[0], name, sizeof(name));
        snprintf(label, sizeof(label), " %s  ", rt[i].footer);
        int need = text_width(t, name) + text_width(t, label);
        if (x + need > COLS)
            break;
        x += draw_text(t, y, x, COLS - x, name, t->attr[UC_FKEY], 0);
        x += draw_text(t, y, x, COLS - x, label, t->attr[UC_FLABEL], 0);
    }
    if (x < COLS)
        draw_text(t, y, x, COLS - x, "", t->attr[UC_FLABEL], DT_PAD);
}

static void draw_message(struct ui *ui, int y)
{
    const struct theme *t = &ui->theme;

    if (ui->prompt.active) {
        prompt_draw(&ui->prompt, t, y, COLS);
        return;
    }
    if (ui->ctx.msg[0])
        draw_text(t, y, 0, COLS, ui->ctx.msg,
                  t->attr[ui->ctx.msg_error ? UC_ERROR : UC_INFO], DT_ELLIPSIS);
    else if (ui->feed.status.error[0])
        draw_text(t, y, 0, COLS, ui->feed.status.error, t->attr[UC_ERROR],
                  DT_ELLIPSIS);
    else if (ui->feed.status.fallback[0])
        draw_text(t, y, 0, COLS, ui->feed.status.fallback, t->attr[UC_INFO],
                  DT_ELLIPSIS);
    else if (ui->feed.status.kernel[0])
        draw_text(t, y, 0, COLS, ui->feed.status.kernel, t->attr[UC_INFO],
                  DT_ELLIPSIS);
}

/* A terminal too small for the layout gets a centred notice, word-wrapped
 * to whatever width there is. */
static void draw_too_small(struct ui *ui)
{
    const char *words[] = { "terminal", "too", "small" };
    char line[64] = "";
    int y = LINES / 2 - 1;

    if (y < 0)
        y = 0;
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(line);
        if (len && (int)(len + 1 + strlen(words[i])) > COLS) {
            int x = (COLS - (int)len) / 2;
            draw_text(&ui->theme, y++, x < 0 ? 0 : x, COLS, line,
                      ui->theme.attr[UC_VALUE], 0);
            line[0] = '\0';
            len = 0;
        }
        snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "",
                 words[i]);
    }
    int x = (COLS - (int)strlen(line)) / 2;
    draw_text(&ui->theme, y, x < 0 ? 0 : x, COLS, line,
              ui->theme.attr[UC_VALUE], 0);
}

void frame_draw(struct ui *ui)
{
    struct tabs *tb = &ui->tabs;

    erase();
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        tb->body_h = 0;
        draw_too_small(ui);
        curs_set(0);
        refresh();
        return;
    }
    int rows = header_rows();
    int strip = timeline_rows(ui->feed.snap);

    tb->body_top = rows + strip + 2;
    tb->body_h = LINES - tb->body_top - 2;
    /* Every view knows the page size before it places a cursor, even one
     * never drawn yet (the source view centres its hottest line). */
    for (int i = 0; i < VIEW_COUNT; i++)
        tb->views[i].height = tb->body_h;
    struct view *v = tabs_fresh(tb);
    for (int r = 0; r < rows; r++)
        header_row[r](ui);
    if (strip)
        timeline_draw(&ui->timeline, &ui->theme, ui->feed.snap, &ui->scope,
                      rows);
    draw_tabs(ui, rows + strip);
    view_draw(v, rows + strip + 1, tb->body_top, tb->body_h, COLS);
    draw_footer(ui, LINES - 1);
    draw_message(ui, LINES - 2);
    /* The prompt left the terminal cursor at its edit position. */
    curs_set(ui->prompt.active ? 1 : 0);
    refresh();
}

int frame_dump(const char *path)
{
    FILE *f = fopen(path, "we");
    /* A cell holds at most a few UTF-8 bytes; 1000 columns are plenty. */
    char buf[8192];

    if (!f)
        return -1;
    for (int y = 0; y < LINES; y++) {
        int n = mvwinnstr(stdscr, y, 0, buf, (int)sizeof(buf) - 1);
        if (n < 0)
            n = 0;
        buf[n] = '\0';
        size_t len = strlen(buf);
        while (len && buf[len - 1] == ' ')
            buf[--len] = '\0';
        fprintf(f, "%s\n", buf);
    }
    return fclose(f) == 0 ? 0 : -1;
}

