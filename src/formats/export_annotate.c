/* export_annotate.c - one function's instructions with their samples, as
 * text: the text format's --annotate NAME, for sharing what the code
 * view's annotate mode shows.
 *
 * The listing is the model's (annotate.h): every sample in the
 * function's code whichever frame named it (profile_code_counts, as perf
 * annotate counts), each run of instructions of one source line under a
 * row for that line (the line's text when its file is readable here,
 * srcfile.h), each instruction with its self samples, their share of the
 * function's, its total, address and offset; the text of an instruction
 * is the view's (annot_insn_label).  Counts are of the nominal interval
 * (export_write_counts).  The annotation comes from the caller (batch
 * mode asks the source), plain: no disassembler here.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "profile.h"
#include "srcfile.h"
#include "util.h"

/* The source files a listing quotes: one read each. */
struct files {
    const char *path[8];       /* interned in the annotation */
    struct srcfile sf[8];
    bool ok[8];
    size_t n;
};

static const char *line_text(struct files *fs, const char *path,
                             uint32_t line)
{
    char err[256];
    size_t i;

    for (i = 0; i < fs->n && fs->path[i] != path; i++)
        ;
    if (i == fs->n) {
        if (fs->n == 8)
            return NULL;
        fs->path[i] = path;
        fs->ok[i] = srcfile_load(&fs->sf[i], path, err, sizeof(err)) == 0;
        fs->n++;
    }
    return fs->ok[i] ? srcfile_line(&fs->sf[i], line) : NULL;
}

/* A source line without its tabs and leading blanks, on one row. */
static void put_source(FILE *f, const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    for (; *s; s++)
        putc_unlocked(*s == '\t' || *s == '\r' ? ' ' : *s, f);
}

static void put_row(FILE *f, const struct profile *p,
                    const struct annotation *a, const struct annot_counts *k,
                    const struct annot_row *r, struct files *fs)
{
    const struct annot_insn *in = &a->insn[r->insn];
    char self[24] = "", pct[16] = "", total[24] = "", label[512];

    if (r->self) {
        snprintf(self, sizeof(self), "%" PRIu64,
                 profile_weight_count(p, r->self));
        snprintf(pct, sizeof(pct), "%.1f%%", 100 * annot_share(k, r->self));
    }
    if (r->total)
        snprintf(total, sizeof(total), "%" PRIu64,
                 profile_weight_count(p, r->total));
    fprintf(f, "%8s %7s %8s  ", self, pct, total);
    if (r->kind == ANNOT_ROW_SOURCE) {
        const char *text = in->file ? line_text(fs, in->file, in->line)
                                    : NULL;
        fprintf(f, "%-18s %-8s %s:%" PRIu32, "", "",
                in->file ? util_basename(in->file) : "?", in->line);
        if (text) {
            fputs("  ", f);
            put_source(f, text);
        }
    } else {
        fprintf(f, "0x%016" PRIx64 " +0x%-6" PRIx64 "     %s", in->addr,
                in->addr - a->start,
                annot_insn_label(a, in, "^", "v", label, sizeof(label)));
    }
    putc_unlocked('\n', f);
}

static int write_listing(const struct profile *p, const struct export_opts *o,
                         FILE *f)
{
    const struct annotation *a = o->annotation;
    struct profile_linecount *c = NULL;
    struct annot_counts k = { 0 };
    struct annot_row *rows = NULL;
    struct files fs = { .n = 0 };
    long nc = profile_code_counts(p, a->module, a->start, a->end, &c), nr;
    int rc = -1;

    if (nc < 0 || annot_count(a, c, (size_t)nc, &k) < 0 ||
        (nr = annot_rows(a, &k, true, &rows)) < 0)
        goto out;
    fprintf(f, "sproftop annotate: %s\n", a->name);
    fprintf(f, "  module:    %s (%s)\n", a->module ? a->module : "?",
            a->path ? a->path : "?");
    fprintf(f, "  function:  0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64
            " bytes)\n", a->start, a->end, a->end - a->start);
    if (a->from != a->start || a->to != a->end)
        fprintf(f, "  shown:     0x%" PRIx64 "-0x%" PRIx64 " (%zu "
                "instructions)\n", a->from, a->to, a->n);
    else
        fprintf(f, "  shown:     all (%zu instructions)\n", a->n);
    fprintf(f, "  samples:   %" PRIu64 " in the function, %" PRIu64
            " in the profile\n", profile_weight_count(p, k.fn_self),
            profile_weight_count(p, profile_samples(p)));
    if (a->why[0])
        fprintf(f, "  note:      %s\n", a->why);
    if (k.outside && !a->unplaced)
        fprintf(f, "  not shown: %" PRIu64 " samples at addresses of the "
                "function outside the part shown\n",
                profile_weight_count(p, k.outside));
    fprintf(f, "\n%8s %7s %8s  %-18s %-8s %s\n", "Self", "Self%", "Total",
            "Address", "Offset", "Code");
    for (long i = 0; i < nr; i++)
        put_row(f, p, a, &k, &rows[i], &fs);
    rc = ferror(f) ? -1 : 0;
out:
    for (size_t i = 0; i < fs.n; i++)
        srcfile_free(&fs.sf[i]);
    free(c);
    free(rows);
    annot_counts_free(&k);
    return rc;
}

EXPORT_COUNTS_WRITER(export_annotate_write, write_listing)
