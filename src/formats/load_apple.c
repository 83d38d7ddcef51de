/* load_apple.c - the Apple Sampler reader (sproftop -i x.sampler).
 *
 * Reads "@supersamplerV1.0" files (FORMATS.md section 5) as export_apple
 * writes them and as shared/formats/example.sampler holds them:
 *
 *   "@supersamplerV1.0" LF "@symboltableV1.1" LF
 *   ( TAB be32<id> TAB be32<flags> TAB symbol TAB module TAB module LF )*
 *   "@end" LF
 *   ( "@threadV1.0" TAB hex4<thread-id> LF
 *     ( TAB be32<1> be32<0> be32<1> be32<nframes> be32<id>*nframes LF )* )*
 *   "@end" LF
 *
 * The be32 fields are raw bytes that may hold TAB or LF, so the reader
 * goes by length and never splits lines.  Frames of a stack line are root
 * first (the leaf last).  Each line is one sample; runs of identical lines
 * are added as one stack with their count.  A thread becomes a profile
 * thread with its 16-bit id as tid, named by its symbol-table entry
 * ("Thread_0064") or "Thread_XXXX" when it has none.  A symbol becomes a
 * frame (name, module = the first library path, no source file) when a
 * stack first uses it, so frame ids follow first use, as the writer's
 * symbol ids do.
 *
 * The bytes are untrusted: every read is bounded by the buffer, strings
 * by LOAD_MAX_LINE, stacks by LOAD_MAX_DEPTH, and the first problem stops
 * the load with one line: "NAME: byte OFFSET: why".
 */
#include "load.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idtab.h"
#include "profile.h"
#include "util.h"
#include "vec.h"

static const char MAGIC[] = "@supersamplerV1.0\n";
static const char SYMTAB[] = "@symboltableV1.1\n";
static const char END[] = "@end\n";
static const char THREAD[] = "@threadV1.0\t";

bool load_apple_sniff(const char *buf, size_t len)
{
    return len >= sizeof(MAGIC) - 1 &&
           memcmp(buf, MAGIC, sizeof(MAGIC) - 1) == 0;
}

/* A symbol-table entry: offsets into the buffer. */
struct sym {
    uint32_t id;      /* be32 id from the file */
    size_t name;      /* offset of the symbol name */
    size_t name_len;
    size_t mod;       /* offset of the first library path */
    size_t mod_len;
    uint32_t frame;   /* profile frame, PROFILE_NONE until used */
};

struct rd {
    const unsigned char *b;
    size_t len;
    size_t pos;
    const char *name;  /* file name for errors */
    char *err;
    size_t errlen;
    struct profile *p;
    struct sym *syms;
    size_t nsyms, cap;
    struct idtab ix;   /* util_mix64(symbol id), a bijection -> index */
    struct stack_frame *st;
    char *scratch;     /* NUL-terminated copies of names */
    size_t scratch_cap;
};

static int fail_at(struct rd *r, size_t at, const char *why)
{
    util_errf(r->err, r->errlen, "%s: byte %zu: %s", r->name, at, why);
    return -1;
}

static int expect(struct rd *r, const char *s, size_t n, const char *what)
{
    if (r->len - r->pos < n || memcmp(r->b + r->pos, s, n) != 0)
        return fail_at(r, r->pos, what);
    r->pos += n;
    return 0;
}

static bool at(const struct rd *r, const char *s, size_t n)
{
    return r->len - r->pos >= n && memcmp(r->b + r->pos, s, n) == 0;
}

static int be32(struct rd *r, uint32_t *v, const char *what)
{
    const unsigned char *b;

    if (r->len - r->pos < 4)
        return fail_at(r, r->pos, what);
    b = r->b + r->pos;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
    r->pos += 4;
    return 0;
}

/* A text field up to (not including) `stop`; the stop byte is consumed. */
static int field(struct rd *r, char stop, size_t *off, size_t *flen,
                 const char *what)
{
    size_t lim = r->len - r->pos, i;
    char msg[96];

    if (lim > LOAD_MAX_LINE + 1)
        lim = LOAD_MAX_LINE + 1;
    for (i = 0; i < lim; i++) {
        unsigned char c = r->b[r->pos + i];

        if (c == (unsigned char)stop)
            break;
        if (c == '\0')
            return fail_at(r, r->pos + i, "NUL byte in a symbol-table entry");
        if (c == '\n' || (c == '\t' && stop != '\t'))
            break;
    }
    if (i == lim && i > LOAD_MAX_LINE)
        return fail_at(r, r->pos, "symbol-table field longer than 1 MiB");
    if (i == lim || r->b[r->pos + i] != (unsigned char)stop) {
        snprintf(msg, sizeof(msg), "%s: expected %s after it", what,
                 stop == '\t' ? "a TAB" : "a newline");
        return fail_at(r, r->pos + i, msg);
    }
    *off = r->pos;
    *flen = i;
    r->pos += i + 1;
    return 0;
}

static uint32_t sym_find(const struct rd *r, uint32_t id)
{
    return idtab_find(&r->ix, util_mix64(id), NULL, NULL);
}

static int sym_add(struct rd *r, const struct sym *s)
{
    if (r->nsyms >= (1u << 28) ||
        VEC_RESERVE(r->syms, r->cap, r->nsyms + 1) < 0 ||
        idtab_insert(&r->ix, util_mix64(s->id), (uint32_t)r->nsyms) < 0)
        return -1;
    r->syms[r->nsyms++] = *s;
    return 0;
}

static int parse_symbols(struct rd *r)
{
    while (!at(r, END, sizeof(END) - 1)) {
        size_t start = r->pos, off2, len2;
        struct sym s = { .frame = PROFILE_NONE };
        uint32_t flags;
        char msg[64];

        if (r->pos == r->len)
            return fail_at(r, r->pos, "end of file inside the symbol table "
                                      "(no @end)");
        if (expect(r, "\t", 1, "expected a TAB starting a symbol-table "
                               "entry or @end") ||
            be32(r, &s.id, "truncated symbol id") ||
            expect(r, "\t", 1, "expected a TAB after the symbol id") ||
            be32(r, &flags, "truncated symbol-table entry") ||
            expect(r, "\t", 1, "expected a TAB before the symbol name") ||
            field(r, '\t', &s.name, &s.name_len, "symbol name") ||
            field(r, '\t', &s.mod, &s.mod_len, "library path") ||
            field(r, '\n', &off2, &len2, "second library path"))
            return -1;
        if (sym_find(r, s.id) != PROFILE_NONE) {
            snprintf(msg, sizeof(msg), "duplicate symbol id 0x%08x", s.id);
            return fail_at(r, start + 1, msg);
        }
        if (sym_add(r, &s) != 0)
            return fail_at(r, start, "out of memory");
    }
    r->pos += sizeof(END) - 1;
    return 0;
}

/* buf[off..off+len) as a NUL-terminated string at scratch[base], so a
 * name (base 0) and a module (after it) can be held together. */
static const char *scratch_str(struct rd *r, size_t off, size_t len,
                               size_t base)
{
    if (VEC_RESERVE(r->scratch, r->scratch_cap, base + len + 1) < 0)
        return NULL;
    memcpy(r->scratch + base, r->b + off, len);
    r->scratch[base + len] = '\0';
    return r->scratch + base;
}

/* The frame of symbol index i, interned on first use. */
static uint32_t sym_frame(struct rd *r, uint32_t i)
{
    struct sym *s = &r->syms[i];
    struct frame_desc d = { .kind = FRAME_FUNC };
    const char *name, *mod;

    if (s->frame != PROFILE_NONE)
        return s->frame;
    /* One buffer for both strings: name at 0, module after it. */
    if (!scratch_str(r, s->mod, s->mod_len, s->name_len + 1) ||
        !scratch_str(r, s->name, s->name_len, 0))
        return PROFILE_NONE;
    name = r->scratch;
    mod = r->scratch + s->name_len + 1;
    d.name = *name ? name : "[unknown]";
    d.module = *mod ? mod : NULL;
    d.kind = (uint8_t)profile_name_kind(d.name);
    d.origin = (uint8_t)profile_origin_of(d.module, NULL);
    s->frame = profile_intern_frame(r->p, &d);
    return s->frame;
}

static int hex4(struct rd *r, uint32_t *v)
{
    *v = 0;
    if (r->len - r->pos < 4)
        return fail_at(r, r->pos, "truncated thread id (expected 4 hex "
                                  "digits)");
    for (int i = 0; i < 4; i++) {
        unsigned char c = r->b[r->pos + (size_t)i];
        uint32_t d;

        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10u;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10u;
        else
            return fail_at(r, r->pos + (size_t)i,
                           "thread id is not 4 hex digits");
        *v = *v << 4 | d;
    }
    r->pos += 4;
    return 0;
}

/* The pending run of identical stack lines. */
struct run {
    size_t off;      /* offset of its frame ids */
    uint32_t n;      /* frames */
    uint64_t count;  /* lines */
    size_t at;       /* offset of its first line, for errors */
};

static int flush_run(struct rd *r, uint32_t thread, struct run *run)
{
    if (run->count == 0)
        return 0;
    for (uint32_t i = 0; i < run->n; i++) {
        const unsigned char *b = r->b + run->off + 4 * (size_t)i;
        uint32_t id = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
                      (uint32_t)b[2] << 8 | b[3];
        uint32_t s = sym_find(r, id);
        char msg[80];

        if (s == PROFILE_NONE) {
            snprintf(msg, sizeof(msg),
                     "frame id 0x%08x is not in the symbol table", id);
            return fail_at(r, run->off + 4 * (size_t)i, msg);
        }
        r->st[i] = (struct stack_frame){ .frame = sym_frame(r, s) };
        if (r->st[i].frame == PROFILE_NONE)
            return fail_at(r, run->at, "out of memory");
    }
    if (profile_add_stack(r->p, thread, r->st, run->n, run->count) != 0)
        return fail_at(r, run->at, "out of memory");
    run->count = 0;
    return 0;
}

static int parse_thread(struct rd *r)
{
    uint32_t tid, thread, hdr[3];
    struct run run = { 0 };
    size_t start;
    char tname[16];
    const char *name = tname;

    r->pos += sizeof(THREAD) - 1;
    if (hex4(r, &tid) ||
        expect(r, "\n", 1, "expected a newline after the thread id"))
        return -1;
    snprintf(tname, sizeof(tname), "Thread_%04X", tid);
    {
        uint32_t s = sym_find(r, tid);

        if (s != PROFILE_NONE && r->syms[s].name_len > 0) {
            name = scratch_str(r, r->syms[s].name, r->syms[s].name_len, 0);
            if (!name)
                return fail_at(r, r->pos, "out of memory");
        }
    }
    thread = profile_thread(r->p, tid, name);
    if (thread == PROFILE_NONE)
        return fail_at(r, r->pos, "out of memory");
    while (r->pos < r->len && r->b[r->pos] == '\t') {
        uint32_t n;

        start = r->pos++;
        if (be32(r, &hdr[0], "truncated stack line") ||
            be32(r, &hdr[1], "truncated stack line") ||
            be32(r, &hdr[2], "truncated stack line"))
            return -1;
        if (hdr[0] != 1 || hdr[1] != 0 || hdr[2] != 1)
            return fail_at(r, start + 1, "stack line does not start with "
                                         "be32 1, 0, 1");
        if (be32(r, &n, "truncated stack line (no frame count)"))
            return -1;
        if (n > LOAD_MAX_DEPTH)
            return fail_at(r, r->pos - 4, "stack deeper than 4096 frames");
        if ((r->len - r->pos) / 4 < n)
            return fail_at(r, r->pos, "truncated stack line (fewer frame "
                                      "ids than its count)");
        if (r->len - r->pos - 4 * (size_t)n < 1 ||
            r->b[r->pos + 4 * (size_t)n] != '\n')
            return fail_at(r, r->pos + 4 * (size_t)n,
                           "expected a newline after the frame ids");
        if (run.count > 0 && run.n == n &&
            memcmp(r->b + run.off, r->b + r->pos, 4 * (size_t)n) == 0) {
            run.count++;
        } else {
            if (flush_run(r, thread, &run))
                return -1;
            run = (struct run){ r->pos, n, 1, start };
        }
        r->pos += 4 * (size_t)n + 1;
    }
    return flush_run(r, thread, &run);
}

static int parse(struct rd *r)
{
    if (expect(r, MAGIC, sizeof(MAGIC) - 1,
               "not a Sampler file (expected @supersamplerV1.0)") ||
        expect(r, SYMTAB, sizeof(SYMTAB) - 1, "expected @symboltableV1.1") ||
        parse_symbols(r))
        return -1;
    for (;;) {
        if (at(r, END, sizeof(END) - 1))
            break;
        if (r->pos == r->len)
            return fail_at(r, r->pos, "end of file before the final @end");
        if (!at(r, THREAD, sizeof(THREAD) - 1))
            return fail_at(r, r->pos, "expected @threadV1.0, a stack line "
                                      "or @end");
        if (parse_thread(r))
            return -1;
    }
    r->pos += sizeof(END) - 1;
    for (size_t i = r->pos; i < r->len; i++)
        if (r->b[i] != '\n' && r->b[i] != '\r' && r->b[i] != ' ' &&
            r->b[i] != '\t')
            return fail_at(r, i, "data after the final @end");
    return 0;
}

struct profile *load_apple(const char *buf, size_t len, const char *name,
                             char *err, size_t errlen)
{
    struct rd r = {
        .b = (const unsigned char *)buf,
        .len = len,
        .name = name ? name : "<sampler>",
        .err = err,
        .errlen = errlen,
        .p = profile_new(),
        .st = malloc(LOAD_MAX_DEPTH * sizeof(*r.st)),
    };
    struct profile *res = NULL;

    if (!r.p || !r.st) {
        util_errf(err, errlen, "%s: out of memory", r.name);
        goto out;
    }
    if (parse(&r) == 0) {
        if (profile_samples(r.p) == 0) {
            /* as the other readers: nothing to show is an error */
            util_errf(err, errlen, "%s: no samples", r.name);
            goto out;
        }
        res = r.p;
        r.p = NULL;
    }
out:
    profile_free(r.p);
    free(r.st);
    free(r.syms);
    idtab_free(&r.ix);
    free(r.scratch);
    return res;
}
