/* test_window.c - the aggregate's time axis (window.h), driven by a fake
 * clock: a recorded profile (samples with their times) is fed in time
 * order while the clock ticks, and at each tick the recent window must
 * hold exactly the samples of the last N seconds; the ring drops what is
 * older than it; windows replay line counts; clones, resets and the
 * writers' walk see the same seconds. */
#include "fixture.h"

#include "window.h"

#define S WINDOW_NS_PER_S
#define MS 1000000ull

/* One recorded sample: when, and which of two stacks. */
struct rec {
    uint64_t t_ms;
    int stack;  /* 0: main;old_hot  1: main;new_hot */
};

struct fake {
    struct profile *p;
    uint32_t thread;
    uint32_t main_, old_hot, new_hot;
};

static void fake_init(struct fake *f, uint32_t seconds)
{
    f->p = profile_new();
    assert_non_null(f->p);
    assert_int_equal(profile_time_enable(f->p, seconds), 0);
    f->thread = profile_thread(f->p, 42, "w");
    f->main_ = fixture_frame(f->p, "main", NULL, "m.c", 1);
    f->old_hot = fixture_frame(f->p, "old_hot", NULL, "m.c", 10);
    f->new_hot = fixture_frame(f->p, "new_hot", NULL, "m.c", 20);
}

static void fake_add(struct fake *f, const struct rec *r)
{
    struct stack_frame st[2] = {
        { f->main_, 5, 0x1005 },
        { r->stack ? f->new_hot : f->old_hot, r->stack ? 22 : 12,
          r->stack ? 0x2022 : 0x2012 },
    };

    assert_int_equal(profile_add_stack_at(f->p, f->thread, st, 2, 1,
                                          r->t_ms * MS),
                     0);
}

/* Samples of function `frame` (total) in p. */
static uint64_t total_of(const struct profile *p, uint32_t frame)
{
    struct profile_flat *fl;
    long n = profile_flat(p, &fl);
    uint64_t v = 0;

    assert_true(n >= 0);
    for (long i = 0; i < n; i++)
        if (fl[i].frame == frame)
            v = fl[i].total;
    free(fl);
    return v;
}

/* The recent window of p, `secs` long. */
static struct profile *recent(const struct profile *p, uint32_t secs)
{
    uint64_t from, to;
    struct profile *w;

    profile_time_recent(p, secs, &from, &to);
    w = profile_window(p, from, to);
    assert_non_null(w);
    return w;
}

/* A recording of 20 s: old_hot every 100 ms for the first 10 s, then
 * new_hot every 100 ms.  The fake clock ticks every 250 ms (as the
 * collector's would, advancing "now" with no sample too); at each tick
 * the 5 s window must hold exactly the samples younger than the bucket
 * bound: none older than 5 s, all younger than 4 s. */
static void test_recent_drops_old(void **state)
{
    struct fake f;
    struct rec recs[200];
    size_t nrec = 0, next = 0;

    (void)state;
    fake_init(&f, WINDOW_LIVE_SECONDS);
    for (uint64_t t = 0; t < 20000; t += 100)
        recs[nrec++] = (struct rec){ t + 1000000, t >= 10000 };
    for (uint64_t now = 1000000; now <= 1000000 + 20000; now += 250) {
        while (next < nrec && recs[next].t_ms <= now)
            fake_add(&f, &recs[next++]);
        profile_time_advance(f.p, now * MS);

        struct profile *w = recent(f.p, 5);
        uint64_t want_old = 0, want_new = 0, surely = 0, maybe = 0;
        for (size_t i = 0; i < next; i++) {
            uint64_t age = now - recs[i].t_ms;   /* ms */
            /* kept iff its second starts at or after now - 5 s */
            bool kept = recs[i].t_ms / 1000 * 1000 >= now - 5000;
            if (age > 5000)
                assert_false(kept);
            if (age < 4000)
                assert_true(kept);
            surely += age < 4000;
            maybe += age <= 5000;
            if (kept) {
                want_old += recs[i].stack == 0;
                want_new += recs[i].stack == 1;
            }
        }
        assert_int_equal(total_of(w, f.old_hot), want_old);
        assert_int_equal(total_of(w, f.new_hot), want_new);
        assert_true(profile_samples(w) >= surely);
        assert_true(profile_samples(w) <= maybe);
        /* The tree still counts everything since the start. */
        assert_int_equal(profile_samples(f.p), next);
        profile_free(w);
    }
    /* At the end (10 s after the change) only new_hot is recent, while
     * since the start both have 100 samples. */
    struct profile *w = recent(f.p, 5);
    assert_int_equal(total_of(w, f.old_hot), 0);
    assert_true(total_of(w, f.new_hot) >= 40);
    assert_int_equal(total_of(f.p, f.old_hot), 100);
    assert_int_equal(total_of(f.p, f.new_hot), 100);
    profile_free(w);
    profile_free(f.p);
}

/* The window moves with time alone: no sample for 10 s empties it. */
static void test_advance_without_samples(void **state)
{
    struct fake f;

    (void)state;
    fake_init(&f, 60);
    fake_add(&f, &(struct rec){ 100500, 0 });
    assert_true(profile_time_advance(f.p, 101 * S));
    assert_false(profile_time_advance(f.p, 101 * S + 5));
    assert_false(profile_time_advance(f.p, 99 * S)); /* earlier: ignored */

    struct profile *w = recent(f.p, 5);
    assert_int_equal(profile_samples(w), 1);
    profile_free(w);
    profile_time_advance(f.p, 111 * S);
    w = recent(f.p, 5);
    assert_int_equal(profile_samples(w), 0);
    assert_int_equal(profile_samples(f.p), 1);
    profile_free(w);
    profile_free(f.p);
}

/* A ring of 10 s keeps 10 buckets: older ones go from the series and
 * from every window, and a sample older than the ring counts in the tree
 * only. */
static void test_ring_capacity(void **state)
{
    struct fake f;
    struct profile_timespan sp;
    uint64_t series[30];

    (void)state;
    fake_init(&f, 10);
    for (uint64_t s = 0; s < 25; s++)
        for (uint64_t k = 0; k <= s % 3; k++)
            fake_add(&f, &(struct rec){ 1000 * (1000 + s) + 10 * k, 0 });
    profile_time_span(f.p, &sp);
    assert_true(sp.on);
    assert_true(sp.any);
    assert_int_equal(sp.last, 1024);
    assert_int_equal(sp.first, 1015);
    assert_int_equal(sp.seconds, 10);
    assert_int_equal(profile_time_series(f.p, PROFILE_NONE, 1010, 20, series),
                     3);
    for (int i = 0; i < 20; i++) {
        uint64_t s = 1010 + (uint64_t)i;
        assert_int_equal(series[i],
                         s < 1015 || s > 1024 ? 0 : (s - 1000) % 3 + 1);
    }
    struct profile *w = profile_window(f.p, 0, UINT64_MAX);
    uint64_t held = 0;
    for (uint64_t s = 1015; s < 1025; s++)
        held += (s - 1000) % 3 + 1;
    assert_int_equal(profile_samples(w), held);
    profile_free(w);
    /* Older than the ring: the tree takes it, the ring does not. */
    uint64_t before = profile_samples(f.p);
    fake_add(&f, &(struct rec){ 1000 * 1003, 1 });
    assert_int_equal(profile_samples(f.p), before + 1);
    assert_int_equal(profile_time_series(f.p, PROFILE_NONE, 1003, 1, series),
                     0);
    profile_free(f.p);
}

/* A window replays lines and addresses too (the source view's counts),
 * per thread series split by thread, and clone/reset carry the ring. */
static void test_window_lines_threads_clone(void **state)
{
    struct fake f;
    struct profile_linecount *lc;
    uint64_t series[3];

    (void)state;
    fake_init(&f, 60);
    uint32_t t2 = profile_thread(f.p, 43, "x");
    fake_add(&f, &(struct rec){ 5000, 0 });
    fake_add(&f, &(struct rec){ 6000, 1 });
    fake_add(&f, &(struct rec){ 6500, 1 });
    struct stack_frame st[1] = { { f.old_hot, 13, 0x2013 } };
    assert_int_equal(profile_add_stack_at(f.p, t2, st, 1, 4, 6 * S + 1), 0);

    struct profile *w = profile_window(f.p, 6, 6);
    assert_non_null(w);
    assert_int_equal(profile_samples(w), 6);
    assert_int_equal(profile_lines(w, f.new_hot, false, &lc), 1);
    assert_int_equal(lc[0].key, 22);
    assert_int_equal(lc[0].self, 2);
    free(lc);
    assert_int_equal(profile_lines(w, f.old_hot, false, &lc), 1);
    assert_int_equal(lc[0].key, 13);  /* line 12 was at second 5 */
    assert_int_equal(lc[0].self, 4);
    free(lc);
    assert_int_equal(profile_lines(w, f.old_hot, true, &lc), 1);
    assert_int_equal(lc[0].key, 0x2013);
    free(lc);
    assert_false(profile_time_enabled(w));
    profile_free(w);

    assert_int_equal(profile_time_series(f.p, f.thread, 5, 2, series), 2);
    assert_int_equal(series[0], 1);
    assert_int_equal(series[1], 2);
    assert_int_equal(profile_time_series(f.p, t2, 5, 2, series), 4);
    assert_int_equal(series[0], 0);
    assert_int_equal(series[1], 4);

    struct profile *c = profile_clone(f.p);
    assert_true(profile_time_enabled(c));
    assert_int_equal(profile_time_series(c, PROFILE_NONE, 5, 3, series), 6);
    assert_int_equal(series[0], 1);
    assert_int_equal(series[1], 6);
    assert_int_equal(series[2], 0);
    profile_reset(c);
    assert_int_equal(profile_time_series(c, PROFILE_NONE, 5, 3, series), 0);
    w = profile_window(c, 0, UINT64_MAX);
    assert_int_equal(profile_samples(w), 0);
    profile_free(w);
    /* The original is untouched by the clone's reset. */
    assert_int_equal(profile_time_series(f.p, PROFILE_NONE, 6, 1, series), 6);
    profile_free(c);
    profile_free(f.p);
}

struct seen {
    char text[512];
    size_t n;
};

static int note(void *ctx, uint32_t thread, const uint32_t *frames, size_t n,
                uint64_t second, uint64_t count)
{
    struct seen *s = ctx;

    s->n += (size_t)snprintf(s->text + s->n, sizeof(s->text) - s->n,
                             "%u:%zu:%lld:%llu ", thread, n,
                             second == UINT64_MAX ? -1LL : (long long)second,
                             (unsigned long long)count);
    (void)frames;
    return 0;
}

/* The writers' walk: per tree stack, its seconds in order (samples that
 * differ only by line merged), then what the ring does not hold. */
static void test_foreach_timed(void **state)
{
    struct fake f;
    struct seen s = { .n = 0 };

    (void)state;
    fake_init(&f, 60);
    struct stack_frame st[2] = { { f.main_, 7, 0 }, { f.old_hot, 99, 0 } };
    assert_int_equal(profile_add_stack(f.p, f.thread, st, 2, 5), 0); /* no time */
    fake_add(&f, &(struct rec){ 3000, 0 });
    fake_add(&f, &(struct rec){ 2000, 1 });
    assert_int_equal(profile_add_stack_at(f.p, f.thread, st, 2, 2, 3 * S), 0);
    fake_add(&f, &(struct rec){ 2500, 0 });
    assert_int_equal(profile_time_foreach(f.p, note, &s), 0);
    assert_string_equal(s.text, "0:2:2:1 0:2:3:3 0:2:-1:5 0:2:2:1 ");
    profile_free(f.p);
}

/* No ring: add_at is add_stack, windows are refused. */
static void test_no_ring(void **state)
{
    struct profile *p = fixture_profile(state);
    struct profile_timespan sp;
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t a = fixture_frame(p, "a", NULL, NULL, 0);

    assert_int_equal(profile_add_stack_at(p, t, &(struct stack_frame){ a, 0, 0 },
                                          1, 3, 5 * S),
                     0);
    assert_int_equal(profile_samples(p), 3);
    assert_false(profile_time_enabled(p));
    assert_false(profile_time_advance(p, 9 * S));
    assert_null(profile_window(p, 0, 10));
    profile_time_span(p, &sp);
    assert_false(sp.on);
}

UNIT_MAIN(
    cmocka_unit_test(test_recent_drops_old),
    cmocka_unit_test(test_advance_without_samples),
    cmocka_unit_test(test_ring_capacity),
    cmocka_unit_test(test_window_lines_threads_clone),
    cmocka_unit_test(test_foreach_timed),
    FIXTURE_TEST(test_no_ring))
