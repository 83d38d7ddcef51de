/* script_frames.c - interpreter frames in sampled stacks; see
 * script_frames.h. */
#include "script_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "pylayout.h"
#include "pyread.h"
#include "script_lang.h"
#include "rmem.h"
#include "stackword.h"

#define MAX_WORDS 1024   /* native frames kept (max_depth caps them) plus
                            script frames */


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

struct script_proc *script_proc_find(pid_t pid, const struct maps *m)
{
    if (!m || script_read_mode() == SCRIPT_READ_OFF)
        return NULL;
    bool any = false;
    for (size_t i = 0; i < m->n && !any; i++)
        any = m->v[i].offset == 0 && m->v[i].r &&
              script_candidate(m->v[i].path);
    struct rmem *mem = any ? rmem_open_pid(pid) : NULL;
    struct script_found best;
    if (!mem || script_lang_find(mem, m, &best) < 0) {
        rmem_free(mem);
        return NULL;
    }
    const struct script_lang_ops *lang = best.ops;
    struct script_proc *sp = calloc(1, sizeof *sp);
    if (!sp) {
        rmem_free(mem);
        return NULL;
    }
    sp->pid = pid;
    sp->ops = lang;
    sp->m = mem;
    sp->r = lang->open(mem, &best.info);
    script_lang_label(lang, &best.info, sp->r != NULL, sp->label,
                      sizeof sp->label);
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

int script_new_codes(struct script_proc *sp, script_code_fn fn, void *ctx)
{
    if (!sp || !sp->r)
        return 0;
    uint32_t count = sp->ops->code_count(sp->r);
    for (uint32_t id = sp->announced; id < count; id++) {
        struct pyread_code c;
        if (sp->ops->code(sp->r, id, &c) < 0)
            continue; /* replaced before any sample named it */
        if (fn(ctx, sp->ops->lang, id, &c) < 0) {
            sp->announced = id;
            return -1;
        }
    }
    sp->announced = count;
    return 0;
}

void script_splice(struct script_proc *sp, const uint64_t *pcs, int n,
                   const struct script_stack *py, struct script_spliced *out)
{
    *out = (struct script_spliced){.words = pcs, .nwords = n};
    if (!sp || !sp->r || !py || !py->have) {
        /* a stack pushed before and kept (a blocked thread's) */
        for (int i = 0; i < n && !out->spliced; i++)
            out->spliced = stackword_is_script(pcs[i]);
        return;
    }
    int k = 0;
    bool torn = false;
    if (py->py.status != PYWALK_NONE_THREAD)
        k = sp->ops->resolve(sp->r, &py->py, sp->fr, &torn);
    if (k < 0 || torn) {
        /* a prefix of the frames may have resolved: a stack with a hole
         * is not shown, the native one is */
        out->torn = true;
        return;
    }
    if (k == 0)
        return;
    out->gvl = (py->py.flags & PYWALK_F_GVL) != 0;
    for (int i = 0; i < k; i++) {
        sp->script[i] = stackword_script(sp->fr[i].code, sp->fr[i].line);
        sp->entry[i] = sp->fr[i].entry;
    }
    uint64_t lo, hi;
    sp->ops->eval(sp->r, &lo, &hi);
    struct stackword_splice_in si = {
        .pcs = pcs, .npcs = n > MAX_WORDS ? MAX_WORDS : (size_t)n,
        .eval_lo = lo, .eval_hi = hi,
        .script = sp->script, .entry = sp->entry, .nscript = (size_t)k,
    };
    out->nwords = (int)stackword_splice(&si, sp->words,
                                        sizeof sp->words / sizeof sp->words[0]);
    out->words = sp->words;
    out->nscript = k;
    out->spliced = true;
}
