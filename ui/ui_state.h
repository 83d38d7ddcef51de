/* ui_state.h - the state of one ui_run, shared by the parts of the TUI.
 *
 * ui_run (ui.c) owns a struct ui for as long as it runs; the parts that
 * act on it each have their file:
 *   ui.c       set-up, the main loop, the input choke point, data ticks
 *   frame.c    the frame: header, tabs, footer, message line, screen dump
 *   actions.c  keys and mouse clicks: the table of the UI's own requests
 *   ask.c      what the prompts ask for and what their answers do
 *   save.c     the save dialog ('s'): default names, Tab, the write
 *   scope.c    the time window, the timeline's cursor, the baseline
 *   timeline.c the strip of samples per second under the header
 * Everything here runs on the UI thread, the only one that touches curses
 * or this struct; no function takes a lock.
 */
#ifndef SPROFTOP_UI_STATE_H
#define SPROFTOP_UI_STATE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "draw.h"
#include "header_cpu.h"
#include "prompt.h"
#include "request.h"
#include "source.h"
#include "ui.h"
#include "view.h"

struct script;

/* What a prompt's text is for (struct prompt's purpose tag). */
enum ask_purpose {
    ASK_SEARCH = 1, ASK_HIDE, ASK_INTERVAL, ASK_REFRESH, ASK_SAVE, ASK_RESET,
    ASK_WINDOW,
    ASK_QUIT,
};

struct ui {
    struct source *src;            /* what the views show */
    struct source *own_src;        /* a file source the UI opened for a
                                      scripted :load (closed by ui_run) */
    struct ui_options opt;
    struct theme theme;
    struct ui_ctx ctx;
    struct view views[VIEW_COUNT];
    bool stale[VIEW_COUNT];        /* needs view_refresh before drawing */
    enum view_id cur;
    enum view_id help_from;        /* the view help was opened from */
    struct source_status status;
    struct header_cpu hcpu;        /* the header's On CPU (header_cpu.h) */
    uint64_t paused_ns;            /* sampling time lost to past pauses */
    uint64_t pause_start_ns;       /* status.elapsed_ns when the current
                                      pause began */
    bool was_paused;               /* status.paused at the last read */
    struct profile *snap;          /* owned; the model borrows it */
    struct scope scope;            /* time window and baseline (scope.c) */
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
    bool save_all;                 /* 's' saves every sample, not the view */
    bool saved;                    /* a save of every sample succeeded... */
    uint64_t saved_generation;     /* ...with the source at this generation */
    int tab_x[VIEW_COUNT + 1];     /* tab bar column bounds, for clicks */
    int tab_y, body_top, body_h;   /* layout of the last frame */
    SCREEN *screen;
    FILE *tty_out, *tty_in;        /* /dev/null in scripted mode */
};

/* The view tables, in tab order (ui.c). */
extern const struct view_ops *const ui_view_table[VIEW_COUNT];

/* --- ui.c ----------------------------------------------------------------- */

/* Monotonic time in seconds. */
double ui_now(void);

/* The view on screen. */
struct view *ui_view(struct ui *ui);

/* Show view `to`; the callers and code views take the function under the
 * cursor of the view left as their selection. */
void ui_switch(struct ui *ui, enum view_id to);

/* Read the source's status into ui->status (and redraw), and account
 * for pauses (ui_sampling_ns). */
void ui_status(struct ui *ui);

/* How long the source has been sampling, pauses excluded; and, when
 * paused, for how long (else 0) in *paused_for. */
uint64_t ui_sampling_ns(const struct ui *ui, uint64_t *paused_for);

/* Status, then a new snapshot and model when the source's generation
 * changed (or `force`); schedules the next tick. */
void ui_tick(struct ui *ui, bool force);

/* A new model over the current snapshot with the current filter and
 * thresholds (after a filter change); keeps the old one on OOM. */
void ui_rebuild_model(struct ui *ui);

/* Every view rebuilds its lines before its next use. */
void ui_mark_stale(struct ui *ui);

/* --- frame.c -------------------------------------------------------------- */

/* Erase and draw the whole frame, then refresh the terminal once. */
void frame_draw(struct ui *ui);

/* Write the screen as curses holds it to `path`, one row per line,
 * trailing blanks trimmed (tig's test dump).  0, or -1 with errno set. */
int frame_dump(const char *path);

/* "99.0 Hz", "250 Hz": a rate as the header shows it, into buf. */
const char *frame_hz(double hz, char *buf, size_t n);

/* --- actions.c ------------------------------------------------------------ */

/* Whether quitting now would lose samples: a live source whose data
 * changed since the last save (or never saved). */
bool actions_unsaved(struct ui *ui);

/* Act on one request: the UI's own (views, filters, sampling, prompts)
 * from its table, the rest by the view on screen. */
void actions_run(struct ui *ui, enum request req);

/* One key from the terminal or the script: to the open prompt, else
 * through the key table to actions_run. */
void actions_key(struct ui *ui, int key);

/* One mouse event: wheel scrolls, a click on a tab switches, on a row
 * moves the cursor, a double click is Enter. */
void actions_mouse(struct ui *ui, const MEVENT *me);

/* --- ask.c ---------------------------------------------------------------- */

/* Open the prompt for `purpose` with its label and initial text (the
 * current thresholds, refresh interval, last search...). */
void ask_open(struct ui *ui, enum ask_purpose purpose);

/* The open prompt returned r (Enter, Esc, Tab): act on its text. */
void ask_done(struct ui *ui, enum prompt_result r);

/* Set the hide thresholds (clamped to 0..100) and say so. */
void ask_set_hide(struct ui *ui, double self, double subs);

/* When the live target has exited (or sampling ended), say so, with
 * what cannot be done ("nothing to pause"), and return true. */
bool ask_sampling_over(struct ui *ui, const char *what);

/* Set the sampling interval (clamped to what the source takes) and say
 * so, or why it cannot change. */
void ask_set_interval(struct ui *ui, uint64_t ns);

/* --- save.c --------------------------------------------------------------- */

/* The format index -f names (else "pprof", else 0). */
size_t save_initial_format(const struct ui *ui);

/* 's': open the save prompt with a default name, to save the view. */
void save_open(struct ui *ui);

/* The text of the save prompt changed: a known extension picks its
 * format. */
void save_follow_name(struct ui *ui);

/* Up or Down in the save prompt: the view, or every sample. */
void save_toggle_scope(struct ui *ui);

/* Tab (step 1) or BackTab (step -1) in the save prompt: the next or
 * previous format; the default name (or the extension of a typed one)
 * follows. */
void save_cycle(struct ui *ui, int step);

/* Write a new snapshot (the view, or every sample) to `path` in the
 * current format; the result, with the full path, goes to the message
 * line. */
void save_write(struct ui *ui, const char *path);

/* --- scope.c -------------------------------------------------------------- */

/* Set up (no window, 5 s recent length, no baseline) and free. */
void scope_init(struct scope *s);
void scope_free(struct scope *s);

/* The model the views read for snapshot `snap` (which it borrows): its
 * window, the recent window for the flat table, the baseline.  NULL on
 * OOM. */
struct model *scope_model(struct ui *ui, struct profile *snap);

/* p cut to the window the views show (p is freed and the window
 * returned; p itself when they show everything).  NULL on OOM. */
struct profile *scope_apply(struct ui *ui, struct profile *p);

/* The requests of the "Time and baseline" group. */
void scope_act(struct ui *ui, enum request req);

/* Show the recent window, `secs` long (the W prompt's answer). */
void scope_set_recent(struct ui *ui, uint32_t secs);

/* Use b (owned from now on; NULL: none) as the baseline, shown as
 * `name`, and show the change from it.  0. */
int scope_set_baseline(struct ui *ui, struct profile *b, const char *name);

/* --- timeline.c ----------------------------------------------------------- */

/* Rows the strip takes under the header: 1 when the snapshot keeps
 * times and the terminal has room, else 0. */
int timeline_rows(const struct ui *ui);

/* Draw the strip on row y. */
void timeline_draw(struct ui *ui, int y);

#endif
