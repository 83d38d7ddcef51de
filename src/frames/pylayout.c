/* pylayout.c - CPython's layouts per version; see pylayout.h. */
#include "pylayout.h"

#include <string.h>

#include "layout_row.h"

/* Measured with offsetof over each version's internal headers (x86-64):
 * 3.11.2 (Debian 12's libpython3.11-dev), 3.12.1, 3.13.0.  docs/
 * ARCHITECTURE.md ("Python frames") says how to measure a new row. */
static const struct py_layout rows[] = {
    {
        .major = 3, .minor = 11,
        .walk = {
            .runtime_interp_head = 40, .interp_next = 0,
            .interp_threads_head = 16, .tstate_next = 8,
            .tstate_native_tid = 160, .tstate_cframe = 56,
            .current_frame = 8, .frame_code = 32, .frame_previous = 48,
            .frame_instr = 56, .frame_owner = 69, .frame_is_entry = 68,
            .owner_cstack = PYWALK_NONE, .owner_max = 2,
        },
        .ob_type = 8, .var_size = 16,
        .code_firstlineno = 72, .code_filename = 112, .code_qualname = 128,
        .code_linetable = 136, .code_adaptive = 184, .code_header = 144,
        .str_length = 16, .str_state = 32, .str_ascii_data = 48,
        .str_compact_data = 72, .bytes_size = 16, .bytes_data = 32,
    },
    {
        .major = 3, .minor = 12,
        .walk = {
            .runtime_interp_head = 40, .interp_next = 0,
            .interp_threads_head = 72, .tstate_next = 8,
            .tstate_native_tid = 144, .tstate_cframe = 56,
            .current_frame = 0, .frame_code = 0, .frame_previous = 8,
            .frame_instr = 56, .frame_owner = 70,
            .frame_is_entry = PYWALK_NONE, .owner_cstack = 3,
            .owner_max = 3,
        },
        .ob_type = 8, .var_size = 16,
        .code_firstlineno = 68, .code_filename = 112, .code_qualname = 128,
        .code_linetable = 136, .code_adaptive = 192, .code_header = 144,
        .str_length = 16, .str_state = 32, .str_ascii_data = 40,
        .str_compact_data = 56, .bytes_size = 16, .bytes_data = 32,
    },
    {
        .major = 3, .minor = 13,
        .walk = {
            .runtime_interp_head = 632, .interp_next = 7264,
            .interp_threads_head = 7344, .tstate_next = 8,
            .tstate_native_tid = 160, .tstate_cframe = PYWALK_NONE,
            .current_frame = 72, .frame_code = 0, .frame_previous = 8,
            .frame_instr = 56, .frame_owner = 70,
            .frame_is_entry = PYWALK_NONE, .owner_cstack = 3,
            .owner_max = 3,
        },
        .ob_type = 8, .var_size = 16,
        .code_firstlineno = 68, .code_filename = 112, .code_qualname = 128,
        .code_linetable = 136, .code_adaptive = 200, .code_header = 144,
        .str_length = 16, .str_state = 32, .str_ascii_data = 40,
        .str_compact_data = 56, .bytes_size = 16, .bytes_data = 32,
    },
};

#define NROWS (sizeof rows / sizeof rows[0])

const struct py_layout *pylayout_find(uint32_t major, uint32_t minor)
{
    return layout_row_find(rows, NROWS, sizeof rows[0], major, minor);
}

void pylayout_supported(char *buf, size_t cap)
{
    layout_row_versions(rows, NROWS, sizeof rows[0], buf, cap);
}

/* Where 3.13's _Py_DebugOffsets keeps each field (offsetof over its
 * pycore_runtime.h); the block's own layout is stable within a minor
 * version only, so it is used for the version it was measured on. */
enum {
    DO_VERSION = 8,
    DO_RT_INTERP_HEAD = 40,
    DO_IS_NEXT = 64, DO_IS_THREADS_HEAD = 72,
    DO_TS_NEXT = 168, DO_TS_CURRENT_FRAME = 184, DO_TS_NATIVE_TID = 200,
    DO_FR_PREVIOUS = 232, DO_FR_EXECUTABLE = 240, DO_FR_INSTR = 248,
    DO_FR_OWNER = 264,
    DO_CO_FILENAME = 280, DO_CO_QUALNAME = 296, DO_CO_LINETABLE = 304,
    DO_CO_FIRSTLINENO = 312, DO_CO_ADAPTIVE = 344,
    DO_OB_TYPE = 360,
    DO_BY_SIZE = 520, DO_BY_SVAL = 528,
    DO_UN_STATE = 544, DO_UN_LENGTH = 552, DO_UN_ASCII_SIZE = 560,
    DO_END = 584,
};

int pylayout_from_debug_offsets(const uint8_t *buf, size_t len,
                                struct py_layout *l)
{
    if (len < DO_END || memcmp(buf, "xdebugpy", 8) != 0 ||
        l->major != 3 || l->minor != 13)
        return -1;
    uint64_t ver = pywalk_word(buf, DO_END, DO_VERSION); /* PY_VERSION_HEX */
    if ((ver >> 24) != l->major || ((ver >> 16) & 0xff) != l->minor)
        return -1;
    struct py_layout n = *l;
    struct { uint32_t *dst; size_t at; uint64_t max; } f[] = {
        {&n.walk.runtime_interp_head, DO_RT_INTERP_HEAD, 1u << 20},
        {&n.walk.interp_next, DO_IS_NEXT, 1u << 20},
        {&n.walk.interp_threads_head, DO_IS_THREADS_HEAD, 1u << 20},
        {&n.walk.tstate_next, DO_TS_NEXT, 4096},
        {&n.walk.current_frame, DO_TS_CURRENT_FRAME, 4096},
        {&n.walk.tstate_native_tid, DO_TS_NATIVE_TID, 4096},
        /* the walk copies PYWALK_FRAME_BYTES of a frame */
        {&n.walk.frame_previous, DO_FR_PREVIOUS, PYWALK_FRAME_BYTES - 8},
        {&n.walk.frame_code, DO_FR_EXECUTABLE, PYWALK_FRAME_BYTES - 8},
        {&n.walk.frame_instr, DO_FR_INSTR, PYWALK_FRAME_BYTES - 8},
        {&n.walk.frame_owner, DO_FR_OWNER, PYWALK_FRAME_BYTES - 1},
        {&n.code_filename, DO_CO_FILENAME, 4096},
        {&n.code_qualname, DO_CO_QUALNAME, 4096},
        {&n.code_linetable, DO_CO_LINETABLE, 4096},
        {&n.code_firstlineno, DO_CO_FIRSTLINENO, 4096},
        {&n.code_adaptive, DO_CO_ADAPTIVE, 4096},
        {&n.ob_type, DO_OB_TYPE, 64},
        {&n.bytes_size, DO_BY_SIZE, 64},
        {&n.bytes_data, DO_BY_SVAL, 64},
        {&n.str_state, DO_UN_STATE, 64},
        {&n.str_length, DO_UN_LENGTH, 64},
        {&n.str_ascii_data, DO_UN_ASCII_SIZE, 128},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        uint64_t v = pywalk_word(buf, DO_END, (uint32_t)f[i].at);
        if (v > f[i].max)
            return -1;
        *f[i].dst = (uint32_t)v;
    }
    /* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject */
    n.str_compact_data = n.str_ascii_data + 16;
    uint32_t hdr = n.code_filename;
    uint32_t more[] = {n.code_qualname, n.code_linetable,
                       n.code_firstlineno, n.var_size};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        if (more[i] > hdr)
            hdr = more[i];
    n.code_header = hdr + 8;
    *l = n;
    return 0;
}
