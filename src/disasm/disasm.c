/* disasm.c - capstone behind a plain interface; see disasm.h. */
#include "disasm.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"

struct disasm {
    csh h;
    cs_insn *insn;     /* capstone's scratch instruction, with detail */
};

struct disasm *disasm_new(char *err, size_t errlen)
{
    struct disasm *d = calloc(1, sizeof(*d));
    cs_err e;

    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if ((e = cs_open(CS_ARCH_X86, CS_MODE_64, &d->h)) != CS_ERR_OK) {
        snprintf(err, errlen, "capstone: %s", cs_strerror(e));
        free(d);
        return NULL;
    }
    if (cs_option(d->h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT) != CS_ERR_OK ||
        cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
        !(d->insn = cs_malloc(d->h))) {
        snprintf(err, errlen, "capstone: %s", cs_strerror(cs_errno(d->h)));
        cs_close(&d->h);
        free(d);
        return NULL;
    }
    return d;
}

void disasm_free(struct disasm *d)
{
    if (!d)
        return;
    cs_free(d->insn, 1);
    cs_close(&d->h);
    free(d);
}

static bool in_group(const cs_insn *i, uint8_t g)
{
    for (uint8_t k = 0; i->detail && k < i->detail->groups_count; k++)
        if (i->detail->groups[k] == g)
            return true;
    return false;
}

/* The target of a direct (immediate) jump or call, 0 for an indirect
 * one. */
static uint64_t direct_target(const cs_insn *i)
{
    const cs_x86 *x = i->detail ? &i->detail->x86 : NULL;

    if (!x || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
        return 0;
    return (uint64_t)x->operands[0].imm;
}

int disasm_one(struct disasm *d, const uint8_t *code, size_t len,
               uint64_t addr, struct disasm_insn *out)
{
    const uint8_t *p = code;
    size_t n = len;
    uint64_t a = addr;
    const cs_insn *i = d->insn;

    if (!cs_disasm_iter(d->h, &p, &n, &a, d->insn))
        return 0;
    memset(out, 0, sizeof(*out));
    out->len = i->size;
    out->kind = in_group(i, CS_GRP_CALL) ? ANNOT_CALL
                : in_group(i, CS_GRP_JUMP) ? ANNOT_JUMP
                : in_group(i, CS_GRP_RET) || in_group(i, CS_GRP_IRET)
                    ? ANNOT_RET : ANNOT_OTHER;
    if (out->kind == ANNOT_CALL || out->kind == ANNOT_JUMP)
        out->target = direct_target(i);
    snprintf(out->text, sizeof(out->text), "%s%s%s", i->mnemonic,
             i->op_str[0] ? " " : "", i->op_str);
    return 1;
}
