/* vec.h - the one grow-by-doubling helper (git's ALLOC_GROW).
 *
 * Every growable array in sproftop is a pointer, a count and a capacity;
 * VEC_RESERVE makes room for `need` elements, doubling the capacity (from
 * a small floor) so appends are amortised O(1).  Nothing is allocated
 * while the array already has room, so callers may reserve before taking
 * a lock and append under it without a malloc.
 *
 *     struct frame *v = NULL; size_t n = 0, cap = 0;
 *     if (VEC_RESERVE(v, cap, n + 1) < 0) return -1;
 *     v[n++] = f;
 *
 * Any thread; no state of its own.  libc only.
 */
#ifndef SPROFTOP_VEC_H
#define SPROFTOP_VEC_H

#include <stddef.h>

/* Grow *ptr (elements of elem bytes, *cap of them) so that it holds at
 * least need elements: the new capacity is the larger of need and twice
 * the old one (at least min_cap).  New elements are not initialised
 * (zeroed when zero is true).  Returns 0, or -1 on overflow or OOM with
 * *ptr and *cap unchanged. */
int vec_grow(void **ptr, size_t *cap, size_t need, size_t elem,
             size_t min_cap, int zero);

/* VEC_RESERVE(ptr, cap, need): 0 when ptr has room for need elements
 * (growing it if not), -1 on OOM.  cap is a size_t lvalue. */
#define VEC_RESERVE(ptr, cap, need)                                        \
    ((size_t)(need) <= (cap) ? 0                                           \
     : vec_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)), 16, 0))

/* The same, with the new elements zeroed. */
#define VEC_RESERVE_ZERO(ptr, cap, need)                                   \
    ((size_t)(need) <= (cap) ? 0                                           \
     : vec_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)), 16, 1))

#endif
