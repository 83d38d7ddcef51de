/* sleeper.c - every thread blocked in the kernel, counting EINTRs.
 *
 *   usage: sleeper [SECONDS]
 *
 *   main:          main -> sleep_outer -> sleep_inner -> nanosleep(1 h)
 *   "sleep-poll":  poll_outer -> poll_inner -> poll(pipe, no timeout)
 *   "sleep-epoll": epoll_outer -> epoll_inner -> epoll_wait(no timeout)
 *
 * Nothing is ever on a CPU, so the default (on-CPU) mode must collect no
 * samples and must not touch the threads; --idle shows the chains above
 * (tests/engine_sleeper.t).  epoll_wait fails with EINTR when a tracer
 * interrupts it (docs/ARCHITECTURE.md, the ptrace backend), so every call that comes
 * back with EINTR prints one line "sleeper: EINTR in CALL" on stderr: the
 * test's evidence that the target saw (or did not see) the sampler.
 * Blocks forever, or exits 0 after SECONDS.
 */
#include "common.h"

#include <poll.h>
#include <sys/epoll.h>

static int pipe_fds[2];

static void report_eintr(const char *call)
{
    fprintf(stderr, "sleeper: EINTR in %s\n", call);
}

SP_FRAME void sleep_inner(void)
{
    for (;;) {
        struct timespec ts = { 3600, 0 };
        if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
            report_eintr("nanosleep");
    }
}

SP_FRAME void sleep_outer(void)
{
    sleep_inner();
}

SP_FRAME void poll_inner(void)
{
    struct pollfd p = { .fd = pipe_fds[0], .events = POLLIN };

    for (;;)
        if (poll(&p, 1, -1) < 0 && errno == EINTR)
            report_eintr("poll");
}

SP_FRAME void poll_outer(void)
{
    poll_inner();
}

SP_FRAME void epoll_inner(int ep)
{
    struct epoll_event ev;

    for (;;)
        if (epoll_wait(ep, &ev, 1, -1) < 0 && errno == EINTR)
            report_eintr("epoll_wait");
}

SP_FRAME void epoll_outer(int ep)
{
    epoll_inner(ep);
}

TARGET_THREAD(poll_thread, "sleep-poll", poll_outer())

static void *epoll_thread(void *arg)
{
    struct epoll_event ev = { .events = EPOLLIN };
    int ep = epoll_create1(0);

    (void)arg;
    pthread_setname_np(pthread_self(), "sleep-epoll");
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, pipe_fds[0], &ev) != 0) {
        perror("sleeper: epoll");
        exit(1);
    }
    epoll_outer(ep);
    return NULL;
}

int main(int argc, char **argv)
{
    target_usage(argc, 1, 2, "sleeper [SECONDS]");
    target_exit_after_arg("sleeper", argc, argv, 1);
    target_pipe("sleeper", pipe_fds);
    target_start("sleeper", poll_thread, NULL);
    target_start("sleeper", epoll_thread, NULL);
    sleep_outer();
    return 0;
}
