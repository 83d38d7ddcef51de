/* rblayout.h - where CRuby keeps what a frame reader needs, per version:
 * a version is a row of offsets, not code (as pylayout.h for CPython).
 *
 * The 3.1 row was measured from Ruby 3.1.2's own structs (vm_core.h,
 * iseq.h, ractor_core.h, method.h, as rbspy's bindgen output for 3.1.2
 * lays them out: offset_of over it) and checked field by field against a
 * running Debian 12 /usr/bin/ruby (libruby-3.1.so.3.1.2) through
 * /proc/PID/mem: thread list, TIDs, control frames, labels, paths, line
 * tables and method entries all read as Ruby itself reports them.
 *
 * Pure data; any thread.  libc only.
 */
#ifndef SPROFTOP_RBLAYOUT_H
#define SPROFTOP_RBLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rbwalk.h"

struct rb_layout {
    uint32_t major, minor;        /* first: the row's struct layout_version
                                     (layout_row.h) */
    struct rb_walk walk;          /* the control-frame walk (rbwalk.h) */
    uint32_t iseq_body;           /* rb_iseq_t.body */
    uint32_t body_iseq_size;      /* rb_iseq_constant_body.iseq_size */
    uint32_t body_iseq_encoded;   /* .iseq_encoded */
    uint32_t body_pathobj;        /* .location.pathobj (String, or
                                     [path, realpath]) */
    uint32_t body_label;          /* .location.label (String) */
    uint32_t body_first_lineno;   /* .location.first_lineno (Fixnum) */
    uint32_t body_insns_body;     /* .insns_info.body */
    uint32_t body_insns_size;     /* .insns_info.size */
    uint32_t body_insns_succ;     /* .insns_info.succ_index_table */
    uint32_t insn_entry_size;     /* sizeof(struct iseq_insn_info_entry) */
    uint32_t insn_entry_line;     /* .line_no (int) */
    uint32_t me_called_id;        /* rb_callable_method_entry_t.called_id */
    uint32_t me_owner;            /* .owner */
    uint32_t body_bytes;          /* bytes of an iseq body to copy */
};

/* The row of version major.minor, or NULL when it is not supported. */
const struct rb_layout *rblayout_find(uint32_t major, uint32_t minor);

/* The supported versions, for messages: "3.1" into buf (cap bytes;
 * layout_row_versions). */
void rblayout_supported(char *buf, size_t cap);

#endif
