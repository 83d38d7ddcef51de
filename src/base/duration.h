/* duration.h - the one parser of durations typed by the user.
 *
 * The command line (-r, -d) and the live view's prompts (refresh every
 * SECONDS, sampling interval or rate) read durations here, so "2.5",
 * "2.5s" and "250ms" mean the same wherever they are typed.  Callers keep
 * their own ranges.  Any thread; no state; libc only.
 */
#ifndef SPROFTOP_DURATION_H
#define SPROFTOP_DURATION_H

#include <stdbool.h>

/* Units of a bare number, in nanoseconds. */
#define DURATION_NS 1.0
#define DURATION_MS 1e6
#define DURATION_S  1e9

/* Parse a positive decimal number with an optional unit after it (spaces
 * allowed between): ns, us, ms or s, in any case; a bare number is in
 * unit_ns.  With `rate`, a number of hz (any case) is a frequency and
 * means its period ("200hz" is 5 ms).  Stores the duration in ns in *ns
 * (not rounded) and returns 0; -1, leaving *ns alone, when s is anything
 * else: empty, zero or negative, not finite, or followed by other text. */
int duration_parse(const char *s, double unit_ns, bool rate, double *ns);

/* A duration in seconds for -r, -d and the refresh prompt: duration_parse
 * with bare numbers in seconds and no rates, in [lo, hi] seconds.  Stores
 * the seconds in *out and returns 0, else -1 (*out untouched). */
int duration_parse_seconds(const char *s, double lo, double hi, double *out);

#endif
