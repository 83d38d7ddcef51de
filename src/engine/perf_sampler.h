/* perf_sampler.h - the perf_event backend of the sampling interface.
 *
 * The kernel takes the samples: a software cpu-clock event on every
 * thread of the target copies the thread's user registers and the top of
 * its user stack into a per-CPU ring buffer from the timer interrupt.
 * One sampler (one thread, one ring per CPU) serves every process of the
 * session: a list of PIDs (cfg.pids), the children they fork
 * (cfg.children: the events are inherited by forked processes, and a
 * FORK record adds the child to the sampler's process table), or every
 * process (cfg.all: one event per CPU with pid -1; a process joins the
 * table at its first record).  Each process has its own maps and
 * unwinder, and is announced through cfg.on_process before its first
 * record; records carry its pid.
 * The target never stops and is never traced (TracerPid stays 0), no
 * blocked thread is touched, and signals reach it untouched.  The sampler
 * thread drains the rings, unwinds each copy with the unwinder (unwind.h,
 * live reads off) and pushes raw stacks to the ingest buffer, like the
 * ptrace backend.
 *
 * The rings also carry what the ptrace backend polls /proc for: FORK and
 * EXIT records (threads), COMM (names, renames, exec) and MMAP2
 * (exec, dlopen: /proc/PID/maps is read again when one names a mapping
 * the current maps do not hold).
 *
 * --idle samples every switch of a target thread off its CPU (the stack
 * it blocks or is preempted in), and weights that stack by how long the
 * thread stays off the CPU (up to its PERF_RECORD_SWITCH back in), in
 * units of the sampling interval, so on-CPU and off-CPU time add up to
 * wall-clock time.  Threads already blocked at attach (or at a resume)
 * never switch out while we watch: their stack is read once from
 * /proc/PID/task/TID/syscall (user SP and PC) and process_vm_readv.
 *
 * Where the kernel permits kernel-mode samples (root, CAP_PERFMON,
 * perf_event_paranoid <= 1), each sample also carries the kernel's call
 * chain, pushed above the user stack (ingest_rec.kernel), unless
 * cfg.kernel_frames is off; the --idle switch-outs always carry theirs,
 * and whether the thread was preempted (the switch-out record's
 * PERF_RECORD_MISC_SWITCH_OUT_PREEMPT): the collector names the reason
 * from them.  With `all`, samples of kernel threads and of interrupt
 * work on the idle task go to one pseudo process, PROFILE_KERNEL_PID
 * ("[kernel]"), with kernel frames only.
 *
 * Reached through sampler.h: sampler_start picks it.
 */
#ifndef SPROFTOP_PERF_SAMPLER_H
#define SPROFTOP_PERF_SAMPLER_H

#include "perf_events.h"
#include "sampler.h"

extern const struct sampler_backend perf_backend;

/* Whether perf_event may sample cfg's target (its pid, the first of its
 * pids, a command we launch, or with `all` a process of ours): 0, or -1
 * with why filled in.  Opens and closes one event. */
int perf_sampler_probe(const struct sampler_config *cfg,
                       struct perf_refusal *why);

/* Whether perf_event gives cfg's target (as perf_sampler_probe) kernel
 * call chains: true, or false with the one-line reason and fix in buf
 * (n bytes).  Opens and closes an event or two. */
bool perf_sampler_kernel_allowed(const struct sampler_config *cfg, char *buf,
                                 size_t n);

/* perf_backend.start, which also fills *why when perf_event was refused
 * (why->denied: a permission, a resource limit, a kernel feature, rather
 * than the target) so that `auto` can fall back to ptrace and say why.
 * Controlling thread. */
struct sampler *perf_sampler_start(const struct sampler_config *cfg,
                                   char *err, size_t errlen, int *code,
                                   struct perf_refusal *why);

#endif
