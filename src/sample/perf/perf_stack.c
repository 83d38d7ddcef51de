/* perf_stack.c - the perf sampler's stacks: a copy unwound over its
 * process's maps (read again when they went stale), how it ended counted,
 * and the stack pushed, with its kernel part and its interpreter frames
 * (stack_push.h); see perf_int.h.  Above the process tables
 * (perf_procs.c) and the maps (perf_maps.c), which it calls.
 */
#include "perf_int.h"

#include "clock.h"
#include "ingest.h"
#include "stack_push.h"
#include "target.h"

#include <stdint.h>

#define UNKNOWN_MAPS_NS 1000000000ull /* see pf_unwind_raw */

int pf_unwind_raw(struct pf_sampler *s, struct pproc *p, const uint64_t *regs,
                  const uint8_t *stack, uint64_t len, enum unwind_end *end)
{
    pf_maps_current(s, p);
    struct unwinder *u = p->maps ? pf_proc_unwinder(s, p) : NULL;
    if (!u) { /* gone before its maps could be read */
        *end = UNWIND_OTHER;
        s->pcs[0] = regs[16];
        return 1;
    }
    /* Memory the copy lacks (text, unwind tables) is read through a thread
     * that still exists: the leader, unless it has exited (main called
     * pthread_exit); a sample is handled after its thread may be gone. */
    pid_t via = p->pid;
    for (size_t k = s->nalive; p->leader_gone && k-- > 0;)
        if (&s->procs[s->thr[s->alive[k]].proc] == p) {
            via = s->thr[s->alive[k]].tid;
            break;
        }
    uint64_t t0 = clock_mono_ns();
    int n = unwinder_unwind(u, via, regs, stack, regs[7], (size_t)len,
                            s->pcs, s->cfg.max_depth, end);
    if (unwinder_saw_unknown(u) && t0 - p->t_maps > UNKNOWN_MAPS_NS &&
        pf_proc_refresh_maps(s, p))
        n = unwinder_unwind(u, via, regs, stack, regs[7], (size_t)len,
                            s->pcs, s->cfg.max_depth, end);
    uint64_t took = clock_mono_ns() - t0;
    s->unw_last[s->unw_n++ % PERF_UNWIND_KEEP] = took > UINT32_MAX ? UINT32_MAX
                                                                    : (uint32_t)took;
    return n;
}

/* --- stacks: unwound, counted, pushed ----------------------------------------- */

bool pf_push_stack(struct pf_sampler *s, struct pthr *t, const uint64_t *pcs,
                   int n, uint32_t flags, uint64_t time, uint64_t weight,
                   const struct script_stack *py, const uint64_t *kpcs,
                   int nk)
{
    struct pproc *p = &s->procs[t->proc];
    pf_proc_announce(s, p);
    if (!t->named) {
        if (!t->name[0]) /* launched: named at its exec, and that was lost */
            target_thread_name(p->pid, t->tid, t->name, sizeof t->name);
        pf_thr_push_name(s, t, time);
    }
    struct ingest_rec h = {.type = INGEST_SAMPLE, .pid = p->pid, .tid = t->tid,
                           .flags = flags, .time = time, .gen = p->gen,
                           .weight = weight};
    if (!stack_push(p->script, s->cfg.ingest, &s->live, &h, pcs, n, py,
                    kpcs, nk, NULL, NULL))
        return false;
    s->live.kstacks += nk > 0;
    t->samples++;
    return true;
}

uint32_t pf_count_end(struct pf_sampler *s, enum unwind_end end)
{
    s->live.unwind_end[end]++;
    if (end == UNWIND_COMPLETE)
        return 0;
    s->live.truncated++;
    return INGEST_F_TRUNCATED;
}

int pf_unwind(struct pf_sampler *s, struct pproc *p, const uint64_t *regs,
              const uint8_t *stack, uint64_t len, uint32_t *flags)
{
    enum unwind_end end;
    int n = pf_unwind_raw(s, p, regs, stack, len, &end);
    *flags = pf_count_end(s, end);
    s->last_end = end;
    return n;
}
