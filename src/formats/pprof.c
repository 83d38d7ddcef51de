/* pprof.c - the pprof reader's first pass: recognising the format,
 * gunzip, and the Profile message read into the records of pprof.h, each
 * message by a table of its fields.  Every length is checked by the pb
 * decoder before use; nesting is fixed by the schema.  See load_pprof.c
 * for the passes that follow.
 */
#include "pprof.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "load.h"
#include "util.h"
#include "vec.h"

int pprof_fail(struct loader *ld, size_t off, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    if (ld->failed)
        return -1;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    util_errf(ld->err, ld->errlen, "%s: byte %zu: %s", ld->name, off, why);
    ld->failed = true;
    return -1;
}

int pprof_oom(struct loader *ld)
{
    if (!ld->failed)
        util_errf(ld->err, ld->errlen, "%s: out of memory", ld->name);
    ld->failed = true;
    return -1;
}

int pprof_reader_fail(struct loader *ld, const struct pb_reader *r)
{
    return pprof_fail(ld, r->err_off, "%s", r->err ? r->err : "malformed message");
}

void pprof_budgets(struct loader *ld, size_t len)
{
    uint64_t frames = PPROF_FRAMES_BASE + PPROF_FRAMES_PER_BYTE * (uint64_t)len;

    ld->msg_len = len;
    ld->mem_budget = PPROF_MEM_BASE + PPROF_MEM_PER_BYTE * len;
    ld->frames_budget = frames < PPROF_FRAMES_MAX ? frames : PPROF_FRAMES_MAX;
}

int pprof_charge(struct loader *ld, size_t bytes, size_t off)
{
    if (bytes <= ld->mem_budget - ld->mem_used) {
        ld->mem_used += bytes;
        return 0;
    }
    return pprof_fail(ld, off, "too many records: they would take more than "
                      "%zu MiB of memory for a %zu KiB profile message",
                      ld->mem_budget >> 20, (ld->msg_len + 1023) >> 10);
}

void *pprof_push(struct loader *ld, void **arr, size_t *n, size_t *cap,
                  size_t elem, size_t off)
{
    if (pprof_charge(ld, elem, off))
        return NULL;
    if (*n == *cap && vec_grow(arr, cap, *n + 1, elem, 16, 0) < 0) {
        pprof_oom(ld);
        return NULL;
    }
    memset((char *)*arr + *n * elem, 0, elem);
    return (char *)*arr + (*n)++ * elem;
}

/* --- gzip ---------------------------------------------------------------- */

bool load_pprof_sniff(const char *buf, size_t len)
{
    const uint8_t *u = (const uint8_t *)buf;
    struct pb_reader r;
    struct pb_field f;
    bool strings = false;
    int rc;

    if (len >= 3 && u[0] == 0x1f && u[1] == 0x8b && u[2] == 8)
        return true;
    /* Raw protobuf: every top-level field must be a Profile field with
     * its wire type, and there must be a string table.  Text never
     * passes: its first bytes decode as nonsense field numbers. */
    pb_reader_init(&r, u, len, 0);
    while ((rc = pb_next(&r, &f)) == 1) {
        switch (f.num) {
        case PPROF_SAMPLE_TYPE: case PPROF_SAMPLE: case PPROF_MAPPING:
        case PPROF_LOCATION: case PPROF_FUNCTION: case PPROF_PERIOD_TYPE:
            if (f.wire != PB_LEN)
                return false;
            break;
        case PPROF_STRING_TABLE:
            if (f.wire != PB_LEN)
                return false;
            strings = true;
            break;
        case 7: case 8: /* drop_frames, keep_frames */
        case PPROF_TIME_NANOS: case PPROF_DURATION_NANOS: case PPROF_PERIOD:
        case PPROF_DEFAULT_SAMPLE_TYPE:
            if (f.wire != PB_VARINT)
                return false;
            break;
        case PPROF_COMMENT:
            if (f.wire != PB_VARINT && f.wire != PB_LEN)
                return false;
            break;
        default:
            return false;
        }
    }
    return rc == 0 && strings;
}

/* The most a gzip file of len bytes may inflate to: PPROF_INFLATE_RATIO
 * times its size, but at least PPROF_INFLATE_FLOOR and at most
 * PPROF_MAX_INFLATED. */
static uint64_t inflate_limit(size_t len)
{
    uint64_t limit = (uint64_t)len * PPROF_INFLATE_RATIO;

    if (limit < PPROF_INFLATE_FLOOR)
        return PPROF_INFLATE_FLOOR;
    return limit > PPROF_MAX_INFLATED ? PPROF_MAX_INFLATED : limit;
}

/* When inflate's result zr is an error, fill the loader's message and
 * return -1 (`at` the input byte it stopped at, len the file's size,
 * stalled when it made no progress with room left to write: the input
 * ran out); else 0. */
static int inflate_failed(struct loader *ld, const z_stream *zs, int zr,
                          size_t at, size_t len, bool stalled)
{
    if (zr == Z_MEM_ERROR)
        return pprof_oom(ld);
    if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR)
        return pprof_fail(ld, at, "corrupt gzip data (%s)",
                          zs->msg ? zs->msg : "invalid");
    if (zr == Z_BUF_ERROR && stalled)
        return pprof_fail(ld, len, "truncated gzip data");
    return 0;
}

/* Inflate a gzip file (one or more members) into *out. */
int pprof_gunzip(struct loader *ld, const uint8_t *in, size_t len,
                  uint8_t **out, size_t *outlen)
{
    z_stream zs = { 0 };
    size_t cap = 0, n = 0, end;
    uint8_t *buf = NULL;
    uint64_t limit = inflate_limit(len);
    int zr, rc = -1;

    if (VEC_RESERVE(buf, cap, 64 * 1024) < 0 ||
        inflateInit2(&zs, 15 + 16) != Z_OK) {
        free(buf);
        return pprof_oom(ld);
    }
    zs.next_in = (Bytef *)(uintptr_t)in;
    for (;;) {
        size_t left = len - (size_t)(zs.next_in - in);

        zs.avail_in = left > 1u << 30 ? 1u << 30 : (uInt)left;
        if (n == cap || n >= limit) {
            if (n >= limit) {
                pprof_fail(ld, (size_t)(zs.next_in - in),
                     limit == PPROF_MAX_INFLATED
                         ? "gunzipped data larger than %llu MiB"
                         : "gunzipped data larger than %llu MiB, over %d "
                           "times the file: a crafted file?",
                     (unsigned long long)(limit >> 20), PPROF_INFLATE_RATIO);
                goto out;
            }
            if (VEC_RESERVE(buf, cap, cap + 1) < 0) {
                pprof_oom(ld);
                goto out;
            }
        }
        /* never past the limit, whatever the doubling gave */
        end = cap < limit ? cap : (size_t)limit;
        zs.next_out = buf + n;
        zs.avail_out = (uInt)(end - n > 1u << 30 ? 1u << 30 : end - n);
        zr = inflate(&zs, Z_NO_FLUSH);
        n = (size_t)(zs.next_out - buf);
        if (zr == Z_STREAM_END) {
            left = len - (size_t)(zs.next_in - in);
            if (left == 0)
                break;
            /* gzip allows several members back to back (cat a.gz b.gz). */
            if (left >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                inflateReset(&zs);
                continue;
            }
            pprof_fail(ld, (size_t)(zs.next_in - in),
                 "unexpected bytes after the gzip data");
            goto out;
        }
        if (inflate_failed(ld, &zs, zr, (size_t)(zs.next_in - in), len,
                           n < end))
            goto out;
    }
    *out = buf;
    *outlen = n;
    buf = NULL;
    rc = 0;
out:
    inflateEnd(&zs);
    free(buf);
    return rc;
}

/* --- pass 1: the Profile message ----------------------------------------- */

int pprof_wrong_wire(struct loader *ld, const struct pb_field *f,
                      const char *what)
{
    return pprof_fail(ld, f->off, "%s has wire type %u", what, f->wire);
}

/* Read a varint field, checking its wire type. */
int pprof_get_varint(struct loader *ld, const struct pb_field *f,
                      const char *what, uint64_t *v)
{
    if (f->wire != PB_VARINT)
        return pprof_wrong_wire(ld, f, what);
    *v = f->v;
    return 0;
}

/* Finish reading a submessage: 0 at its clean end, -1 on error. */
int pprof_sub_end(struct loader *ld, struct pb_reader *r, int rc)
{
    return rc < 0 ? pprof_reader_fail(ld, r) : 0;
}

/* A varint field of a message, and where its value goes. */
struct vfield {
    uint32_t num;      /* field number */
    const char *what;  /* "Message.field", for errors */
    size_t off;        /* offset of its uint64_t in the record */
};

/* A field that holds a submessage (or, with `what` NULL, any field the
 * parser checks itself), and its parser. */
struct nested {
    uint32_t num;
    const char *what;
    int (*parse)(struct loader *ld, const struct pb_field *f);
};

#define VFIELD(num, what, type, member) \
    { num, what, offsetof(struct type, member) }
#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* Read the rest of message r into rec: the varint fields listed in
 * fields[0..n) and the submessage fields in subs[0..nsubs); other fields
 * are skipped.  0, or -1 with the error set. */
static int read_message(struct loader *ld, struct pb_reader *r, void *rec,
                        const struct vfield *fields, size_t n,
                        const struct nested *subs, size_t nsubs)
{
    struct pb_field f;
    int rc;

    while ((rc = pb_next(r, &f)) == 1) {
        for (size_t i = 0; i < n; i++)
            if (f.num == fields[i].num &&
                pprof_get_varint(ld, &f, fields[i].what,
                           (uint64_t *)((char *)rec + fields[i].off)))
                return -1;
        for (size_t i = 0; i < nsubs; i++)
            if (f.num == subs[i].num &&
                (subs[i].what && f.wire != PB_LEN
                     ? pprof_wrong_wire(ld, &f, subs[i].what)
                     : subs[i].parse(ld, &f)))
                return -1;
    }
    return pprof_sub_end(ld, r, rc);
}

/* read_message over submessage mf. */
static int read_fields(struct loader *ld, const struct pb_field *mf,
                       void *rec, const struct vfield *fields, size_t n,
                       const struct nested *subs, size_t nsubs)
{
    struct pb_reader r;

    pb_reader_sub(&r, mf);
    return read_message(ld, &r, rec, fields, n, subs, nsubs);
}

/* A record read from submessage mf: its offset (for errors), then its
 * varint fields. */
static int read_record(struct loader *ld, const struct pb_field *mf,
                       void *rec, size_t *off, const struct vfield *fields,
                       size_t n)
{
    *off = mf->off;
    return read_fields(ld, mf, rec, fields, n, NULL, 0);
}

static int parse_value_type(struct loader *ld, const struct pb_field *mf,
                            struct vtype *vt)
{
    static const struct vfield fields[] = {
        VFIELD(PPROF_VT_TYPE, "ValueType.type", vtype, type),
        VFIELD(PPROF_VT_UNIT, "ValueType.unit", vtype, unit),
    };

    return read_record(ld, mf, vt, &vt->off, fields, NFIELDS(fields));
}

static int parse_sample_type(struct loader *ld, const struct pb_field *mf)
{
    struct vtype *vt = PUSH(ld, ld->types, ld->ntypes, ld->types_cap, mf->off);

    return !vt || parse_value_type(ld, mf, vt) ? -1 : 0;
}

static int parse_period_type(struct loader *ld, const struct pb_field *mf)
{
    ld->has_period_type = true;
    return parse_value_type(ld, mf, &ld->period_type);
}

/* Samples and strings are kept as they are, for passes 2 and 4. */
static int keep_span(struct loader *ld, const struct pb_field *f,
                     struct span **arr, size_t *n, size_t *cap)
{
    struct span *s = pprof_push(ld, (void **)arr, n, cap, sizeof(**arr),
                                f->off);

    if (!s)
        return -1;
    *s = (struct span){ f->data, f->len, f->data_off };
    return 0;
}

static int parse_sample_span(struct loader *ld, const struct pb_field *f)
{
    return keep_span(ld, f, &ld->samples, &ld->nsamples, &ld->samples_cap);
}

static int parse_string(struct loader *ld, const struct pb_field *f)
{
    return keep_span(ld, f, &ld->strs, &ld->nstrs, &ld->strs_cap);
}

static int parse_mapping(struct loader *ld, const struct pb_field *mf)
{
    static const struct vfield fields[] = {
        VFIELD(PPROF_MAPPING_ID, "Mapping.id", mapping, id),
        VFIELD(PPROF_MAPPING_START, "Mapping.memory_start", mapping,
               memory_start),
        VFIELD(PPROF_MAPPING_LIMIT, "Mapping.memory_limit", mapping,
               memory_limit),
        VFIELD(PPROF_MAPPING_OFFSET, "Mapping.file_offset", mapping,
               file_offset),
        VFIELD(PPROF_MAPPING_FILENAME, "Mapping.filename", mapping,
               filename),
        VFIELD(PPROF_MAPPING_BUILD_ID, "Mapping.build_id", mapping,
               build_id),
    };
    struct mapping *m = PUSH(ld, ld->maps, ld->nmaps, ld->maps_cap, mf->off);

    return m ? read_record(ld, mf, m, &m->off, fields, NFIELDS(fields)) : -1;
}

static int parse_function(struct loader *ld, const struct pb_field *mf)
{
    static const struct vfield fields[] = {
        VFIELD(PPROF_FUNCTION_ID, "Function.id", function, id),
        VFIELD(PPROF_FUNCTION_NAME, "Function.name", function, name),
        VFIELD(PPROF_FUNCTION_FILENAME, "Function.filename", function,
               filename),
        VFIELD(PPROF_FUNCTION_START_LINE, "Function.start_line", function,
               start_line),
    };
    struct function *fn = PUSH(ld, ld->fns, ld->nfns, ld->fns_cap, mf->off);

    return fn ? read_record(ld, mf, fn, &fn->off, fields, NFIELDS(fields))
              : -1;
}

static int parse_line(struct loader *ld, const struct pb_field *mf)
{
    static const struct vfield fields[] = {
        VFIELD(PPROF_LINE_FUNCTION_ID, "Line.function_id", line,
               function_id),
        VFIELD(PPROF_LINE_LINE, "Line.line", line, line),
    };
    struct line *l = PUSH(ld, ld->lines, ld->nlines, ld->lines_cap, mf->off);

    if (!l || read_fields(ld, mf, l, fields, NFIELDS(fields), NULL, 0))
        return -1;
    if (l->function_id == 0)
        return pprof_fail(ld, mf->off, "Line without a function_id");
    return 0;
}

static int parse_location(struct loader *ld, const struct pb_field *mf)
{
    static const struct vfield fields[] = {
        VFIELD(PPROF_LOCATION_ID, "Location.id", location, id),
        VFIELD(PPROF_LOCATION_MAPPING_ID, "Location.mapping_id", location,
               mapping_id),
        VFIELD(PPROF_LOCATION_ADDRESS, "Location.address", location,
               address),
    };
    static const struct nested lines = { PPROF_LOCATION_LINE,
                                         "Location.line", parse_line };
    struct location *loc = PUSH(ld, ld->locs, ld->nlocs, ld->locs_cap, mf->off);
    size_t first = ld->nlines; /* parse_line grows lines[], not locs[] */

    if (!loc)
        return -1;
    loc->off = mf->off;
    if (read_fields(ld, mf, loc, fields, NFIELDS(fields), &lines, 1))
        return -1;
    if (ld->nlines - first > LOAD_MAX_DEPTH)
        return pprof_fail(ld, mf->off, "location with more than %u lines",
                    LOAD_MAX_DEPTH);
    loc->line0 = (uint32_t)first;
    loc->nlines = (uint32_t)(ld->nlines - first);
    return 0;
}

/* Profile.comment: string indexes, packed or one per field. */
static int parse_comment(struct loader *ld, const struct pb_field *f)
{
    struct pb_reader pr;
    struct comment *c;

    if (f->wire != PB_LEN) {
        c = PUSH(ld, ld->comments, ld->ncomments, ld->comments_cap, f->off);
        if (!c || pprof_get_varint(ld, f, "Profile.comment", &c->str))
            return -1;
        c->off = f->off;
        return 0;
    }
    pb_reader_sub(&pr, f);
    while (pr.pos < pr.len) {
        c = PUSH(ld, ld->comments, ld->ncomments, ld->comments_cap,
                 pr.base + pr.pos);
        if (!c)
            return -1;
        c->off = pr.base + pr.pos;
        if (pb_read_varint(&pr, &c->str))
            return pprof_reader_fail(ld, &pr);
    }
    return 0;
}

/* The Profile message; drop_frames, keep_frames, default_sample_type and
 * newer fields are skipped: nothing reads them. */
int pprof_parse(struct loader *ld, const uint8_t *data, size_t len)
{
    static const struct vfield fields[] = {
        VFIELD(PPROF_TIME_NANOS, "Profile.time_nanos", loader, time_nanos),
        VFIELD(PPROF_DURATION_NANOS, "Profile.duration_nanos", loader,
               duration_nanos),
        VFIELD(PPROF_PERIOD, "Profile.period", loader, period),
    };
    static const struct nested subs[] = {
        { PPROF_SAMPLE_TYPE, "Profile.sample_type", parse_sample_type },
        { PPROF_SAMPLE, "Profile.sample", parse_sample_span },
        { PPROF_MAPPING, "Profile.mapping", parse_mapping },
        { PPROF_LOCATION, "Profile.location", parse_location },
        { PPROF_FUNCTION, "Profile.function", parse_function },
        { PPROF_STRING_TABLE, "Profile.string_table", parse_string },
        { PPROF_PERIOD_TYPE, "Profile.period_type", parse_period_type },
        { PPROF_COMMENT, NULL, parse_comment },
    };
    struct pb_reader r;

    pb_reader_init(&r, data, len, 0);
    return read_message(ld, &r, ld, fields, NFIELDS(fields), subs,
                        NFIELDS(subs));
}
