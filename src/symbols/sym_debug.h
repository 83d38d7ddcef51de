/* sym_debug.h - where a module's separate debug info is found: the body
 * of libdwfl's find_debuginfo callback (sym_store.c).
 *
 * In order: a file debuginfod fetched for the module's build-id
 * (sym_debug_add, from dbgfetch.h's answers); the build-id tree of the
 * debug root (ROOT/.build-id/xx/yyyy.debug); the module's
 * .gnu_debuglink, next to the file, in its .debug/ folder and under ROOT
 * plus the file's folder.  ROOT is /usr/lib/debug, or
 * $SPROFTOP_DEBUG_ROOT (tests use a private one).  A debuglink file is
 * taken only when its build-id (else its CRC) matches.  MiniDebugInfo
 * (.gnu_debugdata) needs nothing here: libdwfl reads it from the module
 * itself when no symbol table is found.
 *
 * libdwfl's own dwfl_standard_find_debuginfo is not used: when nothing
 * is found locally it asks the debuginfod servers in $DEBUGINFOD_URLS
 * itself, on the calling (collector) thread, for as long as the network
 * takes.  Those fetches are dbgfetch's job, on a thread of its own.
 *
 * Part of the symbolizer: one per symbol store, collector thread only.  The module is
 * libdwfl's, an opaque handle here.
 */
#ifndef SPROFTOP_SYM_DEBUG_H
#define SPROFTOP_SYM_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#define SYM_BUILD_ID_HEX 129  /* a build-id in hex (64 bytes at most) */

struct Dwfl_Module;
struct Elf;
struct sym_debug;

/* A finder over the debug root ($SPROFTOP_DEBUG_ROOT or /usr/lib/debug).
 * NULL on OOM. */
struct sym_debug *sym_debug_new(void);

/* NULL is a no-op. */
void sym_debug_free(struct sym_debug *d);

/* The debuginfo_path for libdwfl's callbacks (":.debug:ROOT"), which
 * dwfl_build_id_find_debuginfo searches; owned by d. */
char **sym_debug_path(struct sym_debug *d);

/* Remember that `path` holds the debug info of build-id `build_id`
 * (lowercase hex).  0, or -1 on OOM. */
int sym_debug_add(struct sym_debug *d, const char *build_id,
                  const char *path);

/* True when sym_debug_add gave build_id a file. */
int sym_debug_has(const struct sym_debug *d, const char *build_id);

/* The find_debuginfo callback's work for mod, whose main file was opened
 * as `file_name` (may be NULL), with its .gnu_debuglink `debuglink` (NULL
 * if none; libdwfl passes a .gnu_debugaltlink's name the same way, with
 * crc 0) and `crc`.  Returns a read-only descriptor and the path opened
 * (malloc'd, for libdwfl) in *found, or -1. */
int sym_debug_find(struct sym_debug *d, struct Dwfl_Module *mod,
                   const char *file_name, const char *debuglink,
                   uint32_t crc, char **found);

/* The debug file of build-id `build_id` (lowercase hex) without its
 * module: one sym_debug_add gave it, else ROOT/.build-id/xx/yyyy.debug.
 * Its path (malloc'd), or NULL. */
char *sym_debug_path_of(struct sym_debug *d, const char *build_id);

/* mod's build-id in lowercase hex into hex (SYM_BUILD_ID_HEX bytes);
 * returns its length in bytes, 0 when it has none. */
int sym_debug_build_id(struct Dwfl_Module *mod, char *hex);

/* The same for an ELF file (its GNU build-id note). */
int sym_debug_elf_build_id(struct Elf *elf, char *hex);

#endif
