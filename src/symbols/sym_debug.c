/* sym_debug.c - finding a module's debug info; see sym_debug.h. */
#include "sym_debug.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "strarena.h"
#include "util.h"
#include "vec.h"

#define DEBUG_ROOT "/usr/lib/debug"

struct sym_debug {
    char *root;            /* the debug root, without a trailing '/' */
    char *path;            /* ":.debug:ROOT", for libdwfl */
    struct strarena ids;   /* build-ids given a fetched file */
    char **files;          /* by string id in ids: the file, or NULL */
    size_t nfiles, capfiles;
};

struct sym_debug *sym_debug_new(void)
{
    struct sym_debug *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    const char *root = getenv("SPROFTOP_DEBUG_ROOT");
    if (!root || root[0] != '/')
        root = DEBUG_ROOT;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    d->root = strndup(root, n);
    d->path = malloc(n + sizeof ":.debug:");
    if (!d->root || !d->path) {
        sym_debug_free(d);
        return NULL;
    }
    snprintf(d->path, n + sizeof ":.debug:", ":.debug:%s", d->root);
    return d;
}

void sym_debug_free(struct sym_debug *d)
{
    if (!d)
        return;
    util_strv_free(d->files, d->nfiles);
    strarena_free(&d->ids);
    free(d->root);
    free(d->path);
    free(d);
}

char **sym_debug_path(struct sym_debug *d)
{
    return &d->path;
}

int sym_debug_add(struct sym_debug *d, const char *build_id, const char *path)
{
    char *copy = strdup(path);
    uint32_t id = strarena_intern_id(&d->ids, build_id, strlen(build_id));
    if (!copy || id == UINT32_MAX ||
        VEC_RESERVE(d->files, d->capfiles, (size_t)id + 1) < 0) {
        free(copy);
        return -1;
    }
    while (d->nfiles <= id)
        d->files[d->nfiles++] = NULL;
    free(d->files[id]);
    d->files[id] = copy;
    return 0;
}

static const char *fetched(const struct sym_debug *d, const char *build_id)
{
    uint32_t id = strarena_lookup(&d->ids, build_id, strlen(build_id));
    return id < d->nfiles ? d->files[id] : NULL;
}

int sym_debug_has(const struct sym_debug *d, const char *build_id)
{
    return fetched(d, build_id) != NULL;
}

char *sym_debug_path_of(struct sym_debug *d, const char *build_id)
{
    const char *f = fetched(d, build_id);
    if (f)
        return strdup(f);
    size_t n = strlen(build_id);
    if (n < 3)
        return NULL;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug", d->root,
             build_id, build_id + 2);
    return access(path, R_OK) == 0 ? strdup(path) : NULL;
}

/* n bytes of build-id in hex into hex; n, or 0 (and "") when there is
 * none or it is too long. */
static int to_hex(const unsigned char *bits, long n, char *hex)
{
    hex[0] = '\0';
    if (bits == NULL || n <= 0 || n > (SYM_BUILD_ID_HEX - 1) / 2)
        return 0;
    for (long i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", bits[i]);
    return (int)n;
}

int sym_debug_build_id(Dwfl_Module *mod, char *hex)
{
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    return to_hex(bits, dwfl_module_build_id(mod, &bits, &vaddr), hex);
}

int sym_debug_elf_build_id(Elf *elf, char *hex)
{
    const void *bits = NULL;
    ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
    return to_hex(bits, (long)n, hex);
}

static int open_found(const char *path, char **found)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    *found = strdup(path);
    if (!*found) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The build-id of the ELF file open at fd, in hex; false if none. */
static bool file_build_id(int fd, char *hex)
{
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    bool ok = elf != NULL && sym_debug_elf_build_id(elf, hex) > 0;
    if (elf)
        elf_end(elf);
    return ok;
}

static bool file_crc(int fd, uint32_t want)
{
    unsigned char buf[65536];
    uLong crc = crc32(0L, Z_NULL, 0);
    ssize_t got;
    off_t off = 0;
    while ((got = pread(fd, buf, sizeof buf, off)) > 0) {
        crc = crc32(crc, buf, (uInt)got);
        off += got;
    }
    return got == 0 && (uint32_t)crc == want;
}

/* The debuglink candidate at path, if it is the module's debug file:
 * its build-id is the module's (module_id, "" if it has none), else its
 * CRC is crc.  An alt file (crc 0) cannot be checked against the module
 * and is taken as it is. */
static int try_link(const char *path, const char *file_name,
                    const char *module_id, uint32_t crc, char **found)
{
    struct stat a, b;
    if (file_name && stat(path, &a) == 0 && stat(file_name, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return -1;  /* the module itself */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char id[SYM_BUILD_ID_HEX];
    bool ok = crc == 0 ||
              (module_id[0] ? file_build_id(fd, id) && strcmp(id, module_id) == 0
                            : file_crc(fd, crc));
    if (ok && (*found = strdup(path)) != NULL)
        return fd;
    close(fd);
    return -1;
}

/* The folder part of path ("." when none), into buf. */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else
        snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

/* gdb's and libdwfl's search order for a .gnu_debuglink: the file's
 * folder, its .debug/ subfolder, then ROOT plus the module's folder. */
static int find_link(struct sym_debug *d, Dwfl_Module *mod,
                     const char *file_name, const char *link, uint32_t crc,
                     const char *module_id, char **found)
{
    char dir[PATH_MAX], path[2 * PATH_MAX + 16];
    int fd;
    if (link[0] == '/') {
        snprintf(path, sizeof path, "%s%s", d->root, link);
        if ((fd = try_link(path, file_name, module_id, crc, found)) >= 0)
            return fd;
        return try_link(link, file_name, module_id, crc, found);
    }
    if (file_name) {
        dir_of(file_name, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/%s", dir, link);
        if ((fd = try_link(path, file_name, module_id, crc, found)) >= 0)
            return fd;
        snprintf(path, sizeof path, "%s/.debug/%s", dir, link);
        if ((fd = try_link(path, file_name, module_id, crc, found)) >= 0)
            return fd;
    }
    const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL);
    if (!name || name[0] != '/')
        return -1;
    dir_of(name, dir, sizeof dir);
    snprintf(path, sizeof path, "%s%s/%s", d->root, dir, link);
    return try_link(path, file_name, module_id, crc, found);
}

int sym_debug_find(struct sym_debug *d, Dwfl_Module *mod,
                   const char *file_name, const char *debuglink,
                   uint32_t crc, char **found)
{
    char id[SYM_BUILD_ID_HEX];
    sym_debug_build_id(mod, id);
    bool alt = debuglink && crc == 0;
    const char *f = id[0] && !alt ? fetched(d, id) : NULL;
    int fd;
    if (f && (fd = open_found(f, found)) >= 0)
        return fd;
    fd = dwfl_build_id_find_debuginfo(mod, NULL, NULL, 0, NULL, NULL, 0,
                                      found);
    if (fd >= 0 || !debuglink)
        return fd;
    return find_link(d, mod, file_name, debuglink, crc, id, found);
}
