/* sorted.c - see sorted.h. */
#include "sorted.h"

#include <stdlib.h>
#include <string.h>

size_t sorted_upper_bound(const void *v, size_t n, size_t size, size_t off,
                          uint64_t key)
{
    const char *base = v;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, base + mid * size + off, sizeof k);
        if (k <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sorted_sort(void *v, size_t n, size_t size,
                 int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

void sorted_sort_r(void *v, size_t n, size_t size,
                   int (*cmp)(const void *, const void *, void *), void *arg)
{
    if (n > 1)
        qsort_r(v, n, size, cmp, arg);
}
