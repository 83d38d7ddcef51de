/* clock.c - see clock.h. */
#include "clock.h"

#include <time.h>

static uint64_t now(clockid_t id)
{
    struct timespec ts;

    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t clock_mono_ns(void) { return now(CLOCK_MONOTONIC); }
uint64_t clock_wall_ns(void) { return now(CLOCK_REALTIME); }
uint64_t clock_thread_cpu_ns(void) { return now(CLOCK_THREAD_CPUTIME_ID); }
uint64_t clock_process_cpu_ns(void) { return now(CLOCK_PROCESS_CPUTIME_ID); }

uint64_t clock_pid_cpu_ns(int pid)
{
    clockid_t id;

    if (clock_getcpuclockid(pid, &id) != 0)
        return 0;
    return now(id);
}
