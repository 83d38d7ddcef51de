/* rates.c - two phases of known CPU time, each started on a cue, so that
 * a test can change the sampling rate between them (issue 19, item 2).
 *
 *   usage: rates CPU_A CPU_B DIR
 *
 * main waits, off the CPU, until DIR/start exists, then spins in
 * phase_a -> spin_a until its own thread has used CPU_A seconds of CPU
 * (CLOCK_THREAD_CPUTIME_ID), and writes the CPU time and the wall-clock
 * time it measured around the spin, "CPU_NS WALL_NS", to DIR/a (the wall
 * time is longer when the machine is busy and the thread waits for a
 * CPU).  It waits for DIR/go the same way, spins in
 * phase_b -> spin_b for CPU_B seconds of CPU, writes DIR/b, then sleeps
 * until it is killed (a profiler still attached can save).  A cue that
 * does not come within 120 s ends it with status 1.  Waiting is a 10 ms
 * nanosleep loop: off the CPU, so an on-CPU profile holds the two spins
 * and nothing else to speak of.  The spins read their CPU clock (a
 * system call) every 100,000 rounds, about 0.1 ms: rarely enough that
 * ptrace's stops, which land at system call returns, find the spin.
 */
#include "common.h"

#include <fcntl.h>

#define CUE_LIMIT_S 120.0

static uint64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

SP_FRAME void spin_a(uint64_t until)
{
    uint64_t x = 5;

    while (cpu_ns() < until)
        TARGET_SPIN(x, 6364136223846793005ULL, 1442695040888963407ULL,
                    100000);
}

SP_FRAME void spin_b(uint64_t until)
{
    uint64_t x = 7;

    while (cpu_ns() < until)
        TARGET_SPIN(x, 2862933555777941757ULL, 3037000493ULL, 100000);
}

struct took {
    uint64_t cpu_ns, wall_ns;
};

/* Spin in fn for `seconds` of this thread's CPU; what it took. */
static struct took phase(void (*fn)(uint64_t), double seconds)
{
    double w0 = target_now();
    uint64_t t0 = cpu_ns();

    fn(t0 + (uint64_t)(seconds * 1e9));
    return (struct took){ cpu_ns() - t0,
                          (uint64_t)((target_now() - w0) * 1e9) };
}

SP_FRAME struct took phase_a(double seconds)
{
    return phase(spin_a, seconds);
}

SP_FRAME struct took phase_b(double seconds)
{
    return phase(spin_b, seconds);
}

static void wait_cue(const char *dir, const char *name)
{
    char path[4096];
    double limit = target_now() + CUE_LIMIT_S;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    while (access(path, F_OK) != 0) {
        if (target_now() > limit) {
            fprintf(stderr, "rates: no %s within %.0f s\n", path, CUE_LIMIT_S);
            exit(1);
        }
        target_nap(0.010);
    }
}

/* DIR/NAME gets "CPU_NS WALL_NS\n", written whole before it appears (a
 * rename). */
static void report(const char *dir, const char *name, struct took t)
{
    char tmp[4096], path[4096];
    FILE *f;

    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(tmp, "w");
    if (!f ||
        fprintf(f, "%llu %llu\n", (unsigned long long)t.cpu_ns,
                (unsigned long long)t.wall_ns) < 0 ||
        fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "rates: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    target_usage(argc, 4, 4, "rates CPU_A CPU_B DIR");
    double a = target_parse_seconds("rates", argv[1]);
    double b = target_parse_seconds("rates", argv[2]);
    const char *dir = argv[3];

    wait_cue(dir, "start");
    report(dir, "a", phase_a(a));
    wait_cue(dir, "go");
    report(dir, "b", phase_b(b));
    for (;;)
        target_nap(1.0);
}
