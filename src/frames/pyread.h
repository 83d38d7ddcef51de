/* pyread.h - CPython's frames read from outside the process: which Python
 * a process runs, each thread's Python stack, and the names and lines of
 * its code objects, through a cache.
 *
 * A sampler (its own thread) finds the interpreter once per process
 * (pyread_probe on each candidate file the process maps: the python
 * executable or libpython), makes a reader for it, and then per sample:
 *   - pyread_walk: the chain of frames the thread runs now (pywalk.h), or
 *     for the perf backend the chain a BPF program walked at sample time;
 *   - pyread_resolve: each frame's code object, checked and named through
 *     the code cache, and its current line.
 * The code cache is keyed by the code object's address.  An entry is
 * trusted for one generation (pyread_next_generation, which the sampler
 * calls each batch, about every 100-200 ms): the first use in a newer
 * generation reads the object's header again and compares its type and
 * its name, file, first line and line table pointers, so a freed object
 * whose address was reused is read again, and a steady state costs one
 * small read per distinct code object per generation.
 *
 * Nothing read is trusted: a code object's type must be the target's
 * PyCode_Type, a name's PyUnicode_Type, a line table's PyBytes_Type (their
 * addresses come from the interpreter's exported symbols); strings and
 * tables are bounded (PYREAD_MAX_NAME, PYREAD_MAX_FILE, PYREAD_MAX_TABLE).
 * A read that fails or a check that does not hold costs that sample its
 * Python frames (pyread_resolve's status), never a wrong name.
 *
 * One reader per process, used by one thread.  libc only.
 */
#ifndef SPROFTOP_PYREAD_H
#define SPROFTOP_PYREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pylayout.h"
#include "pywalk.h"

struct rmem;

#define PYREAD_MAX_NAME 256    /* bytes of a qualified name (UTF-8) */
#define PYREAD_MAX_FILE 1024   /* bytes of a file name */
#define PYREAD_MAX_TABLE 65536 /* bytes of a line table */
#define PYREAD_MAX_CODES 65536 /* code objects cached at once */
#define PYREAD_MAX_IDS (1u << 24) /* code ids a reader hands out (what a
                                     stack word holds) */

/* What pyread_probe found. */
struct pyread_info {
    uint32_t major, minor, micro;
    char version[24];      /* "3.11.2", "3.13.0rc1"; "3.10" when only the
                              file's name gave it */
    bool supported;        /* a layout row exists (and the symbols) */
    uint64_t runtime;      /* _PyRuntime */
    uint64_t code_type;    /* PyCode_Type */
    uint64_t unicode_type; /* PyUnicode_Type */
    uint64_t bytes_type;   /* PyBytes_Type */
    uint64_t eval_lo, eval_hi; /* _PyEval_EvalFrameDefault's code */
    bool own_offsets;      /* pyread_info of a reader: the offsets are the
                              target's own (_Py_DebugOffsets), not the
                              row's */
};

/* Whether a mapped file's path may be a CPython: its name is python3...,
 * python2..., or libpython... */
bool pyread_candidate(const char *path);

/* Look at the ELF object mapped at base (file offset 0; path is its file,
 * for the version when it exports none).  0 with *out filled when it is a
 * CPython: it exports _PyRuntime, or its name gives a version (then
 * supported is false).  -1 when it is not one.  The caller's thread. */
int pyread_probe(struct rmem *m, uint64_t base, const char *path,
                 struct pyread_info *out);

struct pyread;

/* A reader for the process m reads (m stays the caller's and must outlive
 * the reader), of a supported version.  From 3.13 the target's own
 * _Py_DebugOffsets replace the row's offsets.  NULL on OOM or when
 * info->supported is false. */
struct pyread *pyread_new(struct rmem *m, const struct pyread_info *info);

/* NULL is a no-op. */
void pyread_free(struct pyread *r);

/* The layout in use (the BPF walker gets its walk part). */
const struct py_layout *pyread_layout(const struct pyread *r);
const struct pyread_info *pyread_info(const struct pyread *r);

/* One sample's raw Python stack, leaf first (as pywalk_frames gives it). */
struct pyread_stack {
    struct pywalk_frame f[PYWALK_MAX_DEPTH];
    uint8_t entry[PYWALK_MAX_DEPTH];
    uint32_t n;
    int status;            /* enum pywalk_status */
    uint32_t flags;        /* PYWALK_F_* */
};

/* Walk thread tid's frames now (from its thread state; a cache of thread
 * states by TID makes the steady state one read).  The caller makes sure
 * the thread is stopped (ptrace) or accepts a racing read.  Returns
 * st->status. */
int pyread_walk(struct pyread *r, int64_t tid, struct pyread_stack *st);

/* A code object as the cache knows it.  Strings live until the entry is
 * replaced or the reader freed. */
struct pyread_code {
    uint32_t id;           /* dense, from 0, never reused by the reader */
    int32_t firstlineno;
    const char *qualname;  /* UTF-8 */
    const char *filename;
};

/* One resolved frame. */
struct pyread_frame {
    uint32_t code;         /* pyread_code id */
    uint32_t line;         /* current line, 0 if unknown */
    bool entry;            /* a native eval call began here */
};

/* Resolve st's frames into out (room for st->n): check and name each code
 * object (through the cache), decode its line.  Returns how many frames
 * resolved (a prefix of st: a frame that does not check ends it) or -1
 * when none did while st had some.  *torn is set when a frame failed to
 * resolve or the walk itself was torn. */
int pyread_resolve(struct pyread *r, const struct pyread_stack *st,
                   struct pyread_frame *out, bool *torn);

/* The cached code object with this id into *out: 0, or -1 once it was
 * replaced (or for an id never given). */
int pyread_code(const struct pyread *r, uint32_t id, struct pyread_code *out);

/* Ids handed out so far (the next id): codes with ids the caller has not
 * seen yet are new. */
uint32_t pyread_code_count(const struct pyread *r);

/* A new generation: cached code objects are checked again at their next
 * use.  Call once per batch of samples. */
void pyread_next_generation(struct pyread *r);

struct pyread_stats {
    uint64_t walks;        /* pyread_walk calls */
    uint64_t torn;         /* walks or resolutions that were torn */
    uint64_t not_python;   /* walks of threads with no thread state */
    uint64_t codes_read;   /* code objects read (new or changed) */
    uint64_t codes_checked;/* cached ones checked again */
    uint64_t codes_bad;    /* code objects that failed a check */
    uint64_t codes_unchecked; /* named unchecked once the target ended
                                 (codecache.h) */
};
void pyread_get_stats(const struct pyread *r, struct pyread_stats *out);

#endif
