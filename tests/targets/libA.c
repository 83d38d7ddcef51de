/* libA.c - the first of two look-alike shared libraries for dlswap.
 *
 * Built as $(BUILD)/targets/libA.so.  libB.c is the same code under other
 * names, so after dlclose(A) the loader tends to map B at A's address:
 * a profiler that keeps A's symbols for that range names B's code wrongly.
 * (tests/reliability_dlopen.t)
 */
#include <stdint.h>
#include <time.h>

static volatile uint64_t a_sink;

static double a_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin until `until` (CLOCK_MONOTONIC seconds); exported for dlsym. */
__attribute__((noinline)) void a_spin(double until);
__attribute__((noinline)) void a_spin(double until)
{
    uint64_t x = a_sink;

    while (a_now() < until) {
        for (int i = 0; i < 50000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        a_sink = x;
    }
}
