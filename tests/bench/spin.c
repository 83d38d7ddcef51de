/* spin.c - benchmark target: N threads doing fixed units of work 28 frames
 * deep, each counting its units in a shared progress slot.
 *
 *   usage: spin PROGRESS_FILE [BUSY_THREADS [BLOCKED_THREADS [UNITS]]]
 *
 * Busy threads run main-like chains level1..level27 -> hot (about 50 us of
 * dependent arithmetic per unit).  Blocked threads sleep in a futex wait
 * (pthread_cond_wait) forever, for the idle-thread benchmark.
 *
 * Built with -DSPIN_READ (spin_sys), hot is a read() of 64 KiB of
 * /dev/zero instead: most of a unit is the kernel's, and every sample
 * has a kernel call chain (the kernel-frames benchmark).
 *
 * With UNITS > 0 (fixed work, for the launch-mode benchmark) each busy
 * thread does UNITS units, then the program prints one line and exits:
 *   UNITS WALL_NS CPU_NS RUN_DELAY_NS PARENT_CPU_NS
 * all units done, the time from main's start to the last unit
 * (CLOCK_MONOTONIC), the process's CPU time (CLOCK_PROCESS_CPUTIME_ID),
 * its threads' time spent waiting for a CPU (schedstat's run delay), and
 * the CPU time its parent process (a profiler that launched it: every
 * thread of it) used in between: what ran beside it, not before or after.
 */
#include "progress.h"

#include <dirent.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define NOINL __attribute__((noinline, noclone))

static struct progress_slot *slots;
static volatile uint64_t sink;

#ifdef SPIN_READ
static int zero_fd = -1;
static __thread unsigned char zbuf[65536];

NOINL static uint64_t hot(uint64_t x)
{
    if (read(zero_fd, zbuf, sizeof zbuf) != (ssize_t)sizeof zbuf)
        abort();
    sink = x + zbuf[x % sizeof zbuf];
    return x;
}
#else
NOINL static uint64_t hot(uint64_t x)
{
    for (int i = 0; i < 20000; i++)
        x = x * 2862933555777941757ULL + 3037000493ULL;
    sink = x;
    return x;
}
#endif

#define L(n, next) NOINL static uint64_t level##n(uint64_t x) { uint64_t r = next(x + n); sink += r; return r * 3 + n; }
L(27, hot) L(26, level27) L(25, level26) L(24, level25) L(23, level24)
L(22, level23) L(21, level22) L(20, level21) L(19, level20) L(18, level19)
L(17, level18) L(16, level17) L(15, level16) L(14, level15) L(13, level14)
L(12, level13) L(11, level12) L(10, level11) L(9, level10) L(8, level9)
L(7, level8) L(6, level7) L(5, level6) L(4, level5) L(3, level4)
L(2, level3) L(1, level2)

static uint64_t units; /* per busy thread; 0: forever */

static void *busy(void *arg)
{
    struct progress_slot *s = arg;
    uint64_t x = (uint64_t)(uintptr_t)arg;
    for (uint64_t n = 0; !units || n < units; n++) {
        x = level1(x);
        s->count++;
    }
    return NULL;
}

static uint64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A sum over the threads of process `pid` ("self" for us) of their
 * schedstat's field `field`: 0, time on a CPU; 1, time waiting for one. */
static uint64_t schedstat_sum(const char *pid, int field)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%s/task", pid);
    DIR *d = opendir(dir);
    uint64_t sum = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char f[400];
        unsigned long long v[2];
        if (e->d_name[0] == '.')
            continue;
        snprintf(f, sizeof f, "%s/%s/schedstat", dir, e->d_name);
        FILE *fp = fopen(f, "r");
        if (fp && fscanf(fp, "%llu %llu", &v[0], &v[1]) == 2)
            sum += v[field];
        if (fp)
            fclose(fp);
    }
    if (d)
        closedir(d);
    return sum;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *blocked(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;)
        pthread_cond_wait(&cv, &mu);
    return NULL;
}

int main(int argc, char **argv)
{
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
    char parent[24];
    snprintf(parent, sizeof parent, "%d", (int)getppid());
    uint64_t parent0 = argc > 4 ? schedstat_sum(parent, 0) : 0;
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: spin PROGRESS_FILE [BUSY [BLOCKED [UNITS]]]\n");
        return 2;
    }
    slots = progress_map(argv[1]);
#ifdef SPIN_READ
    if ((zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)) < 0) {
        perror("/dev/zero");
        return 2;
    }
#endif
    memset((void *)slots, 0, sizeof *slots * PROGRESS_SLOTS);
    int nbusy = argc > 2 ? atoi(argv[2]) : 1;
    int nblocked = argc > 3 ? atoi(argv[3]) : 0;
    units = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
    if (nbusy < 1 || nbusy > PROGRESS_SLOTS || nblocked < 0 || nblocked > 1000) {
        fprintf(stderr, "spin: bad thread counts\n");
        return 2;
    }
    pthread_t t, workers[PROGRESS_SLOTS];
    for (int i = 0; i < nblocked; i++)
        pthread_create(&t, NULL, blocked, NULL);
    for (int i = 1; i < nbusy; i++)
        pthread_create(&workers[i], NULL, busy, &slots[i]);
    busy(&slots[0]);
    if (!units)
        return 0;
    for (int i = 1; i < nbusy; i++)
        pthread_join(workers[i], NULL);
    uint64_t wall = clock_ns(CLOCK_MONOTONIC) - t0;
    uint64_t parent1 = schedstat_sum(parent, 0);
    printf("%llu %llu %llu %llu %llu\n", (unsigned long long)units * (unsigned)nbusy,
           (unsigned long long)wall,
           (unsigned long long)clock_ns(CLOCK_PROCESS_CPUTIME_ID),
           (unsigned long long)schedstat_sum("self", 1),
           (unsigned long long)(parent1 > parent0 ? parent1 - parent0 : 0));
    return 0;
}
