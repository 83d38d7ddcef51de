/* scope.c - the time window, the timeline's cursor and mark, and the
 * pinned baseline: their requests, and the model each snapshot gives.
 *
 * See scope.h.  The views never see a window being cut:
 * scope_model hands model_new_ext the window of the snapshot (a profile
 * the model owns), the recent window for the flat table's recent
 * columns, and the baseline, so every view, the thresholds and the
 * filters apply to what the window holds, by the one code path they
 * already use.
 */
#include "scope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.h"
#include "view.h"
#include "view_model.h"
#include "window.h"

void scope_init(struct scope *s)
{
    memset(s, 0, sizeof(*s));
    s->recent_s = SCOPE_RECENT_DEFAULT;
}

void scope_free(struct scope *s)
{
    profile_free(s->baseline);
    s->baseline = NULL;
    s->held = 0;
    scope_release(s);
}

void scope_hold(struct scope *s)
{
    s->held++;
}

void scope_release(struct scope *s)
{
    if (s->held && --s->held)
        return;
    for (size_t i = 0; i < s->nretired; i++)
        profile_free(s->retired[i]);
    free(s->retired);
    s->retired = NULL;
    s->nretired = 0;
}

/* The old baseline, freed now, or kept while a build reads it; -1
 * (nothing done) when it cannot be kept: never freed under a build. */
static int retire_baseline(struct scope *s, struct profile *old)
{
    struct profile **v;

    if (!old || !s->held) {
        profile_free(old);
        return 0;
    }
    v = realloc(s->retired, (s->nretired + 1) * sizeof(*v));
    if (!v)
        return -1;
    s->retired = v;
    s->retired[s->nretired++] = old;
    return 0;
}

const char *scope_clock(const struct profile *p, uint64_t s, char *buf,
                        size_t n)
{
    int64_t wall = (int64_t)(s * WINDOW_NS_PER_S) +
                   (p ? profile_time_wall_offset(p) : 0);
    time_t secs = (time_t)(wall / (int64_t)WINDOW_NS_PER_S);
    struct tm tm;

    localtime_r(&secs, &tm);
    strftime(buf, n, "%H:%M:%S", &tm);
    return buf;
}

const char *scope_label(const struct scope *s, const struct profile *snap,
                        char *buf, size_t n)
{
    char a[16];

    switch (s->time) {
    case SCOPE_ALL:
        snprintf(buf, n, "since start");
        break;
    case SCOPE_RECENT:
        snprintf(buf, n, "last %us", s->recent_s);
        break;
    case SCOPE_RANGE:
        snprintf(buf, n, "%s +%llus", scope_clock(snap, s->from, a, sizeof(a)),
                 (unsigned long long)(s->to - s->from + 1));
        break;
    }
    return buf;
}

/* The seconds of snap the views show; false: all of it. */
static bool scope_seconds(const struct scope *s, const struct profile *snap,
                          uint64_t *from, uint64_t *to)
{
    if (!profile_time_enabled(snap))
        return false;
    switch (s->time) {
    case SCOPE_ALL:
        return false;
    case SCOPE_RECENT:
        profile_time_recent(snap, s->recent_s, from, to);
        return true;
    case SCOPE_RANGE:
        *from = s->from;
        *to = s->to;
        return true;
    }
    return false;
}

struct model *scope_model(const struct scope *s, struct profile *snap,
                          const struct model_filter *f, double hide_self,
                          double hide_subs)
{
    struct model_extra x = { .baseline = s->diff ? s->baseline : NULL };
    struct profile *shown = snap;
    uint64_t from, to;

    if (scope_seconds(s, snap, &from, &to)) {
        if (!(shown = profile_window(snap, from, to)))
            return NULL;
        x.own_snap = true;
    }
    if (s->merge_commands) {
        struct profile *m = profile_merge_commands(shown);
        if (x.own_snap)
            profile_free(shown);
        if (!m)
            return NULL;
        shown = m;
        x.own_snap = true;
    }
    /* Recent columns beside the totals; on OOM just without them. */
    if (s->recent_col && s->time != SCOPE_RECENT &&
        profile_time_enabled(snap)) {
        profile_time_recent(snap, s->recent_s, &from, &to);
        x.recent = profile_window(snap, from, to);
    }
    return model_new_ext(shown, f, hide_self, hide_subs, &x);
}

struct profile *scope_apply(const struct scope *s, struct profile *p)
{
    uint64_t from, to;
    struct profile *w;

    if (!scope_seconds(s, p, &from, &to))
        return p;
    w = profile_window(p, from, to);
    profile_free(p);
    return w;
}

bool scope_shows(const struct scope *s, const struct profile *snap,
                 uint64_t sec)
{
    uint64_t from, to;

    return scope_seconds(s, snap, &from, &to) && sec >= from && sec <= to;
}

/* Rebuild every view over the new window; say what is shown. */
static void scope_changed(const struct scope *s, const struct scope_env *e)
{
    char label[64];

    e->ctx->want_model = true;
    ctx_message(e->ctx, false, "showing %s",
                scope_label(s, e->snap, label, sizeof(label)));
}

/* The snapshot keeps times; else say why the request cannot apply. */
static bool has_times(const struct scope_env *e)
{
    if (e->snap && profile_time_enabled(e->snap))
        return true;
    ctx_message(e->ctx, true, "this profile has no sample times");
    return false;
}

void scope_set_recent(struct scope *s, const struct scope_env *e,
                      uint32_t secs)
{
    s->recent_s = secs;
    s->time = SCOPE_RECENT;
    s->cursor_on = s->marking = false;
    if (has_times(e))
        scope_changed(s, e);
}

/* w: the recent window, or since the start again. */
static void act_window(struct scope *s, const struct scope_env *e)
{
    if (!has_times(e))
        return;
    s->time = s->time == SCOPE_RECENT ? SCOPE_ALL : SCOPE_RECENT;
    s->cursor_on = s->marking = false;
    scope_changed(s, e);
}

/* The range follows the cursor while a mark is set. */
static void follow_mark(struct scope *s, const struct scope_env *e)
{
    if (!s->marking)
        return;
    s->from = s->mark < s->cursor ? s->mark : s->cursor;
    s->to = s->mark < s->cursor ? s->cursor : s->mark;
    if (s->time != SCOPE_RANGE)
        s->before = s->time;
    s->time = SCOPE_RANGE;
    scope_changed(s, e);
}

/* , and .: the time cursor one column earlier or later (dir 0: only
 * bring it out); out first at the newest second. */
static void act_move(struct scope *s, const struct scope_env *e, int dir)
{
    struct profile_timespan sp;
    char clock[16];

    if (!has_times(e))
        return;
    profile_time_span(e->snap, &sp);
    if (!sp.on || !sp.any)
        return;
    uint64_t first = sp.first, last = sp.last, step = e->step ? e->step : 1;
    if (!s->cursor_on) {
        s->cursor_on = true;
        s->cursor = last;
    } else if (dir == 0) {
        return;
    } else if (dir < 0) {
        s->cursor = s->cursor >= first + step ? s->cursor - step : first;
    } else {
        s->cursor = s->cursor + step <= last ? s->cursor + step : last;
    }
    if (s->cursor < first)
        s->cursor = first;
    if (s->cursor > last)
        s->cursor = last;
    e->ctx->redraw = true;
    follow_mark(s, e);
    if (!s->marking)
        ctx_message(e->ctx, false, "time cursor at %s (m marks a range end)",
                    scope_clock(e->snap, s->cursor, clock, sizeof(clock)));
}

/* m: mark here (the range is mark..cursor from now on); again: keep the
 * range and put the cursor away. */
static void act_mark(struct scope *s, const struct scope_env *e)
{
    if (!has_times(e))
        return;
    if (s->marking) {
        s->marking = false;
        s->cursor_on = false;
        e->ctx->redraw = true;
        ctx_message(e->ctx, false, "range kept (M clears it)");
        return;
    }
    if (!s->cursor_on)
        act_move(s, e, 0);
    s->marking = true;
    s->mark = s->cursor;
    follow_mark(s, e);
}

static void act_clear(struct scope *s, const struct scope_env *e)
{
    bool had = s->time == SCOPE_RANGE || s->cursor_on;

    s->cursor_on = s->marking = false;
    if (s->time == SCOPE_RANGE)
        s->time = s->before;
    e->ctx->redraw = true;
    if (had)
        scope_changed(s, e);
    else
        ctx_message(e->ctx, false, "no time range");
}

/* Frame ids stay (merging re-interns them in order); the threads and
 * processes merged away do not, so a thread or process filter is
 * dropped. */
static void act_merge_commands(struct scope *s, const struct scope_env *e)
{
    s->merge_commands = !s->merge_commands;
    e->ctx->filter.has_thread = false;
    e->ctx->filter.has_process = false;
    e->ctx->want_model = true;
    ctx_message(e->ctx, false, s->merge_commands
                ? "processes of one command merged" : "every process apart");
}

static void act_recent_col(struct scope *s, const struct scope_env *e)
{
    if (!has_times(e))
        return;
    s->recent_col = !s->recent_col;
    e->ctx->want_model = true;
    ctx_message(e->ctx, false, s->recent_col
                ? "flat: the last %us beside the totals" : "flat: totals only",
                s->recent_s);
}

int scope_set_baseline(struct scope *s, struct ui_ctx *ctx,
                       struct profile *b, const char *name)
{
    if (retire_baseline(s, s->baseline) < 0) {
        profile_free(b);
        return -1;
    }
    s->baseline = b;
    s->diff = b != NULL;
    snprintf(s->baseline_name, sizeof(s->baseline_name), "%s",
             name ? name : "");
    ctx->want_model = true;
    return 0;
}

/* b: what is shown now becomes the baseline; again: no baseline. */
static void act_pin(struct scope *s, const struct scope_env *e)
{
    const struct profile_filter all = { .thread = PROFILE_NONE,
                                        .focus = PROFILE_NONE };
    char name[96], label[64], stamp[16];
    time_t now = time(NULL);
    struct tm tm;

    if (s->baseline) {
        if (scope_set_baseline(s, e->ctx, NULL, NULL) < 0)
            ctx_message(e->ctx, true, "out of memory unpinning the baseline");
        else
            ctx_message(e->ctx, false, "baseline unpinned");
        return;
    }
    if (!e->model) {
        ctx_message(e->ctx, true, "nothing to pin yet");
        return;
    }
    if (!profile_has_stacks(e->model->snap)) {
        ctx_message(e->ctx, true, "%s: no stacks to compare",
                    PROFILE_NO_STACKS);
        return;
    }
    /* Its own copy of what the views show (no ring, no filter: the
     * filters apply to both sides later). */
    struct profile *b = profile_derive(e->model->snap, &all);
    if (!b) {
        ctx_message(e->ctx, true, "out of memory pinning the baseline");
        return;
    }
    /* A live pin says when; a file's data has no "when" of its own. */
    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), " %H:%M:%S", &tm);
    snprintf(name, sizeof(name), "pinned%s (%s)", e->is_file ? "" : stamp,
             scope_label(s, e->snap, label, sizeof(label)));
    /* no old baseline to keep: this cannot fail */
    (void)scope_set_baseline(s, e->ctx, b, name);
    ctx_message(e->ctx, false, "%s as the baseline (D hides the change, "
                "b unpins)", name);
}

static void act_diff(struct scope *s, const struct scope_env *e)
{
    if (!s->baseline) {
        ctx_message(e->ctx, true, "no baseline: b pins what is shown");
        return;
    }
    s->diff = !s->diff;
    e->ctx->want_model = true;
    ctx_message(e->ctx, false, s->diff ? "change from the baseline shown"
                                       : "change from the baseline hidden");
}

/* The requests a scope acts on alone (the time moves take a direction). */
static const struct {
    enum request req;
    void (*act)(struct scope *s, const struct scope_env *e);
} scope_acts[] = {
    { REQ_WINDOW, act_window },
    { REQ_TIME_MARK, act_mark },
    { REQ_TIME_CLEAR, act_clear },
    { REQ_RECENT_COLUMN, act_recent_col },
    { REQ_MERGE_COMMANDS, act_merge_commands },
    { REQ_PIN, act_pin },
    { REQ_DIFF, act_diff },
};

void scope_act(struct scope *s, const struct scope_env *e, enum request req)
{
    if (req == REQ_TIME_EARLIER || req == REQ_TIME_LATER) {
        act_move(s, e, req == REQ_TIME_EARLIER ? -1 : 1);
        return;
    }
    for (size_t i = 0; i < sizeof(scope_acts) / sizeof(scope_acts[0]); i++)
        if (scope_acts[i].req == req) {
            scope_acts[i].act(s, e);
            return;
        }
}
