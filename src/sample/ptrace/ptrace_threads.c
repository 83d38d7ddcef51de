/* ptrace_threads.c - the ptrace backend's thread table; see ptrace_int.h.
 *
 * Threads are found by rescanning /proc/PID/task, which costs the target
 * nothing (PTRACE_O_TRACECLONE would stop every thread creation twice).
 * The table itself is the owner's alone; what a reader may see of a
 * thread is its struct pt_stat, on a list that only grows while the
 * sampler lives, updated under `lock`.
 */
#include "ptrace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "clock.h"
#include "ingest.h"
#include "target.h"
#include "vec.h"

#define NAMES_NS 2000000000ull  /* thread names re-read this often */

struct sthread *pt_threads_find(struct pt_sampler *s, pid_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i]->tid == tid)
            return s->threads[i];
    return NULL;
}

static void push_name(struct pt_sampler *s, pid_t tid, const char *name)
{
    if (!s->cfg.ingest)
        return; /* --dump has no ingest */
    pt_stop_announce(s);
    struct ingest_rec h = {.type = INGEST_THREAD, .pid = s->pid, .tid = tid,
                           .time = clock_mono_ns(), .gen = s->gen};
    ingest_push(s->cfg.ingest, &h, name, strlen(name));
}

static int open_task_file(pid_t pid, pid_t tid, const char *what)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, (int)tid, what);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Its figures, on the readers' list (NULL on OOM: the thread is sampled
 * all the same). */
static struct pt_stat *new_stat(struct pt_sampler *s, const struct sthread *t)
{
    struct pt_stat *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->pub.pid = s->pid;
    st->pub.tid = t->tid;
    snprintf(st->pub.name, sizeof st->pub.name, "%s", t->name);
    st->born_ns = t->born_ns;
    st->alive = true;
    pthread_mutex_lock(&s->lock);
    *s->stats_tail = st;
    s->stats_tail = &st->next;
    pthread_mutex_unlock(&s->lock);
    return st;
}

struct sthread *pt_threads_add(struct pt_sampler *s, pid_t tid)
{
    pt_assert_owner(s);
    struct sthread *t;
    if (VEC_RESERVE(s->threads, s->capthreads, s->nthreads + 1) < 0 ||
        !(t = calloc(1, sizeof *t)))
        return NULL;
    t->tid = tid;
    t->stat_fd = open_task_file(s->pid, tid, "stat");
    t->sched_fd = s->cfg.idle ? -1 : open_task_file(s->pid, tid, "schedstat");
    t->syscall_fd = s->cfg.idle ? open_task_file(s->pid, tid, "syscall") : -1;
    t->seen = true;
    t->born_ns = clock_mono_ns();
    /* Spread first samples over one interval so threads seized together
     * are not all due on the same tick. */
    uint64_t iv = atomic_load(&s->interval_ns);
    t->next_due = t->born_ns + (uint64_t)(tid * 2654435761u) % (iv ? iv : 1);
    target_thread_name(s->pid, tid, t->name, sizeof t->name);
    t->stat = new_stat(s, t);
    s->live.threads_seen++;
    s->threads[s->nthreads++] = t;
    /* a command being launched is still sproftop until its exec: it gets
     * its name at PTRACE_EVENT_EXEC */
    if (!s->launch_pending)
        push_name(s, tid, t->name);
    return t;
}

/* The oldest exited thread's record leaves the list for the counts while
 * it holds more than SAMPLER_EXITED_LISTED of them.  Under the lock. */
static void stats_trim(struct pt_sampler *s)
{
    struct pt_stat **at = &s->stats, *prev = NULL;
    while (s->stats_dead > SAMPLER_EXITED_LISTED && *at) {
        struct pt_stat *st = *at;
        if (st->alive) {
            prev = st;
            at = &st->next;
            continue;
        }
        *at = st->next;
        if (s->stats_tail == &st->next)
            s->stats_tail = prev ? &prev->next : &s->stats;
        s->gone_threads++;
        s->gone_samples += st->pub.samples;
        s->stats_dead--;
        free(st);
    }
}

void pt_threads_drop(struct pt_sampler *s, pid_t tid)
{
    pt_assert_owner(s);
    size_t i = 0;
    while (i < s->nthreads && s->threads[i]->tid != tid)
        i++;
    if (i == s->nthreads)
        return;
    struct sthread *t = s->threads[i];
    s->threads[i] = s->threads[--s->nthreads];
    for (size_t c = 0; c < s->ncopies; c++)
        if (s->copies[c].t == t)
            s->copies[c].t = NULL;
    if (t->stat) {
        uint64_t alive = clock_mono_ns() - t->born_ns;
        pthread_mutex_lock(&s->lock);
        t->stat->pub.alive_ns = alive;
        t->stat->pub.samples = t->samples;
        t->stat->pub.due = t->due;
        t->stat->alive = false;
        s->stats_dead++;
        stats_trim(s);
        pthread_mutex_unlock(&s->lock);
    }
    if (t->stat_fd >= 0)
        close(t->stat_fd);
    if (t->syscall_fd >= 0)
        close(t->syscall_fd);
    if (t->sched_fd >= 0)
        close(t->sched_fd);
    free(t->last_pcs);
    free(t);
}

void pt_threads_exited(struct pt_sampler *s, pid_t tid)
{
    pt_assert_owner(s);
    /* told once: a thread dropped when /proc lost it may still bring
     * its exit event */
    bool known = pt_threads_find(s, tid) != NULL;
    pt_threads_drop(s, tid);
    if (!known || tid == s->pid || !s->cfg.ingest)
        return;
    /* on OOM it stays apart in the profile: its samples are all there */
    if (VEC_RESERVE(s->exited, s->capexited, s->nexited + 1) == 0)
        s->exited[s->nexited++] = tid;
}

void pt_threads_tell_exited(struct pt_sampler *s)
{
    size_t k = 0;
    uint64_t now = clock_mono_ns();
    for (; k < s->nexited; k++) {
        struct ingest_rec h = {.type = INGEST_THREAD_EXIT, .pid = s->pid,
                               .tid = s->exited[k], .time = now,
                               .gen = s->gen};
        if (ingest_push(s->cfg.ingest, &h, NULL, 0) < 0)
            break;
    }
    if (k == 0)
        return; /* (s->exited may be NULL: memmove wants a pointer) */
    memmove(s->exited, s->exited + k, (s->nexited - k) * sizeof *s->exited);
    s->nexited -= k;
}

void pt_threads_rename(struct pt_sampler *s, struct sthread *t,
                       const char *name)
{
    snprintf(t->name, sizeof t->name, "%s", name);
    push_name(s, t->tid, name);
    if (!t->stat)
        return;
    pthread_mutex_lock(&s->lock);
    snprintf(t->stat->pub.name, sizeof t->stat->pub.name, "%s", name);
    pthread_mutex_unlock(&s->lock);
}

struct rescan {
    struct pt_sampler *s;
    bool first;
    int *first_errno;
    int added;
};

static int rescan_one(void *ctx, pid_t tid)
{
    struct rescan *r = ctx;
    struct sthread *t = pt_threads_find(r->s, tid);
    if (t) {
        t->seen = true;
        return 0;
    }
    if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACEEXEC) < 0) {
        if (r->first && r->first_errno && !*r->first_errno && errno != ESRCH)
            *r->first_errno = errno;
        return 0;
    }
    if (pt_threads_add(r->s, tid))
        r->added++;
    return 0;
}

/* One pass over /proc/PID/task: seize what is new, mark what is there.
 * Returns the number seized, or -1 with errno when the directory cannot
 * be read. */
static int rescan_pass(struct pt_sampler *s, bool first, int *first_errno)
{
    for (size_t i = 0; i < s->nthreads; i++)
        s->threads[i]->seen = false;
    struct rescan r = {s, first, first_errno, 0};
    if (target_tasks(s->pid, rescan_one, &r) < 0)
        return -1;
    return r.added;
}

/* Seize every thread of the process not seized yet.  Returns the number
 * of threads newly seized, or -1 with *first_errno from the first failure
 * when nothing at all could be seized and `first` is set. */
int pt_threads_rescan(struct pt_sampler *s, bool first, int *first_errno)
{
    int added = 0;
    /* Repeat until a pass finds nothing new: threads may be created
     * between reading the directory and seizing. */
    for (int pass = 0; pass < 8; pass++) {
        int n = rescan_pass(s, first, first_errno);
        if (n < 0) {
            if (first_errno)
                *first_errno = errno == ENOENT ? ESRCH : errno;
            return first ? -1 : added;
        }
        added += n;
        if (!n)
            break;
    }
    return added;
}

/* Threads name themselves (pthread_setname_np) just after they start,
 * usually after we seized them, and programs rename threads later too:
 * re-read the names of young threads at every rescan and of all threads
 * every NAMES_NS, and pass changes on. */
static void refresh_names(struct pt_sampler *s, uint64_t now)
{
    bool all = now - s->t_names >= NAMES_NS;
    if (all)
        s->t_names = now;
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (!all && now - t->born_ns > NAMES_NS)
            continue;
        char name[32];
        target_thread_name(s->pid, t->tid, name, sizeof name);
        if (name[0] && strcmp(name, t->name) != 0)
            pt_threads_rename(s, t, name);
    }
}

/* The periodic look at /proc: seize new threads, drop vanished ones,
 * re-read names. */
void pt_threads_refresh(struct pt_sampler *s, uint64_t now)
{
    pt_threads_rescan(s, false, NULL);
    for (size_t i = s->nthreads; i-- > 0;) {
        struct sthread *t = s->threads[i];
        /* gone from /proc but no exit event (e.g. not reaped yet): it
         * will come; only drop threads whose stat is gone */
        if (!t->seen && target_stat_state(t->stat_fd, NULL) == 0 &&
            t->state == T_FREE && t->tid != s->pid)
            pt_threads_exited(s, t->tid);
    }
    s->t_rescan = now;
    refresh_names(s, now);
}

size_t pt_threads_pending(const struct pt_sampler *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nthreads; i++)
        n += s->threads[i]->state == T_INTERRUPTED;
    return n;
}

void pt_threads_publish(struct pt_sampler *s)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nthreads; i++) {
        struct sthread *t = s->threads[i];
        if (t->stat) {
            t->stat->pub.samples = t->samples;
            t->stat->pub.due = t->due;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

void pt_threads_foreach(struct pt_sampler *s,
                        void (*fn)(void *ctx,
                                   const struct sampler_thread_stats *t),
                        void *ctx)
{
    uint64_t now = clock_mono_ns();
    /* a copy taken under the lock (records leave the list when exited
     * threads are trimmed); fn runs without it */
    pthread_mutex_lock(&s->lock);
    size_t n = 0;
    for (const struct pt_stat *st = s->stats; st; st = st->next)
        n++;
    struct sampler_thread_stats *all = malloc((n + 1) * sizeof *all);
    n = 0;
    for (const struct pt_stat *st = all ? s->stats : NULL; st; st = st->next) {
        struct sampler_thread_stats *t = &all[n++];
        *t = st->pub;
        t->alive = st->alive;
        if (st->alive)
            t->alive_ns = now - st->born_ns;
    }
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < n; i++)
        fn(ctx, &all[i]);
    free(all);
}

void pt_threads_free(struct pt_sampler *s)
{
    while (s->nthreads)
        pt_threads_drop(s, s->threads[s->nthreads - 1]->tid);
    free(s->threads);
    s->threads = NULL;
    free(s->exited);
    s->exited = NULL;
    s->nexited = s->capexited = 0;
    while (s->stats) {
        struct pt_stat *next = s->stats->next;
        free(s->stats);
        s->stats = next;
    }
    s->stats_tail = &s->stats;
}
