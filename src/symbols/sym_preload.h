/* sym_preload.h - the modules of a command sproftop is about to launch,
 * loaded before the command starts.
 *
 * A launched command is sampled from its first instruction, and the
 * collector names its samples while it runs.  Every stack of its main
 * thread passes through its executable, and at first through the
 * dynamic loader and libc: loading those modules at the first fold (for
 * libc with Debian's libc6-dbg, ~40 ms of inflating compressed DWARF)
 * takes a CPU from the command on a busy machine, in the middle of its
 * run.  perf record does its own start-up work before it execs the
 * command; this does the same for sproftop's: the files the command
 * maps when it starts are loaded into the session's symbol store
 * (sym_store_preload) before it is launched, and the first lookups find
 * them there.
 *
 * Which files: the executable execvp runs for argv[0] (searched in
 * $PATH; a "#!" script's interpreter instead), the dynamic loader it
 * names (PT_INTERP), the libraries of its DT_NEEDED, looked for as the
 * dynamic loader does (DT_RPATH, $LD_LIBRARY_PATH, DT_RUNPATH with
 * $ORIGIN, /etc/ld.so.cache, the default directories), and the [vdso]
 * (ours: the kernel maps one image into every 64-bit process).  Not
 * what those libraries need in turn, nor what is dlopen'ed.  A file
 * this misses or finds wrongly (another file than the loader's has
 * another build-id) costs what it cost before: a load at its first
 * sample.
 *
 * Threads: the thread that may use the store (sym_store.h), while no
 * other does: collect.c's controlling thread, before the sampler starts.
 */
#ifndef SPROFTOP_SYM_PRELOAD_H
#define SPROFTOP_SYM_PRELOAD_H

#include <stddef.h>
#include <stdint.h>

struct sym_mod;
struct sym_store;

#define SYM_PRELOAD_MAX 64  /* files looked at, at most */

struct sym_preload {
    struct sym_mod *mods[SYM_PRELOAD_MAX]; /* each with a reference */
    size_t n;
    size_t loaded;   /* how many were loaded (n until handed over) */
    uint64_t ns;     /* how long finding and loading them took */
    char names[256]; /* their file names, ", "-separated (cut short) */
};

/* Load into st the modules of the files command `cmd` (argv[0]) maps
 * when it starts, with a reference to each in p (filled from empty).
 * Never fails: what cannot be found or loaded is left out. */
void sym_preload_run(struct sym_preload *p, struct sym_store *st,
                     const char *cmd);

/* Drop the references p still holds. */
void sym_preload_release(struct sym_preload *p, struct sym_store *st);

#endif
