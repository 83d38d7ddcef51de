/* script_frames.h - interpreter frames in a sampled process's stacks:
 * what both sampling backends share to show Python functions and Ruby
 * methods where the native stack shows the interpreter's eval loop.
 *
 * A backend asks script_proc_find when it reads a process's maps: a
 * process that maps no interpreter gets NULL and pays nothing more.  One
 * that runs CPython or CRuby gets that language's reader
 * (src/frames/pyread.h, rbread.h), found through one table of languages
 * (script_frames.c: candidate file, probe, walk, resolve, names, the
 * interpreter's eval function, its BPF entry) over process_vm_readv, or,
 * for a version without a layout row, a note and no reader.  Everything
 * after the probe is the same for every language.  Then per sample:
 *   - the Python stack of the thread at the moment of the sample: ptrace
 *     walks it while the thread is stopped (script_walk); perf has it
 *     from the BPF program that walked it in the sampling interrupt
 *     (perf_pybpf.c), as a struct script_stack;
 *   - script_splice resolves it (names through the reader's code cache)
 *     and splices it into the unwound native stack (stackword_splice:
 *     each native _PyEval_EvalFrameDefault frame becomes the Python
 *     frames it runs); script_new_codes hands out the code objects the
 *     collector has not seen.  A stack that cannot be read keeps its
 *     native frames and is flagged torn.  The sampling room pushes them
 *     (src/sample/stack_push.h): this room reads frames and pushes
 *     nothing.
 *
 * All calls: the sampler thread that owns the process.
 */
#ifndef SPROFTOP_SCRIPT_FRAMES_H
#define SPROFTOP_SCRIPT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pybpf.h"
#include "pyread.h"
#include "script_lang.h"

struct maps;

/* Words a sample may take once spliced: its native frames and as many
 * Python frames as a walk keeps. */
#define SCRIPT_EXTRA_WORDS PYWALK_MAX_DEPTH

/* One sample's interpreter stack as walked, not resolved yet. */
struct script_stack {
    struct pyread_stack py;
    bool have;           /* a walk (or a BPF record) was made */
};

/* SPROFTOP_PY_READ, a measuring knob (make bench): "off" reads no
 * interpreter frames at all (the native-only baseline), "drain" has the
 * perf backend read them from user space when it drains a sample rather
 * than in the sampling interrupt (the stale read this design replaced).
 * Any thread; read once. */
enum script_read_mode {
    SCRIPT_READ_DEFAULT = 0,
    SCRIPT_READ_OFF,
    SCRIPT_READ_DRAIN,
};
enum script_read_mode script_read_mode(void);

struct script_proc;

/* The interpreter process pid runs, from its maps m (the python
 * executable or libpython, libruby or a static ruby it maps, probed from
 * its memory): NULL when it maps none (or on OOM).  A version without a
 * layout row gets a script_proc with no reader, for its label. */
struct script_proc *script_proc_find(pid_t pid, const struct maps *m);

/* NULL is a no-op. */
void script_proc_free(struct script_proc *sp);

/* What the header and --stats say about it: "Python 3.11.2", "Ruby
 * 3.1.2", or for a version that is not read "Python 3.9: not read (3.11,
 * 3.12, 3.13 are)". */
const char *script_proc_label(const struct script_proc *sp);

/* Whether its version is read (it has a reader). */
bool script_proc_readable(const struct script_proc *sp);

/* Its language. */
enum script_lang script_proc_lang(const struct script_proc *sp);

/* The entry of the BPF program's `procs` map that walks its threads at
 * sample time (pybpf.h): 0, or -1 when its version is not read. */
int script_proc_bpf(const struct script_proc *sp, struct pybpf_proc *out);

/* Its reader's statistics (zero when it has none). */
void script_proc_stats(const struct script_proc *sp,
                       struct pyread_stats *out);

/* Walk thread tid's Python stack now (the thread is stopped, or the
 * caller accepts a racing read).  Leaves st->have false when there is no
 * reader. */
void script_walk(struct script_proc *sp, pid_t tid, struct script_stack *st);

/* Time has come to now_ns (CLOCK_MONOTONIC), at a new batch of samples:
 * every SCRIPT_GENERATION_NS the code cache checks its entries again at
 * their next use (one small read per code object and generation). */
#define SCRIPT_GENERATION_NS 100000000ull
void script_next_generation(struct script_proc *sp, uint64_t now_ns);

/* One sample's stack with its interpreter frames spliced in. */
struct script_spliced {
    const uint64_t *words; /* the stack, leaf first: the native pcs as
                              given, or sp's own words (valid until the
                              next script_splice with sp) */
    int nwords;
    int nscript;           /* interpreter frames resolved now (0: none) */
    bool spliced;          /* words hold interpreter frames (resolved now,
                              or in a stack kept from an earlier push) */
    bool torn;             /* py could not be read: the native stack */
    bool gvl;              /* the thread waits for Ruby's GVL */
};

/* Resolve py (names through the reader's code cache) and splice it into
 * the native stack pcs[0..n) (leaf first): each native eval frame becomes
 * the interpreter frames it runs (stackword_splice).  sp NULL, or py NULL
 * or not walked: the stack as it is (one kept from an earlier splice
 * holds its interpreter frames already).  A stack with a frame that
 * cannot be resolved is left native and flagged torn. */
void script_splice(struct script_proc *sp, const uint64_t *pcs, int n,
                   const struct script_stack *py, struct script_spliced *out);

/* Called with each code object the collector has not been handed yet:
 * its language, id and names (valid during the call); 0, or -1 to stop
 * (that one and those after it come again at the next call). */
typedef int (*script_code_fn)(void *ctx, enum script_lang lang, uint32_t id,
                              const struct pyread_code *c);

/* Hand fn, in id order, every code object sp's reader has named since the
 * last call (those a resolve named go before the sample that names
 * them): 0, or -1 when fn stopped.  sp NULL or without a reader: 0. */
int script_new_codes(struct script_proc *sp, script_code_fn fn, void *ctx);

#endif
