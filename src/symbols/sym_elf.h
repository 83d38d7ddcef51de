/* sym_elf.h - a module's ELF symbol table, sorted by address: names for
 * code without DWARF (stripped binaries, hand-written assembly).
 *
 * dwfl_module_addrinfo scans the whole symbol table on every call (200 us
 * in libstdc++'s 6000 symbols), so each module's table is sorted once,
 * on its first miss, and later lookups binary-search it.  Part of the
 * symbolizer (sym_store.c: one per module), collector thread only.  The module is libdwfl's
 * (an opaque handle here: no libdw header is needed to include this).
 */
#ifndef SPROFTOP_SYM_ELF_H
#define SPROFTOP_SYM_ELF_H

#include <stdint.h>

struct Dwfl_Module;
struct sym_elf;

/* The sorted table of mod (.symtab, else .dynsym).  Built from libdwfl's
 * view of the module, whose strings it keeps pointing to: free it before
 * the module goes.  NULL on OOM or when the module has no symbols. */
struct sym_elf *sym_elf_build(struct Dwfl_Module *mod);

/* NULL is a no-op. */
void sym_elf_free(struct sym_elf *t);

/* The (mangled) symbol naming addr, as dwfl_module_addrinfo picks it: the
 * closest symbol containing it, else the closest sizeless label in the
 * same section that no symbol before addr extends past.  Its start
 * address in *start.  NULL if none (or t is NULL). */
const char *sym_elf_find(const struct sym_elf *t, struct Dwfl_Module *mod,
                         uint64_t addr, uint64_t *start);

#endif
