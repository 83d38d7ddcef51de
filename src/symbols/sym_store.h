/* sym_store.h - the modules of every symbolized process of a session,
 * each loaded once: one DWARF load and one name cache per binary, not
 * per process.
 *
 * A module is keyed by its build-id (else by the device, inode, size and
 * mtime of its file) and its basename (a frame names its module, so two
 * names of one file stay two modules).  It holds one libdwfl Dwfl with
 * that one module at its ELF addresses (load bias 0), its symbol and FDE
 * tables, its DWARF indexes (sym_dwarf.h), an arena with every string its
 * frames point to, and a cache of frames by module address (a target
 * address minus the bias of its mapping, which each process's symbolizer
 * (symbols.c) knows).  Modules are reference-counted: each symbolizer
 * holds one reference to every module its current maps use, and the
 * last release frees the module (its Dwfl, mapped debug files, caches
 * and strings).
 *
 * Debug info: a module without any is asked from debuginfod through the
 * session's fetcher (dbgfetch.h), once per build-id for the session;
 * sym_store_update attaches what arrived to the module(s) of that
 * build-id (their Dwfl starts over; their strings stay) and notes the
 * build-id with a new epoch, so each symbolizer can tell which build-ids
 * gained debug info since it last looked (symbols_update).
 *
 * Threads: none of its own, and no lock.  A store and every symbolizer
 * made on it are used by one thread at a time: the collector thread (or
 * --dump's, or a tool's), and the thread that made the store before that
 * thread starts and after it has ended (--stats).
 */
#ifndef SPROFTOP_SYM_STORE_H
#define SPROFTOP_SYM_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct Dwfl_Module;
struct dbgfetch;
struct map_entry;
struct sym_frame;
struct sym_mod;
struct sym_store;

struct sym_store_stats {
    uint32_t modules;        /* loaded now (kept idle ones too) */
    uint32_t refs;           /* references held now (module, process) */
    uint64_t loads;          /* modules loaded since sym_store_new */
    uint64_t freed;          /* modules freed (their last release, or
                                their idle time or room over) */
    uint32_t idle;           /* loaded, no process holds them: kept for
                                the next process of their binary */
    uint64_t idle_bytes;     /* ...their files' sizes */
    uint64_t reused;         /* idle modules a process took again */
    uint64_t freed_big;      /* of freed: too big to keep idle */
    uint64_t freed_time;     /* ...idle past the keep time */
    uint64_t freed_room;     /* ...idle, the oldest, for the bytes bound */
    uint64_t no_debuginfo;   /* build-ids met without debug info */
    uint64_t late_debuginfo; /* debug files attached by sym_store_update */
};

/* --- the session's side (collect.c, dump.c, tools) --- */

/* An empty store.  `fetch` (may be NULL: no fetching) is asked for the
 * debug info of modules met without any; not taken over, it must
 * outlive the store.  NULL on OOM. */
struct sym_store *sym_store_new(struct dbgfetch *fetch);

/* Free the store; every symbolizer made on it is freed already.  NULL is
 * a no-op. */
void sym_store_free(struct sym_store *st);

/* Keep a module no process holds any more for the next process of its
 * binary (a build runs cc1 after cc1, each for a second or two): up to
 * `ns` after its last release, and while the kept ones' files add up
 * to at most `bytes` (the least recently released go first).  A module
 * loaded again after it was freed (its binary comes back, as a build's
 * tools do once a build, however long a build takes) is kept from then
 * on for as long as the bytes allow, whatever `ns` (room sends the
 * modules loaded once away first): so a binary is loaded at most twice,
 * unless the binaries that come back alone fill `bytes`.  0, 0 (the default)
 * frees a module at its last release. */
void sym_store_set_keep(struct sym_store *st, uint64_t bytes, uint64_t ns);

/* Free every kept module (the processes have ended: none will take
 * them again). */
void sym_store_drop_idle(struct sym_store *st);

/* Counters (see struct sym_store_stats). */
void sym_store_get_stats(const struct sym_store *st,
                         struct sym_store_stats *out);

/* --stats: one line of totals, one line per loaded module with the
 * number of processes using it, and, when modules are kept for reuse,
 * a line "symbol reuse: ..." and a line "symbol loads: cc1 2, as 1,..."
 * (the binaries loaded most often, with how many times). */
void sym_store_print_stats(const struct sym_store *st, FILE *f);

/* The module of the ELF file at `path`, an absolute path without
 * symlinks (as the kernel names a mapping of it), with a reference
 * taken: the one loaded already with the same key, or a new one whose
 * DWARF (its debug file found, its sections read, its address ranges
 * indexed) is loaded now rather than at its first lookup.  For a command about to be launched
 * (sym_preload.h), so that this work is done before it runs.  NULL when
 * the file cannot be opened or is not ELF. */
struct sym_mod *sym_store_preload(struct sym_store *st, const char *path);

/* Empty every module's name cache and DWARF indexes (the modules stay
 * loaded): the next lookups are misses.  For measurements (symtest
 * --bench). */
void sym_store_forget(struct sym_store *st);

/* --- the symbolizer's side (symbols.c only) --- */

/* The module of the file behind mapping m (path `name` as in the maps)
 * of process pid, whose root seen from here is `root` (sym_files.h),
 * with a reference taken: the one already loaded with the same key, or
 * a new one.  NULL when the file cannot be opened or is not ELF. */
struct sym_mod *sym_store_open(struct sym_store *st, pid_t pid,
                               const char *root, const char *name,
                               const struct map_entry *m);

/* The same for the [vdso] of pid at [start, end), its image read from
 * the target's memory (sym_files_vdso). */
struct sym_mod *sym_store_open_vdso(struct sym_store *st, pid_t pid,
                                    uint64_t start, uint64_t end);

/* One more reference to mod. */
void sym_store_hold(struct sym_mod *mod);

/* Drop one reference; the last frees the module, or keeps it idle
 * (sym_store_set_keep).  NULL is a no-op. */
void sym_store_release(struct sym_store *st, struct sym_mod *mod);

/* The load bias of a mapping of mod at `start` with file offset
 * `offset` (target address = module address + bias), in *bias; false
 * when no loadable segment of the module covers that offset. */
bool sym_store_bias(const struct sym_mod *mod, uint64_t start,
                    uint64_t offset, uint64_t *bias);

/* mod's file name (the basename of its path), as frames name it. */
const char *sym_store_name(const struct sym_mod *mod);

/* mod's build-id in lowercase hex, "" when it has none. */
const char *sym_store_build_id(const struct sym_mod *mod);

/* mod's libdwfl module, at its ELF addresses (load bias 0), for a
 * reader of its code and DWARF beside the symbolizer (annot.c, on a
 * store of its own); valid while mod is held; NULL when its restart
 * failed. */
struct Dwfl_Module *sym_store_dwfl(const struct sym_mod *mod);

/* The frames of module address addr, innermost first, at most max, as
 * symbols_lookup describes them but with sym_addr a module address;
 * always >= 1 when max >= 1.  Strings live as long as the module.
 * Cached by address: *hit says whether the cache answered. */
int sym_store_lookup(struct sym_store *st, struct sym_mod *mod,
                     uint64_t addr, struct sym_frame *out, int max,
                     bool *hit);

/* The same without the cache (symbols_lookup_offset). */
int sym_store_resolve(struct sym_store *st, struct sym_mod *mod,
                      uint64_t addr, struct sym_frame *out, int max);

/* Attach the debug info the fetcher got since the last call, and free
 * the idle modules kept too long.  Returns the current epoch (0 until
 * something was attached); never waits. */
uint64_t sym_store_update(struct sym_store *st);

/* How many build-ids gained debug info in epochs (after, upto], and
 * whether `build_id` (NULL: any) is one of them. */
int sym_store_gained(const struct sym_store *st, uint64_t after,
                     uint64_t upto, const char *build_id);

#endif
