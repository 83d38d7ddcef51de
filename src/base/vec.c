/* vec.c - see vec.h. */
#include "vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int vec_grow(void **ptr, size_t *cap, size_t need, size_t elem,
             size_t min_cap, int zero)
{
    size_t ncap = *cap > SIZE_MAX / 2 ? SIZE_MAX : *cap * 2;

    if (ncap < min_cap)
        ncap = min_cap;
    if (ncap < need)
        ncap = need;
    if (elem == 0 || ncap > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*ptr, ncap * elem);
    if (!p)
        return -1;
    if (zero)
        memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *ptr = p;
    *cap = ncap;
    return 0;
}
