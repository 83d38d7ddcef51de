/* sym_plt.h - names for a module's PLT stubs, as perf and objdump give
 * them: "malloc@plt" for the stub through which the module calls malloc,
 * ".plt" for the lazy-binding header that every first call goes through.
 *
 * No symbol table covers the PLT (the linker makes no symbols for it, and
 * a stripped binary keeps its .plt, .rela.plt and .dynsym anyway), so a
 * sample or a call target in a stub had only its FDE's start to go by,
 * "[module+0x1020]" for the whole section.  The table is made from the
 * section headers and the relocations (x86-64), as objdump does: each
 * stub of .plt (after its 16-byte header), .plt.sec (IBT) and .plt.got
 * is named by the GOT slot its `jmp *slot(%rip)` reads, through the
 * relocation at that slot (.rela.plt, .rela.dyn; libc's IRELATIVE ones
 * as "*ABS*+0xADDEND@plt"), or, for IBT's lazy halves in .plt, by the
 * .rela.plt index it pushes; the section's name when neither is found.
 * Every count and index is bounded by the sections' sizes: a damaged file
 * gives fewer names, never a read out of bounds.
 *
 * Part of the symbolizer (sym_store.c: one per module; annot.c: the
 * targets of calls), one thread per table.  The module is libdwfl's, an
 * opaque handle here.
 */
#ifndef SPROFTOP_SYM_PLT_H
#define SPROFTOP_SYM_PLT_H

#include <stdint.h>

struct Dwfl_Module;
struct strarena;
struct sym_plt;

/* The PLT stubs of mod (read now: the table copies the names it needs).
 * NULL on OOM or when the module has no PLT. */
struct sym_plt *sym_plt_build(struct Dwfl_Module *mod);

/* NULL is a no-op. */
void sym_plt_free(struct sym_plt *t);

/* The name of the stub holding address addr of mod (libdwfl's address,
 * as sym_fde_start takes), demangled and interned in names: "NAME@plt",
 * or ".plt" / ".plt.got" for code of those sections that no relocation
 * names.  The stub's start in *start.  NULL when addr is in no PLT (or t
 * is NULL, or on OOM). */
const char *sym_plt_name(const struct sym_plt *t, struct strarena *names,
                         uint64_t addr, uint64_t *start);

#endif
