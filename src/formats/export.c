/* export.c - the registry of output formats and the atomic file writer.
 *
 * Batch mode (-o), the TUI's snapshot prompt and conversions all end in
 * export_to_file, so the rules for replacing an existing file live here
 * once: write a new temporary file beside the destination, fsync it, and
 * rename() it over the destination, so a reader never sees half a profile
 * and a crash never leaves one.
 */
#include "export.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
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

/* Why an open/write/rename failed, in words a user can act on. */
static const char *errno_text(int e)
{
    switch (e) {
    case ENOENT:
        return "directory does not exist";
    case ENOTDIR:
        return "a component of the path is not a directory";
    case EACCES:
    case EPERM:
        return "permission denied";
    case EROFS:
        return "read-only file system";
    case ENOSPC:
        return "no space left on device";
    case EDQUOT:
        return "disk quota exceeded";
    case EISDIR:
        return "it is a directory";
    case ENAMETOOLONG:
        return "file name too long";
    case ENOMEM:
        return "out of memory";
    case ELOOP:
        return "too many levels of symbolic links";
    case EIO:
        return "input/output error";
    case EFBIG:
        return "too many samples for this format (write pprof instead)";
    default:
        return strerror(e);
    }
}

/* A random 12-hex-digit tag for the temporary name; O_EXCL makes a clash
 * an error we retry, never an overwrite. */
static void random_tag(char out[13])
{
    uint64_t r;

    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
        r = util_mix64(clock_mono_ns() ^ (uint64_t)getpid() << 48);
    snprintf(out, 13, "%012llx", (unsigned long long)(r & 0xffffffffffffull));
}

/* Check what `path` is now.  0 when it may be replaced (absent, a regular
 * file, or a symlink of ours that does not lead to a device or pipe). */
static int check_destination(const char *path, char *err, size_t errlen)
{
    struct stat st, target;

    if (lstat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;  /* open() below says which part is missing */
        util_errf(err, errlen, "cannot write %s: %s", path,
                  errno_text(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        util_errf(err, errlen, "cannot write %s: it is a directory", path);
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        /* rename() replaces the link itself, never its target; still, a
         * link planted by someone else is a trap, and one that leads to a
         * device (/dev/stdout) is surely not meant to be replaced. */
        if (st.st_uid != geteuid()) {
            util_errf(err, errlen,
                      "refusing to replace %s: it is a symlink owned by "
                      "uid %u",
                      path, (unsigned)st.st_uid);
            return -1;
        }
        if (stat(path, &target) == 0 && !S_ISREG(target.st_mode)) {
            util_errf(err, errlen,
                      "refusing to replace %s: it is a symlink to something "
                      "that is not a regular file",
                      path);
            return -1;
        }
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        util_errf(err, errlen,
                  "refusing to replace %s: it is not a regular file", path);
        return -1;
    }
    /* rename() would replace a read-only file even for a user who could
     * not write it, and root bypasses the permission bits altogether: a
     * file nobody may write is one its owner meant to keep. */
    if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) ||
        (geteuid() != 0 && access(path, W_OK) != 0)) {
        util_errf(err, errlen, "refusing to replace %s: the file is read-only",
                  path);
        return -1;
    }
    return 0;
}

/* Whether the directory part of path exists (as a directory). */
static bool dir_exists(const char *path, struct stat *st)
{
    const char *base = util_basename(path);
    size_t dl = (size_t)(base - path);
    char *dir = dl ? strndup(path, dl) : strdup(".");
    bool ok = dir && stat(dir, st) == 0 && S_ISDIR(st->st_mode);
    free(dir);
    return ok;
}

int export_check_path(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (!path || !*path) {
        util_errf(err, errlen, "no output file name");
        return -1;
    }
    if (!dir_exists(path, &st)) {
        util_errf(err, errlen, "cannot write %s: its directory does not exist",
                  path);
        return -1;
    }
    const char *base = util_basename(path);
    size_t dl = (size_t)(base - path);
    char *dir = dl ? strndup(path, dl) : strdup(".");
    int denied = dir && access(dir, W_OK | X_OK) != 0;
    free(dir);
    if (denied) {
        util_errf(err, errlen, "cannot write %s: no permission to create "
                  "files in its directory", path);
        return -1;
    }
    return check_destination(path, err, errlen);
}

/* Create the temporary file beside path; returns the fd and fills tmp. */
static int open_temp(const char *path, char *tmp, size_t tmplen)
{
    const char *base = util_basename(path);
    int dirlen = (int)(base - path);
    int fd = -1;

    for (int attempt = 0; attempt < 16; attempt++) {
        char tag[13];

        random_tag(tag);
        /* Keep the name under NAME_MAX (255) whatever the basename. */
        snprintf(tmp, tmplen, "%.*s.%.200s.%s.tmp", dirlen, path, base, tag);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0644);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    return fd;
}

static void fsync_dir(const char *path)
{
    const char *base = util_basename(path);
    char dir[4096];
    int fd;

    if (base == path)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(base - path), path);
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);  /* durability of the rename only; best effort */
        close(fd);
    }
}

/* Write p with e into the temporary file fd, flushed and synced, and
 * close it.  0, or an errno value saying why not. */
static int write_temp(const struct exporter *e, const struct profile *p,
                      const struct export_opts *o, int fd)
{
    FILE *f = fdopen(fd, "w");
    int rc, saved;

    if (!f) {
        saved = errno;
        close(fd);
        return saved;
    }
    /* The one place a failed write is explained: a writer sets errno
     * when it knows why (EFBIG, EOVERFLOW, a failed call's); otherwise
     * the stream's error flag tells an I/O error from running out of
     * memory. */
    errno = 0;
    rc = e->write(p, o, f);
    saved = errno ? errno : ferror(f) ? EIO : ENOMEM;
    if (rc == 0 && (fflush(f) != 0 || ferror(f))) {
        rc = -1;
        saved = errno ? errno : EIO;
    }
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL) {
        rc = -1;
        saved = errno;
    }
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    return rc == 0 ? 0 : saved ? saved : EIO;
}

int export_to_file(const struct exporter *e, const struct profile *p,
                   const struct export_opts *o, const char *path,
                   char *err, size_t errlen)
{
    struct export_opts defaults;
    size_t tmplen;
    char *tmp;
    int fd, saved;

    if (!path || !*path) {
        util_errf(err, errlen, "no output file name");
        return -1;
    }
    if (!o) {
        export_opts_default(&defaults);
        o = &defaults;
    }
    if (check_destination(path, err, errlen))
        return -1;
    tmplen = strlen(path) + 32;
    tmp = malloc(tmplen);
    if (!tmp) {
        util_errf(err, errlen, "cannot write %s: out of memory", path);
        return -1;
    }
    fd = open_temp(path, tmp, tmplen);
    if (fd < 0) {
        saved = errno;
        struct stat dst;
        /* ENOENT from a directory that exists (/proc, sysfs): the file
         * system does not let new files be made there */
        if (saved == ENOENT && dir_exists(path, &dst))
            util_errf(err, errlen, "cannot write %s: this file system does "
                      "not allow creating files there", path);
        else
            util_errf(err, errlen, "cannot write %s: %s", path,
                      errno_text(saved));
        free(tmp);
        return -1;
    }
    saved = write_temp(e, p, o, fd);
    if (saved == 0 && rename(tmp, path) != 0)
        saved = errno;
    if (saved != 0) {
        unlink(tmp);
        util_errf(err, errlen, "cannot write %s: %s", path,
                  errno_text(saved));
        free(tmp);
        return -1;
    }
    fsync_dir(path);
    free(tmp);
    return 0;
}
