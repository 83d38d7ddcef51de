/* split.c - three functions sharing identical work 60/30/10.
 *
 *   usage: split [SECONDS [STATUS]]
 *
 * main calls func_a, func_b and func_c in a cycle; they call the same
 * work_unit() 6, 3 and 1 times.  So the share of samples whose stack holds
 * func_a / func_b / func_c is 60 / 30 / 10 percent, whatever the CPU speed
 * (tests/engine_split.t checks it).  Runs forever, or SECONDS then exits
 * with STATUS (default 0) so launch tests can check the exit status.
 */
#include "common.h"

/* ~30 us of dependent multiply-adds: long enough that calls and the
 * deadline check in main are a negligible share of the samples. */
TARGET_SPIN_FN(work_unit, 6364136223846793005ULL, 1442695040888963407ULL, 20000)

SP_FRAME void func_a(void)
{
    for (int i = 0; i < 6; i++)
        work_unit();
}

SP_FRAME void func_b(void)
{
    for (int i = 0; i < 3; i++)
        work_unit();
}

SP_FRAME void func_c(void)
{
    work_unit();
}

int main(int argc, char **argv)
{
    int status = 0;

    target_usage(argc, 1, 3, "split [SECONDS [STATUS]]");
    double deadline = target_deadline_arg("split", argc, argv, 1);
    if (argc > 2)
        status = (int)target_parse_long("split", "status", argv[2], 0, 255);
    do {
        func_a();
        func_b();
        func_c();
    } while (!target_expired(deadline));
    return status;
}
