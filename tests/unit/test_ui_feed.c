/* test_ui_feed.c - the feed (ui/feed.c): snapshots and their models
 * are built on the feed's builder thread, so the UI thread answers keys
 * however long a large profile's copy takes; a build asked for before
 * the filter changed is thrown away, not shown; a baseline the user
 * replaces while a build reads it is kept until the build is taken; the
 * periodic builds are paced (none sooner than SNAP_SPACING times the
 * last one took after it ended), a forced tick builds at once on the UI
 * thread; the header's refresh figure (feed_refresh_every) says how
 * often new data really comes.
 *
 * The source here is a fake whose snapshot can be held at a gate the
 * test opens, or busy-waits a set time, and whose generation changes at
 * every call.  No time is asserted from the machine's speed: waits are
 * for conditions, bounded; the pacing checks compare the feed's
 * schedule with the cost it measured.  Links the UI's objects (no
 * terminal). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "unit_main.h"
#include "feed.h"
#include "profile.h"
#include "scope.h"
#include "source.h"
#include "tabs.h"
#include "view.h"
#include "view_model.h"

/* A bound for every wait on another thread: far beyond any machine's
 * load, short of a hung test. */
#define WAIT_S 60

struct fake {
    double cost_s;              /* each snapshot takes this long */
    atomic_uint snapshots;      /* taken so far (begun) */
    atomic_uint_fast64_t gen;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool gated;                 /* snapshots wait for open (under lock) */
    bool open;
    unsigned inside;            /* snapshots waiting at the gate */
};

static struct profile *fake_snapshot(struct source *s)
{
    struct fake *f = s->impl;
    double until = feed_now() + f->cost_s;

    atomic_fetch_add(&f->snapshots, 1);
    pthread_mutex_lock(&f->lock);
    if (f->gated) {
        /* bounded: a feed that wrongly builds on the test's own thread
         * fails its checks after the wait instead of hanging */
        struct timespec end;

        clock_gettime(CLOCK_REALTIME, &end);
        end.tv_sec += (time_t)WAIT_S;
        f->inside++;
        pthread_cond_broadcast(&f->cond);
        while (!f->open &&
               pthread_cond_timedwait(&f->cond, &f->lock, &end) == 0)
            ;
        f->inside--;
    }
    pthread_mutex_unlock(&f->lock);
    while (feed_now() < until)
        ;
    return profile_new();
}

static void fake_status(struct source *s, struct source_status *out)
{
    (void)s;
    memset(out, 0, sizeof(*out));
}

static uint64_t fake_generation(struct source *s)
{
    struct fake *f = s->impl;

    return atomic_fetch_add(&f->gen, 1) + 1;  /* new samples every time */
}

static const struct source_ops fake_ops = {
    .snapshot = fake_snapshot,
    .status = fake_status,
    .generation = fake_generation,
};

struct rig {
    struct fake fake;
    struct source src;
    struct ui_ctx ctx;
    struct scope scope;
    struct tabs tabs;
    struct feed feed;
};

static void rig_init(struct rig *r, double cost_s, double refresh_s)
{
    memset(r, 0, sizeof(*r));
    r->fake.cost_s = cost_s;
    pthread_mutex_init(&r->fake.lock, NULL);
    pthread_cond_init(&r->fake.cond, NULL);
    r->src = (struct source){ .ops = &fake_ops, .impl = &r->fake };
    r->ctx.filter.focus = PROFILE_NONE;
    r->ctx.filter.merge_threads = true;
    r->ctx.selected = PROFILE_NONE;
    scope_init(&r->scope);
    r->ctx.scope = &r->scope;
    assert_int_equal(tabs_init(&r->tabs, &r->ctx), 0);
    feed_init(&r->feed, &r->src, refresh_s, &r->scope, &r->tabs, &r->ctx);
}

static void rig_free(struct rig *r)
{
    feed_free(&r->feed);
    tabs_free(&r->tabs);
    scope_free(&r->scope);
    pthread_cond_destroy(&r->fake.cond);
    pthread_mutex_destroy(&r->fake.lock);
}

/* Snapshots wait at the gate from now on. */
static void gate_close(struct fake *f)
{
    pthread_mutex_lock(&f->lock);
    f->gated = true;
    f->open = false;
    pthread_mutex_unlock(&f->lock);
}

static void gate_open(struct fake *f)
{
    pthread_mutex_lock(&f->lock);
    f->open = true;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

/* Wait (bounded) until a snapshot waits at the gate. */
static bool wait_inside(struct fake *f)
{
    struct timespec until;
    bool in;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)WAIT_S;
    pthread_mutex_lock(&f->lock);
    while (!f->inside &&
           pthread_cond_timedwait(&f->cond, &f->lock, &until) == 0)
        ;
    in = f->inside > 0;
    pthread_mutex_unlock(&f->lock);
    return in;
}

/* Poll as the main loop does until a build was taken (bounded). */
static void poll_until_taken(struct rig *r)
{
    double end = feed_now() + WAIT_S;

    while (r->feed.in_flight && feed_now() < end) {
        feed_poll(&r->feed);
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    assert_false(r->feed.in_flight);
}

/* A periodic tick that asks the builder for a build, held at the gate:
 * back on this thread while the snapshot waits there. */
static void ask_held(struct rig *r)
{
    gate_close(&r->fake);
    feed_tick(&r->feed, false);
    assert_true(r->feed.in_flight);
    assert_true(wait_inside(&r->fake));
}

/* Pin a new, empty profile as the baseline `name`, as the b key does;
 * returns it (the scope owns it). */
static struct profile *pin_baseline(struct rig *r, const char *name)
{
    struct profile *b = profile_new();

    assert_non_null(b);
    assert_int_equal(scope_set_baseline(&r->scope, &r->ctx, b, name), 0);
    return b;
}

/* The periodic tick asks the builder and returns while the snapshot is
 * still being taken: the UI thread is free; feed_poll shows nothing
 * until it is done, then shows it. */
static void test_build_off_ui_thread(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    /* the tick returned: had it built here, it would wait at the gate */
    ask_held(&r);
    assert_null(r.feed.model);
    assert_false(feed_poll(&r.feed));
    assert_null(r.feed.model);
    /* while it waits, ticks ask for no second one */
    feed_tick(&r.feed, false);
    assert_int_equal(atomic_load(&r.fake.snapshots), 1);
    gate_open(&r.fake);
    poll_until_taken(&r);
    assert_non_null(r.feed.model);
    assert_non_null(r.feed.snap);
    assert_ptr_equal(r.ctx.model, r.feed.model);
    assert_ptr_equal(r.ctx.timeline, r.feed.snap);
    assert_int_equal(r.feed.builds, 1);
    assert_int_equal(r.feed.stale, 0);
    rig_free(&r);
}

/* A build asked for before the settings changed (here: a baseline
 * pinned) is thrown away (the model shown is the one feed_rebuild made
 * with the new settings), and the next tick asks again. */
static void test_stale_thrown_away(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    feed_tick(&r.feed, true);            /* a first model, built here */
    assert_non_null(r.feed.model);
    assert_false(r.feed.in_flight);
    r.feed.next_snapshot = 0;
    ask_held(&r);
    pin_baseline(&r, "b");               /* a key pinned a baseline */
    feed_rebuild(&r.feed);
    const struct model *shown = r.feed.model;
    assert_non_null(shown->bm);
    gate_open(&r.fake);
    poll_until_taken(&r);
    assert_int_equal(r.feed.stale, 1);
    assert_int_equal(r.feed.builds, 0);
    assert_ptr_equal(r.feed.model, shown);
    /* the source's generation was not taken: the next tick asks again,
     * with the new filter */
    r.feed.next_snapshot = 0;
    feed_tick(&r.feed, false);
    assert_true(r.feed.in_flight);
    poll_until_taken(&r);
    assert_int_equal(r.feed.builds, 1);
    assert_non_null(r.feed.model->bm);
    rig_free(&r);
}

/* A baseline unpinned while a build reads it is kept until the build is
 * taken (the ASan build proves it is not read after it is freed). */
static void test_baseline_kept_while_held(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    struct profile *b = pin_baseline(&r, "b");
    ask_held(&r);
    assert_int_equal(scope_set_baseline(&r.scope, &r.ctx, NULL, NULL), 0);
    assert_null(r.scope.baseline);
    assert_int_equal(r.scope.nretired, 1);
    assert_ptr_equal(r.scope.retired[0], b);
    gate_open(&r.fake);
    poll_until_taken(&r);
    assert_int_equal(r.scope.nretired, 0);
    assert_int_equal(r.scope.held, 0);
    /* not held: replaced baselines are freed at once */
    pin_baseline(&r, "c");
    assert_int_equal(scope_set_baseline(&r.scope, &r.ctx, NULL, NULL), 0);
    assert_int_equal(r.scope.nretired, 0);
    rig_free(&r);
}

/* Ending the feed during a build: the builder ends after the snapshot
 * (its model not built), no thread is left reading the source, nothing
 * leaks (ASan). */
static void test_free_while_building(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    ask_held(&r);
    gate_open(&r.fake);
    rig_free(&r);
}

/* The live tasks' figures are read at every tick, a build in flight or
 * not (one paced for a large profile can be many ticks away): the views
 * that show them are rebuilt with the header's On CPU, the others wait
 * for the new model. */
static void test_tasks_every_tick(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    feed_tick(&r.feed, true);            /* a first model, built here */
    for (int i = 0; i < VIEW_COUNT; i++)
        r.tabs.stale[i] = false;
    r.feed.next_snapshot = 0;
    ask_held(&r);                        /* a tick; its build waits */
    assert_true(r.tabs.stale[VIEW_THREADS]);
    assert_true(r.tabs.stale[VIEW_PROCS]);
    assert_false(r.tabs.stale[VIEW_TREE]);
    assert_false(r.tabs.stale[VIEW_FLAT]);
    gate_open(&r.fake);
    poll_until_taken(&r);
    assert_true(r.tabs.stale[VIEW_TREE]);   /* the new model: every view */
    rig_free(&r);
}

/* A cheap snapshot: every tick whose generation changed and that finds
 * none in flight asks for one; the header shows the refresh interval as
 * asked. */
static void test_cheap_every_tick(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    for (int i = 0; i < 5; i++) {
        feed_tick(&r.feed, false);
        poll_until_taken(&r);
    }
    assert_true(r.feed.builds >= 1);
    /* the header's figure: the interval asked, unless five costs are
     * longer (whatever this machine made the cost) */
    double paced = 5 * r.feed.snap_cost_s;
    assert_true(feed_refresh_every(&r.feed) == (paced > 1.0 ? paced : 1.0));
    rig_free(&r);
}

/* A costly snapshot: the periodic tick asks for none until SNAP_SPACING
 * times its cost after it ended; a forced tick builds at once; the
 * header says how often.  Only what the clock read after a tick proves
 * is checked: a tick that was preempted past the schedule may ask for
 * one, as it should. */
static void test_costly_paced(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.1, 0.1);
    feed_tick(&r.feed, false);
    assert_true(r.feed.in_flight);
    poll_until_taken(&r);
    assert_int_equal(r.feed.builds, 1);
    double cost = r.feed.snap_cost_s;
    assert_true(cost >= 0.1);
    /* the spacing is four costs after it ended */
    double sched = r.feed.next_snapshot;
    assert_true(sched <= feed_now() + 4 * cost);
    unsigned early = 0;
    while (feed_now() < sched - 0.001) {
        feed_tick(&r.feed, false);
        if (feed_now() < sched) {   /* the whole tick came before it */
            early++;
            assert_false(r.feed.in_flight);
        }
    }
    assert_true(early > 0);
    /* the schedule passed: the next periodic tick asks for one */
    while (feed_now() < r.feed.next_snapshot)
        ;
    feed_tick(&r.feed, false);
    assert_true(r.feed.in_flight);
    poll_until_taken(&r);
    assert_int_equal(r.feed.builds, 2);
    /* how often new data comes: five costs (one taken, four spaced),
     * not the 0.1 s asked */
    assert_true(feed_refresh_every(&r.feed) >= 5 * 0.1);
    assert_true(feed_refresh_every(&r.feed) == 5 * r.feed.snap_cost_s);
    /* a forced tick (a key asked for fresh data) builds here, at once */
    unsigned n = atomic_load(&r.fake.snapshots);
    feed_tick(&r.feed, true);
    assert_int_equal(atomic_load(&r.fake.snapshots), n + 1);
    assert_false(r.feed.in_flight);
    rig_free(&r);
}

UNIT_MAIN(
    cmocka_unit_test(test_build_off_ui_thread),
    cmocka_unit_test(test_stale_thrown_away),
    cmocka_unit_test(test_baseline_kept_while_held),
    cmocka_unit_test(test_free_while_building),
    cmocka_unit_test(test_tasks_every_tick),
    cmocka_unit_test(test_cheap_every_tick),
    cmocka_unit_test(test_costly_paced))
