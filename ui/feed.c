/* feed.c - source, status, snapshot and model; see feed.h. */
#include "feed.h"

#include "clock.h"
#include "profile.h"
#include "scope.h"
#include "tabs.h"
#include "view.h"
#include "view_model.h"

/* A module is hot when its code takes this share of the samples. */
#define NODEBUG_HOT_SHARE 0.05

/* A snapshot that took T seconds (the copy, made under the collector's
 * lock, and the model built over it) is followed by at least
 * SNAP_SPACING * T seconds without one, whatever the refresh interval
 * asks: snapshots take at most 1 / (1 + SNAP_SPACING) of the UI thread's
 * time, and of the collector's, so that keys are answered and samples
 * folded however large a long session's profile grows. */
#define SNAP_SPACING 4.0

double feed_now(void)
{
    return (double)clock_mono_ns() / 1e9;
}

void feed_init(struct feed *f, struct source *src, double refresh_s,
               const struct scope *scope, struct tabs *tabs,
               struct ui_ctx *ctx)
{
    *f = (struct feed){ .src = src, .scope = scope, .tabs = tabs,
                        .ctx = ctx };
    f->refresh_s = refresh_s >= 0.1 ? refresh_s : 0.1;
    ctx->status = &f->status;
    ctx->source = src;
}

void feed_free(struct feed *f)
{
    model_free(f->model);
    profile_free(f->snap);
    header_cpu_free(&f->hcpu);
    if (f->own_src)
        f->own_src->ops->close(f->own_src);
    f->model = NULL;
    f->snap = NULL;
    f->own_src = NULL;
}

void feed_status(struct feed *f)
{
    const struct source_status *s = &f->status;

    f->src->ops->status(f->src, &f->status);
    if (s->paused && !f->was_paused)
        f->pause_start_ns = s->elapsed_ns;
    if (!s->paused && f->was_paused && s->elapsed_ns > f->pause_start_ns)
        f->paused_ns += s->elapsed_ns - f->pause_start_ns;
    f->was_paused = s->paused;
    f->ctx->redraw = true;
}

uint64_t feed_sampling_ns(const struct feed *f, uint64_t *paused_for)
{
    const struct source_status *s = &f->status;
    uint64_t end = s->paused ? f->pause_start_ns : s->elapsed_ns;

    *paused_for = s->paused && s->elapsed_ns > f->pause_start_ns
                      ? s->elapsed_ns - f->pause_start_ns : 0;
    return end > f->paused_ns ? end - f->paused_ns : 0;
}

/* Install a new model: views note their cursor lines while the old
 * model is alive, then every view is rebuilt before its next use. */
static void set_model(struct feed *f, struct model *m)
{
    tabs_save_cursors(f->tabs);
    model_free(f->model);
    f->model = m;
    f->ctx->model = m;
    tabs_mark_stale(f->tabs);
}

void feed_rebuild(struct feed *f)
{
    if (!f->snap)
        return;
    struct model *m = scope_model(f->scope, f->snap, f->ctx);
    if (!m) {
        ctx_message(f->ctx, true, "out of memory: showing older data");
        return;
    }
    set_model(f, m);
}

void feed_set_hide(struct feed *f)
{
    if (f->model)
        model_set_hide(f->model, f->ctx->hide_self, f->ctx->hide_subs);
    tabs_mark_stale(f->tabs);
}

/* Once a session: the process whose stacks the copy cuts, and the fix
 * (the header says "stack copy too small", not for whom). */
static void hint_copy(struct feed *f)
{
    if (f->told_copy || !f->status.copy_note[0])
        return;
    f->told_copy = true;
    ctx_message(f->ctx, false, "%s", f->status.copy_note);
}

/* Once a session: hot code named without its debug info (no lines, no
 * inlined frames) where no debuginfod server is asked, with the fix. */
static void hint_nodebug(struct feed *f)
{
    const char *mods[3];
    size_t n;

    if (f->told_nodebug || f->status.is_file || f->status.debuginfod ||
        !(n = profile_hot_nodebug(f->snap, NODEBUG_HOT_SHARE, mods, 3)))
        return;
    f->told_nodebug = true;
    ctx_message(f->ctx, false, "no debug info for hot %s%s%s%s%s: set "
                "DEBUGINFOD_URLS or install debug packages", mods[0],
                n > 1 ? ", " : "",
                n > 1 ? mods[1] : "", n > 2 ? ", " : "",
                n > 3 ? "..." : n > 2 ? mods[2] : "");
}

static void take_snapshot(struct feed *f)
{
    struct profile *p = f->src->ops->snapshot(f->src);

    if (!p) {
        ctx_message(f->ctx, true, "out of memory taking a snapshot");
        return;
    }
    struct model *m = scope_model(f->scope, p, f->ctx);
    if (!m) {
        profile_free(p);
        ctx_message(f->ctx, true, "out of memory: showing older data");
        return;
    }
    set_model(f, m);
    profile_free(f->snap);
    f->snap = p;
    f->ctx->timeline = p;
    hint_nodebug(f);
    hint_copy(f);
}

/* Status every tick; a snapshot only when the aggregate changed, and
 * (unless forced) no sooner than SNAP_SPACING times the last one took. */
void feed_tick(struct feed *f, bool force)
{
    uint64_t gen = f->src->ops->generation(f->src);
    double now = feed_now();

    feed_status(f);
    if (force || !f->have_generation || gen != f->generation) {
        if (force || now >= f->next_snapshot) {
            f->generation = gen;
            f->have_generation = true;
            take_snapshot(f);
            double end = feed_now();
            f->snap_cost_s = end - now;
            f->next_snapshot = end + SNAP_SPACING * f->snap_cost_s;
        }
    }
    header_cpu_update(&f->hcpu, f->src, &f->status);
    f->next_refresh = feed_now() + f->refresh_s;
}

double feed_refresh_every(const struct feed *f)
{
    double paced = (1.0 + SNAP_SPACING) * f->snap_cost_s;

    return paced > f->refresh_s ? paced : f->refresh_s;
}

/* The profile a :load shows: the samples of q over the frames and
 * threads of the current snapshot, as a live aggregate that changed
 * would be (its ids stay, new frames are added after them); q's
 * metadata.  Frees q. */
static struct profile *loaded_profile(const struct feed *f, struct profile *q)
{
    struct profile *p = f->snap ? profile_clone(f->snap) : NULL;

    if (!p)
        return q;
    profile_reset(p);
    if (profile_merge(p, q) < 0 || profile_set_meta(p, profile_meta(q)) < 0) {
        profile_free(p);
        p = NULL;
    }
    profile_free(q);
    return p;
}

int feed_load(struct feed *f, struct profile *q, const char *path)
{
    struct profile *p = loaded_profile(f, q);
    struct source *src = p ? source_file_new(p, path) : NULL;

    if (!src)
        return -1;
    if (f->annotate_file)
        source_file_set_annotate(src, f->annotate_file);
    if (f->own_src)
        f->own_src->ops->close(f->own_src);
    f->src = f->own_src = src;
    f->ctx->source = src;
    feed_tick(f, true);
    return 0;
}
