/* clock.h - the one clock helper: nanoseconds as uint64_t.
 *
 * Monotonic time for intervals and deadlines, wall time for stamps in
 * saved profiles, and the calling thread's (or process's) CPU time for
 * the tracer's own cost.  Any thread.  libc only.
 */
#ifndef SPROFTOP_CLOCK_H
#define SPROFTOP_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC, in ns. */
uint64_t clock_mono_ns(void);

/* CLOCK_REALTIME (ns since the epoch). */
uint64_t clock_wall_ns(void);

/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID). */
uint64_t clock_thread_cpu_ns(void);

/* CPU time of the whole process, all threads (CLOCK_PROCESS_CPUTIME_ID). */
uint64_t clock_process_cpu_ns(void);

/* CPU time of another process, all its threads (clock_getcpuclockid);
 * 0 when it is gone. */
uint64_t clock_pid_cpu_ns(int pid);

#endif
