/* ask.h - the prompts of the TUI: what each asks, what its answer does.
 *
 * Called by actions.c.  One table gives each purpose its label, its
 * initial text and the function that acts on the answer; the line
 * editor itself is prompt.c, and the save dialog's text is save.c's.
 * The answers act through the parts below (feed, scope, save, tabs).
 * UI thread only.
 */
#ifndef SPROFTOP_ASK_H
#define SPROFTOP_ASK_H

#include <stdbool.h>
#include <stdint.h>

#include "prompt.h"

struct ui;

/* What a prompt's text is for (struct prompt's purpose tag). */
enum ask_purpose {
    ASK_SEARCH = 1, ASK_HIDE, ASK_INTERVAL, ASK_REFRESH, ASK_SAVE, ASK_RESET,
    ASK_WINDOW,
    ASK_QUIT,
};

/* Open the prompt for `purpose` with its label and initial text (the
 * current thresholds, refresh interval, last search...); ASK_SAVE opens
 * the save dialog. */
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

#endif
