/* sigsend.c - queue COUNT signals to a process with sigqueue(3).
 *
 *   usage: sigsend PID SIGNAL COUNT [INTERVAL_US]
 *
 * SIGNAL is a number, or RTMIN+N.  Signal i (1..COUNT) carries si_value i,
 * so the receiver can check that each arrived exactly once (sigcount sums
 * them).  INTERVAL_US (default 0) microseconds pass between two signals,
 * spreading them over a sampling run.  A failed sigqueue (EAGAIN: the
 * receiver's queue is full; ESRCH: it is gone) ends with status 1 and one
 * line naming the signal number reached.  (tests/reliability_signals.t)
 */
#include "common.h"

#include <signal.h>

int main(int argc, char **argv)
{
    long pid, count, interval_us = 0;
    int sig;

    target_usage(argc, 4, 5, "sigsend PID SIGNAL COUNT [INTERVAL_US]");
    pid = target_parse_long("sigsend", "PID", argv[1], 1, 1L << 22);
    if (strncmp(argv[2], "RTMIN+", 6) == 0)
        sig = SIGRTMIN + (int)target_parse_long("sigsend", "RTMIN offset",
                                                argv[2] + 6, 0, 30);
    else
        sig = (int)target_parse_long("sigsend", "signal", argv[2], 1, 64);
    count = target_parse_long("sigsend", "count", argv[3], 1, 100000);
    if (argc > 4)
        interval_us = target_parse_long("sigsend", "interval", argv[4], 0,
                                        1000000);
    for (long i = 1; i <= count; i++) {
        union sigval v = { .sival_int = (int)i };

        if (sigqueue((pid_t)pid, sig, v) != 0) {
            fprintf(stderr, "sigsend: signal %ld of %ld to PID %ld: %s\n", i,
                    count, pid, strerror(errno));
            return 1;
        }
        if (interval_us > 0)
            usleep((useconds_t)interval_us);
    }
    return 0;
}
