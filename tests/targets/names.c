/* names.c - three hot functions with 60, 30 and 10 percent of the samples
 * as their own time, for the tests of names in stripped code
 * (tests/engine_names.t).
 *
 *   usage: names [SECONDS]
 *
 * hot_a, hot_b and hot_c are static and each the leaf of its samples, so
 * once the binary is stripped no symbol names them: each must still be
 * one frame, "[names+0xSTART]" from its unwind table entry, with its
 * share.  Each keeps a stack slot, so it sets up a frame and its unwind
 * rows change after the prologue: the start of its FDE names it, not
 * the row a sample falls in.  hot_a's work is an inlined helper,
 * mix_step, which only debug info can show.  tests/targets/targets.mk
 * builds the variants: the debug file split off (names.debug), stripped
 * (names-stripped), stripped with a .gnu_debuglink to names.debug
 * (names-link), stripped with MiniDebugInfo (names-mini).
 */
#include "common.h"

#define UNITS 20000  /* multiply-adds in one unit: ~30 us */

static inline __attribute__((always_inline)) uint64_t mix_step(uint64_t x)
{
    return x * 6364136223846793005ULL + 1442695040888963407ULL;
}

static SP_FRAME void hot_a(void)
{
    volatile uint64_t slot = target_sink;
    uint64_t x = slot;
    for (long i = 0; i < 6 * UNITS; i++)
        x = mix_step(x);
    target_sink = x;
}

static SP_FRAME void hot_b(void)
{
    volatile uint64_t slot = target_sink;
    uint64_t x = slot;
    TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 3 * UNITS);
}

static SP_FRAME void hot_c(void)
{
    volatile uint64_t slot = target_sink;
    uint64_t x = slot;
    TARGET_SPIN(x, 3935559000370003845ULL, 2691343689449507681ULL, UNITS);
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "names [SECONDS]");
    double deadline = target_deadline_arg("names", argc, argv, 1);
    do {
        hot_a();
        hot_b();
        hot_c();
    } while (!target_expired(deadline));
    return 0;
}
