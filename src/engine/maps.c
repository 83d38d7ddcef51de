/* maps.c - /proc/PID/maps reading and lookup; see maps.h. */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 16384, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            free(buf);
            buf = NULL;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    int saved = errno;
    close(fd);
    errno = saved;
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

struct maps *maps_read(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    size_t len = 0;
    char *text = read_all(path, &len);
    if (!text)
        return NULL;
    struct maps *m = maps_parse(text, len);
    free(text);
    return m;
}

struct maps *maps_read_task(pid_t pid, pid_t tid)
{
    char path[80];
    snprintf(path, sizeof path, "/proc/%d/task/%d/maps", (int)pid, (int)tid);
    size_t len = 0;
    char *text = read_all(path, &len);
    if (!text)
        return NULL;
    struct maps *m = maps_parse(text, len);
    free(text);
    return m;
}

/* Parse one line "start-end perms offset dev inode   path" in place;
 * terminates the path with NUL.  0 on success. */
static int parse_line(char *line, struct map_entry *e)
{
    char *p = line, *end;
    e->start = strtoull(p, &end, 16);
    if (*end != '-')
        return -1;
    e->end = strtoull(end + 1, &end, 16);
    if (*end != ' ' || e->end <= e->start)
        return -1;
    p = end + 1;
    if (strlen(p) < 5)
        return -1;
    e->r = p[0] == 'r';
    e->w = p[1] == 'w';
    e->x = p[2] == 'x';
    p += 4;
    e->offset = strtoull(p, &end, 16);
    if (*end != ' ')
        return -1;
    p = end + 1;
    /* skip dev and inode */
    for (int field = 0; field < 2; field++) {
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    e->path = p;
    return 0;
}

struct maps *maps_parse(const char *text, size_t len)
{
    struct maps *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    m->text = malloc(len + 1);
    m->strings = malloc(len + 1);
    m->v = calloc(lines, sizeof *m->v);
    if (!m->text || !m->strings || !m->v) {
        maps_free(m);
        return NULL;
    }
    memcpy(m->text, text, len);
    m->text[len] = '\0';
    m->text_len = len;
    memcpy(m->strings, text, len);
    m->strings[len] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(m->strings, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        struct map_entry e;
        if (parse_line(line, &e) == 0)
            m->v[m->n++] = e;
    }
    return m;
}

void maps_free(struct maps *m)
{
    if (!m)
        return;
    free(m->v);
    free(m->strings);
    free(m->text);
    free(m);
}

const struct map_entry *maps_find(const struct maps *m, uint64_t addr)
{
    if (!m)
        return NULL;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct map_entry *e = &m->v[mid];
        if (addr < e->start)
            hi = mid;
        else if (addr >= e->end)
            lo = mid + 1;
        else
            return e;
    }
    return NULL;
}

bool maps_same(const struct maps *a, const struct maps *b)
{
    if (!a || !b)
        return a == b;
    return a->text_len == b->text_len &&
           memcmp(a->text, b->text, a->text_len) == 0;
}
