/* format.c - the table of file formats and the one extension matcher.
 *
 * See format.h.  A new format is one row here, its writer in
 * src/formats/export_NAME.c and, when it is read back, its reader in
 * src/formats/load_NAME.c (with a fuzz target, tests/fuzz.t checks).
 * tests/docs.t reads each row's one-line .name and .exts to check the
 * man page.
 */
#include "format.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* In --help order, which is also the order the save prompt's Tab walks. */
static const struct format formats[] = {
    {
        .name = "folded",
        .exts = ".folded .collapsed .stacks",
        .desc = "folded stacks, one line per stack (flamegraph.pl, "
                "speedscope)",
        .write = export_folded_write,
        .sniff = load_folded_sniff, .load = load_folded, .sniff_loose = true,
        .baseline = true,
    },
    {
        .name = "pprof",
        .exts = ".pb.gz .pprof .pb",
        .desc = "gzipped profile.proto with threads as labels (go tool "
                "pprof)",
        .write = export_pprof_write,
        .sniff = load_pprof_sniff, .load = load_pprof,
    },
    {
        .name = "speedscope",
        .exts = ".speedscope.json .json",
        .desc = "speedscope JSON, one sampled profile per thread",
        .write = export_speedscope_write,
        .sniff = load_speedscope_sniff, .load = load_speedscope,
    },
    {
        .name = "callgrind",
        .exts = ".callgrind callgrind.out.",
        .desc = "callgrind format, one event Samples (kcachegrind, "
                "callgrind_annotate)",
        .write = export_callgrind_write,
        .instr = true,
    },
    {
        .name = "text",
        .exts = ".txt",
        .desc = "Racket-style call graph report (honours "
                "--hide-self/--hide-subs)",
        .write = export_text_write,
        .graph = true,
        .annotate = true,
    },
    {
        .name = "racket-json",
        .exts = ".racket.json",
        .desc = "Racket's JSON call graph (json->profile of "
                "profile/render-json)",
        .write = export_racket_json_write,
        .sniff = load_racket_sniff, .load = load_racket,
        .graph = true,
    },
    {
        .name = "top",
        .exts = ".top",
        .desc = "stackprof-style flat table: TOTAL (pct) SAMPLES (pct) "
                "FRAME",
        .write = export_top_write,
    },
    {
        .name = "stackprof",
        .exts = ".stackprof.json",
        .desc = "stackprof JSON (stackprof --text, speedscope)",
        .write = export_stackprof_write,
        .per_sample = true,
    },
    {
        .name = "sampler",
        .exts = ".sampler",
        .desc = "Apple Sampler @supersamplerV1.0 (read back by sproftop -i)",
        .write = export_apple_write,
        .sniff = load_apple_sniff, .load = load_apple,
        .per_sample = true,
    },
    {
        .name = "samplingprof",
        .exts = ".samplingprof",
        .desc = "SamplingProf text: runtime, call elements, counts, call "
                "graph",
        .write = export_samplingprof_write,
    },
    {
        .name = "dot",
        .exts = ".dot .gv",
        .desc = "graphviz call graph, stackprof style (dot -Tsvg)",
        .write = export_dot_write,
        .graph = true,
    },
    {
        .name = "svg",
        .exts = ".svg",
        .desc = "interactive flame graph, one self-contained SVG (zoom, "
                "search)",
        .write = export_svg_write,
        .baseline = true,
    },
};

#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

size_t format_count(void)
{
    return N_FORMATS;
}

const struct format *format_at(size_t i)
{
    return i < N_FORMATS ? &formats[i] : NULL;
}

const struct format *format_find(const char *name)
{
    for (size_t i = 0; name && i < N_FORMATS; i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

/* The next word of a space-separated list at *w (its length in *len);
 * false at the end.  for (w = exts; next_word(&w, &len); w += len). */
static bool next_word(const char **w, size_t *len)
{
    *w += strspn(*w, " ");
    *len = strcspn(*w, " ");
    return *len > 0;
}

/* Length of the longest word of `exts` that base ends with (or, for a
 * word ending in '.', starts with), 0 if none; base must be longer than
 * the word.  *word points at it. */
static size_t ext_match(const char *exts, const char *base, const char **word)
{
    size_t blen = strlen(base), best = 0, len;

    for (const char *w = exts; next_word(&w, &len); w += len) {
        const char *at = w[len - 1] == '.' ? base : base + blen - len;

        if (blen > len && len > best && strncasecmp(at, w, len) == 0) {
            best = len;
            *word = w;
        }
    }
    return best;
}

const struct format *format_for_path(const char *path, bool readable)
{
    const struct format *best = NULL;
    size_t best_len = 0;
    const char *word;

    for (size_t i = 0; path && i < N_FORMATS; i++) {
        size_t len = ext_match(formats[i].exts, util_basename(path), &word);

        if (len > best_len && (!readable || formats[i].load)) {
            best = &formats[i];
            best_len = len;
        }
    }
    return best;
}

/* Append "NAME: WORD" to buf (n bytes) for each extension word of a format
 * other than `except` that is longer than ext[0..len) and ends with it
 * (every format's first word when ext is NULL), ", "-separated; returns
 * how many. */
static size_t list_exts(char *buf, size_t n, const struct format *except,
                        const char *ext, size_t len)
{
    size_t count = 0, used = strlen(buf), wl;

    for (size_t i = 0; i < N_FORMATS; i++)
        for (const char *w = formats[i].exts;
             &formats[i] != except && next_word(&w, &wl); w += wl) {
            if (ext ? wl <= len || strncasecmp(w + wl - len, ext, len) != 0
                    : w != formats[i].exts)
                continue;
            if (used < n)
                used += (size_t)snprintf(buf + used, n - used, "%s%s: %.*s",
                                         count ? ", " : "", formats[i].name,
                                         (int)wl, w);
            count++;
        }
    return count;
}

enum format_ext format_for_name(const char *path, const struct format **f,
                                char *msg, size_t n)
{
    const char *base = path ? util_basename(path) : "";
    const char *dot = strrchr(base, '.'), *word = "";
    char others[512] = "";

    msg[0] = '\0';
    if ((*f = format_for_path(path, false))) {
        size_t len = ext_match((*f)->exts, base, &word);
        const char *ext = base + strlen(base) - len;

        if (word[len - 1] == '.' ||
            !list_exts(others, sizeof(others), *f, ext, len))
            return FORMAT_EXT_OWNED;
        snprintf(msg, n, "%s is taken as %s (%s)", ext, (*f)->name, others);
        return FORMAT_EXT_SHARED;
    }
    if (!dot || dot == base || !dot[1])
        return FORMAT_EXT_NONE;
    list_exts(others, sizeof(others), NULL, NULL, 0);
    snprintf(msg, n, "no format has the extension %s (formats: %s)", dot,
             others);
    return FORMAT_EXT_UNKNOWN;
}

const char *format_names(char *buf, size_t n, bool readable)
{
    size_t used = 0;

    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < N_FORMATS && used < n; i++) {
        if (readable && !formats[i].load)
            continue;
        int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                         formats[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}
