/* threads.c - N named threads, each spinning in its own function.
 *
 *   usage: threads [COUNT [SECONDS [DELAY]]]
 *
 * Starts COUNT (default 4, at most 64) threads named "worker-0",
 * "worker-1", ... (pthread_setname_np).  Worker i spins in
 * spin_worker_<i % 8>, so both the thread root and the leaf say which
 * thread a sample came from.  The main thread only waits in
 * pthread_join.  DELAY seconds (default 0) pass before the workers start,
 * so a profiler attached early must pick up threads created after it
 * attached.  Runs forever, or SECONDS then exits 0.
 */
#include "common.h"

#define THREADS_MAX 64

static double deadline;

/* Distinct constants keep the eight bodies distinct (no code folding). */
#define SPIN_WORKER(n)                                                  \
    SP_FRAME void spin_worker_##n(void);                                \
    SP_FRAME void spin_worker_##n(void)                                 \
    {                                                                   \
        uint64_t x = (n) + 1;                                           \
        do                                                              \
            TARGET_SPIN(x, 6364136223846793005ULL, 2 * (n) + 1, 100000); \
        while (!target_expired(deadline));                              \
    }

SPIN_WORKER(0)
SPIN_WORKER(1)
SPIN_WORKER(2)
SPIN_WORKER(3)
SPIN_WORKER(4)
SPIN_WORKER(5)
SPIN_WORKER(6)
SPIN_WORKER(7)

static void (*const spinners[8])(void) = {
    spin_worker_0, spin_worker_1, spin_worker_2, spin_worker_3,
    spin_worker_4, spin_worker_5, spin_worker_6, spin_worker_7,
};

static void *worker_main(void *arg)
{
    long i = (long)(intptr_t)arg;
    char name[16];

    snprintf(name, sizeof name, "worker-%ld", i);
    pthread_setname_np(pthread_self(), name);
    spinners[i % 8]();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t tids[THREADS_MAX];
    long count = 4;
    double delay = 0;

    target_usage(argc, 1, 4, "threads [COUNT [SECONDS [DELAY]]]");
    if (argc > 1)
        count = target_parse_long("threads", "thread count", argv[1], 1,
                                  THREADS_MAX);
    if (argc > 3)
        delay = target_parse_seconds("threads", argv[3]);
    deadline = target_deadline_arg("threads", argc, argv, 2);
    if (delay > 0)
        target_nap(delay);
    for (long i = 0; i < count; i++) {
        int err = pthread_create(&tids[i], NULL, worker_main,
                                 (void *)(intptr_t)i);
        if (err != 0) {
            fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
            return 1;
        }
    }
    for (long i = 0; i < count; i++)
        pthread_join(tids[i], NULL);
    return 0;
}
