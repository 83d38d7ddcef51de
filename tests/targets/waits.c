/* waits.c - threads that each spend their time in one known way, and
 * measure it themselves: the ground truth for --idle's off-CPU reasons.
 *
 *   usage: waits SECONDS DIR REPORT [CPU]
 *
 * Threads (named so), each in one call chain of its own:
 *   w-spin    spins (spin_work): on CPU, or waiting for one when other
 *             processes want the CPUs too;
 *   w-fsync   rewrites 4 KiB of DIR/waits.dat and fdatasync()s it, over
 *             and over (sync_work): disk I/O;
 *   w-lock    takes a mutex that w-holder holds 10 ms out of every 12
 *             (lock_work): lock;
 *   w-holder  holds that mutex across a 10 ms nanosleep (hold_work):
 *             sleep;
 *   w-sleep   nanosleep(5 ms) in a loop (sleep_work): sleep;
 *   w-recv    recv() on a TCP loopback connection that w-feed writes a
 *             byte to every 10 ms (recv_work): network;
 *   w-feed    the writer: nanosleep(10 ms), send (feed_work): sleep;
 *   w-epoll   epoll_wait() with a 20 ms timeout on an eventfd nobody
 *             writes (epoll_work): poll.
 * Each thread measures its wall-clock time from its start to the end,
 * its own time on a CPU, and the wall-clock and CPU time spent inside its
 * blocking call; the time it was off the CPU inside that call is the
 * call's wall time minus its CPU time.  Its time on a CPU is the
 * kernel's task clock of the thread (a counting perf event, what the
 * scheduler saw it run), else, where perf_event_open fails, its CPU
 * clock (CLOCK_THREAD_CPUTIME_ID).  The two differ, most under a
 * hypervisor: the CPU clock leaves out the time stolen from a running
 * thread (the kernel's steal time accounting) and ends a slice at the
 * scheduler's bookkeeping, the task clock counts what perf counts, as
 * a profiler of this machine sees the thread run.  After SECONDS every thread
 * stops and REPORT gets one line per thread:
 *     NAME REASON BLOCKED CPU BLOCKED-CPUCLOCK CLOCK
 * BLOCKED: the share of the thread's wall-clock time it spent off the CPU
 * inside its blocking call (w-spin: the time it was not on a CPU at all,
 * REASON cpu-wait); CPU: the share it spent on a CPU; BLOCKED-CPUCLOCK:
 * BLOCKED by the CPU clock; CLOCK: "task-clock" or "cpu-clock", the
 * clock of BLOCKED and CPU in that thread.  Shares are fractions with 4
 * decimals.  With CPU, w-spin is bound to that CPU (the other threads
 * run where they may), so that hogs bound to the same CPU make it wait
 * for one however many CPUs the machine has.
 * Exits 0, or 1 with one line when a call fails.
 */
#include "common.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define NTHREADS 8

struct acct {
    const char *name;    /* the thread's name */
    const char *reason;  /* what its blocking call waits for */
    double wall0, cpu0, ccpu0; /* at its start */
    double wall, cpu, ccpu;    /* its totals at the end */
    double in_wall;      /* wall-clock time inside the blocking call */
    double in_cpu;       /* time on a CPU inside it (task clock) */
    double in_ccpu;      /* the same by the CPU clock */
    const char *clock;   /* "task-clock", or "cpu-clock" where it had none */
};

static double deadline;
static const char *dir;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int sock_rx = -1, sock_tx = -1, ev_fd = -1;
static struct acct accts[NTHREADS];

/* The thread's CPU clock, in seconds. */
static double thread_cpu_clock(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static _Thread_local int task_clock_fd = -1;

/* Opens the calling thread's task clock (a counting perf event of this
 * thread only); where it cannot, thread_cpu is the CPU clock. */
static void task_clock_open(void)
{
    struct perf_event_attr pa = { .type = PERF_TYPE_SOFTWARE,
                                  .size = sizeof pa,
                                  .config = PERF_COUNT_SW_TASK_CLOCK };

    task_clock_fd = (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1,
                                 PERF_FLAG_FD_CLOEXEC);
}

/* The calling thread's time on a CPU, in seconds: its task clock, else
 * its CPU clock. */
static double thread_cpu(void)
{
    uint64_t ns;

    if (task_clock_fd >= 0 && read(task_clock_fd, &ns, sizeof ns) == (ssize_t)sizeof ns)
        return (double)ns / 1e9;
    return thread_cpu_clock();
}

static void die(const char *what)
{
    fprintf(stderr, "waits: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* The time since the last mark goes to the call (in = 1) or not. */
struct meter {
    struct acct *a;
    double w, c, cc;
};

/* The call's window is from the wall clock read just before it to the
 * one read just after it: the CPU clock is a system call, at whose
 * return a thread can be preempted, and that wait for a CPU is no part
 * of the call, so it is read outside the window. */
static void meter_skip(struct meter *m)
{
    m->c = thread_cpu();
    m->cc = thread_cpu_clock();
    m->w = target_now();
}

static void meter_start(struct meter *m, struct acct *a)
{
    m->a = a;
    meter_skip(m);
}

static void meter_call(struct meter *m)
{
    double w = target_now(), cc = thread_cpu_clock(), c = thread_cpu();

    m->a->in_wall += w - m->w;
    m->a->in_cpu += c - m->c;
    m->a->in_ccpu += cc - m->cc;
}

SP_FRAME void spin_work(struct acct *a)
{
    uint64_t x = 1;

    (void)a;
    while (!target_expired(deadline))
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL, 20000);
}

SP_FRAME void sync_work(struct acct *a)
{
    char path[4096], buf[4096];
    struct meter m;
    int fd;

    snprintf(path, sizeof path, "%s/waits.dat", dir);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        die(path);
    memset(buf, 'w', sizeof buf);
    meter_start(&m, a);
    for (unsigned i = 0; !target_expired(deadline); i++) {
        buf[0] = (char)i;
        if (pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf)
            die("pwrite");
        meter_skip(&m);
        if (fdatasync(fd) != 0)
            die("fdatasync");
        meter_call(&m);
    }
    close(fd);
    unlink(path);
}

SP_FRAME void lock_work(struct acct *a)
{
    struct meter m;
    uint64_t x = 3;

    meter_start(&m, a);
    while (!target_expired(deadline)) {
        meter_skip(&m);
        pthread_mutex_lock(&mtx);
        meter_call(&m);
        pthread_mutex_unlock(&mtx);
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 20000);
    }
}

SP_FRAME void hold_work(struct acct *a)
{
    struct meter m;

    meter_start(&m, a);
    while (!target_expired(deadline)) {
        pthread_mutex_lock(&mtx);
        meter_skip(&m);
        target_nap(0.010);
        meter_call(&m);
        pthread_mutex_unlock(&mtx);
        meter_skip(&m);
        target_nap(0.002);
        meter_call(&m);
    }
}

SP_FRAME void sleep_work(struct acct *a)
{
    struct meter m;

    meter_start(&m, a);
    while (!target_expired(deadline)) {
        meter_skip(&m);
        target_nap(0.005);
        meter_call(&m);
    }
}

SP_FRAME void recv_work(struct acct *a)
{
    struct meter m;
    char c;

    meter_start(&m, a);
    while (!target_expired(deadline)) {
        meter_skip(&m);
        ssize_t n = recv(sock_rx, &c, 1, 0);
        meter_call(&m);
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR)
            die("recv");
    }
}

SP_FRAME void feed_work(struct acct *a)
{
    struct meter m;

    meter_start(&m, a);
    while (!target_expired(deadline)) {
        meter_skip(&m);
        target_nap(0.010);
        meter_call(&m);
        if (send(sock_tx, "x", 1, MSG_NOSIGNAL) != 1)
            die("send");
    }
    /* one more byte, so the reader's last recv returns at once */
    (void)send(sock_tx, "x", 1, MSG_NOSIGNAL);
}

SP_FRAME void epoll_work(struct acct *a)
{
    struct epoll_event ev = { .events = EPOLLIN }, out;
    struct meter m;
    int ep = epoll_create1(EPOLL_CLOEXEC);

    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ev_fd, &ev) != 0)
        die("epoll");
    meter_start(&m, a);
    while (!target_expired(deadline)) {
        meter_skip(&m);
        int n = epoll_wait(ep, &out, 1, 20);
        meter_call(&m);
        if (n < 0 && errno != EINTR)
            die("epoll_wait");
    }
    close(ep);
}

static void (*const work[NTHREADS])(struct acct *) = {
    spin_work, sync_work, lock_work, hold_work, sleep_work, recv_work,
    feed_work, epoll_work,
};
static const char *const names[NTHREADS][2] = {
    { "w-spin", "cpu-wait" }, { "w-fsync", "disk" }, { "w-lock", "lock" },
    { "w-holder", "sleep" }, { "w-sleep", "sleep" }, { "w-recv", "network" },
    { "w-feed", "sleep" }, { "w-epoll", "poll" },
};

static int spin_cpu = -1;   /* w-spin's CPU (argv[4]), -1: any */

static void *run(void *arg)
{
    struct acct *a = arg;
    int i = (int)(a - accts);

    pthread_setname_np(pthread_self(), a->name);
    if (i == 0 && spin_cpu >= 0) { /* w-spin, bound before it counts */
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(spin_cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            die("sched_setaffinity");
    }
    task_clock_open();
    a->clock = task_clock_fd >= 0 ? "task-clock" : "cpu-clock";
    a->wall0 = target_now();
    a->cpu0 = thread_cpu();
    a->ccpu0 = thread_cpu_clock();
    work[i](a);
    a->wall = target_now() - a->wall0;
    a->cpu = thread_cpu() - a->cpu0;
    a->ccpu = thread_cpu_clock() - a->ccpu0;
    if (task_clock_fd >= 0)
        close(task_clock_fd);
    return NULL;
}

/* A TCP connection over loopback: sock_tx writes, sock_rx reads. */
static void connect_loopback(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sa;
    int one = 1;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(l, 1) != 0 || getsockname(l, (struct sockaddr *)&sa, &len) != 0)
        die("listen on loopback");
    sock_tx = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock_tx < 0 || connect(sock_tx, (struct sockaddr *)&sa, sizeof sa) != 0)
        die("connect on loopback");
    sock_rx = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    if (sock_rx < 0)
        die("accept");
    setsockopt(sock_tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    close(l);
}

int main(int argc, char **argv)
{
    pthread_t t[NTHREADS];
    FILE *f;

    target_usage(argc, 4, 5, "waits SECONDS DIR REPORT [CPU]");
    deadline = target_deadline(target_parse_seconds("waits", argv[1]));
    if (deadline == 0) {
        fprintf(stderr, "waits: give a duration above 0\n");
        return 2;
    }
    dir = argv[2];
    if (argc == 5) {
        char *end;
        long cpu = strtol(argv[4], &end, 10);

        if (*argv[4] == '\0' || *end || cpu < 0 || cpu >= CPU_SETSIZE) {
            fprintf(stderr, "waits: CPU must be a CPU number, not '%s'\n", argv[4]);
            return 2;
        }
        spin_cpu = (int)cpu;
    }
    connect_loopback();
    if ((ev_fd = eventfd(0, EFD_CLOEXEC)) < 0)
        die("eventfd");
    for (int i = 0; i < NTHREADS; i++) {
        accts[i].name = names[i][0];
        accts[i].reason = names[i][1];
        t[i] = target_start("waits", run, &accts[i]);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    if (!(f = fopen(argv[3], "w")))
        die(argv[3]);
    for (int i = 0; i < NTHREADS; i++) {
        const struct acct *a = &accts[i];
        double off = i == 0 ? a->wall - a->cpu : a->in_wall - a->in_cpu;
        double coff = i == 0 ? a->wall - a->ccpu : a->in_wall - a->in_ccpu;

        fprintf(f, "%s %s %.4f %.4f %.4f %s\n", a->name, a->reason,
                a->wall > 0 ? off / a->wall : 0, a->wall > 0 ? a->cpu / a->wall : 0,
                a->wall > 0 ? coff / a->wall : 0,
                a->clock);
    }
    return fclose(f) == 0 ? 0 : 1;
}
