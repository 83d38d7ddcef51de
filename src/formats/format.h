/* format.h - the one table of file formats.
 *
 * Each row names a format and says everything the program needs of it:
 * its -f name, the file names that pick it, its writer (export_NAME.c),
 * its reader when it has one (load_NAME.c), and what it can carry.  The
 * CLI (-f, -o's extension, --help's "Formats:" line), the TUI's save
 * prompt (through main.c's struct ui_save_ops), export_to_file and
 * load_buffer all read this table, and format_for_path is the one
 * extension matcher for writing and reading alike.  libc only; the table
 * is constant, so any thread may read it.
 */
#ifndef SPROFTOP_FORMAT_H
#define SPROFTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "export.h"
#include "load.h"

struct format {
    const char *name;   /* -f name, e.g. "folded" */
    const char *exts;   /* space-separated file name suffixes, the first
                           the one new files get, e.g. ".folded
                           .collapsed"; a word ending in '.' is a prefix
                           ("callgrind.out.") */
    const char *desc;   /* one line for --help and the docs */
    export_write_fn *write; /* the writer (export.h) */
    load_sniff_fn *sniff;   /* whether a buffer holds this format; NULL
                               with load */
    load_fn *load;          /* the reader (load.h); NULL: not read back */
    bool sniff_loose;   /* sniff is a guess from the text's shape, tried
                           after every format with a magic of its own */
    bool per_sample;    /* writes something per sample (not per stack), so
                           export_to_file refuses profiles of more than
                           EXPORT_PER_SAMPLE_MAX samples */
    bool baseline;      /* writes a differential profile when given a
                           baseline (export_opts.baseline) */
    bool graph;         /* writes from a call graph alone, so also a
                           profile without stacks (profile.h
                           profile_has_stacks); the others refuse it */
    bool annotate;      /* writes one function's instructions instead
                           (export_opts.annotation: --annotate NAME) */
    bool instr;         /* writes a cost per instruction when asked
                           (export_opts.dump_instr: --dump-instr) */
};

/* Number of formats, and the i-th (in --help order), NULL past the end. */
size_t format_count(void);
const struct format *format_at(size_t i);

/* Format by -f name, NULL if unknown (or name NULL). */
const struct format *format_find(const char *name);

/* Format whose extension the file name `path` ends with (or whose prefix
 * it starts with), the longest match winning (".stackprof.json" over
 * ".json"); only formats with a reader when `readable`.  NULL when none
 * matches, or path is NULL.  The directory part is ignored, and a name
 * is never its own extension (".folded" matches nothing). */
const struct format *format_for_path(const char *path, bool readable);

/* What the extension of a file name to write says (format_for_name). */
enum format_ext {
    FORMAT_EXT_NONE,    /* the name has none ("out", "-", /dev/stdout):
                           the caller's default format */
    FORMAT_EXT_OWNED,   /* a format's own extension (".folded") */
    FORMAT_EXT_SHARED,  /* an extension other formats' end with too
                           (".json", not ".stackprof.json"): the format
                           that has it alone, said aloud */
    FORMAT_EXT_UNKNOWN, /* an extension no format has (".xyz"): refused */
};

/* The format to write the file `path` in, by its extension, into *f
 * (NULL unless OWNED or SHARED), with a phrase for the user in msg (n
 * bytes, at least 1; "" when there is nothing to say): for SHARED, which
 * format the extension was taken for and the extensions of the others
 * (".json is taken as speedscope (stackprof: .stackprof.json)"); for
 * UNKNOWN, the refusal and every format's name and first extension.  An
 * extension is what follows the last '.' of the file name, when that is
 * neither its first nor its last character; a format's prefix
 * ("callgrind.out.") counts as its extension. */
enum format_ext format_for_name(const char *path, const struct format **f,
                                char *msg, size_t n);

/* The names of the formats, ", "-separated, into buf (n bytes); only
 * those with a reader when `readable`.  Returns buf. */
const char *format_names(char *buf, size_t n, bool readable);

#endif
