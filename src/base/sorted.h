/* sorted.h - the one sort and the one binary search over arrays sorted
 * by a uint64_t field (address ranges by start: symbol tables, perf maps,
 * function indexes).
 *
 *     size_t i = sorted_upper_bound(v, n, sizeof *v,
 *                                   offsetof(struct sym, start), addr);
 *     if (i > 0 && addr < v[i - 1].end)  // v[i - 1] is the last that
 *         ...                            // starts at or before addr
 *
 * Any thread; no state.  libc only.
 */
#ifndef SPROFTOP_SORTED_H
#define SPROFTOP_SORTED_H

#include <stddef.h>
#include <stdint.h>

/* The number of leading elements of v[0..n) (each `size` bytes, sorted by
 * the uint64_t at byte offset `off`) whose key is <= key. */
size_t sorted_upper_bound(const void *v, size_t n, size_t size, size_t off,
                          uint64_t key);

/* Sort v[0..n) with qsort (sorted_sort_r: qsort_r, cmp gets arg).  An
 * empty array may be NULL: libc's qsort declares its array non-null even
 * for n == 0, and UBSan stops the program there, so every sort in
 * sproftop goes through these (nothing to do for n < 2). */
void sorted_sort(void *v, size_t n, size_t size,
                 int (*cmp)(const void *, const void *));
void sorted_sort_r(void *v, size_t n, size_t size,
                   int (*cmp)(const void *, const void *, void *), void *arg);

#endif
