/* jitmap.c - perf map (JIT) symbols; see jitmap.h. */
#include "jitmap.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "sorted.h"
#include "strarena.h"
#include "util.h"
#include "vec.h"

#define JIT_MAX (1u << 22)             /* perf map lines kept */
#define JIT_RECHECK_NS 1000000000ull   /* look at the file this often */

/* One line of a perf map: [start, end) is `name`. */
struct jit_sym {
    uint64_t start;    /* first address */
    uint64_t end;      /* one past the last */
    uint32_t seq;      /* line number: a later line wins over an earlier
                          one at the same start (the JIT reused the code) */
    const char *name;  /* interned in the caller's arena */
};

struct jitmap {
    char *path;            /* the perf map, seen from here */
    uid_t uid;             /* its owner must be the target's */
    struct jit_sym *v;     /* sorted by (start, seq) */
    size_t n, cap;
    dev_t dev;             /* the file read so far */
    ino_t ino;
    off_t off;             /* bytes of it read (whole lines) */
    uint32_t seq;          /* lines read */
    uint64_t checked_ns;   /* last look at the file; 0: never */
};

struct jitmap *jitmap_new(const char *path, uid_t uid)
{
    struct jitmap *j = calloc(1, sizeof *j);
    if (j == NULL || (j->path = strdup(path)) == NULL) {
        free(j);
        return NULL;
    }
    j->uid = uid;
    return j;
}

void jitmap_free(struct jitmap *j)
{
    if (j == NULL)
        return;
    free(j->v);
    free(j->path);
    free(j);
}

static void forget(struct jitmap *j)
{
    j->n = 0;
    j->off = 0;
    j->seq = 0;
}

void jitmap_clear(struct jitmap *j)
{
    forget(j);
    j->checked_ns = 0;
}

static int jit_cmp(const void *a, const void *b)
{
    const struct jit_sym *x = a, *y = b;

    return util_cmp_pair(x->start, x->seq, y->start, y->seq);
}

/* Add the complete lines after j->off.  The JIT may be writing the last
 * line as we read: a line without its newline is left for next time. */
static void parse(struct jitmap *j, struct strarena *names, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t before = j->n;
    while (j->n < JIT_MAX && (len = getline(&line, &cap, f)) > 0 &&
           line[len - 1] == '\n') {
        j->off += (off_t)len;
        line[len - 1] = '\0';
        unsigned long long start, size;
        int pos = 0;
        if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2 ||
            pos <= 0 || line[pos] == '\0' || size == 0)
            continue;
        const char *name = strarena_intern(names, line + pos,
                                           (size_t)(len - 1 - pos));
        if (name == NULL || VEC_RESERVE(j->v, j->cap, j->n + 1) < 0)
            break;
        j->v[j->n++] = (struct jit_sym){.start = start, .end = start + size,
                                        .seq = j->seq++, .name = name};
    }
    free(line);
    if (j->n != before)
        sorted_sort(j->v, j->n, sizeof *j->v, jit_cmp);
}

/* Read what the JIT appended since last time, at most once per
 * JIT_RECHECK_NS. */
static void refresh(struct jitmap *j, struct strarena *names)
{
    uint64_t now = clock_mono_ns();
    if (j->checked_ns != 0 && now - j->checked_ns < JIT_RECHECK_NS)
        return;
    j->checked_ns = now;
    int fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != j->uid) {
        close(fd);
        forget(j);
        return;
    }
    if (st.st_dev != j->dev || st.st_ino != j->ino || st.st_size < j->off) {
        forget(j);  /* another file, or rewritten */
        j->dev = st.st_dev;
        j->ino = st.st_ino;
    }
    FILE *f = st.st_size > j->off ? fdopen(fd, "r") : NULL;
    if (f == NULL) {
        close(fd);
        return;
    }
    if (fseeko(f, j->off, SEEK_SET) == 0)
        parse(j, names, f);
    fclose(f);
}

const char *jitmap_find(struct jitmap *j, struct strarena *names,
                        uint64_t addr, uint64_t *start)
{
    refresh(j, names);
    size_t i = sorted_upper_bound(j->v, j->n, sizeof *j->v,
                                  offsetof(struct jit_sym, start), addr);
    if (i == 0 || addr >= j->v[i - 1].end)
        return NULL;
    *start = j->v[i - 1].start;
    return j->v[i - 1].name;
}
