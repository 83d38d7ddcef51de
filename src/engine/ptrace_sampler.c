/* sampler.c - ptrace sampling thread; see sampler.h for the contract.
 *
 * One loop on one thread:
 *   1. drain wait events (waitpid(-1, __WALL|WNOHANG)): our interrupt
 *      stops are sampled (registers + one process_vm_readv of the stack)
 *      and resumed at once; signal stops are re-injected; group stops get
 *      PTRACE_LISTEN; exits drop the thread;
 *   2. unwind the copies taken in step 1 (threads already running) and
 *      push the raw stacks to the ingest buffer;
 *   3. on a tick, interrupt every due thread that is running (one timer
 *      wake-up for all due threads, each thread on its own schedule);
 *   4. busy-poll briefly for the stops just asked for, then sleep in
 *      sigtimedwait(SIGCHLD) until the next tick or event.
 * Threads are found by rescanning /proc/PID/task, which costs the target
 * nothing (PTRACE_O_TRACECLONE would stop every thread creation twice).
 */
#include "ptrace_sampler.h"

#include "ingest.h"
#include "maps.h"
#include "target.h"
#include "unwind.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RESCAN_NS 20000000ull   /* look for new threads every 20 ms */
#define MAPS_NS 20000000ull     /* re-read the maps every 20 ms, or... */
#define MAPS_COST_SHARE 100     /* ...less often, so that reading them takes
                                   at most 1/100 of the sampler's time */
#define MAPS_FAST_NS 10000000ull /* every 10 ms for 1 s after an exec */
#define MAPS_UNKNOWN_NS 2000000ull /* at most this often for unknown IPs */
#define WINDOW_NS 1000000000ull /* achieved-rate window */
#define PUBLISH_NS 50000000ull  /* stats copied for readers this often */
#define RAN_RECENT_NS 10000000ull /* on-CPU: ran within this long */
#define NAMES_NS 2000000000ull  /* thread names re-read this often */
#define FINAL_WAIT_NS 200000000ull /* wait for pending stops at the end */
#define STOP_GIVEUP_NS 500000000ull /* an interrupt unanswered this long */
#define HIST_LIN 2000           /* 1 us buckets up to 2 ms */
#define HIST_LOG 24             /* then powers of two */

enum tstate {
    T_FREE = 0,      /* running free, seized */
    T_INTERRUPTED,   /* PTRACE_INTERRUPT sent, stop not seen yet */
    T_GROUPSTOP,     /* in group-stop, PTRACE_LISTEN'ed */
};

struct sthread {
    pid_t tid;
    int stat_fd;           /* /proc/PID/task/TID/stat, re-read by pread */
    int syscall_fd;        /* /proc/PID/task/TID/syscall (--idle), or -1 */
    int sched_fd;          /* /proc/PID/task/TID/schedstat (on-CPU), or -1 */
    uint64_t last_runtime; /* on-CPU ns at the previous tick */
    uint64_t t_ran;        /* when last_runtime was last seen to grow */
    enum tstate state;
    bool seen;             /* found in the latest /proc rescan */
    bool was_blocked;      /* state S/D when interrupted */
    uint64_t next_due;     /* monotonic ns */
    uint64_t t_interrupt;
    uint64_t born_ns;
    uint32_t stats_idx;    /* index in the per-thread stats table */
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

/* A stack copied during a stop, waiting to be unwound. */
struct copy {
    pid_t tid;
    uint64_t regs[UNWIND_NREGS];
    uint8_t *buf;          /* stack_max bytes */
    size_t len;
    uint64_t time;
    struct sthread *t;     /* NULL when the thread vanished since */
    uint64_t sc_sp, sc_pc; /* user SP/PC if the stop was in a syscall */
    bool in_syscall;
    bool was_sleeping;     /* our stop broke into a blocking syscall */
};

struct hist {
    uint64_t lin[HIST_LIN];
    uint64_t log[HIST_LOG];
    uint64_t n, max;
};

struct psampler {
    struct sampler base;   /* the interface; first, so a sampler * casts */
    struct sampler_config cfg;
    pthread_t thread;
    pid_t pid;
    atomic_bool stop;
    atomic_bool paused;
    bool joined;           /* the thread has been joined */
    atomic_uint_fast64_t interval_ns;

    /* attach handshake */
    pthread_mutex_t lock;  /* guards: handshake, stats, tstats */
    pthread_cond_t cond;
    int attach_done;       /* 0 waiting, 1 ok, -1 failed */
    char attach_err[256];
    int attach_code;

    /* sampler-thread-only state */
    struct sthread **threads;
    size_t nthreads, capthreads;
    struct maps *maps;
    uint64_t gen;
    struct unwinder *unw;
    struct copy *copies;
    size_t ncopies, capcopies;
    uint64_t *pcs;         /* unwind output, max_depth */
    uint64_t t_start, t_rescan, t_maps;
    uint64_t win_start, win_samples, win_id;
    uint32_t win_threads;  /* distinct threads eligible in the window */
    int leader_status;     /* wait status of the leader's exit */
    bool leader_exited;
    bool dump_mode;        /* --dump: detach at the stop instead of CONT */
    bool launch_pending;   /* launched child seized, exec not seen yet */
    uint64_t maps_fast_until; /* re-read maps every MAPS_FAST_NS until then */
    uint64_t maps_period;  /* current maps re-read period */
    uint64_t t_names;      /* last time every thread's name was re-read */
    int cpu_now;           /* CPU we pinned to, -1 if free */
    bool launched;
    int errpipe;           /* launch: exec error from the child */

    /* published under lock: st is the copy readers see; live is the
     * sampler thread's own, copied into st by publish() */
    struct sampler_stats st;
    struct sampler_stats live;
    uint64_t t_publish;
    struct hist stop_h, lat_h, unw_h;
    struct sampler_thread_stats *tstats;
    size_t ntstats, captstats;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hist_add(struct hist *h, uint64_t ns)
{
    uint64_t us = ns / 1000;
    if (us < HIST_LIN) {
        h->lin[us]++;
    } else {
        int b = 0;
        for (uint64_t v = us / HIST_LIN; v > 1 && b < HIST_LOG - 1; v >>= 1)
            b++;
        h->log[b]++;
    }
    h->n++;
    if (ns > h->max)
        h->max = ns;
}

static uint64_t hist_pct(const struct hist *h, double pct)
{
    if (!h->n)
        return 0;
    uint64_t want = (uint64_t)(pct / 100.0 * (double)(h->n - 1)) + 1, acc = 0;
    for (int i = 0; i < HIST_LIN; i++)
        if ((acc += h->lin[i]) >= want)
            return (uint64_t)i * 1000 + 500;
    for (int b = 0; b < HIST_LOG; b++)
        if ((acc += h->log[b]) >= want)
            return ((uint64_t)HIST_LIN << b) * 1000;
    return h->max;
}

/* --- thread table ---------------------------------------------------- */

static struct sthread *find_thread(struct psampler *s, pid_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i]->tid == tid)
            return s->threads[i];
    return NULL;
}

static void push_thread_name(struct psampler *s, pid_t tid, const char *name)
{
    if (!s->cfg.ingest)
        return; /* --dump has no ingest */
    struct ingest_rec h = {.type = INGEST_THREAD, .tid = tid, .time = now_ns(),
                           .gen = s->gen};
    ingest_push(s->cfg.ingest, &h, name, strlen(name));
}

static struct sthread *add_thread(struct psampler *s, pid_t tid)
{
    if (s->nthreads == s->capthreads) {
        size_t cap = s->capthreads ? s->capthreads * 2 : 16;
        struct sthread **n = realloc(s->threads, cap * sizeof *n);
        if (!n)
            return NULL;
        s->threads = n;
        s->capthreads = cap;
    }
    struct sthread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    char path[80];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)s->pid, (int)tid);
    t->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    t->syscall_fd = -1;
    t->sched_fd = -1;
    if (!s->cfg.idle) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)s->pid, (int)tid);
        t->sched_fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (s->cfg.idle) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)s->pid, (int)tid);
        t->syscall_fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    t->tid = tid;
    t->seen = true;
    t->born_ns = now_ns();
    /* Spread first samples over one interval so threads seized together
     * are not all due on the same tick. */
    uint64_t iv = atomic_load(&s->interval_ns);
    t->next_due = t->born_ns + (uint64_t)(tid * 2654435761u) % (iv ? iv : 1);

    char name[32];
    target_thread_name(s->pid, tid, name, sizeof name);
    snprintf(t->name, sizeof t->name, "%s", name);
    pthread_mutex_lock(&s->lock);
    if (s->ntstats == s->captstats) {
        size_t cap = s->captstats ? s->captstats * 2 : 16;
        struct sampler_thread_stats *n = realloc(s->tstats, cap * sizeof *n);
        if (n) {
            s->tstats = n;
            s->captstats = cap;
        }
    }
    if (s->ntstats < s->captstats) {
        t->stats_idx = (uint32_t)s->ntstats;
        struct sampler_thread_stats *ts = &s->tstats[s->ntstats++];
        memset(ts, 0, sizeof *ts);
        ts->tid = tid;
        snprintf(ts->name, sizeof ts->name, "%s", name);
    } else {
        t->stats_idx = UINT32_MAX;
    }
    s->st.threads_seen++;
    pthread_mutex_unlock(&s->lock);
    s->threads[s->nthreads++] = t;
    /* a command being launched is still sproftop until its exec: it gets
     * its name at PTRACE_EVENT_EXEC */
    if (!s->launch_pending)
        push_thread_name(s, tid, name);
    return t;
}

static void drop_thread(struct psampler *s, pid_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (t->tid != tid)
            continue;
        for (size_t c = 0; c < s->ncopies; c++)
            if (s->copies[c].t == t)
                s->copies[c].t = NULL;
        pthread_mutex_lock(&s->lock);
        if (t->stats_idx != UINT32_MAX) {
            struct sampler_thread_stats *ts = &s->tstats[t->stats_idx];
            ts->alive_ns = now_ns() - t->born_ns;
            ts->samples = t->samples;
            ts->due = t->due;
        }
        pthread_mutex_unlock(&s->lock);
        if (t->stat_fd >= 0)
            close(t->stat_fd);
        if (t->syscall_fd >= 0)
            close(t->syscall_fd);
        if (t->sched_fd >= 0)
            close(t->sched_fd);
        free(t->last_pcs);
        free(t);
        s->threads[i] = s->threads[--s->nthreads];
        return;
    }
}

/* Threads name themselves (pthread_setname_np) just after they start,
 * usually after we seized them, and programs rename threads later too:
 * re-read the names of young threads at every rescan and of all threads
 * every NAMES_NS, and pass changes on. */
static void refresh_names(struct psampler *s, uint64_t now, bool all)
{
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (!all && now - t->born_ns > NAMES_NS)
            continue;
        char name[32];
        target_thread_name(s->pid, t->tid, name, sizeof name);
        if (!name[0] || strcmp(name, t->name) == 0)
            continue;
        snprintf(t->name, sizeof t->name, "%s", name);
        push_thread_name(s, t->tid, name);
        pthread_mutex_lock(&s->lock);
        if (t->stats_idx != UINT32_MAX)
            snprintf(s->tstats[t->stats_idx].name, sizeof s->tstats[t->stats_idx].name, "%s", name);
        pthread_mutex_unlock(&s->lock);
    }
}

/* Seize every thread of the process not seized yet.  Returns the number
 * of threads newly seized, or -1 with errno from the first failure when
 * nothing at all could be seized and `first` is set. */
static int rescan(struct psampler *s, bool first, int *first_errno)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)s->pid);
    int added = 0;
    /* Repeat until a pass finds nothing new: threads may be created
     * between reading the directory and seizing. */
    for (int pass = 0; pass < 8; pass++) {
        DIR *d = opendir(path);
        if (!d) {
            if (first_errno)
                *first_errno = errno == ENOENT ? ESRCH : errno;
            return first ? -1 : added;
        }
        for (size_t i = 0; i < s->nthreads; i++)
            s->threads[i]->seen = false;
        int new_this_pass = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_name[0] < '0' || de->d_name[0] > '9')
                continue;
            pid_t tid = (pid_t)atoi(de->d_name);
            struct sthread *t = find_thread(s, tid);
            if (t) {
                t->seen = true;
                continue;
            }
            if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACEEXEC) < 0) {
                if (first && first_errno && !*first_errno && errno != ESRCH)
                    *first_errno = errno;
                continue;
            }
            if (add_thread(s, tid))
                new_this_pass++;
        }
        closedir(d);
        added += new_this_pass;
        if (!new_this_pass)
            break;
    }
    return added;
}

/* --- maps ------------------------------------------------------------- */

/* Re-read /proc/PID/maps; on change, bump the generation, tell the
 * unwinder and the collector.  Returns true when they changed. */
static bool refresh_maps(struct psampler *s)
{
    uint64_t t0 = now_ns();
    struct maps *m = maps_read(s->pid);
    /* a zombie leader's maps are empty: read them through a live thread */
    for (size_t i = 0; (!m || m->n == 0) && i < s->nthreads; i++) {
        if (s->threads[i]->tid == s->pid)
            continue;
        maps_free(m);
        m = maps_read_task(s->pid, s->threads[i]->tid);
    }
    s->t_maps = now_ns();
    /* A library closed and another opened at the same address can only be
     * told apart by re-reading the maps; a process with thousands of
     * mappings makes that expensive, so the period follows the cost. */
    s->maps_period = (s->t_maps - t0) * MAPS_COST_SHARE;
    if (s->maps_period < MAPS_NS)
        s->maps_period = MAPS_NS;
    if (!m)
        return false;
    if (s->maps && maps_same(s->maps, m)) {
        maps_free(m);
        return false;
    }
    maps_free(s->maps);
    s->maps = m;
    s->gen++;
    unwinder_set_maps(s->unw, m);
    if (s->cfg.on_maps)
        s->cfg.on_maps(s->cfg.ctx, s->gen, m->text, m->text_len);
    return true;
}

/* --- one sample --------------------------------------------------------- */

static void regs_to_dwarf(const struct user_regs_struct *r, uint64_t out[UNWIND_NREGS])
{
    out[0] = r->rax, out[1] = r->rdx, out[2] = r->rcx, out[3] = r->rbx;
    out[4] = r->rsi, out[5] = r->rdi, out[6] = r->rbp, out[7] = r->rsp;
    out[8] = r->r8, out[9] = r->r9, out[10] = r->r10, out[11] = r->r11;
    out[12] = r->r12, out[13] = r->r13, out[14] = r->r14, out[15] = r->r15;
    out[16] = r->rip;
}

static struct copy *new_copy(struct psampler *s)
{
    if (s->ncopies == s->capcopies) {
        size_t cap = s->capcopies ? s->capcopies * 2 : 8;
        struct copy *n = realloc(s->copies, cap * sizeof *n);
        if (!n)
            return NULL;
        memset(n + s->capcopies, 0, (cap - s->capcopies) * sizeof *n);
        s->copies = n;
        s->capcopies = cap;
    }
    struct copy *c = &s->copies[s->ncopies];
    if (!c->buf && !(c->buf = malloc(s->cfg.stack_max)))
        return NULL;
    s->ncopies++;
    return c;
}

/* The thread is in our interrupt stop: read registers, copy the stack,
 * undo an EINTR we caused, resume.  Everything else waits until after. */
static void take_sample(struct psampler *s, struct sthread *t, uint64_t t_seen)
{
    struct user_regs_struct r;
    if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0) {
        ptrace(PTRACE_CONT, t->tid, 0, 0);
        return;
    }
    /* A blocking syscall that our interrupt made fail with EINTR (epoll_wait,
     * sigtimedwait, recv with SO_RCVTIMEO) is restarted, unless a real
     * unblocked signal is pending, which is then what interrupted it. */
    if ((int64_t)r.orig_rax >= 0 && (int64_t)r.rax == -EINTR &&
        target_unblocked_pending(s->pid, t->tid) == 0) {
        struct user_regs_struct w = r;
        w.rax = w.orig_rax;
        w.rip -= 2; /* back onto the 2-byte syscall instruction */
        if (ptrace(PTRACE_SETREGS, t->tid, 0, &w) == 0)
            s->live.eintr_restarts++;
    }
    struct copy *c = new_copy(s);
    if (c) {
        c->tid = t->tid;
        c->t = t;
        c->time = t_seen;
        regs_to_dwarf(&r, c->regs);
        c->in_syscall = (int64_t)r.orig_rax >= 0;
        /* A syscall returning EINTR or a restart code at our stop was
         * asleep when the interrupt landed: the thread was running when we
         * looked but blocked before it stopped. */
        int64_t ret = (int64_t)r.rax;
        c->was_sleeping = c->in_syscall &&
            (ret == -EINTR || ret == -512 || ret == -513 || ret == -514 || ret == -516);
        c->sc_sp = r.rsp;
        c->sc_pc = r.rip;
        c->len = 0;
        const struct map_entry *e = maps_find(s->maps, r.rsp);
        if (!e) {
            refresh_maps(s);
            e = maps_find(s->maps, r.rsp);
        }
        if (e) {
            size_t want = e->end - r.rsp;
            if (want > s->cfg.stack_max)
                want = s->cfg.stack_max;
            struct iovec local = {c->buf, want};
            struct iovec remote = {(void *)(uintptr_t)r.rsp, want};
            ssize_t got = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
            c->len = got > 0 ? (size_t)got : 0;
        }
    }
    ptrace(s->dump_mode ? PTRACE_DETACH : PTRACE_CONT, t->tid, 0, 0);
    uint64_t t_res = now_ns();
    t->state = T_FREE;
    s->live.stops++;
    if (t->was_blocked)
        s->live.stops_blocked++;
    hist_add(&s->stop_h, t_res - t_seen);
    hist_add(&s->lat_h, t_seen - t->t_interrupt);
}

static void push_stack(struct psampler *s, pid_t tid, struct sthread *t,
                       const uint64_t *pcs, int n, uint32_t flags, uint64_t time)
{
    struct ingest_rec h = {.type = INGEST_SAMPLE, .tid = tid, .flags = flags,
                           .time = time, .gen = s->gen};
    if (ingest_push(s->cfg.ingest, &h, pcs, (size_t)n * sizeof *pcs) < 0) {
        s->live.lost++;
        return;
    }
    s->live.samples++;
    s->win_samples++;
    if (t)
        t->samples++;
}

/* Unwind every copy taken since the last call (threads running again). */
static void unwind_copies(struct psampler *s)
{
    for (size_t i = 0; i < s->ncopies; i++) {
        struct copy *c = &s->copies[i];
        if (c->was_sleeping && !s->cfg.idle) {
            /* on-CPU mode: that moment was not CPU use */
            s->live.discarded++;
            continue;
        }
        uint64_t t0 = now_ns();
        enum unwind_end end;
        int n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7], c->len,
                                s->pcs, s->cfg.max_depth, &end);
        /* in the second after an exec, maps read before this copy was
         * taken may predate the loader's mappings: no rate limit then */
        if (unwinder_saw_unknown(s->unw) &&
            (now_ns() - s->t_maps > MAPS_UNKNOWN_NS ||
             (t0 < s->maps_fast_until && s->t_maps < c->time)) &&
            refresh_maps(s)) {
            /* dlopen since the last read: unwind again with the new maps */
            n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7], c->len,
                                s->pcs, s->cfg.max_depth, &end);
        }
        hist_add(&s->unw_h, now_ns() - t0);
        uint32_t flags = 0;
        s->live.unwind_end[end]++;
        if (end != UNWIND_COMPLETE) {
            flags |= INGEST_F_TRUNCATED;
            s->live.truncated++;
        }
        push_stack(s, c->tid, c->t, s->pcs, n, flags, c->time);
        struct sthread *t = c->t;
        if (t && s->cfg.idle) {
            if (!t->last_pcs)
                t->last_pcs = malloc((size_t)s->cfg.max_depth * sizeof *t->last_pcs);
            if (t->last_pcs) {
                memcpy(t->last_pcs, s->pcs, (size_t)n * sizeof *s->pcs);
                t->last_n = n;
                t->last_flags = flags;
                t->have_last = c->in_syscall;
                t->last_sp = c->sc_sp;
                t->last_pc = c->sc_pc;
            }
        }
    }
    s->ncopies = 0;
}

/* --- events -------------------------------------------------------------- */

static bool is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void target_gone(struct psampler *s, int status)
{
    s->live.target = SAMPLER_EXITED;
    if (WIFEXITED(status)) {
        s->live.exit_code = WEXITSTATUS(status);
        s->live.exit_known = true;
    } else if (WIFSIGNALED(status)) {
        s->live.exit_signal = WTERMSIG(status);
        s->live.exit_known = true;
    }
}

static void handle_exec(struct psampler *s, pid_t tid)
{
    /* After exec only the leader remains (with the PID as its tid). */
    for (size_t i = s->nthreads; i-- > 0;)
        if (s->threads[i]->tid != tid)
            drop_thread(s, s->threads[i]->tid);
    struct sthread *t = find_thread(s, tid);
    if (!t)
        t = add_thread(s, tid);
    if (t) {
        char name[32];
        target_thread_name(s->pid, tid, name, sizeof name);
        snprintf(t->name, sizeof t->name, "%s", name);
        s->launch_pending = false;
        push_thread_name(s, tid, name);
        t->have_last = false;
        /* exec may swallow an interrupt we had sent */
        t->state = T_FREE;
        pthread_mutex_lock(&s->lock);
        if (t->stats_idx != UINT32_MAX)
            snprintf(s->tstats[t->stats_idx].name, sizeof s->tstats[t->stats_idx].name, "%s", name);
        pthread_mutex_unlock(&s->lock);
    }
    maps_free(s->maps);
    s->maps = NULL;
    refresh_maps(s);
    /* ld.so maps the libraries after the exec event: watch closely */
    s->maps_fast_until = now_ns() + 1000000000ull;
}

/* Handle one wait status.  Returns false when the target is gone. */
static bool handle_event(struct psampler *s, pid_t tid, int status, uint64_t t_seen)
{
    struct sthread *t = find_thread(s, tid);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
        drop_thread(s, tid);
        if (tid == s->pid) {
            /* A leader that called pthread_exit exits first while its other
             * threads go on: the process is gone only with its last thread. */
            s->leader_status = status;
            s->leader_exited = true;
        }
        if (s->nthreads == 0) {
            target_gone(s, s->leader_exited ? s->leader_status : status);
            return false;
        }
        return true;
    }
    if (!WIFSTOPPED(status))
        return true;
    int sig = WSTOPSIG(status);
    int event = (status >> 16) & 0xff;
    if (!t) {
        /* Not one of ours any more (e.g. a thread dropped at exec): let it
         * go on. */
        ptrace(PTRACE_CONT, tid, 0, is_stop_signal(sig) || event ? 0 : sig);
        return true;
    }
    if (event == PTRACE_EVENT_STOP) {
        if (is_stop_signal(sig)) {
            /* group-stop: stay stopped as the user asked, without blocking
             * our waits; SIGCONT will report another PTRACE_EVENT_STOP. */
            ptrace(PTRACE_LISTEN, tid, 0, 0);
            t->state = T_GROUPSTOP;
            s->live.group_stops++;
            return true;
        }
        if (t->state == T_INTERRUPTED) {
            take_sample(s, t, t_seen);
            return true;
        }
        ptrace(PTRACE_CONT, tid, 0, 0);
        t->state = T_FREE;
        return true;
    }
    if (event == PTRACE_EVENT_EXEC) {
        handle_exec(s, tid);
        ptrace(PTRACE_CONT, tid, 0, 0);
        return true;
    }
    if (event) {
        ptrace(PTRACE_CONT, tid, 0, 0);
        return true;
    }
    /* signal-delivery-stop: hand the signal back to the target.  Our own
     * interrupt, if any, is still pending and will stop it next. */
    ptrace(PTRACE_CONT, tid, 0, sig);
    s->live.signals++;
    return true;
}

/* Drain pending wait events.  Returns the number handled, -1 when the
 * target is gone. */
static int drain(struct psampler *s)
{
    int handled = 0;
    for (;;) {
        int status;
        pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
        if (tid == 0)
            return handled;
        if (tid < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ECHILD) {
                /* nothing left to wait for: every thread is gone */
                s->live.target = SAMPLER_EXITED;
                return -1;
            }
            return handled;
        }
        handled++;
        if (!handle_event(s, tid, status, now_ns()))
            return -1;
    }
}

/* --- ticks --------------------------------------------------------------- */

static void place_on(struct psampler *s, int cpu)
{
    if (cpu < 0 || cpu == s->cpu_now)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        s->cpu_now = cpu;
}

/* Interrupt every due thread.  Returns how many interrupts were sent. */
static int tick(struct psampler *s, uint64_t now)
{
    uint64_t iv = atomic_load(&s->interval_ns);
    bool paused = atomic_load(&s->paused);
    int sent = 0;
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (t->next_due > now)
            continue;
        t->next_due += iv;
        if (t->next_due <= now)
            t->next_due = now + iv; /* fell behind: don't burst */
        if (paused || t->state == T_GROUPSTOP)
            continue;
        if (t->state == T_INTERRUPTED) {
            s->live.missed++; /* still on its way to the last stop */
            if (now - t->t_interrupt < STOP_GIVEUP_NS)
                continue;
            /* A thread stuck in D (a vfork parent) or whose trap was
             * swallowed: stop waiting for it.  If the stop comes after all
             * it is resumed without a sample. */
            t->state = T_FREE;
            s->live.given_up++;
        }
        if (t->sched_fd >= 0) {
            /* On-CPU mode: a thread that has not run for RAN_RECENT_NS is
             * blocked, or has just woken and waits for a CPU; stopping it
             * would sample run-queue waits (stacks at syscall returns)
             * that perf's cpu-clock never sees.  A CPU-bound thread that
             * is only preempted ran moments ago and is still sampled.
             * schedstat is cheaper to read than stat, so it goes first. */
            uint64_t rt;
            if (target_runtime(t->sched_fd, &rt) == 0) {
                if (rt != t->last_runtime || !t->t_ran)
                    t->t_ran = now;
                t->last_runtime = rt;
                if (now - t->t_ran > RAN_RECENT_NS)
                    continue;
            }
        }
        int cpu = -1;
        char st = target_stat_state(t->stat_fd, &cpu);
        if (st == 0)
            continue; /* gone; its exit event will drop it */
        bool blocked = st == 'S' || st == 'D' || st == 'I';
        if (st != 'R' && !blocked)
            continue; /* stopped, traced, zombie */
        if (!blocked || s->cfg.idle) {
            if (t->win_mark != s->win_id + 1) {
                t->win_mark = s->win_id + 1;
                s->win_threads++;
            }
        }
        if (!blocked || s->cfg.idle)
            t->due++;
        if (blocked) {
            /* Default mode: never interrupt a blocked thread (it could see
             * EINTR).  --idle: reuse its last stack while it has not moved
             * from the same blocking call. */
            if (!s->cfg.idle)
                continue;
            uint64_t sp, pc;
            if (t->have_last && t->syscall_fd >= 0 &&
                target_syscall_sp_pc(t->syscall_fd, &sp, &pc) == 0 &&
                sp == t->last_sp && pc == t->last_pc) {
                push_stack(s, t->tid, t, t->last_pcs, t->last_n,
                           t->last_flags | INGEST_F_REUSED, now);
                s->live.reused++;
                continue;
            }
        }
        if (s->cfg.placement == SAMPLER_PLACE_FOLLOW)
            place_on(s, cpu);
        t->t_interrupt = now_ns();
        if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
            continue; /* ESRCH: exiting; its exit event drops it */
        t->state = T_INTERRUPTED;
        t->was_blocked = blocked;
        sent++;
    }
    return sent;
}

static uint64_t next_deadline(struct psampler *s, uint64_t now)
{
    uint64_t d = now + 100000000ull; /* wake at least every 100 ms */
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (t->state == T_FREE && t->next_due < d)
            d = t->next_due;
    }
    if (s->t_rescan + RESCAN_NS < d)
        d = s->t_rescan + RESCAN_NS;
    return d < now ? now : d;
}

static size_t pending_stops(struct psampler *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nthreads; i++)
        n += s->threads[i]->state == T_INTERRUPTED;
    return n;
}

/* Copy the sampler's figures to where readers see them: at most every
 * PUBLISH_NS (percentiles scan the histograms), or now when `force`. */
static void publish(struct psampler *s, uint64_t now, bool force)
{
    if (!force && now - s->t_publish < PUBLISH_NS)
        return;
    s->t_publish = now;
    struct sampler_stats *l = &s->live;
    l->stop_median_ns = hist_pct(&s->stop_h, 50);
    l->stop_p99_ns = hist_pct(&s->stop_h, 99);
    l->stop_max_ns = s->stop_h.max;
    l->latency_median_ns = hist_pct(&s->lat_h, 50);
    l->unwind_median_ns = hist_pct(&s->unw_h, 50);
    l->tracer_cpu_ns = thread_cpu_ns();
    l->elapsed_ns = now - s->t_start;
    l->threads = (uint32_t)s->nthreads;
    bool stopped = s->nthreads > 0;
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i]->state != T_GROUPSTOP)
            stopped = false;
    if (l->target == SAMPLER_RUNNING || l->target == SAMPLER_STOPPED)
        l->target = stopped ? SAMPLER_STOPPED : SAMPLER_RUNNING;
    if (now - s->win_start >= WINDOW_NS) {
        /* per-thread rate: samples in the window over the threads that
         * were eligible (ran, or blocked with --idle) */
        double secs = (double)(now - s->win_start) / 1e9;
        l->achieved_hz = s->win_threads
            ? (double)s->win_samples / secs / s->win_threads : 0;
        s->win_id++;
        s->win_start = now;
        s->win_samples = 0;
        s->win_threads = 0;
    }
    pthread_mutex_lock(&s->lock);
    uint32_t seen = s->st.threads_seen;
    s->st = *l;
    s->st.threads_seen = seen; /* kept by add_thread under the lock */
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (t->stats_idx == UINT32_MAX)
            continue;
        s->tstats[t->stats_idx].samples = t->samples;
        s->tstats[t->stats_idx].due = t->due;
    }
    pthread_mutex_unlock(&s->lock);
}

static void wait_events(uint64_t deadline)
{
    uint64_t now = now_ns();
    if (deadline <= now)
        return;
    uint64_t d = deadline - now;
    struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigtimedwait(&set, NULL, &ts);
}

static void spin_for_stops(struct psampler *s, uint32_t spin_us)
{
    uint64_t until = now_ns() + (uint64_t)spin_us * 1000;
    while (pending_stops(s) && now_ns() < until) {
        if (drain(s) < 0)
            return;
    }
}

/* --- attach / launch ---------------------------------------------------- */

static int launch(struct psampler *s, char *err, size_t errlen)
{
    struct target_spawn sp;
    if (target_spawn(&sp, s->cfg.argv, s->cfg.quiet_child, err, errlen) < 0)
        return -1;
    s->pid = sp.pid;
    s->launch_pending = true;
    if (ptrace(PTRACE_SEIZE, sp.pid, 0, (void *)(long)PTRACE_O_TRACEEXEC) < 0) {
        snprintf(err, errlen, "cannot trace the launched command: %s", strerror(errno));
        target_spawn_abort(&sp);
        return -1;
    }
    add_thread(s, sp.pid);
    if (target_spawn_go(&sp, s->cfg.argv[0], err, errlen) < 0)
        return -1;
    s->launched = true;
    return 0;
}

static int attach(struct psampler *s, char *err, size_t errlen, int *code)
{
    *code = 1;
    if (s->cfg.argv)
        return launch(s, err, errlen);
    if (target_precheck(s->pid, err, errlen) < 0)
        return -1;
    int first_errno = 0;
    int n = rescan(s, true, &first_errno);
    if (n <= 0) {
        target_explain_seize(s->pid, first_errno ? first_errno : ESRCH, err, errlen);
        return -1;
    }
    return 0;
}

/* --- the thread ----------------------------------------------------------- */

static void *sampler_main(void *arg)
{
    struct psampler *s = arg;
    char err[256] = "";
    int code = 1;
    /* SIGCHLD stays blocked so sigtimedwait can wait for it. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    /* stop signals go to the main thread, whose handler sets the flag
     * main reads */
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    s->pcs = malloc((size_t)s->cfg.max_depth * sizeof *s->pcs);
    int rc = s->pcs ? attach(s, err, sizeof err, &code) : -1;
    if (rc == 0 && !(s->unw = unwinder_new(s->pid, err, sizeof err)))
        rc = -1;
    if (rc == 0)
        refresh_maps(s);
    pthread_mutex_lock(&s->lock);
    s->attach_done = rc == 0 ? 1 : -1;
    snprintf(s->attach_err, sizeof s->attach_err, "%s", err);
    s->attach_code = code;
    s->live.pid = s->st.pid = s->pid;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    if (rc < 0)
        return NULL;

    s->t_start = s->win_start = s->t_rescan = now_ns();
    while (!atomic_load(&s->stop)) {
        if (drain(s) < 0)
            break;
        unwind_copies(s);
        uint64_t now = now_ns();
        if (now >= s->t_rescan + RESCAN_NS) {
            rescan(s, false, NULL);
            for (size_t i = s->nthreads; i-- > 0;) {
                struct sthread *t = s->threads[i];
                /* gone from /proc but no exit event (e.g. not reaped yet):
                 * it will come; only drop threads whose stat is gone */
                if (!t->seen && target_stat_state(t->stat_fd, NULL) == 0 &&
                    t->state == T_FREE && t->tid != s->pid)
                    drop_thread(s, t->tid);
            }
            s->t_rescan = now;
            bool all = now - s->t_names >= NAMES_NS;
            refresh_names(s, now, all);
            if (all)
                s->t_names = now;
        }
        if (s->maps && now >= s->t_maps + (now < s->maps_fast_until ? MAPS_FAST_NS : s->maps_period))
            refresh_maps(s);
        else if (!s->maps)
            refresh_maps(s);
        int sent = tick(s, now);
        if (sent) {
            spin_for_stops(s, s->cfg.spin_us);
            continue; /* unwind what was collected before sleeping */
        }
        publish(s, now, false);
        if (s->ncopies)
            continue;
        wait_events(next_deadline(s, now_ns()));
    }
    /* Stops we asked for and have not handled yet: a blocking call our
     * interrupt broke has already failed with EINTR inside the kernel, and
     * only our stop handling (take_sample) restarts it; released by the
     * detach instead, the thread would see the EINTR.  Wait for them,
     * bounded: a thread in D may not stop for seconds. */
    uint64_t until = now_ns() + FINAL_WAIT_NS;
    while (pending_stops(s) && now_ns() < until) {
        if (drain(s) < 0)
            break;
        if (pending_stops(s)) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
    unwind_copies(s); /* the last copies, taken just before the stop */
    if (s->live.target != SAMPLER_EXITED)
        s->live.target = SAMPLER_ENDED;
    publish(s, now_ns(), true);
    /* Returning ends this thread; the kernel then detaches every tracee,
     * including blocked threads, without interrupting them. */
    return NULL;
}

/* Free everything the sampler owns (its thread has ended, or never ran
 * the loop). */
static void sampler_free(struct psampler *s)
{
    for (size_t i = s->nthreads; i-- > 0;)
        drop_thread(s, s->threads[i]->tid);
    for (size_t i = 0; i < s->capcopies; i++)
        free(s->copies[i].buf);
    free(s->copies);
    free(s->threads);
    free(s->tstats);
    free(s->pcs);
    unwinder_free(s->unw);
    maps_free(s->maps);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cond);
    free(s);
}

static struct sampler *ps_start(const struct sampler_config *cfg, char *err,
                                size_t errlen, int *code)
{
    *code = 1;
    struct psampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->pid = cfg->pid;
    s->cpu_now = -1;
    atomic_init(&s->stop, false);
    atomic_init(&s->paused, false);
    atomic_init(&s->interval_ns, cfg->interval_ns);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        snprintf(err, errlen, "cannot start the sampler thread");
        free(s);
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->attach_done)
        pthread_cond_wait(&s->cond, &s->lock);
    int ok = s->attach_done > 0;
    if (!ok) {
        snprintf(err, errlen, "%s", s->attach_err);
        *code = s->attach_code;
    }
    pthread_mutex_unlock(&s->lock);
    if (!ok) {
        pthread_join(s->thread, NULL);
        sampler_free(s);
        return NULL;
    }
    s->base.ops = &ptrace_backend;
    return &s->base;
}

static void ps_halt(struct sampler *base)
{
    struct psampler *s = (struct psampler *)base;

    atomic_store(&s->stop, true);
    if (!s->joined) {
        pthread_join(s->thread, NULL);
        s->joined = true;
    }
}

static void ps_free(struct sampler *base)
{
    ps_halt(base);
    sampler_free((struct psampler *)base);
}

static void ps_set_paused(struct sampler *base, bool paused)
{
    struct psampler *s = (struct psampler *)base;

    atomic_store(&s->paused, paused);
}

static void ps_set_interval(struct sampler *base, uint64_t interval_ns)
{
    struct psampler *s = (struct psampler *)base;

    if (interval_ns < 100000)
        interval_ns = 100000;
    if (interval_ns > 1000000000ull)
        interval_ns = 1000000000ull;
    atomic_store(&s->interval_ns, interval_ns);
}

static void ps_get_stats(struct sampler *base, struct sampler_stats *out)
{
    struct psampler *s = (struct psampler *)base;

    pthread_mutex_lock(&s->lock);
    *out = s->st;
    out->interval_ns = atomic_load(&s->interval_ns);
    pthread_mutex_unlock(&s->lock);
}

static void ps_foreach_thread(struct sampler *base,
                            void (*fn)(void *ctx, const struct sampler_thread_stats *t),
                            void *ctx)
{
    struct psampler *s = (struct psampler *)base;
    pthread_mutex_lock(&s->lock);
    uint64_t now = now_ns();
    for (size_t i = 0; i < s->ntstats; i++) {
        struct sampler_thread_stats t = s->tstats[i];
        /* threads still alive: alive_ns up to now */
        for (size_t j = 0; j < s->nthreads; j++)
            if (s->threads[j]->stats_idx == i)
                t.alive_ns = now - s->threads[j]->born_ns;
        fn(ctx, &t);
    }
    pthread_mutex_unlock(&s->lock);
}

static pid_t ps_pid(struct sampler *base)
{
    return ((struct psampler *)base)->pid;
}

const struct sampler_backend ptrace_backend = {
    .name = "ptrace",
    .start = ps_start,
    .halt = ps_halt,
    .free = ps_free,
    .set_paused = ps_set_paused,
    .set_interval = ps_set_interval,
    .get_stats = ps_get_stats,
    .foreach_thread = ps_foreach_thread,
    .pid = ps_pid,
};

static int copy_by_tid(const void *a, const void *b)
{
    pid_t x = ((const struct copy *)a)->tid, y = ((const struct copy *)b)->tid;
    return (x > y) - (x < y);
}

/* --- --dump ------------------------------------------------------------------ */

int sampler_dump(pid_t pid, int max_depth,
                 void (*fn)(void *ctx, const struct dump_thread *t,
                            const char *maps, size_t maps_len),
                 void *ctx, char *err, size_t errlen, int *code)
{
    *code = 1;
    struct psampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sampler_config_default(&s->cfg);
    s->cfg.max_depth = max_depth;
    s->pid = pid;
    s->dump_mode = true;
    s->cpu_now = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    int rc = -1;
    s->pcs = malloc((size_t)max_depth * sizeof *s->pcs);
    if (!s->pcs || attach(s, err, errlen, code) < 0)
        goto out;
    if (!(s->unw = unwinder_new(pid, err, errlen)))
        goto out;
    refresh_maps(s);
    /* Stop every thread once, blocked ones included, as eu-stack and gdb
     * do; an EINTR we cause is undone in take_sample like when sampling. */
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        t->t_interrupt = now_ns();
        if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
            t->state = T_INTERRUPTED;
    }
    uint64_t deadline = now_ns() + 1000000000ull;
    while (pending_stops(s) && now_ns() < deadline) {
        int status;
        pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
        if (tid > 0) {
            struct sthread *t = find_thread(s, tid);
            int sig = WIFSTOPPED(status) ? WSTOPSIG(status) : 0;
            int ev = (status >> 16) & 0xff;
            if (t && WIFSTOPPED(status) && ev == PTRACE_EVENT_STOP &&
                t->state == T_INTERRUPTED) {
                /* our stop, or a group stop: registers are readable in
                 * both, and PTRACE_DETACH puts a group-stopped thread back
                 * into its stop */
                take_sample(s, t, now_ns());
                t->state = T_GROUPSTOP; /* done: detached */
            } else if (t && WIFSTOPPED(status)) {
                ptrace(PTRACE_CONT, tid, 0, ev ? 0 : sig);
            } else if (t) {
                drop_thread(s, tid);
            }
            continue;
        }
        if (tid < 0 && errno != EINTR)
            break;
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    /* print in thread-id order (the leader first), not in stop order */
    if (s->ncopies > 1)
        qsort(s->copies, s->ncopies, sizeof *s->copies, copy_by_tid);
    for (size_t i = 0; i < s->ncopies; i++) {
        struct copy *c = &s->copies[i];
        struct dump_thread d = {.tid = c->tid, .stopped = true};
        d.n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7], c->len,
                              s->pcs, max_depth, &d.end);
        d.pcs = s->pcs;
        target_thread_name(pid, c->tid, d.name, sizeof d.name);
        fn(ctx, &d, s->maps ? s->maps->text : "", s->maps ? s->maps->text_len : 0);
    }
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (t->state != T_INTERRUPTED)
            continue;
        struct dump_thread d = {.tid = t->tid, .stopped = false};
        target_thread_name(pid, t->tid, d.name, sizeof d.name);
        fn(ctx, &d, s->maps ? s->maps->text : "", s->maps ? s->maps->text_len : 0);
    }
    rc = 0;
out:
    /* Threads that never stopped stay seized until this process exits,
     * when the kernel detaches them without a stop. */
    sampler_free(s);
    return rc;
}
