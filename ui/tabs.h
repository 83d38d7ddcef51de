/* tabs.h - the views of the TUI in tab order, and which one is shown.
 *
 * The shell (ui.c) keeps one struct tabs: every view, set up once, the
 * one on screen, the one help was opened from, which views must rebuild
 * their lines before their next use, and where the last frame put the
 * tab bar and the body (frame.c writes those; mouse clicks read them).
 * A new model goes through tabs_save_cursors (while the old one lives)
 * and tabs_mark_stale.  UI thread only.
 */
#ifndef SPROFTOP_TABS_H
#define SPROFTOP_TABS_H

#include <stdbool.h>

#include "view.h"

struct tabs {
    struct ui_ctx *ctx;            /* shared with every view */
    struct view views[VIEW_COUNT];
    bool stale[VIEW_COUNT];        /* needs view_refresh before drawing */
    enum view_id cur;              /* on screen */
    enum view_id help_from;        /* the view help was opened from */
    int tab_x[VIEW_COUNT + 1];     /* tab bar column bounds (frame.c) */
    int tab_y, body_top, body_h;   /* layout of the last frame (frame.c) */
};

/* The view tables, in tab order. */
extern const struct view_ops *const tabs_table[VIEW_COUNT];

/* Set every view up over ctx, the tree on screen.  0, or -1 on OOM
 * (tabs_free then frees what was set up). */
int tabs_init(struct tabs *t, struct ui_ctx *ctx);

/* Close every view. */
void tabs_free(struct tabs *t);

/* The view on screen. */
struct view *tabs_view(struct tabs *t);

/* The view on screen, its lines rebuilt first when stale. */
struct view *tabs_fresh(struct tabs *t);

/* Show view `to`; the callers and code views take the function under
 * the cursor of the view left as their selection. */
void tabs_switch(struct tabs *t, enum view_id to);

/* Every view notes its cursor's line (call while the model its lines
 * point into is alive). */
void tabs_save_cursors(struct tabs *t);

/* Every view rebuilds its lines before its next use; redraw. */
void tabs_mark_stale(struct tabs *t);

/* The views whose lines show the live tasks (view_ops.live_tasks)
 * rebuild them before their next use: the task figures were read again. */
void tabs_mark_tasks_stale(struct tabs *t);

#endif
