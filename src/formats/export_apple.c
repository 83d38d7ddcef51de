/* export_apple.c - Apple Sampler "@supersamplerV1.0" (FORMATS.md section 5).
 *
 * A mixed text and binary format that nothing on Linux reads, so sproftop
 * ships its own reader (load_apple.c) and the test is the round trip:
 * write -> load_apple -> write gives the same bytes.
 *
 *   "@supersamplerV1.0" LF "@symboltableV1.1" LF
 *   ( TAB be32<id> TAB be32<0> TAB symbol TAB module TAB module LF )*
 *   "@end" LF
 *   ( "@threadV1.0" TAB hex4<thread-id> LF
 *     ( TAB be32<1> be32<0> be32<1> be32<nframes> be32<id>*nframes LF )* )*
 *   "@end" LF
 *
 * Choices this writer makes (the reader relies on none of them but the
 * frame order):
 *   - Frames of a stack line are root first (bottom of the stack first,
 *     the leaf last), as in shared/formats/example.sampler.
 *   - One line is one sample: a stack seen N times is written N times.
 *   - Symbol ids are given in first-use order from 0x100, skipping ids
 *     with a TAB or LF byte and ids taken by threads.  Frames whose
 *     written name and module are the same share one id (the format has
 *     no source file), so write -> read -> write is the identity.
 *   - Thread ids are 16-bit and are symbol-table entries too ("Thread_
 *     XXXX", three times, after the functions).  A tid that fits and whose
 *     two bytes are neither TAB nor LF is kept; others (Linux tids beyond
 *     65535) are remapped to the lowest free such id from 1, in thread
 *     order.  Threads with no samples still get their @threadV1.0 line.
 *   - Names: TAB, LF and CR become spaces (they delimit fields); an empty
 *     name becomes "[unknown]"; a missing module is an empty field.
 *
 * What the format cannot carry: source files and lines, thread names, the
 * metadata (pid, command line, interval, duration).
 */
#include "export.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "strarena.h"
#include "vec.h"

#define SYM_FIRST 0x100u      /* first function id, as the spec suggests */
#define TID_LIMIT 0x10000u    /* thread ids are hex4 */

/* A byte that would read as a field or line separator. */
static bool bad_byte(uint32_t b)
{
    return b == '\t' || b == '\n';
}

static bool id_safe(uint32_t id)
{
    return !bad_byte(id & 0xff) && !bad_byte(id >> 8 & 0xff) &&
           !bad_byte(id >> 16 & 0xff) && !bad_byte(id >> 24);
}

struct apple_ctx {
    const struct profile *p;
    FILE *f;
    uint32_t *sym_of;     /* frame id -> symbol index, or PROFILE_NONE */
    struct strarena syms; /* "name\tmodule" as written, by symbol index */
    uint32_t *sym_id;     /* symbol index -> symbol id in the file */
    size_t sym_id_cap;
    char *text;           /* scratch for one symbol's text */
    size_t text_cap;
    uint8_t *tid_used;    /* bitmap over 16-bit ids taken by threads */
    uint32_t *tid_of;     /* thread index -> written id */
    uint32_t next_id;     /* next candidate symbol id */
    uint32_t next_thread; /* pass 2: threads whose header is written */
    uint8_t *line;        /* pass 2: one stack line */
    size_t line_cap;
};

static void put_be32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

static void fput_be32(FILE *f, uint32_t v)
{
    uint8_t b[4];

    put_be32(b, v);
    fwrite(b, 1, 4, f);
}

/* Append s to out with TAB/LF/CR as spaces; returns bytes written. */
static size_t sanitize(char *out, const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        out[n++] = (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s;
    return n;
}

static bool tid_taken(const struct apple_ctx *c, uint32_t id)
{
    return c->tid_used[id >> 3] & (1u << (id & 7));
}

static void take_tid(struct apple_ctx *c, uint32_t id)
{
    c->tid_used[id >> 3] |= (uint8_t)(1u << (id & 7));
}

static uint32_t next_symbol_id(struct apple_ctx *c)
{
    while (!id_safe(c->next_id) ||
           (c->next_id < TID_LIMIT && tid_taken(c, c->next_id)))
        c->next_id++;
    return c->next_id++;
}

/* The symbol index of frame `frame`: frames with the same name and
 * module (as written) share one symbol, created on first use. */
static uint32_t frame_sym(struct apple_ctx *c, uint32_t frame)
{
    const struct frame_desc *d;
    const char *name, *module;
    size_t len, nsyms = c->syms.nstr;
    uint32_t idx;

    if (c->sym_of[frame] != PROFILE_NONE)
        return c->sym_of[frame];
    d = profile_frame(c->p, frame);
    name = *d->name ? d->name : "[unknown]";
    module = d->module ? d->module : "";
    if (VEC_RESERVE(c->text, c->text_cap,
                    strlen(name) + strlen(module) + 2) < 0)
        return PROFILE_NONE;
    len = sanitize(c->text, name);
    c->text[len++] = '\t';
    len += sanitize(c->text + len, module);
    idx = strarena_intern_id(&c->syms, c->text, len);
    if (idx == UINT32_MAX)
        return PROFILE_NONE;
    if (idx == nsyms) {  /* a new symbol: give it an id */
        if (c->next_id == 0) {  /* wrapped: more symbols than 32-bit ids */
            errno = EOVERFLOW;
            return PROFILE_NONE;
        }
        if (VEC_RESERVE(c->sym_id, c->sym_id_cap, nsyms + 1) < 0)
            return PROFILE_NONE;
        c->sym_id[idx] = next_symbol_id(c);
    }
    return c->sym_of[frame] = idx;
}

/* Symbols in the order stacks first use their frames. */
static int assign_symbols(struct apple_ctx *c)
{
    uint32_t *order;
    long n = profile_first_use(c->p, &order, NULL), i = 0;

    while (i < n && frame_sym(c, order[i]) != PROFILE_NONE)
        i++;
    free(order);
    return n >= 0 && i == n ? 0 : -1;
}

/* Thread ids: keep those that fit, then remap the rest. */
static int assign_threads(struct apple_ctx *c)
{
    uint32_t nt = profile_thread_count(c->p), next = 1;

    for (uint32_t i = 0; i < nt; i++) {
        int64_t tid = profile_thread_at(c->p, i)->tid;

        c->tid_of[i] = PROFILE_NONE;
        if (tid >= 0 && tid < TID_LIMIT && id_safe((uint32_t)tid) &&
            !tid_taken(c, (uint32_t)tid)) {
            c->tid_of[i] = (uint32_t)tid;
            take_tid(c, (uint32_t)tid);
        }
    }
    for (uint32_t i = 0; i < nt; i++) {
        if (c->tid_of[i] != PROFILE_NONE)
            continue;
        while (next < TID_LIMIT && (!id_safe(next) || tid_taken(c, next)))
            next++;
        if (next >= TID_LIMIT) {
            errno = EOVERFLOW;  /* more than ~60000 threads */
            return -1;
        }
        c->tid_of[i] = next;
        take_tid(c, next);
    }
    return 0;
}

/* Write @threadV1.0 headers up to and including thread `upto`. */
static void thread_headers(struct apple_ctx *c, uint32_t upto)
{
    uint32_t nt = profile_thread_count(c->p);

    while (c->next_thread <= upto && c->next_thread < nt) {
        fprintf(c->f, "@threadV1.0\t%04X\n", c->tid_of[c->next_thread]);
        c->next_thread++;
    }
}

static int write_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t count)
{
    struct apple_ctx *c = ctx;
    size_t len = 1 + 16 + 4 * n + 1;

    thread_headers(c, thread);
    if (VEC_RESERVE(c->line, c->line_cap, len) < 0)
        return -1;
    c->line[0] = '\t';
    put_be32(c->line + 1, 1);
    put_be32(c->line + 5, 0);
    put_be32(c->line + 9, 1);
    put_be32(c->line + 13, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        put_be32(c->line + 17 + 4 * i, c->sym_id[c->sym_of[frames[i]]]);
    c->line[len - 1] = '\n';
    for (uint64_t k = 0; k < count; k++)
        if (fwrite(c->line, 1, len, c->f) != len)
            return -1;
    return 0;
}

static int write_apple(const struct profile *p, const struct export_opts *o,
                       FILE *f)
{
    uint32_t nf = profile_frame_count(p), nt = profile_thread_count(p);
    struct apple_ctx c = {
        .p = p,
        .f = f,
        .sym_of = malloc((nf ? nf : 1) * sizeof(*c.sym_of)),
        .tid_used = calloc(TID_LIMIT / 8, 1),
        .tid_of = malloc((nt ? nt : 1) * sizeof(*c.tid_of)),
        .next_id = SYM_FIRST,
    };
    int rc = -1;

    (void)o;
    if (!c.sym_of || !c.tid_used || !c.tid_of)
        goto out;
    memset(c.sym_of, 0xff, (nf ? nf : 1) * sizeof(*c.sym_of));
    if (assign_threads(&c) != 0 || assign_symbols(&c) != 0)
        goto out;

    fputs("@supersamplerV1.0\n@symboltableV1.1\n", f);
    for (uint32_t i = 0; i < c.syms.nstr; i++) {
        const char *text = strarena_str(&c.syms, i);

        putc('\t', f);
        fput_be32(f, c.sym_id[i]);
        putc('\t', f);
        fput_be32(f, 0);
        fprintf(f, "\t%s\t%s\n", text, strchr(text, '\t') + 1);
    }
    for (uint32_t i = 0; i < nt; i++) {
        putc('\t', f);
        fput_be32(f, c.tid_of[i]);
        putc('\t', f);
        fput_be32(f, 0);
        fprintf(f, "\tThread_%04X\tThread_%04X\tThread_%04X\n", c.tid_of[i],
                c.tid_of[i], c.tid_of[i]);
    }
    fputs("@end\n", f);
    if (profile_foreach_stack(p, write_stack, &c) != 0)
        goto out;
    thread_headers(&c, nt);
    fputs("@end\n", f);
    rc = ferror(f) ? -1 : 0;
out:
    strarena_free(&c.syms);
    free(c.sym_id);
    free(c.text);
    free(c.sym_of);
    free(c.tid_used);
    free(c.tid_of);
    free(c.line);
    return rc;
}

EXPORT_COUNTS_WRITER(export_apple_write, write_apple)
