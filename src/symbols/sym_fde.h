/* sym_fde.h - where each function of a module starts, from its unwind
 * tables: the names of code that no symbol covers.
 *
 * A stripped binary has no symbol for its static functions, but every
 * function still has an FDE in .eh_frame, and .eh_frame_hdr lists the FDEs
 * sorted by start address.  The start of the FDE covering an address is
 * the start of its function (or of a split-off part, such as a .cold
 * block), so "[module+0xSTART]" is one frame per function instead of one
 * per sampled address.  libdw's CFI calls give only the row of the CFI
 * table an address falls in, not its FDE: hence this table.
 *
 * Part of the symbolizer (sym_store.c: one per module), collector
 * thread only.  The module
 * is libdwfl's, an opaque handle here.
 */
#ifndef SPROFTOP_SYM_FDE_H
#define SPROFTOP_SYM_FDE_H

#include <stdint.h>

struct Dwfl_Module;
struct sym_fde;

/* The FDE starts of mod, from its PT_GNU_EH_FRAME segment; NULL when it
 * has none in the usual encoding (a 4-byte table relative to the
 * header), or on OOM. */
struct sym_fde *sym_fde_build(struct Dwfl_Module *mod);

/* NULL is a no-op. */
void sym_fde_free(struct sym_fde *t);

/* The start (a target address) of the FDE covering target address addr
 * in mod, or 0 when none covers it (or t is NULL). */
uint64_t sym_fde_start(const struct sym_fde *t, struct Dwfl_Module *mod,
                       uint64_t addr);

#endif
