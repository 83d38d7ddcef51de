/* save.h - the save dialog: 's' writes a snapshot in a chosen format.
 *
 * The dialog owns its state (struct save_dialog: the format offered,
 * the default name, view or every sample, and whether every sample was
 * saved since the data last changed).  It edits the prompt it is given
 * and reads the feed, the scope and the view's filter (struct
 * save_env); the formats come from main.c through struct ui_save_ops
 * (ui_options.h), so the UI includes no formats header.  UI thread only.
 */
#ifndef SPROFTOP_SAVE_H
#define SPROFTOP_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "prompt.h"
#include "ui_options.h"

struct feed;
struct scope;
struct ui_ctx;

struct save_dialog {
    const struct ui_save_ops *ops;  /* the formats (NULL: none) */
    const char *dir;                /* --snapshot-dir, NULL: here */
    size_t fmt;                     /* the format offered */
    char default_name[PROMPT_MAX];  /* default name for that format */
    time_t time;                    /* when the prompt opened */
    bool all;                       /* every sample, not the view */
    bool saved;                     /* every sample was saved... */
    uint64_t saved_generation;      /* ...with the source at this
                                       generation */
};

/* What the dialog reads and edits of the rest of the TUI. */
struct save_env {
    struct feed *feed;              /* status, model, the source to save */
    const struct scope *scope;      /* the time window on screen */
    struct ui_ctx *ctx;             /* filter, thresholds, messages */
    struct prompt *prompt;          /* the line it edits */
};

/* Set up from the options: the format -f names (else "pprof", else the
 * first). */
void save_init(struct save_dialog *d, const struct ui_options *o);

/* 's': open the prompt, tagged `purpose`, with a default name, to save
 * the view. */
void save_open(struct save_dialog *d, const struct save_env *e,
               int purpose);

/* The text of the prompt changed: a known extension picks its format. */
void save_follow_name(struct save_dialog *d, const struct save_env *e);

/* Up or Down in the prompt: the view, or every sample. */
void save_toggle_scope(struct save_dialog *d, const struct save_env *e);

/* Tab (step 1) or BackTab (step -1): the next or previous format; the
 * default name (or the extension of a typed one) follows. */
void save_cycle(struct save_dialog *d, const struct save_env *e, int step);

/* Write a new snapshot (the view, or every sample) to `path` in the
 * current format; the result, with the full path, goes to the message
 * line. */
void save_write(struct save_dialog *d, const struct save_env *e,
                const char *path);

/* Whether quitting now would lose samples: a live source whose data
 * changed since every sample was last saved (or never saved). */
bool save_unsaved(const struct save_dialog *d, const struct feed *f);

#endif
