/* halfsleep.c - half of the wall-clock time asleep in one call chain, half
 * spinning in another, in turns of about 20 ms.
 *
 *   usage: halfsleep [SECONDS [THREADS]]
 *
 * Each of THREADS threads (default 1; the main thread is the first)
 * repeats: spin in spin_outer -> spin_inner, then sleep in sleep_outer ->
 * sleep_inner -> nanosleep(20 ms).  Each thread keeps the wall-clock time
 * it has spent in either, measured around the calls, and spins until its
 * spinning total is 20 ms ahead of its sleeping total: on a loaded
 * machine a sleep lasts longer than asked (the wake-up waits for a CPU)
 * and a spin overruns its end (preempted past it), and this evens both
 * out, so any stretch of a few seconds is 50/50 within one turn.  A
 * preempted spinner is still in spin_inner, a woken sleeper waiting for a
 * CPU still in sleep_inner.  An --idle (wall-clock) profile must show each
 * chain at 50% (tests/perf_idle.t).  Runs forever, or SECONDS then exits 0.
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
    double spun = 0, slept = 0;

    (void)arg;
    while (!target_expired(deadline)) {
        double t0 = target_now();
        spin_outer(t0 + slept + TURN_S - spun);
        double t1 = target_now();
        spun += t1 - t0;
        sleep_outer();
        slept += target_now() - t1;
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
