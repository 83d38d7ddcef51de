/* hist.c - latency histogram; see hist.h. */
#include "hist.h"

void hist_add(struct hist *h, uint64_t ns)
{
    uint64_t us = ns / 1000;
    if (us < HIST_LIN) {
        h->lin[us]++;
    } else {
        int b = 0;
        for (uint64_t v = us / HIST_LIN; v > 1 && b < HIST_LOG - 1; v >>= 1)
            b++;
        h->log[b]++;
    }
    h->n++;
    if (ns > h->max)
        h->max = ns;
}

uint64_t hist_pct(const struct hist *h, double pct)
{
    if (!h->n)
        return 0;
    uint64_t want = (uint64_t)(pct / 100.0 * (double)(h->n - 1)) + 1, acc = 0;
    for (int i = 0; i < HIST_LIN; i++)
        if ((acc += h->lin[i]) >= want)
            return (uint64_t)i * 1000 + 500;
    for (int b = 0; b < HIST_LOG; b++)
        if ((acc += h->log[b]) >= want)
            return ((uint64_t)HIST_LIN << b) * 1000;
    return h->max;
}
