/* relf.h - the exported symbols of an ELF object as another process maps
 * it, read from that process's memory through rmem.h.
 *
 * A frame reader needs a few exported symbols of the interpreter
 * (CPython's _PyRuntime, Py_Version, PyCode_Type...).  The loader keeps
 * every object's ELF header, program headers and dynamic section (its
 * .dynsym, .dynstr and hash tables) mapped, so they are read from the
 * target itself: no file is opened (a deleted or containerised binary
 * works the same) and nothing assumes a fixed address (PIE or not).
 * Every count, offset and chain length read is bounded; a broken or
 * hostile header makes relf_open or relf_symbol fail, never loop.
 *
 * Same thread rules as the rmem it reads through.  libc only.
 */
#ifndef SPROFTOP_RELF_H
#define SPROFTOP_RELF_H

#include <stdint.h>

struct rmem;

struct relf {
    uint64_t base;     /* where file offset 0 is mapped */
    uint64_t bias;     /* load bias: a symbol's value + bias = address */
    uint64_t symtab;   /* addresses in the target (0: absent) */
    uint64_t strtab;
    uint64_t strsz;
    uint64_t gnu_hash;
    uint64_t hash;
    uint64_t eh_frame_hdr; /* PT_GNU_EH_FRAME's address (0: absent) */
};

/* Read the ELF object whose file offset 0 is mapped at base: its headers
 * and dynamic section.  0, or -1 when it is not a 64-bit little-endian
 * ELF object with a dynamic symbol table and a hash table, or cannot be
 * read. */
int relf_open(struct rmem *m, uint64_t base, struct relf *out);

/* The defined dynamic symbol `name`: its address in the target (value +
 * bias) in *addr and its size in *size (either may be NULL).  0, or -1
 * when it is not exported or the tables cannot be read. */
int relf_symbol(struct rmem *m, const struct relf *e, const char *name,
                uint64_t *addr, uint64_t *size);

/* The function that covers addr, as its unwind table (.eh_frame_hdr's
 * search table and the FDE it names, read from the target) bounds it:
 * [*lo, *hi).  0, or -1 when no FDE covers addr or the tables are not in
 * the encoding GCC and the binutils write (then nothing is guessed). */
int relf_fde_range(struct rmem *m, const struct relf *e, uint64_t addr,
                   uint64_t *lo, uint64_t *hi);

#endif
