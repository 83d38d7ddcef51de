/* rtt.c - the bare ptrace round trip, for comparison with sproftop's cost
 * per sample: PTRACE_INTERRUPT, waitpid, PTRACE_GETREGS, PTRACE_CONT on a
 * running thread, N times at RATE Hz, the same way sproftop waits (busy-poll
 * then sigtimedwait).  Prints tracer CPU per round trip and the target's
 * stop time (stop seen -> resumed), medians in microseconds.
 *
 *   usage: rtt PID N RATE_HZ
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

static uint64_t ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: rtt PID N RATE_HZ\n");
        return 2;
    }
    pid_t pid = atoi(argv[1]);
    int n = atoi(argv[2]);
    double hz = atof(argv[3]);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) {
        perror("seize");
        return 1;
    }
    uint64_t *stop = calloc((size_t)n, sizeof *stop);
    uint64_t period = (uint64_t)(1e9 / hz), next = ns(CLOCK_MONOTONIC);
    uint64_t cpu0 = ns(CLOCK_THREAD_CPUTIME_ID);
    int done = 0;
    for (int i = 0; i < n; i++) {
        next += period;
        struct timespec ts = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
            break;
        int st;
        uint64_t spin_until = ns(CLOCK_MONOTONIC) + 50000;
        pid_t r;
        for (;;) {
            r = waitpid(pid, &st, __WALL | WNOHANG);
            if (r != 0 || ns(CLOCK_MONOTONIC) > spin_until)
                break;
        }
        if (r == 0) {
            struct timespec to = {1, 0};
            sigtimedwait(&set, NULL, &to);
            r = waitpid(pid, &st, __WALL);
        }
        uint64_t seen = ns(CLOCK_MONOTONIC);
        if (r != pid || !WIFSTOPPED(st))
            break;
        if ((st >> 16) != PTRACE_EVENT_STOP) {
            ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(st));
            i--;
            continue;
        }
        struct user_regs_struct regs;
        ptrace(PTRACE_GETREGS, pid, 0, &regs);
        ptrace(PTRACE_CONT, pid, 0, 0);
        stop[done++] = ns(CLOCK_MONOTONIC) - seen;
    }
    uint64_t cpu = ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    qsort(stop, (size_t)done, sizeof *stop, cmp);
    printf("round_trips %d tracer_cpu_us %.2f stop_median_us %.2f stop_p99_us %.2f\n",
           done, done ? (double)cpu / 1e3 / done : 0.0,
           done ? (double)stop[done / 2] / 1e3 : 0.0,
           done ? (double)stop[done * 99 / 100] / 1e3 : 0.0);
    ptrace(PTRACE_DETACH, pid, 0, 0); /* fails if running; exit detaches */
    return 0;
}
