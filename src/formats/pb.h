/* pb.h - protocol buffers wire format: a growable encoder and a bounded
 * decoder.
 *
 * Used by export_pprof.c (encoding profile.proto) and load_pprof.c
 * (decoding untrusted bytes).  Only what profile.proto uses
 * is here: varints, length-delimited fields, packed varints.  libc only.
 *
 * Wire format reminder: a field is a varint key (field << 3 | wire type)
 * followed by a varint (type 0), 8 bytes (1), a varint length and that
 * many bytes (2), or 4 bytes (5).  Types 3 and 4 (groups) are obsolete
 * and rejected.
 */
#ifndef SPROFTOP_PB_H
#define SPROFTOP_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_wire {
    PB_VARINT = 0,
    PB_I64 = 1,
    PB_LEN = 2,
    PB_I32 = 5,
};

/* Field numbers of profile.proto (FORMATS.md section 3), shared by the
 * pprof writer and reader.  Grouped by message. */
enum pprof_field {
    /* Profile */
    PPROF_SAMPLE_TYPE = 1,          /* repeated ValueType */
    PPROF_SAMPLE = 2,               /* repeated Sample */
    PPROF_MAPPING = 3,              /* repeated Mapping */
    PPROF_LOCATION = 4,             /* repeated Location */
    PPROF_FUNCTION = 5,             /* repeated Function */
    PPROF_STRING_TABLE = 6,         /* repeated string; [0] is "" */
    PPROF_TIME_NANOS = 9,           /* int64 */
    PPROF_DURATION_NANOS = 10,      /* int64 */
    PPROF_PERIOD_TYPE = 11,         /* ValueType */
    PPROF_PERIOD = 12,              /* int64 */
    PPROF_COMMENT = 13,             /* repeated int64 string index */
    PPROF_DEFAULT_SAMPLE_TYPE = 14, /* int64 string index */
    /* ValueType */
    PPROF_VT_TYPE = 1,
    PPROF_VT_UNIT = 2,
    /* Sample */
    PPROF_SAMPLE_LOCATION_ID = 1,   /* packed uint64, leaf first */
    PPROF_SAMPLE_VALUE = 2,         /* packed int64, one per sample type */
    PPROF_SAMPLE_LABEL = 3,         /* repeated Label */
    /* Label */
    PPROF_LABEL_KEY = 1,
    PPROF_LABEL_STR = 2,
    PPROF_LABEL_NUM = 3,
    PPROF_LABEL_NUM_UNIT = 4,       /* int64 string index */
    /* Mapping */
    PPROF_MAPPING_ID = 1,
    PPROF_MAPPING_START = 2,
    PPROF_MAPPING_LIMIT = 3,
    PPROF_MAPPING_OFFSET = 4,
    PPROF_MAPPING_FILENAME = 5,
    PPROF_MAPPING_BUILD_ID = 6,
    PPROF_MAPPING_HAS_FUNCTIONS = 7,
    PPROF_MAPPING_HAS_FILENAMES = 8,
    /* Location */
    PPROF_LOCATION_ID = 1,
    PPROF_LOCATION_MAPPING_ID = 2,
    PPROF_LOCATION_ADDRESS = 3,
    PPROF_LOCATION_LINE = 4,        /* repeated Line, innermost first */
    /* Line */
    PPROF_LINE_FUNCTION_ID = 1,
    PPROF_LINE_LINE = 2,
    /* Function */
    PPROF_FUNCTION_ID = 1,
    PPROF_FUNCTION_NAME = 2,
    PPROF_FUNCTION_SYSTEM_NAME = 3,
    PPROF_FUNCTION_FILENAME = 4,
    PPROF_FUNCTION_START_LINE = 5,
};

/* --- encoder ------------------------------------------------------------- */

/* A growable byte buffer.  Zero-initialize it; after an allocation
 * failure every further write is dropped and `oom` stays set, so callers
 * check once at the end. */
struct pb_buf {
    uint8_t *data; /* malloc'd bytes, NULL while empty */
    size_t len;    /* bytes written */
    size_t cap;    /* bytes allocated */
    bool oom;      /* an allocation failed; contents are incomplete */
};

/* Free the buffer's bytes and zero it (reusable afterwards). */
void pb_buf_free(struct pb_buf *b);

/* Forget the contents but keep the allocation. */
void pb_buf_clear(struct pb_buf *b);

/* Append raw bytes. */
void pb_put_raw(struct pb_buf *b, const void *data, size_t len);

/* Append a base-128 varint (1 to 10 bytes). */
void pb_put_varint(struct pb_buf *b, uint64_t v);

/* Append a varint field: key then value.  int64 values are passed cast
 * to uint64_t (two's complement, as protobuf's int64 encodes them). */
void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);

/* pb_put_uint, but nothing when v is 0: a proto3 field at its default is
 * left out, and a reader takes its absence for 0. */
void pb_put_nonzero(struct pb_buf *b, uint32_t field, uint64_t v);

/* Append a length-delimited field (a string, bytes or an encoded
 * submessage). */
void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data,
                  size_t len);

/* Append n varints as one packed repeated field (nothing when n is 0). */
void pb_put_packed(struct pb_buf *b, uint32_t field, const uint64_t *v,
                   size_t n);

/* --- decoder ------------------------------------------------------------- */

/* Reads the fields of one message.  `base` is the offset of data[0] in
 * the whole input, so errors can name an absolute byte. */
struct pb_reader {
    const uint8_t *data; /* the message's bytes */
    size_t len;          /* their number */
    size_t pos;          /* next byte to read */
    size_t base;         /* absolute offset of data[0] */
    const char *err;     /* static text of the first error, or NULL */
    size_t err_off;      /* absolute offset where it was found */
};

/* One decoded field. */
struct pb_field {
    uint32_t num;        /* field number (1 .. 2^29-1) */
    uint8_t wire;        /* enum pb_wire */
    uint64_t v;          /* value of a varint, i64 or i32 field */
    const uint8_t *data; /* payload of a PB_LEN field (points into input) */
    size_t len;          /* its length */
    size_t off;          /* absolute offset of the field's key */
    size_t data_off;     /* absolute offset of the payload (PB_LEN) */
};

/* A reader over len bytes at data, which sit at absolute offset base. */
void pb_reader_init(struct pb_reader *r, const uint8_t *data, size_t len,
                    size_t base);

/* A reader over the payload of a PB_LEN field. */
void pb_reader_sub(struct pb_reader *r, const struct pb_field *f);

/* Read the next field into *f.  Returns 1 for a field, 0 at the end of
 * the message, -1 on malformed input (r->err, r->err_off set; every later
 * call returns -1).  Never reads past data + len. */
int pb_next(struct pb_reader *r, struct pb_field *f);

/* Read one varint from r (for packed repeated fields: make a reader over
 * the field with pb_reader_sub and call this until r->pos == r->len).
 * 0, or -1 with r->err set. */
int pb_read_varint(struct pb_reader *r, uint64_t *v);

/* --- UTF-8 --------------------------------------------------------------- */

/* util_utf8_decode(s, n, NULL): the length (1 to 4) of the well-formed
 * UTF-8 sequence that protobuf strings need at s[0..n), or 0.  Kept
 * only for load_pprof.c, which has not moved to util.h yet. */
size_t pb_utf8_seq(const uint8_t *s, size_t n);

#endif
