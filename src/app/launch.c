/* launch.c - ending a launched command; see launch.h. */
#include "launch.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"

/* Reap pid if it has ended; true when it has (or is not our child). */
static bool reaped(pid_t pid)
{
    int status;
    pid_t r;

    while ((r = waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR)
        ;
    return r == pid || r < 0;
}

bool launch_end(pid_t pid, unsigned grace_ms)
{
    if (pid <= 0 || reaped(pid))
        return false;
    kill(pid, SIGTERM);
    kill(pid, SIGCONT);
    uint64_t until = clock_mono_ns() + (uint64_t)grace_ms * 1000000u;
    /* Poll: SIGCHLD is blocked in every thread (the sampler waits for it
     * with sigtimedwait), and 10 ms is nothing next to the grace. */
    while (clock_mono_ns() < until) {
        if (reaped(pid))
            return false;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    if (reaped(pid))
        return false;
    kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return true;
}
