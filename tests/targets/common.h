/* common.h - helpers shared by the test target programs.
 *
 * Every target in tests/targets/ has a known profile shape and runs until
 * killed, or for a number of seconds given on its command line, so the
 * engine tests can both attach to it (-p PID) and launch it (-- CMD).
 * These helpers parse that duration and end the program when it is over,
 * and hold what every target does the same way: the spin that burns CPU,
 * starting a thread, napping through EINTR.
 *
 * Header-only on purpose: each target is one translation unit, built by
 * tests/targets/targets.mk with nothing else linked in.
 */
#ifndef SPROFTOP_TARGETS_COMMON_H
#define SPROFTOP_TARGETS_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
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

/* Where TARGET_SPIN stores its result, so the compiler keeps the work. */
static volatile uint64_t target_sink __attribute__((unused));

/* The CPU burn every target uses: `rounds` steps of a multiply-add chain
 * on the uint64_t lvalue x, then a store the compiler cannot drop.  The
 * constants differ between callers so that identical code folding cannot
 * merge their frames.  A macro, not a function: an inlined function would
 * show up in profiles as an inlined frame of its own. */
#define TARGET_SPIN(x, mul, add, rounds)                     \
    do {                                                     \
        for (long spin_i_ = 0; spin_i_ < (rounds); spin_i_++) \
            (x) = (x) * (mul) + (add);                       \
        target_sink = (x);                                   \
    } while (0)

/* TARGET_SPIN_FN(name, mul, add, rounds): define `SP_FRAME void
 * name(void)`, a leaf frame of its own that spins TARGET_SPIN's rounds
 * from target_sink: the unit of work a target's callers repeat. */
#define TARGET_SPIN_FN(name, mul, add, rounds)   \
    SP_FRAME void name(void)                     \
    {                                            \
        uint64_t x = target_sink;                \
                                                 \
        TARGET_SPIN(x, mul, add, rounds);        \
    }

/* Define the thread function `static void *entry(void *)`: the thread
 * names itself `name` (what profiles show as its thread) and runs the
 * statement `run`.  `entry` stays a frame of its own, the root of the
 * thread's stacks. */
#define TARGET_THREAD(entry, name, run)                  \
    static void *entry(void *arg)                        \
    {                                                    \
        (void)arg;                                       \
        pthread_setname_np(pthread_self(), name);        \
        run;                                             \
        return NULL;                                     \
    }

/* Exit 2 with "usage: USAGE" on stderr unless lo <= argc <= hi. */
static inline void target_usage(int argc, int lo, int hi, const char *usage)
{
    if (argc < lo || argc > hi) {
        fprintf(stderr, "usage: %s\n", usage);
        exit(2);
    }
}

/* Start a thread running fn(arg); exit 1 with one line if it cannot. */
static inline pthread_t target_start(const char *prog, void *(*fn)(void *),
                                     void *arg)
{
    pthread_t t;

    if (pthread_create(&t, NULL, fn, arg) != 0) {
        fprintf(stderr, "%s: pthread_create failed\n", prog);
        exit(1);
    }
    return t;
}

/* A pipe in fds; exit 1 with one line if there is none. */
static inline void target_pipe(const char *prog, int fds[2])
{
    if (pipe(fds) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
        exit(1);
    }
}

/* Sleep `seconds`, through EINTR. */
static inline void target_nap(double seconds)
{
    struct timespec ts = { (time_t)seconds,
                           (long)((seconds - (double)(time_t)seconds) * 1e9) };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

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

/* The deadline of argv[i] seconds from now, 0 (none) when argc <= i. */
static inline double target_deadline_arg(const char *prog, int argc,
                                         char **argv, int i)
{
    return argc > i ? target_deadline(target_parse_seconds(prog, argv[i])) : 0;
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
 * argv[i] seconds (none when argc <= i; 0: never), whatever the threads
 * are blocked in. */
static inline void target_exit_after_arg(const char *prog, int argc,
                                         char **argv, int i)
{
    struct sigaction sa;
    struct itimerval it;
    double seconds = argc > i ? target_parse_seconds(prog, argv[i]) : 0;

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
