/* pb.c - protocol buffers wire format helpers (see pb.h).
 *
 * The decoder trusts nothing: every length is checked against what is
 * left of the enclosing message before it is used, varints longer than
 * 10 bytes are rejected, and the first error sticks.
 */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"

#define VARINT_MAX 10 /* bytes in the longest varint (64 bits / 7) */

void pb_buf_free(struct pb_buf *b)
{
    free(b->data);
    *b = (struct pb_buf){ 0 };
}

void pb_buf_clear(struct pb_buf *b)
{
    b->len = 0;
}

static bool reserve(struct pb_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (extra > SIZE_MAX / 2 - b->len ||
        VEC_RESERVE(b->data, b->cap, b->len + extra) < 0) {
        b->oom = true;
        return false;
    }
    return true;
}

void pb_put_raw(struct pb_buf *b, const void *data, size_t len)
{
    if (len == 0 || !reserve(b, len))
        return;
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
    uint8_t tmp[VARINT_MAX];
    size_t n = 0;

    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    pb_put_raw(b, tmp, n);
}

static void put_key(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
    pb_put_varint(b, (uint64_t)field << 3 | wire);
}

void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
    put_key(b, field, PB_VARINT);
    pb_put_varint(b, v);
}

void pb_put_nonzero(struct pb_buf *b, uint32_t field, uint64_t v)
{
    if (v)
        pb_put_uint(b, field, v);
}

void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data,
                  size_t len)
{
    put_key(b, field, PB_LEN);
    pb_put_varint(b, len);
    pb_put_raw(b, data, len);
}

static size_t varint_size(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

void pb_put_packed(struct pb_buf *b, uint32_t field, const uint64_t *v,
                   size_t n)
{
    size_t len = 0;

    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        len += varint_size(v[i]);
    put_key(b, field, PB_LEN);
    pb_put_varint(b, len);
    for (size_t i = 0; i < n; i++)
        pb_put_varint(b, v[i]);
}

void pb_reader_init(struct pb_reader *r, const uint8_t *data, size_t len,
                    size_t base)
{
    *r = (struct pb_reader){ .data = data, .len = len, .base = base };
}

void pb_reader_sub(struct pb_reader *r, const struct pb_field *f)
{
    pb_reader_init(r, f->data, f->len, f->data_off);
}

static int fail(struct pb_reader *r, size_t at, const char *why)
{
    if (!r->err) {
        r->err = why;
        r->err_off = r->base + at;
    }
    r->pos = r->len;
    return -1;
}

int pb_read_varint(struct pb_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    size_t start = r->pos;

    if (r->err)
        return -1;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t c;

        if (r->pos >= r->len)
            return fail(r, start, "truncated varint");
        c = r->data[r->pos++];
        /* The 10th byte holds only bit 63: anything more overflows. */
        if (shift == 63 && c > 1)
            return fail(r, start, c & 0x80 ? "varint longer than 10 bytes"
                                           : "varint overflows 64 bits");
        x |= (uint64_t)(c & 0x7f) << shift;
        if (c < 0x80)
            break;
    }
    *v = x;
    return 0;
}

int pb_next(struct pb_reader *r, struct pb_field *f)
{
    uint64_t key;
    size_t at = r->pos;

    if (r->err)
        return -1;
    if (r->pos >= r->len)
        return 0;
    if (pb_read_varint(r, &key) != 0)
        return -1;
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
        return fail(r, at, "invalid field number");
    *f = (struct pb_field){
        .num = (uint32_t)(key >> 3),
        .wire = (uint8_t)(key & 7),
        .off = r->base + at,
    };
    switch (key & 7) {
    case PB_VARINT:
        return pb_read_varint(r, &f->v) == 0 ? 1 : -1;
    case PB_I64:
    case PB_I32: {
        size_t width = (key & 7) == PB_I64 ? 8 : 4;  /* little-endian */

        if (r->len - r->pos < width)
            return fail(r, at, width == 8 ? "truncated 64-bit field"
                                          : "truncated 32-bit field");
        for (size_t i = width; i-- > 0;)
            f->v = f->v << 8 | r->data[r->pos + i];
        r->pos += width;
        return 1;
    }
    case PB_LEN: {
        uint64_t len;

        if (pb_read_varint(r, &len) != 0)
            return -1;
        if (len > r->len - r->pos)
            return fail(r, at, "length runs past the end of the message");
        f->data = r->data + r->pos;
        f->len = (size_t)len;
        f->data_off = r->base + r->pos;
        r->pos += (size_t)len;
        return 1;
    }
    default:
        return fail(r, at, "unsupported wire type (group or invalid)");
    }
}

size_t pb_utf8_seq(const uint8_t *s, size_t n)
{
    return util_utf8_decode(s, n, NULL);
}
