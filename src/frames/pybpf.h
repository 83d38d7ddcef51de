/* pybpf.h - what the BPF program (pyframes.bpf.c) and the perf backend
 * (perf_pybpf.c) share: the per-process entry of the `procs` map and the
 * record written to the `frames` ring, for every language the program
 * walks (Python with pywalk.h, Ruby with rbwalk.h: the record is the
 * same).  Fixed-size fields only. */
#ifndef SPROFTOP_PYBPF_H
#define SPROFTOP_PYBPF_H

#include "pywalk.h"
#include "rbwalk.h"

#define PYBPF_MAX_PROCS 1024
#define PYBPF_MAX_THREADS 16384

struct pybpf_proc {          /* key: the process's PID (tgid) */
    uint32_t lang;           /* enum script_lang: 1 Python, 2 Ruby */
    uint32_t pad;
    uint64_t runtime;        /* Python: _PyRuntime's address; Ruby:
                                ruby_current_vm_ptr's */
    struct py_walk walk;     /* Python: its version's offsets */
    struct rb_walk rb;       /* Ruby: its version's offsets */
};

/* pybpf_rec.status: time is the stamp of the sample the walk belongs to
 * (exactly equal to the sample's time), not a clock read near it. */
#define PYBPF_SAMPLE_TIME (1u << 16)

struct pybpf_rec {           /* one sample's Python frames */
    uint32_t pid, tid;
    uint64_t time;           /* CLOCK_MONOTONIC ns: the sample's own
                                stamp with PYBPF_SAMPLE_TIME, else the
                                clock read by the program */
    uint32_t n;              /* frames that follow, leaf first */
    uint32_t status;         /* enum pywalk_status, PYWALK_F_* << 8,
                                PYBPF_SAMPLE_TIME */
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
    struct rbwalk_find rfind;
    struct rbwalk_chain rchain;
    struct rb_walk rb;
};

#endif
