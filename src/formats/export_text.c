/* export_text.c - the Racket-style text report (FORMATS.md section 7).
 *
 * The call graph laid out as Racket's profiler prints it (profile-lib's
 * text renderer), so that shared/formats/racket-text.expected, Racket
 * 8.7's own output for the example profile, is reproduced byte for byte:
 *
 *   - a header: total time, sample count and interval, the number of
 *     threads with samples (when more than one), then (not in Racket's
 *     report) the command, pid and duration when known, and how many
 *     functions are hidden;
 *   - a table whose columns are as wide as their widest cell, framed by
 *     '=' rules, with one block per function ended by a '-' rule: caller
 *     lines ("name [N]  Local%"), the function line ("[N] total(pct)
 *     self(pct) name src") and callee lines.
 *
 * The graph, its order and its hiding are racket_graph.h's: one node per
 * function over all threads, the edges of profile_edges with Racket's
 * caller and callee times (so Local%, edge time / node total, stays
 * honest under recursion), the model's hide rule (export_opts hide_self
 * and hide_subs, in percent), the one the TUI's views apply too, and
 * Racket's topological order.  The Racket JSON writer writes the same
 * graph, so Racket's own renderer prints this report from it.
 *
 * Times are weights in ms (profile.h: the time each sample stands for,
 * the interval of a file of counts), rounded half to even as Racket's
 * exact arithmetic does; with no known interval a sample counts 1 ms.
 * The sample count is the samples taken (profile_sample_count), each
 * once every total / count ms: the interval, sampled at one rate.
 * Sources read "file:line:0" (the function's first line), and
 * "(unknown source)" without a file and a line, as Racket's renderer
 * prints a source it cannot place (a srcloc needs a line: the Racket JSON
 * writer writes none, so Racket prints this same report); names lose
 * control characters (one row per line).  Widths count UTF-8 characters.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "racket_graph.h"
#include "text_table.h"
#include "util.h"

#define TRUNCATE_SOURCE 50  /* Racket's #:truncate-source default */
/* Characters of a name in the caller and callee column, "..." included:
 * every row of the table is padded to its widest cell, so one name of
 * 10,000 characters made each row and rule as wide (60 MB of report
 * from 35 KB of profile).  The node's own row, the last column and not
 * padded, keeps the whole name; the TUI cuts names to the screen too. */
#define SUB_NAME_MAX 100
#define EPS 1e-9            /* float slack where Racket is exact */

/* --- numbers formatted as Racket does ---------------------------------- */

/* Round half to even: Racket rounds exact rationals so.  x >= 0. */
static uint64_t round_even(double x)
{
    uint64_t fl = (uint64_t)x;
    double frac = x - (double)fl;

    if (frac > 0.5 - EPS && frac < 0.5 + EPS)
        return fl + (fl & 1);
    return frac > 0.5 ? fl + 1 : fl;
}

/* Racket's format-percent: num/den as "66.7%", rounded half to even
 * (0 when den is 0); not the views' padded fmt_pct. */
static void format_percent(char *out, size_t cap, double num, double den)
{
    uint64_t p = den > 0 && num > 0 ? round_even(num * 1000.0 / den) : 0;

    snprintf(out, cap, "%" PRIu64 ".%" PRIu64 "%%", p / 10, p % 10);
}

/* f:msec: milliseconds rounded to an integer. */
static void fmt_ms(char *out, size_t cap, double ms)
{
    snprintf(out, cap, "%" PRIu64, ms > 0 ? round_even(ms) : 0);
}

/* --- labels ------------------------------------------------------------ */

/* Append s to buf without control characters; returns the new length. */
static size_t put_clean(char *buf, size_t len, const char *s)
{
    for (; *s; s++)
        buf[len++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s;
    return len;
}

/* "name src", the source truncated from the left as Racket's
 * #:truncate-source does.  Returns a malloc'd string. */
static char *name_src(const struct frame_desc *d)
{
    char lineno[16] = "";
    /* a source Racket can hold: a file and a line (srcloc's line is a
     * positive number), so that its renderer, fed our JSON, prints this */
    const char *where = d->file && d->line ? d->file : NULL;
    size_t cap = strlen(d->name) + (where ? strlen(where) : 0) + 64;
    char *src = malloc(cap), *out = malloc(cap);
    size_t slen = 0, nlen, schars, nchars;
    long n;

    if (!src || !out) {
        free(src);
        free(out);
        return NULL;
    }
    if (where)
        snprintf(lineno, sizeof(lineno), ":%" PRIu32 ":0", d->line);
    if (where) {
        slen = put_clean(src, 0, where);
        slen = put_clean(src, slen, lineno);
    } else {
        slen = put_clean(src, 0, "(unknown source)");
    }
    nlen = put_clean(out, 0, *d->name ? d->name : "???");
    out[nlen++] = ' ';
    schars = util_utf8_count(src, slen);
    nchars = util_utf8_count(out, nlen - 1);
    n = (long)(schars + nchars + 1) - TRUNCATE_SOURCE;
    if (n > 0) {
        n = (long)schars - n - 3;
        memcpy(out + nlen, "...", 3);
        nlen += 3;
        if (n > 0) {
            /* keep the last n characters of src */
            size_t i = slen;
            long k = 0;

            while (i > 0 && k < n) {
                i--;
                if (((unsigned char)src[i] & 0xc0) != 0x80)
                    k++;
            }
            memcpy(out + nlen, src + i, slen - i);
            nlen += slen - i;
        }
    } else {
        memcpy(out + nlen, src, slen);
        nlen += slen;
    }
    out[nlen] = '\0';
    free(src);
    return out;
}

/* Cut the name at s[from..*len) to SUB_NAME_MAX characters, "..." at the
 * end, on a character boundary. */
static void cut_name(char *s, size_t from, size_t *len)
{
    size_t i = from, k = 0;

    if (util_utf8_count(s + from, *len - from) <= SUB_NAME_MAX)
        return;
    while (k < SUB_NAME_MAX - 3) {
        i++;
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            k++;
    }
    memcpy(s + i, "...", 3);
    *len = i + 3;
}

/* "  name [N]" for caller and callee lines. */
static void sub_row(struct text_table *t, const struct racket_graph *g,
                    uint32_t node, double time, double total)
{
    const struct rg_node *n = &g->nodes[node];
    const char *name = profile_frame(g->p, n->frame)->name;
    size_t cap = strlen(name) + 32, len;
    char *s = malloc(cap), pct[32];

    if (!s) {
        t->oom = true;
        return;
    }
    len = put_clean(s, 0, "  ");
    len = put_clean(s, len, *name ? name : "???");
    cut_name(s, 2, &len);
    len += (size_t)snprintf(s + len, cap - len, " [%" PRIu32 "]", n->label);
    text_table_begin(t);
    for (int i = 0; i < 8; i++)
        text_table_cell(t, "");
    text_table_cell_n(t, TEXT_CELL_STR, s, len);
    format_percent(pct, sizeof(pct), time, total);
    text_table_cell(t, pct);
    text_table_cell(t, "");
    text_table_cell(t, "");
    text_table_end(t);
    free(s);
}

/* The caller lines (callers = true: by caller time, smallest first, as
 * Racket prints its list in reverse) or the callee lines (by callee
 * time, largest first) of a node. */
static void edge_rows(struct text_table *t, const struct racket_graph *g,
                      const struct rg_node *n, bool callers)
{
    const uint32_t *list = callers ? n->callers : n->callees;
    uint32_t len = callers ? n->ncallers : n->ncallees;

    for (uint32_t k = 0; k < len; k++) {
        const struct rg_edge *e = &g->edges[list[callers ? len - 1 - k : k]];
        uint32_t other = callers ? e->caller : e->callee;

        if (!g->nodes[other].hidden)
            sub_row(t, g, other, callers ? e->caller_time : e->callee_time,
                    (double)n->total);
    }
}

/* "[N] total(pct) self(pct) name src". */
static int node_row(struct text_table *t, const struct racket_graph *g,
                    const struct rg_node *n, double interval_ms)
{
    char idx[24], tot[32], totp[40], self[32], selfp[40], pct[32];
    char *label = name_src(profile_frame(g->p, n->frame));

    if (!label)
        return -1;
    snprintf(idx, sizeof(idx), "[%" PRIu32 "]", n->label);
    fmt_ms(tot, sizeof(tot), (double)n->total * interval_ms);
    format_percent(pct, sizeof(pct), (double)n->total, (double)g->samples);
    snprintf(totp, sizeof(totp), "(%s)", pct);
    fmt_ms(self, sizeof(self), (double)n->self * interval_ms);
    format_percent(pct, sizeof(pct), (double)n->self, (double)g->samples);
    snprintf(selfp, sizeof(selfp), "(%s)", pct);
    text_table_begin(t);
    text_table_cell(t, idx);
    text_table_cell(t, " ");
    text_table_cell(t, tot);
    text_table_cell(t, totp);
    text_table_cell(t, " ");
    text_table_cell(t, self);
    text_table_cell(t, selfp);
    text_table_cell(t, " ");
    text_table_cell_n(t, TEXT_CELL_NOWIDTH, label, strlen(label));
    text_table_end(t);
    free(label);
    return 0;
}

static int node_block(struct text_table *t, const struct racket_graph *g,
                      uint32_t node, double interval_ms)
{
    const struct rg_node *n = &g->nodes[node];

    edge_rows(t, g, n, true);
    if (node_row(t, g, n, interval_ms) != 0)
        return -1;
    edge_rows(t, g, n, false);
    text_table_rule(t, '-', 10);
    return t->oom ? -1 : 0;
}

static void write_header(FILE *f, const struct racket_graph *g,
                         double interval_ms, const struct export_opts *o)
{
    const struct profile_meta *m = profile_meta(g->p);
    uint32_t nthreads = 0, nhidden = g->nhidden;
    char total[32], gran[32], a[32], b[32];

    for (uint32_t i = 0; i < profile_thread_count(g->p); i++)
        nthreads += profile_thread_samples(g->p, i) > 0;
    uint64_t taken = profile_sample_count(g->p);
    double total_ms = (double)g->samples * interval_ms;

    fmt_ms(total, sizeof(total), total_ms);
    fmt_ms(gran, sizeof(gran),
           !taken ? 0
           : taken == g->samples ? interval_ms : total_ms / (double)taken);
    fprintf(f, "Profiling results\n-----------------\n");
    fprintf(f, "  Total cpu time observed: %sms (out of %sms)\n", total, total);
    fprintf(f, "  Number of samples taken: %" PRIu64 " (once every %sms)\n",
            taken, gran);
    if (nthreads > 1)
        fprintf(f, "  Threads observed:        %" PRIu32 "\n", nthreads);
    /* Not in Racket's header: what sproftop knows of the run. */
    if (m->cmdline || m->comm || m->pid) {
        char *cmd = malloc(strlen(m->cmdline ? m->cmdline
                                  : m->comm ? m->comm : "?") + 1);

        if (cmd) {
            cmd[put_clean(cmd, 0, m->cmdline ? m->cmdline
                                  : m->comm ? m->comm : "?")] = '\0';
            fprintf(f, "  Command:                 %s", cmd);
            free(cmd);
        }
        char pids[256];
        size_t np = profile_pid_list(g->p, pids, sizeof pids);
        if (np)
            fprintf(f, " (%s %s)", np > 1 ? "pids" : "pid", pids);
        putc('\n', f);
    }
    if (m->duration_ns)
        fprintf(f, "  Wall-clock duration:     %.3f s (%s)\n",
                (double)m->duration_ns / 1e9,
                m->idle ? "all threads sampled" : "on-CPU threads sampled");
    if (nhidden) {
        format_percent(a, sizeof(a), o->hide_self > 0 ? o->hide_self : 0, 100);
        format_percent(b, sizeof(b), o->hide_subs > 0 ? o->hide_subs : 0, 100);
        fprintf(f, "  (Hiding functions with self<%s and local<%s: %" PRIu32
                   " of %" PRIu32 " hidden)\n",
                a, b, nhidden, g->nnodes);
    }
    putc('\n', f);
}

/* The whole table, twice: the first pass measures, the second prints. */
static int write_table(FILE *f, const struct racket_graph *g,
                       double interval_ms)
{
    static const char *const head[3][10] = {
        { "   ", " ", "   ", "     ", " ", "  ", "     ", " ", "  Caller" },
        { "Idx", " ", "To", "tal   ", " ", "Se", "lf   ", " ", "Name+src",
          "Local%" },
        { "   ", " ", " ms", "(pct)", " ", "ms", "(pct)", " ", "  Callee" },
    };
    /* Idx, total ms, (pct), self ms, (pct), name+src, Local% and the
     * blank columns between them, aligned as Racket's columns are */
    struct text_table t = { .f = f, .align = "rlrllrlllrll" };
    int rc = 0;

    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        t.print = pass == 1;
        text_table_rule(&t, '=', 10);
        text_table_strs(&t, head[0], 9);
        text_table_strs(&t, head[1], 10);
        text_table_strs(&t, head[2], 9);
        text_table_rule(&t, '=', 10);
        for (uint32_t i = 0; i < g->nnodes && rc == 0; i++)
            if (!g->nodes[g->order[i]].hidden)
                rc = node_block(&t, g, g->order[i], interval_ms);
        if (t.oom)
            rc = -1;
    }
    text_table_free(&t);
    return rc;
}

int export_text_write(const struct profile *p, const struct export_opts *o,
                      FILE *f)
{
    if (o && o->annotation)
        return export_annotate_write(p, o, f);
    double interval_ms = racket_graph_ms(p);
    struct racket_graph g;
    int rc = -1;

    if (racket_graph_build(&g, p, o->hide_self, o->hide_subs) != 0)
        return -1;
    write_header(f, &g, interval_ms, o);
    if (write_table(f, &g, interval_ms) == 0)
        rc = ferror(f) ? -1 : 0;
    racket_graph_free(&g);
    return rc;
}
