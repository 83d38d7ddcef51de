/* pystack.c - drive the interpreter frame readers (CPython's pyread.h,
 * CRuby's rbread.h, through script_lang.h's table) by hand and for the
 * tests.
 *
 *   pystack PID [TID]        the interpreter found, then each thread's
 *                            Python or Ruby stack (leaf first), read live
 *                            (no stop: a racing read may be torn)
 *   pystack --capture PID TID OUT
 *                            the same for one thread, and every byte the
 *                            reader read, as a memory image
 *                            (tests/fuzz/pyimage.h) for the unit tests
 *                            and the fuzz corpus
 *   pystack --image FILE     replay an image: what the reader makes of it
 *
 * Output lines: "python VERSION" or "ruby VERSION" (with " eval" when the
 * interpreter's eval function was found, " unsupported" when the version
 * is not read), then per thread "thread TID STATUS" (" gvl-wait": a Ruby
 * thread waiting for the GVL) and one "  NAME
 * (FILE:LINE)" per frame, "*" after a frame where a native eval call
 * began.
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
#include "script_lang.h"

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

static int show_thread(const struct script_found *fd, void *r, int64_t tid)
{
    struct pyread_stack st;
    struct pyread_frame fr[PYWALK_MAX_DEPTH];
    bool torn;
    fd->ops->walk(r, tid, &st);
    int n = fd->ops->resolve(r, &st, fr, &torn);
    printf("thread %lld %s%s%s\n", (long long)tid, status_name(st.status),
           torn && st.status != PYWALK_TORN ? " torn" : "",
           st.flags & PYWALK_F_GVL ? " gvl-wait" : "");
    for (int i = 0; i < n; i++) {
        struct pyread_code c;
        if (fd->ops->code(r, fr[i].code, &c) < 0)
            continue;
        printf("  %s (%s:%u)%s\n", c.qualname, c.filename, fr[i].line,
               fr[i].entry ? " *" : "");
    }
    return n;
}

/* "python 3.11.2 eval", and the reader (NULL when the version is not
 * read). */
static void *open_reader(struct rmem *m, const struct script_found *fd)
{
    char lang[16];
    size_t i = 0;
    for (; fd->ops->name[i] && i < sizeof lang - 1; i++)
        lang[i] = (char)(fd->ops->name[i] | 0x20);
    lang[i] = '\0';
    void *r = fd->ops->open(m, &fd->info);
    uint64_t lo = 0, hi = 0;
    if (r)
        fd->ops->eval(r, &lo, &hi);
    printf("%s %s%s%s\n", lang, fd->ops->version(&fd->info),
           r ? "" : " unsupported", lo ? " eval" : "");
    return r;
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
    struct script_found fd;
    if (!m || script_lang_probe(m, im.base, im.path, &fd) < 0) {
        printf("no interpreter\n");
        rmem_free(m);
        return 0;
    }
    void *r = open_reader(m, &fd);
    if (r) {
        show_thread(&fd, r, (int64_t)im.tid);
        fd.ops->free(r);
    }
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
    struct script_found fd;
    if (script_lang_find(m, mp, &fd) < 0) {
        printf("no interpreter\n");
        return 0;
    }
    void *r = open_reader(m, &fd);
    if (!r)
        return 0;
    if (argc >= 3) {
        int64_t tid = atoll(argv[capture ? 3 : 2]);
        show_thread(&fd, r, tid);
        if (capture) {
            FILE *f = fopen(argv[4], "wb");
            if (!f) {
                perror(argv[4]);
                return 1;
            }
            pyimage_write_head(f, fd.base, (uint64_t)tid, fd.path,
                               (uint32_t)t.n);
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
                show_thread(&fd, r, atoll(de->d_name));
        if (d)
            closedir(d);
    }
    struct pyread_stats st;
    fd.ops->stats(r, &st);
    struct rmem_stats rs;
    rmem_get_stats(m, &rs);
    fprintf(stderr, "walks %llu torn %llu codes read %llu; copies %llu "
                    "syscalls %llu failed %llu\n",
            (unsigned long long)st.walks, (unsigned long long)st.torn,
            (unsigned long long)st.codes_read,
            (unsigned long long)rs.copies, (unsigned long long)rs.syscalls,
            (unsigned long long)rs.failed);
    fd.ops->free(r);
    rmem_free(m);
    maps_free(mp);
    return 0;
}
