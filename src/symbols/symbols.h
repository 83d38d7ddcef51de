/* symbols.h - addresses of a target process -> function, module, file:line.
 *
 * Uses elfutils libdwfl.  Modules come from a /proc/PID/maps snapshot;
 * binaries are opened through /proc/PID/root/PATH (containers) or
 * /proc/PID/map_files/START-END (deleted files), separate debug info is
 * found by build-id/debuglink (sym_debug.h), or fetched from debuginfod
 * servers on a thread of their own (dbgfetch.h) and attached when it
 * arrives, inlined functions become their own frames, C++ names are
 * demangled, code no symbol names is named by the start of its function
 * in the unwind tables ("[module+0xSTART]"), and code outside file
 * mappings (JIT) is named from /tmp/perf-PID.map when that file belongs
 * to the target's user.
 *
 * Shared by build-id: a `struct symbols` is one process's view (its
 * maps, the load bias of each mapping, its perf map); the modules
 * themselves, their DWARF and their name caches (by module address)
 * live in the session's store (sym_store.h), loaded once however many
 * processes map them, and freed when the last process that maps them
 * lets go (exit, dlclose, exec).  Memory grows with distinct binaries,
 * not with processes.
 *
 * Threads: a symbolizer and its store are used by one thread at a time:
 * the collector thread (fold.c), or --dump's (dump.c); it never touches
 * ptrace and never runs while a target thread is stopped.  No libdw type
 * appears here, so a test can link a fake symbolizer in its place
 * (tests/unit/engine/test_collect.c).  The parts: symbols.c, sym_store.c,
 * sym_debug.c, sym_dwarf.c, sym_elf.c, sym_fde.c, sym_files.c,
 * sym_names.c, jitmap.c.
 */
#ifndef SPROFTOP_SYMBOLS_H
#define SPROFTOP_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One frame of a symbolized address.  Strings are owned by the symbolizer
 * (or its store) and stay valid until the next symbols_load_maps or
 * symbols_free. */
struct sym_frame {
    const char *name;    /* demangled function name; "[module+0xOFF]" or
                            "[unknown]" when there is no symbol */
    const char *module;  /* module basename, NULL when unknown */
    const char *file;    /* source file of the function, NULL if unknown */
    uint32_t line;       /* line of the address (innermost frame) or of the
                            inlined call site (outer frames); 0 if unknown */
    uint32_t func_line;  /* first line of the function, 0 if unknown */
    uint64_t sym_addr;   /* the function's start address in the target, 0
                            if unknown */
    bool inlined;        /* an inlined instance inside the next frame */
    bool known;          /* false for "[module+0x...]" / "[unknown]" */
    const char *build_id; /* the module's build-id (hex) when it has no
                            debug info yet: this frame can be named again
                            (symbols_lookup_offset); NULL otherwise */
    uint64_t offset;     /* with build_id: the function's start (or the
                            address) as a file offset in the module */
};

struct symbols_stats {
    uint64_t lookups;      /* symbols_lookup calls */
    uint64_t hits;         /* answered from the store's name cache */
    uint64_t misses;       /* resolved (through libdwfl, the perf map) */
    uint64_t miss_ns;      /* total time spent on misses */
    uint64_t reloads;      /* symbols_load_maps calls */
    uint64_t no_debuginfo; /* modules (build-ids) met without debug info,
                              by any process of the store */
    uint64_t late_debuginfo; /* debug files attached to the store */
};

struct sym_store;
struct symbols;

/* A symbolizer for process `pid` (its /proc/PID/root and map_files are used
 * to open binaries) whose modules come from `store` (sym_store.h: the
 * session's, which must outlive it; its fetcher asks debuginfod), or
 * from a store of its own when store is NULL (no fetching).  A process
 * that has exited already gets one too (its samples were taken before
 * its end): its files are opened through our root, checked against
 * each mapping's inode, and no perf map is read.  No modules until
 * symbols_load_maps.  Returns NULL with a one-line reason in err on
 * failure. */
struct symbols *symbols_new(struct sym_store *store, pid_t pid, char *err,
                            size_t errlen);

/* Free everything, releasing its modules in the store.  NULL is a
 * no-op. */
void symbols_free(struct symbols *s);

/* (Re)load the module list from the text of /proc/PID/maps (len bytes, not
 * necessarily NUL-terminated), e.g. after exec, dlopen or dlclose.
 * Mappings that did not change keep their modules; the others find
 * theirs in the store on their first lookup; modules no mapping uses any
 * more are released.  Returns 0, or -1 when the text has no file mapping
 * nor [vdso]. */
int symbols_load_maps(struct symbols *s, const char *maps, size_t len);

/* Symbolize `pc`.  `is_return_addr` means pc is a return address (every
 * frame but the sampled leaf): the call instruction is at pc-1.  Writes up
 * to `max` frames, innermost first (inlined callees before the function
 * that contains them), and returns how many (always >= 1 when max >= 1). */
int symbols_lookup(struct symbols *s, uint64_t pc, bool is_return_addr,
                   struct sym_frame *out, int max);

/* Attach the debug info the store's fetcher got since the last call of
 * any symbolizer of the store (the collector calls this for each process
 * on its schedule; it never waits).  Returns how many build-ids gained
 * debug info since this symbolizer's last call.  When that is not 0,
 * every lookup made before is stale (the modules' caches are dropped;
 * strings handed out stay valid), and frames whose build_id
 * symbols_gained() knows can be named again with symbols_lookup_offset. */
int symbols_update(struct symbols *s);

/* True when build-id `build_id` gained its debug info between this
 * symbolizer's last two symbols_update calls. */
bool symbols_gained(const struct symbols *s, const char *build_id);

/* The frames (as symbols_lookup for a leaf pc) of the code at file
 * offset `offset` of the mapped module with build-id `build_id`, or 0
 * when no module of the current maps has it.  Not cached. */
int symbols_lookup_offset(struct symbols *s, const char *build_id,
                          uint64_t offset, struct sym_frame *out, int max);

/* Counters since symbols_new (the debug info ones are the store's). */
void symbols_get_stats(const struct symbols *s, struct symbols_stats *out);

#endif
