/* target.h - facts about a target process read from /proc, the one-line
 * explanations of why it cannot be profiled, and launching a command.
 *
 * Used by the samplers before and after they attach, and by main for
 * messages.  Reads /proc (and forks, to launch); makes no ptrace call.
 */
#ifndef SPROFTOP_TARGET_H
#define SPROFTOP_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Check that pid can be profiled: it exists, is not a kernel thread, not
 * sproftop itself, not a zombie.  Returns 0, or -1 with a one-line reason
 * (and the fix) in err.  Enough for perf_event, which can sample a
 * process another tracer is attached to. */
int target_check(pid_t pid, char *err, size_t errlen);

/* The processes whose command name (/proc/PID/comm) matches `name` as
 * pgrep matches it: an extended regular expression, found anywhere in
 * the name (anchor it, ^nginx$, for the exact name).  Kernel threads,
 * zombies and sproftop itself are left out.  The first `max` PIDs,
 * ascending, into pids.  Returns how many match, or -1 with a one-line
 * reason in err (a bad expression, /proc unreadable). */
int target_find_by_name(const char *name, pid_t *pids, size_t max,
                        char *err, size_t errlen);

/* target_check, and not already traced (ptrace can have one tracer). */
int target_precheck(pid_t pid, char *err, size_t errlen);

/* Explain a failed PTRACE_SEIZE of pid with errno e: already traced by
 * whom, missing privilege (uid, CAP_SYS_PTRACE, Yama ptrace_scope,
 * containers), or the process being gone. */
void target_explain_seize(pid_t pid, int e, char *err, size_t errlen);

/* Thread state letter (field 3 of /proc/PID/task/TID/stat) from an open
 * stat fd (re-read with pread), plus the CPU it last ran on (field 39).
 * Returns the letter, or 0 when the thread is gone. */
char target_stat_state(int stat_fd, int *cpu);

/* Whether pid is a kernel thread (PF_KTHREAD in /proc/PID/stat); false
 * when it is gone. */
bool target_is_kthread(pid_t pid);

/* The process's virtual memory size in bytes (field 23 of
 * /proc/PID/stat, or of any of its threads' stat) from an open stat fd
 * (re-read with pread).  Every mmap or munmap that maps more or less
 * changes it, so it tells cheaply whether a maps snapshot may be stale.
 * 0, or -1 when gone. */
int target_stat_vsize(int stat_fd, uint64_t *vsize);

/* State letter (field 3) and CPU time so far in ns (utime + stime,
 * fields 14 and 15) from an open /proc/PID[/task/TID]/stat fd (re-read
 * with pread): a thread's, or with the process's stat the whole
 * process's (its exited threads included).  0, or -1 when gone. */
int target_stat_times(int stat_fd, char *state, uint64_t *cpu_ns);

/* Time the thread has spent on a CPU (ns), field 1 of an open
 * /proc/PID/task/TID/schedstat fd (re-read with pread).  0, or -1. */
int target_runtime(int sched_fd, uint64_t *ns);

/* Call fn(ctx, tid) for every thread listed in /proc/PID/task, until fn
 * returns non-zero.  Returns 0, fn's non-zero value, or -1 with errno
 * (ESRCH: the process is gone) when the list cannot be read. */
int target_tasks(pid_t pid, int (*fn)(void *ctx, pid_t tid), void *ctx);

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

/* A command being launched: forked, and waiting before its exec until
 * target_spawn_go, so that a sampler can attach to it first. */
struct target_spawn {
    pid_t pid;
    int go_fd;   /* write end: a byte lets the child exec */
    int err_fd;  /* read end: the child's exec errno, or EOF at exec */
};

/* Fork argv: stdio to /dev/null when quiet, then stdout and stderr to
 * out_fd when it is >= 0.  Only async-signal-safe calls in the child (the
 * caller has other threads).  0, or -1 with the reason; every descriptor
 * is closed on every failure. */
int target_spawn(struct target_spawn *sp, char *const *argv, bool quiet,
                 int out_fd, char *err, size_t errlen);

/* Let the child exec and wait until it has: 0, or -1 with the reason in
 * err (the child is reaped).  cmd names the command in the message. */
int target_spawn_go(struct target_spawn *sp, const char *cmd, char *err,
                    size_t errlen);

/* Kill and reap a child that was never let go. */
void target_spawn_abort(struct target_spawn *sp);

/* For a blocked thread: the user SP and PC of its syscall (or fault) from
 * /proc/PID/task/TID/syscall.  Returns 0, or -1 ("running" or gone). */
int target_syscall_sp_pc(int syscall_fd, uint64_t *sp, uint64_t *pc);

#endif
