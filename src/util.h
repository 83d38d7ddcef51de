/* util.h - small libc-only helpers shared by the pure modules.
 *
 * Hashing for the aggregate's open-addressing tables and the loaders, and
 * bounded string formatting for one-line error messages.  No state.
 */
#ifndef SPROFTOP_UTIL_H
#define SPROFTOP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit finalizer (splitmix64): spreads every input bit over the
 * result, so sequential ids hash to unrelated slots. */
uint64_t util_mix64(uint64_t x);

/* FNV-1a over len bytes, finished with util_mix64 so the low bits used
 * as a table index are well mixed. */
uint64_t util_hash_bytes(const void *data, size_t len, uint64_t seed);

/* snprintf into err (errlen may be 0, err may then be NULL); always
 * NUL-terminated, silently truncated. */
void util_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Basename of a path without modifying it: the part after the last '/'
 * (the whole string when there is none).  Points into path. */
const char *util_basename(const char *path);

#endif
