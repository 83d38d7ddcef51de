/* ptrace_int.h - the ptrace backend of the sampling interface: what it
 * promises, and its inside, shared by its files.
 *
 * The sampler runs on its own thread, and that thread makes every ptrace
 * call: it seizes the target (PTRACE_SEIZE, never SIGSTOP), and at each
 * tick interrupts the due threads that are running, copies registers and
 * the top of the stack, resumes each thread at once, then unwinds the
 * copies and appends raw stacks (pcs) to the ingest buffer.
 *
 * The target is sacred:
 *   - default (on-CPU) mode never interrupts a thread that is blocked in
 *     the kernel, and a syscall that still returns EINTR because of our
 *     interrupt (a race of a few microseconds) is restarted;
 *   - signals that arrive during a stop are re-injected; group-stop
 *     (kill -STOP) is respected with PTRACE_LISTEN;
 *   - every wait is bounded; a thread slow to stop never delays others;
 *   - detaching is done by the kernel when the sampler thread exits, which
 *     releases even threads that are blocked, without interrupting them.
 *
 * It is reached only through its table, ptrace_backend (backend.h;
 * sampler.c's registry): what it can do is its caps there.
 *
 *   ptrace_sampler.c  the backend's ops, the sampler thread's loop, and
 *                     the figures it publishes
 *   ptrace_threads.c  the thread table: seize, drop, names, per-thread
 *                     figures
 *   ptrace_stop.c     one sample: registers, stack copy, resume; the maps;
 *                     unwinding the copies
 *   ptrace_events.c   wait events: our stops, signals, group-stops, exec,
 *                     exits
 *   ptrace_tick.c     which threads are due, and interrupting them
 *   ptrace_launch.c   attaching, or launching the command
 *   ptrace_dump.c     --dump's capture (sampler_dump), on its caller's
 *                     thread
 * Not an interface: only those files include it.  Functions are pt_ +
 * the file's subject.
 *
 * Threads and locks.  One thread makes every ptrace call and owns every
 * field below that is not marked otherwise: the sampler thread (or
 * --dump's caller), `owner`, which pt_assert_owner checks (assert: debug
 * builds).  The controlling thread (the interface's caller) only sets the
 * atomics and reads what `lock` guards: the attach handshake, `st` (the
 * published figures) and the list of per-thread figures.  Under `lock`
 * nothing is allocated or freed, and no syscall is made.
 */
#ifndef SPROFTOP_PTRACE_INT_H
#define SPROFTOP_PTRACE_INT_H

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "hist.h"
#include "script_frames.h"
#include "unwind.h"

#define PT_RESCAN_NS 20000000ull  /* look for new threads every 20 ms */
#define PT_MOD_CHECKS 32          /* modules whose identity one unwind
                                     batch remembers having checked */

enum pt_state {
    T_FREE = 0,      /* running free, seized */
    T_INTERRUPTED,   /* PTRACE_INTERRUPT sent, stop not seen yet */
    T_GROUPSTOP,     /* in group-stop, PTRACE_LISTEN'ed */
    T_DETACHED,      /* --dump: sampled once and detached */
};

/* A thread's figures for sampler_foreach_thread.  Appended to the list
 * when the thread is seized and kept after it is gone (until the sampler
 * is freed), so a reader may walk the list under `lock` while the owner
 * seizes and drops threads. */
struct pt_stat {
    struct pt_stat *next;                /* under lock */
    struct sampler_thread_stats pub;     /* under lock; alive_ns final
                                            once !alive */
    uint64_t born_ns;                    /* when seized */
    bool alive;                          /* under lock */
};

struct sthread {
    pid_t tid;
    int stat_fd;           /* /proc/PID/task/TID/stat, re-read by pread */
    int syscall_fd;        /* /proc/PID/task/TID/syscall (--idle), or -1 */
    int sched_fd;          /* /proc/PID/task/TID/schedstat (on-CPU), or -1 */
    uint64_t last_runtime; /* on-CPU ns at the previous tick */
    uint64_t t_ran;        /* when last_runtime was last seen to grow */
    enum pt_state state;
    bool seen;             /* found in the latest /proc rescan */
    bool was_blocked;      /* state S/D when interrupted */
    uint64_t next_due;     /* monotonic ns */
    uint64_t slot_ns;      /* the interval next_due was set with */
    uint64_t weight;       /* ns its sample at the last due stands for:
                              the slot it was due in */
    uint64_t t_interrupt;
    uint64_t born_ns;
    struct pt_stat *stat;  /* its figures, or NULL (OOM) */
    /* --idle: last stack, reused while the thread stays blocked */
    uint64_t *last_pcs;
    int last_n;
    uint32_t last_flags;
    uint64_t last_sp, last_pc; /* user SP/PC of the blocking syscall */
    bool have_last;
    uint64_t win_mark;     /* last rate window it was eligible in */
    uint64_t samples;      /* stacks pushed for it */
    uint64_t due;          /* ticks it was due and eligible */
    char name[32];         /* comm as last pushed */
};

/* A file-backed mapping found still in place (/proc/PID/map_files), and
 * when: copies taken before `at` need not check it again. */
struct mod_check {
    const struct map_entry *e;  /* in pt_sampler.maps; reset with them */
    uint64_t at;
};

/* A stack copied during a stop, waiting to be unwound. */
struct pt_copy {
    pid_t tid;
    uint64_t regs[UNWIND_NREGS];
    uint8_t *buf;          /* stack_max bytes */
    size_t len;
    uint64_t time;
    uint64_t weight;       /* ns the sample stands for (sthread.weight) */
    struct sthread *t;     /* NULL when the thread vanished since */
    uint64_t sc_sp, sc_pc; /* user SP/PC if the stop was in a syscall */
    bool in_syscall;
    bool was_sleeping;     /* our stop broke into a blocking syscall */
    struct script_stack py;/* its Python stack, walked during the stop */
};

/* What only this backend counts (--stats: its own lines). */
struct pt_stats {
    uint64_t stops_blocked;    /* of sampler_stats.stops: of threads that
                                  were seen blocked */
    uint64_t discarded;        /* on-CPU stops that found the thread asleep */
    uint64_t missed;           /* ticks skipped: thread not stopped yet */
    uint64_t given_up;         /* interrupts unanswered for 500 ms (a
                                  thread in D, or a trap swallowed) */
    uint64_t stale_maps;       /* stacks dropped, a library having been
                                  replaced at their addresses since the
                                  maps were read (named by neither it nor
                                  the old) */
    uint64_t stop_p99_ns;      /* stop seen -> resumed, p99 */
    uint64_t stop_max_ns;      /* ...and the longest */
    uint64_t latency_median_ns;/* interrupt -> stop seen, median */
};

struct pt_sampler {
    struct sampler base;   /* the interface; first, so a sampler * casts */
    struct sampler_config cfg;
    pid_t pid;             /* the target (the child, once launched) */
    pthread_t thread;      /* the sampler thread */
    pthread_t owner;       /* the thread making the ptrace calls */
    bool joined;           /* controlling thread: thread was joined */
    bool dump_mode;        /* --dump: detach at the stop instead of CONT */

    /* set by the controlling thread, read by the owner */
    atomic_bool stop;
    atomic_bool paused;
    atomic_uint_fast64_t interval_ns;

    pthread_mutex_t lock;  /* guards the fields marked "under lock" */
    pthread_cond_t cond;   /* attach handshake */
    struct sampler_attach attach; /* under lock */
    struct sampler_stats st;    /* under lock: what readers see */
    struct pt_stats pt_st;      /* under lock: ...of this backend's own */
    struct pt_stat *stats;      /* under lock: the threads seized, but
                                   for the exited ones beyond the newest
                                   SAMPLER_EXITED_LISTED */
    struct pt_stat **stats_tail;
    size_t stats_dead;          /* under lock: exited ones in the list */
    uint64_t gone_threads;      /* under lock: exited ones left out */
    uint64_t gone_samples;      /* under lock: ...and their samples */

    /* the owner's */
    struct sthread **threads;
    size_t nthreads, capthreads;
    pid_t *exited;         /* threads that exited (not the leader), to be
                              told to the collector once the copies of
                              their last stops are pushed */
    size_t nexited, capexited;
    struct maps *maps;
    uint64_t gen;          /* maps generation */
    int pstat_fd;          /* /proc/PID/stat (vsize), -1 until opened */
    uint64_t maps_vsize;   /* vsize just before `maps` were read, 0 if
                              unknown */
    bool old_image;        /* unwinding the copies an exec left: their
                              maps are the last ones, never re-read */
    bool map_files_denied; /* stat of /proc/PID/map_files refused (it
                              needs CAP_SYS_ADMIN): no identity checks */
    struct mod_check checked[PT_MOD_CHECKS]; /* of this batch */
    size_t nchecked;
    struct unwinder *unw;
    struct script_proc *script; /* the interpreter it runs, or NULL */
    struct pt_copy *copies;   /* taken since the last unwind */
    size_t ncopies, capcopies;
    uint64_t *pcs;         /* unwind output, max_depth */
    uint64_t t_start, t_rescan, t_maps, t_names, t_publish;
    uint64_t maps_fast_until; /* re-read maps every MAPS_FAST_NS until then */
    uint64_t maps_period;  /* current maps re-read period */
    uint64_t win_start, win_samples, win_id;
    uint32_t win_threads;  /* distinct threads eligible in the window */
    int leader_status;     /* wait status of the leader's exit */
    bool leader_exited;
    bool announced;        /* cfg.on_process told of the target */
    bool launch_pending;   /* launched child seized, exec not seen yet */
    int cpu_now;           /* CPU we pinned to, -1 if free */
    struct sampler_stats live;  /* the owner's figures; publish copies */
    struct pt_stats pt_live;    /* the owner's own figures; publish copies */
    struct hist stop_h, lat_h, unw_h;
};

static inline void pt_assert_owner(const struct pt_sampler *s)
{
    assert(pthread_equal(pthread_self(), s->owner));
    (void)s;
}

/* Every function below is called on the owner thread, except pt_new and
 * pt_free (see there) and pt_threads_foreach (any thread). */

/* ptrace_sampler.c: a sampler for cfg, not attached, owned by the calling
 * thread (the sampler thread takes it over when it starts); NULL on OOM.
 * pt_free: free it all, on any thread once the owner has ended (or is the
 * caller); seized threads are left to the kernel's detach. */
struct pt_sampler *pt_new(const struct sampler_config *cfg);
void pt_free(struct pt_sampler *s);

/* ptrace_threads.c: the thread table.  add: a thread just seized (NULL on
 * OOM); drop: forget a thread (gone, or no longer ours), closing its
 * files; rename: a new name, passed to the collector and the figures;
 * rescan: seize what /proc/PID/task lists and we have not, returning how
 * many (-1 and *first_errno when `first` and none could be); refresh:
 * the periodic rescan, drop of vanished threads and name re-read;
 * pending: threads interrupted whose stop has not come; publish: copy
 * per-thread counters to the readers' records; foreach: fn on every
 * record, without the lock held; free: drop all, free the records. */
struct sthread *pt_threads_find(struct pt_sampler *s, pid_t tid);
struct sthread *pt_threads_add(struct pt_sampler *s, pid_t tid);
void pt_threads_drop(struct pt_sampler *s, pid_t tid);
/* Thread tid (not the leader) exited: dropped, and told to the collector
 * (INGEST_THREAD_EXIT: its samples join its process's exited threads, so
 * a thread pool's churn does not grow the profile with every thread
 * ever seen) by pt_threads_tell_exited, which the sampler loop calls
 * after each pt_stop_unwind (the copies of its last stops pushed).  tell_exited: push what is due; what the full
 * buffer refuses waits for the next call.  Owner thread. */
void pt_threads_exited(struct pt_sampler *s, pid_t tid);
void pt_threads_tell_exited(struct pt_sampler *s);
void pt_threads_rename(struct pt_sampler *s, struct sthread *t,
                       const char *name);
int pt_threads_rescan(struct pt_sampler *s, bool first, int *first_errno);
void pt_threads_refresh(struct pt_sampler *s, uint64_t now);
size_t pt_threads_pending(const struct pt_sampler *s);
void pt_threads_publish(struct pt_sampler *s);
void pt_threads_foreach(struct pt_sampler *s,
                        void (*fn)(void *ctx,
                                   const struct sampler_thread_stats *t),
                        void *ctx);
void pt_threads_free(struct pt_sampler *s);

/* ptrace_stop.c: refresh_maps: re-read the maps, true when they changed
 * (new generation, told to the unwinder and cfg.on_maps); take: t is in
 * our interrupt stop, sample and resume it (seen at t_seen), reading its
 * Python stack before it runs on; push: one raw stack to the ingest
 * buffer (false when full), with py's frames spliced in
 * (script_frames.h; NULL: as it is), the words pushed in *words, *nwords
 * (when not NULL); unwind: unwind and push every copy taken so far, each with maps no older than it (or
 * dropped when a library was replaced under it since); unwind_old: the
 * same, at an exec, for the copies of the image that is gone (with its
 * maps, before they are replaced); free: the copies and the maps;
 * announce: tell cfg.on_process of the target, once, before its first
 * record or maps. */
void pt_stop_announce(struct pt_sampler *s);
bool pt_stop_refresh_maps(struct pt_sampler *s);
void pt_stop_take(struct pt_sampler *s, struct sthread *t, uint64_t t_seen);
bool pt_stop_push(struct pt_sampler *s, pid_t tid, struct sthread *t,
                  const uint64_t *pcs, int n, uint32_t flags, uint64_t time,
                  uint64_t weight, const struct script_stack *py,
                  const uint64_t **words, int *nwords);
void pt_stop_unwind(struct pt_sampler *s);
void pt_stop_unwind_old(struct pt_sampler *s);
void pt_stop_free(struct pt_sampler *s);

/* ptrace_events.c: drain: handle what waitpid reports without blocking,
 * returning how many, or -1 once the target is gone; wait: sleep until
 * deadline or a SIGCHLD; spin: busy-poll for pending stops, at most
 * spin_us; finish: wait (bounded) for the stops still pending at the
 * end. */
int pt_events_drain(struct pt_sampler *s);
void pt_events_wait(uint64_t deadline);
void pt_events_spin(struct pt_sampler *s, uint32_t spin_us);
void pt_events_finish(struct pt_sampler *s);

/* ptrace_tick.c: tick: interrupt every due thread, returning how many;
 * deadline: when the loop must next wake up. */
int pt_tick(struct pt_sampler *s, uint64_t now);
uint64_t pt_tick_deadline(const struct pt_sampler *s, uint64_t now);

/* ptrace_dump.c: the backend's dump op (sampler_dump's contract), on the
 * calling thread, which becomes the owner. */
int pt_dump(const struct sampler_config *cfg,
            void (*fn)(void *ctx, const struct sampler_dump_thread *t),
            char *err, size_t errlen, int *code);

/* ptrace_launch.c: seize cfg.pid, or launch cfg.argv (s->pid is then the
 * child's).  0, or -1 with a one-line reason in err and the exit code to
 * use in *code. */
int pt_attach(struct pt_sampler *s, char *err, size_t errlen, int *code);

#endif
