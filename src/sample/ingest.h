/* ingest.h - the double buffer between the sampler and the collector.
 *
 * The sampler thread appends records (raw stacks, thread names) to the
 * active buffer under a short lock; the collector swaps the two buffers in
 * O(1) under the same lock and then reads the full one with the lock
 * released (perf's hists->entries_in_array[2]).  Rule: no malloc and no
 * syscall while the lock is held - only a bounds check and a memcpy - so
 * the sampler is never held up by symbolization or by the UI.
 * When the active buffer is full the record is dropped and counted as lost.
 */
#ifndef SPROFTOP_INGEST_H
#define SPROFTOP_INGEST_H

#include <stddef.h>
#include <stdint.h>

enum ingest_type {
    INGEST_SAMPLE = 1, /* payload: uint64_t words[n], leaf first: the
                          first `kernel` of them kernel addresses, then
                          the user stack's native addresses and script
                          frames (stackword.h) */
    INGEST_THREAD = 2, /* payload: thread name (no NUL) */
    INGEST_EXIT = 3,   /* no payload: the process `pid` is gone, and no
                          record of it follows (perf backend) */
    INGEST_CODE = 4,   /* payload: struct ingest_code, then its name and
                          file: an interpreter's code object that the
                          process's samples name by id (stackword.h) from
                          now on */
    INGEST_THREAD_EXIT = 5, /* no payload: the thread `tid` of the live
                          process `pid` is gone, and no record of it
                          follows */
};

/* INGEST_CODE's payload head; name_len bytes of name and file_len bytes
 * of file follow (no NULs). */
struct ingest_code {
    uint32_t id;         /* the code id sample words carry */
    int32_t firstlineno; /* the function's first line */
    uint16_t lang;       /* enum script_lang (script_frames.h) */
    uint16_t name_len;
    uint16_t file_len;
    uint16_t pad;
};

enum ingest_flags {
    INGEST_F_TRUNCATED = 1u << 0, /* stack cut short (depth, loop, error) */
    INGEST_F_REUSED = 1u << 1,    /* --idle: last stack of a blocked thread */
    INGEST_F_ERROR = 1u << 2,     /* unwinding failed at the first step */
    INGEST_F_SCRIPT_TORN = 1u << 3, /* the process runs an interpreter whose
                                     frames could not be read for this
                                     sample: it keeps its native frames */
    INGEST_F_OFFCPU = 1u << 4,    /* --idle, perf: an off-CPU stretch; its
                                     reason frame goes below the stack */
    INGEST_F_PREEMPT = 1u << 5,   /* ...which began with a preemption (the
                                     thread was runnable: it waits for a
                                     CPU) */
    INGEST_F_GVL = 1u << 6,       /* its interpreter frames say the thread
                                     waits for the interpreter's lock
                                     (Ruby's GVL): an off-CPU stretch's
                                     reason, unless preempted */
};

/* With INGEST_F_OFFCPU and no kernel addresses: the reason the sampler
 * found itself (enum offcpu_reason, from /proc/PID/task/TID/stack), 0
 * when none. */
#define INGEST_REASON_SHIFT 8
#define INGEST_REASON_MASK (0xfu << INGEST_REASON_SHIFT)

/* Record header; the payload follows, padded to 8 bytes. */
struct ingest_rec {
    uint32_t type;   /* enum ingest_type */
    uint32_t len;    /* payload bytes */
    int32_t pid;     /* its process (one sampler may serve several) */
    int32_t tid;     /* thread id */
    uint32_t flags;  /* enum ingest_flags */
    uint32_t kernel; /* of a sample's pcs, how many come first and are
                        kernel addresses (0 for most) */
    uint64_t time;   /* CLOCK_MONOTONIC ns of the sample */
    uint64_t gen;    /* maps generation the pcs belong to */
    uint64_t weight; /* ns this sample stands for: the interval of an
                        on-CPU sample, the length of an off-CPU stretch
                        (profile.h, "Weights"); 0 counts 1 ns */
};

struct ingest;

/* Two buffers of `bytes` each.  NULL on OOM. */
struct ingest *ingest_new(size_t bytes);
void ingest_free(struct ingest *in);

/* Append a record (header fields type/pid/tid/flags/time/gen/weight are taken
 * from *hdr, len from `len`).  Returns 0, or -1 when the buffer is full (the
 * record is dropped and counted in ingest_lost). */
int ingest_push(struct ingest *in, const struct ingest_rec *hdr,
                const void *payload, size_t len);

/* ingest_push for a sample: the payload is kpcs[0..nk) then pcs[0..n)
 * (hdr->kernel is set to nk).  Same result and locking. */
int ingest_push_stack(struct ingest *in, const struct ingest_rec *hdr,
                      const uint64_t *kpcs, size_t nk, const uint64_t *pcs,
                      size_t n);

/* Consumer side: swap buffers and return the filled one in *data / *len.
 * The data stays valid until the next ingest_swap.  Only one consumer. */
void ingest_swap(struct ingest *in, const uint8_t **data, size_t *len);

/* Walk records in a swapped buffer: returns the record at *off and
 * advances *off, or NULL at the end.  *payload points after the header. */
const struct ingest_rec *ingest_next(const uint8_t *data, size_t len,
                                     size_t *off, const void **payload);

/* The run of records at off that name the same process: its length in
 * bytes (0 at the end), its pid in *pid.  A consumer that keeps one fold
 * per process hands each run to its process's. */
size_t ingest_run(const uint8_t *data, size_t len, size_t off, int32_t *pid);

/* Records dropped because the buffer was full. */
uint64_t ingest_lost(struct ingest *in);

#endif
