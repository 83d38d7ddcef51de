/* feed.c - source, status, snapshot and model; see feed.h. */
#include "feed.h"

#include <stdlib.h>

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
 * asks: snapshots take at most 1 / (1 + SNAP_SPACING) of the builder's
 * time, and of the collector's, so that samples are folded (and, for
 * the forced ones built here, keys answered) however large a long
 * session's profile grows. */
#define SNAP_SPACING 4.0

/* What a build reads, all copied on the UI thread when it is asked for
 * (the scope's baseline kept alive by scope_hold until it is taken). */
struct build_req {
    struct source *src;
    struct scope scope;
    struct model_filter filter;
    double hide_self, hide_subs;
    uint64_t settings;            /* feed.settings when asked */
    uint64_t generation;          /* the source's when asked */
};

/* The model over snapshot p with rq's settings; NULL on OOM.  Any
 * thread (rq is a copy). */
static struct model *model_of(const struct build_req *rq, struct profile *p)
{
    return scope_model(&rq->scope, p, &rq->filter, rq->hide_self,
                       rq->hide_subs);
}

/* The builder thread and the one build it holds.  `asked` and the
 * request are written by the UI thread, the result by the builder; all
 * under lock, whose cond wakes either side. */
struct feed_builder {
    pthread_t th;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool asked;                   /* rq is to be built, or was */
    bool done;                    /* ...and snap, model, start, end hold
                                     the result */
    bool stop;                    /* end the thread */
    struct build_req rq;
    struct profile *snap;         /* NULL on OOM */
    struct model *model;
    double start, end;            /* feed_now() around the build */
    struct model *old_model;      /* what the UI thread showed before: */
    struct profile *old_snap;     /* freed here (hundreds of MB for hours
                                     of -a: tens of ms of munmap) */
};

static void *builder_main(void *arg)
{
    struct feed_builder *b = arg;

    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->stop && !b->old_model && !b->old_snap &&
               (!b->asked || b->done))
            pthread_cond_wait(&b->cond, &b->lock);
        if (b->old_model || b->old_snap) {
            struct model *om = b->old_model;
            struct profile *os = b->old_snap;

            b->old_model = NULL;
            b->old_snap = NULL;
            pthread_mutex_unlock(&b->lock);
            model_free(om);   /* never reads the snapshot it borrows */
            profile_free(os);
            pthread_mutex_lock(&b->lock);
            continue;
        }
        if (b->stop)
            break;
        struct build_req rq = b->rq;
        pthread_mutex_unlock(&b->lock);
        double start = feed_now();
        struct profile *p = rq.src->ops->snapshot(rq.src);
        /* the shell is ending: the model (the longer part) is not built */
        pthread_mutex_lock(&b->lock);
        bool stop = b->stop;
        pthread_mutex_unlock(&b->lock);
        struct model *m = p && !stop ? model_of(&rq, p) : NULL;
        if (!m) {
            profile_free(p);
            p = NULL;
        }
        double end = feed_now();
        pthread_mutex_lock(&b->lock);
        b->snap = p;
        b->model = m;
        b->start = start;
        b->end = end;
        b->done = true;
        pthread_cond_broadcast(&b->cond);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* The builder, started; NULL when it cannot be (no memory, no thread). */
static struct feed_builder *builder_start(void)
{
    struct feed_builder *b = calloc(1, sizeof(*b));

    if (!b)
        return NULL;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    if (pthread_create(&b->th, NULL, builder_main, b) != 0) {
        pthread_cond_destroy(&b->cond);
        pthread_mutex_destroy(&b->lock);
        free(b);
        return NULL;
    }
    return b;
}

/* End the thread (after the snapshot in flight: its model is not
 * built) and free it with what it holds. */
static void builder_end(struct feed_builder *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->lock);
    b->stop = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    pthread_join(b->th, NULL);
    model_free(b->model);
    profile_free(b->snap);
    model_free(b->old_model);
    profile_free(b->old_snap);
    pthread_cond_destroy(&b->cond);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

double feed_now(void)
{
    return (double)clock_mono_ns() / 1e9;
}

void feed_init(struct feed *f, struct source *src, double refresh_s,
               struct scope *scope, struct tabs *tabs, struct ui_ctx *ctx)
{
    *f = (struct feed){ .src = src, .scope = scope, .tabs = tabs,
                        .ctx = ctx };
    f->refresh_s = refresh_s >= 0.1 ? refresh_s : 0.1;
    ctx->status = &f->status;
    ctx->source = src;
}

/* The finished build taken from the builder (waiting for it when
 * `wait`): false when none finished (or none was asked).  The scope is
 * released. */
static bool take_build(struct feed *f, bool wait, struct build_req *rq,
                       struct profile **p, struct model **m, double *start,
                       double *end)
{
    struct feed_builder *b = f->bld;

    if (!f->in_flight)
        return false;
    pthread_mutex_lock(&b->lock);
    while (wait && !b->done)
        pthread_cond_wait(&b->cond, &b->lock);
    bool done = b->done;
    if (done) {
        *rq = b->rq;
        *p = b->snap;
        *m = b->model;
        *start = b->start;
        *end = b->end;
        b->snap = NULL;
        b->model = NULL;
        b->asked = b->done = false;
    }
    pthread_mutex_unlock(&b->lock);
    if (done) {
        f->in_flight = false;
        scope_release(f->scope);
    }
    return done;
}

/* Free a model and a snapshot no longer shown: on the builder thread
 * when it runs and has none to free yet, else here. */
static void discard(struct feed *f, struct model *m, struct profile *p)
{
    struct feed_builder *b = f->bld;

    if (b) {
        pthread_mutex_lock(&b->lock);
        if (!b->old_model && !b->old_snap) {
            b->old_model = m;
            b->old_snap = p;
            m = NULL;
            p = NULL;
            pthread_cond_broadcast(&b->cond);
        }
        pthread_mutex_unlock(&b->lock);
    }
    model_free(m);
    profile_free(p);
}

/* Wait for a build in flight and throw it away. */
static void drain(struct feed *f)
{
    struct build_req rq;
    struct profile *p;
    struct model *m;
    double start, end;

    if (take_build(f, true, &rq, &p, &m, &start, &end))
        discard(f, m, p);
}

void feed_free(struct feed *f)
{
    /* the build in flight ends without its model; what it made is freed
     * with the builder */
    builder_end(f->bld);
    f->bld = NULL;
    if (f->in_flight) {
        f->in_flight = false;
        scope_release(f->scope);
    }
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

/* Install a new model (and, when p is not NULL, the snapshot p it is
 * over, owned from now on): views note their cursor lines while the
 * old model is alive, then every view is rebuilt before its next use. */
static void set_model(struct feed *f, struct model *m, struct profile *p)
{
    struct profile *old_snap = NULL;

    tabs_save_cursors(f->tabs);
    if (p) {
        old_snap = f->snap;
        f->snap = p;
        f->ctx->timeline = p;
    }
    discard(f, f->model, old_snap);
    f->model = m;
    f->ctx->model = m;
    tabs_mark_stale(f->tabs);
}

/* A build of generation gen with the settings of now: the scope, the
 * filter and the thresholds copied (the scope's baseline borrowed:
 * scope_hold keeps it while another thread reads it). */
static struct build_req request_of(const struct feed *f, uint64_t gen)
{
    struct build_req rq = {
        .src = f->src,
        .scope = *f->scope,
        .filter = f->ctx->filter,
        .hide_self = f->ctx->hide_self,
        .hide_subs = f->ctx->hide_subs,
        .settings = f->settings,
        .generation = gen,
    };

    rq.scope.retired = NULL;   /* the UI thread's: never read by a build */
    rq.scope.nretired = 0;
    return rq;
}

void feed_rebuild(struct feed *f)
{
    f->settings++;   /* a build in flight is shown no more */
    if (!f->snap)
        return;
    struct build_req rq = request_of(f, f->generation);
    struct model *m = model_of(&rq, f->snap);
    if (!m) {
        ctx_message(f->ctx, true, "out of memory: showing older data");
        return;
    }
    set_model(f, m, NULL);
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

/* Show snapshot p (owned from now on) and model m over it, built for
 * the source's generation gen. */
static void install(struct feed *f, struct profile *p, struct model *m,
                    uint64_t gen)
{
    set_model(f, m, p);
    f->generation = gen;
    f->have_generation = true;
    f->ctx->redraw = true;
    /* the views rebuilt over it read the live tasks now: the header's
     * On CPU again, so both figures are of one moment (a build is taken
     * later than the tick that asked for it) */
    header_cpu_update(&f->hcpu, f->src, &f->status);
    hint_nodebug(f);
    hint_copy(f);
}

/* The next build no sooner than SNAP_SPACING times this one took after
 * it ended. */
static void pace(struct feed *f, double start, double end)
{
    f->snap_cost_s = end - start;
    f->next_snapshot = end + SNAP_SPACING * f->snap_cost_s;
}

/* A snapshot and its model built here, now. */
static void build_now(struct feed *f, uint64_t gen)
{
    double start = feed_now();
    struct profile *p = f->src->ops->snapshot(f->src);

    if (!p) {
        ctx_message(f->ctx, true, "out of memory taking a snapshot");
        return;
    }
    struct build_req rq = request_of(f, gen);
    struct model *m = model_of(&rq, p);
    if (!m) {
        profile_free(p);
        ctx_message(f->ctx, true, "out of memory: showing older data");
        return;
    }
    install(f, p, m, gen);
    pace(f, start, feed_now());
}

/* Ask the builder for a snapshot of generation gen; false when it
 * cannot be started. */
static bool ask_build(struct feed *f, uint64_t gen)
{
    if (!f->bld && !(f->bld = builder_start()))
        return false;
    struct feed_builder *b = f->bld;
    struct build_req rq = request_of(f, gen);

    scope_hold(f->scope);
    f->in_flight = true;
    pthread_mutex_lock(&b->lock);
    b->rq = rq;
    b->asked = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    return true;
}

bool feed_poll(struct feed *f)
{
    struct build_req rq;
    struct profile *p;
    struct model *m;
    double start, end;

    if (!take_build(f, false, &rq, &p, &m, &start, &end))
        return false;
    pace(f, start, end);
    if (!m) {
        ctx_message(f->ctx, true, "out of memory taking a snapshot");
        return false;
    }
    /* the filter, window or baseline changed since it was asked for
     * (the source cannot have: feed_load drains first): the source's
     * generation is not taken, so the next tick asks again */
    if (rq.settings != f->settings) {
        discard(f, m, p);
        f->stale++;
        return false;
    }
    /* thresholds are applied to a built model as they are to the one
     * shown (feed_set_hide) */
    if (rq.hide_self != f->ctx->hide_self || rq.hide_subs != f->ctx->hide_subs)
        model_set_hide(m, f->ctx->hide_self, f->ctx->hide_subs);
    install(f, p, m, rq.generation);
    f->builds++;
    return true;
}

/* Status every tick; a snapshot only when the aggregate changed: forced,
 * built here at once; else asked of the builder, none while one is in
 * flight and none sooner than SNAP_SPACING times the last one took. */
void feed_tick(struct feed *f, bool force)
{
    uint64_t gen = f->src->ops->generation(f->src);
    double now = feed_now();

    feed_status(f);
    feed_poll(f);
    if (force) {
        drain(f);
        build_now(f, gen);
    } else if ((!f->have_generation || gen != f->generation) &&
               !f->in_flight && now >= f->next_snapshot &&
               !ask_build(f, gen)) {
        build_now(f, gen);
    }
    /* the live tasks' figures, every tick whether or not new samples
     * came (a paused session, a stopped target): the header's On CPU
     * and the views that show them, read together */
    header_cpu_update(&f->hcpu, f->src, &f->status);
    tabs_mark_tasks_stale(f->tabs);
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
    drain(f);   /* the builder may be reading the source closed below */
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
