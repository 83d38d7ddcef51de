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

static double deadline;

SP_FRAME void zl_spin_a(void)
{
    uint64_t x = 1;

    do
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL, 50000);
    while (!target_expired(deadline));
}

SP_FRAME void zl_spin_b(void)
{
    uint64_t x = 2;

    do
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 50000);
    while (!target_expired(deadline));
}

TARGET_THREAD(worker_a, "zl-worker-a", zl_spin_a())
TARGET_THREAD(worker_b, "zl-worker-b", zl_spin_b())

int main(int argc, char **argv)
{
    target_usage(argc, 2, 2, "zombie_leader SECONDS");
    deadline = target_deadline_arg("zombie_leader", argc, argv, 1);
    target_start("zombie_leader", worker_a, NULL);
    target_start("zombie_leader", worker_b, NULL);
    pthread_exit(NULL);
}
