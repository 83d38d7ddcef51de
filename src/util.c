/* util.c - hashing and error-string helpers for the pure modules. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

uint64_t util_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t util_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *s = data;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;

    for (size_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return util_mix64(h);
}

void util_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

const char *util_basename(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}
