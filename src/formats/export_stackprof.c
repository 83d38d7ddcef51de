/* export_stackprof.c - stackprof's JSON dump (FORMATS.md section 8).
 *
 * Read by `stackprof FILE --text`, `--stackcollapse`, `--graphviz` (Ruby
 * stackprof) and by speedscope when the file is named *.stackprof.json.
 * Laid out as Ruby's JSON.pretty_generate with a one-space indent, like
 * shared/formats/example.stackprof.json:
 *
 *   version 1.2, mode "cpu" or "wall" (--idle), interval in microseconds,
 *   samples, gc_samples 0, missed_samples 0;
 *   metadata: what sproftop knows of the run (pid, cmdline, comm,
 *     start_ns, duration_ns) and the threads (tid, name, samples), each
 *     key only when known;
 *   frames: "ID" -> name, file, line (function start), total_samples
 *     (once per sample), samples (self), edges {"calleeID": samples with
 *     that call, once per sample} and lines {"LINE": [total, self]};
 *     ids from 1 in first-use order;
 *   raw: [len, ids root -> leaf..., weight] per unique stack and thread;
 *   raw_timestamp_deltas: one interval per sample.
 *
 * "file" is the source file, or the module when the file is unknown, and
 * is left out when neither is known; "line" and "lines" are left out when
 * unknown.  Frame names lose control characters (to spaces) and ';' (to
 * ':'): stackprof prints them raw, one stack per line joined by ';'.
 * Thread frames are not stackprof frames.  A sample with an
 * empty stack is written as the one-frame stack "[unknown]", so every
 * consumer's sum of weights equals "samples".  With no known interval the
 * file says 1000 us (one sample per millisecond).  Strings are JSON-escaped
 * with every non-ASCII character as \uXXXX and invalid UTF-8 bytes as
 * U+FFFD, so any JSON reader takes them.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "profile.h"
#include "util.h"
#include "sorted.h"

#define NOMINAL_INTERVAL_US 1000u

/* A JSON string, ASCII only; for a frame name (`frame` true) control
 * characters become spaces and ';' becomes ':', as stackprof prints names
 * raw in its line-based reports (--stackcollapse joins frames with ';'). */
static void json_str(FILE *f, const char *str, bool frame)
{
    escape_json(f, str, ESC_JSON_ASCII | (frame ? ESC_JSON_NAME : 0));
}

static void json_string(FILE *f, const char *str)
{
    json_str(f, str, false);
}

/* Pretty-printing in Ruby's style: each value on its own line, indented
 * by one space per level; a container's first member follows its opening
 * bracket, the others follow ",\n". */
struct js {
    FILE *f;
    int depth;
    bool first;  /* no member written yet in the current container */
};

static void js_indent(struct js *j)
{
    if (!j->first)
        putc(',', j->f);
    putc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        putc(' ', j->f);
    j->first = false;
}

static void js_key(struct js *j, const char *key)
{
    js_indent(j);
    json_string(j->f, key);
    fputs(": ", j->f);
}

static void js_open(struct js *j, char bracket)
{
    putc(bracket, j->f);
    j->depth++;
    j->first = true;
}

/* Close a container; an empty one stays "{}" or "[]" on its line. */
static void js_close(struct js *j, char bracket)
{
    j->depth--;
    if (!j->first) {
        putc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            putc(' ', j->f);
    }
    putc(bracket, j->f);
    j->first = false;
}

static void js_key_u64(struct js *j, const char *key, uint64_t v)
{
    js_key(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

static void js_u64(struct js *j, uint64_t v)
{
    js_indent(j);
    fprintf(j->f, "%" PRIu64, v);
}

struct sp_ctx {
    const struct profile *p;
    uint32_t *id_of;       /* frame -> stackprof id (from 1), 0 = unused */
    uint32_t *frame_of;    /* id - 1 -> frame, or PROFILE_NONE for the
                              "[unknown]" stand-in of empty stacks */
    uint32_t nids;
    uint32_t empty_id;     /* id of that stand-in, 0 if none */
    uint64_t empty_count;  /* samples with an empty stack */
    struct js *j;
};

static int first_use(void *ctx, uint32_t thread, const uint32_t *frames,
                     size_t n, uint64_t count)
{
    struct sp_ctx *c = ctx;

    (void)thread;
    if (n == 0) {
        if (!c->empty_id) {
            c->frame_of[c->nids] = PROFILE_NONE;
            c->empty_id = ++c->nids;
        }
        c->empty_count += count;
    }
    for (size_t i = 0; i < n; i++)
        if (!c->id_of[frames[i]]) {
            c->frame_of[c->nids] = frames[i];
            c->id_of[frames[i]] = ++c->nids;
        }
    return 0;
}

static int raw_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                     size_t n, uint64_t count)
{
    struct sp_ctx *c = ctx;

    (void)thread;
    if (n == 0) {
        js_u64(c->j, 1);
        js_u64(c->j, c->empty_id);
    } else {
        js_u64(c->j, n);
        for (size_t i = 0; i < n; i++)
            js_u64(c->j, c->id_of[frames[i]]);
    }
    js_u64(c->j, count);
    return ferror(c->j->f) ? -1 : 0;
}

static void write_meta(struct js *j, const struct profile *p)
{
    const struct profile_meta *m = profile_meta(p);
    uint32_t nt = profile_thread_count(p);

    js_key(j, "metadata");
    js_open(j, '{');
    char pids[256];
    size_t np = profile_pid_list(p, pids, sizeof pids);
    /* stackprof's pid is one number; several are a list of their own */
    if (np == 1 && m->pid)
        js_key_u64(j, "pid", (uint64_t)m->pid);
    else if (np > 1) {
        js_key(j, "pids");
        json_string(j->f, pids);
    }
    if (m->cmdline) {
        js_key(j, "cmdline");
        json_string(j->f, m->cmdline);
    }
    if (m->comm) {
        js_key(j, "comm");
        json_string(j->f, m->comm);
    }
    if (m->start_ns)
        js_key_u64(j, "start_ns", m->start_ns);
    if (m->duration_ns)
        js_key_u64(j, "duration_ns", m->duration_ns);
    if (nt) {
        js_key(j, "threads");
        js_open(j, '[');
        for (uint32_t i = 0; i < nt; i++) {
            const struct profile_thread *t = profile_thread_at(p, i);

            js_indent(j);
            js_open(j, '{');
            js_key(j, "tid");
            fprintf(j->f, "%" PRId64, t->tid);
            js_key(j, "name");
            json_string(j->f, t->name ? t->name : "");
            js_key_u64(j, "samples", profile_node(p, t->node)->total);
            js_close(j, '}');
        }
        js_close(j, ']');
    }
    js_close(j, '}');
}

/* edges: this frame's outgoing edges, sorted by callee id. */
static void write_frame(struct sp_ctx *c, uint32_t id,
                        const struct profile_flat *fl,
                        const struct profile_edge *edges, long nedges)
{
    struct js *j = c->j;
    uint32_t frame = c->frame_of[id - 1];
    const struct frame_desc *d = frame == PROFILE_NONE ? NULL
                                 : profile_frame(c->p, frame);
    struct profile_linecount *lines = NULL;
    long nlines = 0;
    char key[24];

    snprintf(key, sizeof(key), "%" PRIu32, id);
    js_key(j, key);
    js_open(j, '{');
    js_key(j, "name");
    json_str(j->f, !d ? "[unknown]" : *d->name ? d->name : "[unknown]", true);
    if (d && (d->file || d->module)) {
        js_key(j, "file");
        json_string(j->f, d->file ? d->file : d->module);
    }
    if (d && d->line)
        js_key_u64(j, "line", d->line);
    js_key_u64(j, "total_samples", d ? fl->total : c->empty_count);
    js_key_u64(j, "samples", d ? fl->self : c->empty_count);
    if (nedges > 0) {
        js_key(j, "edges");
        js_open(j, '{');
        for (long e = 0; e < nedges; e++) {
            snprintf(key, sizeof(key), "%" PRIu32, c->id_of[edges[e].callee]);
            js_key_u64(j, key, edges[e].samples);
        }
        js_close(j, '}');
    }
    if (d)
        nlines = profile_lines(c->p, frame, false, &lines);
    if (nlines > 0) {
        js_key(j, "lines");
        js_open(j, '{');
        for (long i = 0; i < nlines; i++) {
            snprintf(key, sizeof(key), "%" PRIu64, lines[i].key);
            js_key(j, key);
            js_open(j, '[');
            js_u64(j, lines[i].total);
            js_u64(j, lines[i].self);
            js_close(j, ']');
        }
        js_close(j, '}');
    }
    free(lines);
    js_close(j, '}');
}

/* First index of edges[] (sorted by caller) whose caller is >= frame. */
static long edges_of(const struct profile_edge *edges, long n, uint32_t frame)
{
    long lo = 0, hi = n;

    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;

        if (edges[mid].caller < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_callee_id(const void *a, const void *b, void *ctx)
{
    const struct sp_ctx *c = ctx;
    uint32_t x = c->id_of[((const struct profile_edge *)a)->callee];
    uint32_t y = c->id_of[((const struct profile_edge *)b)->callee];

    return (x > y) - (x < y);
}

/* "frames": every id's frame, with its outgoing edges by callee id. */
static void write_frames(struct sp_ctx *c, struct profile_flat **by_frame,
                         struct profile_edge *edges, long nedges)
{
    js_key(c->j, "frames");
    js_open(c->j, '{');
    for (uint32_t id = 1; id <= c->nids; id++) {
        uint32_t frame = c->frame_of[id - 1];
        long first = nedges, n = 0;

        if (frame != PROFILE_NONE) {
            first = edges_of(edges, nedges, frame);
            while (first + n < nedges && edges[first + n].caller == frame)
                n++;
            sorted_sort_r(edges + first, (size_t)n, sizeof(*edges),
                          cmp_callee_id, c);
        }
        write_frame(c, id, frame == PROFILE_NONE ? NULL : by_frame[frame],
                    edges + first, n);
    }
    js_close(c->j, '}');
}

static int write_stackprof(const struct profile *p, const struct export_opts *o,
                           FILE *f)
{
    const struct profile_meta *m = profile_meta(p);
    uint32_t nf = profile_frame_count(p);
    struct js j = { .f = f, .first = true };
    struct sp_ctx c = { .p = p, .j = &j };
    struct profile_flat *flat = NULL, **by_frame = NULL;
    struct profile_edge *edges = NULL;
    long nflat, nedges;
    uint64_t interval_us = m->interval_ns ? (m->interval_ns + 500) / 1000
                                          : NOMINAL_INTERVAL_US;
    uint64_t samples = profile_samples(p);
    int rc = -1;

    (void)o;
    c.id_of = calloc(nf ? nf : 1, sizeof(*c.id_of));
    c.frame_of = malloc((nf + 1) * sizeof(*c.frame_of));
    by_frame = calloc(nf ? nf : 1, sizeof(*by_frame));
    nflat = profile_flat(p, &flat);
    nedges = profile_edges(p, &edges);
    if (!c.id_of || !c.frame_of || !by_frame || nflat < 0 || nedges < 0 ||
        profile_foreach_stack(p, first_use, &c) != 0)
        goto out;
    for (long i = 0; i < nflat; i++)
        by_frame[flat[i].frame] = &flat[i];
    if (interval_us == 0)
        interval_us = 1;

    js_open(&j, '{');
    js_key(&j, "version");
    fputs("1.2", f);
    js_key(&j, "mode");
    json_string(f, m->idle ? "wall" : "cpu");
    js_key_u64(&j, "interval", interval_us);
    js_key_u64(&j, "samples", samples);
    js_key_u64(&j, "gc_samples", 0);
    js_key_u64(&j, "missed_samples", 0);
    write_meta(&j, p);
    write_frames(&c, by_frame, edges, nedges);
    js_key(&j, "raw");
    js_open(&j, '[');
    if (profile_foreach_stack(p, raw_stack, &c) != 0)
        goto out;
    js_close(&j, ']');
    js_key(&j, "raw_timestamp_deltas");
    js_open(&j, '[');
    for (uint64_t i = 0; i < samples && !ferror(f); i++)
        js_u64(&j, interval_us);
    js_close(&j, ']');
    js_close(&j, '}');
    rc = ferror(f) ? -1 : 0;
out:
    free(c.id_of);
    free(c.frame_of);
    free(by_frame);
    free(flat);
    free(edges);
    return rc;
}

EXPORT_COUNTS_WRITER(export_stackprof_write, write_stackprof)
