/* fuzz_common.h - the whole of a reader's fuzz target (fuzz_reader):
 * load the input, check the error contract, write what loaded in every
 * export format that takes it (to /dev/null), so the exporters also meet
 * every odd profile the readers can build, and check that the format
 * meant to round-trip reaches a fixed point: load(save(p)) saves to the
 * same bytes (pprof for stacks, racket-json for a call graph).
 *
 * Included once by each tests/fuzz/fuzz_NAME.c, which names its reader;
 * not a module of the program.  A broken invariant calls abort(), which
 * libFuzzer reports as a crash and saves the input. */
#ifndef SPROFTOP_FUZZ_COMMON_H
#define SPROFTOP_FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "format.h"
#include "load.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The pprof bytes of p (malloc'd, *len set); aborts if writing fails. */
static char *fuzz_save_pprof(const struct profile *p, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (!f || format_find("pprof")->write(p, NULL, f) != 0)
        abort();
    fclose(f);
    return buf;
}

/* Our own pprof output must load; aborts with the reason if not. */
static struct profile *fuzz_reload(const char *buf, size_t len)
{
    char err[512];
    struct profile *q = load_pprof(buf, len, "saved.pb.gz", err, sizeof(err));

    if (!q) {
        fprintf(stderr, "sproftop's own pprof output does not load: %s\n",
                err);
        abort();
    }
    return q;
}

/* What a save must keep of p: its time when its weights have one (the
 * units may change: a file of times whose times agree with its counts
 * loads as counts), else its count. */
static uint64_t fuzz_amount(const struct profile *p)
{
    uint64_t w = profile_samples(p);

    return profile_weight_timed(p) ? profile_weight_ns(p, w) : w;
}

/* save -> load -> save.  `strict`: p itself came from the pprof reader,
 * so the first save must already be the fixed point; otherwise (another
 * reader built p) the first save normalizes and the second must be. */
static void fuzz_pprof_fixed_point(const struct profile *p, bool strict)
{
    size_t l1, l2, l3;
    char *s1, *s2;
    struct profile *p1;

    /* load_pprof refuses a file without samples ("no samples"), as every
     * reader should; an empty profile has no round trip to check. */
    if (profile_samples(p) == 0)
        return;
    s1 = fuzz_save_pprof(p, &l1);
    p1 = fuzz_reload(s1, l1);
    s2 = fuzz_save_pprof(p1, &l2);

    if (!strict) {
        struct profile *p2 = fuzz_reload(s2, l2);
        char *s3 = fuzz_save_pprof(p2, &l3);

        if (l3 != l2 || memcmp(s2, s3, l2) != 0) {
            fprintf(stderr, "pprof: second save differs from the third\n");
            abort();
        }
        profile_free(p2);
        free(s3);
    } else if (l1 != l2 || memcmp(s1, s2, l1) != 0) {
        fprintf(stderr, "pprof: save -> load -> save changed the bytes\n");
        abort();
    }
    if (fuzz_amount(p1) != fuzz_amount(p)) {
        fprintf(stderr, "pprof: the reloaded profile weighs %llu, not "
                        "%llu\n", (unsigned long long)fuzz_amount(p1),
                (unsigned long long)fuzz_amount(p));
        abort();
    }
    profile_free(p1);
    free(s1);
    free(s2);
}

/* Per-sample formats (Sampler lines, stackprof's raw_timestamp_deltas)
 * write up to EXPORT_PER_SAMPLE_MAX entries by design: past this many
 * samples the fuzzers leave them out rather than time out in them. */
#define FUZZ_PER_SAMPLE_MAX 100000u

/* Every exporter on p, into /dev/null; folded also without thread roots.
 * pprof is left to fuzz_pprof_fixed_point, which writes it anyway (zlib's
 * set-up per write dominates the run time under ASan). */
static void fuzz_export_all(const struct profile *p)
{
    static FILE *null_out;
    struct export_opts o;

    if (!null_out)
        null_out = fopen("/dev/null", "w");
    if (!null_out)
        abort();
    export_opts_default(&o);
    for (size_t i = 0; i < format_count(); i++) {
        const struct format *e = format_at(i);

        /* a call graph goes only where export_to_file lets it */
        if (e == format_find("pprof") ||
            (!profile_has_stacks(p) && !e->graph) ||
            (e->per_sample && profile_weight_count(p, profile_samples(p)) >
                                  FUZZ_PER_SAMPLE_MAX))
            continue;
        e->write(p, &o, null_out);
    }
    o.no_thread_root = true;
    format_find("folded")->write(p, &o, null_out);
    clearerr(null_out);
}

/* A call graph's round trip: racket-json save -> load -> save -> load ->
 * save; the second and third saves are the same bytes (the first may
 * normalize: names, rounding), and the samples stay. */
static void fuzz_graph_fixed_point(const struct profile *p)
{
    const struct format *rj = format_find("racket-json");
    struct profile *q = (struct profile *)p, *keep[2] = { NULL, NULL };
    char *s[3] = { NULL, NULL, NULL }, err[512];
    size_t len[3];

    for (int k = 0; k < 3; k++) {
        FILE *f = open_memstream(&s[k], &len[k]);

        if (!f || rj->write(q, NULL, f) != 0)
            abort();
        fclose(f);
        if (k == 2)
            break;
        q = keep[k] = load_racket(s[k], len[k], "saved.racket.json", err,
                                  sizeof(err));
        if (!q) {
            fprintf(stderr, "sproftop's own Racket JSON does not load: %s\n",
                    err);
            abort();
        }
    }
    if (len[1] != len[2] || memcmp(s[1], s[2], len[1]) != 0) {
        fprintf(stderr, "racket-json: second save differs from the third\n");
        abort();
    }
    if (profile_samples(keep[1]) != profile_samples(keep[0])) {
        fprintf(stderr, "racket-json: the samples changed on reload\n");
        abort();
    }
    for (int k = 0; k < 3; k++)
        free(s[k]);
    profile_free(keep[0]);
    profile_free(keep[1]);
}

/* A loader's contract on failure: NULL and a one-line, non-empty error. */
static void fuzz_check_error(const struct profile *p, const char *err)
{
    if (!p && (err[0] == '\0' || strchr(err, '\n'))) {
        fprintf(stderr, "bad error message: '%s'\n", err);
        abort();
    }
}

/* A reader: load_buffer, load_folded, load_pprof, load_apple. */
typedef struct profile *(*fuzz_load_fn)(const char *buf, size_t len,
                                        const char *name, char *err,
                                        size_t errlen);

/* One fuzz input through reader `load` (the file named `name` in its
 * errors).  `strict`: the reader is pprof's, whose own output must
 * already be the round trip's fixed point.  Returns 0 (libFuzzer's
 * "keep going"); a broken invariant aborts. */
static int fuzz_reader(fuzz_load_fn load, const char *name, bool strict,
                       const uint8_t *data, size_t size)
{
    char err[512] = "";
    struct profile *p = load((const char *)data, size, name, err,
                             sizeof(err));

    fuzz_check_error(p, err);
    if (p) {
        fuzz_export_all(p);
        if (profile_has_stacks(p))
            fuzz_pprof_fixed_point(p, strict);
        else
            fuzz_graph_fixed_point(p);
    }
    profile_free(p);
    return 0;
}

#endif
