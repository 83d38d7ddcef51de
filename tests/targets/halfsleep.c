/* halfsleep.c - half of the wall-clock time asleep in one call chain, half
 * spinning in another, in turns of 20 ms.
 *
 *   usage: halfsleep [SECONDS [THREADS]]
 *
 * Each of THREADS threads (default 1; the main thread is the first)
 * repeats: spin in spin_outer -> spin_inner until 20 ms of wall-clock
 * time have passed, then sleep in sleep_outer -> sleep_inner ->
 * nanosleep(20 ms).  Spinning by the clock, not by work, keeps the split
 * 50/50 in wall-clock time even when the CPUs are shared (a preempted
 * spinner is still in spin_inner).  An --idle (wall-clock) profile must
 * show each chain at 50% (tests/perf_idle.t).  Runs forever, or SECONDS
 * then exits 0.
 */
#include "common.h"

#include <pthread.h>
#include <stdint.h>

#define TURN_S 0.020

static double deadline;
static volatile uint64_t sink;

SP_FRAME void spin_inner(double until)
{
    uint64_t x = sink;

    while (target_now() < until)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink = x;
}

SP_FRAME void spin_outer(double until)
{
    spin_inner(until);
}

SP_FRAME void sleep_inner(void)
{
    struct timespec ts = { 0, (long)(TURN_S * 1e9) };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

SP_FRAME void sleep_outer(void)
{
    sleep_inner();
}

static void *turns(void *arg)
{
    (void)arg;
    while (!target_expired(deadline)) {
        spin_outer(target_now() + TURN_S);
        sleep_outer();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t tids[16];
    long threads = 1;

    if (argc > 3) {
        fprintf(stderr, "usage: halfsleep [SECONDS [THREADS]]\n");
        return 2;
    }
    if (argc > 1)
        deadline = target_deadline(target_parse_seconds("halfsleep", argv[1]));
    if (argc > 2)
        threads = target_parse_long("halfsleep", "thread count", argv[2], 1, 16);
    for (long i = 1; i < threads; i++) {
        int err = pthread_create(&tids[i], NULL, turns, NULL);
        if (err != 0) {
            fprintf(stderr, "halfsleep: pthread_create: %s\n", strerror(err));
            return 1;
        }
    }
    turns(NULL);
    for (long i = 1; i < threads; i++)
        pthread_join(tids[i], NULL);
    return 0;
}
