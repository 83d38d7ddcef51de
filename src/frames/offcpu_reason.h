/* offcpu_reason.h - why a thread left its CPU, from its kernel stack.
 *
 * A thread that leaves its CPU while still runnable was preempted: it
 * waits for a CPU (perf's PERF_RECORD_MISC_SWITCH_OUT_PREEMPT says so).
 * Otherwise it blocked, and the kernel function that called into the
 * scheduler names what it waits for: io_schedule is disk I/O,
 * futex_do_wait a lock, sk_wait_data the network, ep_poll an event loop,
 * do_nanosleep a sleep (docs/ARCHITECTURE.md, "Why a thread waits", has
 * the measurements).  The classifier walks the kernel stack from the
 * scheduler down: generic scheduling helpers (schedule,
 * schedule_timeout, wait_woken...) say nothing and are passed; the first
 * function that names a reason decides; the first other function makes
 * it "other", named after that function.
 *
 * Also the one rule of -a for the idle task: its samples are interrupt
 * work when an interrupt entry is on the stack, and the idle loop (not
 * shown) otherwise.
 *
 * Pure (libc); the collector's fold calls it on the names of the kernel
 * frames it symbolized, the perf sampler on the names
 * /proc/PID/task/TID/stack gives for a thread blocked since before the
 * attach.  No state: any thread.
 */
#ifndef SPROFTOP_OFFCPU_REASON_H
#define SPROFTOP_OFFCPU_REASON_H

#include <stdbool.h>
#include <stddef.h>

enum offcpu_reason {
    OFFCPU_NONE = 0,  /* says nothing: look further down the stack */
    OFFCPU_CPU,       /* waiting for a CPU (preempted) */
    OFFCPU_DISK,      /* disk I/O: the block layer, a page-cache wait */
    OFFCPU_LOCK,      /* a lock: futex, a kernel mutex or rwsem */
    OFFCPU_NET,       /* network or socket */
    OFFCPU_POLL,      /* poll, epoll, select: an idle event loop */
    OFFCPU_SLEEP,     /* nanosleep and timers */
    OFFCPU_FAULT,     /* a page fault */
    OFFCPU_OTHER,     /* another function (named) */
    OFFCPU_UNKNOWN,   /* no kernel stack to tell */
    OFFCPU_GVL,       /* the interpreter's lock (Ruby's GVL), as its
                         frames tell: not from a kernel function */
    OFFCPU_NREASONS
};

/* What kernel function `func` says about a blocked thread: OFFCPU_NONE
 * for a generic scheduling helper, OFFCPU_OTHER for a function of no
 * known reason, else its reason.  NULL or "" is OFFCPU_NONE. */
enum offcpu_reason offcpu_reason_of(const char *func);

/* The reason of a kernel stack whose functions' own reasons
 * (offcpu_reason_of) are r[0..n), r[0] the innermost function (the
 * scheduler's side): OFFCPU_CPU when preempted, else the first that is
 * not OFFCPU_NONE (*which set to its index; for OFFCPU_OTHER the
 * function to name), OFFCPU_UNKNOWN when there is none.  The fold keeps
 * each address's reason, so a stack is picked without a string. */
enum offcpu_reason offcpu_pick(const unsigned char *r, size_t n,
                               bool preempted, size_t *which);

/* offcpu_pick over names (innermost first).  Names may carry perf's or
 * /proc's "+0x1a/0x40" suffix. */
enum offcpu_reason offcpu_classify(const char *const *names, size_t n,
                                   bool preempted, size_t *which);

/* The reason's label: "disk I/O", "waiting for a CPU"... */
const char *offcpu_reason_label(enum offcpu_reason r);

/* The reason frame's name, "[off-CPU: disk I/O]", or for OFFCPU_OTHER
 * "[off-CPU: other: FUNC]" (func without its "+0x.." suffix), into buf
 * (n bytes); returns buf. */
const char *offcpu_reason_frame(enum offcpu_reason r, const char *func,
                                char *buf, size_t n);

/* -a, the idle task: whether kernel function func enters interrupt or
 * softirq work.  A sample of the idle task is interrupt work when such a
 * function is on its stack, and the idle loop otherwise. */
bool offcpu_irq_entry(const char *func);

#endif
