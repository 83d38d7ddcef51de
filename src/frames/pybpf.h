/* pybpf.h - what the BPF program (pyframes.bpf.c) and the perf backend
 * (perf_pybpf.c) share: the per-process entry of the `procs` map and the
 * record written to the `frames` ring.  Fixed-size fields only. */
#ifndef SPROFTOP_PYBPF_H
#define SPROFTOP_PYBPF_H

#include "pywalk.h"

#define PYBPF_MAX_PROCS 1024
#define PYBPF_MAX_THREADS 16384

struct pybpf_proc {          /* key: the process's PID (tgid) */
    uint64_t runtime;        /* _PyRuntime's address */
    struct py_walk walk;     /* its version's offsets */
};

struct pybpf_rec {           /* one sample's Python frames */
    uint32_t pid, tid;
    uint64_t time;           /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
    uint32_t n;              /* frames that follow, leaf first */
    uint32_t status;         /* enum pywalk_status */
    struct pywalk_frame f[PYWALK_MAX_DEPTH]; /* instr bit 0: entry */
};

struct pybpf_scratch {       /* per CPU: the record being built, and the
                                walks' states (in a map, not on the
                                stack, so the verifier does not follow
                                their values through every step) */
    struct pybpf_rec rec;
    uint8_t entry[PYWALK_MAX_DEPTH];
    struct pywalk_find find;
    struct pywalk_chain chain;
    struct py_walk walk;     /* the process's offsets, copied */
};

#endif
