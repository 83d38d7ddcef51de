/* pyline.c - CPython 3.11+ location tables; see pyline.h. */
#include "pyline.h"

#include <stdbool.h>

enum {
    LOC_NONE = 15,
    LOC_LONG = 14,
    LOC_NO_COLUMNS = 13,
    LOC_ONE_LINE0 = 10,
    LOC_ONE_LINE2 = 12,
};

/* An unsigned varint at tab[*i], advancing *i; false past the end or
 * wider than 30 bits. */
static bool varint(const uint8_t *tab, size_t len, size_t *i, uint32_t *out)
{
    uint32_t v = 0;
    for (unsigned shift = 0; *i < len && shift <= 24; shift += 6) {
        uint8_t b = tab[(*i)++];
        v |= (uint32_t)(b & 63) << shift;
        if (!(b & 64)) {
            *out = v;
            return true;
        }
    }
    return false;
}

static bool svarint(const uint8_t *tab, size_t len, size_t *i, int32_t *out)
{
    uint32_t u;
    if (!varint(tab, len, i, &u))
        return false;
    *out = (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
    return true;
}

uint32_t pyline_find(const uint8_t *tab, size_t len, int32_t firstlineno,
                     int64_t unit)
{
    if (unit < 0)
        return firstlineno > 0 ? (uint32_t)firstlineno : 0;
    int64_t line = firstlineno, at = 0;
    size_t i = 0;
    while (i < len) {
        uint8_t first = tab[i];
        if (!(first & 128))
            return 0; /* not an entry's first byte: a broken table */
        int kind = (first >> 3) & 15;
        int64_t end = at + (first & 7) + 1;
        size_t body = i + 1;
        int32_t delta = 0;
        if (kind == LOC_LONG || kind == LOC_NO_COLUMNS) {
            if (!svarint(tab, len, &body, &delta))
                return 0;
        } else if (kind >= LOC_ONE_LINE0 && kind <= LOC_ONE_LINE2) {
            delta = kind - LOC_ONE_LINE0;
        }
        line += delta;
        if (line < INT32_MIN || line > INT32_MAX)
            return 0;
        if (unit < end)
            return kind == LOC_NONE || line <= 0 ? 0 : (uint32_t)line;
        at = end;
        /* the next entry starts at the next byte with bit 7 set */
        for (i++; i < len && !(tab[i] & 128); i++)
            ;
    }
    return 0;
}
