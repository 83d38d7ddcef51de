/* perf_record.h - the records of sproftop's perf_event ring buffers.
 *
 * Every event sproftop opens has the same sample_type (PERF_RECORD_TYPE)
 * and sample_regs_user (PERF_RECORD_REGS), with sample_id_all, so every
 * record ends with the same sample_id trailer and every sample has the
 * same layout.  This module turns those bytes into plain structs: the
 * sampled user registers in the unwinder's (DWARF) order, a pointer to
 * the copied stack, and the pid/tid/time/cpu/id of side-band records.
 *
 * Pure parsing, no system call; used by perf_events.c (which opens events
 * with these settings) and perf_sampler.c.
 */
#ifndef SPROFTOP_PERF_RECORD_H
#define SPROFTOP_PERF_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "unwind.h"

/* What every sample carries.  IDENTIFIER first, so the event a sample
 * came from is found without parsing the rest. */
#define PERF_RECORD_TYPE                                                    \
    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |            \
     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |              \
     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* Kernel frames kept from a sample's call chain (the kernel's own limit,
 * kernel.perf_event_max_stack, is 127 by default). */
#define PERF_RECORD_KSTACK 128

/* The user registers the unwinder needs (asm/perf_regs.h numbering): ax
 * bx cx dx si di bp sp ip, r8..r15 - what perf's PERF_REGS_MASK asks for
 * minus flags and segments. */
#define PERF_RECORD_REGS 0xff01ffull
#define PERF_RECORD_NREGS 17

/* A PERF_RECORD_SAMPLE. */
struct perf_sample {
    uint64_t id;         /* the event opened by us it came through */
    uint64_t ip;         /* may be a kernel address (kernel samples) */
    uint32_t pid, tid;
    uint64_t time;       /* CLOCK_MONOTONIC ns (use_clockid) */
    uint32_t cpu;
    uint64_t period;
    const uint8_t *chain;/* the call chain: chain_n u64 entries, context
                            markers (PERF_CONTEXT_*) included; the user
                            part is never asked for (exclude_callchain_
                            user), the kernel part where allowed */
    uint32_t chain_n;
    bool user_regs;      /* regs hold a 64-bit task's user registers */
    uint64_t regs[UNWIND_NREGS]; /* DWARF order (unwind.h) */
    const uint8_t *stack;/* copied from regs[7] (the user SP) up */
    uint64_t stack_len;  /* bytes copied */
    bool stack_full;     /* the whole asked size was copied (so the
                            stack may go on beyond the copy) */
};

/* The sample_id trailer of every other record. */
struct perf_sample_id {
    uint32_t pid, tid;
    uint64_t time;
    uint32_t cpu;
    uint64_t id;
};

/* Parse a sample.  0, or -1 when it is malformed. */
int perf_record_sample(const struct perf_event_header *h,
                       struct perf_sample *out);

/* The kernel part of s's call chain, innermost first (the sampled
 * kernel address, then return addresses): at most max entries into out;
 * returns how many (0 when the sample was taken in user mode, or kernel
 * chains were not asked for). */
int perf_record_kernel_chain(const struct perf_sample *s, uint64_t *out,
                             int max);

/* Parse the trailer of a non-sample record.  0, or -1. */
int perf_record_id(const struct perf_event_header *h,
                   struct perf_sample_id *out);

/* The time of any record (for ordering the rings' records), 0 if it
 * has none. */
uint64_t perf_record_time(const struct perf_event_header *h);

/* The fixed part of PERF_RECORD_FORK / PERF_RECORD_EXIT. */
struct perf_record_task {
    uint32_t pid, ppid, tid, ptid;
    uint64_t time;
};

/* The fixed part of PERF_RECORD_COMM; the name follows, NUL-terminated. */
struct perf_record_comm {
    uint32_t pid, tid;
    char comm[];
};

/* The fixed part of PERF_RECORD_MMAP2 (the file path follows). */
struct perf_record_mmap2 {
    uint32_t pid, tid;
    uint64_t addr, len, pgoff;
    uint32_t maj, min;
    uint64_t ino, ino_generation;
    uint32_t prot, flags;
    char filename[];
};

/* PERF_RECORD_LOST. */
struct perf_record_lost {
    uint64_t id, lost;
};

#endif
