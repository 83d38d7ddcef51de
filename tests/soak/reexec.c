/* reexec.c - a process that execs itself every second (tests/soak/).
 *
 *   usage: reexec SECONDS
 *
 * Spins in reexec_spin for 0.2 s, naps for the rest of the second, then
 * execs itself (/proc/self/exe) with the same deadline and a count, so
 * a profiler sees a new image under the same PID once a second.  At the
 * deadline (SECONDS from the first start; 0: never) the last image
 * prints "execs N" and exits 0; a failed exec exits 1 with one line.
 */
#include "common.h"

SP_FRAME static void reexec_spin(double until)
{
    uint64_t x = target_sink;

    while (target_now() < until)
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 20000);
}

int main(int argc, char **argv)
{
    /* after an exec: argv[1] is "@DEADLINE", argv[2] the count */
    double deadline;
    long n = 0;

    target_usage(argc, 2, 3, "reexec SECONDS");
    if (argv[1][0] == '@') {
        deadline = strtod(argv[1] + 1, NULL);
        n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    } else {
        deadline = target_deadline_arg("reexec", argc, argv, 1);
    }
    double start = target_now();
    reexec_spin(start + 0.2);
    target_nap(start + 1 - target_now() > 0 ? start + 1 - target_now() : 0);
    if (target_expired(deadline)) {
        printf("execs %ld\n", n);
        return 0;
    }
    char dl[64], cnt[32];
    snprintf(dl, sizeof dl, "@%.6f", deadline);
    snprintf(cnt, sizeof cnt, "%ld", n + 1);
    char *args[] = { argv[0], dl, cnt, NULL };
    execv("/proc/self/exe", args);
    fprintf(stderr, "reexec: exec: %s\n", strerror(errno));
    return 1;
}
