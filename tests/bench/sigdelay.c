/* sigdelay.c - how long a queued signal takes to reach its handler.
 *
 *   sigdelay recv OUTFILE        spin and log each delay, in ns, to OUTFILE
 *   sigdelay send PID COUNT GAP_US   queue COUNT signals to PID, GAP_US apart
 *
 * The sender stamps each signal with its send time (sigqueue with the
 * CLOCK_MONOTONIC time in ns as its value); the receiver's SA_SIGINFO
 * handler stores handler time minus send time, and its main thread, which
 * spins otherwise (the signal lands in running code, as in the tests),
 * appends the new ones to OUTFILE, one number a line.  A profiler can
 * then be attached to the receiver while the sender runs from outside it.
 * SIGTERM ends the receiver.  (tests/bench/run.sh, section 7.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SIG (SIGRTMIN + 3)
#define MAX_DELAYS (1u << 20)

static uint64_t delays[MAX_DELAYS];
static atomic_uint ndelays;
static volatile sig_atomic_t done;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_sig(int sig, siginfo_t *si, void *uc)
{
    uint64_t t = now_ns(), sent = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    unsigned i = atomic_load(&ndelays);

    (void)sig, (void)uc;
    if (i < MAX_DELAYS) {
        delays[i] = t > sent ? t - sent : 0;
        atomic_store(&ndelays, i + 1);
    }
}

static void on_term(int sig)
{
    (void)sig;
    done = 1;
}

/* Append delays[from..to) to fd; returns to. */
static unsigned flush(int fd, unsigned from, unsigned to)
{
    char line[32];

    for (unsigned i = from; i < to; i++) {
        int n = snprintf(line, sizeof line, "%llu\n",
                         (unsigned long long)delays[i]);
        if (write(fd, line, (size_t)n) != n)
            exit(1);
    }
    return to;
}

static int recv_main(const char *out)
{
    struct sigaction sa;
    volatile uint64_t x = 1;
    unsigned flushed = 0;
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0) {
        fprintf(stderr, "sigdelay: %s: %s\n", out, strerror(errno));
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sig;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIG, &sa, NULL);
    signal(SIGTERM, on_term);
    while (!done) {
        for (int i = 0; i < 20000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned n = atomic_load(&ndelays);
        if (n != flushed)
            flushed = flush(fd, flushed, n);
    }
    flush(fd, flushed, atomic_load(&ndelays));
    return close(fd) == 0 ? 0 : 1;
}

static int send_main(long pid, long count, long gap_us)
{
    for (long i = 0; i < count; i++) {
        union sigval v = { .sival_ptr = (void *)(uintptr_t)now_ns() };

        if (sigqueue((pid_t)pid, SIG, v) != 0) {
            fprintf(stderr, "sigdelay: signal %ld to %ld: %s\n", i + 1, pid,
                    strerror(errno));
            return 1;
        }
        usleep((useconds_t)gap_us);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "recv") == 0)
        return recv_main(argv[2]);
    if (argc == 5 && strcmp(argv[1], "send") == 0)
        return send_main(atol(argv[2]), atol(argv[3]), atol(argv[4]));
    fprintf(stderr, "usage: sigdelay recv OUTFILE | sigdelay send PID COUNT GAP_US\n");
    return 2;
}
