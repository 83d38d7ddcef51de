/* export_folded.c - Brendan Gregg's folded stacks (FORMATS.md section 1).
 *
 * One line per unique stack, root first: "main-100;main;a;b 3", where the
 * root is the thread's current name and tid, and the count the stack's
 * weight in nominal intervals (export_write_counts: its samples, for a
 * profile sampled at one rate).  Read by flamegraph.pl,
 * speedscope and Pyroscope, and by load_folded.
 *
 * Names are made safe for the line format: ';' becomes ':', newlines,
 * carriage returns and tabs become spaces, an empty name becomes
 * "[unknown]", and a name never ends in whitespace followed by a number
 * (flamegraph.pl would read "foo 12 3" as a differential profile), so the
 * whitespace before such a number becomes '_' ("foo 12" -> "foo_12").
 *
 * A kernel function's name ends in "_[k]" (FOLDED_KERNEL_MARK), as
 * stackcollapse-perf.pl --kernel writes it, so flamegraph.pl --color=java
 * draws it apart; an off-CPU reason is the frame "[off-CPU: REASON]".
 * A Python function is written as py-spy writes it, "name (file.py:LINE)",
 * its file's name and its first line.
 *
 * A profile of several processes (-p PID,PID...) gets a process level
 * above the thread: "nginx-100;nginx-101;main;a 3", the process's
 * command and PID, unless no_process_root drops it (no_thread_root drops
 * the thread level, independently).  A profile of one process is written
 * as before, without it.  The exited processes of a command folded into
 * one aggregate (profile.h) are "cc1 (1,040 exited);cc1 (exited);...",
 * which load_folded reads back as that aggregate.
 *
 * Samples that landed on a thread node itself (an empty stack) are written
 * as the bare thread frame; with no_thread_root there is no frame left to
 * write, so they are left out and the file holds fewer samples.
 *
 * With a baseline (export_opts.baseline) each line carries two counts,
 * the baseline's then the profile's, "main;a;b 5 3", the format
 * difffolded.pl writes and flamegraph.pl draws as a differential flame
 * graph: every stack of either side, threads and frames matched as
 * diff.h says, one line per stack as written (two threads' stacks that
 * read the same, as with no_thread_root, are summed on one line).
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "escape.h"
#include "profile.h"
#include "strarena.h"
#include "vec.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

/* Start of the whitespace run that precedes a trailing number (digits and
 * dots with at least one digit), or NULL when the name does not end so. */
static const char *trailing_number_gap(const char *s, size_t len)
{
    size_t i = len;
    bool digit = false;

    while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '.'))
        digit |= s[--i] != '.';
    if (!digit || i == 0 || !is_space(s[i - 1]))
        return NULL;
    while (i > 0 && is_space(s[i - 1]))
        i--;
    return s + i;
}

/* ';' separates frames, and a line is a stack. */
static const struct escape_map name_map = { ";\n\r\t", ":   ", false };

static void write_name(FILE *f, const char *name)
{
    size_t len = strlen(name);
    const char *gap = trailing_number_gap(name, len);

    if (len == 0) {
        fputs("[unknown]", f);
        return;
    }
    escape_put(f, name, gap ? (size_t)(gap - name) : len, &name_map);
    if (gap) {
        putc_unlocked('_', f);
        while (is_space(*gap))
            gap++;
        fputs(gap, f);
    }
}

struct folded_ctx {
    const struct profile *p;
    const struct export_opts *o;
    FILE *f;
    bool process;  /* write the process level */
    struct diff_lines *diff; /* a differential file's lines, or NULL */
};

/* The stack part of a line, up to the counts; false when there is
 * nothing to write (an empty stack without its thread root). */
static bool folded_frames(struct folded_ctx *c, uint32_t thread,
                          const uint32_t *frames, size_t n)
{
    bool first = true;

    const struct profile_thread *t = profile_thread_at(c->p, thread);

    if (c->process) {
        char label[256];

        /* the exited processes of a command: "cc1 (1,040 exited)" */
        if (profile_thread_is_exited(t)) {
            write_name(c->f, profile_process_label(t, false, label,
                                                   sizeof(label)));
        } else {
            write_name(c->f, t->process ? t->process : t->name);
            fprintf(c->f, "-%lld", (long long)(t->pid ? t->pid : t->tid));
        }
        first = false;
    }
    if (!c->o->no_thread_root) {
        /* The current name, not the thread frame's: the frame keeps the
         * name the thread had when first seen (often before its comm
         * was known), a rename does not change it.  An aggregate of
         * exited processes, or of a process's exited threads, has no
         * tid: its frame's name, "cc1 (exited)". */
        if (!first)
            putc_unlocked(';', c->f);
        if (profile_thread_is_folded(t)) {
            write_name(c->f, profile_frame(c->p, t->frame)->name);
        } else {
            write_name(c->f, t->name);
            fprintf(c->f, "-%lld", (long long)t->tid);
        }
        first = false;
    } else if (n == 0 && first) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const struct frame_desc *d = profile_frame(c->p, frames[i]);

        if (!first)
            putc_unlocked(';', c->f);
        write_name(c->f, d->name);
        if (profile_frame_is_kernel(d))
            fputs(FOLDED_KERNEL_MARK, c->f);
        if (profile_frame_is_python(d) && d->module) {
            /* py-spy's form: "name (file.py:line)" */
            fputs(" (", c->f);
            escape_put(c->f, d->module, strlen(d->module), &name_map);
            if (d->line)
                fprintf(c->f, ":%u", d->line);
            putc_unlocked(')', c->f);
        }
        first = false;
    }
    return true;
}

static int folded_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                        size_t n, uint64_t count)
{
    struct folded_ctx *c = ctx;

    if (folded_frames(c, thread, frames, n))
        fprintf(c->f, " %" PRIu64 "\n", count);
    return ferror(c->f) ? -1 : 0;
}

/* The differential lines, merged: a stack written the same way for two
 * threads of the pair (--no-thread-root; a thread of the baseline that
 * no thread of the profile matches, such as the Sampler format's
 * Thread_XXXX) is one line with the sums, as difffolded.pl makes it. */
struct diff_lines {
    struct strarena lines;  /* each stack's text, ids in first-seen order */
    uint64_t (*counts)[2];  /* by line id: baseline, profile */
    size_t n, cap;          /* counts set, allocated */
    char *buf;              /* the line being written (open_memstream) */
    size_t len;
};

static int folded_diff_stack(void *ctx, uint32_t thread,
                             const uint32_t *frames, size_t n,
                             uint64_t base_count, uint64_t cur_count)
{
    struct folded_ctx *c = ctx;
    struct diff_lines *d = c->diff;
    uint32_t id;
    long len;

    rewind(c->f);
    if (!folded_frames(c, thread, frames, n))
        return 0;
    if (fflush(c->f) != 0 || ferror(c->f) || (len = ftell(c->f)) < 0)
        return -1;
    id = strarena_intern_id(&d->lines, d->buf, (size_t)len);
    if (id == UINT32_MAX || VEC_RESERVE(d->counts, d->cap, id + 1) < 0)
        return -1;
    while (d->n <= id) {
        d->counts[d->n][0] = d->counts[d->n][1] = 0;
        d->n++;
    }
    d->counts[id][0] += base_count;
    d->counts[id][1] += cur_count;
    return 0;
}

/* Write every merged line of the pair d to f. */
static int diff_write(const struct diff_pair *pair, struct folded_ctx *c,
                      FILE *f)
{
    struct diff_lines d = { 0 };
    FILE *mem = open_memstream(&d.buf, &d.len);
    int rc = -1;

    if (!mem)
        return -1;
    c->p = pair->cur;
    c->f = mem;
    c->diff = &d;
    if (diff_foreach_stack(pair, folded_diff_stack, c) == 0) {
        for (uint32_t i = 0; i < d.lines.nstr; i++)
            fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n",
                    strarena_str(&d.lines, i), d.counts[i][0],
                    d.counts[i][1]);
        rc = ferror(f) ? -1 : 0;
    }
    fclose(mem);
    free(d.buf);
    free(d.counts);
    strarena_free(&d.lines);
    return rc;
}

static int write_folded(const struct profile *p, const struct export_opts *o,
                        FILE *f)
{
    bool exited = false;

    /* an aggregate of exited processes always says so at its root */
    for (uint32_t t = 0; t < profile_thread_count(p) && !exited; t++)
        exited = profile_thread_is_exited(profile_thread_at(p, t));
    struct folded_ctx c = { p, o, f,
                            !(o && o->no_process_root) &&
                                (exited || profile_process_count(p) > 1),
                            NULL };
    struct diff_pair d;
    int rc;

    if (!o || !o->baseline)
        return profile_foreach_stack(p, folded_stack, &c) != 0 || ferror(f)
                   ? -1 : 0;
    if (diff_pair_new(&d, p, o->baseline) < 0)
        return -1;
    rc = diff_write(&d, &c, f);
    diff_pair_free(&d);
    return rc != 0 || ferror(f) ? -1 : 0;
}

EXPORT_COUNTS_WRITER(export_folded_write, write_folded)
