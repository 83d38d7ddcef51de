/* forkwork.c - a master process and two forked workers, each spinning in
 * a function of its own (an nginx-style process family).
 *
 *   usage: forkwork [SECONDS [DELAY|@FILE]]
 *
 * The master waits DELAY seconds (default 0), or until FILE exists (a
 * test creates it once a profiler has attached), forks two workers, prints
 * "WORKERS PID1 PID2" on stdout, and spins in master_spin; worker 1 spins
 * in worker_one, worker 2 in worker_two.  The workers end with the master
 * (PR_SET_PDEATHSIG) or at the deadline.  tests/procs.t profiles the three
 * with -p MASTER,W1,W2.
 */
#include "common.h"

#include <sys/prctl.h>
#include <sys/wait.h>

TARGET_SPIN_FN(master_spin, 6364136223846793005ULL,
               1442695040888963407ULL, 20000)

TARGET_SPIN_FN(worker_one, 2862933555777941757ULL, 3037000493ULL, 20000)

TARGET_SPIN_FN(worker_two, 3202034522624059733ULL,
               4354685564936845319ULL, 20000)

static pid_t spawn_worker(void (*fn)(void), pid_t master, double deadline)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("forkwork: fork");
        exit(1);
    }
    if (pid > 0)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != master)
        _exit(0);
    do
        fn();
    while (!target_expired(deadline));
    _exit(0);
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 3, "forkwork [SECONDS [DELAY|@FILE]]");
    double deadline = target_deadline_arg("forkwork", argc, argv, 1);
    if (argc > 2 && argv[2][0] == '@')
        while (access(argv[2] + 1, F_OK) != 0 && !target_expired(deadline))
            target_nap(0.01);
    else if (argc > 2)
        target_nap(target_parse_seconds("forkwork", argv[2]));
    pid_t self = getpid();
    pid_t w1 = spawn_worker(worker_one, self, deadline);
    pid_t w2 = spawn_worker(worker_two, self, deadline);
    printf("WORKERS %d %d\n", (int)w1, (int)w2);
    fflush(stdout);
    do
        master_spin();
    while (!target_expired(deadline));
    kill(w1, SIGTERM);
    kill(w2, SIGTERM);
    while (wait(NULL) > 0)
        ;
    return 0;
}
