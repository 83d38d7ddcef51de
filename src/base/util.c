/* util.c - hashing, error-string, UTF-8 and safe-open helpers for the
 * pure modules (and the engine and UI). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t util_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

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

void util_strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

const char *util_basename(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

size_t util_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    uint32_t c = s[0], min;
    size_t len;

    if (c < 0x80) {
        len = 1;
        min = 0;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        c &= 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        c &= 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        c &= 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3fu);
    }
    /* the lead-byte ranges exclude 2-byte overlongs only; longer
     * overlongs, surrogates and values past U+10FFFF show in the value */
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    if (cp)
        *cp = c;
    return len;
}

size_t util_utf8_count(const char *s, size_t n)
{
    size_t c = 0;

    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xc0) != 0x80;
    return c;
}

int util_open_regular(const char *path, struct stat *st)
{
    struct stat own;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

    if (fd < 0)
        return -1;
    if (!st)
        st = &own;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        int saved = S_ISREG(st->st_mode) ? errno : EINVAL;

        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

const char *util_thousands(uint64_t v, char *buf, size_t n)
{
    char digits[24];
    char out[32];
    int nd = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t k = 0;

    for (int i = 0; i < nd; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
    if (n > 0)
        snprintf(buf, n, "%s", out);
    return buf;
}
