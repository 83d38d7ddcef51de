/* perf_pybpf.h - the perf backend's Python frames, read in the kernel at
 * the moment of each sample.
 *
 * The perf backend never stops its targets, and drains its rings up to
 * 200 ms after the kernel wrote a sample: a Python stack read from user
 * space then would be the one running 200 ms later.  So a BPF program
 * (src/frames/bpf/pyframes.bpf.c) is attached to every sampling event
 * (PERF_EVENT_IOC_SET_BPF; inherited copies of an event carry it) and
 * walks the sampled thread's frame chain in the sampling interrupt, for
 * the processes registered here as Python (their _PyRuntime and offsets
 * in its `procs` map).  It writes each walk, with the TID and a time, to
 * a BPF ring; pf_pybpf_consume reads that ring (after the perf rings'
 * heads were read, so every sample read has its record) and
 * pf_pybpf_take hands a sample the record its interrupt wrote (the rule
 * is perf_pymatch.h's; this file is libbpf's side).  The time
 * is the sample's own stamp where the kernel stamps the sample before
 * the program runs (6.3 on: the program reads it through CO-RE), and the
 * match is then exact: a record goes to the sample of its thread and
 * time, never another.  On an older kernel it is the clock the program
 * reads, a microsecond or two later than the stamp, and the record
 * nearest the sample within a window is taken: a guess that a CPU
 * stalled between the two readings (a virtual CPU descheduled by its
 * host: gaps of 10-100 us in 1.9% of the samples on this 2-core VM
 * under load, measured once with a build that printed them) can defeat, costing the sample its frames.  Records whose
 * sample never came (lost) are dropped by pf_pybpf_trim and counted.
 *
 * Loading needs CAP_BPF and CAP_PERFMON (or root), and the kernel's BTF
 * (/sys/kernel/btf/vmlinux, for CO-RE); pf_pybpf_new says why not.  All
 * calls: the perf sampler thread.
 */
#ifndef SPROFTOP_PERF_PYBPF_H
#define SPROFTOP_PERF_PYBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf_pymatch.h"

struct script_proc;
struct script_stack;
struct pf_pybpf;

/* Load the program, its maps and a ring of ring_bytes (rounded up to a
 * power of two pages).  NULL with a one-line reason in why. */
struct pf_pybpf *pf_pybpf_new(size_t ring_bytes, char *why, size_t whylen);

/* NULL is a no-op.  Events it was attached to keep the program until
 * they are closed. */
void pf_pybpf_free(struct pf_pybpf *b);

/* Attach the program to a sampling event.  0, or -1 with errno. */
int pf_pybpf_attach(struct pf_pybpf *b, int fd);

/* Walk the threads of process pid from now on, with r's runtime and
 * offsets.  0, or -1 (the map is full). */
int pf_pybpf_add(struct pf_pybpf *b, pid_t pid,
                 const struct script_proc *sp);

/* Stop walking process pid (it exited or exec'd). */
void pf_pybpf_remove(struct pf_pybpf *b, pid_t pid);

/* Read every record the ring holds now. */
void pf_pybpf_consume(struct pf_pybpf *b);

/* The walk of thread tid's sample taken at `time`, by perf_pymatch.h's
 * rule, into *st (have set); false when there is none (its record was
 * dropped, or the program was not attached to the event yet). */
bool pf_pybpf_take(struct pf_pybpf *b, pid_t tid, uint64_t time,
                   uint64_t window, struct script_stack *st);

/* Forget the walks at or before `upto` (pf_pymatch_trim). */
void pf_pybpf_trim(struct pf_pybpf *b, uint64_t upto);

struct pf_pybpf_stats {
    uint64_t records;    /* read from the ring */
    struct pf_pymatch_stats match; /* ...matched to samples, or not */
    uint64_t dropped;    /* the ring was full: never written */
};
void pf_pybpf_get_stats(struct pf_pybpf *b, struct pf_pybpf_stats *out);

#endif
