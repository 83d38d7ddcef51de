/* report.c - the batch summary: header and two top-N function tables.
 *
 * Written for pipes and log files, so it is plain aligned text with no
 * truncation of names beyond the column width it computes, and percents
 * are of all samples so the two tables can be compared.
 */
#include "report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define NAME_COL_MAX 60  /* longer names overflow the column, never cut */

struct table {
    const struct profile *p;
    FILE *f;
    const struct profile_flat *rows;
    long n;          /* rows to print */
    uint64_t total;  /* all samples, the percent base */
};

/* Print s with control characters shown as '?', padded to width. */
static void put_name(FILE *f, const char *s, int width)
{
    int len = 0;

    for (; *s; s++, len++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
    for (; len < width; len++)
        fputc(' ', f);
}

static void put_location(FILE *f, const struct frame_desc *d)
{
    if (!d->module && !d->file) {
        fputc('-', f);
        return;
    }
    if (d->module)
        put_name(f, d->module, 0);
    if (d->file) {
        if (d->module)
            fputc(' ', f);
        put_name(f, d->file, 0);
        if (d->line)
            fprintf(f, ":%" PRIu32, d->line);
    }
}

static void put_table(const struct table *t, const char *title, bool by_self)
{
    int name_w = (int)strlen("function"), count_w = (int)strlen("samples");
    char digits[24];

    snprintf(digits, sizeof(digits), "%" PRIu64, t->total);
    if ((int)strlen(digits) > count_w)
        count_w = (int)strlen(digits);
    for (long i = 0; i < t->n; i++) {
        int len = (int)strlen(profile_frame(t->p, t->rows[i].frame)->name);

        if (len > name_w)
            name_w = len < NAME_COL_MAX ? len : NAME_COL_MAX;
    }
    fprintf(t->f, "\n%s\n", title);
    fprintf(t->f, "  %*s  %6s  %-*s  location\n", count_w, "samples", "%",
            name_w, "function");
    for (long i = 0; i < t->n; i++) {
        const struct frame_desc *d = profile_frame(t->p, t->rows[i].frame);
        uint64_t v = by_self ? t->rows[i].self : t->rows[i].total;

        fprintf(t->f, "  %*" PRIu64 "  %5.1f%%  ", count_w, v,
                100.0 * (double)v / (double)t->total);
        put_name(t->f, d->name, name_w);
        fputs("  ", t->f);
        put_location(t->f, d);
        fputc('\n', t->f);
    }
}


static void put_header(const struct profile *p, FILE *f)
{
    const struct profile_meta *m = profile_meta(p);
    const char *cmd = m->cmdline ? m->cmdline : m->comm;

    fputs("sproftop summary\n", f);
    if (m->pid)
        fprintf(f, "  pid:       %" PRId64 "\n", m->pid);
    else
        fputs("  pid:       -\n", f);
    fputs("  command:   ", f);
    put_name(f, cmd ? cmd : "-", 0);
    fprintf(f, "\n  samples:   %" PRIu64 "\n", profile_sample_count(p));
    fprintf(f, "  threads:   %" PRIu32 "\n", profile_thread_count(p));
    if (m->interval_ns)
        fprintf(f, "  interval:  %.4g ms (%.5g Hz)\n",
                (double)m->interval_ns / 1e6, 1e9 / (double)m->interval_ns);
    else
        fputs("  interval:  -\n", f);
    if (m->duration_ns)
        fprintf(f, "  duration:  %.3f s\n", (double)m->duration_ns / 1e9);
    else
        fputs("  duration:  -\n", f);
    fprintf(f, "  mode:      %s\n",
            m->idle ? "wall-clock (--idle)" : "on-CPU");
}

int report_write_summary(const struct profile *p, FILE *f, int top_n)
{
    struct profile_flat *flat = NULL;
    struct profile *own;
    long n, with_self = 0;

    put_header(p, f);
    /* The rows count nominal intervals (their samples, at one rate). */
    if (!(p = profile_counts(p, &own)))
        return -1;
    struct table t = { .p = p, .f = f, .total = profile_samples(p) };
    if (t.total == 0) {
        fputs("\nno samples\n", f);
        profile_free(own);
        return ferror(f) ? -1 : 0;
    }
    n = profile_flat(p, &flat);
    if (n < 0) {
        profile_free(own);
        return -1;
    }
    while (with_self < n && flat[with_self].self > 0)
        with_self++;
    t.rows = flat;
    t.n = top_n > 0 && top_n < with_self ? top_n : with_self;
    put_table(&t, "Top functions by self", true);
    profile_flat_sort_total(flat, (size_t)n);
    t.n = top_n > 0 && top_n < n ? top_n : n;
    put_table(&t, "Top functions by total", false);
    free(flat);
    profile_free(own);
    return ferror(f) ? -1 : 0;
}
