/* deep.c - a CPU-bound loop 28 frames below main.
 *
 *   usage: deep [SECONDS]
 *
 * main -> level1 -> level2 -> ... -> level27 -> deep_hot, where deep_hot
 * takes nearly all the time.  Each level is a distinct function (its own
 * constant, so identical-code folding cannot merge them) and does work
 * after its call returns, so no level is a tail call even at -O2.
 *
 * targets.mk builds it three ways: `deep` (frame pointers), `deep_nofp`
 * (-O2 -fomit-frame-pointer: unwinding needs .eh_frame) and
 * `deep_nounwind` (no frame pointers and no unwind tables: nothing to
 * unwind with; the engine must survive it).  The benchmarks use it too.
 */
#include "common.h"

/* ~1 ms of dependent arithmetic, so walking the 28 calls is a negligible
 * share of the run. */
SP_FRAME uint64_t deep_hot(uint64_t x)
{
    TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 400000);
    return x;
}

#define LEVEL(n, next)                           \
    SP_FRAME uint64_t level##n(uint64_t x);      \
    SP_FRAME uint64_t level##n(uint64_t x)       \
    {                                            \
        uint64_t r = next(x + (n));              \
        return r * 3 + (n);                      \
    }

LEVEL(27, deep_hot)
LEVEL(26, level27)
LEVEL(25, level26)
LEVEL(24, level25)
LEVEL(23, level24)
LEVEL(22, level23)
LEVEL(21, level22)
LEVEL(20, level21)
LEVEL(19, level20)
LEVEL(18, level19)
LEVEL(17, level18)
LEVEL(16, level17)
LEVEL(15, level16)
LEVEL(14, level15)
LEVEL(13, level14)
LEVEL(12, level13)
LEVEL(11, level12)
LEVEL(10, level11)
LEVEL(9, level10)
LEVEL(8, level9)
LEVEL(7, level8)
LEVEL(6, level7)
LEVEL(5, level6)
LEVEL(4, level5)
LEVEL(3, level4)
LEVEL(2, level3)
LEVEL(1, level2)

int main(int argc, char **argv)
{
    uint64_t x = 1;

    target_usage(argc, 1, 2, "deep [SECONDS]");
    double deadline = target_deadline_arg("deep", argc, argv, 1);
    do
        x = level1(x);
    while (!target_expired(deadline));
    target_sink = x;
    return 0;
}
