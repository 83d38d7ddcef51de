/* export.h - writing a profile: the writers and the atomic file writer.
 *
 * Each format's writer lives in its own src/formats/export_NAME.c and
 * writes a profile to a FILE *, with libc (and zlib) only; the format
 * table (format.h) names and describes them.  Batch mode (-o), the TUI's
 * snapshot prompt and conversions (-i ... -o) all go through
 * export_to_file, which leaves where the bytes go to outfile.h.
 */
#ifndef SPROFTOP_EXPORT_H
#define SPROFTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct annot_request;
struct annotation;
struct frame_desc;
struct profile;
struct format;

/* Options some formats honour. */
struct export_opts {
    bool no_thread_root; /* folded: leave out the "name-TID" root frame */
    bool no_process_root;/* folded: leave out the "comm-PID" frame above
                            it (written when there are several processes) */
    double hide_self;    /* text: hide-self threshold in percent */
    double hide_subs;    /* text: hide-subs threshold in percent */
    const struct profile *baseline; /* differential output against this
                                       profile (folded: both counts per
                                       line; svg: coloured by change);
                                       NULL: none, and the formats that
                                       cannot show a change ignore it */
    bool python_only;    /* --python-only: stacks with Python frames keep
                            only them (profile_filter.python_only) */
    const struct annotation *annotation; /* text: this function's
                                       instructions with their samples
                                       (annotate.h), instead of the call
                                       graph (--annotate NAME); NULL: the
                                       report */
    bool dump_instr;     /* callgrind: a cost per instruction ("positions:
                            instr line", as valgrind --dump-instr=yes
                            writes) */
    /* The machine code of a function (a source's annotate op), which
     * gives dump_instr its lines; NULL: every address on its function's
     * first line.  The writer frees what it returns. */
    struct annotation *(*code)(void *ctx, const struct annot_request *rq);
    void *code_ctx;
};

/* Defaults: thread roots on, the hide thresholds' defaults (bounds.h),
 * no baseline. */
void export_opts_default(struct export_opts *o);

/* Sample count past which export_to_file refuses the per-sample formats:
 * a profile counted in, say, nanoseconds (a converted Go profile) would
 * otherwise write without bound.  pprof carries the same data compactly. */
#define EXPORT_PER_SAMPLE_MAX 50000000ull

/* Folded stacks: the suffix of a kernel function's name, as FlameGraph's
 * stackcollapse-perf.pl --kernel writes it ("read_zero_[k]"); written by
 * export_folded, read back by load_folded. */
#define FOLDED_KERNEL_MARK "_[k]"

/* A writer, one in each src/formats/export_NAME.c, named in its row of
 * the format table (format.h).  Writes p to f.  Returns 0, or -1 with
 * errno set when the format knows why (EOVERFLOW, or a failed call's
 * errno); left 0, export_to_file reports ENOMEM, or EIO when f has its
 * error flag.  Any thread; a writer reads p only. */
typedef int export_write_fn(const struct profile *p,
                            const struct export_opts *o, FILE *f);
export_write_fn export_folded_write, export_pprof_write,
    export_speedscope_write, export_callgrind_write, export_text_write,
    export_top_write, export_stackprof_write, export_apple_write,
    export_samplingprof_write, export_dot_write, export_svg_write,
    export_racket_json_write;

/* The text format's --annotate: o->annotation's function with its
 * samples (export_annotate.c).  Any thread; reads p only. */
export_write_fn export_annotate_write;

/* For the writers of count formats: write(q, o', f) where q is p in
 * counts of its nominal interval (profile_counts: the sample counts of a
 * profile sampled at one rate) and o' is o with its baseline in counts
 * too (o NULL: the defaults).  Returns write's result, or -1 on OOM.
 * Any thread. */
int export_write_counts(const struct profile *p, const struct export_opts *o,
                        FILE *f, export_write_fn *write);

/* EXPORT_COUNTS_WRITER(name, write): defines the export_write_fn `name`
 * of a count format as export_write_counts(p, o, f, write): a file
 * sampled at one rate holds its samples (profile.h, "Weights"). */
#define EXPORT_COUNTS_WRITER(name, write)                                   \
    int name(const struct profile *p, const struct export_opts *o,         \
             FILE *f)                                                       \
    {                                                                       \
        return export_write_counts(p, o, f, write);                         \
    }

/* Write d's source place between `open` and `close`: its file (through
 * the format's escaper `text`) and, when known, ":LINE"; nothing when d
 * has no file.  Any thread. */
void export_put_place(FILE *f, const struct frame_desc *d, const char *open,
                      const char *close,
                      void (*text)(FILE *f, const char *s));

/* Check, before any work, that `path` can be written by export_to_file
 * (outfile_check: a standard descriptor that is open, or a writable
 * directory outside /dev, /proc and /sys and no directory, symlink,
 * device or read-only file in the way).  Returns 0, or -1 with a one-line
 * reason in err (naming the path). */
int export_check_path(const char *path, char *err, size_t errlen);

/* Write p to `path` with e.  "-", /dev/stdout and /dev/stderr write to the
 * descriptor; any other path gets a new temporary file (0600, or the mode
 * and owner of the file it replaces), fsync'd, then renamed over path,
 * never over a symlink or anything but the regular file that was checked
 * (outfile.h).  A per-sample format refuses more than
 * EXPORT_PER_SAMPLE_MAX samples, and a format that needs stacks a
 * profile that holds a call graph (PROFILE_NO_STACKS).  Returns 0, or -1
 * with a one-line reason in err (naming the path; "file too large" past a
 * file size limit, which needs SIGXFSZ ignored to be seen: the caller's
 * business). */
int export_to_file(const struct format *e, const struct profile *p,
                   const struct export_opts *o, const char *path,
                   char *err, size_t errlen);

#endif
