/* srcfile.h - a source file read whole, split into lines: what the code
 * view shows beside its counts and the annotated listings quote.
 *
 * The path is a name from a profile or from debug info, untrusted: only
 * a regular file is read (a crafted name could point at a FIFO or
 * /dev/tty), never with an open that can block, and at most
 * SRCFILE_MAX_BYTES (a profiler shows source, it is no editor).
 *
 * Pure (libc).  Any thread; a struct srcfile has one owner.
 */
#ifndef SPROFTOP_SRCFILE_H
#define SPROFTOP_SRCFILE_H

#include <stddef.h>

#define SRCFILE_MAX_BYTES (16u << 20)

struct srcfile {
    char *text;     /* the contents, lines NUL-separated */
    char **line;    /* start of each line, nlines entries */
    size_t nlines;
};

/* Read path into *sf (zeroed first).  0, or -1 with a one-line reason
 * naming the path in err ("x.c: No such file or directory", "x.c: not
 * a regular file", "x.c: larger than 16 MiB"); *sf is then empty. */
int srcfile_load(struct srcfile *sf, const char *path, char *err,
                 size_t errlen);

/* Line n (from 1) of sf, or NULL past its end. */
const char *srcfile_line(const struct srcfile *sf, size_t n);

/* Free what sf holds and empty it. */
void srcfile_free(struct srcfile *sf);

#endif
