/* launch.c - ending a launched command; see launch.h. */
#include "launch.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "source.h"

/* Reap pid if it has ended: 1 with its wait status in *status, -1 when
 * it is no child of ours (reaped already), 0 when it still runs. */
static int reaped(pid_t pid, int *status)
{
    pid_t r;

    while ((r = waitpid(pid, status, WNOHANG)) < 0 && errno == EINTR)
        ;
    return r == pid ? 1 : r < 0 ? -1 : 0;
}

/* The exit status that stands for a wait status. */
static int exit_status(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

/* Send sig (and SIGCONT) to pid, and SIGKILL after grace_ms; reap it.
 * Returns true when it had to be killed; its wait status in *status. */
static bool end_command(pid_t pid, int sig, unsigned grace_ms, int *status)
{
    kill(pid, sig);
    kill(pid, SIGCONT);
    uint64_t until = clock_mono_ns() + (uint64_t)grace_ms * 1000000u;
    /* Poll: SIGCHLD is blocked in every thread (the sampler waits for it
     * with sigtimedwait), and 10 ms is nothing next to the grace. */
    while (clock_mono_ns() < until) {
        if (reaped(pid, status))
            return false;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    if (reaped(pid, status))
        return false;
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return true;
}

int launch_finish(struct source *src, int sig, bool keep, const char *name)
{
    struct source_status st;
    int status = 0;

    src->ops->status(src, &st);
    if (st.state == TARGET_EXITED)
        return st.exit_signal ? 128 + st.exit_signal : st.exit_code;
    if (st.pid <= 0 || keep)
        return 0;
    int r = reaped(st.pid, &status);
    if (r)   /* it ended just as the session did: its own status */
        return r > 0 ? exit_status(status) : 0;
    int send = sig ? sig : SIGTERM;
    if (end_command(st.pid, send, LAUNCH_GRACE_MS, &status)) {
        const char *abbrev = sigabbrev_np(send);
        fprintf(stderr, "sproftop: %s (PID %d) was still running %u s after "
                "SIG%s: killed\n", name, (int)st.pid, LAUNCH_GRACE_MS / 1000,
                abbrev ? abbrev : "TERM");
    }
    return sig ? exit_status(status) : 0;
}
