/* ui.c - the TUI main loop: input, refresh, header, prompts, snapshots.
 *
 * Called by main.c through ui_run.  The loop is single-threaded:
 *   1. when the refresh interval has passed, read the source's status and,
 *      if its generation changed, take a snapshot and rebuild the model;
 *   2. draw the frame when something changed (erase, draw, one refresh());
 *   3. wait for one input event, at most until the next refresh is due.
 * Every key, real or scripted, enters through ui_next_input (the single
 * input choke point) and is turned into a request by the key table, so
 * tests drive exactly the code paths a user does.
 */
#include "ui.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "callers_view.h"
#include "draw.h"
#include "export.h"
#include "flat_view.h"
#include "help_view.h"
#include "view_model.h"
#include "profile.h"
#include "prompt.h"
#include "request.h"
#include "script.h"
#include "source.h"
#include "code_view.h"
#include "threads_view.h"
#include "tree_view.h"
#include "view.h"

/* Below this the layout cannot show one body row with its bars. */
#define MIN_COLS 40
#define MIN_LINES 7

/* The source clamps intervals to this range too; clamping here lets the
 * message say what was actually asked. */
#define INTERVAL_MIN_NS 100000ull
#define INTERVAL_MAX_NS 1000000000ull

enum prompt_purpose {
    P_SEARCH = 1, P_HIDE, P_INTERVAL, P_REFRESH, P_SAVE, P_RESET,
};

static const struct view_ops *const view_table[VIEW_COUNT] = {
    [VIEW_TREE] = &tree_view_ops,
    [VIEW_FLAT] = &flat_view_ops,
    [VIEW_CALLERS] = &callers_view_ops,
    [VIEW_THREADS] = &threads_view_ops,
    [VIEW_SOURCE] = &source_view_ops,
    [VIEW_HELP] = &help_view_ops,
};

struct ui {
    struct source *src;
    struct ui_options opt;
    struct theme theme;
    struct ui_ctx ctx;
    struct view views[VIEW_COUNT];
    bool stale[VIEW_COUNT];        /* needs view_refresh before drawing */
    enum view_id cur;
    struct source_status status;
    struct profile *snap;          /* owned; the model borrows it */
    struct model *model;
    uint64_t generation;
    bool have_generation;
    double next_refresh;           /* monotonic seconds */
    double deadline;               /* -d: return at this time, 0 = never */
    struct prompt prompt;
    regex_t re;
    bool have_re;
    char search_text[PROMPT_MAX];
    struct script *script;
    bool quit;
    int exit_code;
    bool dirty;                    /* something to draw */
    size_t fmt_index;              /* export format offered by 's' */
    char save_default[PROMPT_MAX]; /* default name for the current format */
    time_t save_time;              /* timestamp of the save prompt */
    int tab_x[VIEW_COUNT + 1];     /* tab bar column bounds, for clicks */
    int tab_y, body_top, body_h;   /* layout of the last frame */
    SCREEN *screen;
    FILE *tty_out, *tty_in;        /* /dev/null in scripted mode */
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ui_options_default(struct ui_options *o)
{
    memset(o, 0, sizeof(*o));
    o->refresh_s = 1.0;
    o->hide_self = 1.0;
    o->hide_subs = 2.0;
}

const char *ui_library_version(void)
{
    return curses_version();
}

int ui_print_keys(FILE *f)
{
    return help_print_markdown(f);
}

/* --- data ----------------------------------------------------------------- */

/* Install a new model: views note their cursor lines while the old
 * model is alive, then every view is rebuilt before its next use. */
static void ui_set_model(struct ui *ui, struct model *m)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        view_save_cursor(&ui->views[i]);
    model_free(ui->model);
    ui->model = m;
    ui->ctx.model = m;
}

static void ui_mark_stale(struct ui *ui)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        ui->stale[i] = true;
    ui->dirty = true;
}

static void ui_status(struct ui *ui)
{
    ui->src->ops->status(ui->src, &ui->status);
    ui->dirty = true;
}

/* Build a model over ui->snap with the current filter and thresholds;
 * keep the old one when out of memory. */
static void ui_rebuild_model(struct ui *ui)
{
    if (!ui->snap)
        return;
    struct model *m = model_new(ui->snap, &ui->ctx.filter, ui->ctx.hide_self,
                                ui->ctx.hide_subs);
    if (!m) {
        ctx_message(&ui->ctx, true, "out of memory: showing older data");
        return;
    }
    ui_set_model(ui, m);
    ui_mark_stale(ui);
}

static void ui_take_snapshot(struct ui *ui)
{
    struct profile *p = ui->src->ops->snapshot(ui->src);

    if (!p) {
        ctx_message(&ui->ctx, true, "out of memory taking a snapshot");
        return;
    }
    struct model *m = model_new(p, &ui->ctx.filter, ui->ctx.hide_self,
                                ui->ctx.hide_subs);
    if (!m) {
        profile_free(p);
        ctx_message(&ui->ctx, true, "out of memory: showing older data");
        return;
    }
    ui_set_model(ui, m);
    profile_free(ui->snap);
    ui->snap = p;
    ui_mark_stale(ui);
}

/* Status every tick; a snapshot only when the aggregate changed. */
static void ui_tick(struct ui *ui, bool force)
{
    uint64_t gen = ui->src->ops->generation(ui->src);

    ui_status(ui);
    if (force || !ui->have_generation || gen != ui->generation) {
        ui->generation = gen;
        ui->have_generation = true;
        ui_take_snapshot(ui);
    }
    ui->next_refresh = now_s() + ui->opt.refresh_s;
}

static struct view *ui_view(struct ui *ui)
{
    return &ui->views[ui->cur];
}

static void ui_switch(struct ui *ui, enum view_id to)
{
    struct view *from = ui_view(ui);

    /* The callers and source views show "the function under the cursor"
     * of the view the user comes from. */
    if ((to == VIEW_CALLERS || to == VIEW_SOURCE) && to != ui->cur) {
        uint32_t f = view_cursor_frame(from);
        if (f != PROFILE_NONE)
            ui->ctx.selected = f;
    }
    ui->cur = to;
    ui->stale[to] = true;
    ui->dirty = true;
}

/* --- header, tabs, footer ------------------------------------------------ */

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

static const char *hz_text(double hz, char *buf, size_t n)
{
    if (hz >= 100 || hz == 0)
        snprintf(buf, n, "%.0f Hz", hz);
    else
        snprintf(buf, n, "%.1f Hz", hz);
    return buf;
}

static const char *thread_text(const struct ui *ui, char *buf, size_t n)
{
    const struct model *m = ui->model;

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

/* Rows of header shown for the screen height: the less important rows
 * go first when the terminal is short. */
static int header_rows(void)
{
    return LINES >= 20 ? 4 : LINES >= 14 ? 3 : LINES >= 10 ? 2 : 1;
}

static void draw_header(struct ui *ui, int rows)
{
    const struct source_status *s = &ui->status;
    const struct theme *t = &ui->theme;
    attr_t v = t->attr[UC_VALUE];
    struct hdr h = { ui, 0, 1, COLS };
    char a[64], b[64], c[64];

    /* Row 0: what is profiled, and the PAUSED badge on the right. */
    int right = COLS;
    if (s->paused) {
        right = COLS - 8;
        draw_text(t, 0, right, 8, " PAUSED ", t->attr[UC_PAUSED], 0);
    }
    h.width = right - 1;
    if (s->is_file) {
        hdr_field(&h, "file:", v, "%s", s->cmdline[0] ? s->cmdline : s->comm);
    } else {
        hdr_field(&h, "PID", v, "%d", (int)s->pid);
        /* The command line takes what is left, clipped. */
        int start = h.x + 2;
        if (start < h.width)
            draw_text(t, 0, start, h.width - start,
                      s->cmdline[0] ? s->cmdline : s->comm, t->attr[UC_NORMAL],
                      DT_ELLIPSIS);
    }
    if (rows < 2)
        return;

    h = (struct hdr){ ui, 1, 1, COLS };
    hdr_field(&h, "Threads:", v, "%u", s->threads);
    hdr_field(&h, "State:", s->state == TARGET_EXITED ? t->attr[UC_ERROR] : v,
              "%s", state_text(s, a, sizeof(a)));
    hdr_field(&h, "Mode:", v, "%s", s->idle ? "wall-clock (idle)" : "on-CPU");
    /* A loaded file may not say how often it was sampled. */
    if (s->interval_ns) {
        double asked = 1e9 / (double)s->interval_ns;
        if (s->is_file)
            hdr_field(&h, "Rate:", v, "%s", hz_text(asked, b, sizeof(b)));
        else
            hdr_field(&h, "Rate:", v, "%s (got %s)",
                      hz_text(asked, b, sizeof(b)),
                      hz_text(s->achieved_hz, c, sizeof(c)));
        hdr_field(&h, "Interval:", v, "%s", fmt_duration(s->interval_ns, a,
                  sizeof(a)));
    }
    if (rows < 3)
        return;

    h = (struct hdr){ ui, 2, 1, COLS };
    hdr_field(&h, "Samples:", v, "%llu", (unsigned long long)s->samples);
    hdr_field(&h, "Unwind failures:", s->unwind_failures ? t->attr[UC_ERROR] : v,
              "%llu%s", (unsigned long long)s->unwind_failures,
              s->truncated_copy ? " (stack copy too small)" : "");
    if (s->throttled)
        hdr_field(&h, "Lost:", t->attr[UC_ERROR], "%llu (throttled %llu)",
                  (unsigned long long)s->lost, (unsigned long long)s->throttled);
    else
        hdr_field(&h, "Lost:", s->lost ? t->attr[UC_ERROR] : v, "%llu",
                  (unsigned long long)s->lost);
    if (!s->is_file && s->backend[0])
        hdr_field(&h, "Sampler:", v, "%s", s->backend);
    if (!s->is_file && strcmp(s->backend, "perf") != 0)
        hdr_field(&h, "Stop:", v, "%s", fmt_duration(s->median_stop_ns, a,
                  sizeof(a)));
    if (!s->is_file || s->elapsed_ns)
        hdr_field(&h, s->is_file ? "Span:" : "Elapsed:", v, "%s",
                  fmt_elapsed(s->elapsed_ns, a, sizeof(a)));
    if (rows < 4)
        return;

    h = (struct hdr){ ui, 3, 1, COLS };
    hdr_field(&h, "Hide:", v, "self %.1f%% subs %.1f%%", ui->ctx.hide_self,
              ui->ctx.hide_subs);
    hdr_field(&h, "Refresh:", v, "%gs", ui->opt.refresh_s);
    hdr_field(&h, "Thread:", v, "%s", thread_text(ui, a, sizeof(a)));
    hdr_field(&h, "Focus:", v, "%s",
              ui->model && ui->model->focus != PROFILE_NONE
                  ? model_frame_name(ui->model, ui->model->focus) : "none");
}

static void draw_tabs(struct ui *ui, int y)
{
    const struct theme *t = &ui->theme;
    int x = 0;
    char label[32], info[256];

    ui->tab_y = y;
    for (int i = 0; i < VIEW_COUNT; i++) {
        bool on = (int)ui->cur == i;
        snprintf(label, sizeof(label), on ? "[%d %s]" : " %d %s ", i + 1,
                 view_table[i]->name);
        ui->tab_x[i] = x;
        x += draw_text(t, y, x, COLS - x, label,
                       t->attr[on ? UC_TAB_ACTIVE : UC_TAB], 0);
    }
    ui->tab_x[VIEW_COUNT] = x;

    struct view *v = ui_view(ui);
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
    else if (ui->status.error[0])
        draw_text(t, y, 0, COLS, ui->status.error, t->attr[UC_ERROR],
                  DT_ELLIPSIS);
    else if (ui->status.fallback[0])
        draw_text(t, y, 0, COLS, ui->status.fallback, t->attr[UC_INFO],
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

static void ui_draw(struct ui *ui)
{
    erase();
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        ui->body_h = 0;
        draw_too_small(ui);
        curs_set(0);
        refresh();
        return;
    }
    int rows = header_rows();
    struct view *v = ui_view(ui);

    ui->body_top = rows + 2;
    ui->body_h = LINES - ui->body_top - 2;
    /* Every view knows the page size before it places a cursor, even one
     * never drawn yet (the source view centres its hottest line). */
    for (int i = 0; i < VIEW_COUNT; i++)
        ui->views[i].height = ui->body_h;
    if (ui->stale[ui->cur]) {
        ui->stale[ui->cur] = false;
        view_refresh(v);
    }
    draw_header(ui, rows);
    draw_tabs(ui, rows);
    view_draw(v, rows + 1, ui->body_top, ui->body_h, COLS);
    draw_footer(ui, LINES - 1);
    draw_message(ui, LINES - 2);
    /* The prompt left the terminal cursor at its edit position. */
    curs_set(ui->prompt.active ? 1 : 0);
    refresh();
}

/* Write the screen as curses holds it, one row per line, trailing spaces
 * trimmed (tig's test dump). */
static int ui_dump(const char *path)
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

/* --- prompts and their results --------------------------------------------- */

static void ui_set_hide(struct ui *ui, double self, double subs)
{
    ui->ctx.hide_self = self < 0 ? 0 : self > 100 ? 100 : self;
    ui->ctx.hide_subs = subs < 0 ? 0 : subs > 100 ? 100 : subs;
    if (ui->model)
        model_set_hide(ui->model, ui->ctx.hide_self, ui->ctx.hide_subs);
    ui_mark_stale(ui);
    ctx_message(&ui->ctx, false, "hide-self %.1f%%  hide-subs %.1f%%",
                ui->ctx.hide_self, ui->ctx.hide_subs);
}

/* "5ms", "5" (ms), "250us", "0.5s", "100000ns" or "200hz" -> ns. */
static int parse_interval(const char *s, uint64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);

    if (end == s || errno || !(v > 0) || !isfinite(v))
        return -1;
    while (*end == ' ')
        end++;
    double scale;
    if (!*end || !strcasecmp(end, "ms"))
        scale = 1e6;
    else if (!strcasecmp(end, "us"))
        scale = 1e3;
    else if (!strcasecmp(end, "ns"))
        scale = 1;
    else if (!strcasecmp(end, "s"))
        scale = 1e9;
    else if (!strcasecmp(end, "hz")) {
        v = 1.0 / v;
        scale = 1e9;
    } else
        return -1;
    double r = v * scale;
    if (r < 1 || r > 1e12)
        return -1;
    *ns = (uint64_t)llround(r);
    return 0;
}

static void ui_set_interval(struct ui *ui, uint64_t ns)
{
    char a[32], b[32];
    bool clamped = ns < INTERVAL_MIN_NS || ns > INTERVAL_MAX_NS;

    if (ns < INTERVAL_MIN_NS)
        ns = INTERVAL_MIN_NS;
    if (ns > INTERVAL_MAX_NS)
        ns = INTERVAL_MAX_NS;
    if (ui->src->ops->set_interval(ui->src, ns) < 0) {
        ctx_message(&ui->ctx, true, "the sampling interval of %s cannot change",
                    ui->status.is_file ? "a loaded file" : "this source");
        return;
    }
    ui_status(ui);
    ctx_message(&ui->ctx, false, "sampling every %s (%s)%s",
                fmt_duration(ns, a, sizeof(a)),
                hz_text(1e9 / (double)ns, b, sizeof(b)),
                clamped ? ", clamped to 100us..1s" : "");
}

/* The exporter's first extension: a suffix (".folded"), or a prefix when
 * the word ends with '.' ("callgrind.out."). */
static void first_ext(const struct exporter *e, char *buf, size_t n)
{
    size_t len = strcspn(e->exts ? e->exts : "", " ");

    if (len >= n)
        len = n - 1;
    memcpy(buf, e->exts ? e->exts : "", len);
    buf[len] = '\0';
}

static void save_default_name(struct ui *ui, char *buf, size_t n)
{
    const struct exporter *e = export_at(ui->fmt_index);
    char comm[64], stamp[32], ext[64];
    struct tm tm;
    const char *dir = ui->opt.snapshot_dir;

    snprintf(comm, sizeof(comm), "%s", ui->status.comm[0] ? ui->status.comm
                                                          : "profile");
    for (char *c = comm; *c; c++)
        if (*c == '/' || *c == ' ' || (unsigned char)*c < 32)
            *c = '_';
    /* A loaded file's "comm" is its basename: drop its suffix so the name
     * does not read "x.folded-0-...folded". */
    char *dot = ui->status.is_file ? strchr(comm, '.') : NULL;
    if (dot && dot != comm)
        *dot = '\0';
    localtime_r(&ui->save_time, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    first_ext(e, ext, sizeof(ext));
    size_t el = strlen(ext);
    bool prefix = el && ext[el - 1] == '.';
    snprintf(buf, n, "%s%s%ssproftop-%s-%d-%s%s", dir ? dir : "",
             dir && dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "",
             prefix ? ext : "", comm, (int)ui->status.pid, stamp,
             prefix ? "" : ext);
}

static void save_label(struct ui *ui)
{
    snprintf(ui->prompt.label, sizeof(ui->prompt.label),
             "Save as %s (Tab: format): ", export_at(ui->fmt_index)->name);
}

static void save_open(struct ui *ui)
{
    if (export_count() == 0) {
        ctx_message(&ui->ctx, true, "no export formats");
        return;
    }
    ui->save_time = time(NULL);
    save_default_name(ui, ui->save_default, sizeof(ui->save_default));
    prompt_open(&ui->prompt, P_SAVE, "", ui->save_default, false);
    save_label(ui);
}

/* Tab in the save prompt: next format; the default name (or just its
 * extension) follows. */
static void save_cycle(struct ui *ui)
{
    char old_ext[64], new_ext[64], name[PROMPT_MAX];
    bool was_default = strcmp(ui->prompt.buf, ui->save_default) == 0;

    first_ext(export_at(ui->fmt_index), old_ext, sizeof(old_ext));
    ui->fmt_index = (ui->fmt_index + 1) % export_count();
    first_ext(export_at(ui->fmt_index), new_ext, sizeof(new_ext));
    save_default_name(ui, ui->save_default, sizeof(ui->save_default));
    save_label(ui);
    if (was_default) {
        prompt_set(&ui->prompt, ui->save_default);
        return;
    }
    size_t bl = strlen(ui->prompt.buf), ol = strlen(old_ext);
    if (ol && old_ext[ol - 1] != '.' && bl > ol &&
        strcmp(ui->prompt.buf + bl - ol, old_ext) == 0 &&
        new_ext[0] && new_ext[strlen(new_ext) - 1] != '.') {
        snprintf(name, sizeof(name), "%.*s%s", (int)(bl - ol), ui->prompt.buf,
                 new_ext);
        prompt_set(&ui->prompt, name);
    }
}

static void ui_save(struct ui *ui, const char *path)
{
    const struct exporter *e = export_at(ui->fmt_index);
    struct export_opts o;
    char err[512];

    if (!path[0]) {
        ctx_message(&ui->ctx, true, "no file name: nothing saved");
        return;
    }
    /* The newest data, not the screen's copy: sampling went on while the
     * user typed the name. */
    struct profile *p = ui->src->ops->snapshot(ui->src);
    if (!p) {
        ctx_message(&ui->ctx, true, "out of memory taking a snapshot");
        return;
    }
    export_opts_default(&o);
    o.hide_self = ui->ctx.hide_self;
    o.hide_subs = ui->ctx.hide_subs;
    if (export_to_file(e, p, &o, path, err, sizeof(err)) < 0)
        ctx_message(&ui->ctx, true, "%s", err);
    else
        ctx_message(&ui->ctx, false, "saved %llu samples to %s",
                    (unsigned long long)profile_samples(p), path);
    profile_free(p);
}

static void ui_search(struct ui *ui, const char *text)
{
    regex_t re;
    int rc;

    if (!text[0]) {
        ctx_message(&ui->ctx, true, "empty search");
        return;
    }
    rc = regcomp(&re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc != 0) {
        char err[128];
        regerror(rc, &re, err, sizeof(err));
        ctx_message(&ui->ctx, true, "bad regex: %s", err);
        return;
    }
    if (ui->have_re)
        regfree(&ui->re);
    ui->re = re;
    ui->have_re = true;
    ui->ctx.search = &ui->re;
    snprintf(ui->search_text, sizeof(ui->search_text), "%s", text);
    view_search(ui_view(ui), &ui->re, true);
}

static void ui_prompt_done(struct ui *ui, enum prompt_result r)
{
    struct prompt *p = &ui->prompt;

    if (r == PROMPT_TAB) {
        if (p->purpose == P_SAVE)
            save_cycle(ui);
        return;
    }
    if (r == PROMPT_CANCEL) {
        ctx_message(&ui->ctx, false, "cancelled");
        return;
    }
    if (r != PROMPT_SUBMIT)
        return;

    switch ((enum prompt_purpose)p->purpose) {
    case P_SEARCH:
        ui_search(ui, p->buf);
        break;
    case P_HIDE: {
        double a, b;
        char *s = p->buf;
        for (char *c = s; *c; c++)
            if (*c == '%' || *c == ',')
                *c = ' ';
        int n = sscanf(s, "%lf %lf", &a, &b);
        if (n < 1 || a < 0 || a > 100 || (n == 2 && (b < 0 || b > 100))) {
            ctx_message(&ui->ctx, true, "expected \"SELF SUBS\" percentages, "
                        "e.g. \"1 2\"");
            break;
        }
        ui_set_hide(ui, a, n == 2 ? b : ui->ctx.hide_subs);
        break;
    }
    case P_INTERVAL: {
        uint64_t ns;
        if (parse_interval(p->buf, &ns) < 0)
            ctx_message(&ui->ctx, true, "bad interval \"%s\": try 5ms, 250us "
                        "or 200hz", p->buf);
        else
            ui_set_interval(ui, ns);
        break;
    }
    case P_REFRESH: {
        char *end;
        double s = strtod(p->buf, &end);
        while (*end == ' ' || *end == 's')
            end++;
        if (end == p->buf || *end || !(s >= 0.1 && s <= 3600)) {
            ctx_message(&ui->ctx, true, "refresh interval: seconds from 0.1 "
                        "to 3600");
            break;
        }
        ui->opt.refresh_s = s;
        ui->next_refresh = now_s() + s;
        ctx_message(&ui->ctx, false, "refreshing every %gs", s);
        break;
    }
    case P_SAVE:
        ui_save(ui, p->buf);
        break;
    case P_RESET:
        if (p->buf[0] != 'y' && p->buf[0] != 'Y') {
            ctx_message(&ui->ctx, false, "reset cancelled");
            break;
        }
        if (ui->src->ops->reset(ui->src) < 0) {
            ctx_message(&ui->ctx, true, "this source cannot be reset");
            break;
        }
        ui_tick(ui, true);
        ctx_message(&ui->ctx, false, "all samples forgotten");
        break;
    }
}

/* --- requests ------------------------------------------------------------- */

static void ui_request(struct ui *ui, enum request req)
{
    struct view *v = ui_view(ui);
    struct ui_ctx *c = &ui->ctx;
    char buf[64];

    switch (req) {
    case REQ_VIEW_TREE: case REQ_VIEW_FLAT: case REQ_VIEW_CALLERS:
    case REQ_VIEW_THREADS: case REQ_VIEW_SOURCE: case REQ_VIEW_HELP:
        ui_switch(ui, (enum view_id)(VIEW_TREE + (req - REQ_VIEW_TREE)));
        return;
    case REQ_VIEW_NEXT:
        ui_switch(ui, (enum view_id)((ui->cur + 1) % VIEW_COUNT));
        return;
    case REQ_VIEW_PREV:
        ui_switch(ui, (enum view_id)((ui->cur + VIEW_COUNT - 1) % VIEW_COUNT));
        return;
    case REQ_CALLERS:
    case REQ_SOURCE: {
        uint32_t f = view_cursor_frame(v);
        enum view_id to = req == REQ_CALLERS ? VIEW_CALLERS : VIEW_SOURCE;
        if (f == PROFILE_NONE) {
            ctx_message(c, true, "no function under the cursor");
            return;
        }
        c->selected = f;
        if (ui->cur == to)
            view_refresh(v);
        ui_switch(ui, to);
        return;
    }
    case REQ_SEARCH:
        prompt_open(&ui->prompt, P_SEARCH, "Search (regex): ",
                    ui->search_text, false);
        return;
    case REQ_FOCUS: {
        uint32_t f = view_cursor_frame(v);
        if (f == PROFILE_NONE) {
            ctx_message(c, true, "no function under the cursor");
            return;
        }
        c->filter.focus = f;
        c->want_model = true;
        ctx_message(c, false, "focus on %s (F clears)",
                    ui->model ? model_frame_name(ui->model, f) : "?");
        return;
    }
    case REQ_UNFOCUS:
        if (c->filter.focus == PROFILE_NONE) {
            ctx_message(c, false, "no focus set");
            return;
        }
        c->filter.focus = PROFILE_NONE;
        c->want_model = true;
        ctx_message(c, false, "focus cleared");
        return;
    case REQ_ALL_THREADS:
        c->filter.has_thread = false;
        c->want_model = true;
        ctx_message(c, false, "showing all threads");
        return;
    case REQ_HIDE_PROMPT:
        snprintf(buf, sizeof(buf), "%g %g", c->hide_self, c->hide_subs);
        prompt_open(&ui->prompt, P_HIDE, "Hide self% subs%: ", buf, false);
        return;
    case REQ_HIDE_SELF_LESS:
        ui_set_hide(ui, c->hide_self - 0.5, c->hide_subs);
        return;
    case REQ_HIDE_SELF_MORE:
        ui_set_hide(ui, c->hide_self + 0.5, c->hide_subs);
        return;
    case REQ_HIDE_SUBS_LESS:
        ui_set_hide(ui, c->hide_self, c->hide_subs - 0.5);
        return;
    case REQ_HIDE_SUBS_MORE:
        ui_set_hide(ui, c->hide_self, c->hide_subs + 0.5);
        return;
    case REQ_PAUSE: {
        bool to = !ui->status.paused;
        if (ui->src->ops->set_paused(ui->src, to) < 0) {
            ctx_message(c, true, "%s cannot be paused",
                        ui->status.is_file ? "a loaded file" : "this source");
            return;
        }
        ui_status(ui);
        ctx_message(c, false, to ? "sampling paused (p resumes)"
                                 : "sampling resumed");
        return;
    }
    case REQ_INTERVAL_HALVE:
    case REQ_INTERVAL_DOUBLE: {
        uint64_t ns = ui->status.interval_ns ? ui->status.interval_ns
                                             : 10000000u;
        ui_set_interval(ui, req == REQ_INTERVAL_HALVE ? ns / 2 : ns * 2);
        return;
    }
    case REQ_INTERVAL_PROMPT:
        prompt_open(&ui->prompt, P_INTERVAL,
                    "Sampling interval (5ms, 250us, 200hz): ", "", false);
        return;
    case REQ_REFRESH_PROMPT:
        snprintf(buf, sizeof(buf), "%g", ui->opt.refresh_s);
        prompt_open(&ui->prompt, P_REFRESH, "Refresh every (seconds): ", buf,
                    false);
        return;
    case REQ_REFRESH_NOW:
        ui_tick(ui, true);
        clearok(curscr, TRUE);
        return;
    case REQ_SAVE:
        save_open(ui);
        return;
    case REQ_RESET:
        prompt_open(&ui->prompt, P_RESET, "Forget all samples? (y/n) ", NULL,
                    true);
        return;
    case REQ_QUIT:
        ui->quit = true;
        return;
    default:
        break;
    }

    if (ui->stale[ui->cur]) {
        ui->stale[ui->cur] = false;
        view_refresh(v);
    }
    if (!view_request(v, req) && req != REQ_NONE)
        ctx_message(c, true, "not available in the %s view", v->ops->name);
}

/* After a request: a view that changed the filter gets its new model. */
static void ui_after_request(struct ui *ui)
{
    if (ui->ctx.want_model) {
        ui->ctx.want_model = false;
        ui_rebuild_model(ui);
    }
}

static void ui_key(struct ui *ui, int key)
{
    ui->dirty = true;
    if (ui->prompt.active) {
        ui_prompt_done(ui, prompt_key(&ui->prompt, key));
    } else {
        ui->ctx.msg[0] = '\0';
        ui_request(ui, request_for_key(key));
    }
    ui_after_request(ui);
}

static void ui_mouse(struct ui *ui, const MEVENT *me)
{
    struct view *v = ui_view(ui);

    ui->dirty = true;
    if (me->bstate & BUTTON4_PRESSED) {
        view_scroll(v, -3);
        return;
    }
#ifdef BUTTON5_PRESSED
    if (me->bstate & BUTTON5_PRESSED) {
        view_scroll(v, 3);
        return;
    }
#endif
    if (!(me->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED |
                        BUTTON1_DOUBLE_CLICKED)))
        return;
    if (me->y == ui->tab_y) {
        for (int i = 0; i < VIEW_COUNT; i++)
            if (me->x >= ui->tab_x[i] && me->x < ui->tab_x[i + 1])
                ui_switch(ui, (enum view_id)i);
        return;
    }
    if (me->y >= ui->body_top && me->y < ui->body_top + ui->body_h) {
        view_click(v, me->y - ui->body_top);
        if (me->bstate & BUTTON1_DOUBLE_CLICKED) {
            ui_request(ui, REQ_ENTER);
            ui_after_request(ui);
        }
    }
}

/* --- input ---------------------------------------------------------------- */

enum input_kind { IN_NONE, IN_KEY, IN_MOUSE, IN_RESIZE, IN_DUMP, IN_REFRESH,
                  IN_END };

struct input {
    enum input_kind kind;
    int key;
    MEVENT mouse;
    const char *path;
};

/* The single input choke point: the next scripted event, or the next key
 * from the terminal (waiting at most until the next refresh is due). */
static void ui_next_input(struct ui *ui, struct input *in)
{
    memset(in, 0, sizeof(*in));
    if (ui->script) {
        const struct script_event *e = script_next(ui->script);
        if (!e) {
            in->kind = IN_END;
            return;
        }
        switch (e->kind) {
        case SCRIPT_KEY:
            in->kind = IN_KEY;
            in->key = e->key;
            return;
        case SCRIPT_DUMP:
            in->kind = IN_DUMP;
            in->path = e->path;
            return;
        case SCRIPT_REFRESH:
            in->kind = IN_REFRESH;
            return;
        case SCRIPT_RESIZE:
            resize_term(e->lines, e->cols);
            in->kind = IN_RESIZE;
            return;
        }
        return;
    }

    double wait = ui->next_refresh - now_s();
    if (ui->deadline > 0 && ui->deadline - now_s() < wait)
        wait = ui->deadline - now_s();
    /* Wake at least every 250 ms to notice the quit flag even if a signal
     * did not interrupt getch. */
    int ms = wait <= 0 ? 0 : wait > 0.25 ? 250 : (int)(wait * 1000) + 1;
    timeout(ms);
    int ch = getch();
    if (ch == ERR)
        return;
    if (ch == KEY_RESIZE) {
        in->kind = IN_RESIZE;
        return;
    }
    if (ch == KEY_MOUSE) {
        if (getmouse(&in->mouse) == OK)
            in->kind = IN_MOUSE;
        return;
    }
    in->kind = IN_KEY;
    in->key = ch;
}

/* --- set-up --------------------------------------------------------------- */

static int ui_screen_init(struct ui *ui)
{
    const char *term = getenv("TERM");

    if (ui->script) {
        ui->tty_out = fopen("/dev/null", "we");
        ui->tty_in = fopen("/dev/null", "re");
        if (!ui->tty_out || !ui->tty_in)
            return -1;
        ui->screen = newterm(term && term[0] ? term : "xterm-256color",
                             ui->tty_out, ui->tty_in);
    } else {
        ui->screen = newterm(NULL, stdout, stdin);
    }
    if (!ui->screen)
        return -1;
    set_term(ui->screen);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    if (!ui->script) {
        mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
                  , NULL);
        mouseinterval(150);
    }
    return 0;
}

static void ui_screen_end(struct ui *ui)
{
    if (ui->screen) {
        endwin();
        delscreen(ui->screen);
        ui->screen = NULL;
    }
    if (ui->tty_out)
        fclose(ui->tty_out);
    if (ui->tty_in)
        fclose(ui->tty_in);
}

static size_t initial_format(const char *name)
{
    const struct exporter *want = export_find(name ? name : "folded");

    for (size_t i = 0; want && i < export_count(); i++)
        if (export_at(i) == want)
            return i;
    return 0;
}

static void ui_loop(struct ui *ui)
{
    struct input in;

    ui_tick(ui, true);
    while (!ui->quit) {
        if (ui->opt.quit_flag && *ui->opt.quit_flag)
            break;
        if (ui->deadline > 0 && now_s() >= ui->deadline)
            break;
        if (!ui->script && now_s() >= ui->next_refresh)
            ui_tick(ui, false);
        if (ui->dirty) {
            ui->dirty = false;
            ui_draw(ui);
        }
        ui_next_input(ui, &in);
        switch (in.kind) {
        case IN_NONE:
            break;
        case IN_KEY:
            ui_key(ui, in.key);
            break;
        case IN_MOUSE:
            ui_mouse(ui, &in.mouse);
            break;
        case IN_RESIZE:
            ui->dirty = true;
            break;
        case IN_REFRESH:
            ui_tick(ui, true);
            break;
        case IN_DUMP:
            if (ui_dump(in.path) < 0) {
                ctx_message(&ui->ctx, true, "cannot write %s", in.path);
                fprintf(stderr, "sproftop: cannot write screen dump %s: %s\n",
                        in.path, strerror(errno));
                ui->exit_code = 1;
            }
            break;
        case IN_END:
            ui->quit = true;
            break;
        }
    }
}

int ui_run(struct source *src, const struct ui_options *opts)
{
    struct ui *ui = calloc(1, sizeof(*ui));
    char err[512];
    int rc = 0;

    if (!ui) {
        fprintf(stderr, "sproftop: out of memory\n");
        return 1;
    }
    ui->src = src;
    ui->opt = *opts;
    if (!(ui->opt.refresh_s >= 0.1))
        ui->opt.refresh_s = 0.1;
    ui->ctx.theme = &ui->theme;
    ui->ctx.status = &ui->status;
    ui->ctx.hide_self = opts->hide_self;
    ui->ctx.hide_subs = opts->hide_subs;
    ui->ctx.filter.focus = PROFILE_NONE;
    ui->ctx.selected = PROFILE_NONE;
    ui->fmt_index = initial_format(opts->export_format);
    ui->cur = VIEW_TREE;

    if (opts->script) {
        ui->script = script_load(opts->script, err, sizeof(err));
        if (!ui->script) {
            fprintf(stderr, "sproftop: %s\n", err);
            free(ui);
            return 2;
        }
    }
    for (int i = 0; i < VIEW_COUNT; i++)
        if (view_init(&ui->views[i], view_table[i], &ui->ctx) < 0) {
            fprintf(stderr, "sproftop: out of memory\n");
            rc = 1;
            goto out;
        }

    setlocale(LC_ALL, "");
    bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    const char *nc = getenv("NO_COLOR");
    bool color = !opts->no_color && !(nc && nc[0]);
    if (ui_screen_init(ui) < 0) {
        fprintf(stderr, "sproftop: cannot set up the terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        rc = 1;
        goto out;
    }
    theme_init(&ui->theme, color, utf8);
    ui->dirty = true;
    if (opts->duration_s > 0 && !ui->script)
        ui->deadline = now_s() + opts->duration_s;
    ui_loop(ui);
    rc = ui->exit_code;

out:
    ui_screen_end(ui);
    for (int i = 0; i < VIEW_COUNT; i++)
        view_close(&ui->views[i]);
    model_free(ui->model);
    profile_free(ui->snap);
    if (ui->have_re)
        regfree(&ui->re);
    script_free(ui->script);
    free(ui);
    return rc;
}
