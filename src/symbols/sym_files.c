/* sym_files.c - opening the target's binaries; see sym_files.h. */
#include "sym_files.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maps.h"
#include "sym_names.h"
#include "util.h"

#define VDSO_MAX (1u << 20)  /* a [vdso] is a few pages; refuse more */

void sym_files_root(pid_t pid, char *root, size_t size)
{
    char path[64];
    struct stat st, self;
    snprintf(path, sizeof path, "/proc/%d/root/", (int)pid);
    bool same = stat(path, &st) != 0 ||
                (stat("/", &self) == 0 && st.st_dev == self.st_dev &&
                 st.st_ino == self.st_ino);
    if (same)
        root[0] = '\0';
    else
        snprintf(root, size, "/proc/%d/root", (int)pid);
}

int sym_files_open(pid_t pid, const char *root, const char *name,
                   const struct map_entry *m, char **opened)
{
    char path[PATH_MAX + 96];
    char fallback[PATH_MAX + 96];
    int fallback_fd = -1;
    struct stat st;

    if (!sym_names_ends_with(name, " (deleted)")) {
        snprintf(path, sizeof path, "%s%s", root, name);
        int fd = util_open_regular(path, &st);
        if (fd >= 0) {
            if (m == NULL || m->inode == 0 || (uint64_t)st.st_ino == m->inode) {
                *opened = strdup(path);
                return fd;
            }
            fallback_fd = fd;
            snprintf(fallback, sizeof fallback, "%s", path);
        }
    }
    if (m != NULL) {
        snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
                 (int)pid, m->start, m->end);
        int fd = util_open_regular(path, &st);
        if (fd >= 0) {
            if (fallback_fd >= 0)
                close(fallback_fd);
            *opened = strdup(path);
            return fd;
        }
    }
    if (fallback_fd >= 0)
        *opened = strdup(fallback);
    return fallback_fd;
}

static bool read_target(pid_t pid, uint64_t addr, char *buf, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t got = pread(fd, buf, n, (off_t)addr);
    close(fd);
    return got == (ssize_t)n;
}

static bool copy_own_vdso(char *buf, size_t n)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    if (eh == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64)
        return false;
    size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    if (size > n)
        return false;
    memcpy(buf, eh, size);
    memset(buf + size, 0, n - size);
    return true;
}

char *sym_files_vdso(pid_t pid, uint64_t start, uint64_t end)
{
    size_t n = end > start ? end - start : 0;
    if (n == 0 || n > VDSO_MAX)
        return NULL;
    char *buf = malloc(n);
    if (buf != NULL && !read_target(pid, start, buf, n) &&
        !copy_own_vdso(buf, n)) {
        free(buf);
        buf = NULL;
    }
    return buf;
}
