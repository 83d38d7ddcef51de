/* json.h - a bounded JSON reader for the JSON profile formats.
 *
 * json_parse checks a whole text against RFC 8259 and indexes it: one
 * 16-byte node per value, in document order, pointing into the text
 * (strings are decoded only when asked for).  The input is untrusted:
 * nesting deeper than JSON_MAX_DEPTH, more than JSON_MAX_NODES values,
 * a number longer than JSON_MAX_NUMBER characters, control characters
 * in strings, bad escapes and trailing garbage are errors naming the
 * byte; time and memory are linear in the text.  Used by the speedscope
 * and Racket JSON readers (load_*.c).  libc only; no state.
 */
#ifndef SPROFTOP_JSON_H
#define SPROFTOP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64            /* arrays and objects inside each other */
#define JSON_MAX_NODES (16u << 20)   /* values in one text (256 MiB of nodes) */
#define JSON_MAX_NUMBER 64           /* characters of one number */
#define JSON_NONE UINT32_MAX         /* "no such value" */

enum json_type {
    JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY,
    JSON_OBJECT,
};

/* One value.  An array's elements follow it, each after the whole of
 * the one before; an object's members likewise, each a key (a string
 * node) then its value. */
struct json_node {
    uint8_t type;   /* enum json_type */
    uint32_t next;  /* the node after this value and all it holds */
    uint32_t off;   /* where it starts in the text (a string: after its
                       opening quote) */
    uint32_t len;   /* a string's or number's bytes in the text; an
                       array's elements, an object's members */
};

struct json {
    const char *text;        /* borrowed: must outlive the index */
    struct json_node *nodes; /* nodes[0] is the document's value */
    uint32_t count;
};

/* Whether text[0..len) starts, after white space, with '{': what the
 * JSON formats' sniffers look at first. */
bool json_starts_object(const char *text, size_t len);

/* Index text[0..len).  0, or -1 with "byte N: why" in err (N from 0). */
int json_parse(struct json *j, const char *text, size_t len, char *err,
               size_t errlen);

/* Free the index (not the text).  A zeroed struct is a no-op. */
void json_free(struct json *j);

/* The type of node i, or -1 when i is JSON_NONE. */
int json_type(const struct json *j, uint32_t i);

/* The value of member `key` of object `obj` (the first, when a key comes
 * twice), JSON_NONE when obj is not an object or has no such member. */
uint32_t json_get(const struct json *j, uint32_t obj, const char *key);

/* The first element of array i, or of the members of object i (a key),
 * JSON_NONE when empty or not a container; json_next steps to the next
 * element (JSON_NONE after the last one).  For an object, step twice:
 * key, value. */
uint32_t json_first(const struct json *j, uint32_t i);
uint32_t json_next(const struct json *j, uint32_t container, uint32_t i);

/* Number node i as a double in *out; false when i is not a number or it
 * is out of the double's range. */
bool json_number(const struct json *j, uint32_t i, double *out);

/* Number node i as an integer in [lo, hi] in *out; false otherwise (not
 * a number, a fraction, out of range). */
bool json_int(const struct json *j, uint32_t i, int64_t lo, int64_t hi,
              int64_t *out);

/* String node i decoded (escapes resolved; a \u0000 becomes U+FFFD so
 * the result is a C string), malloc'd; NULL when i is not a string or on
 * OOM (then *oom is set, when oom is not NULL). */
char *json_string(const struct json *j, uint32_t i, bool *oom);

/* Whether string node i is exactly s (escapes resolved). */
bool json_string_is(const struct json *j, uint32_t i, const char *s);

#endif
