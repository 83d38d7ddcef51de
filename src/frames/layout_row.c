/* layout_row.c - the tables of layouts; see layout_row.h. */
#include "layout_row.h"

#include <stdio.h>
#include <string.h>

static struct layout_version version_at(const void *rows, size_t size,
                                        size_t i)
{
    struct layout_version v;

    memcpy(&v, (const char *)rows + i * size, sizeof v);
    return v;
}

const void *layout_row_find(const void *rows, size_t n, size_t size,
                            uint32_t major, uint32_t minor)
{
    for (size_t i = 0; i < n; i++) {
        struct layout_version v = version_at(rows, size, i);

        if (v.major == major && v.minor == minor)
            return (const char *)rows + i * size;
    }
    return NULL;
}

void layout_row_versions(const void *rows, size_t n, size_t size, char *buf,
                         size_t cap)
{
    size_t len = 0;

    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++) {
        struct layout_version v = version_at(rows, size, i);
        int k = snprintf(buf + len, cap - len, "%s%u.%u", i ? ", " : "",
                         v.major, v.minor);

        if (k < 0)
            break;
        len += (size_t)k;
    }
}
