/* loops.c - one function holding two loops, the second running four
 * times as long as the first: annotate's truth (tests/annotate.t).
 *
 *   usage: loops [two|big|odd] [SECONDS]
 *
 * two (default): main calls two_loops over and over.  Both loops do the
 *   same work per step (one multiply-add of a dependency chain), the
 *   second four times as many steps, so its instructions hold 80% of
 *   two_loops' samples.  The second loop's step is hash_step, inlined.
 * big: big_fn, a function of more than 1 MiB (nops, then a spin).
 * odd: odd_code, a function with bytes no x86-64 instruction starts
 *   with, jumped over, then a spin.
 * Runs forever, or SECONDS, then exits 0.
 *
 * One source, several builds (targets.mk): loops (PIE), loops_nopie,
 * loops_stripped (no symbols: unnamed functions), loops_bare (no
 * symbols and no unwind tables: no function holds its code), and
 * libloops.so with loops_shared (the code in a shared library):
 * LOOPS_NO_MAIN leaves main out, LOOPS_NO_CODE the rest.
 */
#include "common.h"

#define LOOPS_STEPS 200000  /* steps of the first loop per call */

uint64_t two_loops(uint64_t n);
void big_fn(double until);
void odd_code(double until);

#ifndef LOOPS_NO_CODE
static inline __attribute__((always_inline)) uint64_t hash_step(uint64_t x)
{
    return x * 6364136223846793005ULL + 1442695040888963407ULL;
}

SP_FRAME uint64_t two_loops(uint64_t n)
{
    uint64_t x = 1, y = 3;

    for (uint64_t i = 0; i < n; i++)
        x = x * 2862933555777941757ULL + 3037000493ULL;
    for (uint64_t i = 0; i < 4 * n; i++)
        y = hash_step(y);
    target_sink = x;
    return x ^ y;
}

/* 1 MiB of nops before the spin: a function too big to show whole. */
SP_FRAME void big_fn(double until)
{
    uint64_t x = 5;

    __asm__ volatile(".fill 1048576, 1, 0x90");
    while (target_now() < until)
        TARGET_SPIN(x, 3935559000370003845ULL, 2691343689449507681ULL,
                    200000);
}

/* push %es, pop %es, daa, aaa: gone from 64-bit mode, jumped over. */
SP_FRAME void odd_code(double until)
{
    uint64_t x = 7;

    __asm__ volatile("jmp 1f\n\t.byte 0x06, 0x07, 0x27, 0x37\n1:\n");
    while (target_now() < until)
        TARGET_SPIN(x, 2685821657736338717ULL, 1181783497276652981ULL,
                    200000);
}
#endif

#ifndef LOOPS_NO_MAIN
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "two";
    double deadline;

    target_usage(argc, 1, 3, "loops [two|big|odd] [SECONDS]");
    deadline = target_deadline_arg("loops", argc, argv, 2);
    if (strcmp(mode, "two") && strcmp(mode, "big") && strcmp(mode, "odd")) {
        fprintf(stderr, "loops: unknown mode %s\n", mode);
        return 2;
    }
    do {
        double until = target_now() + 0.2;

        if (!strcmp(mode, "big"))
            big_fn(until);
        else if (!strcmp(mode, "odd"))
            odd_code(until);
        else
            target_sink = two_loops(LOOPS_STEPS);
    } while (!target_expired(deadline));
    return 0;
}
#endif
