/* stackword.c - the splice of script frames into native stacks; see
 * stackword.h. */
#include "stackword.h"

static bool is_eval(const struct stackword_splice_in *in, size_t i)
{
    /* a return address may sit just past the call at a function's end */
    uint64_t pc = in->pcs[i] - (i > 0);
    return in->eval_lo < in->eval_hi && pc >= in->eval_lo &&
           pc < in->eval_hi;
}

size_t stackword_splice(const struct stackword_splice_in *in, uint64_t *out,
                        size_t cap)
{
    size_t evals = 0, n = 0, s = 0;
    for (size_t i = 0; i < in->npcs; i++)
        evals += is_eval(in, i);
    for (size_t i = 0; i < in->npcs && n < cap; i++) {
        if (!is_eval(in, i) || s >= in->nscript) {
            out[n++] = in->pcs[i];
            continue;
        }
        bool last = --evals == 0;
        while (s < in->nscript && n < cap) {
            bool entry = in->entry[s];
            out[n++] = in->script[s++];
            if (entry && !last)
                break;
        }
    }
    while (s < in->nscript && n < cap)
        out[n++] = in->script[s++];
    return n;
}
