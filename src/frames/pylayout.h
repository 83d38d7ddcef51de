/* pylayout.h - where CPython keeps what a frame reader needs, per version:
 * a version is a row of offsets, not code.
 *
 * The rows were measured from each version's exact internal headers
 * (offsetof over pycore_frame.h, pycore_runtime.h, pycore_interp.h, with
 * Py_BUILD_CORE; x86-64): 3.11 from Debian 12's libpython3.11-dev
 * (3.11.2), 3.12 and 3.13 from their release headers.  Offsets do not
 * change within a minor version.  From 3.13 the runtime carries its own
 * offsets (_Py_DebugOffsets, the first field of _PyRuntime, cookie
 * "xdebugpy"): pylayout_from_debug_offsets reads them over the row.
 *
 * Pure data and parsing; any thread.  libc only.
 */
#ifndef SPROFTOP_PYLAYOUT_H
#define SPROFTOP_PYLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "pywalk.h"

struct py_layout {
    uint32_t major, minor;      /* first: the row's struct layout_version
                                   (layout_row.h) */
    struct py_walk walk;        /* the frame-chain walk (pywalk.h) */
    uint32_t ob_type;           /* PyObject.ob_type */
    uint32_t var_size;          /* PyVarObject.ob_size */
    uint32_t code_firstlineno;  /* PyCodeObject.co_firstlineno (int) */
    uint32_t code_filename;     /* .co_filename (str) */
    uint32_t code_qualname;     /* .co_qualname (str) */
    uint32_t code_linetable;    /* .co_linetable (bytes) */
    uint32_t code_adaptive;     /* .co_code_adaptive: the bytecode; its
                                   length in code units is ob_size */
    uint32_t code_header;       /* bytes of a code object to copy: every
                                   field above lies below this */
    uint32_t str_length;        /* PyASCIIObject.length */
    uint32_t str_state;         /* .state (interned:2 kind:3 compact:1
                                   ascii:1 in every supported version) */
    uint32_t str_ascii_data;    /* sizeof(PyASCIIObject): compact ASCII
                                   characters start here */
    uint32_t str_compact_data;  /* sizeof(PyCompactUnicodeObject) */
    uint32_t bytes_size;        /* PyBytesObject.ob_size */
    uint32_t bytes_data;        /* .ob_sval */
};

/* The row of version major.minor, or NULL when it is not supported. */
const struct py_layout *pylayout_find(uint32_t major, uint32_t minor);

/* The supported versions, for messages: "3.11, 3.12, 3.13" into buf (cap
 * bytes; layout_row_versions). */
void pylayout_supported(char *buf, size_t cap);

/* Bytes of _Py_DebugOffsets read from the start of _PyRuntime. */
#define PYLAYOUT_DEBUG_BYTES 640

/* Read the offsets a 3.13 runtime publishes about itself (buf: the first
 * len bytes of its _PyRuntime) into *l, which holds the row of its
 * version.  Checks the cookie, the version it names against l's, and
 * that every offset fits what the walk reads.  0 when l now holds the
 * target's own offsets; -1 (l unchanged) when the block is absent,
 * another version's or implausible. */
int pylayout_from_debug_offsets(const uint8_t *buf, size_t len,
                                struct py_layout *l);

#endif
