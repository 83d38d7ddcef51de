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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "util.h"
#include "vec.h"

struct loader {
    const char *name;  /* format name for messages */
    const char *exts;  /* space-separated file name suffixes */
    bool (*sniff)(const char *buf, size_t len);
    struct profile *(*load)(const char *buf, size_t len, const char *name,
                            char *err, size_t errlen);
};

/* Sniffers run in this order; put the most specific (magic bytes) first. */
static const struct loader loaders[] = {
    { "sampler", ".sampler", load_apple_sniff, load_apple },
    { "pprof", ".pb.gz .pprof .pb", load_pprof_sniff, load_pprof },
    { "folded", ".folded .collapsed .stacks", load_folded_sniff,
      load_folded },
};

#define N_LOADERS (sizeof(loaders) / sizeof(loaders[0]))

static bool has_suffix(const char *path, const char *exts)
{
    size_t plen = strlen(path);

    while (*exts) {
        size_t len = strcspn(exts, " ");

        if (len && plen > len &&
            strncasecmp(path + plen - len, exts, len) == 0)
            return true;
        exts += len + (exts[len] == ' ');
    }
    return false;
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

struct profile *load_buffer(const char *buf, size_t len, const char *name,
                            char *err, size_t errlen)
{
    const struct loader *l = NULL;

    if (!name)
        name = "<buffer>";
    if (len == 0) {
        util_errf(err, errlen, "%s: no samples (empty file)", name);
        return NULL;
    }
    for (size_t i = 0; i < N_LOADERS && !l; i++)
        if (loaders[i].sniff(buf, len))
            l = &loaders[i];
    for (size_t i = 0; i < N_LOADERS && !l; i++)
        if (has_suffix(name, loaders[i].exts))
            l = &loaders[i];
    if (!l) {
        char names[128] = "";

        for (size_t i = 0; i < N_LOADERS; i++)
            snprintf(names + strlen(names), sizeof(names) - strlen(names),
                     "%s%s", i ? ", " : "", loaders[i].name);
        util_errf(err, errlen, "%s: unrecognized format (sproftop reads: %s)",
                  name, names);
        return NULL;
    }
    return l->load(buf, len, name, err, errlen);
}
