/* zombie_leader.c - the main thread exits first; two workers go on.
 *
 *   usage: zombie_leader SECONDS
 *
 * main starts "zl-worker-a" (spinning in zl_spin_a) and "zl-worker-b"
 * (zl_spin_b), then calls pthread_exit: the leader becomes a zombie (state
 * Z in /proc/PID/stat) that cannot be seized, while the process lives on in
 * its workers.  They return after SECONDS, and the process exits 0 with
 * its last thread.  (tests/reliability_odd.t)
 */
#include "common.h"

#include <pthread.h>
#include <stdint.h>

static double deadline;
static volatile uint64_t sink;

SP_FRAME void zl_spin_a(void)
{
    uint64_t x = 1;

    do {
        for (int i = 0; i < 50000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        sink = x;
    } while (!target_expired(deadline));
}

SP_FRAME void zl_spin_b(void)
{
    uint64_t x = 2;

    do {
        for (int i = 0; i < 50000; i++)
            x = x * 2862933555777941757ULL + 3037000493ULL;
        sink = x;
    } while (!target_expired(deadline));
}

static void *worker_a(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "zl-worker-a");
    zl_spin_a();
    return NULL;
}

static void *worker_b(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "zl-worker-b");
    zl_spin_b();
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t a, b;

    if (argc != 2) {
        fprintf(stderr, "usage: zombie_leader SECONDS\n");
        return 2;
    }
    deadline = target_deadline(target_parse_seconds("zombie_leader", argv[1]));
    if (pthread_create(&a, NULL, worker_a, NULL) != 0 ||
        pthread_create(&b, NULL, worker_b, NULL) != 0) {
        fprintf(stderr, "zombie_leader: pthread_create failed\n");
        return 1;
    }
    pthread_exit(NULL);
}
