/* vfork_parent.c - a parent stuck in vfork while its child sleeps.
 *
 *   usage: vfork_parent CHILD_SECONDS AFTER_SECONDS
 *
 * The parent spins ~0.1 s, then vforks.  The child sleeps CHILD_SECONDS
 * before _exit(0); until then the parent waits for it inside the kernel
 * in state D, where a ptrace interrupt cannot stop it.  Then the parent
 * spins in after_vfork for AFTER_SECONDS and exits 0 (1 if vfork failed,
 * 4 if the child did not exit 0).  The child's PID is printed on stdout.
 * (tests/reliability_odd.t)
 */
#include "common.h"

#include <sys/wait.h>

SP_FRAME void spin_until(double until)
{
    uint64_t x = target_sink;

    while (target_now() < until)
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL, 50000);
}

SP_FRAME void after_vfork(double seconds)
{
    spin_until(target_now() + seconds);
}

int main(int argc, char **argv)
{
    double child_s, after_s;
    struct timespec nap;
    pid_t child;
    int status;

    target_usage(argc, 3, 3, "vfork_parent CHILD_SECONDS AFTER_SECONDS");
    child_s = target_parse_seconds("vfork_parent", argv[1]);
    after_s = target_parse_seconds("vfork_parent", argv[2]);
    nap.tv_sec = (time_t)child_s;
    nap.tv_nsec = (long)((child_s - (double)nap.tv_sec) * 1e9);
    spin_until(target_now() + 0.1);
    child = vfork();
    if (child < 0) {
        perror("vfork_parent: vfork");
        return 1;
    }
    if (child == 0) {
        /* Only async-signal-safe calls in a vfork child: nanosleep, _exit. */
        while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
            ;
        _exit(0);
    }
    printf("%d\n", (int)child);
    fflush(stdout);
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 4;
    after_vfork(after_s);
    return 0;
}
