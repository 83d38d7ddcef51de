/* export_speedscope.c - speedscope's JSON file format (FORMATS.md
 * section 4), opened by speedscope.app and its npm package.
 *
 * One "sampled" profile per thread that has samples, named
 * "NAME (tid N)", holding that thread's unique stacks (frame indexes,
 * root first) and their weights.  The frames are shared: one entry per
 * frame any stack uses, with its file and first line when known (a
 * kernel function: its module, "[kernel.kallsyms]").  When the profile's
 * weights are times (a known interval, or a live profile's ns:
 * profile_weight_ns) the unit is nanoseconds, so speedscope shows time
 * even after a change of rate; otherwise "none" (plain counts).
 *
 * Strings are escaped for JSON: quote, backslash and control characters
 * (\n, \t, ... and \u00XX), and bytes that are not valid UTF-8 become
 * U+FFFD, since a JSON text must be UTF-8.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "profile.h"
#include "util.h"
#include "vec.h"

#ifndef SPROFTOP_VERSION
#define SPROFTOP_VERSION "unknown"
#endif

#define NO_INDEX UINT32_MAX

struct ss_ctx {
    const struct profile *p;
    FILE *f;
    uint32_t *index;     /* frame id -> shared frame index, or NO_INDEX */
    uint32_t *order;     /* shared frame index -> frame id */
    long nused;          /* shared frames */
    bool timed;          /* weights in nanoseconds, else counts */
    uint32_t thread;     /* thread of the open profile, NO_INDEX if none */
    uint64_t *weights;   /* weights of the open profile's samples */
    size_t nweights, weights_cap;
    bool first_profile;  /* no profile written yet */
};

static uint64_t weight_of(const struct ss_ctx *c, uint64_t weight)
{
    return c->timed ? profile_weight_ns(c->p, weight) : weight;
}

/* Close the open profile: its weights and end value. */
static void ss_close(struct ss_ctx *c)
{
    uint64_t end = 0;

    if (c->thread == NO_INDEX)
        return;
    fputs("\n   ],\n   \"weights\": [", c->f);
    for (size_t i = 0; i < c->nweights; i++) {
        fprintf(c->f, "%s%" PRIu64, i ? ", " : "", c->weights[i]);
        end = c->weights[i] > UINT64_MAX - end ? UINT64_MAX
                                               : end + c->weights[i];
    }
    fprintf(c->f, "],\n   \"endValue\": %" PRIu64 "\n  }", end);
    c->thread = NO_INDEX;
    c->nweights = 0;
}

static void ss_open(struct ss_ctx *c, uint32_t thread)
{
    const struct profile_thread *t = profile_thread_at(c->p, thread);
    char name[320];

    snprintf(name, sizeof(name), "%.256s (tid %lld)", t->name,
             (long long)t->tid);
    fputs(c->first_profile ? "\n  {" : ",\n  {", c->f);
    c->first_profile = false;
    fputs("\n   \"type\": \"sampled\",\n   \"name\": ", c->f);
    escape_json(c->f, name, 0);
    fprintf(c->f, ",\n   \"unit\": \"%s\",\n   \"startValue\": 0,\n"
                  "   \"samples\": [",
            c->timed ? "nanoseconds" : "none");
    c->thread = thread;
}

/* Second walk: write each thread's samples, keeping their weights. */
static int ss_sample(void *ctx, uint32_t thread, const uint32_t *frames,
                     size_t n, uint64_t count)
{
    struct ss_ctx *c = ctx;

    if (thread != c->thread) {
        ss_close(c);
        ss_open(c, thread);
    }
    if (VEC_RESERVE(c->weights, c->weights_cap, c->nweights + 1) < 0)
        return -1;
    fputs(c->nweights ? ",\n    [" : "\n    [", c->f);
    for (size_t i = 0; i < n; i++)
        fprintf(c->f, "%s%" PRIu32, i ? ", " : "", c->index[frames[i]]);
    putc_unlocked(']', c->f);
    c->weights[c->nweights++] = weight_of(c, count);
    return ferror(c->f) ? -1 : 0;
}

static void write_frames(const struct ss_ctx *c)
{
    for (long i = 0; i < c->nused; i++) {
        const struct frame_desc *d = profile_frame(c->p, c->order[i]);

        fputs(i ? ",\n   {\"name\": " : "\n   {\"name\": ", c->f);
        escape_json(c->f, d->name[0] ? d->name : "[unknown]", 0);
        if (d->file && d->file[0]) {
            fputs(", \"file\": ", c->f);
            escape_json(c->f, d->file, 0);
        } else if (profile_frame_is_kernel(d) && d->module) {
            /* a kernel function has no source file: its module */
            fputs(", \"file\": ", c->f);
            escape_json(c->f, d->module, 0);
        }
        if (d->line)
            fprintf(c->f, ", \"line\": %" PRIu32, d->line);
        putc_unlocked('}', c->f);
    }
}

static void write_file_name(const struct profile *p, FILE *f)
{
    const struct profile_meta *m = profile_meta(p);
    char name[4096], pids[256];
    size_t np = profile_pid_list(p, pids, sizeof pids);
    const char *word = np > 1 ? "pids" : "pid";

    if (np && m->cmdline && m->cmdline[0])
        snprintf(name, sizeof(name), "sproftop %s %s: %s", word, pids,
                 m->cmdline);
    else if (np)
        snprintf(name, sizeof(name), "sproftop %s %s", word, pids);
    else
        snprintf(name, sizeof(name), "sproftop");
    escape_json(f, name, 0);
}

int export_speedscope_write(const struct profile *p,
                            const struct export_opts *o, FILE *f)
{
    const struct profile_meta *m = profile_meta(p);
    struct ss_ctx c = {
        .p = p,
        .f = f,
        .timed = profile_weight_unit(p) ? true : m->interval_ns > 1,
        .thread = NO_INDEX,
        .first_profile = true,
    };
    int rc = -1;

    (void)o;
    c.nused = profile_first_use(p, &c.order, &c.index);
    if (c.nused < 0)
        goto out;
    fputs("{\n \"$schema\": \"https://www.speedscope.app/"
          "file-format-schema.json\",\n \"shared\": {\n  \"frames\": [", f);
    write_frames(&c);
    fputs("\n  ]\n },\n \"profiles\": [", f);
    if (profile_foreach_stack(p, ss_sample, &c) != 0)
        goto out;
    ss_close(&c);
    fputs("\n ],\n \"name\": ", f);
    write_file_name(p, f);
    fputs(",\n \"activeProfileIndex\": 0,\n \"exporter\": \"sproftop "
          SPROFTOP_VERSION "\"", f);
    /* Not speedscope's (which ignores it): the nominal interval, so that
     * sproftop -i gets the same counts back from the times. */
    if (c.timed && m->interval_ns)
        fprintf(f, ",\n \"sproftop_interval_ns\": %" PRIu64,
                m->interval_ns);
    fputs("\n}\n", f);
    rc = ferror(f) ? -1 : 0;
out:
    free(c.index);
    free(c.order);
    free(c.weights);
    return rc;
}
