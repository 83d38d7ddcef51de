/* ui_state.h - the shell of one ui_run: its parts, put together.
 *
 * ui_run (ui.c) owns a struct ui for as long as it runs.  Its parts
 * each own their state and stand in layers; a part calls only the
 * parts below it, never one above:
 *   ui.c       set-up, the main loop, the input choke point, scripted
 *              commands (:dump, :print, :load)
 *   actions.c  keys and mouse clicks: the table of the UI's own requests
 *   ask.c      what the prompts ask for and what their answers do
 *   frame.c    the frame: header, tabs, footer, message line, dumps
 * and below them, each with its own header and state:
 *   save.c     the save dialog ('s')              struct save_dialog
 *   feed.c     source, status, snapshot, model    struct feed
 *   timeline.c the strip of samples per second    struct timeline
 *   scope.c    time window, time cursor, baseline struct scope
 *   tabs.c     the views and the one on screen    struct tabs
 * The parts below take what they read of the others as arguments
 * (struct scope_env, struct save_env, built here) and never this
 * struct.  Everything runs on the UI thread, the only one that touches
 * curses or this struct; no function takes a lock.
 */
#ifndef SPROFTOP_UI_STATE_H
#define SPROFTOP_UI_STATE_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>

#include "draw.h"
#include "feed.h"
#include "prompt.h"
#include "save.h"
#include "scope.h"
#include "tabs.h"
#include "timeline.h"
#include "ui_options.h"
#include "view.h"

struct script;

struct ui {
    struct ui_options opt;         /* as the caller gave them */
    struct theme theme;
    struct ui_ctx ctx;             /* shared with the views */
    struct tabs tabs;
    struct feed feed;
    struct scope scope;
    struct timeline timeline;
    struct save_dialog save;
    struct prompt prompt;
    regex_t re;                    /* the last search (ask.c) */
    bool have_re;
    char search_text[PROMPT_MAX];  /* ...as typed, for the tab bar */
    struct script *script;         /* --script, NULL: the keyboard */
    bool quit;
    int exit_code;
    double deadline;               /* -d: return at this time, 0 = never */
    SCREEN *screen;
    FILE *tty_out, *tty_in;        /* /dev/null in scripted mode */
};

/* What the scope's requests read (scope.h). */
static inline struct scope_env ui_scope_env(struct ui *ui)
{
    return (struct scope_env){
        .snap = ui->feed.snap, .model = ui->feed.model, .ctx = &ui->ctx,
        .is_file = ui->feed.status.is_file, .step = ui->timeline.step,
    };
}

/* What the save dialog reads and edits (save.h). */
static inline struct save_env ui_save_env(struct ui *ui)
{
    return (struct save_env){ .feed = &ui->feed, .scope = &ui->scope,
                              .ctx = &ui->ctx, .prompt = &ui->prompt };
}

#endif
