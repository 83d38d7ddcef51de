/* script_lang.c - the table of interpreter languages; see
 * script_lang.h. */
#include "script_lang.h"

#include <stdio.h>
#include <string.h>

#include "codecache.h"
#include "maps.h"
#include "pylayout.h"
#include "rblayout.h"


/* The calls each language's reader has under the same names (READER_new,
 * _free, _walk, _info) and its probe's info under the same fields
 * (version, eval_lo, eval_hi), adapted once to the table's types: LANG is
 * the language's member of union script_info, READER its reader's prefix. */
#define READER_OPS(LANG, READER)                                            \
    static const char *LANG##_version(const union script_info *i)          \
    {                                                                       \
        return i->LANG.version;                                             \
    }                                                                       \
    static void *LANG##_open(struct rmem *m, const union script_info *i)   \
    {                                                                       \
        return READER##_new(m, &i->LANG);                                   \
    }                                                                       \
    static void LANG##_free(void *r)                                        \
    {                                                                       \
        READER##_free(r);                                                   \
    }                                                                       \
    static int LANG##_walk(void *r, int64_t tid, struct pyread_stack *st)  \
    {                                                                       \
        return READER##_walk(r, tid, st);                                   \
    }                                                                       \
    static void LANG##_eval(const void *r, uint64_t *lo, uint64_t *hi)     \
    {                                                                       \
        *lo = READER##_info(r)->eval_lo;                                    \
        *hi = READER##_info(r)->eval_hi;                                    \
    }

READER_OPS(py, pyread)
READER_OPS(rb, rbread)

/* Python */
static int py_probe(struct rmem *m, uint64_t base, const char *path,
                    union script_info *info, bool *strong)
{
    if (pyread_probe(m, base, path, &info->py) < 0)
        return -1;
    *strong = info->py.runtime != 0;
    return 0;
}
static void py_bpf(const void *r, struct pybpf_proc *out)
{
    out->lang = SCRIPT_PYTHON;
    out->runtime = pyread_info(r)->runtime;
    out->walk = pyread_layout(r)->walk;
}

/* Ruby */
static int rb_probe(struct rmem *m, uint64_t base, const char *path,
                    union script_info *info, bool *strong)
{
    *strong = true;
    return rbread_probe(m, base, path, &info->rb);
}
static void rb_bpf(const void *r, struct pybpf_proc *out)
{
    out->lang = SCRIPT_RUBY;
    out->runtime = rbread_info(r)->vm_ptr;
    out->rb = rbread_layout(r)->walk;
}

/* The codes of every language's reader, through its codereader (its
 * first member: codecache.h). */
static int cr_resolve(void *r, const struct pyread_stack *st,
                      struct pyread_frame *out, bool *torn)
{
    return codereader_resolve(r, st, out, torn);
}
static int cr_code(const void *r, uint32_t id, struct pyread_code *out)
{
    return codecache_code(&((const struct codereader *)r)->codes, id, out);
}
static uint32_t cr_count(const void *r)
{
    return codecache_count(&((const struct codereader *)r)->codes);
}
static void cr_next(void *r)
{
    codecache_next_generation(&((struct codereader *)r)->codes);
}
static void cr_stats(const void *r, struct pyread_stats *out)
{
    codereader_stats(r, out);
}

static const struct script_lang_ops langs[] = {
    {SCRIPT_PYTHON, "Python", pyread_candidate, py_probe, py_version,
     pylayout_supported, py_open, py_free, py_walk, cr_resolve, cr_code,
     cr_count, cr_next, py_eval, py_bpf, cr_stats},
    {SCRIPT_RUBY, "Ruby", rbread_candidate, rb_probe, rb_version,
     rblayout_supported, rb_open, rb_free, rb_walk, cr_resolve, cr_code,
     cr_count, cr_next, rb_eval, rb_bpf, cr_stats},
};
#define NLANGS (sizeof langs / sizeof langs[0])

bool script_candidate(const char *path)
{
    for (size_t l = 0; l < NLANGS; l++)
        if (langs[l].candidate(path))
            return true;
    return false;
}

static int probe_lang(const struct script_lang_ops *l, struct rmem *m,
                      uint64_t base, const char *path,
                      struct script_found *out, bool *strong)
{
    *strong = false;
    if (!l->candidate(path) ||
        l->probe(m, base, path, &out->info, strong) < 0)
        return -1;
    out->ops = l;
    out->base = base;
    snprintf(out->path, sizeof out->path, "%s", path);
    return 0;
}

int script_lang_probe(struct rmem *m, uint64_t base, const char *path,
                      struct script_found *out)
{
    bool strong;
    for (size_t l = 0; l < NLANGS; l++)
        if (probe_lang(&langs[l], m, base, path, out, &strong) == 0)
            return 0;
    return -1;
}

int script_lang_find(struct rmem *m, const struct maps *mp,
                     struct script_found *out)
{
    bool found = false;
    for (size_t i = 0; i < mp->n; i++) {
        const struct map_entry *e = &mp->v[i];
        if (e->offset != 0 || !e->r)
            continue;
        for (size_t l = 0; l < NLANGS; l++) {
            struct script_found f;
            bool strong;
            if (probe_lang(&langs[l], m, e->start, e->path, &f, &strong) < 0)
                continue;
            /* the object that holds the runtime (libpython, or the
             * executable when it is linked in) wins */
            if (!found || strong)
                *out = f;
            found = true;
            if (strong)
                return 0;
        }
    }
    return found ? 0 : -1;
}

void script_lang_label(const struct script_lang_ops *ops,
                       const union script_info *info, bool read, char *buf,
                       size_t cap)
{
    char versions[64];

    if (read) {
        snprintf(buf, cap, "%s %s", ops->name, ops->version(info));
        return;
    }
    ops->supported(versions, sizeof versions);
    snprintf(buf, cap, "%s %s: not read (%s %s)", ops->name,
             ops->version(info), versions,
             strchr(versions, ',') ? "are" : "is");
}
