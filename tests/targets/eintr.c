/* eintr.c - threads blocking over and over in calls that fail with EINTR
 * when a ptrace interrupt reaches them, and never retry.
 *
 *   usage: eintr SECONDS [CALL...]
 *
 * CALL is one of (all five by default):
 *   epoll          epoll_wait(..., -1) on an eventfd         (wait_epoll)
 *   epoll-timeout  epoll_wait(..., 5 ms)                     (wait_epoll_timeout)
 *   sigtimedwait   sigtimedwait(SIGUSR2, 5 ms)               (wait_sigtimedwait)
 *   sigwaitinfo    sigwaitinfo(SIGUSR2), no timeout          (wait_sigwaitinfo)
 *   recv-timeout   recv() on a socket with SO_RCVTIMEO 5 ms  (wait_recv_timeout)
 * Each call gets a thread named after it that spins ~30 us, blocks in its
 * call, and starts again; every other time through one more frame
 * (wait_via_extra_frame), so consecutive waits differ in stack pointer.  A thread "eintr-burn" burns CPU and, every
 * 2 ms, wakes the calls that have no timeout (and every third time the
 * others), so each thread keeps moving between running and blocked.
 *
 * Nothing in the program sends it a signal it handles, so no call may
 * ever fail with EINTR: if one does, it prints "eintr: CALL failed with
 * EINTR after N calls" and exits 3 at once (any other failure: exit 1).
 * After SECONDS it prints one line "CALL N ..." with the calls each
 * thread completed, and exits 0.  (tests/reliability_eintr.t)
 */
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define TIMEOUT_MS 5

enum call { C_EPOLL, C_EPOLL_TIMEOUT, C_SIGTIMEDWAIT, C_SIGWAITINFO, C_RECV,
            C_NCALLS };

static const char *const call_names[C_NCALLS] = {
    "epoll", "epoll-timeout", "sigtimedwait", "sigwaitinfo", "recv-timeout",
};

struct blocker {
    enum call call;
    int on;                 /* selected on the command line */
    pthread_t thread;
    atomic_int tid;         /* for tgkill; 0 until the thread runs */
    int fd;                 /* eventfd or socket to wait on */
    int epfd;               /* epoll instance (epoll calls) */
    int wake_fd;            /* what the waker writes to (eventfd, socket) */
    unsigned long done;     /* calls completed */
};

static struct blocker blockers[C_NCALLS];
static atomic_int finished;
static sigset_t usr2_set;

static void fail(enum call c, unsigned long n, int err)
{
    if (err == EINTR)
        fprintf(stderr, "eintr: %s failed with EINTR after %lu calls\n",
                call_names[c], n);
    else
        fprintf(stderr, "eintr: %s failed after %lu calls: %s\n",
                call_names[c], n, strerror(err));
    _exit(err == EINTR ? 3 : 1);
}

TARGET_SPIN_FN(blocker_spin, 6364136223846793005ULL,
               1442695040888963407ULL, 30000)

static void drain_eventfd(int fd)
{
    uint64_t v;

    if (read(fd, &v, sizeof v) < 0 && errno != EAGAIN)
        fail(C_EPOLL, 0, errno);
}

SP_FRAME int wait_epoll(struct blocker *b)
{
    struct epoll_event ev;
    int n = epoll_wait(b->epfd, &ev, 1, -1);

    if (n > 0)
        drain_eventfd(b->fd);
    return n;
}

SP_FRAME int wait_epoll_timeout(struct blocker *b)
{
    struct epoll_event ev;
    int n = epoll_wait(b->epfd, &ev, 1, TIMEOUT_MS);

    if (n > 0)
        drain_eventfd(b->fd);
    return n;
}

SP_FRAME int wait_sigtimedwait(struct blocker *b)
{
    struct timespec ts = { 0, TIMEOUT_MS * 1000000L };
    int n = sigtimedwait(&usr2_set, NULL, &ts);

    (void)b;
    return n < 0 && errno == EAGAIN ? 0 : n;
}

SP_FRAME int wait_sigwaitinfo(struct blocker *b)
{
    (void)b;
    return sigwaitinfo(&usr2_set, NULL);
}

SP_FRAME int wait_recv_timeout(struct blocker *b)
{
    char buf[256];
    ssize_t n = recv(b->fd, buf, sizeof buf, 0);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    return n == 0 ? -1 : (int)n; /* 0: the writer is gone */
}

static int (*const waits[C_NCALLS])(struct blocker *) = {
    wait_epoll, wait_epoll_timeout, wait_sigtimedwait, wait_sigwaitinfo,
    wait_recv_timeout,
};

/* Every other call goes through this extra frame, so two blocked
 * stretches in a row never have the same stack pointer: a sampler that
 * reuses the stack of a thread still blocked at the same SP and PC has to
 * stop the thread again for each new stretch. */
SP_FRAME int wait_via_extra_frame(struct blocker *b)
{
    volatile char pad[64];

    pad[0] = 0;
    return waits[b->call](b) + pad[0];
}

static void *blocker_main(void *arg)
{
    struct blocker *b = arg;
    char name[16];
    int r;

    snprintf(name, sizeof name, "%s", call_names[b->call]);
    pthread_setname_np(pthread_self(), name);
    atomic_store(&b->tid, (int)syscall(SYS_gettid));
    while (!atomic_load(&finished)) {
        blocker_spin();
        errno = 0;
        r = b->done % 2 ? wait_via_extra_frame(b) : waits[b->call](b);
        if (r < 0)
            fail(b->call, b->done, errno ? errno : EPIPE);
        b->done++;
    }
    return NULL;
}

static void wake(struct blocker *b)
{
    uint64_t one = 1;
    int tid;

    if (!b->on)
        return;
    switch (b->call) {
    case C_EPOLL:
    case C_EPOLL_TIMEOUT:
    case C_RECV:
        if (write(b->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
            fail(b->call, b->done, errno);
        break;
    case C_SIGTIMEDWAIT:
    case C_SIGWAITINFO:
        tid = atomic_load(&b->tid);
        if (tid > 0)
            syscall(SYS_tgkill, getpid(), tid, SIGUSR2);
        break;
    case C_NCALLS:
        break;
    }
}

/* Burns CPU for the whole run; every 2 ms wakes the calls without a
 * timeout, every 6 ms the others too. */
SP_FRAME void burn_cpu(double deadline)
{
    double next = target_now();
    unsigned round = 0;
    uint64_t x = 3;

    while (!target_expired(deadline)) {
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 20000);
        if (target_now() < next)
            continue;
        next += 0.002;
        round++;
        wake(&blockers[C_EPOLL]);
        wake(&blockers[C_SIGWAITINFO]);
        if (round % 3 == 0) {
            wake(&blockers[C_EPOLL_TIMEOUT]);
            wake(&blockers[C_SIGTIMEDWAIT]);
            wake(&blockers[C_RECV]);
        }
    }
}

static int setup(struct blocker *b)
{
    struct epoll_event ev = { .events = EPOLLIN };
    struct timeval tv = { 0, TIMEOUT_MS * 1000 };
    int sv[2];

    b->fd = b->epfd = b->wake_fd = -1;
    switch (b->call) {
    case C_EPOLL:
    case C_EPOLL_TIMEOUT:
        b->fd = b->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        b->epfd = epoll_create1(EPOLL_CLOEXEC);
        ev.data.fd = b->fd;
        if (b->fd < 0 || b->epfd < 0 ||
            epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->fd, &ev) != 0)
            return -1;
        return 0;
    case C_RECV:
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return -1;
        b->fd = sv[0];
        b->wake_fd = sv[1];
        return setsockopt(b->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    case C_SIGTIMEDWAIT:
    case C_SIGWAITINFO:
    case C_NCALLS:
        return 0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    double deadline;
    const char *sep = "";

    target_usage(argc, 2, argc, "eintr SECONDS [CALL...]");
    deadline = target_deadline(target_parse_seconds("eintr", argv[1]));
    for (int c = 0; c < C_NCALLS; c++) {
        blockers[c].call = (enum call)c;
        blockers[c].on = argc == 2;
    }
    for (int i = 2; i < argc; i++) {
        int c;

        for (c = 0; c < C_NCALLS; c++)
            if (strcmp(argv[i], call_names[c]) == 0)
                break;
        if (c == C_NCALLS) {
            fprintf(stderr, "eintr: unknown call '%s' (epoll, epoll-timeout, "
                    "sigtimedwait, sigwaitinfo, recv-timeout)\n", argv[i]);
            return 2;
        }
        blockers[c].on = 1;
    }
    /* SIGUSR2 stays blocked everywhere: it is only ever waited for. */
    sigemptyset(&usr2_set);
    sigaddset(&usr2_set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &usr2_set, NULL);
    for (int c = 0; c < C_NCALLS; c++) {
        if (!blockers[c].on)
            continue;
        if (setup(&blockers[c]) != 0) {
            fprintf(stderr, "eintr: setting up %s: %s\n", call_names[c],
                    strerror(errno));
            return 1;
        }
        blockers[c].thread = target_start("eintr", blocker_main, &blockers[c]);
    }
    pthread_setname_np(pthread_self(), "eintr-burn");
    burn_cpu(deadline);
    atomic_store(&finished, 1);
    /* One last wake so the calls without a timeout see `finished`. */
    for (int c = 0; c < C_NCALLS; c++)
        wake(&blockers[c]);
    for (int c = 0; c < C_NCALLS; c++)
        if (blockers[c].on)
            pthread_join(blockers[c].thread, NULL);
    for (int c = 0; c < C_NCALLS; c++) {
        if (!blockers[c].on)
            continue;
        printf("%s%s %lu", sep, call_names[c], blockers[c].done);
        sep = " ";
    }
    printf("\n");
    return 0;
}
