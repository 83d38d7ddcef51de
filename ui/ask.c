/* ask.c - the prompts of the TUI: what each asks and what its answer does.
 *
 * See ask.h.  One table, asks[], gives each purpose its label, its
 * initial text and the function that acts on the answer; the line editor
 * itself is prompt.c.  Durations typed here go through the same parser
 * as -r and -d (src/base/duration.h).
 */
#include "ask.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "duration.h"
#include "ui_state.h"
#include "view_model.h"

void ask_set_hide(struct ui *ui, double self, double subs)
{
    ui->ctx.hide_self = sp_hide_clamp(self);
    ui->ctx.hide_subs = sp_hide_clamp(subs);
    feed_set_hide(&ui->feed);
    ctx_message(&ui->ctx, false, "hide-self %.1f%%  hide-subs %.1f%%",
                ui->ctx.hide_self, ui->ctx.hide_subs);
}

bool ask_sampling_over(struct ui *ui, const char *what)
{
    const struct source_status *st = &ui->feed.status;

    feed_status(&ui->feed);
    if (st->is_file || (st->state != TARGET_EXITED &&
                        st->state != TARGET_DETACHED))
        return false;
    ctx_message(&ui->ctx, true, "%s: %s", st->state == TARGET_EXITED
                ? "the target has exited" : "sampling has ended", what);
    return true;
}

/* The source clamps the interval too (source.h); clamping here lets the
 * message say what was actually asked. */
void ask_set_interval(struct ui *ui, uint64_t asked)
{
    char a[32], b[32], lo[32], hi[32], why[80] = "";
    uint64_t ns = sp_interval_clamp(asked);

    if (ask_sampling_over(ui, "the rate cannot change"))
        return;
    if (ns != asked)
        snprintf(why, sizeof(why), ", clamped to %s..%s",
                 fmt_duration(SP_INTERVAL_MIN_NS, lo, sizeof(lo)),
                 fmt_duration(SP_INTERVAL_MAX_NS, hi, sizeof(hi)));
    if (ui->feed.src->ops->set_interval(ui->feed.src, ns) < 0) {
        ctx_message(&ui->ctx, true, "the sampling interval of %s cannot change",
                    ui->feed.status.is_file ? "a loaded file" : "this source");
        return;
    }
    feed_status(&ui->feed);
    ctx_message(&ui->ctx, false, "sampling every %s (%s)%s",
                fmt_duration(ns, a, sizeof(a)),
                fmt_hz(1e9 / (double)ns, b, sizeof(b)), why);
}

static void answer_search(struct ui *ui, char *text)
{
    regex_t re;
    int rc;

    /* An empty search clears the last one. */
    if (!text[0]) {
        if (ui->have_re)
            regfree(&ui->re);
        ui->have_re = false;
        ui->ctx.search = NULL;
        ui->search_text[0] = '\0';
        ctx_message(&ui->ctx, false, "search cleared");
        return;
    }
    rc = regcomp(&re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (rc != 0) {
        char err[128];
        regerror(rc, &re, err, sizeof(err));
        ctx_message(&ui->ctx, true, "bad regex: %s", err);
        return;
    }
    if (ui->have_re)
        regfree(&ui->re);
    ui->re = re;
    ui->have_re = true;
    ui->ctx.search = &ui->re;
    snprintf(ui->search_text, sizeof(ui->search_text), "%s", text);
    view_search(tabs_fresh(&ui->tabs), &ui->re, true);
}

/* "SELF SUBS" or "SELF" percentages; '%' and ',' may be typed too. */
static void answer_hide(struct ui *ui, char *text)
{
    double a, b;

    for (char *c = text; *c; c++)
        if (*c == '%' || *c == ',')
            *c = ' ';
    int n = sscanf(text, "%lf %lf", &a, &b);
    if (n < 1 || a < 0 || a > SP_HIDE_MAX ||
        (n == 2 && (b < 0 || b > SP_HIDE_MAX))) {
        ctx_message(&ui->ctx, true, "expected \"SELF SUBS\" percentages, "
                    "e.g. \"1 2\"");
        return;
    }
    ask_set_hide(ui, a, n == 2 ? b : ui->ctx.hide_subs);
}

/* "5ms", "5" (ms), "250us", "0.5s" or "200hz", from 1 ns to 1000 s. */
static void answer_interval(struct ui *ui, char *text)
{
    double ns;

    if (duration_parse(text, DURATION_MS, true, &ns) < 0 || ns < 1 ||
        ns > 1e12) {
        ctx_message(&ui->ctx, true, "bad interval \"%s\": try 5ms, 250us "
                    "or 200hz", text);
        return;
    }
    ask_set_interval(ui, (uint64_t)llround(ns));
}

static void answer_refresh(struct ui *ui, char *text)
{
    double s;

    if (duration_parse_seconds(text, UI_REFRESH_MIN_S, UI_REFRESH_MAX_S,
                               &s) < 0) {
        ctx_message(&ui->ctx, true, "refresh interval: seconds from %g to %g",
                    UI_REFRESH_MIN_S, UI_REFRESH_MAX_S);
        return;
    }
    ui->feed.refresh_s = s;
    ui->feed.next_refresh = feed_now() + s;
    ctx_message(&ui->ctx, false, "refreshing every %gs", s);
}

static void answer_save(struct ui *ui, char *text)
{
    struct save_env e = ui_save_env(ui);

    save_write(&ui->save, &e, text);
}

static void answer_reset(struct ui *ui, char *text)
{
    if (text[0] != 'y' && text[0] != 'Y') {
        ctx_message(&ui->ctx, false, "reset cancelled");
        return;
    }
    if (ui->feed.src->ops->reset(ui->feed.src) < 0) {
        ctx_message(&ui->ctx, true, "this source cannot be reset");
        return;
    }
    feed_tick(&ui->feed, true);
    ctx_message(&ui->ctx, false, "all samples forgotten");
}

/* Seconds, 1 s to an hour (the longest ring, WINDOW_MAX_SECONDS). */
static void answer_window(struct ui *ui, char *text)
{
    double s;

    if (duration_parse_seconds(text, 1, 3600, &s) < 0) {
        ctx_message(&ui->ctx, true, "recent window: seconds from 1 to 3600");
        return;
    }
    struct scope_env e = ui_scope_env(ui);

    scope_set_recent(&ui->scope, &e, (uint32_t)s);
}

static void initial_window(struct ui *ui, char *buf, size_t n)
{
    snprintf(buf, n, "%u", ui->scope.recent_s);
}

/* q (or y) quits, s opens the save prompt, any other key stays. */
static void answer_quit(struct ui *ui, char *text)
{
    if (text[0] == 'q' || text[0] == 'y' || text[0] == 'Y')
        ui->quit = true;
    else if (text[0] == 's')
        ask_open(ui, ASK_SAVE);
    else
        ctx_message(&ui->ctx, false, "not quitting");
}

static void label_quit(struct ui *ui, char *buf, size_t n)
{
    snprintf(buf, n, "Quit? %llu samples are not saved%s (q: quit, s: save, "
             "other: stay) ", (unsigned long long)ui->feed.status.samples,
             ui->opt.ends_command ? " and the command will be ended" : "");
}

static void initial_search(struct ui *ui, char *buf, size_t n)
{
    snprintf(buf, n, "%s", ui->search_text);
}

static void initial_hide(struct ui *ui, char *buf, size_t n)
{
    snprintf(buf, n, "%g %g", ui->ctx.hide_self, ui->ctx.hide_subs);
}

/* The current rate, in a form the prompt reads back exactly. */
static void initial_interval(struct ui *ui, char *buf, size_t n)
{
    if (ui->feed.status.interval_ns)
        snprintf(buf, n, "%.6ghz", 1e9 / (double)ui->feed.status.interval_ns);
}

static void initial_refresh(struct ui *ui, char *buf, size_t n)
{
    snprintf(buf, n, "%g", ui->feed.refresh_s);
}

static const struct ask {
    const char *label;
    /* The label when it depends on the state; NULL: `label`. */
    void (*label_fn)(struct ui *ui, char *buf, size_t n);
    bool oneshot;                 /* a y/n question: one key answers */
    /* The text the prompt opens with; NULL: empty. */
    void (*initial)(struct ui *ui, char *buf, size_t n);
    /* Act on the submitted text (which it may modify). */
    void (*answer)(struct ui *ui, char *text);
} asks[] = {
    [ASK_SEARCH] = { "Search (regex): ", NULL, false, initial_search,
                     answer_search },
    [ASK_HIDE] = { "Hide self% subs%: ", NULL, false, initial_hide,
                   answer_hide },
    [ASK_INTERVAL] = { "Sampling interval (5ms, 250us, 200hz): ", NULL, false,
                       initial_interval, answer_interval },
    [ASK_REFRESH] = { "Refresh every (seconds): ", NULL, false,
                      initial_refresh, answer_refresh },
    /* The save dialog opens it, with its own label and default name. */
    [ASK_SAVE] = { "", NULL, false, NULL, answer_save },
    [ASK_RESET] = { "Forget all samples? (y/n) ", NULL, true, NULL,
                    answer_reset },
    [ASK_QUIT] = { "", label_quit, true, NULL, answer_quit },
    [ASK_WINDOW] = { "Recent window (seconds): ", NULL, false, initial_window,
                     answer_window },
};

void ask_open(struct ui *ui, enum ask_purpose purpose)
{
    const struct ask *a = &asks[purpose];
    char initial[PROMPT_MAX] = "", label[sizeof(ui->prompt.label)];

    if (purpose == ASK_SAVE) {
        struct save_env e = ui_save_env(ui);
        save_open(&ui->save, &e, ASK_SAVE);
        return;
    }

    if (a->initial)
        a->initial(ui, initial, sizeof(initial));
    if (a->label_fn)
        a->label_fn(ui, label, sizeof(label));
    prompt_open(&ui->prompt, (int)purpose, a->label_fn ? label : a->label,
                initial, a->oneshot);
}

void ask_done(struct ui *ui, enum prompt_result r)
{
    struct prompt *p = &ui->prompt;

    if (p->purpose == ASK_SAVE && r != PROMPT_SUBMIT && r != PROMPT_CANCEL) {
        struct save_env e = ui_save_env(ui);
        if (r == PROMPT_TAB || r == PROMPT_BACKTAB)
            save_cycle(&ui->save, &e, r == PROMPT_TAB ? 1 : -1);
        else if (r == PROMPT_UPDOWN)
            save_toggle_scope(&ui->save, &e);
        else
            save_follow_name(&ui->save, &e);
        return;
    }
    if (r == PROMPT_CANCEL) {
        ctx_message(&ui->ctx, false, "cancelled");
        return;
    }
    if (r == PROMPT_SUBMIT && p->purpose >= ASK_SEARCH &&
        p->purpose <= ASK_QUIT)
        asks[p->purpose].answer(ui, p->buf);
}
