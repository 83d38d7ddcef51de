/* load.c - open a saved profile: read the file, pick the reader.
 *
 * The whole file is read into memory (bounded by LOAD_MAX_FILE): readers
 * then parse a buffer, which works the same for pipes (-i /dev/stdin) and
 * lets binary formats seek freely.  Content decides first, because names
 * lie ("profile.txt"); the suffix decides only when no sniffer claims the
 * bytes, so a damaged file still gets its reader's precise error.
 */
#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "profile.h"
#include "util.h"
#include "vec.h"

int load_error(char *err, size_t errlen, const char *name, const char *fmt,
               ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    util_errf(err, errlen, "%s: %s", name, why);
    return -1;
}

void load_python_origin(struct frame_desc *d)
{
    const char *base = d->file ? strrchr(d->file, '/') : NULL;

    base = base ? base + 1 : d->file;
    enum frame_origin o = profile_origin_of(base, d->file);

    if (o != FRAME_ORIGIN_NATIVE) {
        d->module = base;
        d->origin = (uint8_t)o;
    }
}

/* Read all of fd; NULL with err filled on failure or when too big. */
static char *read_all(int fd, const char *path, size_t *len, char *err,
                      size_t errlen)
{
    size_t cap = 0, n = 0;
    char *buf = NULL;

    if (VEC_RESERVE(buf, cap, 64 * 1024) < 0)
        goto oom;
    for (;;) {
        ssize_t r;

        if (n == cap) {
            if (cap >= LOAD_MAX_FILE) {
                util_errf(err, errlen, "%s: larger than %llu MiB", path,
                          LOAD_MAX_FILE >> 20);
                free(buf);
                return NULL;
            }
            if (VEC_RESERVE(buf, cap, cap + 1) < 0)
                goto oom;
        }
        r = read(fd, buf + n, cap - n);
        if (r == 0)
            break;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            util_errf(err, errlen, "%s: %s", path, strerror(errno));
            free(buf);
            return NULL;
        }
        n += (size_t)r;
    }
    *len = n;
    return buf;
oom:
    free(buf);
    util_errf(err, errlen, "%s: out of memory", path);
    return NULL;
}

struct profile *load_file(const char *path, char *err, size_t errlen)
{
    struct profile *p;
    struct stat st;
    size_t len;
    char *buf;
    int fd;

    if (!path || !*path) {
        util_errf(err, errlen, "no input file name");
        return NULL;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        util_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        util_errf(err, errlen, "cannot open %s: it is a directory", path);
        close(fd);
        return NULL;
    }
    buf = read_all(fd, path, &len, err, errlen);
    close(fd);
    if (!buf)
        return NULL;
    p = load_buffer(buf, len, path, err, errlen);
    free(buf);
    return p;
}

/* The reader for buf: the first format whose magic its content has, then
 * one whose loose sniff takes it, then the one the name's suffix names;
 * NULL when none. */
static const struct format *pick_reader(const char *buf, size_t len,
                                        const char *name)
{
    for (int loose = 0; loose < 2; loose++)
        for (size_t i = 0; i < format_count(); i++) {
            const struct format *f = format_at(i);

            if (f->sniff && f->sniff_loose == loose && f->sniff(buf, len))
                return f;
        }
    return format_for_path(name, true);
}

struct profile *load_buffer(const char *buf, size_t len, const char *name,
                            char *err, size_t errlen)
{
    const struct format *f;
    char names[256];

    if (!name)
        name = "<buffer>";
    if (len == 0) {
        util_errf(err, errlen, "%s: no samples (empty file)", name);
        return NULL;
    }
    if (!(f = pick_reader(buf, len, name))) {
        util_errf(err, errlen, "%s: unrecognized format (sproftop reads: %s)",
                  name, format_names(names, sizeof(names), true));
        return NULL;
    }
    return f->load(buf, len, name, err, errlen);
}
