/* escape.c - see escape.h. */
#include "escape.h"

#include <stdint.h>
#include <string.h>

#include "util.h"

/* A code point as JSON wants it outside the characters escaped by name. */
static void json_char(FILE *f, const unsigned char *s, size_t n, uint32_t cp,
                      unsigned flags)
{
    bool ascii = flags & ESC_JSON_ASCII;

    if (cp < 0x20) {
        fprintf(f, "\\u%04x", cp);
    } else if (cp < 0x7f || (cp == 0x7f && !ascii)) {
        putc_unlocked((int)cp, f);
    } else if (!ascii) {
        fwrite(s, 1, n, f);
    } else if (cp < 0x10000) {
        fprintf(f, "\\u%04x", cp);
    } else {
        cp -= 0x10000;
        fprintf(f, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                0xdc00 + (cp & 0x3ff));
    }
}

void escape_json(FILE *f, const char *str, unsigned flags)
{
    const unsigned char *s = (const unsigned char *)str;
    const unsigned char *end = s + strlen(str);

    putc_unlocked('"', f);
    while (s < end) {
        uint32_t cp;
        size_t n = util_utf8_decode(s, (size_t)(end - s), &cp);

        if (n == 0) {
            fputs("\\ufffd", f);
            s++;
            continue;
        }
        if ((flags & ESC_JSON_NAME) && (cp < 0x20 || cp == 0x7f))
            cp = ' ';
        else if ((flags & ESC_JSON_NAME) && cp == ';')
            cp = ':';
        if (cp == '"' || cp == '\\') {
            putc_unlocked('\\', f);
            putc_unlocked((int)cp, f);
        } else if (cp == '\n' || cp == '\r' || cp == '\t') {
            putc_unlocked('\\', f);
            putc_unlocked(cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't', f);
        } else {
            json_char(f, s, n, cp, flags);
        }
        s += n;
    }
    putc_unlocked('"', f);
}

void escape_put(FILE *f, const char *s, size_t n, const struct escape_map *m)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        const char *hit = strchr(m->from, s[i]);
        unsigned char c = (unsigned char)s[i];

        if (hit)
            putc_unlocked(m->to[hit - m->from], f);
        else if (m->controls && (c < 0x20 || c == 0x7f))
            putc_unlocked(' ', f);
        else
            putc_unlocked(s[i], f);
    }
}
