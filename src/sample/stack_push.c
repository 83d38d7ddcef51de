/* stack_push.c - a sampled stack into the ingest buffer, its interpreter
 * frames spliced in; see stack_push.h. */
#include "stack_push.h"

#include <string.h>

#include "backend.h"
#include "ingest.h"
#include "script_frames.h"

/* Where the code objects of one sample go. */
struct code_dest {
    struct ingest *in;
    const struct ingest_rec *hdr;
};

/* script_code_fn: one code object as an INGEST_CODE record of the
 * sample's process and thread; -1 when the buffer is full. */
static int push_code(void *ctx, enum script_lang lang, uint32_t id,
                     const struct pyread_code *c)
{
    const struct code_dest *d = ctx;
    size_t nl = strlen(c->qualname), fl = strlen(c->filename);
    uint8_t buf[sizeof(struct ingest_code) + PYREAD_MAX_NAME +
                PYREAD_MAX_FILE];
    struct ingest_code ic = {
        .id = id, .firstlineno = c->firstlineno, .lang = (uint8_t)lang,
        .name_len = (uint16_t)nl, .file_len = (uint16_t)fl,
    };
    memcpy(buf, &ic, sizeof ic);
    memcpy(buf + sizeof ic, c->qualname, nl);
    memcpy(buf + sizeof ic + nl, c->filename, fl);
    struct ingest_rec h = {.type = INGEST_CODE, .pid = d->hdr->pid,
                           .tid = d->hdr->tid, .time = d->hdr->time};
    return ingest_push(d->in, &h, buf, sizeof ic + nl + fl) < 0 ? -1 : 0;
}

bool stack_push(struct script_proc *sp, struct ingest *in,
                struct sampler_stats *st, const struct ingest_rec *hdr,
                const uint64_t *pcs, int n, const struct script_stack *py,
                const uint64_t *kpcs, int nk, const uint64_t **words,
                int *nwords)
{
    struct script_spliced s;
    script_splice(sp, pcs, n, py, &s);
    struct ingest_rec h = *hdr;
    if (s.torn)
        h.flags |= INGEST_F_SCRIPT_TORN;
    if (s.gvl)
        h.flags |= INGEST_F_GVL;
    struct code_dest d = {.in = in, .hdr = hdr};
    if (s.nscript > 0 && script_new_codes(sp, push_code, &d) < 0) {
        st->lost++;
        return false;
    }
    if (ingest_push_stack(in, &h, kpcs, nk > 0 ? (size_t)nk : 0, s.words,
                          (size_t)s.nwords) < 0) {
        st->lost++;
        return false;
    }
    st->samples++;
    if (!st->first_ns || hdr->time < st->first_ns)
        st->first_ns = hdr->time;
    if (hdr->time > st->last_ns)
        st->last_ns = hdr->time;
    st->script_samples += s.spliced;
    st->script_torn += s.torn;
    if (words) {
        *words = s.words;
        *nwords = s.nwords;
    }
    return true;
}
