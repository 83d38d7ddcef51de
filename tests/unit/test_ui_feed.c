/* test_ui_feed.c - the feed's pacing of snapshots (ui/feed.c): a live
 * source whose snapshot takes T seconds gets no new one, on the periodic
 * tick, sooner than SNAP_SPACING * T after the last ended, so that the UI
 * thread answers keys and the collector folds samples however large the
 * profile grows; a forced tick (a key's refresh) takes one at once; the
 * header's refresh figure (feed_refresh_every) says how often new data
 * really comes.
 *
 * The source here is a fake whose snapshot busy-waits a set time and
 * whose generation changes at every call.  No time is asserted from the
 * machine's speed: the cost is what the feed measured, and the checks
 * compare the feed's schedule with it.  Links the UI's objects (no
 * terminal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "unit_main.h"
#include "feed.h"
#include "profile.h"
#include "scope.h"
#include "source.h"
#include "tabs.h"
#include "view.h"

struct fake {
    double cost_s;        /* each snapshot takes this long */
    unsigned snapshots;   /* taken so far */
    uint64_t gen;
};

static struct profile *fake_snapshot(struct source *s)
{
    struct fake *f = s->impl;
    double until = feed_now() + f->cost_s;

    while (feed_now() < until)
        ;
    f->snapshots++;
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

    return ++f->gen;   /* new samples every time it is asked */
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
}

/* A cheap snapshot: every tick whose generation changed takes one, and
 * the header shows the refresh interval as asked. */
static void test_cheap_every_tick(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.0, 1.0);
    for (int i = 0; i < 5; i++)
        feed_tick(&r.feed, false);
    /* each tick may still land before the last one's (tiny) spacing ran
     * out; a bound of what the spacing allows holds whatever the speed */
    assert_true(r.fake.snapshots >= 1);
    /* the header's figure: the interval asked, unless five costs are
     * longer (whatever this machine made the cost) */
    double paced = 5 * r.feed.snap_cost_s;
    assert_true(feed_refresh_every(&r.feed) == (paced > 1.0 ? paced : 1.0));
    rig_free(&r);
}

/* A costly snapshot: the periodic tick waits SNAP_SPACING times its cost
 * after it ended; a forced tick does not; the header says how often.
 * Only what the clock read after a tick proves is checked: a tick that
 * was preempted past the schedule may take one, as it should. */
static void test_costly_paced(void **state)
{
    struct rig r;

    (void)state;
    rig_init(&r, 0.1, 0.1);
    double t0 = feed_now();
    feed_tick(&r.feed, false);
    assert_int_equal(r.fake.snapshots, 1);
    double cost = r.feed.snap_cost_s;
    assert_true(cost >= 0.1);
    /* the spacing is four costs after it ended: the next periodic tick
     * takes none before then, however many times it is called */
    double sched = r.feed.next_snapshot;
    assert_true(sched >= t0 + 5 * cost - 1e-9);
    assert_true(sched <= feed_now() + 4 * cost);
    unsigned early = 0;
    while (feed_now() < sched - 0.001) {
        feed_tick(&r.feed, false);
        if (feed_now() < sched) {   /* the whole tick came before it */
            early++;
            assert_int_equal(r.fake.snapshots, 1);
        }
    }
    assert_true(early > 0);
    /* the schedule passed: the next periodic tick takes one */
    unsigned n = r.fake.snapshots;
    while (feed_now() < r.feed.next_snapshot)
        ;
    feed_tick(&r.feed, false);
    assert_int_equal(r.fake.snapshots, n + 1);
    /* how often new data comes: five costs (one taken, four spaced),
     * not the 0.1 s asked */
    assert_true(feed_refresh_every(&r.feed) >= 5 * 0.1);
    assert_true(feed_refresh_every(&r.feed) == 5 * r.feed.snap_cost_s);
    /* a forced tick (a key asked for fresh data) does not wait */
    feed_tick(&r.feed, true);
    assert_int_equal(r.fake.snapshots, n + 2);
    rig_free(&r);
}

UNIT_MAIN(
    cmocka_unit_test(test_cheap_every_tick),
    cmocka_unit_test(test_costly_paced))
