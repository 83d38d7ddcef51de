/* stackword.h - one sampled stack, whatever its frames' sources: the words
 * a sampler hands to the collector (an INGEST_SAMPLE record's payload,
 * leaf first), and the splice that puts an interpreter's frames into a
 * native stack.
 *
 * A word is a native user address (below 2^47), a kernel address (from
 * 0xffff800000000000), or a script frame: a tag in bits 63-48 that no
 * address has, the frame's code id (the sampler's reader's, per process)
 * in bits 47-24 and its current line in bits 23-0.  The collector names
 * each word by its kind: the symbolizer for addresses, the code table the
 * sampler announced (INGEST_CODE records) for script frames.
 *
 * Pure; any thread.  libc only.
 */
#ifndef SPROFTOP_STACKWORD_H
#define SPROFTOP_STACKWORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACKWORD_TAG_MASK 0xffff000000000000ull
#define STACKWORD_SCRIPT   0x5059000000000000ull /* "PY": any
                                                    interpreter's frame */
#define STACKWORD_MAX_CODE 0xffffffu   /* largest code id a word holds */
#define STACKWORD_MAX_LINE 0xffffffu   /* larger lines are kept as 0 */

/* A script frame's word (Python, Ruby: the code's announcement says
 * which): code id (at most STACKWORD_MAX_CODE) and line. */
static inline uint64_t stackword_script(uint32_t code, uint32_t line)
{
    if (line > STACKWORD_MAX_LINE)
        line = 0;
    return STACKWORD_SCRIPT | (uint64_t)(code & STACKWORD_MAX_CODE) << 24 |
           line;
}

static inline bool stackword_is_script(uint64_t w)
{
    return (w & STACKWORD_TAG_MASK) == STACKWORD_SCRIPT;
}

static inline uint32_t stackword_code(uint64_t w)
{
    return (uint32_t)(w >> 24) & STACKWORD_MAX_CODE;
}

static inline uint32_t stackword_line(uint64_t w)
{
    return (uint32_t)w & STACKWORD_MAX_LINE;
}

/* What stackword_splice merges. */
struct stackword_splice_in {
    const uint64_t *pcs;    /* the native stack, leaf first: pcs[0] the
                               exact IP, the rest return addresses */
    size_t npcs;
    uint64_t eval_lo;       /* the interpreter's eval function: a native */
    uint64_t eval_hi;       /* frame in [lo, hi) runs script frames */
    const uint64_t *script; /* the script frames' words, leaf first */
    const bool *entry;      /* entry[i]: a native eval call began at
                               script[i] */
    size_t nscript;
};

/* Merge: each native eval frame is replaced, in place, by the script
 * frames it runs (from the next unused one up to and including the next
 * entry frame), the bottom-most eval frame by all that are left (a stack
 * whose native part was cut short, or an eval call that had not set its
 * frame yet, still keeps every script frame, in order); an eval frame
 * with none left stays native.  With no eval frame in the native stack
 * the script frames go below it (its native unwind stopped early).  Other
 * native frames (C extensions, the interpreter's C calls) stay where they
 * are.  out has room for cap words (npcs + nscript is always enough).
 * Returns the words written, leaf first. */
size_t stackword_splice(const struct stackword_splice_in *in, uint64_t *out,
                        size_t cap);

#endif
