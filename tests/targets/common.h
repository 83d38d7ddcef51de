/* common.h - helpers shared by the test target programs.
 *
 * Every target in tests/targets/ has a known profile shape and runs until
 * killed, or for a number of seconds given on its command line, so the
 * engine tests can both attach to it (-p PID) and launch it (-- CMD).
 * These helpers parse that duration and end the program when it is over.
 *
 * Header-only on purpose: each target is one translation unit, built by
 * tests/targets/targets.mk with nothing else linked in.
 */
#ifndef SPROFTOP_TARGETS_COMMON_H
#define SPROFTOP_TARGETS_COMMON_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Keep a function as a real, separately named frame: no inlining, no
 * cloning (.isra/.constprop names), no identical-code folding, no
 * assumptions about what it returns.  The tests match frames by name. */
#if defined(__clang__)
#define SP_FRAME __attribute__((noinline, used))
#else
#define SP_FRAME __attribute__((noipa, used))
#endif

/* Monotonic time in seconds. */
static inline double target_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parse a non-negative decimal number of seconds (0 means "forever").
 * Exits with status 2 and one line on stderr when `s` is not a number. */
static inline double target_parse_seconds(const char *prog, const char *s)
{
    char *end = NULL;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !(v >= 0.0) || v > 1e7) {
        fprintf(stderr, "%s: bad duration '%s': give seconds, e.g. 2 or 0.5\n",
                prog, s);
        exit(2);
    }
    return v;
}

/* Parse an integer in [lo, hi]; exits 2 with one line on stderr if not. */
static inline long target_parse_long(const char *prog, const char *what,
                                     const char *s, long lo, long hi)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "%s: bad %s '%s': give an integer in %ld..%ld\n",
                prog, what, s, lo, hi);
        exit(2);
    }
    return v;
}

/* The deadline for a run of `seconds` starting now; 0 means none. */
static inline double target_deadline(double seconds)
{
    return seconds > 0 ? target_now() + seconds : 0;
}

/* True once `deadline` (from target_deadline) has passed. */
static inline int target_expired(double deadline)
{
    return deadline > 0 && target_now() >= deadline;
}

static void target_alarm_exit(int sig)
{
    (void)sig;
    _exit(0);
}

/* For targets that block forever in the kernel: exit with status 0 after
 * `seconds` (0: never), whatever the threads are blocked in. */
static inline void target_exit_after(double seconds)
{
    struct sigaction sa;
    struct itimerval it;

    if (seconds <= 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = target_alarm_exit;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

#endif
