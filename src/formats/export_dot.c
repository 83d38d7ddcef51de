/* export_dot.c - a graphviz call graph in stackprof's style (FORMATS.md
 * section 7).  `dot -Tsvg x.dot > x.svg` draws it.
 *
 *   digraph profile {
 *   Legend [shape=plaintext,fontsize=24,label="..."];
 *     "1" [shape=box] [fontsize=..] [penwidth=".."] [tooltip=".."]
 *         [label="main\n0 (0.0%)\rof 6 (100.0%)\r"];
 *     "1" -> "2" [label="4"] [weight="4"] [penwidth=".."];
 *   }
 *
 * One node per function over all threads: self then total samples with
 * their share of all samples.  Ids are "1", "2"... in first-use order (as
 * in the stackprof JSON).  An edge's weight is the number of samples
 * whose stack holds that call, counted once per sample.  Like `stackprof
 * --graphviz`, the graph keeps the 120 functions with the most total
 * samples that have at least 0.5% of them, and the edges between kept
 * nodes that carry at least 0.1% of the samples (as gprof2dot does: a
 * dense graph takes dot minutes to lay out); the legend says so, and
 * names the command, pid and interval.
 * The tooltip (shown by SVG viewers) carries module and file:line.
 *
 * Strings are written inside double quotes with '"' and '\' escaped;
 * control characters become spaces, invalid UTF-8 bytes U+FFFD.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

#define DOT_MAX_NODES 120
#define DOT_MIN_PERMILLE 5  /* nodes: 0.5% of all samples */
#define DOT_EDGE_PERMILLE 1 /* edges: 0.1%; dot needs minutes to lay out
                               a dense graph of 120 nodes, and rare calls
                               add nothing to read */

/* The inside of a dot "string". */
static void dot_text(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    const unsigned char *end = s + strlen(str);

    while (s < end) {
        size_t n = util_utf8_decode(s, (size_t)(end - s), NULL);

        if (n == 0) {
            fputs("\xef\xbf\xbd", f);
            s++;
        } else if (*s == '"' || *s == '\\') {
            putc('\\', f);
            putc(*s++, f);
        } else if (*s < 0x20 || *s == 0x7f) {
            putc(' ', f);
            s++;
        } else {
            fwrite(s, 1, n, f);
            s += n;
        }
    }
}

static double pct(uint64_t n, uint64_t all)
{
    return all ? 100.0 * (double)n / (double)all : 0.0;
}

static void write_legend(FILE *f, const struct profile *p, long shown,
                         uint64_t minimum, uint64_t edge_minimum)
{
    const struct profile_meta *m = profile_meta(p);

    fputs("Legend [shape=plaintext,fontsize=24,label=\"", f);
    if (m->cmdline || m->comm) {
        dot_text(f, m->cmdline ? m->cmdline : m->comm);
        char pids[256];
        size_t np = profile_pid_list(p, pids, sizeof pids);
        if (np)
            fprintf(f, " (%s %s)", np > 1 ? "pids" : "pid", pids);
        fputs("\\l", f);
    }
    fprintf(f, "Total samples: %" PRIu64 "\\l", profile_samples(p));
    if (m->interval_ns)
        fprintf(f, "Interval: %.3f ms (%s)\\l", (double)m->interval_ns / 1e6,
                m->idle ? "wall clock" : "on CPU");
    fprintf(f, "Showing top %d nodes, %ld shown\\l", DOT_MAX_NODES, shown);
    fprintf(f, "Dropped nodes with < %" PRIu64 " samples\\l", minimum);
    fprintf(f, "Dropped edges with < %" PRIu64 " samples\\l", edge_minimum);
    fputs("\"];\n", f);
}

static int write_dot(const struct profile *p, const struct export_opts *o,
                     FILE *f)
{
    uint64_t all = profile_samples(p);
    uint64_t minimum = (all * DOT_MIN_PERMILLE + 999) / 1000;
    uint64_t edge_minimum = (all * DOT_EDGE_PERMILLE + 999) / 1000;
    uint32_t *id_of = calloc(profile_frame_count(p) + 1, sizeof(*id_of));
    bool *shown = calloc(profile_frame_count(p) + 1, sizeof(*shown));
    struct profile_flat *flat = NULL;
    struct profile_edge *edges = NULL;
    long nflat = profile_flat(p, &flat), nedges = profile_edges(p, &edges);
    long nshown = 0;
    int rc = -1;

    (void)o;
    if (!id_of || !shown || nflat < 0 || nedges < 0)
        goto out;
    /* node ids from 1, by first use */
    for (long i = 0; i < nflat; i++)
        id_of[flat[i].frame] = flat[i].first + 1;
    profile_flat_sort_total(flat, (size_t)nflat);
    while (nshown < nflat && nshown < DOT_MAX_NODES &&
           flat[nshown].total >= minimum)
        nshown++;

    fputs("digraph profile {\n", f);
    write_legend(f, p, nshown, minimum, edge_minimum);
    for (long i = 0; i < nshown; i++) {
        const struct profile_flat *fl = &flat[i];
        const struct frame_desc *d = profile_frame(p, fl->frame);
        double size = (double)fl->total / (double)all * 2.0 + 0.5;
        double font = (double)fl->self / (double)all * 28.0 + 10.0;

        shown[fl->frame] = true;
        fprintf(f, "  \"%" PRIu32 "\" [shape=box] [fontsize=%.1f] "
                   "[penwidth=\"%.2f\"] [tooltip=\"",
                id_of[fl->frame], font, size);
        dot_text(f, d->module ? d->module : "?");
        export_put_place(f, d, " ", "", dot_text);
        fputs("\"] [label=\"", f);
        dot_text(f, *d->name ? d->name : "[unknown]");
        fprintf(f, "\\n%" PRIu64 " (%.1f%%)\\rof %" PRIu64 " (%.1f%%)\\r\"];\n",
                fl->self, pct(fl->self, all), fl->total, pct(fl->total, all));
    }
    for (long i = 0; i < nedges; i++) {
        const struct profile_edge *e = &edges[i];

        if (e->caller == PROFILE_NONE || !shown[e->caller] ||
            !shown[e->callee] || e->samples < edge_minimum)
            continue;
        fprintf(f, "  \"%" PRIu32 "\" -> \"%" PRIu32 "\" [label=\"%" PRIu64
                   "\"] [weight=\"%" PRIu64 "\"] [penwidth=\"%.2f\"];\n",
                id_of[e->caller], id_of[e->callee], e->samples,
                e->samples, (double)e->samples / (double)all * 2.0 + 0.5);
    }
    fputs("}\n", f);
    rc = ferror(f) ? -1 : 0;
out:
    free(id_of);
    free(shown);
    free(flat);
    free(edges);
    return rc;
}

EXPORT_COUNTS_WRITER(export_dot_write, write_dot)
