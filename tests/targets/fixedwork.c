/* fixedwork.c - a short-lived process that burns a fixed amount of CPU.
 *
 *   usage: fixedwork MILLISECONDS
 *
 * main spins in fixed_burn until the process has used MILLISECONDS of
 * CPU time (CLOCK_PROCESS_CPUTIME_ID), then exits 0: so many of them in
 * a row are the short processes of a build (tests/longrun.t, issue 24).
 * Built twice, as fixedwork (fixed_burn) and fixedwork2 (fixed_burn2),
 * so a test has two distinct binaries of the same shape.
 */
#include "common.h"

#ifndef BURN
#define BURN fixed_burn
#endif

static double cpu_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

SP_FRAME void BURN(double until)
{
    uint64_t x = 7;

    while (cpu_seconds() < until)
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL, 20000);
}

int main(int argc, char **argv)
{
    target_usage(argc, 2, 2, "fixedwork MILLISECONDS");
    long ms = target_parse_long("fixedwork", "milliseconds", argv[1], 0,
                                3600000);
    BURN(cpu_seconds() + (double)ms / 1e3);
    return 0;
}
