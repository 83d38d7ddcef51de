/* pystack.c - drive the CPython frame reader (src/frames/pyread.h) by
 * hand and for the tests.
 *
 *   pystack PID [TID]        the interpreter found, then each thread's
 *                            Python stack (leaf first), read live (no
 *                            stop: a racing read may be torn)
 *   pystack --capture PID TID OUT
 *                            the same for one thread, and every byte the
 *                            reader read, as a memory image
 *                            (tests/fuzz/pyimage.h) for the unit tests
 *                            and the fuzz corpus
 *   pystack --image FILE     replay an image: what the reader makes of it
 *
 * Output lines: "python VERSION", then per thread "thread TID STATUS" and
 * one "  QUALNAME (FILE:LINE)" per frame, "*" after a frame where a native
 * eval call began.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "pyimage.h"
#include "pyread.h"
#include "rmem.h"

static const char *status_name(int s)
{
    switch (s) {
    case PYWALK_OK: return "ok";
    case PYWALK_DEPTH: return "depth";
    case PYWALK_TORN: return "torn";
    case PYWALK_NONE_THREAD: return "not-python";
    default: return "?";
    }
}

/* Probe every candidate mapping of m (file offset 0); 0 with *info and
 * *base, path when one is a CPython with a runtime. */
static int find_python(struct rmem *m, const struct maps *mp,
                       struct pyread_info *info, uint64_t *base,
                       char *path, size_t cap)
{
    int found = -1;
    for (size_t i = 0; i < mp->n; i++) {
        const struct map_entry *e = &mp->v[i];
        if (e->offset != 0 || !pyread_candidate(e->path))
            continue;
        struct pyread_info in;
        if (pyread_probe(m, e->start, e->path, &in) < 0)
            continue;
        if (found < 0 || in.runtime) {
            *info = in;
            *base = e->start;
            snprintf(path, cap, "%s", e->path);
            found = 0;
        }
        if (in.runtime)
            break;
    }
    return found;
}

static int show_thread(struct pyread *r, int64_t tid)
{
    struct pyread_stack st;
    struct pyread_frame fr[PYWALK_MAX_DEPTH];
    bool torn;
    pyread_walk(r, tid, &st);
    int n = pyread_resolve(r, &st, fr, &torn);
    printf("thread %lld %s%s\n", (long long)tid, status_name(st.status),
           torn && st.status != PYWALK_TORN ? " torn" : "");
    for (int i = 0; i < n; i++) {
        struct pyread_code c;
        if (pyread_code(r, fr[i].code, &c) < 0)
            continue;
        printf("  %s (%s:%u)%s\n", c.qualname, c.filename, fr[i].line,
               fr[i].entry ? " *" : "");
    }
    return n;
}

struct tape {
    struct rmem_seg *v;
    size_t n, cap;
};

static void tap(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct tape *t = ctx;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].addr == addr && t->v[i].len == len)
            return;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->v = realloc(t->v, t->cap * sizeof *t->v);
        if (!t->v)
            exit(1);
    }
    void *copy = malloc(len);
    if (!copy)
        exit(1);
    memcpy(copy, buf, len);
    t->v[t->n++] = (struct rmem_seg){addr, copy, len};
}

static int replay(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        perror(file);
        return 1;
    }
    static uint8_t buf[16 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    static struct pyimage im;
    if (pyimage_parse(buf, n, &im) < 0) {
        fprintf(stderr, "%s: not an image\n", file);
        return 1;
    }
    struct rmem *m = rmem_open_image(im.segs, im.nsegs);
    struct pyread_info info;
    if (!m || pyread_probe(m, im.base, im.path, &info) < 0) {
        printf("no python\n");
        rmem_free(m);
        return 0;
    }
    printf("python %s%s\n", info.version, info.supported ? "" : " unsupported");
    struct pyread *r = pyread_new(m, &info);
    if (r)
        show_thread(r, (int64_t)im.tid);
    pyread_free(r);
    rmem_free(m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--image") == 0)
        return replay(argv[2]);
    bool capture = argc == 5 && strcmp(argv[1], "--capture") == 0;
    if (!capture && (argc < 2 || argc > 3 || argv[1][0] == '-')) {
        fprintf(stderr, "usage: pystack PID [TID] | --capture PID TID OUT"
                        " | --image FILE\n");
        return 2;
    }
    pid_t pid = atoi(argv[capture ? 2 : 1]);
    struct maps *mp = maps_read(pid);
    struct rmem *m = rmem_open_pid(pid);
    struct tape t = {0};
    if (!mp || !m) {
        fprintf(stderr, "pystack: cannot read process %d\n", pid);
        return 1;
    }
    if (capture)
        rmem_set_tap(m, tap, &t);
    struct pyread_info info;
    uint64_t base = 0;
    char path[256];
    if (find_python(m, mp, &info, &base, path, sizeof path) < 0) {
        printf("no python\n");
        return 0;
    }
    printf("python %s%s\n", info.version, info.supported ? "" : " unsupported");
    struct pyread *r = pyread_new(m, &info);
    if (!r)
        return 0;
    if (argc >= 3) {
        int64_t tid = atoll(argv[capture ? 3 : 2]);
        show_thread(r, tid);
        if (capture) {
            FILE *f = fopen(argv[4], "wb");
            if (!f) {
                perror(argv[4]);
                return 1;
            }
            pyimage_write_head(f, base, (uint64_t)tid, path, (uint32_t)t.n);
            for (size_t i = 0; i < t.n; i++)
                pyimage_write_seg(f, t.v[i].addr, t.v[i].data,
                                  (uint32_t)t.v[i].len);
            fclose(f);
        }
    } else {
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%d/task", pid);
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d)))
            if (de->d_name[0] != '.')
                show_thread(r, atoll(de->d_name));
        if (d)
            closedir(d);
    }
    struct pyread_stats st;
    pyread_get_stats(r, &st);
    struct rmem_stats rs;
    rmem_get_stats(m, &rs);
    fprintf(stderr, "walks %llu torn %llu codes read %llu; copies %llu "
                    "syscalls %llu failed %llu\n",
            (unsigned long long)st.walks, (unsigned long long)st.torn,
            (unsigned long long)st.codes_read,
            (unsigned long long)rs.copies, (unsigned long long)rs.syscalls,
            (unsigned long long)rs.failed);
    pyread_free(r);
    rmem_free(m);
    maps_free(mp);
    return 0;
}
