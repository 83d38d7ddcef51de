/* sym_dwarf.h - frames of an address from a module's DWARF: the function,
 * the chain of inlined instances inside it, their names, files and lines.
 *
 * Names: the demangled linkage name when there is one, else DW_AT_name
 * (qualified by its namespaces and classes in C++, for functions with
 * internal linkage that GCC gives no linkage name).
 *
 * Speed: dwarf_getscopes finds the DIEs containing an address by testing
 * every DIE of the CU (types and declarations included) each time: 100-300
 * us a lookup in libc's DWARF.  So the first miss in a CU lists its
 * functions' address ranges once, and later misses binary-search that
 * list and walk down only the one function's blocks (tests/tools/symtest
 * --bench: 10-20 us a miss).
 *
 * Part of the symbolizer: one per module of the symbol store
 * (sym_store.c), collector thread only.  The module
 * is libdwfl's, an opaque handle here.
 */
#ifndef SPROFTOP_SYM_DWARF_H
#define SPROFTOP_SYM_DWARF_H

#include <stdint.h>

struct Dwfl_Module;
struct strarena;
struct sym_dwarf;
struct sym_frame;

/* A DWARF reader whose names go to `names` (its module's arena in the
 * symbol store).
 * NULL on OOM. */
struct sym_dwarf *sym_dwarf_new(struct strarena *names);

/* NULL is a no-op. */
void sym_dwarf_free(struct sym_dwarf *d);

/* Forget the per-CU indexes and names: call when modules may have gone
 * (their Dwarf is freed) and before the arena is emptied. */
void sym_dwarf_clear(struct sym_dwarf *d);

/* Frames for target address addr inside mod, innermost first (inlined
 * instances, then the function), at most cap; `module` is put in each.
 * A frame whose function has no name gets name NULL.  Returns the number
 * of frames: 0 when no function DIE contains addr. */
int sym_dwarf_frames(struct sym_dwarf *d, struct Dwfl_Module *mod,
                     uint64_t addr, const char *module,
                     struct sym_frame *out, int cap);

/* The line of addr in mod's line table, and its file (interned) in
 * *file; 0 (and *file untouched) when unknown. */
uint32_t sym_dwarf_line(struct sym_dwarf *d, struct Dwfl_Module *mod,
                        uint64_t addr, const char **file);

#endif
