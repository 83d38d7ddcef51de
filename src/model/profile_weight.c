/* profile_weight.c - what a profile's weights mean: their unit, their
 * time, their count of nominal intervals, and the copy in counts that
 * the writers of count formats read.  See profile.h ("Weights") for the
 * model and profile_impl.h for the storage.
 *
 * The one place weights are converted: the views, the exporters and the
 * loaders call these, so a live profile in nanoseconds and a file of
 * counts read the same way everywhere.
 */
#include "profile_impl.h"

uint64_t profile_sample_count(const struct profile *p)
{
    return p ? p->nsamples : 0;
}

uint64_t profile_weight_unit(const struct profile *p)
{
    return p ? p->unit_ns : 0;
}

int profile_set_weight_unit(struct profile *p, uint64_t ns)
{
    if (!p || (p->samples && ns != p->unit_ns))
        return -1;
    p->unit_ns = ns;
    return 0;
}

/* Nanoseconds a unit of weight stands for, 0 when unknown. */
static uint64_t unit_of(const struct profile *p)
{
    return p->unit_ns ? p->unit_ns : p->meta.interval_ns;
}

bool profile_weight_timed(const struct profile *p)
{
    return p && unit_of(p) != 0;
}

uint64_t profile_weight_ns(const struct profile *p, uint64_t w)
{
    uint64_t u = p ? unit_of(p) : 0;

    if (u > 1 && w > UINT64_MAX / u)
        return UINT64_MAX;
    return w * u;
}

/* Weights already counts of the nominal interval. */
static bool counted(const struct profile *p)
{
    return !p->unit_ns || !p->meta.interval_ns ||
           p->unit_ns == p->meta.interval_ns;
}

uint64_t profile_weight_count(const struct profile *p, uint64_t w)
{
    unsigned __int128 x;

    if (!p || !w || counted(p))
        return w;
    x = ((unsigned __int128)w * p->unit_ns + p->meta.interval_ns / 2) /
        p->meta.interval_ns;
    if (x == 0)
        return 1;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static uint64_t map_count(const struct profile *p, uint64_t w, uint64_t k)
{
    (void)k;
    return profile_weight_count(p, w);
}

static uint64_t map_scale(const struct profile *p, uint64_t w, uint64_t k)
{
    (void)p;
    return w * k;
}

/* Every weight w of p becomes fn(p, w, k); the tree's totals are summed
 * again from the new self weights (a parent's id is below its
 * children's), so the tree stays whole. */
static void map_weights(struct profile *p, profile_weight_map_fn fn,
                        uint64_t k, double factor)
{
    struct lcmap *maps[2] = { &p->lines, &p->addrs };

    for (uint32_t n = 0; n < p->nnodes; n++) {
        p->nodes[n].self = fn(p, p->nodes[n].self, k);
        p->nodes[n].total = p->nodes[n].self;
    }
    for (uint32_t n = p->nnodes; n-- > 1;)
        p->nodes[p->nodes[n].parent].total += p->nodes[n].total;
    p->samples = p->nodes[PROFILE_ROOT].total;
    for (int m = 0; m < 2; m++)
        for (size_t i = 0; i < maps[m]->n; i++) {
            maps[m]->e[i].self = fn(p, maps[m]->e[i].self, k);
            maps[m]->e[i].total = fn(p, maps[m]->e[i].total, k);
        }
    profile_time_map(p, fn, k);
    profile_graph_map(p, fn, k, factor);
}

void profile_scale_weights(struct profile *p, uint64_t k)
{
    if (k != 1)
        map_weights(p, map_scale, k, (double)k);
}

void profile_count_from_weight(struct profile *p)
{
    p->nsamples = profile_weight_count(p, p->samples);
}

const struct profile *profile_counts(const struct profile *p,
                                     struct profile **own)
{
    struct profile *q;

    *own = NULL;
    if (counted(p))
        return p;
    if (!(q = profile_copy(p, true)))
        return NULL;
    map_weights(q, map_count, 0,
                (double)q->unit_ns / (double)q->meta.interval_ns);
    q->unit_ns = 0;
    *own = q;
    return q;
}
