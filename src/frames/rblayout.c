/* rblayout.c - CRuby's offsets per version; see rblayout.h. */
#include "rblayout.h"

#include <stddef.h>

#include "layout_row.h"

static const struct rb_layout rows[] = {
    {
        .major = 3, .minor = 1,
        .walk = {
            .vm_main_ractor = 32, .ractor_threads = 304, .thread_node = 0,
            .thread_tid = 88, .thread_ec = 40, .ec_vm_stack = 0,
            .ec_vm_stack_size = 8, .ec_cfp = 16, .cfp_pc = 0,
            .cfp_iseq = 16, .cfp_ep = 32, .cfp_size = 64,
            .magic_mask = 0x7fff0001u, .magic_cfunc = 0x55550001u,
            .flag_finish = 0x20u, .magic_dummy = 0x79990001u,
            .ractor_gvl_waitq = 384, .thread_gvl_node = 104,
        },
        .iseq_body = 16, .body_iseq_size = 4, .body_iseq_encoded = 8,
        .body_pathobj = 64, .body_label = 80, .body_first_lineno = 88,
        .body_insns_body = 120, .body_insns_size = 136,
        .body_insns_succ = 144, .insn_entry_size = 12,
        .insn_entry_line = 0, .me_called_id = 24, .me_owner = 32,
        .body_bytes = 152,
    },
};

#define NROWS (sizeof rows / sizeof rows[0])

const struct rb_layout *rblayout_find(uint32_t major, uint32_t minor)
{
    return layout_row_find(rows, NROWS, sizeof rows[0], major, minor);
}

void rblayout_supported(char *buf, size_t cap)
{
    layout_row_versions(rows, NROWS, sizeof rows[0], buf, cap);
}
