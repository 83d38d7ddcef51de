/* load_speedscope.c - the speedscope JSON reader (sproftop -i x.json).
 *
 * Reads the file format of speedscope.app (FORMATS.md section 4), as
 * export_speedscope and other profilers write it: the shared frames
 * (name, file, line), then one "sampled" profile per thread, each a list
 * of stacks (frame indexes, root first) and their weights.
 *
 *   - Threads: a profile named "NAME (tid N)" (export_speedscope's) is
 *     thread N named NAME; any other name is a thread of that name with
 *     the next unused id.
 *   - Weights: with unit "none" the weights are counts (whole numbers).
 *     With a unit of time they are nanoseconds (profile.h, "Weights": a
 *     unit of 1 ns, as a live profile's), and the nominal interval, which
 *     counts them, is "sproftop_interval_ns" when the file has it
 *     (export_speedscope writes it, so its files come back with the same
 *     times and counts), else the greatest common divisor of the weights,
 *     the interval of a profiler that weighs each sample by it.
 *     "bytes" and "evented" profiles are not samples of time: refused.
 *   - The file's name "sproftop pid N: CMDLINE" gives the PID and the
 *     command line back.
 *   - A frame whose file is "[kernel.kallsyms]" is a kernel function
 *     (export_speedscope writes a kernel function's module as its file).
 *
 * The input is untrusted: json.h bounds the text's nesting and size,
 * stacks are at most LOAD_MAX_DEPTH frames, frame indexes are checked,
 * and the counts (and their sum) stay below PROFILE_COUNT_LIMIT.  Any
 * error ends the load with one line, "NAME: why".
 */
#include "load.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "profile.h"
#include "util.h"

#define SNIFF_BYTES 4096  /* where the $schema is looked for */

struct ss_load {
    struct json j;
    struct profile *p;
    const char *name;       /* the file's, for errors */
    char *err;
    size_t errlen;
    uint32_t frames;        /* the shared frames array */
    uint32_t nframes;
    uint32_t *ids;          /* shared frame index -> frame id, lazily */
    struct stack_frame *stack; /* LOAD_MAX_DEPTH */
    uint64_t interval;      /* ns per sample (0: counts without time) */
    int64_t next_tid;       /* for profiles not named "NAME (tid N)" */
    uint64_t total;         /* samples added so far */
};

bool load_speedscope_sniff(const char *buf, size_t len)
{
    size_t lim = len < SNIFF_BYTES ? len : SNIFF_BYTES;

    return json_starts_object(buf, lim) &&
           memmem(buf, lim, "www.speedscope.app", 18) != NULL;
}

/* "NAME: why" into the load's error; -1. */
#define fail(l, ...) load_error((l)->err, (l)->errlen, (l)->name, __VA_ARGS__)

/* Nanoseconds per weight for a unit, 0 for "none", -1 for no time. */
static double unit_scale(const struct json *j, uint32_t unit)
{
    static const struct { const char *name; double ns; } units[] = {
        { "none", 0 }, { "nanoseconds", 1 }, { "microseconds", 1e3 },
        { "milliseconds", 1e6 }, { "seconds", 1e9 },
    };

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (json_string_is(j, unit, units[i].name))
            return units[i].ns;
    return -1;
}

/* The weight of sample node w in nanoseconds (scale > 0) or as a count
 * (scale 0), into *out; false when it is not a number that fits. */
static bool weight_of(const struct json *j, uint32_t w, double scale,
                      uint64_t *out)
{
    double v;
    int64_t n;

    if (scale == 0) {
        if (!json_int(j, w, 0, (int64_t)PROFILE_COUNT_LIMIT - 1, &n))
            return false;
        *out = (uint64_t)n;
        return true;
    }
    if (!json_number(j, w, &v) || v < 0 || v * scale >= 9.2e18)
        return false;
    *out = (uint64_t)llround(v * scale);
    return true;
}

/* The interval (0 for counts): the file's "sproftop_interval_ns", else
 * the weights' greatest common divisor in ns; every profile's unit must
 * be none, or every one a unit of time. */
static int find_interval(struct ss_load *l, uint32_t profiles)
{
    double scale = 0;
    const struct json *j = &l->j;
    uint32_t key = json_get(j, 0, "sproftop_interval_ns");
    uint64_t g = 0;
    int64_t iv;
    bool first = true;

    for (uint32_t pr = json_first(j, profiles); pr != JSON_NONE;
         pr = json_next(j, profiles, pr)) {
        double s = unit_scale(j, json_get(j, pr, "unit"));
        uint32_t ws = json_get(j, pr, "weights");

        if (s < 0)
            return fail(l, "a profile's unit is not none or a unit of time");
        if (!first && (s == 0) != (scale == 0))
            return fail(l, "profiles mix counts (unit none) and times");
        scale = s;
        first = false;
        for (uint32_t w = json_first(j, ws); s > 0 && w != JSON_NONE;
             w = json_next(j, ws, w)) {
            uint64_t ns;

            if (!weight_of(j, w, s, &ns))
                return fail(l, "a weight is not a time in range");
            g = util_gcd(g, ns);
        }
    }
    if (key != JSON_NONE) {
        if (!json_int(j, key, 1, INT64_MAX, &iv))
            return fail(l, "sproftop_interval_ns is not a positive integer");
        g = (uint64_t)iv;
    }
    l->interval = scale > 0 ? (g ? g : 1) : 0;
    return 0;
}

/* The frame id of shared frame k, interned on first use. */
static uint32_t frame_id(struct ss_load *l, uint32_t k, uint32_t node)
{
    const struct json *j = &l->j;
    struct frame_desc d = { 0 };
    bool oom = false;
    int64_t line = 0;
    char *name, *file;

    if (l->ids[k] != PROFILE_NONE)
        return l->ids[k];
    name = json_string(j, json_get(j, node, "name"), &oom);
    file = json_string(j, json_get(j, node, "file"), &oom);
    if (!oom && (json_get(j, node, "line") == JSON_NONE ||
                 json_int(j, json_get(j, node, "line"), 0, UINT32_MAX,
                          &line))) {
        d.name = name && *name ? name : "[unknown]";
        d.kind = (uint8_t)profile_name_kind(d.name);
        d.file = file && *file ? file : NULL;
        d.line = (uint32_t)line;
        /* a kernel function's file is its module (export_speedscope) */
        if (profile_origin_of(d.file, NULL) == FRAME_ORIGIN_KERNEL) {
            d.module = d.file;
            d.file = NULL;
            d.origin = FRAME_ORIGIN_KERNEL;
        } else {
            load_python_origin(&d);
        }
        l->ids[k] = profile_intern_frame(l->p, &d);
    }
    free(name);
    free(file);
    return l->ids[k];
}

/* The shared frames as an array of nodes, indexed. */
static uint32_t *frame_nodes(struct ss_load *l)
{
    uint32_t *nodes = malloc((l->nframes ? l->nframes : 1) * sizeof(*nodes));
    uint32_t k = 0;

    if (!nodes)
        return NULL;
    for (uint32_t f = json_first(&l->j, l->frames); f != JSON_NONE;
         f = json_next(&l->j, l->frames, f))
        nodes[k++] = f;
    return nodes;
}

/* "NAME (tid N)" as export_speedscope names a profile: NAME's length and
 * N, when it reads so. */
static bool tid_name(const char *s, size_t *name_len, int64_t *tid)
{
    const char *at = strstr(s, " (tid ");
    char *end;

    if (!at)
        return false;
    while (strstr(at + 1, " (tid "))
        at = strstr(at + 1, " (tid ");
    if (at[6] < '0' || at[6] > '9')
        return false;
    *tid = strtoll(at + 6, &end, 10);
    if (strcmp(end, ")") != 0 || end - (at + 6) > 18)
        return false;
    *name_len = (size_t)(at - s);
    return true;
}

/* The thread of profile node pr. */
static uint32_t profile_thread_of(struct ss_load *l, uint32_t pr)
{
    bool oom = false;
    char *name = json_string(&l->j, json_get(&l->j, pr, "name"), &oom);
    size_t len;
    int64_t tid;
    uint32_t th = PROFILE_NONE;

    if (oom)
        return PROFILE_NONE;
    if (name && tid_name(name, &len, &tid)) {
        name[len] = '\0';
        th = profile_thread(l->p, tid, name);
    } else {
        th = profile_thread(l->p, l->next_tid++, name && *name ? name
                                                               : "thread");
    }
    free(name);
    return th;
}

/* One sampled profile. */
static int read_profile(struct ss_load *l, uint32_t pr, uint32_t index,
                        const uint32_t *fnodes)
{
    const struct json *j = &l->j;
    double scale = unit_scale(j, json_get(j, pr, "unit"));
    uint32_t samples = json_get(j, pr, "samples");
    uint32_t weights = json_get(j, pr, "weights");
    uint32_t th, s, w, k = 0;

    if (!json_string_is(j, json_get(j, pr, "type"), "sampled"))
        return fail(l, "profile %" PRIu32 ": only sampled profiles are read "
                    "(not evented ones)", index);
    if (json_type(j, samples) != JSON_ARRAY ||
        json_type(j, weights) != JSON_ARRAY ||
        j->nodes[samples].len != j->nodes[weights].len)
        return fail(l, "profile %" PRIu32 ": samples and weights are not "
                    "two arrays of one length", index);
    if ((th = profile_thread_of(l, pr)) == PROFILE_NONE)
        return fail(l, "out of memory");
    for (s = json_first(j, samples), w = json_first(j, weights);
         s != JSON_NONE; s = json_next(j, samples, s),
         w = json_next(j, weights, w), k++) {
        uint64_t v, count;
        size_t n = 0;

        if (json_type(j, s) != JSON_ARRAY || j->nodes[s].len > LOAD_MAX_DEPTH)
            return fail(l, "profile %" PRIu32 ", sample %" PRIu32 ": not a "
                        "stack of at most %u frames", index, k,
                        LOAD_MAX_DEPTH);
        for (uint32_t f = json_first(j, s); f != JSON_NONE;
             f = json_next(j, s, f)) {
            int64_t fi;

            if (!json_int(j, f, 0, (int64_t)l->nframes - 1, &fi))
                return fail(l, "profile %" PRIu32 ", sample %" PRIu32 ": a "
                            "frame index is not one of the %" PRIu32
                            " frames", index, k, l->nframes);
            l->stack[n].frame = frame_id(l, (uint32_t)fi, fnodes[fi]);
            if (l->stack[n++].frame == PROFILE_NONE)
                return fail(l, "out of memory");
        }
        if (!weight_of(j, w, scale, &v))
            return fail(l, "profile %" PRIu32 ", sample %" PRIu32 ": the "
                        "weight is not a %s in range", index, k,
                        scale > 0 ? "time" : "whole count");
        /* times weigh their ns, as a live profile's samples do; the
         * samples they stand for are their nominal intervals */
        count = scale > 0 ? (v + l->interval / 2) / l->interval : v;
        if (count == 0 && v > 0)
            count = 1;
        if (v >= PROFILE_COUNT_LIMIT - l->total)
            return fail(l, "more than 2^53 samples");
        if (v && profile_add_weighted(l->p, th, l->stack, n, count, v) < 0)
            return fail(l, "out of memory");
        l->total += v;
    }
    return 0;
}

/* "sproftop pid N: CMDLINE" (or "sproftop pid N"), as the writer names
 * the file: the PID and command line back into the metadata. */
static int read_meta(struct ss_load *l)
{
    struct profile_meta m = *profile_meta(l->p);
    bool oom = false;
    char *name = json_string(&l->j, json_get(&l->j, 0, "name"), &oom);
    char *end;
    int rc = 0;

    m.interval_ns = l->interval;
    if (name && strncmp(name, "sproftop pid ", 13) == 0 &&
        name[13] >= '1' && name[13] <= '9') {
        long long pid = strtoll(name + 13, &end, 10);

        if (pid > 0 && pid <= INT32_MAX &&
            (*end == '\0' || strncmp(end, ": ", 2) == 0)) {
            m.pid = pid;
            m.cmdline = *end ? end + 2 : NULL;
        }
    }
    if (oom || profile_set_meta(l->p, &m) < 0)
        rc = -1;
    free(name);
    return rc;
}

/* Everything after the text is indexed. */
static struct profile *read_file(struct ss_load *l)
{
    const struct json *j = &l->j;
    uint32_t profiles = json_get(j, 0, "profiles"), index = 0, *fnodes;
    int rc = 0;

    l->frames = json_get(j, json_get(j, 0, "shared"), "frames");
    if (json_type(j, l->frames) != JSON_ARRAY ||
        json_type(j, profiles) != JSON_ARRAY) {
        fail(l, "not a speedscope file: no shared.frames and profiles "
             "arrays");
        return NULL;
    }
    l->nframes = j->nodes[l->frames].len;
    if (find_interval(l, profiles) < 0)
        return NULL;
    if (!(l->p = profile_new()) ||
        profile_set_weight_unit(l->p, l->interval ? 1 : 0) < 0 ||
        !(l->ids = malloc((l->nframes ? l->nframes : 1) * sizeof(*l->ids))) ||
        !(fnodes = frame_nodes(l))) {
        fail(l, "out of memory");
        return NULL;
    }
    memset(l->ids, 0xff, (l->nframes ? l->nframes : 1) * sizeof(*l->ids));
    /* ids for profiles not named "NAME (tid N)": after every N */
    for (uint32_t pr = json_first(j, profiles); pr != JSON_NONE;
         pr = json_next(j, profiles, pr)) {
        char *name = json_string(j, json_get(j, pr, "name"), NULL);
        size_t len;
        int64_t tid;

        if (name && tid_name(name, &len, &tid) && tid >= l->next_tid)
            l->next_tid = tid + 1;
        free(name);
    }
    for (uint32_t pr = json_first(j, profiles); pr != JSON_NONE && rc == 0;
         pr = json_next(j, profiles, pr))
        rc = read_profile(l, pr, index++, fnodes);
    free(fnodes);
    if (rc == 0 && l->total == 0)
        rc = fail(l, "no samples");
    if (rc == 0 && read_meta(l) < 0)
        rc = fail(l, "out of memory");
    return rc == 0 ? l->p : NULL;
}

struct profile *load_speedscope(const char *buf, size_t len, const char *name,
                                char *err, size_t errlen)
{
    struct ss_load l = { .name = name ? name : "<buffer>", .err = err,
                         .errlen = errlen, .next_tid = 1 };
    char why[200];
    struct profile *p = NULL;

    if (json_parse(&l.j, buf, len, why, sizeof(why)) < 0) {
        fail(&l, "%s", why);
        return NULL;
    }
    l.stack = calloc(LOAD_MAX_DEPTH, sizeof(*l.stack));
    if (!l.stack)
        fail(&l, "out of memory");
    else
        p = read_file(&l);
    if (!p)
        profile_free(l.p);
    json_free(&l.j);
    free(l.ids);
    free(l.stack);
    return p;
}
