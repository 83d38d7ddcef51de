/* perf_pymatch.h - the interpreter walks the BPF program wrote, waiting
 * for their samples, and the rule that gives each sample its walk.
 *
 * The BPF program (perf_pybpf.h) walks a thread's frames in the sampling
 * interrupt and writes the walk with the thread's TID and a time; the
 * sample itself reaches user space through the perf ring.  A walk whose
 * time is its sample's own stamp (`exact`: the kernel stamped the sample
 * before it ran the program, 6.3 on) goes to the sample of its thread
 * with exactly that time and to no other.  A walk stamped by the clock
 * the program read (older kernels: a microsecond or two after the
 * sample's stamp) goes to the sample of its thread nearest it within a
 * window, that no sample took.  Walks no sample took are dropped by
 * pf_pymatch_trim and counted as orphans.
 *
 * libc only (no libbpf): unit tested in tests/unit/engine/test_pymatch.c.
 * All calls: the perf sampler thread (or the test), no lock.
 */
#ifndef SPROFTOP_PERF_PYMATCH_H
#define SPROFTOP_PERF_PYMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pywalk.h"

struct script_stack;
struct pf_pymatch;

struct pf_pymatch_stats {
    uint64_t added;      /* walks added */
    uint64_t matched;    /* taken by a sample */
    uint64_t near;       /* ...of which by the nearest clock reading, not
                            by the sample's own stamp */
    uint64_t orphans;    /* dropped by a trim, never taken (their sample
                            was lost) */
};

/* An empty set, or NULL (out of memory). */
struct pf_pymatch *pf_pymatch_new(void);

/* NULL is a no-op. */
void pf_pymatch_free(struct pf_pymatch *m);

/* Add thread tid's walk stamped `time` (exact: the sample's own stamp),
 * its status (enum pywalk_status) and flags (PYWALK_F_*), and its n
 * frames f[0..n), leaf first, the entry flag in bit 0 of each instr.
 * 0, or -1 (n over PYWALK_MAX_DEPTH, or out of memory: the walk is not
 * kept, its sample will count as unreadable). */
int pf_pymatch_add(struct pf_pymatch *m, uint32_t tid, uint64_t time,
                   bool exact, uint8_t status, uint8_t flags,
                   const struct pywalk_frame *f, uint32_t n);

/* The walk of thread tid's sample taken at `time`: the exact walk of tid
 * with that time; else, of tid's walks stamped by the clock, the one
 * nearest `time`, at most `window` ns away, that no sample took.  Into
 * *st (have set) and true; false, *st untouched but for have = false,
 * when there is none. */
bool pf_pymatch_take(struct pf_pymatch *m, pid_t tid, uint64_t time,
                     uint64_t window, struct script_stack *st);

/* Forget the walks stamped at or before `upto` (a drain's last sample,
 * less a margin): the ones no sample took count as orphans. */
void pf_pymatch_trim(struct pf_pymatch *m, uint64_t upto);

/* What was added, matched and dropped so far. */
void pf_pymatch_get_stats(const struct pf_pymatch *m,
                          struct pf_pymatch_stats *out);

#endif
