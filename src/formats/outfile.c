/* outfile.c - standard descriptors, and files replaced atomically; see
 * outfile.h.
 *
 * Every step on a file goes through a descriptor of its directory
 * (openat, fstatat, renameat2), so the directory that was checked is the
 * one written, whatever happens to the path's other components meanwhile.
 * The final rename cannot replace something that was not checked: a new
 * file is put in place with RENAME_NOREPLACE, an existing one is swapped
 * with RENAME_EXCHANGE and the swap undone when what came out is not the
 * file that was checked (a symlink planted while the profile was written).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"
#include "util.h"

/* Names of the standard descriptors: written in place. */
static const struct {
    const char *path;
    int fd;
} std_names[] = {
    {"-", 1},
    {"/dev/stdout", 1},
    {"/dev/stderr", 2},
    {"/dev/fd/1", 1},
    {"/dev/fd/2", 2},
    {"/proc/self/fd/1", 1},
    {"/proc/self/fd/2", 2},
};

/* Directories whose entries belong to the system: a profile never
 * replaces anything there, whoever runs sproftop. */
static const char *const system_dirs[] = {"/dev", "/proc", "/sys"};

int outfile_std_fd(const char *path)
{
    for (size_t i = 0; path && i < sizeof(std_names) / sizeof(std_names[0]);
         i++)
        if (strcmp(path, std_names[i].path) == 0)
            return std_names[i].fd;
    return -1;
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
        return "file too large";
    case EPIPE:
        return "the reader went away (broken pipe)";
    case EBADF:
        return "the descriptor is not open for writing";
    default:
        return strerror(e);
    }
}

static const char *std_name(int fd)
{
    return fd == 1 ? "standard output" : "standard error";
}

/* 0 when descriptor fd is open for writing, else an errno value. */
static int std_check(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    if (fl < 0)
        return EBADF;
    return (fl & O_ACCMODE) == O_RDONLY ? EBADF : 0;
}

/* Whether the directory open as dirfd (named dir) lies in a system
 * directory.  The kernel's name for the descriptor is the real path,
 * symlinks resolved; realpath() stands in without /proc. */
static bool in_system_dir(int dirfd, const char *dir, const char **which)
{
    char link[64], real[PATH_MAX];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
    n = readlink(link, real, sizeof(real) - 1);
    if (n > 0) {
        real[n] = '\0';
    } else if (!realpath(dir, real)) {
        return false;
    }
    for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
        size_t len = strlen(system_dirs[i]);

        if (strncmp(real, system_dirs[i], len) == 0 &&
            (real[len] == '\0' || real[len] == '/')) {
            *which = system_dirs[i];
            return true;
        }
    }
    return false;
}

/* Open path's directory into of->dirfd and check it.  0 or -1 with err. */
static int open_dir(struct outfile *of, char *err, size_t errlen)
{
    size_t dl = (size_t)(of->base - of->path);
    char *dir = dl ? strndup(of->path, dl) : strdup(".");
    const char *sys = NULL;
    int saved;

    if (!dir) {
        util_errf(err, errlen, "cannot write %s: out of memory", of->path);
        return -1;
    }
    of->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    saved = errno;
    if (of->dirfd >= 0 && in_system_dir(of->dirfd, dir, &sys)) {
        util_errf(err, errlen,
                  "refusing to write %s: it is in %s, which belongs to the "
                  "system", of->path, sys);
    } else if (of->dirfd < 0) {
        util_errf(err, errlen, "cannot write %s: %s", of->path,
                  saved == ENOENT ? "directory does not exist"
                                  : errno_text(saved));
    }
    free(dir);
    if (of->dirfd >= 0 && !sys)
        return 0;
    if (of->dirfd >= 0)
        close(of->dirfd);
    of->dirfd = -1;
    return -1;
}

/* What of->base is now: absent, or a regular file that may be replaced.
 * Fills of->exists and of->old.  0 or -1 with err. */
static int check_base(struct outfile *of, char *err, size_t errlen)
{
    struct stat *st = &of->old;

    of->exists = false;
    if (!*of->base) {
        util_errf(err, errlen, "cannot write %s: it is a directory", of->path);
        return -1;
    }
    if (fstatat(of->dirfd, of->base, st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return 0;
        util_errf(err, errlen, "cannot write %s: %s", of->path,
                  errno_text(errno));
        return -1;
    }
    if (S_ISDIR(st->st_mode)) {
        util_errf(err, errlen, "cannot write %s: it is a directory", of->path);
        return -1;
    }
    /* rename() would replace the link itself, never where it leads: a
     * link to /proc/self/fd/1 or /dev/null would be silently destroyed,
     * and one planted by someone else is a trap. */
    if (S_ISLNK(st->st_mode)) {
        util_errf(err, errlen, "refusing to replace %s: it is a symlink",
                  of->path);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        util_errf(err, errlen,
                  "refusing to replace %s: it is not a regular file", of->path);
        return -1;
    }
    /* rename() would replace a read-only file even for a user who could
     * not write it, and root bypasses the permission bits altogether: a
     * file nobody may write is one its owner meant to keep. */
    if (!(st->st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) ||
        (geteuid() != 0 && faccessat(of->dirfd, of->base, W_OK, 0) != 0)) {
        util_errf(err, errlen, "refusing to replace %s: the file is read-only",
                  of->path);
        return -1;
    }
    of->exists = true;
    return 0;
}

/* Open the directory and check the destination.  0 or -1 with err and
 * nothing left open. */
static int prepare(struct outfile *of, const char *path, char *err,
                   size_t errlen)
{
    *of = (struct outfile){.path = path, .std_fd = -1, .dirfd = -1};
    if (!path || !*path) {
        util_errf(err, errlen, "no output file name");
        return -1;
    }
    of->std_fd = outfile_std_fd(path);
    if (of->std_fd >= 0) {
        int e = std_check(of->std_fd);

        if (e)
            util_errf(err, errlen, "cannot write %s: %s", std_name(of->std_fd),
                      errno_text(e));
        return e ? -1 : 0;
    }
    of->base = util_basename(path);
    if (open_dir(of, err, errlen) != 0)
        return -1;
    if (check_base(of, err, errlen) != 0) {
        close(of->dirfd);
        of->dirfd = -1;
        return -1;
    }
    return 0;
}

int outfile_check(const char *path, char *err, size_t errlen)
{
    struct outfile of;
    int rc;

    if (prepare(&of, path, err, errlen) != 0)
        return -1;
    if (of.std_fd >= 0)
        return 0;
    rc = faccessat(of.dirfd, ".", W_OK | X_OK, 0);
    if (rc != 0)
        util_errf(err, errlen, "cannot write %s: no permission to create "
                  "files in its directory", path);
    close(of.dirfd);
    return rc ? -1 : 0;
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

/* Create the temporary file in of->dirfd, mode 0600 or the replaced
 * file's, and fill of->tmp.  The fd, or -1 with errno set. */
static int open_temp(struct outfile *of)
{
    size_t len = strlen(of->base) + 32;
    int fd = -1;

    of->tmp = malloc(len);
    if (!of->tmp) {
        errno = ENOMEM;
        return -1;
    }
    for (int attempt = 0; attempt < 16; attempt++) {
        char tag[13];

        random_tag(tag);
        /* Keep the name under NAME_MAX (255) whatever the basename. */
        snprintf(of->tmp, len, ".%.200s.%s.tmp", of->base, tag);
        fd = openat(of->dirfd, of->tmp,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0 || !of->exists)
        return fd;
    /* The owner first: chown clears the set-id bits a chmod would set.
     * Only root may give a file away; others keep the mode alone. */
    if ((geteuid() == 0 &&
         fchown(fd, of->old.st_uid, of->old.st_gid) != 0) ||
        fchmod(fd, of->old.st_mode & 0777) != 0) {
        int saved = errno;

        close(fd);
        unlinkat(of->dirfd, of->tmp, 0);
        errno = saved;
        return -1;
    }
    return fd;
}

int outfile_open(struct outfile *of, const char *path, char *err,
                 size_t errlen)
{
    int fd, saved;

    if (prepare(of, path, err, errlen) != 0)
        return -1;
    if (of->std_fd >= 0) {
        /* a copy, so fclose leaves the process's descriptor open */
        fd = fcntl(of->std_fd, F_DUPFD_CLOEXEC, 3);
        of->f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!of->f) {
            saved = errno;
            if (fd >= 0)
                close(fd);
            util_errf(err, errlen, "cannot write %s: %s",
                      std_name(of->std_fd), errno_text(saved));
            return -1;
        }
        return 0;
    }
    fd = open_temp(of);
    of->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (of->f)
        return 0;
    saved = errno;
    if (fd >= 0) {
        close(fd);
        unlinkat(of->dirfd, of->tmp, 0);
    }
    /* ENOENT from a directory we hold open (sysfs, a FUSE mount): the
     * file system does not let new files be made there */
    if (saved == ENOENT)
        util_errf(err, errlen, "cannot write %s: this file system does not "
                  "allow creating files there", path);
    else
        util_errf(err, errlen, "cannot write %s: %s", path, errno_text(saved));
    free(of->tmp);
    close(of->dirfd);
    return -1;
}

/* Whether a and b are the same file.  A freed inode number is soon
 * reused (ext4), so a link planted after the file was removed can carry
 * its number: the type, owner and modification time must agree too
 * (rename changes a file's ctime, never its mtime). */
static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
           a->st_mode == b->st_mode && a->st_uid == b->st_uid &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Put the complete temporary file in place of of->base; the temporary
 * name is gone on success, still ours on failure.  0, or an errno value:
 * ESTALE when the destination changed while the profile was being
 * written (it is then left as it was). */
static int commit(struct outfile *of)
{
    int dfd = of->dirfd;
    struct stat now;

    if (of->exists) {
        if (renameat2(dfd, of->tmp, dfd, of->base, RENAME_EXCHANGE) == 0) {
            if (fstatat(dfd, of->tmp, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
                same_file(&now, &of->old)) {
                (void)unlinkat(dfd, of->tmp, 0);  /* the old file */
                return 0;
            }
            /* not the file we checked: swap it back */
            if (renameat2(dfd, of->tmp, dfd, of->base, RENAME_EXCHANGE) != 0)
                return errno;
            return ESTALE;
        }
        if (errno != EINVAL && errno != ENOSYS)
            return errno == ENOENT ? ESTALE : errno;
        /* no RENAME_EXCHANGE on this file system: check again, then rename
         * at once */
        if (fstatat(dfd, of->base, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
            !same_file(&now, &of->old))
            return ESTALE;
        return renameat(dfd, of->tmp, dfd, of->base) == 0 ? 0 : errno;
    }
    if (renameat2(dfd, of->tmp, dfd, of->base, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno == EEXIST ? ESTALE : errno;
    /* no RENAME_NOREPLACE here: a hard link never replaces either */
    if (linkat(dfd, of->tmp, dfd, of->base, 0) != 0)
        return errno == EEXIST ? ESTALE : errno;
    (void)unlinkat(dfd, of->tmp, 0);
    return 0;
}

/* Flush, sync and close of->f.  0, or an errno value. */
static int close_stream(struct outfile *of, int werr)
{
    int saved = werr;

    if (!saved && (fflush(of->f) != 0 || ferror(of->f)))
        saved = errno ? errno : EIO;
    /* a pipe or terminal cannot be synced (EINVAL), and a standard
     * descriptor's durability is its owner's business */
    if (!saved && of->std_fd < 0 && fsync(fileno(of->f)) != 0 &&
        errno != EINVAL)
        saved = errno;
    if (fclose(of->f) != 0 && !saved)
        saved = errno ? errno : EIO;
    of->f = NULL;
    return saved;
}

int outfile_finish(struct outfile *of, int werr, char *err, size_t errlen)
{
    int saved = close_stream(of, werr);

    if (of->std_fd >= 0) {
        if (saved)
            util_errf(err, errlen, "cannot write %s: %s", std_name(of->std_fd),
                      errno_text(saved));
        return saved ? -1 : 0;
    }
    if (!saved)
        saved = commit(of);
    if (saved)
        unlinkat(of->dirfd, of->tmp, 0);  /* the partial or unused profile */
    else
        (void)fsync(of->dirfd);  /* durability of the rename; best effort */
    if (saved == ESTALE)
        util_errf(err, errlen, "cannot write %s: it was changed by someone "
                  "else while the profile was written; left as it is",
                  of->path);
    else if (saved)
        util_errf(err, errlen, "cannot write %s: %s", of->path,
                  errno_text(saved));
    free(of->tmp);
    of->tmp = NULL;
    close(of->dirfd);
    of->dirfd = -1;
    return saved ? -1 : 0;
}
