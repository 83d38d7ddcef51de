/* sym_names.h - how the symbolizer spells names: interned, demangled, and
 * modules by their basename.
 *
 * Every string the symbolizer hands out lives in a string arena
 * (strarena.h): its module's in the symbol store (as long as the module),
 * or the process's (until the next symbols_load_maps), so a frame may
 * point at it without a copy.  Used by symbols.c, sym_store.c and
 * sym_dwarf.c, on the collector thread (or --dump's).  libc, libstdc++'s
 * demangler and libiberty's (Rust), kept in this room.
 */
#ifndef SPROFTOP_SYM_NAMES_H
#define SPROFTOP_SYM_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct strarena;

/* The interned copy of s; NULL when s is NULL or on OOM. */
const char *sym_names_intern(struct strarena *a, const char *s);

/* A symbol or linkage name as people read it, interned: C++ (_Z...)
 * demangled, and a function template without the return type the
 * Itanium ABI encodes ("ns::run<double>(double)", not "double
 * ns::run<double>(double)"); special names (_ZT thunks and vtables, _ZG
 * guards) keep their words.  Rust's, v0 (_R...) and legacy (_ZN...17h
 * HASH E), as Rust prints paths ("mycrate::module::run",
 * "<T as Trait>::f", generics "::<u32>"), without the legacy hash.
 * Anything else unchanged.  NULL on OOM. */
const char *sym_names_demangle(struct strarena *a, const char *name);

/* The basename of a mapped path, interned, without a " (deleted)" suffix
 * (so a rebuilt binary keeps its name). */
const char *sym_names_basename(struct strarena *a, const char *path);

/* The same, not interned: where it starts in path (*start), and its
 * length. */
size_t sym_names_base(const char *path, const char **start);

/* "[module+0xOFFSET]" ("?" for a NULL module), interned: how code that
 * no symbol names is named, by its file offset, as perf does.  NULL on
 * OOM. */
const char *sym_names_offset(struct strarena *a, const char *module,
                             uint64_t offset);

/* True when str ends with suffix. */
int sym_names_ends_with(const char *str, const char *suffix);

#endif
