/* test_duration.c - the one duration parser (src/base/duration.c) that
 * -r/-d and the live view's refresh and interval prompts share: units,
 * bare numbers in the caller's unit, rates, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unit_main.h"

#include "duration.h"

/* What parses, to how many ns. */
static const struct {
    const char *s;
    double unit;
    bool rate;
    double ns;
} good[] = {
    /* Units, any case, spaces before them. */
    { "5ms", DURATION_S, false, 5e6 },
    { "250us", DURATION_S, false, 250e3 },
    { "100000ns", DURATION_S, false, 1e5 },
    { "0.5s", DURATION_MS, false, 5e8 },
    { "2.5 s", DURATION_MS, false, 2.5e9 },
    { "7MS", DURATION_S, false, 7e6 },
    { "1e-3s", DURATION_MS, false, 1e6 },
    /* A bare number is in the caller's unit: seconds for -r/-d and the
     * refresh prompt, milliseconds for the interval prompt. */
    { "2.5", DURATION_S, false, 2.5e9 },
    { "5", DURATION_MS, true, 5e6 },
    { "0.1", DURATION_S, false, 1e8 },
    { " 3", DURATION_NS, false, 3 },
    { "4 ", DURATION_S, false, 4e9 },
    /* Rates, where the caller takes them. */
    { "200hz", DURATION_MS, true, 5e6 },
    { "99 Hz", DURATION_MS, true, 1e9 / 99 },
    { "0.5HZ", DURATION_MS, true, 2e9 },
};

/* What is refused, with the caller's unit and whether it takes rates. */
static const struct {
    const char *s;
    double unit;
    bool rate;
} bad[] = {
    { "", DURATION_S, false }, { " ", DURATION_S, false },
    { "s", DURATION_S, false }, { "ms", DURATION_MS, true },
    { "0", DURATION_S, false }, { "0ms", DURATION_S, false },
    { "-1", DURATION_S, false }, { "-5ms", DURATION_S, false },
    { "0hz", DURATION_MS, true }, { "nan", DURATION_S, false },
    { "inf", DURATION_S, false }, { "1e999", DURATION_S, false },
    { "1e300", DURATION_S, false },      /* finite, but not in ns */
    { "1e-320hz", DURATION_MS, true }, { "2x", DURATION_S, false },
    { "2 ss", DURATION_S, false }, { "2s5", DURATION_S, false },
    { "5 m s", DURATION_S, false }, { "1,5", DURATION_S, false },
    { "abc", DURATION_S, false },
    { "200hz", DURATION_S, false },      /* a rate where none is taken */
};

static void test_parses(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double ns = -1, want = good[i].ns;
        if (duration_parse(good[i].s, good[i].unit, good[i].rate, &ns) != 0)
            fail_msg("\"%s\" was refused", good[i].s);
        /* within a part in 1e12: decimal fractions */
        if (!(ns > want * (1 - 1e-12) && ns < want * (1 + 1e-12)))
            fail_msg("\"%s\" gave %.17g ns, not %.17g", good[i].s, ns, want);
    }
}

static void test_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        double ns = 42;
        if (duration_parse(bad[i].s, bad[i].unit, bad[i].rate, &ns) == 0)
            fail_msg("\"%s\" was taken as %.17g ns", bad[i].s, ns);
        assert_true(ns == 42);
    }
}

static void test_seconds(void **state)
{
    double s = -1;

    (void)state;
    assert_int_equal(duration_parse_seconds("2.5", 0.1, 60, &s), 0);
    assert_true(s == 2.5);
    assert_int_equal(duration_parse_seconds("250ms", 0.1, 60, &s), 0);
    assert_true(s > 0.25 - 1e-12 && s < 0.25 + 1e-12);
    assert_int_equal(duration_parse_seconds("0.1", 0.1, 60, &s), 0);
    assert_int_equal(duration_parse_seconds("60 s", 0.1, 60, &s), 0);
    assert_true(s == 60);
    s = 7;
    /* Out of range, a rate, nothing at all: *out is left alone. */
    assert_int_equal(duration_parse_seconds("61", 0.1, 60, &s), -1);
    assert_int_equal(duration_parse_seconds("99ms", 0.1, 60, &s), -1);
    assert_int_equal(duration_parse_seconds("10hz", 0.01, 60, &s), -1);
    assert_int_equal(duration_parse_seconds("", 0.1, 60, &s), -1);
    assert_int_equal(duration_parse_seconds(NULL, 0.1, 60, &s), -1);
    assert_true(s == 7);
}

UNIT_MAIN(
    cmocka_unit_test(test_parses),
    cmocka_unit_test(test_refused),
    cmocka_unit_test(test_seconds))
