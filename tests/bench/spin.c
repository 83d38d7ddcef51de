/* spin.c - benchmark target: N threads doing fixed units of work 28 frames
 * deep, each counting its units in a shared progress slot.
 *
 *   usage: spin PROGRESS_FILE [BUSY_THREADS [BLOCKED_THREADS]]
 *
 * Busy threads run main-like chains level1..level27 -> hot (about 50 us of
 * dependent arithmetic per unit).  Blocked threads sleep in a futex wait
 * (pthread_cond_wait) forever, for the idle-thread benchmark.
 *
 * Built with -DSPIN_READ (spin_sys), hot is a read() of 64 KiB of
 * /dev/zero instead: most of a unit is the kernel's, and every sample
 * has a kernel call chain (the kernel-frames benchmark).
 */
#include "progress.h"

#include <pthread.h>
#include <string.h>

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

static void *busy(void *arg)
{
    struct progress_slot *s = arg;
    uint64_t x = (uint64_t)(uintptr_t)arg;
    for (;;) {
        x = level1(x);
        s->count++;
    }
    return NULL;
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
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: spin PROGRESS_FILE [BUSY [BLOCKED]]\n");
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
    if (nbusy < 1 || nbusy > PROGRESS_SLOTS || nblocked < 0 || nblocked > 1000) {
        fprintf(stderr, "spin: bad thread counts\n");
        return 2;
    }
    pthread_t t;
    for (int i = 0; i < nblocked; i++)
        pthread_create(&t, NULL, blocked, NULL);
    for (int i = 1; i < nbusy; i++)
        pthread_create(&t, NULL, busy, &slots[i]);
    busy(&slots[0]);
    return 0;
}
