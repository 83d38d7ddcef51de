/* test_duration.c - the one duration parser (src/base/duration.c) that
 * -r/-d and the live view's refresh and interval prompts share: units,
 * bare numbers in the caller's unit, rates, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "duration.h"

/* s parses to `want` ns, within a part in 1e12 (decimal fractions). */
static void parses(const char *s, double unit, bool rate, double want)
{
    double ns = -1;

    if (duration_parse(s, unit, rate, &ns) != 0)
        fail_msg("\"%s\" was refused", s);
    if (!(ns > want * (1 - 1e-12) && ns < want * (1 + 1e-12)))
        fail_msg("\"%s\" gave %.17g ns, not %.17g", s, ns, want);
}

static void refused(const char *s, double unit, bool rate)
{
    double ns = 42;

    if (duration_parse(s, unit, rate, &ns) == 0)
        fail_msg("\"%s\" was taken as %.17g ns", s, ns);
    assert_true(ns == 42);
}

static void test_units(void **state)
{
    (void)state;
    parses("5ms", DURATION_S, false, 5e6);
    parses("250us", DURATION_S, false, 250e3);
    parses("100000ns", DURATION_S, false, 1e5);
    parses("0.5s", DURATION_MS, false, 5e8);
    parses("2.5 s", DURATION_MS, false, 2.5e9);
    parses("7MS", DURATION_S, false, 7e6);
    parses("1e-3s", DURATION_MS, false, 1e6);
}

static void test_bare_number(void **state)
{
    (void)state;
    /* The caller's unit: seconds for -r/-d and the refresh prompt,
     * milliseconds for the interval prompt. */
    parses("2.5", DURATION_S, false, 2.5e9);
    parses("5", DURATION_MS, true, 5e6);
    parses("0.1", DURATION_S, false, 1e8);
    parses(" 3", DURATION_NS, false, 3);
    parses("4 ", DURATION_S, false, 4e9);
}

static void test_rate(void **state)
{
    (void)state;
    parses("200hz", DURATION_MS, true, 5e6);
    parses("99 Hz", DURATION_MS, true, 1e9 / 99);
    parses("0.5HZ", DURATION_MS, true, 2e9);
    /* A rate is no duration where the caller asks for one. */
    refused("200hz", DURATION_S, false);
}

static void test_refused(void **state)
{
    (void)state;
    refused("", DURATION_S, false);
    refused(" ", DURATION_S, false);
    refused("s", DURATION_S, false);
    refused("ms", DURATION_MS, true);
    refused("0", DURATION_S, false);
    refused("0ms", DURATION_S, false);
    refused("-1", DURATION_S, false);
    refused("-5ms", DURATION_S, false);
    refused("0hz", DURATION_MS, true);
    refused("nan", DURATION_S, false);
    refused("inf", DURATION_S, false);
    refused("1e999", DURATION_S, false);
    refused("1e300", DURATION_S, false);  /* finite, but not in ns */
    refused("1e-320hz", DURATION_MS, true);
    refused("2x", DURATION_S, false);
    refused("2 ss", DURATION_S, false);
    refused("2s5", DURATION_S, false);
    refused("5 m s", DURATION_S, false);
    refused("1,5", DURATION_S, false);
    refused("abc", DURATION_S, false);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_bare_number),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_seconds),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
