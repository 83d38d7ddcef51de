/* window_profile.c - a window of the per-second ring as a profile of its
 * own (profile_window, window.h): a fresh copy of the profile's
 * identities, and each sample of the window's seconds added to it once,
 * O(unique samples x depth).  Above the ring (window.c), which walks the
 * samples, and the whole profile's lifecycle (profile_life.c).
 */
#include "window.h"

#include "profile_impl.h"

/* profile_time_range_fn: one sample of the window into the new profile. */
static int add_sample(void *ctx, uint32_t thread,
                      const struct stack_frame *frames, size_t n,
                      uint64_t weight)
{
    return profile_add_weighted(ctx, thread, frames, n, 0, weight) < 0 ? -1
                                                                      : 0;
}

struct profile *profile_window(const struct profile *p, uint64_t from,
                               uint64_t to)
{
    struct profile *q;
    struct profile_meta meta;

    if (!profile_time_enabled(p))
        return NULL;
    if (!(q = profile_copy(p, false)))
        return NULL;
    profile_lc_clear(&q->lines);
    profile_lc_clear(&q->addrs);
    if (profile_time_range(p, from, to, add_sample, q) < 0)
        goto fail;
    meta = *profile_meta(p);
    profile_time_range_meta(p, from, to, &meta);
    if (profile_set_meta(q, &meta) < 0)
        goto fail;
    profile_count_from_weight(q);
    return q;
fail:
    profile_free(q);
    return NULL;
}
