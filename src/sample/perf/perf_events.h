/* perf_events.h - opening sproftop's perf_event events, and saying why
 * the kernel refuses them.
 *
 * Layout (chosen and measured in docs/ARCHITECTURE.md, "The perf
 * backend"): one ring buffer per CPU, owned by a dummy event on sproftop
 * itself; for every thread of the target that exists at attach, one
 * event per CPU with inherit (threads it creates later get copies of it,
 * inherit_thread keeps forked processes out) whose output is routed into
 * that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT).  An event opened on a
 * thread with cpu == -1 and inherit cannot be mmapped (kernel
 * perf_mmap), and one ring per thread would not survive 1,000 thread
 * creations a second.
 *
 * With -a (every process) there is no thread to open events on: one
 * event per CPU and kind with pid -1, the clock one owning its CPU's ring
 * (no dummy owner), the switch one routed into it.
 *
 * Two kinds of event:
 *   - PERF_EV_CLOCK: software cpu-clock, one sample every period of CPU
 *     time, user registers and stack; it also carries the side-band
 *     records (MMAP2, COMM, FORK/EXIT).  Kernel-mode samples are kept
 *     where allowed (root, CAP_PERFMON or perf_event_paranoid <= 1): their
 *     user registers are those of the system call being run;
 *   - PERF_EV_SWITCH (--idle): software context-switches, every one
 *     sampled (period 1) as the thread leaves its CPU, plus
 *     PERF_RECORD_SWITCH records whose switch-ins end each off-CPU
 *     stretch (and whose switch-outs say whether it was preempted).  The
 *     switch happens in the kernel, so this needs kernel samples
 *     (exclude_kernel = 0).
 * Kernel-mode samples carry the kernel's call chain (PERF_SAMPLE_CALLCHAIN
 * with exclude_callchain_user: sproftop unwinds the user part itself):
 * the context-switch samples always (the functions that called the
 * scheduler name the wait), the cpu-clock ones with kernel_frames.
 *
 * Called from the perf sampler thread, and from sampler.c to probe.
 */
#ifndef SPROFTOP_PERF_EVENTS_H
#define SPROFTOP_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"

enum perf_ev_kind {
    PERF_EV_CLOCK = 0,
    PERF_EV_SWITCH,
};

struct perf_events_opts {
    uint64_t period_ns;   /* cpu-clock period */
    uint32_t stack_bytes; /* user stack copied per sample (multiple of 8) */
    bool kernel;          /* keep kernel-mode samples (exclude_kernel 0) */
    bool kernel_frames;   /* with kernel: the kernel's call chain on the
                             cpu-clock samples */
    bool switch_chain;    /* with kernel: ...and on the context-switch
                             samples (it names the wait) */
    bool enable_on_exec;  /* a launched command: start at its exec */
    bool children;        /* inherited by forked processes too (else
                             inherit_thread keeps them out) */
};

/* The CPUs events go on (/sys/devices/system/cpu/online).  Writes up to
 * max CPU numbers to cpus and returns how many (at least 1). */
int perf_events_cpus(int *cpus, int max);

/* Open the owner of CPU cpu's ring buffer: a dummy software event on the
 * calling process, which never samples and outlives every target
 * thread.  wakeup_bytes: wake a poller when this much is waiting.
 * Returns the fd, or -1 with errno. */
int perf_events_open_owner(int cpu, uint32_t wakeup_bytes);

/* Open an event of `kind` on thread tid and CPU cpu, inherited by the
 * threads it creates, its records going into the ring of owner_fd.
 * Sets *id (the id samples carry).  Returns the fd, or -1 with errno
 * (ESRCH: the thread is gone). */
int perf_events_open(const struct perf_events_opts *o, enum perf_ev_kind kind,
                     pid_t tid, int cpu, int owner_fd, uint64_t *id);

/* Open an event of `kind` on every process running on CPU cpu (pid -1:
 * needs root, CAP_PERFMON or perf_event_paranoid <= 0).  owner_fd < 0:
 * it owns a ring (mmap it) that wakes a poller at wakeup_bytes; else its
 * records go into owner_fd's ring.  Sets *id.  The fd, or -1 with errno. */
int perf_events_open_cpu(const struct perf_events_opts *o, enum perf_ev_kind kind,
                         int cpu, int owner_fd, uint32_t wakeup_bytes, uint64_t *id);

/* What sampling every process (-a) takes: said by --help (the backend's
 * all_needs) and by the refusal (perf_events_all_allowed). */
#define PERF_ALL_NEEDS "root, CAP_PERFMON or perf_event_paranoid <= 0"

/* Whether this process may open CPU-wide events on every process: root,
 * CAP_PERFMON (or CAP_SYS_ADMIN), or perf_event_paranoid <= 0.  0, or
 * -1 with the refusal (what is missing, and the fix) in err. */
int perf_events_all_allowed(char *err, size_t errlen);

/* Can pid (0: a process of our own, e.g. one we launch) be sampled with
 * perf_event, with --idle's context-switch samples when idle?  Returns 0
 * and sets *kernel (kernel-mode samples allowed), or -1 and fills *why. */
int perf_events_probe(pid_t pid, bool idle, bool *kernel,
                      struct sampler_refusal *why);

/* Why kernel-mode samples (and so kernel frames) are refused to this
 * user, with the fix, in one line into buf (n bytes):
 * "kernel frames off: perf_event_paranoid=2 (user mode only); sysctl
 * kernel.perf_event_paranoid=1 or run as root". */
void perf_events_kernel_refusal(char *buf, size_t n);

/* Fill *why for perf_event_open, or a ring's mmap, failing with errno e on
 * pid (for example EMFILE: more threads than the fd limit allows).
 * kernel_only: only kernel samples were refused (--idle needs them). */
void perf_events_explain(int e, pid_t pid, bool kernel_only,
                         struct sampler_refusal *why);

#endif
