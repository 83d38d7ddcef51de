/* ui.c - ui_run: set-up, the main loop and the input choke point.
 *
 * Called by main.c.  The loop is single-threaded:
 *   1. when the refresh interval has passed, read the source's status and,
 *      if its generation changed, take a snapshot and rebuild the model;
 *   2. draw the frame when something changed (frame.c: erase, draw, one
 *      refresh());
 *   3. wait for one input event, at most until the next refresh is due.
 * Every key, real or scripted, enters through ui_next_input (the single
 * input choke point) and is turned into a request by the key table
 * (actions.c), so tests drive exactly the code paths a user does.
 */
#include "ui.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callers_view.h"
#include "clock.h"
#include "code_view.h"
#include "crash.h"
#include "flame_view.h"
#include "flat_view.h"
#include "help_view.h"
#include "profile.h"
#include "procs_view.h"
#include "script.h"
#include "threads_view.h"
#include "tree_view.h"
#include "ui_state.h"
#include "view_model.h"

const struct view_ops *const ui_view_table[VIEW_COUNT] = {
    [VIEW_TREE] = &tree_view_ops,
    [VIEW_FLAT] = &flat_view_ops,
    [VIEW_CALLERS] = &callers_view_ops,
    [VIEW_THREADS] = &threads_view_ops,
    [VIEW_SOURCE] = &source_view_ops,
    [VIEW_FLAME] = &flame_view_ops,
    [VIEW_PROCS] = &procs_view_ops,
    [VIEW_HELP] = &help_view_ops,
};

double ui_now(void)
{
    return (double)clock_mono_ns() / 1e9;
}

void ui_options_default(struct ui_options *o)
{
    memset(o, 0, sizeof(*o));
    o->refresh_s = 1.0;
    o->hide_self = 1.0;
    o->hide_subs = 2.0;
    o->confirm_quit = true;
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

void ui_mark_stale(struct ui *ui)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        ui->stale[i] = true;
    ui->dirty = true;
}

void ui_status(struct ui *ui)
{
    const struct source_status *s = &ui->status;

    ui->src->ops->status(ui->src, &ui->status);
    if (s->paused && !ui->was_paused)
        ui->pause_start_ns = s->elapsed_ns;
    if (!s->paused && ui->was_paused && s->elapsed_ns > ui->pause_start_ns)
        ui->paused_ns += s->elapsed_ns - ui->pause_start_ns;
    ui->was_paused = s->paused;
    ui->dirty = true;
}

uint64_t ui_sampling_ns(const struct ui *ui, uint64_t *paused_for)
{
    const struct source_status *s = &ui->status;
    uint64_t end = s->paused ? ui->pause_start_ns : s->elapsed_ns;

    *paused_for = s->paused && s->elapsed_ns > ui->pause_start_ns
                      ? s->elapsed_ns - ui->pause_start_ns : 0;
    return end > ui->paused_ns ? end - ui->paused_ns : 0;
}

void ui_rebuild_model(struct ui *ui)
{
    if (!ui->snap)
        return;
    struct model *m = scope_model(ui, ui->snap);
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
    struct model *m = scope_model(ui, p);
    if (!m) {
        profile_free(p);
        ctx_message(&ui->ctx, true, "out of memory: showing older data");
        return;
    }
    ui_set_model(ui, m);
    profile_free(ui->snap);
    ui->snap = p;
    ui->ctx.timeline = p;
    ui_mark_stale(ui);
}

/* Status every tick; a snapshot only when the aggregate changed. */
void ui_tick(struct ui *ui, bool force)
{
    uint64_t gen = ui->src->ops->generation(ui->src);

    ui_status(ui);
    if (force || !ui->have_generation || gen != ui->generation) {
        ui->generation = gen;
        ui->have_generation = true;
        ui_take_snapshot(ui);
    }
    ui->next_refresh = ui_now() + ui->opt.refresh_s;
}

struct view *ui_view(struct ui *ui)
{
    return &ui->views[ui->cur];
}

void ui_switch(struct ui *ui, enum view_id to)
{
    struct view *from = ui_view(ui);

    /* The callers and source views show "the function under the cursor"
     * of the view the user comes from. */
    if ((to == VIEW_CALLERS || to == VIEW_SOURCE) && to != ui->cur) {
        uint32_t f = view_cursor_frame(from);
        if (f != PROFILE_NONE)
            ui->ctx.selected = f;
    }
    if (to == VIEW_HELP && ui->cur != VIEW_HELP)
        ui->help_from = ui->cur;
    ui->cur = to;
    ui->stale[to] = true;
    ui->dirty = true;
}

/* --- input ---------------------------------------------------------------- */

enum input_kind { IN_NONE, IN_KEY, IN_MOUSE, IN_RESIZE, IN_DUMP, IN_REFRESH,
                  IN_LOAD, IN_END };

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
        case SCRIPT_LOAD:
            in->kind = e->kind == SCRIPT_DUMP ? IN_DUMP : IN_LOAD;
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

    double wait = ui->next_refresh - ui_now();
    if (ui->deadline > 0 && ui->deadline - ui_now() < wait)
        wait = ui->deadline - ui_now();
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

/* --- scripted commands ---------------------------------------------------- */

/* A scripted command failed: say so on the message line and on stderr,
 * and the run exits 1 at the end of the script. */
static void script_failed(struct ui *ui, const char *what)
{
    ctx_message(&ui->ctx, true, "%s", what);
    fprintf(stderr, "sproftop: %s\n", what);
    ui->exit_code = 1;
}

static void ui_dump(struct ui *ui, const char *path)
{
    char what[PROMPT_MAX + 64];

    if (frame_dump(path) == 0)
        return;
    snprintf(what, sizeof(what), "cannot write screen dump %s: %s", path,
             strerror(errno));
    script_failed(ui, what);
}

/* The profile a :load shows: the samples of q over the frames and
 * threads of the current snapshot, as a live aggregate that changed
 * would be (its ids stay, new frames are added after them), so the
 * views' keys mean the same functions; q's metadata.  Frees q. */
static struct profile *loaded_profile(struct ui *ui, struct profile *q)
{
    struct profile *p = ui->snap ? profile_clone(ui->snap) : NULL;

    if (!p)
        return q;
    profile_reset(p);
    if (profile_merge(p, q) < 0 || profile_set_meta(p, profile_meta(q)) < 0) {
        profile_free(p);
        p = NULL;
    }
    profile_free(q);
    return p;
}

/* :load PATH: from now on the views show PATH, read by main.c's loader
 * into a file source of the UI's own, as if the data had changed under
 * them (cursor and expansion are kept by line key, as on a refresh). */
static void ui_load(struct ui *ui, const char *path)
{
    char err[512], what[sizeof(err) + 32];
    struct profile *p = NULL;

    snprintf(err, sizeof(err), "%s: out of memory", path);
    if (!ui->opt.load)
        snprintf(err, sizeof(err), "%s: no loader", path);
    else if ((p = ui->opt.load(path, err, sizeof(err))))
        p = loaded_profile(ui, p);
    struct source *src = p ? source_file_new(p, path) : NULL;
    if (!src) {
        snprintf(what, sizeof(what), ":load: %s", err);
        script_failed(ui, what);
        return;
    }
    if (ui->own_src)
        ui->own_src->ops->close(ui->own_src);
    ui->src = ui->own_src = src;
    ui_tick(ui, true);
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
    crash_install();
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
        crash_remove();
        endwin();
        delscreen(ui->screen);
        ui->screen = NULL;
    }
    if (ui->tty_out)
        fclose(ui->tty_out);
    if (ui->tty_in)
        fclose(ui->tty_in);
}

static void ui_loop(struct ui *ui)
{
    struct input in;

    ui_tick(ui, true);
    while (!ui->quit) {
        if (ui->opt.quit_flag && *ui->opt.quit_flag)
            break;
        if (ui->deadline > 0 && ui_now() >= ui->deadline)
            break;
        if (!ui->script && ui_now() >= ui->next_refresh)
            ui_tick(ui, false);
        if (ui->dirty) {
            ui->dirty = false;
            frame_draw(ui);
        }
        ui_next_input(ui, &in);
        switch (in.kind) {
        case IN_NONE:
            break;
        case IN_KEY:
            actions_key(ui, in.key);
            break;
        case IN_MOUSE:
            actions_mouse(ui, &in.mouse);
            break;
        case IN_RESIZE:
            ui->dirty = true;
            break;
        case IN_REFRESH:
            ui_tick(ui, true);
            break;
        case IN_DUMP:
            ui_dump(ui, in.path);
            break;
        case IN_LOAD:
            ui_load(ui, in.path);
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
    ui->ctx.filter.merge_threads = true;
    ui->ctx.filter.python_only = opts->python_only;
    ui->ctx.selected = PROFILE_NONE;
    scope_init(&ui->scope);
    ui->ctx.scope = &ui->scope;
    if (opts->baseline)
        scope_set_baseline(ui, opts->baseline, opts->baseline_name);
    ui->ctx.want_model = false;
    ui->ctx.want_view = VIEW_COUNT;
    ui->fmt_index = save_initial_format(ui);
    ui->cur = VIEW_TREE;

    if (opts->script) {
        ui->script = script_load(opts->script, err, sizeof(err));
        if (!ui->script) {
            fprintf(stderr, "sproftop: %s\n", err);
            scope_free(&ui->scope);
            free(ui);
            return 2;
        }
    }
    for (int i = 0; i < VIEW_COUNT; i++)
        if (view_init(&ui->views[i], ui_view_table[i], &ui->ctx) < 0) {
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
        ui->deadline = ui_now() + opts->duration_s;
    ui_loop(ui);
    rc = ui->exit_code;

out:
    ui_screen_end(ui);
    for (int i = 0; i < VIEW_COUNT; i++)
        view_close(&ui->views[i]);
    model_free(ui->model);
    profile_free(ui->snap);
    scope_free(&ui->scope);
    if (ui->have_re)
        regfree(&ui->re);
    script_free(ui->script);
    if (ui->own_src)
        ui->own_src->ops->close(ui->own_src);
    free(ui);
    return rc;
}
