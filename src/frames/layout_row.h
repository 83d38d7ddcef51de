/* layout_row.h - what the interpreters' tables of layouts share
 * (pylayout.c, rblayout.c): a row per version, found by its version, and
 * the versions listed from the rows themselves, so that a new row is the
 * only change a new version needs.
 *
 * A table is an array of rows of `size` bytes, each beginning with its
 * struct layout_version.  Pure; any thread.  libc only.
 */
#ifndef SPROFTOP_LAYOUT_ROW_H
#define SPROFTOP_LAYOUT_ROW_H

#include <stddef.h>
#include <stdint.h>

/* The version a row was measured on: the first member of every row. */
struct layout_version {
    uint32_t major, minor;
};

/* The row of rows[0..n) for version major.minor, or NULL. */
const void *layout_row_find(const void *rows, size_t n, size_t size,
                            uint32_t major, uint32_t minor);

/* The versions of rows[0..n) for messages, "3.11, 3.12, 3.13", into buf
 * (cap bytes, NUL-terminated, cut when short). */
void layout_row_versions(const void *rows, size_t n, size_t size, char *buf,
                         size_t cap);

#endif
