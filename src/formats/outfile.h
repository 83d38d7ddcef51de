/* outfile.h - where a profile is written: standard output or error, or a
 * file replaced atomically.
 *
 * export_to_file and export_check_path (export.c) are the callers (and
 * main.c asks outfile_std_fd for the save dialog); batch mode (-o),
 * conversions (-i ... -o) and the TUI's save dialog all end there, so the
 * rules for an output path live here once:
 *   - "-", /dev/stdout and /dev/stderr (and /dev/fd/1, /dev/fd/2,
 *     /proc/self/fd/1, /proc/self/fd/2) name a descriptor, written where
 *     it points, never opened or renamed;
 *   - any other path gets a new temporary file (mode 0600: a profile holds
 *     a command line) beside it, renamed over it once complete; never over
 *     a symlink, a directory, a device, or anything in /dev, /proc or
 *     /sys; a replaced file keeps its mode (and its owner, when root).
 * Any thread, one outfile per thread; libc only.
 */
#ifndef SPROFTOP_OUTFILE_H
#define SPROFTOP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

struct outfile {
    const char *path;  /* as given, for messages; borrowed */
    int std_fd;        /* 1 or 2 when path names one, else -1 */
    int dirfd;         /* the directory that holds path, -1 for std_fd */
    const char *base;  /* path's last component (points into path) */
    bool exists;       /* base was a regular file when opened */
    struct stat old;   /* what it was then: replaced only if still so */
    char *tmp;         /* the temporary file's name in dirfd */
    FILE *f;           /* the stream the writer fills */
};

/* 1 or 2 when path names standard output or error, else -1. */
int outfile_std_fd(const char *path);

/* Check, before any work, that `path` could be written now: a standard
 * descriptor that is open, or a path whose directory exists, is writable
 * and is not a system one, naming nothing or a regular file that is not
 * read-only.  Returns 0, or -1 with a one-line reason in err (naming the
 * path). */
int outfile_check(const char *path, char *err, size_t errlen);

/* Check path as outfile_check does and open it for writing: of->f is the
 * stream to fill, a new temporary file or a copy of the descriptor.  Returns
 * 0, or -1 with a one-line reason in err and nothing left open. */
int outfile_open(struct outfile *of, const char *path, char *err,
                 size_t errlen);

/* End a write begun by outfile_open.  werr is 0 when the writer succeeded,
 * else the errno value saying why not.  On success the stream is flushed,
 * synced and closed and the temporary file renamed over the destination;
 * otherwise (or when that fails) the temporary file is removed and the
 * destination left as it was.  Returns 0, or -1 with a one-line reason in
 * err (naming the path): "file too large" for EFBIG. */
int outfile_finish(struct outfile *of, int werr, char *err, size_t errlen);

#endif
