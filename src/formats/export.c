/* export.c - the registry of output formats and the atomic file writer.
 *
 * Batch mode (-o), the TUI's snapshot prompt and conversions all end in
 * export_to_file; where the bytes go (a descriptor, or a temporary file
 * renamed over the destination, so a reader never sees half a profile) is
 * outfile.c's business.
 */
#include "export.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "outfile.h"
#include "profile.h"
#include "util.h"

/* The formats, in --help order: a new format is one entry here, one in
 * the exporters[] list below and its writer in src/formats/export_NAME.c. */
const struct exporter export_folded = {
    .name = "folded",
    .exts = ".folded .collapsed",
    .desc = "folded stacks, one line per stack (flamegraph.pl, speedscope)",
    .write = export_folded_write,
};

const struct exporter export_pprof = {
    .name = "pprof",
    .exts = ".pb.gz .pprof",
    .desc = "gzipped profile.proto with threads as labels (go tool pprof)",
    .write = export_pprof_write,
};

const struct exporter export_speedscope = {
    .name = "speedscope",
    .exts = ".speedscope.json",
    .desc = "speedscope JSON, one sampled profile per thread",
    .write = export_speedscope_write,
};

const struct exporter export_callgrind = {
    .name = "callgrind",
    .exts = ".callgrind callgrind.out.",
    .desc = "callgrind format, one event Samples (kcachegrind, "
            "callgrind_annotate)",
    .write = export_callgrind_write,
};

const struct exporter export_text = {
    .name = "text",
    .exts = ".txt",
    .desc = "Racket-style call graph report (honours --hide-self/--hide-subs)",
    .write = export_text_write,
};

const struct exporter export_top = {
    .name = "top",
    .exts = ".top",
    .desc = "stackprof-style flat table: TOTAL (pct) SAMPLES (pct) FRAME",
    .write = export_top_write,
};

const struct exporter export_stackprof = {
    .name = "stackprof",
    .exts = ".stackprof.json",
    .desc = "stackprof JSON (stackprof --text, speedscope)",
    .write = export_stackprof_write,
    .per_sample = true,
};

const struct exporter export_apple = {
    .name = "sampler",
    .exts = ".sampler",
    .desc = "Apple Sampler @supersamplerV1.0 (read back by sproftop -i)",
    .write = export_apple_write,
    .per_sample = true,
};

const struct exporter export_samplingprof = {
    .name = "samplingprof",
    .exts = ".samplingprof",
    .desc = "SamplingProf text: runtime, call elements, counts, call graph",
    .write = export_samplingprof_write,
};

const struct exporter export_dot = {
    .name = "dot",
    .exts = ".dot .gv",
    .desc = "graphviz call graph, stackprof style (dot -Tsvg)",
    .write = export_dot_write,
};

const struct exporter export_svg = {
    .name = "svg",
    .exts = ".svg",
    .desc = "interactive flame graph, one self-contained SVG (zoom, search)",
    .write = export_svg_write,
};

/* The registry, in --help order. */
static const struct exporter *const exporters[] = {
    &export_folded,
    &export_pprof,
    &export_speedscope,
    &export_callgrind,
    &export_text,
    &export_top,
    &export_stackprof,
    &export_apple,
    &export_samplingprof,
    &export_dot,
    &export_svg,
};

#define N_EXPORTERS (sizeof(exporters) / sizeof(exporters[0]))

void export_opts_default(struct export_opts *o)
{
    *o = (struct export_opts){
        .no_thread_root = false,
        .hide_self = 1.0,
        .hide_subs = 2.0,
    };
}

bool export_takes_baseline(const struct exporter *e)
{
    return e == &export_folded || e == &export_svg;
}

size_t export_count(void)
{
    return N_EXPORTERS;
}

const struct exporter *export_at(size_t i)
{
    return i < N_EXPORTERS ? exporters[i] : NULL;
}

const struct exporter *export_find(const char *name)
{
    for (size_t i = 0; name && i < N_EXPORTERS; i++)
        if (strcmp(exporters[i]->name, name) == 0)
            return exporters[i];
    return NULL;
}

/* Length of the suffix/prefix word of `exts` that matches base, 0 if
 * none.  The longest wins, so ".stackprof.json" beats ".json". */
static size_t ext_match(const char *exts, const char *base)
{
    size_t blen = strlen(base), best = 0;

    while (*exts) {
        size_t len = strcspn(exts, " ");

        if (len == 0) {
            exts++;
            continue;
        }
        if (exts[len - 1] == '.') {
            if (blen > len && strncasecmp(base, exts, len) == 0 && len > best)
                best = len;
        } else if (blen > len &&
                   strncasecmp(base + blen - len, exts, len) == 0 &&
                   len > best) {
            best = len;
        }
        exts += len;
    }
    return best;
}

const struct exporter *export_for_path(const char *path)
{
    const struct exporter *best = NULL;
    size_t best_len = 0;

    if (!path)
        return NULL;
    for (size_t i = 0; i < N_EXPORTERS; i++) {
        size_t len = ext_match(exporters[i]->exts, util_basename(path));

        if (len > best_len) {
            best = exporters[i];
            best_len = len;
        }
    }
    return best;
}

int export_check_path(const char *path, char *err, size_t errlen)
{
    return outfile_check(path, err, errlen);
}

int export_to_file(const struct exporter *e, const struct profile *p,
                   const struct export_opts *o, const char *path,
                   char *err, size_t errlen)
{
    struct export_opts defaults;
    struct outfile of;
    int rc, werr;

    if (!o) {
        export_opts_default(&defaults);
        o = &defaults;
    }
    if (e->per_sample && profile_weight_count(p, profile_samples(p)) >
                             EXPORT_PER_SAMPLE_MAX) {
        util_errf(err, errlen, "cannot write %s: too many samples for the %s "
                  "format (write pprof instead)", path ? path : "", e->name);
        return -1;
    }
    struct profile *py = NULL;
    if (o->python_only) {
        struct profile_filter pf = { .thread = PROFILE_NONE,
                                     .focus = PROFILE_NONE,
                                     .python_only = true };
        if (!(py = profile_derive(p, &pf))) {
            util_errf(err, errlen, "cannot write %s: out of memory",
                      path ? path : "");
            return -1;
        }
        p = py;
    }
    if (outfile_open(&of, path, err, errlen) != 0) {
        profile_free(py);
        return -1;
    }
    /* The one place a failed write is explained: a writer sets errno
     * when it knows why (EOVERFLOW, a failed call's: EFBIG past a file
     * size limit); otherwise the stream's error flag tells an I/O error
     * from running out of memory. */
    errno = 0;
    rc = e->write(p, o, of.f);
    werr = rc == 0 ? 0 : errno ? errno : ferror(of.f) ? EIO : ENOMEM;
    profile_free(py);
    return outfile_finish(&of, werr, err, errlen);
}

int export_write_counts(const struct profile *p, const struct export_opts *o,
                        FILE *f, export_write_fn *write)
{
    struct profile *own = NULL, *own_base = NULL;
    const struct profile *q = profile_counts(p, &own);
    struct export_opts oc;
    int rc = -1;

    if (!o)
        export_opts_default(&oc);
    else
        oc = *o;
    if (q && oc.baseline &&
        !(oc.baseline = profile_counts(oc.baseline, &own_base)))
        q = NULL;
    o = &oc;
    if (q)
        rc = write(q, o, f);
    profile_free(own);
    profile_free(own_base);
    return rc;
}
