/* bounds.h - the limits and defaults that more than one layer applies:
 * the sampling interval's range, the hide thresholds and the exited
 * stacks' budget.
 *
 * One place for each: the command line (-F, --hide-self, --hide-subs and
 * their --help text), the TUI (the interval prompt, < and >, the t
 * prompt and [ ] { }), the samplers (which clamp whatever they are
 * given) and the writers (export_opts' defaults) all read them here, the
 * lowest layer they all see.  Header only, libc only; any thread.
 */
#ifndef SPROFTOP_BOUNDS_H
#define SPROFTOP_BOUNDS_H

#include <stdint.h>

/* The sampling interval every sampler accepts, in ns: from 100 us
 * (10 kHz) to 1 s (1 Hz). */
#define SP_INTERVAL_MIN_NS 100000ull
#define SP_INTERVAL_MAX_NS 1000000000ull

/* The same range as -F rates, in Hz (1 and 10000). */
#define SP_FREQ_MIN_HZ (1e9 / (double)SP_INTERVAL_MAX_NS)
#define SP_FREQ_MAX_HZ (1e9 / (double)SP_INTERVAL_MIN_NS)

/* An interval moved into [SP_INTERVAL_MIN_NS, SP_INTERVAL_MAX_NS]: what
 * every source does with a new interval (source.h set_interval), and what
 * the TUI tells the user it asked for. */
static inline uint64_t sp_interval_clamp(uint64_t ns)
{
    return ns < SP_INTERVAL_MIN_NS ? SP_INTERVAL_MIN_NS
         : ns > SP_INTERVAL_MAX_NS ? SP_INTERVAL_MAX_NS : ns;
}

/* The nodes below exited processes' and threads' stacks a live profile
 * keeps near (--exited-nodes; the collector's budget, profile.h struct
 * profile_cut): a build's compilers bring ~30,000 new nodes a minute
 * for as long as it runs, four in five of them seen once; 300,000 keep
 * every stack of a build loop's first ten minutes or so, ~30 MiB. */
#define SP_EXITED_NODES_MIN 100ull
#define SP_EXITED_NODES_DEFAULT 300000ull
#define SP_EXITED_NODES_MAX 100000000ull

/* The hide thresholds (view_model.h model_set_hide, Racket's text
 * renderer's #:hide-self and #:hide-subs): percentages from 0 (hide
 * nothing) to 100, by default Racket's 1% self and 2% for the edges. */
#define SP_HIDE_MAX 100.0
#define SP_HIDE_SELF_DEFAULT 1.0
#define SP_HIDE_SUBS_DEFAULT 2.0

/* A threshold moved into [0, SP_HIDE_MAX] (a NaN becomes 0). */
static inline double sp_hide_clamp(double pct)
{
    return pct > 0 ? (pct < SP_HIDE_MAX ? pct : SP_HIDE_MAX) : 0;
}

#endif
