/* disasm.h - x86-64 machine code as text, one instruction at a time.
 *
 * The one module that includes the disassembler library (capstone,
 * Debian's libcapstone-dev): nothing else sees its types.  AT&T syntax,
 * as perf annotate and objdump print by default.  Used by annot.c.
 *
 * Any thread; a struct disasm belongs to one thread at a time.
 */
#ifndef SPROFTOP_DISASM_H
#define SPROFTOP_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct disasm;

/* One decoded instruction. */
struct disasm_insn {
    uint32_t len;       /* bytes */
    uint8_t kind;       /* enum annot_kind (annotate.h): jump, call,
                           return or other */
    uint64_t target;    /* a direct jump's or call's target, 0: none */
    char text[200];     /* mnemonic, a blank, operands: "jne 0x401136" */
};

/* A decoder for x86-64; NULL with a one-line reason in err. */
struct disasm *disasm_new(char *err, size_t errlen);

/* NULL is a no-op. */
void disasm_free(struct disasm *d);

/* Decode the instruction at code[0..len), which sits at address addr
 * (targets are computed from it): 1 with *out filled, or 0 when the
 * bytes are no instruction (or len is too short for it). */
int disasm_one(struct disasm *d, const uint8_t *code, size_t len,
               uint64_t addr, struct disasm_insn *out);

#endif
