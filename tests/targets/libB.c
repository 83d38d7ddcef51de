/* libB.c - the second of two look-alike shared libraries for dlswap.
 *
 * Built as $(BUILD)/targets/libB.so.  It is libA.c under other names (same
 * size, same layout), so the loader tends to map it where libA.so was
 * after dlswap closes that: B's code must not be named as A's.
 * (tests/reliability_dlopen.t)
 */
#include <stdint.h>
#include <time.h>

static volatile uint64_t b_sink;

static double b_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin until `until` (CLOCK_MONOTONIC seconds); exported for dlsym. */
__attribute__((noinline)) void b_spin(double until);
__attribute__((noinline)) void b_spin(double until)
{
    uint64_t x = b_sink;

    while (b_now() < until) {
        for (int i = 0; i < 50000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        b_sink = x;
    }
}
