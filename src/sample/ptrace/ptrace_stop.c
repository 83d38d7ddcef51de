/* ptrace_stop.c - what happens in and right after one interrupt stop; see
 * ptrace_int.h.
 *
 * In the stop: read the registers, undo an EINTR our interrupt caused,
 * copy the stack from SP up (one process_vm_readv, at most stack_max
 * bytes), resume.  Everything else waits until the thread runs again:
 * the copies are unwound later (pt_stop_unwind) and their raw stacks
 * pushed to the ingest buffer.  The maps are re-read here too, since the
 * stack copy needs them and the unwinder may find them stale.
 *
 * A copy is unwound and named with the maps of one generation, which must
 * describe the process as it was when the copy was taken.  Maps read
 * before the copy may not: after an exec, ld.so maps the libraries once
 * the exec event (and its maps read) is past; dlclose and dlopen can put
 * another library at the same address.  So, for a copy newer than the
 * maps:
 *   - an address outside every mapping re-reads the maps (and unwinds
 *     again) when the process's size (vsize) changed since they were read,
 *     or in the second after an exec; else at most every MAPS_UNKNOWN_NS,
 *     since a broken frame chain makes up such addresses all the time;
 *   - every file-backed mapping the stack runs through is checked to be
 *     the one the maps name (stat of /proc/PID/map_files/START-END: same
 *     range, same inode), once per batch of copies; a mapping replaced
 *     since re-reads the maps and drops the copy, which may have been
 *     taken before the change or after it (stale_maps in the figures).
 * The copies an exec leaves are unwound first, with the old image's maps.
 */
#include "ptrace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include "clock.h"
#include "ingest.h"
#include "maps.h"
#include "stack_push.h"
#include "target.h"
#include "vec.h"

#define MAPS_NS 20000000ull       /* re-read the maps every 20 ms, or... */
#define MAPS_COST_SHARE 100       /* ...less often, so that reading them
                                     takes at most 1/100 of the sampler's
                                     time */
#define MAPS_UNKNOWN_NS 2000000ull /* at most this often for unknown IPs */

/* The kernel's restart codes (ERESTARTSYS, ERESTARTNOINTR,
 * ERESTARTNOHAND, ERESTART_RESTARTBLOCK): a syscall interrupted asleep. */
static bool restart_code(int64_t ret)
{
    return ret == -512 || ret == -513 || ret == -514 || ret == -516;
}

/* The process's vsize now, or 0 when it cannot be read. */
static uint64_t vsize_now(struct pt_sampler *s)
{
    uint64_t v;
    if (s->pstat_fd < 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)s->pid);
        s->pstat_fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (s->pstat_fd >= 0 && target_stat_vsize(s->pstat_fd, &v) == 0)
        return v;
    /* gone, or a zombie leader (its stat stays; its vsize reads 0) */
    return 0;
}

void pt_stop_announce(struct pt_sampler *s)
{
    if (s->announced)
        return;
    s->announced = true;
    if (!s->cfg.on_process)
        return;
    char comm[32];
    target_thread_name(s->pid, s->pid, comm, sizeof comm);
    s->cfg.on_process(s->cfg.ctx, s->pid, comm, false, 0);
}

/* Re-read /proc/PID/maps; on change, bump the generation, tell the
 * unwinder and the collector.  Returns true when they changed.  A read
 * that fails or finds no mapping (a process has some) changes nothing,
 * not even the time of the last read: the maps it would replace are no
 * fresher for it. */
bool pt_stop_refresh_maps(struct pt_sampler *s)
{
    /* read the size first: the maps are then at least as new as it */
    uint64_t vsize = vsize_now(s);
    uint64_t t0 = clock_mono_ns(), cpu0 = clock_thread_cpu_ns();
    struct maps *m = maps_read(s->pid);
    /* a zombie leader's maps are empty: read them through a live thread */
    for (size_t i = 0; (!m || m->n == 0) && i < s->nthreads; i++) {
        if (s->threads[i]->tid == s->pid)
            continue;
        maps_free(m);
        m = maps_read_task(s->pid, s->threads[i]->tid);
    }
    /* A library closed and another opened at the same address can only be
     * told apart by re-reading the maps; a process with thousands of
     * mappings makes that expensive, so the period follows the cost: the
     * CPU time of the read, which a busy machine does not stretch as it
     * stretches the wall-clock time. */
    s->maps_period = (clock_thread_cpu_ns() - cpu0) * MAPS_COST_SHARE;
    if (s->maps_period < MAPS_NS)
        s->maps_period = MAPS_NS;
    if (!m || m->n == 0) {
        maps_free(m);
        return false;
    }
    s->t_maps = t0;
    s->maps_vsize = vsize;
    if (s->maps && maps_same(s->maps, m)) {
        maps_free(m);
        return false;
    }
    maps_free(s->maps);
    s->maps = m;
    s->nchecked = 0;  /* its entries pointed into the old maps */
    s->gen++;
    unwinder_set_maps(s->unw, m);
    /* the interpreter, once its executable or libpython is mapped */
    if (!s->script && (s->script = script_proc_find(s->pid, m)))
        snprintf(s->live.script, sizeof s->live.script, "%s",
                 script_proc_label(s->script));
    pt_stop_announce(s);
    if (s->cfg.on_maps)
        s->cfg.on_maps(s->cfg.ctx, s->pid, s->gen, m->text, m->text_len);
    return true;
}

static void regs_to_dwarf(const struct user_regs_struct *r, uint64_t out[UNWIND_NREGS])
{
    out[0] = r->rax, out[1] = r->rdx, out[2] = r->rcx, out[3] = r->rbx;
    out[4] = r->rsi, out[5] = r->rdi, out[6] = r->rbp, out[7] = r->rsp;
    out[8] = r->r8, out[9] = r->r9, out[10] = r->r10, out[11] = r->r11;
    out[12] = r->r12, out[13] = r->r13, out[14] = r->r14, out[15] = r->r15;
    out[16] = r->rip;
}

/* A copy slot with its stack buffer; NULL on OOM. */
static struct pt_copy *new_copy(struct pt_sampler *s)
{
    if (VEC_RESERVE_ZERO(s->copies, s->capcopies, s->ncopies + 1) < 0)
        return NULL;
    struct pt_copy *c = &s->copies[s->ncopies];
    if (!c->buf && !(c->buf = malloc(s->cfg.stack_max)))
        return NULL;
    s->ncopies++;
    return c;
}

/* A blocking syscall that our interrupt made fail with EINTR (epoll_wait,
 * sigtimedwait, recv with SO_RCVTIMEO) is restarted, unless a real
 * unblocked signal is pending, which is then what interrupted it. */
static void undo_eintr(struct pt_sampler *s, pid_t tid,
                       const struct user_regs_struct *r)
{
    if ((int64_t)r->orig_rax < 0 || (int64_t)r->rax != -EINTR ||
        target_unblocked_pending(s->pid, tid) != 0)
        return;
    struct user_regs_struct w = *r;
    w.rax = w.orig_rax;
    w.rip -= 2; /* back onto the 2-byte syscall instruction */
    if (ptrace(PTRACE_SETREGS, tid, 0, &w) == 0)
        s->live.eintr_restarts++;
}

/* Registers and the top of the stack of a stopped thread into c. */
static void copy_stack(struct pt_sampler *s, struct pt_copy *c,
                       const struct user_regs_struct *r)
{
    regs_to_dwarf(r, c->regs);
    c->in_syscall = (int64_t)r->orig_rax >= 0;
    /* A syscall returning EINTR or a restart code at our stop was asleep
     * when the interrupt landed: the thread was running when we looked
     * but blocked before it stopped. */
    int64_t ret = (int64_t)r->rax;
    c->was_sleeping = c->in_syscall && (ret == -EINTR || restart_code(ret));
    c->sc_sp = r->rsp;
    c->sc_pc = r->rip;
    c->len = 0;
    const struct map_entry *e = maps_find(s->maps, r->rsp);
    if (!e) {
        pt_stop_refresh_maps(s);
        e = maps_find(s->maps, r->rsp);
    }
    if (!e)
        return;
    size_t want = e->end - r->rsp;
    if (want > s->cfg.stack_max)
        want = s->cfg.stack_max;
    struct iovec local = {c->buf, want};
    struct iovec remote = {(void *)(uintptr_t)r->rsp, want};
    ssize_t got = process_vm_readv(c->tid, &local, 1, &remote, 1, 0);
    c->len = got > 0 ? (size_t)got : 0;
}

/* The thread is in our interrupt stop: read registers, copy the stack,
 * undo an EINTR we caused, resume (--dump: detach). */
void pt_stop_take(struct pt_sampler *s, struct sthread *t, uint64_t t_seen)
{
    struct user_regs_struct r;
    if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0) {
        ptrace(PTRACE_CONT, t->tid, 0, 0);
        return;
    }
    undo_eintr(s, t->tid, &r);
    struct pt_copy *c = new_copy(s);
    if (c) {
        c->tid = t->tid;
        c->t = t;
        c->time = t_seen;
        c->weight = t->weight;
        copy_stack(s, c, &r);
        /* the Python frames of this moment, before the thread runs on */
        script_walk(s->script, t->tid, &c->py);
    }
    ptrace(s->dump_mode ? PTRACE_DETACH : PTRACE_CONT, t->tid, 0, 0);
    uint64_t t_res = clock_mono_ns();
    t->state = T_FREE;
    s->live.stops++;
    if (t->was_blocked)
        s->pt_live.stops_blocked++;
    hist_add(&s->stop_h, t_res - t_seen);
    hist_add(&s->lat_h, t_seen - t->t_interrupt);
}

bool pt_stop_push(struct pt_sampler *s, pid_t tid, struct sthread *t,
                  const uint64_t *pcs, int n, uint32_t flags, uint64_t time,
                  uint64_t weight, const struct script_stack *py,
                  const uint64_t **words, int *nwords)
{
    struct ingest_rec h = {.type = INGEST_SAMPLE, .pid = s->pid, .tid = tid, .flags = flags,
                           .time = time, .gen = s->gen, .weight = weight};
    if (!stack_push(s->script, s->cfg.ingest, &s->live, &h, pcs, n, py,
                    NULL, 0, words, nwords))
        return false;
    s->win_samples++;
    if (t)
        t->samples++;
    return true;
}

/* An IP outside every known mapping: are the maps worth re-reading?
 * Only if they were read before the copy was taken (else they already
 * showed what was mapped then); then when the process's size changed
 * since (something was mapped: ld.so's libraries after an exec, a
 * dlopen), or in the second after an exec; else at most every
 * MAPS_UNKNOWN_NS, since a broken frame chain makes up unknown
 * addresses at every sample. */
static bool maps_may_be_stale(struct pt_sampler *s, const struct pt_copy *c,
                              uint64_t now)
{
    if (s->t_maps >= c->time)
        return false;
    if (now - s->t_maps > MAPS_UNKNOWN_NS || now < s->maps_fast_until)
        return true;
    uint64_t v = vsize_now(s);
    return v && v != s->maps_vsize;
}

/* Whether the file-backed mapping e is still the one the maps name:
 * /proc/PID/map_files/START-END exists (the same range is mapped) and
 * is the same file.  True when that cannot be told. */
static bool mapping_in_place(struct pt_sampler *s, const struct map_entry *e)
{
    char path[96];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
             (int)s->pid, e->start, e->end);
    if (stat(path, &st) == 0)
        return (uint64_t)st.st_ino == e->inode;
    if (errno == EPERM || errno == EACCES)
        s->map_files_denied = true;
    return errno != ENOENT;
}

/* Whether every file-backed mapping pcs[0..n) runs through is still in
 * place, for a copy taken at `time`; each is looked at once per batch. */
static bool modules_in_place(struct pt_sampler *s, uint64_t time,
                             const uint64_t *pcs, int n)
{
    const struct map_entry *last = NULL;
    for (int i = 0; i < n && !s->map_files_denied; i++) {
        /* a return address may follow the call's last byte */
        const struct map_entry *e = maps_find(s->maps, pcs[i] - (i > 0));
        if (!e || e == last || !e->inode || e->path[0] != '/')
            continue;
        last = e;
        size_t k = 0;
        while (k < s->nchecked && s->checked[k].e != e)
            k++;
        if (k < s->nchecked && s->checked[k].at > time)
            continue;
        uint64_t now = clock_mono_ns();
        if (!mapping_in_place(s, e))
            return false;
        if (k == s->nchecked && k < PT_MOD_CHECKS)
            s->checked[s->nchecked++].e = e;
        if (k < s->nchecked)
            s->checked[k].at = now;
    }
    return true;
}

/* Unwind one copy into s->pcs; *end says why it stopped.  -1: the copy
 * is dropped, a library having been replaced under it. */
static int unwind_copy(struct pt_sampler *s, const struct pt_copy *c,
                       enum unwind_end *end)
{
    uint64_t t0 = clock_mono_ns();
    int n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7],
                            c->len, s->pcs, s->cfg.max_depth, end);
    if (s->old_image) {
        /* nothing newer describes an image that exec replaced */
    } else if (unwinder_saw_unknown(s->unw) &&
               maps_may_be_stale(s, c, clock_mono_ns()) &&
               pt_stop_refresh_maps(s)) {
        /* mapped since the last read: unwind again with the new maps */
        n = unwinder_unwind(s->unw, c->tid, c->regs, c->buf, c->regs[7],
                            c->len, s->pcs, s->cfg.max_depth, end);
    } else if (s->t_maps < c->time &&
               !modules_in_place(s, c->time, s->pcs, n)) {
        /* replaced since the last read, before or after the copy */
        pt_stop_refresh_maps(s);
        s->pt_live.stale_maps++;
        n = -1;
    }
    hist_add(&s->unw_h, clock_mono_ns() - t0);
    return n;
}

/* --idle: keep the stack (the words pushed: native and Python frames) of
 * a thread stopped in a syscall, to reuse while it stays blocked there. */
static void keep_last(struct pt_sampler *s, const struct pt_copy *c,
                      const uint64_t *words, int n, uint32_t flags)
{
    struct sthread *t = c->t;
    size_t cap = (size_t)s->cfg.max_depth + SCRIPT_EXTRA_WORDS;
    if (!t->last_pcs)
        t->last_pcs = malloc(cap * sizeof *t->last_pcs);
    if (!t->last_pcs)
        return;
    if ((size_t)n > cap)
        n = (int)cap;
    memcpy(t->last_pcs, words, (size_t)n * sizeof *words);
    t->last_n = n;
    t->last_flags = flags;
    t->have_last = c->in_syscall;
    t->last_sp = c->sc_sp;
    t->last_pc = c->sc_pc;
}

/* Unwind every copy taken since the last call (threads running again). */
void pt_stop_unwind(struct pt_sampler *s)
{
    script_next_generation(s->script, clock_mono_ns());
    for (size_t i = 0; i < s->ncopies; i++) {
        struct pt_copy *c = &s->copies[i];
        if (c->was_sleeping && !s->cfg.idle) {
            /* on-CPU mode: that moment was not CPU use */
            s->pt_live.discarded++;
            continue;
        }
        enum unwind_end end;
        int n = unwind_copy(s, c, &end);
        if (n < 0)
            continue;
        uint32_t flags = 0;
        s->live.unwind_end[end]++;
        if (end != UNWIND_COMPLETE) {
            flags |= INGEST_F_TRUNCATED;
            s->live.truncated++;
        }
        const uint64_t *words;
        int nwords;
        if (pt_stop_push(s, c->tid, c->t, s->pcs, n, flags, c->time,
                         c->weight, &c->py, &words, &nwords) &&
            c->t && s->cfg.idle)
            keep_last(s, c, words, nwords, flags);
    }
    s->ncopies = 0;
    /* a new batch looks at the mappings again */
    s->nchecked = 0;
}

void pt_stop_unwind_old(struct pt_sampler *s)
{
    s->old_image = true;
    pt_stop_unwind(s);
    s->old_image = false;
}

void pt_stop_free(struct pt_sampler *s)
{
    for (size_t i = 0; i < s->capcopies; i++)
        free(s->copies[i].buf);
    free(s->copies);
    s->copies = NULL;
    s->ncopies = s->capcopies = 0;
    maps_free(s->maps);
    s->maps = NULL;
    script_proc_free(s->script);
    s->script = NULL;
    if (s->pstat_fd >= 0)
        close(s->pstat_fd);
    s->pstat_fd = -1;
}
