/* prompt.h - the one-line editor used by every prompt of the TUI.
 *
 * Search, thresholds, interval, refresh, snapshot file name and the y/n
 * reset confirmation all use this editor on the status line.  It is not
 * modal: ui.c routes keys to it while it is open and keeps refreshing the
 * screen, so sampling and the display go on while the user types.
 */
#ifndef SPROFTOP_PROMPT_H
#define SPROFTOP_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "draw.h"

/* Size of the edit buffer: room for a path under a snapshot directory. */
#define PROMPT_MAX 1024

struct prompt {
    bool active;            /* open and receiving keys */
    bool oneshot;           /* y/n question: the first key answers */
    int purpose;            /* caller's tag saying what the text is for */
    char label[256];        /* shown before the text */
    char buf[PROMPT_MAX];   /* the text being edited */
    size_t len;             /* bytes in buf */
    size_t pos;             /* cursor, byte offset in buf */
    bool selected;          /* the whole text is selected (as a prompt
                               opens with its old value): typing replaces
                               it, Backspace and Delete clear it, moving
                               (Right, End...) keeps it to edit; Tab and
                               Up/Down leave it selected */
};

enum prompt_result {
    PROMPT_EDITING = 0,     /* keep going */
    PROMPT_SUBMIT,          /* Enter (or the oneshot key, left in buf) */
    PROMPT_CANCEL,          /* Esc or C-g */
    PROMPT_TAB,             /* Tab: the caller may change label/buf */
    PROMPT_BACKTAB,         /* BackTab (Shift-Tab): the same, backwards */
    PROMPT_UPDOWN,          /* Up or Down: the caller may change the label */
};

/* Open the prompt with a label and initial text (may be NULL), the
 * cursor at its end and the whole text selected (readline and dialog
 * fields do the same: typing replaces the old value). */
void prompt_open(struct prompt *p, int purpose, const char *label,
                 const char *initial, bool oneshot);

/* Replace the text (cursor at the end, nothing selected). */
void prompt_set(struct prompt *p, const char *text);

/* Select the whole text. */
void prompt_select(struct prompt *p);

/* Feed one key; the prompt closes itself on SUBMIT and CANCEL. */
enum prompt_result prompt_key(struct prompt *p, int key);

/* Draw the prompt on row y, `width` columns, and place the terminal
 * cursor at the edit position (scrolling long text horizontally). */
void prompt_draw(const struct prompt *p, const struct theme *t, int y,
                 int width);

#endif
