/* script_frames.c - interpreter frames in sampled stacks; see
 * script_frames.h. */
#include "script_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest.h"
#include "maps.h"
#include "pylayout.h"
#include "pyread.h"
#include "rblayout.h"
#include "rbread.h"
#include "rmem.h"
#include "backend.h"
#include "stackword.h"

#define MAX_WORDS 1024   /* native frames kept (max_depth caps them) plus
                            script frames */

/* What a language's probe found, whichever the language. */
union script_info {
    struct pyread_info py;
    struct rbread_info rb;
};

/* One interpreter language: everything script_frames.c needs of its
 * reader.  The walk's raw frames, the resolved frames and the codes are
 * the same types for every language (pyread.h). */
struct script_lang_ops {
    enum script_lang lang;
    const char *name;                         /* "Python" */
    bool (*candidate)(const char *path);
    /* 0 with *info filled when the object at base is this interpreter;
     * *strong when it holds the runtime itself (it wins over one that
     * only names a version) */
    int (*probe)(struct rmem *m, uint64_t base, const char *path,
                 union script_info *info, bool *strong);
    const char *(*version)(const union script_info *info);
    const char *(*supported)(void);
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

/* Python */
static int py_probe(struct rmem *m, uint64_t base, const char *path,
                    union script_info *info, bool *strong)
{
    if (pyread_probe(m, base, path, &info->py) < 0)
        return -1;
    *strong = info->py.runtime != 0;
    return 0;
}
static const char *py_version(const union script_info *i)
{
    return i->py.version;
}
static void *py_open(struct rmem *m, const union script_info *i)
{
    return pyread_new(m, &i->py);
}
static void py_free(void *r) { pyread_free(r); }
static int py_walk(void *r, int64_t tid, struct pyread_stack *st)
{
    return pyread_walk(r, tid, st);
}
static int py_resolve(void *r, const struct pyread_stack *st,
                      struct pyread_frame *out, bool *torn)
{
    return pyread_resolve(r, st, out, torn);
}
static int py_code(const void *r, uint32_t id, struct pyread_code *out)
{
    return pyread_code(r, id, out);
}
static uint32_t py_count(const void *r) { return pyread_code_count(r); }
static void py_next(void *r) { pyread_next_generation(r); }
static void py_eval(const void *r, uint64_t *lo, uint64_t *hi)
{
    *lo = pyread_info(r)->eval_lo;
    *hi = pyread_info(r)->eval_hi;
}
static void py_bpf(const void *r, struct pybpf_proc *out)
{
    out->lang = SCRIPT_PYTHON;
    out->runtime = pyread_info(r)->runtime;
    out->walk = pyread_layout(r)->walk;
}
static void py_stats(const void *r, struct pyread_stats *out)
{
    pyread_get_stats(r, out);
}

/* Ruby */
static int rb_probe(struct rmem *m, uint64_t base, const char *path,
                    union script_info *info, bool *strong)
{
    *strong = true;
    return rbread_probe(m, base, path, &info->rb);
}
static const char *rb_version(const union script_info *i)
{
    return i->rb.version;
}
static void *rb_open(struct rmem *m, const union script_info *i)
{
    return rbread_new(m, &i->rb);
}
static void rb_free(void *r) { rbread_free(r); }
static int rb_walk(void *r, int64_t tid, struct pyread_stack *st)
{
    return rbread_walk(r, tid, st);
}
static int rb_resolve(void *r, const struct pyread_stack *st,
                      struct pyread_frame *out, bool *torn)
{
    return rbread_resolve(r, st, out, torn);
}
static int rb_code(const void *r, uint32_t id, struct pyread_code *out)
{
    return rbread_code(r, id, out);
}
static uint32_t rb_count(const void *r) { return rbread_code_count(r); }
static void rb_next(void *r) { rbread_next_generation(r); }
static void rb_eval(const void *r, uint64_t *lo, uint64_t *hi)
{
    *lo = rbread_info(r)->eval_lo;
    *hi = rbread_info(r)->eval_hi;
}
static void rb_bpf(const void *r, struct pybpf_proc *out)
{
    out->lang = SCRIPT_RUBY;
    out->runtime = rbread_info(r)->vm_ptr;
    out->rb = rbread_layout(r)->walk;
}
static void rb_stats(const void *r, struct pyread_stats *out)
{
    rbread_get_stats(r, out);
}

static const struct script_lang_ops langs[] = {
    {SCRIPT_PYTHON, "Python", pyread_candidate, py_probe, py_version,
     pylayout_supported, py_open, py_free, py_walk, py_resolve, py_code,
     py_count, py_next, py_eval, py_bpf, py_stats},
    {SCRIPT_RUBY, "Ruby", rbread_candidate, rb_probe, rb_version,
     rblayout_supported, rb_open, rb_free, rb_walk, rb_resolve, rb_code,
     rb_count, rb_next, rb_eval, rb_bpf, rb_stats},
};
#define NLANGS (sizeof langs / sizeof langs[0])

struct script_proc {
    pid_t pid;
    const struct script_lang_ops *ops;
    struct rmem *m;
    void *r;                   /* the reader; NULL: a version not read */
    char label[96];
    uint32_t announced;        /* code ids below this were pushed */
    uint64_t t_gen;            /* when the code cache's generation began */
    uint64_t words[MAX_WORDS + SCRIPT_EXTRA_WORDS];
    uint64_t script[PYWALK_MAX_DEPTH];
    bool entry[PYWALK_MAX_DEPTH];
    struct pyread_frame fr[PYWALK_MAX_DEPTH];
};

enum script_read_mode script_read_mode(void)
{
    static _Atomic int mode = -1;
    int v = mode;
    if (v < 0) {
        const char *e = getenv("SPROFTOP_PY_READ");
        v = !e ? SCRIPT_READ_DEFAULT
            : strcmp(e, "off") == 0 ? SCRIPT_READ_OFF
            : strcmp(e, "drain") == 0 ? SCRIPT_READ_DRAIN
            : SCRIPT_READ_DEFAULT;
        mode = v;
    }
    return (enum script_read_mode)v;
}

bool script_candidate(const char *path)
{
    for (size_t l = 0; l < NLANGS; l++)
        if (langs[l].candidate(path))
            return true;
    return false;
}

struct script_proc *script_proc_find(pid_t pid, const struct maps *m)
{
    if (!m || script_read_mode() == SCRIPT_READ_OFF)
        return NULL;
    struct rmem *mem = NULL;
    union script_info best;
    const struct script_lang_ops *lang = NULL;
    bool best_strong = false;
    for (size_t i = 0; i < m->n && !best_strong; i++) {
        const struct map_entry *e = &m->v[i];
        if (e->offset != 0 || !e->r)
            continue;
        for (size_t l = 0; l < NLANGS && !best_strong; l++) {
            if (!langs[l].candidate(e->path))
                continue;
            if (!mem && !(mem = rmem_open_pid(pid)))
                return NULL;
            union script_info info;
            bool strong = false;
            if (langs[l].probe(mem, e->start, e->path, &info, &strong) < 0)
                continue;
            /* the object that holds the runtime (libpython, or the
             * executable when it is linked in) wins */
            if (!lang || strong) {
                best = info;
                lang = &langs[l];
                best_strong = strong;
            }
        }
    }
    if (!lang) {
        rmem_free(mem);
        return NULL;
    }
    struct script_proc *sp = calloc(1, sizeof *sp);
    if (!sp) {
        rmem_free(mem);
        return NULL;
    }
    sp->pid = pid;
    sp->ops = lang;
    sp->m = mem;
    sp->r = lang->open(mem, &best);
    if (sp->r)
        snprintf(sp->label, sizeof sp->label, "%s %s", lang->name,
                 lang->version(&best));
    else
        snprintf(sp->label, sizeof sp->label, "%s %s: not read (%s %s)",
                 lang->name, lang->version(&best), lang->supported(),
                 strchr(lang->supported(), ',') ? "are" : "is");
    return sp;
}

void script_proc_free(struct script_proc *sp)
{
    if (!sp)
        return;
    if (sp->r)
        sp->ops->free(sp->r);
    rmem_free(sp->m);
    free(sp);
}

const char *script_proc_label(const struct script_proc *sp)
{
    return sp->label;
}

bool script_proc_readable(const struct script_proc *sp)
{
    return sp && sp->r;
}

enum script_lang script_proc_lang(const struct script_proc *sp)
{
    return sp ? sp->ops->lang : SCRIPT_NONE;
}

int script_proc_bpf(const struct script_proc *sp, struct pybpf_proc *out)
{
    if (!sp || !sp->r)
        return -1;
    memset(out, 0, sizeof *out);
    sp->ops->bpf(sp->r, out);
    return 0;
}

void script_proc_stats(const struct script_proc *sp,
                       struct pyread_stats *out)
{
    memset(out, 0, sizeof *out);
    if (sp && sp->r)
        sp->ops->stats(sp->r, out);
}

void script_walk(struct script_proc *sp, pid_t tid, struct script_stack *st)
{
    st->have = false;
    if (!sp || !sp->r)
        return;
    sp->ops->walk(sp->r, tid, &st->py);
    st->have = true;
}

void script_next_generation(struct script_proc *sp, uint64_t now_ns)
{
    if (!sp || !sp->r || now_ns - sp->t_gen < SCRIPT_GENERATION_NS)
        return;
    sp->t_gen = now_ns;
    sp->ops->next_generation(sp->r);
}

/* Push the code objects the collector has not seen.  0, or -1 when the
 * ingest buffer is full (they are pushed again with the next sample). */
static int announce(struct script_proc *sp, struct ingest *in, int32_t tid,
                    uint64_t time)
{
    uint32_t count = sp->ops->code_count(sp->r);
    for (uint32_t id = sp->announced; id < count; id++) {
        struct pyread_code c;
        if (sp->ops->code(sp->r, id, &c) < 0)
            continue; /* replaced before any sample named it */
        size_t nl = strlen(c.qualname), fl = strlen(c.filename);
        uint8_t buf[sizeof(struct ingest_code) + PYREAD_MAX_NAME +
                    PYREAD_MAX_FILE];
        struct ingest_code ic = {
            .id = id, .firstlineno = c.firstlineno, .lang = (uint8_t)sp->ops->lang,
            .name_len = (uint16_t)nl, .file_len = (uint16_t)fl,
        };
        memcpy(buf, &ic, sizeof ic);
        memcpy(buf + sizeof ic, c.qualname, nl);
        memcpy(buf + sizeof ic + nl, c.filename, fl);
        struct ingest_rec h = {.type = INGEST_CODE, .pid = sp->pid,
                               .tid = tid, .time = time};
        if (ingest_push(in, &h, buf, sizeof ic + nl + fl) < 0) {
            sp->announced = id;
            return -1;
        }
    }
    sp->announced = count;
    return 0;
}

bool script_push(struct script_proc *sp, struct ingest *in,
                 struct sampler_stats *st, const struct ingest_rec *hdr,
                 const uint64_t *pcs, int n, const struct script_stack *py,
                 const uint64_t **words, int *nwords)
{
    const uint64_t *w = pcs;
    int nw = n;
    struct ingest_rec h = *hdr;
    bool spliced = false, torn = false;
    if (sp && sp->r && py && py->have) {
        int k = 0;
        if (py->py.status != PYWALK_NONE_THREAD)
            k = sp->ops->resolve(sp->r, &py->py, sp->fr, &torn);
        if (k < 0 || torn) {
            /* a prefix of the frames may have resolved: a stack with a
             * hole is not shown, the native one is */
            h.flags |= INGEST_F_SCRIPT_TORN;
            torn = true;
        } else if (k > 0) {
            if (announce(sp, in, hdr->tid, hdr->time) < 0) {
                st->lost++;
                return false;
            }
            for (int i = 0; i < k; i++) {
                sp->script[i] = stackword_script(sp->fr[i].code,
                                                 sp->fr[i].line);
                sp->entry[i] = sp->fr[i].entry;
            }
            uint64_t lo, hi;
            sp->ops->eval(sp->r, &lo, &hi);
            struct stackword_splice_in si = {
                .pcs = pcs, .npcs = n > MAX_WORDS ? MAX_WORDS : (size_t)n,
                .eval_lo = lo, .eval_hi = hi,
                .script = sp->script, .entry = sp->entry,
                .nscript = (size_t)k,
            };
            nw = (int)stackword_splice(&si, sp->words,
                                       sizeof sp->words / sizeof sp->words[0]);
            w = sp->words;
            spliced = true;
        }
    } else {
        /* a stack pushed before and kept (a blocked thread's) */
        for (int i = 0; i < n && !spliced; i++)
            spliced = stackword_is_script(pcs[i]);
    }
    if (ingest_push(in, &h, w, (size_t)nw * sizeof *w) < 0) {
        st->lost++;
        return false;
    }
    st->samples++;
    st->script_samples += spliced;
    st->script_torn += torn;
    if (words) {
        *words = w;
        *nwords = nw;
    }
    return true;
}
