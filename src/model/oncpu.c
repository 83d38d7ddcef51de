/* oncpu.c - the header's "On CPU"; see oncpu.h. */
#include "oncpu.h"

double oncpu_share(const double *thread_pct, size_t n)
{
    double sum = 0;
    size_t known = 0;

    for (size_t i = 0; i < n; i++) {
        if (thread_pct[i] < 0)
            continue;
        sum += thread_pct[i] > 100 ? 100 : thread_pct[i];
        known++;
    }
    return known ? sum / (double)known : -1;
}
