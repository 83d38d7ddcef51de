/* pyread.c - CPython's frames from outside; see pyread.h. */
#include "pyread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codecache.h"
#include "pyline.h"
#include "relf.h"
#include "rmem.h"
#include "util.h"
#include "vec.h"

#define PYWALK_INLINE static inline
#define PYWALK_READ(ctx, dst, len, addr) \
    rmem_copy((struct rmem *)(ctx), (addr), (dst), (len))
#include "pywalk.h"

#define MAX_UNITS (1u << 22)   /* code units of one code object */
#define STR_HEADER_MAX 128u    /* bytes of a str header read */


static const struct codecache_ops py_code_ops;

struct pyread {
    struct codereader cr;       /* first: see codecache.h */
    struct rmem *m;
    struct pyread_info info;
    struct py_layout l;
};
_Static_assert(offsetof(struct pyread, cr) == 0, "codereader first");

bool pyread_candidate(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    if (strncmp(b, "lib", 3) == 0)
        b += 3;
    return strncmp(b, "python", 6) == 0 && (b[6] == '2' || b[6] == '3');
}

/* major.minor from a file name: "python3.11", "libpython3.10.so.1.0". */
static bool version_from_name(const char *path, uint32_t *major,
                              uint32_t *minor)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *p = strstr(b, "python");
    unsigned a, c;
    if (!p || sscanf(p + 6, "%u.%u", &a, &c) != 2 || a > 9 || c > 99)
        return false;
    *major = a;
    *minor = c;
    return true;
}

int pyread_probe(struct rmem *m, uint64_t base, const char *path,
                 struct pyread_info *out)
{
    memset(out, 0, sizeof *out);
    struct relf e;
    bool elf = relf_open(m, base, &e) == 0;
    uint64_t ver_addr = 0, hex = 0, size = 0;
    if (elf)
        relf_symbol(m, &e, "_PyRuntime", &out->runtime, NULL);
    if (elf && out->runtime && relf_symbol(m, &e, "Py_Version", &ver_addr,
                                           NULL) == 0 &&
        rmem_u64(m, ver_addr, &hex) == 0 && (hex >> 24) >= 3 &&
        (hex >> 24) <= 9) {
        /* PY_VERSION_HEX: major, minor, micro, release level and serial */
        out->major = (uint32_t)(hex >> 24) & 0xff;
        out->minor = (uint32_t)(hex >> 16) & 0xff;
        out->micro = (uint32_t)(hex >> 8) & 0xff;
        unsigned level = (hex >> 4) & 0xf, serial = hex & 0xf;
        const char *tag = level == 0xa ? "a" : level == 0xb ? "b"
                          : level == 0xc ? "rc" : "";
        if (*tag)
            snprintf(out->version, sizeof out->version, "%u.%u.%u%s%u",
                     out->major, out->minor, out->micro, tag, serial);
        else
            snprintf(out->version, sizeof out->version, "%u.%u.%u",
                     out->major, out->minor, out->micro);
    } else if (version_from_name(path, &out->major, &out->minor) &&
               (out->runtime || !elf ||
                relf_symbol(m, &e, "Py_Initialize", NULL, NULL) == 0)) {
        /* before 3.11 there is no Py_Version: the file's name says it */
        snprintf(out->version, sizeof out->version, "%u.%u", out->major,
                 out->minor);
    } else {
        return -1;
    }
    if (!elf || !out->runtime || !pylayout_find(out->major, out->minor))
        return 0;
    if (relf_symbol(m, &e, "PyCode_Type", &out->code_type, NULL) < 0 ||
        relf_symbol(m, &e, "PyUnicode_Type", &out->unicode_type, NULL) < 0 ||
        relf_symbol(m, &e, "PyBytes_Type", &out->bytes_type, NULL) < 0)
        return 0;
    if (relf_symbol(m, &e, "_PyEval_EvalFrameDefault", &out->eval_lo,
                    &size) == 0 && size > 0)
        out->eval_hi = out->eval_lo + size;
    else
        out->eval_lo = 0;
    out->supported = true;
    return 0;
}

struct pyread *pyread_new(struct rmem *m, const struct pyread_info *info)
{
    const struct py_layout *row = pylayout_find(info->major, info->minor);
    if (!info->supported || !row)
        return NULL;
    struct pyread *r = codereader_new(sizeof *r, &py_code_ops, m);
    if (!r)
        return NULL;
    r->m = m;
    r->info = *info;
    r->l = *row;
    uint8_t dbg[PYLAYOUT_DEBUG_BYTES];
    if (rmem_copy(m, info->runtime, dbg, sizeof dbg) == 0 &&
        pylayout_from_debug_offsets(dbg, sizeof dbg, &r->l) == 0)
        r->info.own_offsets = true;
    return r;
}

void pyread_free(struct pyread *r)
{
    if (r) /* &r->cr of a null r would be undefined */
        codereader_free(&r->cr);
}

const struct py_layout *pyread_layout(const struct pyread *r)
{
    return &r->l;
}

const struct pyread_info *pyread_info(const struct pyread *r)
{
    return &r->info;
}

int pyread_walk(struct pyread *r, int64_t tid, struct pyread_stack *st)
{
    uint64_t hint = codereader_walk_start(&r->cr, tid, st);
    uint64_t ts = pywalk_thread(r->m, &r->l.walk, r->info.runtime,
                                (uint64_t)tid, hint);
    if (!ts)
        return codereader_walk_none(&r->cr, st);
    codereader_hint_set(&r->cr, tid, ts);
    uint64_t frame;
    if (pywalk_current(r->m, &r->l.walk, ts, &frame) < 0)
        st->status = PYWALK_TORN;
    else
        st->status = pywalk_frames(r->m, &r->l.walk, frame, st->f,
                                   st->entry, PYWALK_MAX_DEPTH, &st->n);
    return codereader_walk_end(&r->cr, st);
}

/* Append code point c as UTF-8 to out (n used of cap); false when full. */
static bool put_utf8(char *out, size_t cap, size_t *n, uint32_t c)
{
    uint8_t b[4];
    size_t k;
    if (c >= 0xd800 && c <= 0xdfff)
        c = '?'; /* a lone surrogate is no character */
    if (c < 0x80) {
        b[0] = (uint8_t)c;
        k = 1;
    } else if (c < 0x800) {
        b[0] = (uint8_t)(0xc0 | c >> 6);
        b[1] = (uint8_t)(0x80 | (c & 0x3f));
        k = 2;
    } else if (c < 0x10000) {
        b[0] = (uint8_t)(0xe0 | c >> 12);
        b[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
        b[2] = (uint8_t)(0x80 | (c & 0x3f));
        k = 3;
    } else if (c < 0x110000) {
        b[0] = (uint8_t)(0xf0 | c >> 18);
        b[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
        b[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
        b[3] = (uint8_t)(0x80 | (c & 0x3f));
        k = 4;
    } else {
        b[0] = '?';
        k = 1;
    }
    if (*n + k >= cap)
        return false;
    memcpy(out + *n, b, k);
    *n += k;
    return true;
}

/* The str object at addr as UTF-8 (malloc'd; cut at cap - 4 bytes with
 * "…" when longer), or NULL when it is not a compact str of the target's
 * PyUnicode_Type or cannot be read. */
static char *read_str(struct pyread *r, uint64_t addr, size_t cap)
{
    const struct py_layout *l = &r->l;
    uint8_t hdr[STR_HEADER_MAX];
    size_t hlen = l->str_compact_data;
    if (!addr || hlen > sizeof hdr || hlen < 8 ||
        rmem_copy(r->m, addr, hdr, hlen) < 0 ||
        pywalk_word(hdr, (uint32_t)hlen, l->ob_type) != r->info.unicode_type)
        return NULL;
    uint64_t length = pywalk_word(hdr, (uint32_t)hlen, l->str_length);
    if (l->str_state + 4 > hlen)
        return NULL;
    uint32_t state = (uint32_t)hdr[l->str_state] |
                     (uint32_t)hdr[l->str_state + 1] << 8;
    unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1,
             ascii = (state >> 6) & 1;
    if (!compact || (!ascii && kind != 1 && kind != 2 && kind != 4))
        return NULL;
    if (ascii)
        kind = 1;
    /* more characters than fit would be cut anyway: read what fits */
    size_t chars = length < cap ? (size_t)length : cap;
    if (length > (1u << 30))
        return NULL;
    uint64_t data = addr + (ascii ? l->str_ascii_data : l->str_compact_data);
    uint8_t *raw = NULL;
    char *out = malloc(cap);
    if (!out || (chars && !(raw = malloc(chars * kind))) ||
        (chars && rmem_copy(r->m, data, raw, chars * kind) < 0)) {
        free(raw);
        free(out);
        return NULL;
    }
    size_t n = 0;
    bool cut = chars < length;
    for (size_t i = 0; i < chars; i++) {
        uint32_t c = kind == 1 ? raw[i]
                     : kind == 2 ? (uint32_t)raw[2 * i] |
                                   (uint32_t)raw[2 * i + 1] << 8
                     : (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                       (uint32_t)raw[4 * i + 2] << 16 |
                       (uint32_t)raw[4 * i + 3] << 24;
        if (ascii && c >= 0x80) { /* an ASCII str that is not: torn */
            free(raw);
            free(out);
            return NULL;
        }
        if (n + 4 + 3 >= cap || !put_utf8(out, cap, &n, c)) {
            cut = true;
            break;
        }
    }
    free(raw);
    if (cut) {
        memcpy(out + n, "\xe2\x80\xa6", 3); /* … */
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* The bytes object at addr (its type checked, at most max bytes) into
 * *out (malloc'd) and *len.  0 or -1. */
static int read_bytes(struct pyread *r, uint64_t addr, size_t max,
                      uint8_t **out, uint32_t *len)
{
    const struct py_layout *l = &r->l;
    uint8_t hdr[64];
    size_t hlen = l->bytes_data;
    if (!addr || hlen > sizeof hdr || hlen < 8 ||
        rmem_copy(r->m, addr, hdr, hlen) < 0 ||
        pywalk_word(hdr, (uint32_t)hlen, l->ob_type) != r->info.bytes_type)
        return -1;
    uint64_t n = pywalk_word(hdr, (uint32_t)hlen, l->bytes_size);
    if (n > max)
        return -1;
    uint8_t *b = malloc(n ? n : 1);
    if (!b || (n && rmem_copy(r->m, addr + hlen, b, (size_t)n) < 0)) {
        free(b);
        return -1;
    }
    *out = b;
    *len = (uint32_t)n;
    return 0;
}

/* The check words of a code object's header (codecache.h). */
enum { CK_UNITS, CK_QUALNAME, CK_FILENAME, CK_LINETABLE, CK_FIRSTLINE };

static int code_head(void *ctx, uint64_t addr, uint64_t *check)
{
    struct pyread *r = ctx;
    const struct py_layout *l = &r->l;
    uint8_t b[256];
    size_t len = l->code_header;
    if (len > sizeof b || rmem_copy(r->m, addr, b, len) < 0)
        return -1;
    uint64_t type = pywalk_word(b, (uint32_t)len, l->ob_type);
    check[CK_UNITS] = pywalk_word(b, (uint32_t)len, l->var_size);
    check[CK_QUALNAME] = pywalk_word(b, (uint32_t)len, l->code_qualname);
    check[CK_FILENAME] = pywalk_word(b, (uint32_t)len, l->code_filename);
    check[CK_LINETABLE] = pywalk_word(b, (uint32_t)len, l->code_linetable);
    check[CK_FIRSTLINE] = 0;
    if (l->code_firstlineno + 4 <= len)
        check[CK_FIRSTLINE] = (uint32_t)b[l->code_firstlineno] |
                              (uint32_t)b[l->code_firstlineno + 1] << 8 |
                              (uint32_t)b[l->code_firstlineno + 2] << 16 |
                              (uint32_t)b[l->code_firstlineno + 3] << 24;
    return type == r->info.code_type && check[CK_UNITS] <= MAX_UNITS ? 0
                                                                     : -1;
}

static int code_fill(void *ctx, struct codecache_entry *e)
{
    struct pyread *r = ctx;
    uint8_t *table = NULL;
    e->firstlineno = (int32_t)(uint32_t)e->check[CK_FIRSTLINE];
    e->name = read_str(r, e->check[CK_QUALNAME], PYREAD_MAX_NAME);
    e->file = read_str(r, e->check[CK_FILENAME], PYREAD_MAX_FILE);
    if (!e->name || !e->file ||
        read_bytes(r, e->check[CK_LINETABLE], PYREAD_MAX_TABLE, &table,
                   &e->aux_len) < 0)
        return -1;
    e->aux = table;
    return 0;
}

/* The line frame f runs in code entry e. */
static uint32_t frame_line(void *ctx, const struct codecache_entry *e,
                           const struct pywalk_frame *f)
{
    const struct pyread *r = ctx;
    uint64_t base = e->addr + r->l.code_adaptive;
    int64_t diff = (int64_t)(f->instr - base);
    /* 3.11's prev_instr is one unit before the code before it starts */
    if (diff < -2 || diff >= (int64_t)e->check[CK_UNITS] * 2 || (diff & 1))
        return 0;
    return pyline_find(e->aux, e->aux_len, e->firstlineno, diff / 2);
}

static const struct codecache_ops py_code_ops = {code_head, code_fill,
                                                  frame_line};

int pyread_resolve(struct pyread *r, const struct pyread_stack *st,
                   struct pyread_frame *out, bool *torn)
{
    return codereader_resolve(&r->cr, st, out, torn);
}

int pyread_code(const struct pyread *r, uint32_t id, struct pyread_code *out)
{
    return codecache_code(&r->cr.codes, id, out);
}

uint32_t pyread_code_count(const struct pyread *r)
{
    return codecache_count(&r->cr.codes);
}

void pyread_next_generation(struct pyread *r)
{
    codecache_next_generation(&r->cr.codes);
}

void pyread_get_stats(const struct pyread *r, struct pyread_stats *out)
{
    codereader_stats(&r->cr, out);
}
