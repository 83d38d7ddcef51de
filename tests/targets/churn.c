/* churn.c - creates and joins threads at a steady rate.
 *
 *   usage: churn SECONDS [RATE]
 *
 * Every 10 ms the main thread starts RATE/100 threads (RATE defaults to
 * 1000 a second) and joins them all.  Each thread spins ~50 us in
 * churn_work, sleeps 3 ms, and spins again, so at any moment a batch of
 * threads is alive, some running, some blocked, some exiting: a profiler
 * keeps seizing threads that vanish under it.  After SECONDS it prints
 * "created N" and exits 0; a failed pthread_create or pthread_join exits
 * 1 with one line naming the error.  (tests/reliability_churn.t)
 */
#include "common.h"

#define CHURN_BATCH_MAX 100

TARGET_SPIN_FN(churn_work, 6364136223846793005ULL,
               1442695040888963407ULL, 20000)

static void *churn_thread(void *arg)
{
    (void)arg;
    churn_work();
    target_nap(0.003);
    churn_work();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t tids[CHURN_BATCH_MAX];
    struct timespec next;
    double deadline;
    long rate = 1000, batch, created = 0;

    target_usage(argc, 2, 3, "churn SECONDS [RATE]");
    deadline = target_deadline(target_parse_seconds("churn", argv[1]));
    if (argc > 2)
        rate = target_parse_long("churn", "rate", argv[2], 100,
                                 100 * CHURN_BATCH_MAX);
    batch = rate / 100;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!target_expired(deadline)) {
        for (long i = 0; i < batch; i++) {
            int err = pthread_create(&tids[i], NULL, churn_thread, NULL);

            if (err != 0) {
                fprintf(stderr, "churn: pthread_create after %ld threads: %s\n",
                        created, strerror(err));
                return 1;
            }
            created++;
        }
        for (long i = 0; i < batch; i++) {
            int err = pthread_join(tids[i], NULL);

            if (err != 0) {
                fprintf(stderr, "churn: pthread_join: %s\n", strerror(err));
                return 1;
            }
        }
        /* Absolute 10 ms slots: a slow batch does not lower the rate. */
        next.tv_nsec += 10000000;
        if (next.tv_nsec >= 1000000000) {
            next.tv_nsec -= 1000000000;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
    }
    printf("created %ld\n", created);
    return 0;
}
