/* target.h - facts about a target process read from /proc, and the
 * one-line explanations of why it cannot be profiled.
 *
 * Used by the sampler before and after PTRACE_SEIZE, and by main for
 * messages.  Reads /proc only; makes no ptrace call.
 */
#ifndef SPROFTOP_TARGET_H
#define SPROFTOP_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Check that pid can be attached to: it exists, is not a kernel thread,
 * not sproftop itself, not a zombie, not already traced.  Returns 0, or -1
 * with a one-line reason (and the fix) in err. */
int target_precheck(pid_t pid, char *err, size_t errlen);

/* Explain a failed PTRACE_SEIZE of pid with errno e: already traced by
 * whom, missing privilege (uid, CAP_SYS_PTRACE, Yama ptrace_scope,
 * containers), or the process being gone. */
void target_explain_seize(pid_t pid, int e, char *err, size_t errlen);

/* Thread state letter (field 3 of /proc/PID/task/TID/stat) from an open
 * stat fd (re-read with pread), plus the CPU it last ran on (field 39).
 * Returns the letter, or 0 when the thread is gone. */
char target_stat_state(int stat_fd, int *cpu);

/* The process's virtual memory size in bytes (field 23 of
 * /proc/PID/stat, or of any of its threads' stat) from an open stat fd
 * (re-read with pread).  Every mmap or munmap that maps more or less
 * changes it, so it tells cheaply whether a maps snapshot may be stale.
 * 0, or -1 when gone. */
int target_stat_vsize(int stat_fd, uint64_t *vsize);

/* Time the thread has spent on a CPU (ns), field 1 of an open
 * /proc/PID/task/TID/schedstat fd (re-read with pread).  0, or -1. */
int target_runtime(int sched_fd, uint64_t *ns);

/* Read a thread's name (/proc/PID/task/TID/comm) into buf; "" if gone. */
void target_thread_name(pid_t pid, pid_t tid, char *buf, size_t len);

/* Read the command line of pid (NULs turned into spaces) into buf. */
void target_cmdline(pid_t pid, char *buf, size_t len);

/* The PID of pid in its own PID namespace (the last field of NSpid in
 * /proc/PID/status): a JIT in a container names its perf map after it.
 * pid itself when unknown. */
pid_t target_ns_pid(pid_t pid);

/* Signals pending for the thread and not blocked by it (SigPnd | ShdPnd)
 * & ~SigBlk from /proc/PID/task/TID/status; 0 when none or unreadable. */
uint64_t target_unblocked_pending(pid_t pid, pid_t tid);

/* For a blocked thread: the user SP and PC of its syscall (or fault) from
 * /proc/PID/task/TID/syscall.  Returns 0, or -1 ("running" or gone). */
int target_syscall_sp_pc(int syscall_fd, uint64_t *sp, uint64_t *pc);

#endif
