/* annotate.c - a function's code and its samples per instruction; see
 * annotate.h. */
#include "annotate.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sorted.h"
#include "vec.h"
#include "sorted.h"

struct annotation *annotation_new(void)
{
    return calloc(1, sizeof(struct annotation));
}

void annotation_free(struct annotation *a)
{
    if (!a)
        return;
    free(a->insn);
    strarena_free(&a->strings);
    free(a);
}

const char *annotation_str(struct annotation *a, const char *s)
{
    return s ? strarena_intern(&a->strings, s, strlen(s)) : NULL;
}

void annotation_why(struct annotation *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(a->why, sizeof(a->why), fmt, ap);
    va_end(ap);
}

int annotation_add(struct annotation *a, const struct annot_insn *in)
{
    struct annot_insn c = *in;

    if (VEC_RESERVE(a->insn, a->cap, a->n + 1) < 0)
        return -1;
    c.text = annotation_str(a, in->text ? in->text : "");
    c.file = annotation_str(a, in->file);
    c.inlined = annotation_str(a, in->inlined);
    c.target_name = annotation_str(a, in->target_name);
    if (!c.text || (in->file && !c.file) || (in->inlined && !c.inlined) ||
        (in->target_name && !c.target_name))
        return -1;
    a->insn[a->n++] = c;
    return 0;
}

size_t annotation_find(const struct annotation *a, uint64_t addr)
{
    size_t i = sorted_upper_bound(a->insn, a->n, sizeof(*a->insn),
                                  offsetof(struct annot_insn, addr), addr);

    /* insn[i - 1] is the last that starts at or before addr */
    if (i > 0 && addr - a->insn[i - 1].addr < a->insn[i - 1].len)
        return i - 1;
    return SIZE_MAX;
}

int annot_request_init(struct annot_request *rq, const struct profile *p,
                       uint32_t frame, const struct profile_linecount *c,
                       size_t n, uint64_t **addrs)
{
    const struct frame_desc *d = profile_frame(p, frame);
    uint64_t best = 0;

    *rq = (struct annot_request){ .frame = d ? *d : (struct frame_desc){
                                      .name = "?", .kind = FRAME_SPECIAL } };
    *addrs = malloc((n ? n : 1) * sizeof(**addrs));
    if (!*addrs)
        return -1;
    for (size_t i = 0; i < n; i++) {
        (*addrs)[i] = c[i].key;
        if (c[i].self > best) {
            best = c[i].self;
            rq->focus = c[i].key;
        }
    }
    rq->addrs = *addrs;
    rq->naddrs = n;
    return 0;
}

int annot_count(const struct annotation *a, const struct profile_linecount *c,
                size_t n, struct annot_counts *out)
{
    size_t m = a->n ? a->n : 1;

    *out = (struct annot_counts){ 0 };
    for (size_t i = 0; i < n; i++)
        out->fn_self += c[i].self;
    out->self = calloc(m, sizeof(*out->self));
    out->total = calloc(m, sizeof(*out->total));
    if (!out->self || !out->total) {
        annot_counts_free(out);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = annotation_find(a, c[i].key);
        /* A return address: the call is the instruction before it. */
        size_t call = c[i].key ? annotation_find(a, c[i].key - 1) : SIZE_MAX;
        uint64_t below = c[i].total > c[i].self ? c[i].total - c[i].self : 0;

        if (a->unplaced)
            at = call = SIZE_MAX;
        if (at != SIZE_MAX) {
            out->self[at] += c[i].self;
            out->total[at] += c[i].self;
        } else {
            out->outside += c[i].self;
        }
        if (call != SIZE_MAX)
            out->total[call] += below;
    }
    return 0;
}

void annot_counts_free(struct annot_counts *k)
{
    free(k->self);
    free(k->total);
    k->self = k->total = NULL;
}

double annot_share(const struct annot_counts *k, uint64_t w)
{
    return k->fn_self ? (double)w / (double)k->fn_self : 0;
}

/* The same file:line (files are interned: one pointer per name). */
static bool same_line(const struct annot_insn *x, const struct annot_insn *y)
{
    return x->line == y->line && x->file == y->file;
}

struct line_sum {
    const char *file;
    uint32_t line;
    uint32_t first;        /* an instruction of it */
    uint64_t self, total;
};

static int cmp_line_sum(const void *pa, const void *pb)
{
    const struct line_sum *a = pa, *b = pb;

    if (a->file != b->file)
        return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Sum per file:line over every instruction: sorted (file, line) keys. */
static struct line_sum *line_sums(const struct annotation *a,
                                  const struct annot_counts *k, size_t *nout)
{
    struct line_sum *v = malloc((a->n ? a->n : 1) * sizeof(*v));
    size_t n = 0;

    if (!v)
        return NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->insn[i].line)
            v[n++] = (struct line_sum){ a->insn[i].file, a->insn[i].line,
                                        (uint32_t)i, k->self[i],
                                        k->total[i] };
    sorted_sort(v, n, sizeof(*v), cmp_line_sum);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (o && cmp_line_sum(&v[o - 1], &v[i]) == 0) {
            v[o - 1].self += v[i].self;
            v[o - 1].total += v[i].total;
        } else {
            v[o++] = v[i];
        }
    }
    *nout = o;
    return v;
}

long annot_rows(const struct annotation *a, const struct annot_counts *k,
                bool source, struct annot_row **out)
{
    struct line_sum *sums = NULL;
    size_t nsums = 0, n = 0, cap = 0;
    struct annot_row *rows = NULL;

    *out = NULL;
    if (source && !(sums = line_sums(a, k, &nsums)))
        return -1;
    for (size_t i = 0; i < a->n; i++) {
        const struct annot_insn *in = &a->insn[i];
        bool head = source && in->line &&
                    (i == 0 || !same_line(&a->insn[i - 1], in));

        if (VEC_RESERVE(rows, cap, n + 2) < 0) {
            free(rows);
            free(sums);
            return -1;
        }
        if (head) {
            struct line_sum key = { .file = in->file, .line = in->line };
            const struct line_sum *s = bsearch(&key, sums, nsums,
                                               sizeof(*sums), cmp_line_sum);

            rows[n++] = (struct annot_row){ ANNOT_ROW_SOURCE, (uint32_t)i,
                                            s ? s->self : 0,
                                            s ? s->total : 0 };
        }
        rows[n++] = (struct annot_row){ ANNOT_ROW_INSN, (uint32_t)i,
                                        k->self[i], k->total[i] };
    }
    free(sums);
    *out = rows;
    return (long)n;
}

static int cmp_hot(const void *pa, const void *pb, void *ctx)
{
    const struct annot_counts *k = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

    if (k->self[a] != k->self[b])
        return k->self[a] > k->self[b] ? -1 : 1;
    return (a > b) - (a < b);
}

long annot_hot_order(const struct annotation *a, const struct annot_counts *k,
                     uint32_t **out)
{
    uint32_t *v = malloc((a->n ? a->n : 1) * sizeof(*v));
    size_t n = 0;

    *out = NULL;
    if (!v)
        return -1;
    for (size_t i = 0; i < a->n; i++)
        if (k->self[i])
            v[n++] = (uint32_t)i;
    sorted_sort_r(v, n, sizeof(*v), cmp_hot, (void *)k);
    *out = v;
    return (long)n;
}

const char *annot_offset(const struct annotation *a, uint64_t t, char *buf,
                         size_t n)
{
    if (t < a->start || t >= a->end)
        return NULL;
    snprintf(buf, n, "+0x%" PRIx64, t - a->start);
    return buf;
}

const char *annot_insn_label(const struct annotation *a,
                             const struct annot_insn *in, const char *up,
                             const char *down, char *buf, size_t n)
{
    char off[32];
    int mn = (int)strcspn(in->text, " ");
    const char *ops = in->text[mn] ? in->text + mn + 1 : "";
    int w;

    if (in->target && in->kind == ANNOT_JUMP &&
        annot_offset(a, in->target, off, sizeof(off)))
        w = snprintf(buf, n, "%-6.*s %s %s", mn, in->text,
                     in->target <= in->addr ? up : down, off);
    else if (in->target && in->target_name)
        w = snprintf(buf, n, "%-6.*s %s", mn, in->text, in->target_name);
    else
        w = snprintf(buf, n, "%-6.*s %s", mn, in->text, ops);
    if (in->inlined && w >= 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, "   inlined: %s", in->inlined);
    return buf;
}

uint32_t annot_function(const struct profile *p, const char *name)
{
    struct profile_flat *flat = NULL;
    long n = profile_flat(p, &flat);
    uint32_t best = PROFILE_NONE;
    uint64_t most = 0;

    for (long i = 0; i < n; i++) {
        const struct frame_desc *d = profile_frame(p, flat[i].frame);
        if (d->kind == FRAME_FUNC && strcmp(d->name, name) == 0 &&
            (best == PROFILE_NONE || flat[i].total > most)) {
            best = flat[i].frame;
            most = flat[i].total;
        }
    }
    free(flat);
    return best;
}
