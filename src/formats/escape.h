/* escape.h - how the writers put names into their formats: one JSON
 * string writer, and one character-substitution writer for the
 * line-based formats, instead of a copy in each format.
 *
 * Called by the export_*.c writers.  Any thread; no state.  libc only.
 */
#ifndef SPROFTOP_ESCAPE_H
#define SPROFTOP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum escape_json_flags {
    ESC_JSON_ASCII = 1, /* write every character past '~' as \uXXXX (a
                           surrogate pair past U+FFFF): ASCII-only output */
    ESC_JSON_NAME = 2,  /* a frame name that line-based tools print raw:
                           control characters become spaces and ';'
                           becomes ':' before escaping */
};

/* s as a JSON string literal, quotes included: '"' and '\\' and
 * "\n\r\t" escaped, other control characters as \u00XX, invalid UTF-8 as
 * \ufffd (one per bad byte), the rest as it is unless flags (a set of
 * enum escape_json_flags) say otherwise. */
void escape_json(FILE *f, const char *s, unsigned flags);

/* Characters a line-based format cannot hold in a name, and what to
 * write instead. */
struct escape_map {
    const char *from;  /* characters to replace */
    const char *to;    /* one replacement for each character of from */
    bool controls;     /* also write every other control character (and
                          DEL) as a space */
};

/* The first n bytes of s (fewer if a NUL comes first) with m's
 * substitutions. */
void escape_put(FILE *f, const char *s, size_t n, const struct escape_map *m);

#endif
