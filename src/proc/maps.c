/* maps.c - /proc/PID/maps reading, parsing and lookup; see maps.h. */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vec.h"
#include "sorted.h"

/* The whole file, NUL-terminated; NULL with errno set on failure. */
static char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        /* /proc files report size 0: read until EOF */
        if (VEC_RESERVE(buf, cap, n + 16385) < 0) {
            errno = ENOMEM;
            goto fail;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r == 0)
            break;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
fail:;
    int saved = errno;
    free(buf);
    close(fd);
    errno = saved;
    return NULL;
}

static struct maps *read_parse(const char *path)
{
    size_t len = 0;
    char *text = read_all(path, &len);
    if (!text)
        return NULL;
    struct maps *m = maps_parse(text, len);
    free(text);
    return m;
}

struct maps *maps_read(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    return read_parse(path);
}

struct maps *maps_read_task(pid_t pid, pid_t tid)
{
    char path[80];
    snprintf(path, sizeof path, "/proc/%d/task/%d/maps", (int)pid, (int)tid);
    return read_parse(path);
}

/* A hex or decimal number followed by `sep`; *p moves past the separator. */
static int parse_num(char **p, int base, char sep, uint64_t *out)
{
    char *end;
    errno = 0;
    *out = strtoull(*p, &end, base);
    if (end == *p || errno || *end != sep)
        return -1;
    *p = end + 1;
    return 0;
}

/* Parse one line "start-end perms offset dev inode   path" in place;
 * the path is the rest of the line (the caller cut it at the newline).
 * 0 on success. */
static int parse_line(char *line, struct map_entry *e)
{
    char *p = line;
    uint64_t ignored;
    if (parse_num(&p, 16, '-', &e->start) < 0 ||
        parse_num(&p, 16, ' ', &e->end) < 0 || e->end <= e->start)
        return -1;
    if (strnlen(p, 5) < 5 || p[4] != ' ')
        return -1;
    e->r = p[0] == 'r';
    e->w = p[1] == 'w';
    e->x = p[2] == 'x';
    p += 5;
    if (parse_num(&p, 16, ' ', &e->offset) < 0 ||
        parse_num(&p, 16, ':', &ignored) < 0 ||  /* dev major */
        parse_num(&p, 16, ' ', &ignored) < 0)    /* dev minor */
        return -1;
    char *end;
    e->inode = strtoull(p, &end, 10);
    if (end == p || (*end != ' ' && *end != '\0'))
        return -1;
    p = end;
    while (*p == ' ')
        p++;
    e->path = p;
    return 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const struct map_entry *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

struct maps *maps_parse(const char *text, size_t len)
{
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    /* one block: the struct, the entries, the text, its split copy (lines
     * <= len + 1, so this bound keeps the sum from overflowing) */
    if (len >= SIZE_MAX / (2 * sizeof(struct map_entry) + 4))
        return NULL;
    struct maps *m = malloc(sizeof *m + lines * sizeof *m->v + 2 * (len + 1));
    if (!m)
        return NULL;
    m->v = (struct map_entry *)(m + 1);
    m->n = 0;
    m->text = (char *)(m->v + lines);
    m->text_len = len;
    m->strings = m->text + len + 1;
    memcpy(m->text, text, len);
    m->text[len] = '\0';
    memcpy(m->strings, m->text, len + 1);
    bool sorted = true;
    char *save = NULL;
    for (char *line = strtok_r(m->strings, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        struct map_entry e;
        if (parse_line(line, &e) < 0)
            continue;
        if (m->n && e.start < m->v[m->n - 1].start)
            sorted = false;
        m->v[m->n++] = e;
    }
    /* the kernel lists mappings in address order; text from elsewhere may
     * not */
    if (!sorted)
        sorted_sort(m->v, m->n, sizeof *m->v, entry_cmp);
    return m;
}

/* One line of maps text for e, over [start, end) of it. */
static int put_line(char **buf, size_t *cap, size_t *n,
                    const struct map_entry *e, uint64_t start, uint64_t end)
{
    size_t room = strlen(e->path) + 128;
    if (VEC_RESERVE(*buf, *cap, *n + room) < 0)
        return -1;
    uint64_t off = e->inode || e->path[0] == '/' ? e->offset + (start - e->start)
                                                 : e->offset;
    int k = snprintf(*buf + *n, room, "%llx-%llx %c%c%cp %08llx 00:00 %llu%s%s\n",
                     (unsigned long long)start, (unsigned long long)end,
                     e->r ? 'r' : '-', e->w ? 'w' : '-', e->x ? 'x' : '-',
                     (unsigned long long)off, (unsigned long long)e->inode,
                     e->path[0] ? "   " : "", e->path);
    if (k < 0 || (size_t)k >= room)
        return -1;
    *n += (size_t)k;
    return 0;
}

struct piece {
    const struct map_entry *e;
    uint64_t start, end;
};

static int piece_cmp(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The text of `np` pieces, sorted, parsed.  NULL on OOM. */
static struct maps *pieces_maps(struct piece *pc, size_t np)
{
    sorted_sort(pc, np, sizeof *pc, piece_cmp);
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < np; i++)
        rc = put_line(&buf, &cap, &n, pc[i].e, pc[i].start, pc[i].end);
    struct maps *out = rc == 0 ? maps_parse(buf ? buf : "", n) : NULL;
    free(buf);
    return out;
}

struct maps *maps_with(const struct maps *base, const struct map_entry *add)
{
    size_t nb = base ? base->n : 0, np = 0;
    struct piece *pc = malloc((2 * nb + 1) * sizeof *pc);
    if (!pc)
        return NULL;
    for (size_t i = 0; i < nb; i++) {
        const struct map_entry *e = &base->v[i];
        if (e->end <= add->start || e->start >= add->end) {
            pc[np++] = (struct piece){e, e->start, e->end};
            continue;
        }
        /* what add leaves of e: the part below it, the part above it */
        if (e->start < add->start)
            pc[np++] = (struct piece){e, e->start, add->start};
        if (e->end > add->end)
            pc[np++] = (struct piece){e, add->end, e->end};
    }
    pc[np++] = (struct piece){add, add->start, add->end};
    struct maps *m = pieces_maps(pc, np);
    free(pc);
    return m;
}

/* Whether some entry of `in` overlapping [start, end) is of the object
 * (inode, path); any object when path is NULL. */
static bool overlaps(const struct maps *in, uint64_t start, uint64_t end,
                     uint64_t inode, const char *path)
{
    /* the first entry ending above start (entries do not overlap, so
     * their ends are sorted too) */
    size_t lo = sorted_upper_bound(in->v, in->n, sizeof(*in->v),
                                   offsetof(struct map_entry, end), start);
    for (size_t j = lo; j < in->n && in->v[j].start < end; j++)
        if (!path || (in->v[j].inode == inode && strcmp(in->v[j].path, path) == 0))
            return true;
    return false;
}

struct maps *maps_still_mapped(const struct maps *m, const struct maps *now,
                               bool segments)
{
    struct piece *pc = malloc((m->n + now->n + 1) * sizeof *pc);
    if (!pc)
        return NULL;
    size_t np = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct map_entry *e = &m->v[i];
        if (overlaps(now, e->start, e->end, e->inode, e->path))
            pc[np++] = (struct piece){e, e->start, e->end};
    }
    struct maps *kept = pieces_maps(pc, np), *out = NULL;
    if (kept) {
        /* kept's own entries, then now's others of the same files */
        np = 0;
        for (size_t i = 0; i < kept->n; i++)
            pc[np++] = (struct piece){&kept->v[i], kept->v[i].start,
                                      kept->v[i].end};
        for (size_t j = 0; segments && j < now->n; j++) {
            const struct map_entry *f = &now->v[j];
            if (f->path[0] != '/' || overlaps(kept, f->start, f->end, 0, NULL))
                continue;
            for (size_t k = 0; k < kept->n; k++)
                if (kept->v[k].inode == f->inode &&
                    strcmp(kept->v[k].path, f->path) == 0) {
                    pc[np++] = (struct piece){f, f->start, f->end};
                    break;
                }
        }
        out = pieces_maps(pc, np);
        maps_free(kept);
    }
    free(pc);
    return out;
}

bool maps_has_data_segments(const struct maps *m)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (m->v[i].path[0] == '/' && !m->v[i].x)
            return true;
    return false;
}

void maps_free(struct maps *m)
{
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

const struct map_entry *maps_find_path(const struct maps *m, const char *path)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (strcmp(m->v[i].path, path) == 0)
            return &m->v[i];
    return NULL;
}

bool maps_same(const struct maps *a, const struct maps *b)
{
    if (!a || !b)
        return a == b;
    return a->text_len == b->text_len &&
           memcmp(a->text, b->text, a->text_len) == 0;
}
