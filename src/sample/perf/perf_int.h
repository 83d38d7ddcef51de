/* perf_int.h - the perf_event backend of the sampling interface: what it
 * promises, its parts and the state they share.
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
 * cfg.kernel_frames is off (SAMPLER_CAP_KERNEL); the --idle switch-outs
 * always carry theirs, and whether the thread was preempted (the
 * switch-out record's PERF_RECORD_MISC_SWITCH_OUT_PREEMPT): the collector
 * names the reason from them.  With `all`, samples of kernel threads and
 * of interrupt work on the idle task go to one pseudo process,
 * SAMPLER_KERNEL_PID ("[kernel]"), with kernel frames only.
 *
 * It is reached only through its table, perf_backend (backend.h;
 * sampler.c's registry): what it can do is its caps there.
 *
 * One sampler serves every process of a session: the targets of -p (one
 * or a list), a launched command, the processes they fork (--children),
 * or every process (-a).  It keeps a process table (pid -> maps,
 * unwinder, comm) next to the thread table (tid -> its process); every
 * record carries its pid and tid (PERF_SAMPLE_TID and the sample_id
 * trailer), which route it.
 *
 *   perf_sampler.c  the thread's loop, draining the rings, the records,
 *                   the stats, the ops table
 *   perf_procs.c    the process and thread tables, each process's
 *                   unwinder (at the bottom: it calls none of the
 *                   files below)
 *   perf_maps.c     each process's maps: from the MMAP2 records, or
 *                   /proc when they went stale
 *   perf_attach.c   rings, events, attach and the refusals; the /proc
 *                   scans that add threads with their events, and the
 *                   one after a pause
 *   perf_stack.c    unwinding, counting and pushing a stack
 *   perf_offcpu.c   --idle: off-CPU stacks and their weights
 *   perf_script.c   Python frames: a Python process found, its frames
 *                   matched to its samples
 *   perf_pybpf.c    ...read at sample time by a BPF program on the
 *                   sampling events (perf_pybpf.h)
 *   perf_pymatch.c  ...each sample's walk found among those read (libc
 *                   only, unit tested: perf_pymatch.h)
 *
 * Everything here runs on the sampler thread, except what is marked
 * `lock` (read by the controlling thread through the ops).
 */
#ifndef SPROFTOP_PERF_INT_H
#define SPROFTOP_PERF_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "idtab.h"
#include "perf_events.h"
#include "backend.h"
#include "perf_record.h"
#include "script_frames.h"
#include "target.h"
#include "unwind.h"

#define PERF_MAX_CPUS 1024
#define PERF_UNWIND_KEEP 1024u /* unwind times kept for the median */
#define PERF_NONE UINT32_MAX
#define PERF_GONE (UINT32_MAX - 1) /* pev.thr of a thread dropped from the
                                      table (its events stay open) */
#define PERF_INTERVALS 16u     /* interval changes remembered (pf_interval_at):
                                  more than a drain's worth of key presses */
#define PERF_EP_PROC (1ull << 32) /* epoll data: a target's pidfd (| its
                                     index); else a CPU's ring (its index) */
#define PERF_EP_KICK (1ull << 33) /* epoll data: kick_fd */

struct maps;

struct pev {               /* an event we opened */
    int fd;                /* -1 once closed */
    uint64_t id;
    uint32_t thr;          /* the thread it was opened on (PERF_NONE:
                              a CPU-wide event of -a) */
    uint8_t kind;          /* enum perf_ev_kind */
};

struct pproc {             /* a process sampled */
    pid_t pid;
    char comm[32];
    bool announced;        /* cfg.on_process told (for its image) */
    bool exec_pending;     /* it exec'd after being announced */
    bool watched;          /* a target: its exit counts (not with -a) */
    bool exited;
    bool superseded;       /* a newer process has the same pid */
    bool leader_gone;      /* the leader exited; other threads run on */
    bool maps_dirty;       /* read /proc/PID/maps before the next unwind
                              (met without them, or an MMAP2 came while
                              they were not known) */
    bool maps_forced;      /* hand the next maps over even if the same */
    bool unmap_check;      /* an MMAP2 came: /proc is asked, at most once a
                              second, what the records cannot tell, the
                              mappings gone since (pf_maps_current) */
    bool known;            /* its maps (next, else maps) hold every
                              executable mapping as of the last record
                              handled: read from /proc, or inherited at
                              its FORK, or empty at its exec, and kept
                              by the MMAP2 records since (perf_maps.c) */
    bool retired;          /* exited one drain ago: its records are all
                              read, the collector told (INGEST_EXIT) */
    int pidfd, stat_fd;    /* watched: -1 otherwise */
    uint32_t nalive;       /* its live threads we know of */
    struct maps *maps;     /* handed over (generation gen) */
    struct maps *next;     /* from the records, not handed over yet */
    uint64_t gen;
    uint64_t t_maps;
    uint64_t t_unmap_check; /* when /proc was last asked for unmaps */
    uint64_t exit_drain;   /* drains done when it exited */
    struct unwinder *unw;  /* made at its first unwind */
    struct script_proc *script; /* the interpreter it runs, or NULL */
    uint64_t script_since; /* its threads walked by the BPF program for
                              samples from then on (0: they are not) */
};

struct pthr {              /* a thread of a sampled process */
    pid_t tid;
    uint32_t proc;         /* index in procs */
    char name[32];
    bool alive;
    bool superseded;       /* a newer thread has the same tid */
    bool named;            /* its name went to the ingest */
    bool own_events;       /* we opened events on it (it did not only
                              inherit its creator's) */
    uint32_t alive_pos;    /* index in the alive list */
    uint32_t stats_idx;    /* index in the per-thread stats table */
    uint64_t born_ns;
    uint64_t dead_ns;      /* time of its EXIT record (alive: 0) */
    uint64_t dead_drain;   /* drains done when it exited */
    uint64_t samples;
    uint64_t cut;          /* on-CPU samples the copy's end cut short */
    /* --idle: the stack it left the CPU with */
    uint64_t *off_pcs;     /* max_depth user pcs, then PERF_RECORD_KSTACK
                              kernel ones (off_kpcs) */
    uint64_t *off_kpcs;
    int off_n, off_nk;
    uint32_t off_flags;
    uint64_t off_ip, off_sp, off_bp; /* where that stack was taken */
    struct script_stack *off_py; /* and its Python stack (a Python
                                    process's thread), or NULL */
    bool have_off;
    bool off_reused;       /* that stack is the stretch before's (no
                              unwind): its pushes count as reused */
    uint64_t t_out;        /* off CPU since then (ns); 0: on CPU */
};

struct precord {           /* a record of one drain, for the time merge */
    uint64_t time;
    uint32_t seq;
    const struct perf_event_header *h;
};

struct perf_ring;
struct pf_pybpf;

/* What only this backend counts (--stats: its own line). */
struct pf_stats {
    uint64_t lost_ring;        /* of sampler_stats.lost: the ring buffers'
                                  (PERF_RECORD_LOST, LOST_SAMPLES) */
    uint64_t offcpu;           /* --idle: switch-outs sampled */
    uint64_t offcpu_ns;        /* ...and the off-CPU time they stand for */
    uint64_t preempted;        /* ...of which preemptions (PERF_RECORD_
                                  SWITCH out with MISC_SWITCH_OUT_PREEMPT) */
    uint32_t events;           /* perf_event fds open */
    uint32_t cpus;             /* CPUs (one ring each) */
    bool script_bpf;           /* Python frames read by the BPF program */
    uint64_t script_matched;   /* ...its walks taken by their sample */
    uint64_t script_near;      /* ...of which by the nearest clock
                                  reading, not the sample's own stamp */
    uint64_t script_orphans;   /* ...its walks whose sample never came */
    uint64_t script_dropped;   /* ...walks its ring had no room for (their
                                  samples count as unreadable) */
    uint64_t swept_threads;    /* threads pf_sweep_gone found gone (their
                                  EXIT record lost) */
    uint64_t swept_procs;      /* ...and processes */
};

struct pf_sampler {
    struct sampler base;   /* the interface; first, so a sampler * casts */
    struct sampler_config cfg;
    struct perf_events_opts eo;
    pthread_t thread;
    pid_t pid;             /* the first target (0 with -a) */
    pid_t self;            /* sproftop: never sampled */
    atomic_bool stop;
    atomic_bool paused;
    atomic_uint_fast64_t interval_ns;
    bool joined;

    /* attach handshake */
    pthread_mutex_t lock;  /* guards: handshake, st, tstats */
    pthread_cond_t cond;   /* attach handshake */
    struct sampler_attach attach; /* under lock */
    struct sampler_refusal refusal;

    /* sampler-thread-only state */
    int cpus[PERF_MAX_CPUS];
    int ncpus;
    int *owners;           /* per CPU: the fd whose ring it is */
    struct perf_ring *rings;
    int epfd;
    int kick_fd;           /* eventfd: a control or a halt asked for; the
                              loop applies it at once instead of at its
                              next drain */
    struct pev *evs;
    size_t nevs, capevs;
    struct idtab ev_ids;   /* sample id -> evs index */
    struct pproc *procs;
    size_t nprocs, capprocs;
    struct idtab proc_ids; /* pid -> procs index (the newest) */
    uint32_t procs_live;   /* not exited */
    uint32_t watched_live; /* watched and not exited */
    struct pthr *thr;
    size_t nthr, capthr;
    struct idtab thr_ids;  /* tid -> thr index (the newest) */
    uint32_t *alive;       /* indexes of live threads */
    size_t nalive, capalive;
    struct precord *recs;
    size_t nrecs, caprecs;
    uint64_t *pcs;         /* unwind output, max_depth */
    uint64_t kpcs[PERF_RECORD_KSTACK]; /* a sample's kernel call chain */
    uint32_t kproc;        /* -a: the [kernel] pseudo process, or
                              PERF_NONE before its first sample */
    struct pf_pybpf *pybpf;/* Python frames read at sample time (loaded
                              when the first Python process is found) */
    bool pybpf_tried;      /* ...and whether loading was tried */
    char pybpf_why[200];   /* why it could not be, or "" */
    struct script_stack py;/* one sample's Python stack */
    uint8_t *boot_buf;     /* --idle: stack of a thread blocked at attach */
    bool launched;
    struct target_spawn spawn;
    bool is_paused;        /* as applied to the events */
    uint64_t cur_interval;
    /* The intervals the events had, oldest first, each since when
     * (monotonic ns): on-CPU samples read late still get theirs. */
    struct pf_interval {
        uint64_t since, ns;
    } ivs[PERF_INTERVALS];
    uint32_t nivs;
    uint64_t t_start, t_publish;
    uint64_t win_start, win_samples, win_cpu;

    struct sampler_stats st;   /* readers' copy (lock) */
    struct sampler_stats live; /* the sampler thread's own */
    struct pf_stats pf_st;     /* readers' copy (lock) */
    struct pf_stats pf_live;   /* the sampler thread's own */
    uint32_t unw_last[PERF_UNWIND_KEEP]; /* the latest unwind times (ns) */
    uint64_t unw_n;
    enum unwind_end last_end; /* how pf_unwind's last unwind ended */
    struct sampler_thread_stats *tstats; /* lock */
    size_t ntstats, captstats;
    uint64_t gone_threads;     /* lock: exited threads no longer in
                                  tstats (SAMPLER_EXITED_LISTED) */
    uint64_t gone_samples;     /* lock: ...and their samples */
    uint64_t drains;           /* drains done */
    uint64_t gen_seq;          /* the last maps generation given, of any
                                  process: generations grow over the
                                  session, so (pid, gen) names an image
                                  (sampler_config.on_process) */
    uint32_t procs_retired;    /* retired, still in the table */
    uint32_t thr_dead;         /* dead threads still in the table */
    uint64_t swept_lost;       /* live.lost at the last pf_sweep_gone */
    uint64_t swept_ns;         /* when it ran (0: never) */
};

/* --- perf_procs.c -------------------------------------------------------- */

/* The newest process with this pid, or PERF_NONE. */
uint32_t pf_proc_find(struct pf_sampler *s, pid_t pid);

/* A process to sample from now on (a new one when pid's is gone or
 * superseded), named comm (NULL: read from /proc).  watched: a target
 * whose exit counts; it gets a pidfd in the epoll set and a stat fd.
 * PERF_NONE on OOM. */
uint32_t pf_proc_add(struct pf_sampler *s, pid_t pid, bool watched,
                     const char *comm);

/* Process i is gone (its pidfd or its last EXIT record said so).  Its
 * records may still be read in this drain and the next (another CPU's
 * ring): it is retired after that (pf_procs_retire). */
void pf_proc_exit(struct pf_sampler *s, uint32_t i);

/* After a drain: the processes that exited before the drain that just
 * ended have had every record read: tell the collector (INGEST_EXIT),
 * free their maps and unwinders, and, once there are enough of them,
 * drop them and the threads gone since from the tables, so the tables
 * hold what lives (and a drain's worth of the dead), not every process
 * and thread ever seen.  final: the rings are read for good (the
 * sampler is ending): every process that exited is retired. */
void pf_procs_retire(struct pf_sampler *s, bool final);

/* Tell cfg.on_process of process i unless it was (for its image). */
void pf_proc_announce(struct pf_sampler *s, struct pproc *p);

/* The newest thread with this tid, or PERF_NONE. */
uint32_t pf_thr_find(struct pf_sampler *s, pid_t tid);

/* A new thread of process proc (or a tid used again).  name NULL: read
 * it from /proc.  PERF_NONE on OOM, or when proc is retired (a late
 * record of a process gone: a retired process holds no thread). */
uint32_t pf_thr_add(struct pf_sampler *s, uint32_t proc, pid_t tid,
                    const char *name, uint64_t born);

/* Thread i is gone.  Its events stay open: closing one would also end
 * the copies every thread it created inherited. */
void pf_thr_exit(struct pf_sampler *s, uint32_t i, uint64_t now);

/* Rename thread t (and tell the ingest once it was named there). */
void pf_thr_rename(struct pf_sampler *s, struct pthr *t, const char *name,
                   uint64_t time);

/* Push t's name to the ingest. */
void pf_thr_push_name(struct pf_sampler *s, struct pthr *t, uint64_t time);

/* Copy t's figures to the readers' table (lock held). */
void pf_thr_stats_sync(struct pf_sampler *s, struct pthr *t, uint64_t now);



/* Process p's unwinder (made on first use); NULL when it cannot be. */
struct unwinder *pf_proc_unwinder(struct pf_sampler *s, struct pproc *p);

/* Free both tables (and each process's maps and unwinder). */
void pf_procs_free(struct pf_sampler *s);

/* --- perf_maps.c --------------------------------------------------------- */

/* Read process p's maps from /proc again (what the records built when
 * it is gone); on a change a new generation for its unwinder and
 * cfg.on_maps.  Returns true when they changed. */
bool pf_proc_refresh_maps(struct pf_sampler *s, struct pproc *p);

/* Before unwinding a sample of p: hand over the maps the records built,
 * or read /proc when p has none or they went stale. */
void pf_maps_current(struct pf_sampler *s, struct pproc *p);

/* Whether p's maps change before its next unwind (pf_maps_current). */
bool pf_maps_pending(const struct pproc *p);

struct perf_record_mmap2;
/* An MMAP2 record (end: the record's end): an executable mapping over
 * its process's maps, or (maps not known) /proc read at the next
 * unwind. */
void pf_maps_mmap(struct pf_sampler *s, const struct perf_record_mmap2 *r,
                  const uint8_t *end);

/* child was forked by parent: it starts with parent's maps. */
void pf_maps_fork(struct pf_sampler *s, struct pproc *child,
                  const struct pproc *parent);

/* p exec'd: no mapping until the MMAP2 records of the new image. */
void pf_maps_exec(struct pf_sampler *s, struct pproc *p);


/* --- perf_attach.c ------------------------------------------------------- */

/* Open the rings (and, with -a, the CPU-wide events that own them),
 * launch or attach to the targets.  0, or -1 with err and *code. */
int pf_attach(struct pf_sampler *s, char *err, size_t errlen, int *code);

/* Open every event of thread i (one per CPU and kind).  0; -1 with errno
 * when the kernel refuses (ESRCH: the thread is gone, not an error). */
int pf_open_events(struct pf_sampler *s, uint32_t i);

/* Close the events opened on thread thr. */
void pf_close_events_of(struct pf_sampler *s, uint32_t thr);

/* The event a sample came through, or NULL. */
struct pev *pf_ev_find(struct pf_sampler *s, uint64_t id);

/* ioctl every open event (of kind, or all when kind < 0). */
void pf_ioctl_all(struct pf_sampler *s, unsigned long req, void *arg, int kind);

/* A thread of pid perf_event_open accepts (see perf_backend.probe). */
pid_t pf_probe_tid(const struct sampler_config *cfg);

/* Close the events and unmap the rings. */
void pf_detach(struct pf_sampler *s);

/* One pass over /proc/PID/task of process proc: threads not known yet
 * are added, with events of their own when open_new.  Returns how many,
 * or -1 with errno when the kernel refuses (ESRCH: the process is gone). */
int pf_scan_tasks(struct pf_sampler *s, uint32_t proc, bool open_new,
                  uint64_t now);

/* The threads and processes the table holds alive whose EXIT record
 * never came (a ring that overflowed lost it, or sampling was paused):
 * /proc says which are gone, and they end now, as a record would have
 * ended them.  Without it a lost EXIT keeps a thread, and its process,
 * alive for the rest of the session: its samples never fold with the
 * exited ones and the tables grow with every thread ever seen.  lost:
 * records were lost (the finds count in --stats' "exits whose record was
 * lost"), else sampling was paused (no record was due).  Sampler
 * thread. */
void pf_sweep_gone(struct pf_sampler *s, uint64_t now, bool lost);

/* After a pause (no side-band record while disabled): forget threads
 * that are gone (pf_sweep_gone), learn the ones made meanwhile, re-read
 * names and maps. */
void pf_reconcile(struct pf_sampler *s, uint64_t now);

/* --- perf_stack.c ------------------------------------------------------- */

/* Count how a stack ended; returns its ingest flags. */
uint32_t pf_count_end(struct pf_sampler *s, enum unwind_end end);

/* Unwind and count: the depth, and its ingest flags in *flags. */
int pf_unwind(struct pf_sampler *s, struct pproc *p, const uint64_t *regs,
              const uint8_t *stack, uint64_t len, uint32_t *flags);

/* Push a stack of thread t (named first), weighing `weight` ns: the
 * kernel's part kpcs[0..nk) above the user stack pcs[0..n), both leaf
 * first, with py's Python frames spliced into the user part
 * (script_frames.h; NULL: none).  True when it is a sample; false when
 * the ingest had no room (counted as lost). */
bool pf_push_stack(struct pf_sampler *s, struct pthr *t, const uint64_t *pcs,
                   int n, uint32_t flags, uint64_t time, uint64_t weight,
                   const struct script_stack *py, const uint64_t *kpcs,
                   int nk);

/* Unwind a copy of a thread of process p into s->pcs (its maps re-read
 * first when an MMAP2 made them stale, or after an IP outside them, at
 * most once a second): the depth, and *end.  Not counted in the stats
 * (pf_count_end). */
int pf_unwind_raw(struct pf_sampler *s, struct pproc *p, const uint64_t *regs,
                  const uint8_t *stack, uint64_t len, enum unwind_end *end);

/* --- perf_offcpu.c (--idle) ---------------------------------------------- */

/* Thread t has been off CPU since t->t_out: count that time up to
 * `until` with its stack. */
void pf_off_count(struct pf_sampler *s, struct pthr *t, uint64_t until);

/* t leaves its CPU with this stack (a switch-out sample): its user
 * registers and stack copy, and the kernel's call chain kpcs[0..nk). */
void pf_off_begin(struct pf_sampler *s, struct pthr *t, const uint64_t *regs,
                  const uint8_t *stack, uint64_t len, uint64_t time,
                  const uint64_t *kpcs, int nk);

/* The switch-out record of t's stretch: preempted (still runnable). */
void pf_off_preempted(struct pf_sampler *s, struct pthr *t);

/* Give every live thread blocked right now its stack. */
void pf_off_bootstrap_blocked(struct pf_sampler *s, uint64_t now);

/* -a: put every thread of the machine that is blocked right now in the
 * tables (its process too), so pf_off_bootstrap_blocked counts it from
 * the start, as -p does its targets': a thread blocked all along never
 * switches, so no record would name it. */
void pf_off_meet_all(struct pf_sampler *s, uint64_t now);

/* --- perf_sampler.c ------------------------------------------------------ */

/* The interval the cpu-clock events had at `time` (CLOCK_MONOTONIC ns):
 * the weight of an on-CPU sample taken then.  Not the sample's
 * PERF_SAMPLE_PERIOD: after PERF_EVENT_IOC_PERIOD the kernel (6.x)
 * still reports a cpu-clock event's first period there. */
uint64_t pf_interval_at(const struct pf_sampler *s, uint64_t time);

/* --- perf_script.c (Python frames) --------------------------------------- */

/* The Python stack of thread t's sample at `time` into *py: the BPF
 * program's record of that moment, for a thread of a Python process
 * walked since before it (py->have false otherwise; a record that is
 * missing gives a torn stack). */
void pf_script_sample(struct pf_sampler *s, struct pthr *t, uint64_t time,
                      struct script_stack *py);

/* Process p maps an interpreter (its maps were just read): load the BPF
 * program once, attach it to every sampling event, and walk p's threads
 * from now on. */
void pf_script_found(struct pf_sampler *s, struct pproc *p);

/* Process p is gone or has a new image: forget its interpreter. */
void pf_script_forget(struct pf_sampler *s, struct pproc *p);

/* A sampling event was opened: the BPF program goes on it too. */
void pf_script_attach(struct pf_sampler *s, int fd);

#endif
