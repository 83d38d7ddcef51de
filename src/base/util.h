/* util.h - small libc-only helpers shared by the pure modules.
 *
 * Hashing for the aggregate's open-addressing tables and the loaders,
 * bounded string formatting for one-line error messages, and the one
 * UTF-8 decoder that every exporter and loader uses on symbol names
 * (which come from untrusted binaries and files), and the one way to open
 * a file an untrusted path names.  No state.
 */
#ifndef SPROFTOP_UTIL_H
#define SPROFTOP_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A 64-bit finalizer (splitmix64): spreads every input bit over the
 * result, so sequential ids hash to unrelated slots. */
uint64_t util_mix64(uint64_t x);

/* The greatest common divisor of a and b (gcd(0, b) is b). */
uint64_t util_gcd(uint64_t a, uint64_t b);

/* FNV-1a over len bytes, finished with util_mix64 so the low bits used
 * as a table index are well mixed. */
uint64_t util_hash_bytes(const void *data, size_t len, uint64_t seed);

/* v in decimal with a comma between groups of three digits ("1,040"),
 * into buf (n bytes; 27 always suffice).  Returns buf. */
const char *util_thousands(uint64_t v, char *buf, size_t n);
/* The qsort order of the pairs (a1, a2) and (b1, b2) of unsigned keys:
 * by the first keys, then by the second; -1, 0 or 1. */
static inline int util_cmp_pair(uint64_t a1, uint64_t a2, uint64_t b1,
                                uint64_t b2)
{
    if (a1 != b1)
        return a1 < b1 ? -1 : 1;
    return (a2 > b2) - (a2 < b2);
}

/* snprintf into err (errlen may be 0, err may then be NULL); always
 * NUL-terminated, silently truncated. */
void util_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Free v[0..n) (each malloc'd, or NULL), then v: an array that owns its
 * strings.  v NULL is a no-op. */
void util_strv_free(char **v, size_t n);

/* Basename of a path without modifying it: the part after the last '/'
 * (the whole string when there is none).  Points into path. */
const char *util_basename(const char *path);

/* Decode the UTF-8 character at s[0..n): returns its length (1 to 4)
 * and, when cp is not NULL, stores its code point in *cp.  Returns 0
 * (and leaves *cp alone) when s does not start a well-formed sequence:
 * a stray continuation byte, an overlong form, a surrogate, a code point
 * above U+10FFFF, or a sequence cut short by n.  n must be at least 1;
 * no byte at or past s + n is read.  What replaces a bad byte is the
 * caller's choice (usually U+FFFD, then resume at s + 1). */
size_t util_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Number of characters in the n bytes at s: every byte that is not a
 * continuation byte (10xxxxxx) counts one.  Exact for valid UTF-8; for
 * anything else an estimate that never exceeds n. */
size_t util_utf8_count(const char *s, size_t n);

/* Open path read-only if it is a regular file.  Paths read from a
 * profile or a target's maps are untrusted: a FIFO would block the open
 * or the read, /dev/tty would swallow keystrokes.  So the open never
 * blocks (O_NONBLOCK, O_NOCTTY) and anything but a regular file is
 * closed again.  Returns the descriptor (O_CLOEXEC), filling *st when st
 * is not NULL, or -1 with errno set: EINVAL for not a regular file. */
int util_open_regular(const char *path, struct stat *st);

#endif
