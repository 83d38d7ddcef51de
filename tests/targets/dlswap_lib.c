/* dlswap_lib.c - the two look-alike shared libraries dlswap loads.
 *
 * Built twice by targets.mk: $(BUILD)/targets/libA.so with LIB_NAME=a,
 * exporting a_spin, and libB.so with LIB_NAME=b, exporting b_spin.  The
 * same code under other names (same size, same layout), so after
 * dlclose(A) the loader tends to map B at A's address: a profiler that
 * keeps A's symbols for that range names B's code wrongly.
 * (tests/reliability_dlopen.t)
 */
#include <stdint.h>
#include <time.h>

#define NAME_(lib, what) lib##_##what
#define NAME(lib, what) NAME_(lib, what)
#define LIB_SINK NAME(LIB_NAME, sink)
#define LIB_NOW NAME(LIB_NAME, now)
#define LIB_SPIN NAME(LIB_NAME, spin)

static volatile uint64_t LIB_SINK;

static double LIB_NOW(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin until `until` (CLOCK_MONOTONIC seconds); exported for dlsym. */
__attribute__((noinline)) void LIB_SPIN(double until);
__attribute__((noinline)) void LIB_SPIN(double until)
{
    uint64_t x = LIB_SINK;

    while (LIB_NOW() < until) {
        for (int i = 0; i < 50000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        LIB_SINK = x;
    }
}
