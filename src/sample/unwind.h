/* unwind.h - unwind a copied stack of a target thread with libunwind.
 *
 * The sampler stops a thread only long enough to read its registers and
 * copy its stack; this module then walks the copy with the thread running
 * again.  libunwind gets our own accessors (unw_create_addr_space):
 *   - registers come from the PTRACE_GETREGS snapshot;
 *   - stack memory comes from the copy;
 *   - other memory (text, .eh_frame_hdr, .eh_frame) is read-only and is
 *     served from a page cache filled with process_vm_readv;
 *   - unwind tables are found with libunwind-ptrace's _UPT_find_proc_info,
 *     one _UPT handle per ELF object so each keeps its table cached.
 * Caching is UNW_CACHE_PER_THREAD (no lock, no signal masking per step) and
 * is flushed whenever the mappings change.
 *
 * Called only from the sampler thread; no libunwind type escapes.
 */
#ifndef SPROFTOP_UNWIND_H
#define SPROFTOP_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct maps;

#define UNWIND_NREGS 17 /* x86-64 DWARF order: rax rdx rcx rbx rsi rdi rbp
                           rsp r8..r15 rip */

/* Why a stack stopped early. */
enum unwind_end {
    UNWIND_COMPLETE = 0, /* reached the outermost frame */
    UNWIND_DEPTH,        /* hit the depth cap */
    UNWIND_LOOP,         /* SP did not increase / (IP,SP) repeated */
    UNWIND_NOINFO,       /* no unwind info and no usable frame chain */
    UNWIND_BADMEM,       /* needed memory outside the copy and mappings */
    UNWIND_OTHER,        /* any other libunwind error */
    UNWIND_COPY,         /* needed stack beyond the copied bytes (the
                            copy was too small; live reads are off) */
    UNWIND_NCAUSES
};

const char *unwind_end_name(enum unwind_end e);

struct unwinder;

/* An unwinder for process pid.  NULL with a reason in err. */
struct unwinder *unwinder_new(pid_t pid, char *err, size_t errlen);
void unwinder_free(struct unwinder *u);

/* Use these mappings from now on (not copied: the caller keeps m alive
 * until the next call or unwinder_free).  Flushes every cache. */
void unwinder_set_maps(struct unwinder *u, const struct maps *m);

/* Unwind one sample of thread tid (target memory outside the copy is read
 * through it, which works even when the leader is a zombie).  regs: the
 * thread's registers in UNWIND order; stack:
 * `stack_len` bytes copied from address `stack_addr` (the SP).  Writes up
 * to `max` pcs, leaf first (pcs[0] is the exact IP, the rest return
 * addresses) and returns how many; *end says why it stopped. */
int unwinder_unwind(struct unwinder *u, pid_t tid,
                    const uint64_t regs[UNWIND_NREGS],
                    const uint8_t *stack, uint64_t stack_addr,
                    size_t stack_len, uint64_t *pcs, int max,
                    enum unwind_end *end);

/* Whether memory of writable mappings outside the copied stack may be
 * read live from the target (default: yes).  A sampler whose copies are
 * taken while the thread runs on (perf_event) turns this off: the live
 * stack has moved on, so a frame beyond the copy ends the stack with
 * UNWIND_COPY instead of being read wrong.  Sampler thread. */
void unwinder_set_live_reads(struct unwinder *u, int on);

/* Set when an IP fell outside every mapping during the last unwind: the
 * caller should re-read the maps. */
int unwinder_saw_unknown(const struct unwinder *u);

#endif
