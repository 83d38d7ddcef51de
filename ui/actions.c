/* actions.c - what keys and clicks do: the UI's table of requests.
 *
 * See actions.h.  A key becomes a request through the key table
 * (request.c); ui_actions[] below says what the UI itself does for each
 * request it owns (switching views, filters, sampling, prompts).  Any
 * other request goes to the view on screen, whose own table (view.h)
 * knows it or not; an unknown one says "not available in the X view".
 */
#include "actions.h"

#include <stdio.h>

#include "ask.h"
#include "code_view.h"
#include "profile.h"
#include "ui_state.h"
#include "view_model.h"

typedef void ui_action(struct ui *ui, enum request req);

static void act_view(struct ui *ui, enum request req)
{
    enum view_id to = (enum view_id)(VIEW_TREE + (req - REQ_VIEW_TREE));

    /* The help key closes help the way it opened it. */
    if (to == VIEW_HELP && ui->tabs.cur == VIEW_HELP)
        to = ui->tabs.help_from;
    tabs_switch(&ui->tabs, to);
}

/* Esc: help goes back to the view it was opened from; elsewhere Esc
 * only clears the message line. */
static void act_close(struct ui *ui, enum request req)
{
    (void)req;
    if (ui->tabs.cur == VIEW_HELP)
        tabs_switch(&ui->tabs, ui->tabs.help_from);
}

static void act_view_next(struct ui *ui, enum request req)
{
    (void)req;
    tabs_switch(&ui->tabs, (enum view_id)((ui->tabs.cur + 1) % VIEW_COUNT));
}

static void act_view_prev(struct ui *ui, enum request req)
{
    (void)req;
    tabs_switch(&ui->tabs, (enum view_id)((ui->tabs.cur + VIEW_COUNT - 1) %
                                          VIEW_COUNT));
}

/* The function under the cursor, or a message saying there is none. */
static uint32_t cursor_function(struct ui *ui)
{
    uint32_t f = view_cursor_frame(tabs_view(&ui->tabs));

    if (f == PROFILE_NONE)
        ctx_message(&ui->ctx, true, "no function under the cursor");
    return f;
}

/* 'c' and 'a': the callers of the function under the cursor, or its
 * instructions annotated (rebuilt when already on screen: the function
 * changed); a script function (Python, Ruby) has no machine code of its
 * own, so 'a' shows its source lines with their samples. */
static void act_show_function(struct ui *ui, enum request req)
{
    enum view_id to = req == REQ_CALLERS ? VIEW_CALLERS : VIEW_SOURCE;
    uint32_t f = cursor_function(ui);

    if (f == PROFILE_NONE)
        return;
    ui->ctx.selected = f;
    if (req == REQ_ANNOTATE) {
        const struct profile *snap = ui->feed.model ? ui->feed.model->snap
                                                    : NULL;
        bool script = snap &&
            profile_frame_is_script(profile_frame(snap, f));

        code_view_annotate(&ui->tabs.views[VIEW_SOURCE], !script);
    }
    if (ui->tabs.cur == to)
        view_refresh(tabs_view(&ui->tabs));
    tabs_switch(&ui->tabs, to);
}

/* The first thread of process pid in the model's snapshot, NULL. */
static const struct profile_thread *process_thread(const struct ui *ui,
                                                   int64_t pid)
{
    const struct profile *s = ui->feed.model ? ui->feed.model->snap : NULL;

    for (uint32_t i = 0; s && i < profile_thread_count(s); i++)
        if (profile_thread_at(s, i)->pid == pid)
            return profile_thread_at(s, i);
    return NULL;
}

/* f: only the stacks through the function under the cursor; on a
 * thread row, only that thread; on a process row, that process. */
static void act_focus(struct ui *ui, enum request req)
{
    const struct profile_thread *th = view_cursor_thread(tabs_view(&ui->tabs));
    int64_t pid = view_cursor_process(tabs_view(&ui->tabs));

    (void)req;
    if (th) {
        ctx_show_thread(&ui->ctx, th);
        return;
    }
    if (pid && (th = process_thread(ui, pid))) {
        ctx_show_process(&ui->ctx, th);
        return;
    }
    uint32_t f = cursor_function(ui);
    if (f == PROFILE_NONE)
        return;
    if (ui->feed.model && !profile_has_stacks(ui->feed.model->snap)) {
        ctx_message(&ui->ctx, true, "%s: no stacks to focus on",
                    PROFILE_NO_STACKS);
        return;
    }
    ui->ctx.filter.focus = f;
    ui->ctx.want_model = true;
    ctx_message(&ui->ctx, false, "focus on %s (F clears)",
                ui->feed.model ? model_frame_name(ui->feed.model, f) : "?");
}

static void act_unfocus(struct ui *ui, enum request req)
{
    (void)req;
    if (ui->ctx.filter.focus == PROFILE_NONE) {
        ctx_message(&ui->ctx, false, "no focus set");
        return;
    }
    ui->ctx.filter.focus = PROFILE_NONE;
    ui->ctx.want_model = true;
    ctx_message(&ui->ctx, false, "focus cleared");
}

static void act_all_threads(struct ui *ui, enum request req)
{
    (void)req;
    ui->ctx.filter.has_thread = false;
    ui->ctx.filter.has_process = false;
    ui->ctx.want_model = true;
    ctx_message(&ui->ctx, false, "showing all threads and processes");
}

/* K: kernel frames shown or hidden (their time then goes to the user
 * frame that called into the kernel, as without kernel frames). */
static void act_kernel(struct ui *ui, enum request req)
{
    bool hide = !ui->ctx.filter.hide_kernel;

    (void)req;
    if (hide && !(ui->feed.model && ui->feed.model->has_kernel)) {
        ctx_message(&ui->ctx, true, "no kernel frames here%s%s",
                    ui->feed.status.kernel[0] ? ": " : "",
                    ui->feed.status.kernel);
        return;
    }
    ui->ctx.filter.hide_kernel = hide;
    ui->ctx.want_model = true;
    ctx_message(&ui->ctx, false, hide ? "kernel frames hidden: their time is "
                                        "their callers' (K shows them)"
                                      : "kernel frames shown, tagged [k]");
}

/* z: with off-CPU reasons (--idle), both kinds of time, on-CPU only,
 * off-CPU only, and round again. */
static void act_cpu_filter(struct ui *ui, enum request req)
{
    static const char *const said[] = {
        [PROFILE_CPU_BOTH] = "on-CPU and off-CPU time (wall clock)",
        [PROFILE_CPU_ON] = "on-CPU time only",
        [PROFILE_CPU_OFF] = "off-CPU time only, by reason",
    };
    uint8_t to = (uint8_t)((ui->ctx.filter.cpu + 1) % 3);

    (void)req;
    if (to != PROFILE_CPU_BOTH &&
        !(ui->feed.model && ui->feed.model->has_reasons)) {
        ctx_message(&ui->ctx, true, "no off-CPU reasons here: sample with "
                                    "--idle where kernel stacks are taken");
        return;
    }
    ui->ctx.filter.cpu = to;
    ui->ctx.want_model = true;
    ctx_message(&ui->ctx, false, "showing %s (z: next)", said[to]);
}

/* P: stacks with Python or Ruby frames show only those, and back. */
static void act_python_only(struct ui *ui, enum request req)
{
    (void)req;
    ui->ctx.filter.python_only = !ui->ctx.filter.python_only;
    ui->ctx.want_model = true;
    ctx_message(&ui->ctx, false, ui->ctx.filter.python_only
                ? "Python/Ruby frames only (P: native frames again)"
                : "native and Python/Ruby frames");
}

/* [ ] { }: one threshold 0.5 points down or up. */
static void act_hide_step(struct ui *ui, enum request req)
{
    double self = ui->ctx.hide_self, subs = ui->ctx.hide_subs;

    if (req == REQ_HIDE_SELF_LESS || req == REQ_HIDE_SELF_MORE)
        self += req == REQ_HIDE_SELF_MORE ? 0.5 : -0.5;
    else
        subs += req == REQ_HIDE_SUBS_MORE ? 0.5 : -0.5;
    ask_set_hide(ui, self, subs);
}

static void act_pause(struct ui *ui, enum request req)
{
    (void)req;
    if (ask_sampling_over(ui, "nothing to pause"))
        return;
    struct feed *f = &ui->feed;
    bool to = !f->status.paused;
    if (f->src->ops->set_paused(f->src, to) < 0) {
        ctx_message(&ui->ctx, true, "%s cannot be paused",
                    f->status.is_file ? "a loaded file" : "this source");
        return;
    }
    feed_status(f);
    ctx_message(&ui->ctx, false, to ? "sampling paused (p resumes)"
                                    : "sampling resumed");
}

/* < and >: half or twice the interval (10 ms when the source has none). */
static void act_interval_step(struct ui *ui, enum request req)
{
    uint64_t ns = ui->feed.status.interval_ns ? ui->feed.status.interval_ns
                                              : 10000000u;

    ask_set_interval(ui, req == REQ_INTERVAL_HALVE ? ns / 2 : ns * 2);
}

static void act_refresh_now(struct ui *ui, enum request req)
{
    (void)req;
    feed_tick(&ui->feed, true);
    clearok(curscr, TRUE);
}

static void act_ask(struct ui *ui, enum request req)
{
    if (req == REQ_INTERVAL_PROMPT &&
        ask_sampling_over(ui, "the rate cannot change"))
        return;
    static const enum ask_purpose purpose[REQ_COUNT] = {
        [REQ_SEARCH] = ASK_SEARCH,
        [REQ_HIDE_PROMPT] = ASK_HIDE,
        [REQ_INTERVAL_PROMPT] = ASK_INTERVAL,
        [REQ_REFRESH_PROMPT] = ASK_REFRESH,
        [REQ_RESET] = ASK_RESET,
        [REQ_WINDOW_PROMPT] = ASK_WINDOW,
        [REQ_SAVE] = ASK_SAVE,
    };

    ask_open(ui, purpose[req]);
}

static void act_scope(struct ui *ui, enum request req)
{
    struct scope_env e = ui_scope_env(ui);

    scope_act(&ui->scope, &e, req);
}

/* q: in help, back to the view; else quit, asking once when that would
 * lose samples (as perf top does). */
static void act_quit(struct ui *ui, enum request req)
{
    if (ui->tabs.cur == VIEW_HELP) {
        act_close(ui, req);
        return;
    }
    feed_status(&ui->feed);
    if (ui->opt.confirm_quit && save_unsaved(&ui->save, &ui->feed)) {
        ask_open(ui, ASK_QUIT);
        return;
    }
    ui->quit = true;
}

/* The requests the UI acts on itself; NULL: the view's. */
static ui_action *const ui_actions[REQ_COUNT] = {
    [REQ_VIEW_TREE] = act_view,
    [REQ_VIEW_FLAT] = act_view,
    [REQ_VIEW_CALLERS] = act_view,
    [REQ_VIEW_THREADS] = act_view,
    [REQ_VIEW_SOURCE] = act_view,
    [REQ_VIEW_FLAME] = act_view,
    [REQ_VIEW_PROCS] = act_view,
    [REQ_VIEW_HELP] = act_view,
    [REQ_VIEW_NEXT] = act_view_next,
    [REQ_VIEW_PREV] = act_view_prev,
    [REQ_CLOSE] = act_close,
    [REQ_CALLERS] = act_show_function,
    [REQ_ANNOTATE] = act_show_function,
    [REQ_SEARCH] = act_ask,
    [REQ_FOCUS] = act_focus,
    [REQ_UNFOCUS] = act_unfocus,
    [REQ_ALL_THREADS] = act_all_threads,
    [REQ_PYTHON_ONLY] = act_python_only,
    [REQ_HIDE_PROMPT] = act_ask,
    [REQ_HIDE_SELF_LESS] = act_hide_step,
    [REQ_HIDE_SELF_MORE] = act_hide_step,
    [REQ_HIDE_SUBS_LESS] = act_hide_step,
    [REQ_HIDE_SUBS_MORE] = act_hide_step,
    [REQ_TOGGLE_KERNEL] = act_kernel,
    [REQ_CPU_FILTER] = act_cpu_filter,
    [REQ_WINDOW] = act_scope,
    [REQ_WINDOW_PROMPT] = act_ask,
    [REQ_TIME_EARLIER] = act_scope,
    [REQ_TIME_LATER] = act_scope,
    [REQ_TIME_MARK] = act_scope,
    [REQ_TIME_CLEAR] = act_scope,
    [REQ_RECENT_COLUMN] = act_scope,
    [REQ_MERGE_COMMANDS] = act_scope,
    [REQ_PIN] = act_scope,
    [REQ_DIFF] = act_scope,
    [REQ_PAUSE] = act_pause,
    [REQ_INTERVAL_HALVE] = act_interval_step,
    [REQ_INTERVAL_DOUBLE] = act_interval_step,
    [REQ_INTERVAL_PROMPT] = act_ask,
    [REQ_REFRESH_PROMPT] = act_ask,
    [REQ_REFRESH_NOW] = act_refresh_now,
    [REQ_SAVE] = act_ask,
    [REQ_RESET] = act_ask,
    [REQ_QUIT] = act_quit,
};

/* Act on one request: the UI's own from its table, the rest by the
 * view on screen. */
static void actions_run(struct ui *ui, enum request req)
{
    if (req > REQ_NONE && req < REQ_COUNT && ui_actions[req]) {
        ui_actions[req](ui, req);
        return;
    }
    struct view *v = tabs_fresh(&ui->tabs);
    if (!view_request(v, req) && req != REQ_NONE)
        ctx_message(&ui->ctx, true, "not available in the %s view",
                    v->ops->name);
}

/* After a request: a view that changed the filter gets its new model. */
static void after_request(struct ui *ui)
{
    if (ui->ctx.want_model) {
        ui->ctx.want_model = false;
        feed_rebuild(&ui->feed);
    }
    if (ui->ctx.want_view != VIEW_COUNT) {
        tabs_switch(&ui->tabs, ui->ctx.want_view);
        ui->ctx.want_view = VIEW_COUNT;
    }
}

void actions_key(struct ui *ui, int key)
{
    ui->ctx.redraw = true;
    if (ui->prompt.active) {
        ask_done(ui, prompt_key(&ui->prompt, key));
    } else {
        ui->ctx.msg[0] = '\0';
        actions_run(ui, request_for_key(key));
    }
    after_request(ui);
}

void actions_mouse(struct ui *ui, const MEVENT *me)
{
    struct tabs *tb = &ui->tabs;
    struct view *v = tabs_view(tb);

    ui->ctx.redraw = true;
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
    if (me->y == tb->tab_y) {
        for (int i = 0; i < VIEW_COUNT; i++)
            if (me->x >= tb->tab_x[i] && me->x < tb->tab_x[i + 1])
                tabs_switch(tb, (enum view_id)i);
        return;
    }
    if (me->y >= tb->body_top && me->y < tb->body_top + tb->body_h) {
        view_click(v, me->y - tb->body_top);
        if (me->bstate & BUTTON1_DOUBLE_CLICKED) {
            actions_run(ui, REQ_ENTER);
            after_request(ui);
        }
    }
}
