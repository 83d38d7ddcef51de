/* tabs.c - the views in tab order; see tabs.h. */
#include "tabs.h"

#include "callers_view.h"
#include "code_view.h"
#include "flame_view.h"
#include "flat_view.h"
#include "help_view.h"
#include "procs_view.h"
#include "threads_view.h"
#include "tree_view.h"

const struct view_ops *const tabs_table[VIEW_COUNT] = {
    [VIEW_TREE] = &tree_view_ops,
    [VIEW_FLAT] = &flat_view_ops,
    [VIEW_CALLERS] = &callers_view_ops,
    [VIEW_THREADS] = &threads_view_ops,
    [VIEW_SOURCE] = &source_view_ops,
    [VIEW_FLAME] = &flame_view_ops,
    [VIEW_PROCS] = &procs_view_ops,
    [VIEW_HELP] = &help_view_ops,
};

int tabs_init(struct tabs *t, struct ui_ctx *ctx)
{
    t->ctx = ctx;
    t->cur = t->help_from = VIEW_TREE;
    for (int i = 0; i < VIEW_COUNT; i++)
        if (view_init(&t->views[i], tabs_table[i], ctx) < 0)
            return -1;
    return 0;
}

void tabs_free(struct tabs *t)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        view_close(&t->views[i]);
}

struct view *tabs_view(struct tabs *t)
{
    return &t->views[t->cur];
}

struct view *tabs_fresh(struct tabs *t)
{
    if (t->stale[t->cur]) {
        t->stale[t->cur] = false;
        view_refresh(&t->views[t->cur]);
    }
    return &t->views[t->cur];
}

void tabs_switch(struct tabs *t, enum view_id to)
{
    /* The callers and source views show "the function under the cursor"
     * of the view the user comes from. */
    if ((to == VIEW_CALLERS || to == VIEW_SOURCE) && to != t->cur) {
        uint32_t f = view_cursor_frame(tabs_view(t));
        if (f != PROFILE_NONE)
            t->ctx->selected = f;
    }
    /* Back from the help screen to the view it was opened from: what
     * it shows can only have changed by what marked every view stale
     * (a new model, a filter), so a large profile's view is not built
     * again for nothing. */
    bool back = t->cur == VIEW_HELP && to == t->help_from;

    if (to == VIEW_HELP && t->cur != VIEW_HELP)
        t->help_from = t->cur;
    t->cur = to;
    if (!back)
        t->stale[to] = true;
    t->ctx->redraw = true;
}

void tabs_save_cursors(struct tabs *t)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        view_save_cursor(&t->views[i]);
}

void tabs_mark_stale(struct tabs *t)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        t->stale[i] = true;
    t->ctx->redraw = true;
}

void tabs_mark_tasks_stale(struct tabs *t)
{
    for (int i = 0; i < VIEW_COUNT; i++)
        if (t->views[i].ops->live_tasks)
            t->stale[i] = true;
}
