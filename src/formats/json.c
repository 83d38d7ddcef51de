/* json.c - a bounded JSON reader: one pass, no recursion, one node per
 * value.  See json.h.
 *
 * The parser keeps a stack of the open containers (JSON_MAX_DEPTH deep)
 * and appends a node per value; a container's node gets its `next` when
 * it closes, so skipping a value is one step.  Strings are checked here
 * and decoded on demand (json_string), numbers converted on demand.
 */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"

struct parser {
    const char *s;
    size_t len, pos;
    struct json *j;
    size_t cap;                      /* nodes allocated */
    uint32_t open[JSON_MAX_DEPTH];   /* the containers not yet closed */
    int depth;
    char *err;
    size_t errlen;
};

static int fail(struct parser *p, const char *why)
{
    util_errf(p->err, p->errlen, "byte %zu: %s", p->pos, why);
    return -1;
}

static void skip_space(struct parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

/* A new node of this type at p->pos; its index, or JSON_NONE (err set). */
static uint32_t add_node(struct parser *p, enum json_type type)
{
    struct json *j = p->j;

    if (j->count >= JSON_MAX_NODES) {
        fail(p, "too many values");
        return JSON_NONE;
    }
    if (VEC_RESERVE(j->nodes, p->cap, (size_t)j->count + 1) < 0) {
        fail(p, "out of memory");
        return JSON_NONE;
    }
    j->nodes[j->count] = (struct json_node){ .type = (uint8_t)type,
                                             .next = j->count + 1,
                                             .off = (uint32_t)p->pos };
    return j->count++;
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* A string at p->pos (its opening quote): checked, not decoded. */
static int parse_string(struct parser *p)
{
    uint32_t i;

    p->pos++;
    if ((i = add_node(p, JSON_STRING)) == JSON_NONE)
        return -1;
    while (p->pos < p->len && p->s[p->pos] != '"') {
        unsigned char c = (unsigned char)p->s[p->pos];

        if (c < 0x20)
            return fail(p, "control character in a string");
        if (c == '\\') {
            if (++p->pos >= p->len)
                break;
            c = (unsigned char)p->s[p->pos];
            if (c == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (p->pos + (size_t)k >= p->len ||
                        !is_hex(p->s[p->pos + (size_t)k]))
                        return fail(p, "bad \\u escape in a string");
                p->pos += 4;
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                return fail(p, "bad escape in a string");
            }
        }
        p->pos++;
    }
    if (p->pos >= p->len)
        return fail(p, "string not closed");
    p->j->nodes[i].len = (uint32_t)(p->pos - p->j->nodes[i].off);
    p->pos++;
    return 0;
}

static size_t digits(const struct parser *p, size_t at)
{
    size_t n = 0;

    while (at + n < p->len && p->s[at + n] >= '0' && p->s[at + n] <= '9')
        n++;
    return n;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct parser *p)
{
    size_t at = p->pos, n;
    uint32_t i;

    if ((i = add_node(p, JSON_NUMBER)) == JSON_NONE)
        return -1;
    if (at < p->len && p->s[at] == '-')
        at++;
    n = digits(p, at);
    if (n == 0 || (n > 1 && p->s[at] == '0'))
        return fail(p, "bad number");
    at += n;
    if (at < p->len && p->s[at] == '.') {
        if ((n = digits(p, at + 1)) == 0)
            return fail(p, "bad number");
        at += 1 + n;
    }
    if (at < p->len && (p->s[at] == 'e' || p->s[at] == 'E')) {
        at++;
        if (at < p->len && (p->s[at] == '+' || p->s[at] == '-'))
            at++;
        if ((n = digits(p, at)) == 0)
            return fail(p, "bad number");
        at += n;
    }
    if (at - p->pos > JSON_MAX_NUMBER)
        return fail(p, "number too long");
    p->j->nodes[i].len = (uint32_t)(at - p->pos);
    p->pos = at;
    return 0;
}

static int parse_word(struct parser *p, const char *word, enum json_type t)
{
    size_t n = strlen(word);

    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return fail(p, "expected a value");
    if (add_node(p, t) == JSON_NONE)
        return -1;
    p->pos += n;
    return 0;
}

/* One value at p->pos; a container is opened, not finished. */
static int parse_value(struct parser *p)
{
    char c;
    uint32_t i;

    skip_space(p);
    if (p->pos >= p->len)
        return fail(p, "unexpected end of the text");
    c = p->s[p->pos];
    if (c == '{' || c == '[') {
        if (p->depth == JSON_MAX_DEPTH)
            return fail(p, "nested too deep");
        if ((i = add_node(p, c == '{' ? JSON_OBJECT : JSON_ARRAY)) == JSON_NONE)
            return -1;
        p->open[p->depth++] = i;
        p->pos++;
        return 0;
    }
    if (c == '"')
        return parse_string(p);
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number(p);
    if (c == 't')
        return parse_word(p, "true", JSON_TRUE);
    if (c == 'f')
        return parse_word(p, "false", JSON_FALSE);
    if (c == 'n')
        return parse_word(p, "null", JSON_NULL);
    return fail(p, "expected a value");
}

/* An object member's key and colon, at p->pos. */
static int parse_key(struct parser *p)
{
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != '"')
        return fail(p, "expected a member name");
    if (parse_string(p) < 0)
        return -1;
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != ':')
        return fail(p, "expected ':'");
    p->pos++;
    return 0;
}

/* Right after a container opened: close it at once when empty, else read
 * its first key (object).  *more: a value is to be read next. */
static int after_open(struct parser *p, bool *more)
{
    struct json_node *c = &p->j->nodes[p->open[p->depth - 1]];
    char close = c->type == JSON_OBJECT ? '}' : ']';

    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        c->next = p->j->count;
        p->depth--;
        *more = false;
        return 0;
    }
    *more = true;
    return c->type == JSON_OBJECT ? parse_key(p) : 0;
}

/* After a value inside a container: a comma (then a key for an object)
 * or the container's end, which may end its parents too.  *more: a value
 * is to be read next. */
static int after_value(struct parser *p, bool *more)
{
    while (p->depth > 0) {
        struct json_node *c = &p->j->nodes[p->open[p->depth - 1]];
        char close = c->type == JSON_OBJECT ? '}' : ']';

        c->len++;
        skip_space(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            *more = true;
            return c->type == JSON_OBJECT ? parse_key(p) : 0;
        }
        if (p->pos >= p->len || p->s[p->pos] != close)
            return fail(p, c->type == JSON_OBJECT ? "expected ',' or '}'"
                                                  : "expected ',' or ']'");
        p->pos++;
        c->next = p->j->count;
        p->depth--;
    }
    *more = false;
    return 0;
}

bool json_starts_object(const char *text, size_t len)
{
    struct parser p = { .s = text, .len = len };

    skip_space(&p);
    return p.pos < len && text[p.pos] == '{';
}

int json_parse(struct json *j, const char *text, size_t len, char *err,
               size_t errlen)
{
    struct parser p = { .s = text, .len = len, .j = j, .err = err,
                        .errlen = errlen };
    bool more = true;

    *j = (struct json){ .text = text };
    if (len >= UINT32_MAX) {
        util_errf(err, errlen, "byte 0: text too long");
        return -1;
    }
    while (more) {
        int depth = p.depth, rc = parse_value(&p);

        if (rc == 0 && p.depth > depth)
            rc = after_open(&p, &more);
        if (rc == 0 && (p.depth <= depth || !more))
            rc = after_value(&p, &more);
        if (rc < 0) {
            json_free(j);
            return -1;
        }
    }
    skip_space(&p);
    if (p.pos != len) {
        fail(&p, "text after the value");
        json_free(j);
        return -1;
    }
    return 0;
}

void json_free(struct json *j)
{
    free(j->nodes);
    j->nodes = NULL;
    j->count = 0;
}

int json_type(const struct json *j, uint32_t i)
{
    return i < j->count ? j->nodes[i].type : -1;
}

uint32_t json_first(const struct json *j, uint32_t i)
{
    if (i >= j->count || (j->nodes[i].type != JSON_ARRAY &&
                          j->nodes[i].type != JSON_OBJECT) ||
        j->nodes[i].len == 0)
        return JSON_NONE;
    return i + 1;
}

uint32_t json_next(const struct json *j, uint32_t container, uint32_t i)
{
    if (container >= j->count || i >= j->count ||
        j->nodes[i].next >= j->nodes[container].next)
        return JSON_NONE;
    return j->nodes[i].next;
}

uint32_t json_get(const struct json *j, uint32_t obj, const char *key)
{
    if (json_type(j, obj) != JSON_OBJECT)
        return JSON_NONE;
    for (uint32_t k = json_first(j, obj); k != JSON_NONE;
         k = json_next(j, obj, json_next(j, obj, k)))
        if (json_string_is(j, k, key))
            return json_next(j, obj, k);
    return JSON_NONE;
}

bool json_number(const struct json *j, uint32_t i, double *out)
{
    char buf[JSON_MAX_NUMBER + 1];
    double v;

    if (json_type(j, i) != JSON_NUMBER)
        return false;
    memcpy(buf, j->text + j->nodes[i].off, j->nodes[i].len);
    buf[j->nodes[i].len] = '\0';
    errno = 0;
    v = strtod(buf, NULL);
    if (!isfinite(v))
        return false;
    *out = v;
    return true;
}

bool json_int(const struct json *j, uint32_t i, int64_t lo, int64_t hi,
              int64_t *out)
{
    char buf[JSON_MAX_NUMBER + 1];
    long long v;
    double d;

    if (json_type(j, i) != JSON_NUMBER)
        return false;
    memcpy(buf, j->text + j->nodes[i].off, j->nodes[i].len);
    buf[j->nodes[i].len] = '\0';
    if (strpbrk(buf, ".eE")) {
        /* 3.0, 1e3: whole, and exact in a double */
        if (!json_number(j, i, &d) || d != floor(d) || fabs(d) > 9e15)
            return false;
        v = (long long)d;
    } else {
        errno = 0;
        v = strtoll(buf, NULL, 10);
        if (errno)
            return false;
    }
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int hex4(const char *s)
{
    int v = 0;

    for (int k = 0; k < 4; k++)
        v = v * 16 + (s[k] <= '9' ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
    return v;
}

/* Append code point cp as UTF-8 to out; returns the bytes written. */
static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
        cp = 0xfffd;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decode the checked string s[0..n) into out (at least n + 1 bytes: no
 * escape decodes longer than it is written); returns the length. */
static size_t decode(const char *s, size_t n, char *out)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            out[o++] = s[i];
            continue;
        }
        char c = s[++i];
        if (c != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

            out[o++] = to[strchr(from, c) - from];
            continue;
        }
        uint32_t cp = (uint32_t)hex4(s + i + 1);
        i += 4;
        /* a surrogate pair is one character */
        if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < n && s[i + 1] == '\\' &&
            s[i + 2] == 'u') {
            uint32_t lo = (uint32_t)hex4(s + i + 3);

            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
        }
        o += put_utf8(out + o, cp);
    }
    out[o] = '\0';
    return o;
}

char *json_string(const struct json *j, uint32_t i, bool *oom)
{
    char *out;

    if (json_type(j, i) != JSON_STRING)
        return NULL;
    out = malloc((size_t)j->nodes[i].len + 1);
    if (!out) {
        if (oom)
            *oom = true;
        return NULL;
    }
    decode(j->text + j->nodes[i].off, j->nodes[i].len, out);
    return out;
}

bool json_string_is(const struct json *j, uint32_t i, const char *s)
{
    const struct json_node *n;
    size_t sl = strlen(s);

    if (json_type(j, i) != JSON_STRING)
        return false;
    n = &j->nodes[i];
    if (!memchr(j->text + n->off, '\\', n->len))
        return n->len == sl && memcmp(j->text + n->off, s, sl) == 0;
    char *d = json_string(j, i, NULL);
    bool same = d && strcmp(d, s) == 0;
    free(d);
    return same;
}
