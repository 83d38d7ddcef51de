/* recurse.c - a 300-deep recursion spinning at the bottom.
 *
 *   usage: recurse [SECONDS]
 *
 * main -> recurse(300) -> recurse(299) -> ... -> recurse(0) -> bottom_spin.
 * Every sample therefore holds 301 `recurse` frames above main: a whole
 * unwind must show them all, with no "[truncated]" marker
 * (tests/engine_recurse.t).
 */
#include "common.h"

#define RECURSE_DEPTH 300

static double deadline;

SP_FRAME void bottom_spin(void)
{
    uint64_t x = target_sink;

    do
        TARGET_SPIN(x, 6364136223846793005ULL, 1ULL, 200000);
    while (!target_expired(deadline));
}

/* The volatile local lives in the frame and is read after the call, so
 * the call can be neither a tail call nor turned into a loop. */
SP_FRAME int recurse(int n)
{
    volatile int here = n;

    if (n == 0)
        bottom_spin();
    else
        recurse(n - 1);
    return here;
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "recurse [SECONDS]");
    deadline = target_deadline_arg("recurse", argc, argv, 1);
    return recurse(RECURSE_DEPTH) == RECURSE_DEPTH ? 0 : 1;
}
