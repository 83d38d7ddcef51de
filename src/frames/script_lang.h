/* script_lang.h - the interpreters sproftop reads frames of, as one
 * table: for each language its reader's calls (pyread.h, rbread.h)
 * behind the same ops, so that what follows the probe (walk, resolve,
 * names, the splice, the BPF entry) is written once for all of them.
 *
 * Used by script_frames.c (the samplers' side) and by the test tools and
 * the fuzz target, over any struct rmem (a live process or an image).
 * Pure table and probing; the caller's thread.  libc only.
 */
#ifndef SPROFTOP_SCRIPT_LANG_H
#define SPROFTOP_SCRIPT_LANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pybpf.h"
#include "pyread.h"
#include "rbread.h"

struct maps;
struct rmem;

enum script_lang {
    SCRIPT_NONE = 0,
    SCRIPT_PYTHON = 1,
    SCRIPT_RUBY = 2,
};

/* What a language's probe found, whichever the language. */
union script_info {
    struct pyread_info py;
    struct rbread_info rb;
};

/* One interpreter language.  The walk's raw frames, the resolved frames
 * and the codes are the same types for every language (pyread.h); r is
 * the language's reader. */
struct script_lang_ops {
    enum script_lang lang;
    const char *name;                         /* "Python", "Ruby" */
    bool (*candidate)(const char *path);
    /* 0 with *info filled when the object at base is this interpreter;
     * *strong when it holds the runtime itself (it wins over one that
     * only names a version) */
    int (*probe)(struct rmem *m, uint64_t base, const char *path,
                 union script_info *info, bool *strong);
    const char *(*version)(const union script_info *info);
    void (*supported)(char *buf, size_t cap); /* the versions read */
    /* NULL when the version is not read (or on OOM) */
    void *(*open)(struct rmem *m, const union script_info *info);
    void (*free)(void *r);
    int (*walk)(void *r, int64_t tid, struct pyread_stack *st);
    int (*resolve)(void *r, const struct pyread_stack *st,
                   struct pyread_frame *out, bool *torn);
    int (*code)(const void *r, uint32_t id, struct pyread_code *out);
    uint32_t (*code_count)(const void *r);
    void (*next_generation)(void *r);
    void (*eval)(const void *r, uint64_t *lo, uint64_t *hi);
    void (*bpf)(const void *r, struct pybpf_proc *out);
    void (*stats)(const void *r, struct pyread_stats *out);
};

/* Whether a command or mapped file's path may be an interpreter of the
 * table (python3..., libpython..., ruby, libruby...). */
bool script_candidate(const char *path);

/* What script_lang_find / script_lang_probe found. */
struct script_found {
    const struct script_lang_ops *ops;
    union script_info info;
    uint64_t base;          /* where the object is mapped (offset 0) */
    char path[256];
};

/* The object at base (path: its file) as any language's interpreter:
 * 0 with *out filled, -1 when it is none. */
int script_lang_probe(struct rmem *m, uint64_t base, const char *path,
                      struct script_found *out);

/* The interpreter of a process whose maps are mp and memory m: every
 * candidate mapping at file offset 0 probed, the first object that holds
 * the runtime winning (else the first that names a version).  0 with
 * *out filled, or -1 when it maps none. */
int script_lang_find(struct rmem *m, const struct maps *mp,
                     struct script_found *out);

/* "Python 3.11.2", or for a version that is not read "Ruby 3.0.9: not
 * read (3.1 is)", into buf. */
void script_lang_label(const struct script_lang_ops *ops,
                       const union script_info *info, bool read, char *buf,
                       size_t cap);

#endif
