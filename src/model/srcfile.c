/* srcfile.c - a source file in lines; see srcfile.h. */
#include "srcfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "vec.h"

void srcfile_free(struct srcfile *sf)
{
    free(sf->text);
    free(sf->line);
    sf->text = NULL;
    sf->line = NULL;
    sf->nlines = 0;
}

const char *srcfile_line(const struct srcfile *sf, size_t n)
{
    return n >= 1 && n <= sf->nlines ? sf->line[n - 1] : NULL;
}

int srcfile_load(struct srcfile *sf, const char *path, char *err,
                 size_t errlen)
{
    int fd = util_open_regular(path, NULL);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    size_t len = 0, cap = 0, n = 0;
    char buf[65536];

    *sf = (struct srcfile){ 0 };
    if (!f) {
        int e = errno;

        if (fd >= 0)
            close(fd);
        errno = e;
        if (e == EINVAL)
            snprintf(err, errlen, "%s: not a regular file", path);
        else
            snprintf(err, errlen, "%s: %m", path);
        return -1;
    }
    for (size_t r; (r = fread(buf, 1, sizeof(buf), f)) > 0;) {
        if (len + r + 1 > SRCFILE_MAX_BYTES) {
            snprintf(err, errlen, "%s: larger than %u MiB", path,
                     SRCFILE_MAX_BYTES >> 20);
            goto fail;
        }
        if (VEC_RESERVE(sf->text, cap, len + r + 1) < 0)
            goto oom;
        memcpy(sf->text + len, buf, r);
        len += r;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    f = NULL;
    if (!sf->text && !(sf->text = malloc(1)))
        goto oom;
    sf->text[len] = '\0';
    for (size_t i = 0; i < len; i++)
        n += sf->text[i] == '\n';
    if (len && sf->text[len - 1] != '\n')
        n++;
    sf->line = malloc((n ? n : 1) * sizeof(*sf->line));
    if (!sf->line)
        goto oom;
    char *p = sf->text;
    for (size_t i = 0; i < n; i++) {
        sf->line[i] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    sf->nlines = n;
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", path);
fail:
    if (f)
        fclose(f);
    srcfile_free(sf);
    return -1;
}
