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
 * (actions.c), so tests drive exactly the code paths a user does.  The
 * parts of the shell and who owns what: ui_state.h.
 */
#include "ui.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "bounds.h"
#include "crash.h"
#include "frame.h"
#include "help_view.h"
#include "profile.h"
#include "script.h"
#include "ui_state.h"
#include "view_model.h"

void ui_options_default(struct ui_options *o)
{
    memset(o, 0, sizeof(*o));
    o->refresh_s = UI_REFRESH_DEFAULT_S;
    o->hide_self = SP_HIDE_SELF_DEFAULT;
    o->hide_subs = SP_HIDE_SUBS_DEFAULT;
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

/* --- input ---------------------------------------------------------------- */

enum input_kind { IN_NONE, IN_KEY, IN_MOUSE, IN_RESIZE, IN_DUMP, IN_REFRESH,
                  IN_LOAD, IN_PRINT, IN_END };

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
        case SCRIPT_PRINT:
            in->kind = e->kind == SCRIPT_DUMP ? IN_DUMP
                       : e->kind == SCRIPT_LOAD ? IN_LOAD : IN_PRINT;
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

    double now = feed_now(), wait = ui->feed.next_refresh - now;
    if (ui->deadline > 0 && ui->deadline - now < wait)
        wait = ui->deadline - now;
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

/* :print PATH: the lines of the view on screen, whole, as text. */
static void ui_print(struct ui *ui, const char *path)
{
    char what[PROMPT_MAX + 64];
    struct view *v = tabs_fresh(&ui->tabs);
    FILE *f;

    if (!v->ops->cell) {
        snprintf(what, sizeof(what), ":print: the %s view has no rows to "
                 "print", v->ops->name);
        script_failed(ui, what);
        return;
    }
    int rc = (f = fopen(path, "we")) ? columns_print(v, f) : -1;
    int err = errno;
    if (f && fclose(f) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc < 0) {
        snprintf(what, sizeof(what), "cannot write %s: %s", path,
                 strerror(err));
        script_failed(ui, what);
    }
}

/* :load PATH: from now on the views show PATH, read by main.c's loader
 * into a file source of the feed's own, as if the data had changed under
 * them (cursor and expansion are kept by line key, as on a refresh). */
static void ui_load(struct ui *ui, const char *path)
{
    char err[512], what[sizeof(err) + 32];
    struct profile *p = NULL;

    snprintf(err, sizeof(err), "%s: out of memory", path);
    if (!ui->opt.load)
        snprintf(err, sizeof(err), "%s: no loader", path);
    else
        p = ui->opt.load(path, err, sizeof(err));
    if (!p || feed_load(&ui->feed, p, path) < 0) {
        if (p)
            snprintf(err, sizeof(err), "%s: out of memory", path);
        snprintf(what, sizeof(what), ":load: %s", err);
        script_failed(ui, what);
    }
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

    feed_tick(&ui->feed, true);
    while (!ui->quit) {
        if (ui->opt.quit_flag && *ui->opt.quit_flag)
            break;
        if (ui->deadline > 0 && feed_now() >= ui->deadline)
            break;
        if (!ui->script && feed_now() >= ui->feed.next_refresh)
            feed_tick(&ui->feed, false);
        feed_poll(&ui->feed);   /* a build finished since: show it */
        if (ui->ctx.redraw) {
            ui->ctx.redraw = false;
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
            ui->ctx.redraw = true;
            break;
        case IN_REFRESH:
            feed_tick(&ui->feed, true);
            break;
        case IN_DUMP:
            ui_dump(ui, in.path);
            break;
        case IN_LOAD:
            ui_load(ui, in.path);
            break;
        case IN_PRINT:
            ui_print(ui, in.path);
            break;
        case IN_END:
            ui->quit = true;
            break;
        }
    }
}

/* The shell's parts over src and the options, before the terminal;
 * -1 on OOM. */
static int ui_setup(struct ui *ui, struct source *src,
                    const struct ui_options *opts)
{
    ui->opt = *opts;
    ui->ctx.theme = &ui->theme;
    ui->ctx.hide_self = opts->hide_self;
    ui->ctx.hide_subs = opts->hide_subs;
    ui->ctx.filter.focus = PROFILE_NONE;
    ui->ctx.filter.merge_threads = true;
    ui->ctx.filter.python_only = opts->python_only;
    ui->ctx.selected = PROFILE_NONE;
    ui->ctx.want_view = VIEW_COUNT;
    scope_init(&ui->scope);
    ui->ctx.scope = &ui->scope;
    /* nothing holds the scope yet: this cannot fail */
    if (opts->baseline)
        (void)scope_set_baseline(&ui->scope, &ui->ctx, opts->baseline,
                                 opts->baseline_name);
    ui->ctx.want_model = false;
    save_init(&ui->save, opts);
    feed_init(&ui->feed, src, opts->refresh_s, &ui->scope, &ui->tabs,
              &ui->ctx);
    ui->feed.annotate_file = opts->annotate_file;
    return tabs_init(&ui->tabs, &ui->ctx);
}

/* Free what ui_setup and the run made, the terminal first. */
static void ui_teardown(struct ui *ui)
{
    ui_screen_end(ui);
    tabs_free(&ui->tabs);
    feed_free(&ui->feed);
    scope_free(&ui->scope);
    if (ui->have_re)
        regfree(&ui->re);
    script_free(ui->script);
    free(ui);
}

int ui_run(struct source *src, const struct ui_options *opts)
{
    struct ui *ui = calloc(1, sizeof(*ui));
    char err[512];
    int rc = 1;

    if (!ui) {
        fprintf(stderr, "sproftop: out of memory\n");
        return 1;
    }
    /* The scope owns --baseline from here on, whatever happens next. */
    if (ui_setup(ui, src, opts) < 0) {
        fprintf(stderr, "sproftop: out of memory\n");
        goto out;
    }
    if (opts->script &&
        !(ui->script = script_load(opts->script, err, sizeof(err)))) {
        fprintf(stderr, "sproftop: %s\n", err);
        rc = 2;
        goto out;
    }
    setlocale(LC_ALL, "");
    bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    const char *nc = getenv("NO_COLOR");
    bool color = !opts->no_color && !(nc && nc[0]);
    if (ui_screen_init(ui) < 0) {
        fprintf(stderr, "sproftop: cannot set up the terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        goto out;
    }
    theme_init(&ui->theme, color, utf8);
    ui->ctx.redraw = true;
    if (opts->duration_s > 0 && !ui->script)
        ui->deadline = feed_now() + opts->duration_s;
    ui_loop(ui);
    rc = ui->exit_code;
out:
    ui_teardown(ui);
    return rc;
}
