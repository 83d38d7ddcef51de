/* rbread.h - CRuby's frames read from outside the process: which Ruby a
 * process runs, each thread's Ruby stack, and the names and lines of its
 * iseqs and C methods, through a cache (codecache.h).
 *
 * The reader is pyread.h's twin for Ruby and hands out the same types:
 * a walk gives a struct pyread_stack (the raw frames of rbwalk.h: an
 * iseq and its pc, or a C method's entry with RBWALK_CFUNC), a
 * resolution struct pyread_frame (code id, line, entry), a code a
 * struct pyread_code (name, file, first line).  script_frames.c drives
 * either through its table of languages.
 *
 * What it reads, all from the target's memory (no file, no debug info):
 *   - libruby's (or a static ruby's) exported ruby_current_vm_ptr and
 *     ruby_version, found by relf.h;
 *   - the VM's own eval function, vm_exec_core, which is static: the
 *     function rb_vm_exec calls whose unwind-table range (relf_fde_range)
 *     is the largest; the native frames in it are the ones Ruby frames
 *     replace;
 *   - method names: an ID's string through the VM's symbol table
 *     (ruby_global_symbols.ids, found from the code of the exported
 *     rb_id2str, whose first call reads it: the comparison with last_id
 *     and the load of ids 16 bytes further, checked as such); without it
 *     a C method cannot be named, and a stack holding one keeps its
 *     native frames (counted as unreadable);
 *   - class names of C methods' owners from the exported class globals
 *     (rb_cArray -> "Array#sort", the singleton class of rb_mProcess ->
 *     "Process.clock_gettime"); a method of another class is named by
 *     its method name alone.
 *
 * Nothing read is trusted: an iseq must be an imemo iseq, a method entry
 * an imemo ment, strings T_STRING (at most PYREAD_MAX_NAME or
 * PYREAD_MAX_FILE bytes), tables bounded.  A frame that does not check
 * costs the sample its Ruby frames, never a wrong name.
 *
 * One reader per process, used by one thread.  libc only.
 */
#ifndef SPROFTOP_RBREAD_H
#define SPROFTOP_RBREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "pyread.h"
#include "rblayout.h"

struct rmem;

struct rbread_info {
    uint32_t major, minor, micro;
    char version[24];          /* "3.1.2" */
    bool supported;            /* a layout row exists, and the symbols */
    uint64_t vm_ptr;           /* &ruby_current_vm_ptr */
    uint64_t eval_lo, eval_hi; /* vm_exec_core's code (0: not found) */
    uint64_t symbols;          /* &ruby_global_symbols (0: not found) */
    uint64_t id2str;           /* rb_id2str (to find symbols later) */
    uint64_t base;             /* where libruby is mapped */
};

/* Whether a mapped file's path may be a CRuby: libruby..., or an
 * executable named ruby (a statically linked one). */
bool rbread_candidate(const char *path);

/* Look at the ELF object mapped at base (file offset 0).  0 with *out
 * filled when it is a CRuby (it exports ruby_current_vm_ptr and
 * ruby_version; supported tells whether its version has a row), -1 when
 * it is not one. */
int rbread_probe(struct rmem *m, uint64_t base, const char *path,
                 struct rbread_info *out);

struct rbread;

/* A reader for the process m reads (m must outlive it).  NULL on OOM or
 * when info->supported is false. */
struct rbread *rbread_new(struct rmem *m, const struct rbread_info *info);
void rbread_free(struct rbread *r);

const struct rb_layout *rbread_layout(const struct rbread *r);
const struct rbread_info *rbread_info(const struct rbread *r);

/* Walk thread tid's control frames now.  Returns st->status. */
int rbread_walk(struct rbread *r, int64_t tid, struct pyread_stack *st);

/* A reader starts with its struct codereader (codecache.h): its codes
 * are resolved, looked up and counted through it. */

#endif
