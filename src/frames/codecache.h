/* codecache.h - an interpreter's code objects as a frame reader knows
 * them: checked, named and given a dense id, cached by their address in
 * the target, for every language's reader (pyread.c, rbread.c).
 *
 * An entry is trusted for one generation (codecache_next_generation, at
 * each batch of samples): its first use in a newer one reads the
 * object's header again (the language's `head` op) and compares the
 * words it gives, so an object freed and replaced at the same address is
 * read again under a new id, and a steady state costs one small read per
 * distinct code object per generation.  Once the target has ended
 * (rmem_gone) nothing can be checked: an entry checked in the generation
 * before names the samples still drained after the exit, as it would
 * have named them had they been drained a generation sooner; any
 * other is not named.  It also resolves a walked stack
 * (codecache_resolve) and hands out what the collector is told of a code
 * (codecache_code), for every reader alike.  What an entry holds beyond its
 * name, file and first line (a line table) is the language's, in `aux`.
 *
 * One cache per reader, used by the reader's thread.  libc only.
 */
#ifndef SPROFTOP_CODECACHE_H
#define SPROFTOP_CODECACHE_H

#include <stdint.h>
#include <stddef.h>

#include "idtab.h"
#include "pyread.h"
#include "rmem.h"

#define CODECACHE_CHECK 5            /* words a header check compares */
/* Once the target has ended, its last samples keep the names checked in
 * the newest generation before that resolved anything, if it is at most
 * this many generations old: generations with nothing to resolve are
 * ones in which the target did not run (no sample), so changed nothing. */
#define CODECACHE_GONE_GENS 3
#define CODECACHE_MAX_CODES 65536    /* entries cached at once */
#define CODECACHE_MAX_IDS (1u << 24) /* ids handed out (what a stack word
                                        holds) */

struct codecache_entry {
    uint64_t addr;             /* the code object in the target */
    uint32_t id;
    uint32_t gen;              /* generation it was last checked in */
    uint64_t check[CODECACHE_CHECK]; /* its header as read */
    int32_t firstlineno;
    char *name, *file;         /* malloc'd UTF-8 */
    void *aux;                 /* malloc'd: the language's (line table) */
    uint32_t aux_len;
};

/* What a language reads.  ctx is the reader. */
struct codecache_ops {
    /* The header of the object at addr into check[]: 0, or -1 when it is
     * not a code object of this interpreter (or unreadable). */
    int (*head)(void *ctx, uint64_t addr, uint64_t *check);
    /* Fill e's name, file, firstlineno and aux (all NULL/0 on entry)
     * from the object at e->addr whose header e->check holds: 0, or -1
     * (then what it filled is freed by the cache). */
    int (*fill)(void *ctx, struct codecache_entry *e);
    /* The line frame f runs in e (0: unknown). */
    uint32_t (*line)(void *ctx, const struct codecache_entry *e,
                     const struct pywalk_frame *f);
};

struct codecache_stats {
    uint64_t read;    /* code objects read (new or changed) */
    uint64_t checked; /* cached ones checked again */
    uint64_t bad;     /* code objects that failed a check */
    uint64_t unchecked; /* uses of an entry checked before (the newest
                           generation with samples, CODECACHE_GONE_GENS),
                           once the target had ended */
};

struct codecache {
    const struct codecache_ops *ops;
    void *ctx;
    struct rmem *m;            /* what the ops read */
    struct codecache_entry *v;
    size_t n, cap;
    struct idtab by_addr;      /* util_mix64(addr) -> index in v */
    uint32_t *id_entry;        /* id -> index in v, or UINT32_MAX */
    size_t nids, capids;
    uint32_t gen;
    uint32_t active_gen;       /* the newest generation before gen in
                                  which codecache_get was called (0:
                                  none) */
    bool used;                 /* codecache_get was called in gen */
    struct codecache_stats st;
};

/* An empty cache over ops (ctx: their first argument), which read m. */
void codecache_init(struct codecache *c, const struct codecache_ops *ops,
                    void *ctx, struct rmem *m);

/* Frees every entry. */
void codecache_free(struct codecache *c);

/* The checked entry of the code object at addr (read, or checked again
 * in a new generation; once the target has ended, one checked in the
 * newest generation that resolved anything, at most CODECACHE_GONE_GENS
 * before, unchecked), or NULL when it does not check (or on OOM). */
const struct codecache_entry *codecache_get(struct codecache *c,
                                            uint64_t addr);

/* The entry with this id, or NULL once it was replaced (or for an id
 * never given). */
const struct codecache_entry *codecache_by_id(const struct codecache *c,
                                              uint32_t id);

/* Resolve st's frames into out (room for st->n): each frame's code
 * checked and named through the cache, its line from the ops.  Returns
 * how many resolved (a prefix of st: a frame that does not check ends
 * it), or -1 when none did while st had some.  *torn is set when a frame
 * failed or the walk itself was torn. */
int codecache_resolve(struct codecache *c, const struct pyread_stack *st,
                      struct pyread_frame *out, bool *torn);

/* The code with this id into *out (its strings live as long as the
 * entry): 0, or -1 once it was replaced (or for an id never given). */
int codecache_code(const struct codecache *c, uint32_t id,
                   struct pyread_code *out);

/* Ids handed out so far (the next id). */
uint32_t codecache_count(const struct codecache *c);

/* A new generation: entries are checked again at their next use, by
 * reads of the target, not of m's cached pages (forgotten here: frames
 * walked elsewhere, by the BPF program, leave no walk to forget them). */
void codecache_next_generation(struct codecache *c);

#define CODEREADER_HINTS 256u /* threads whose walk start is remembered */

/* Where a thread's last walk found its interpreter thread (a CPython
 * thread state, a CRuby rb_thread_t): tried first by its next walk. */
struct codereader_hint {
    int64_t tid;
    uint64_t at;
};

/* What every language's reader holds first (pyread.c, rbread.c): its
 * cache, its counters and its threads' hints.  Being the reader's first
 * member, a reader's pointer is its codereader's, so script_lang.c serves
 * every language's codes through these.  The reader's thread, as the
 * cache. */
struct codereader {
    struct codecache codes;
    struct pyread_stats st;
    struct codereader_hint hints[CODEREADER_HINTS]; /* by TID, modulo */
};

/* A new reader of `size` bytes (sizeof the language's reader, whose
 * first member is its struct codereader), zeroed, its cache empty over
 * ops, which read m and get the reader as their ctx.  NULL on OOM.  The
 * caller fills the rest; codereader_free frees it. */
void *codereader_new(size_t size, const struct codecache_ops *ops,
                     struct rmem *m);

/* Free the reader r is the first member of (codereader_new's), its
 * cache with it.  NULL is a no-op. */
void codereader_free(struct codereader *r);

/* Begin a walk of thread tid into st: count it, forget the memory's
 * cached pages (the frames moved on since the last walk) and empty st
 * (no frames, no flags).  Returns the thread tid's last walk began at
 * (codereader_hint_set), or 0 when none is remembered. */
uint64_t codereader_walk_start(struct codereader *r, int64_t tid,
                               struct pyread_stack *st);

/* Remember that thread tid's walk began at `at` (its interpreter
 * thread), for its next walk; a thread of the same slot is forgotten. */
void codereader_hint_set(struct codereader *r, int64_t tid, uint64_t at);

/* End a walk that found no interpreter thread for its TID: counted as
 * not_python; st->status becomes PYWALK_NONE_THREAD, which it returns. */
int codereader_walk_none(struct codereader *r, struct pyread_stack *st);

/* End a walk whose status st->status holds: a torn one is counted.
 * Returns st->status. */
int codereader_walk_end(struct codereader *r, struct pyread_stack *st);

/* codecache_resolve, counting in st.torn a resolve that tore a walk
 * that was not torn itself. */
int codereader_resolve(struct codereader *r, const struct pyread_stack *st,
                       struct pyread_frame *out, bool *torn);

/* r's counters into *out, the cache's included. */
void codereader_stats(const struct codereader *r, struct pyread_stats *out);

#endif
