/* test_pyframes.c - the CPython frame reader (src/frames/) over memory
 * images: the bounded reads (rmem), ELF symbols from memory (relf), the
 * version rows and _Py_DebugOffsets (pylayout), the location tables
 * (pyline, against CPython's own co_lines()), the walk and the code cache
 * (pyread), and the splice into native stacks (stackword).
 *
 * The images tests/unit/data/py3NN_{main,worker}.img were captured with
 * `tests/tools/pystack --capture` from tests/targets/pystacks.py under
 * Debian's /usr/bin/python3 (3.11.2) and pyenv's 3.12.1 and 3.13.0: every
 * byte the reader read, nothing else.  Dropping or cutting any of those
 * reads must cost frames, never give a wrong one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit_main.h"
#include "codecache.h"
#include "pyimage.h"
#include "pylayout.h"
#include "pyline.h"
#include "pyread.h"
#include "relf.h"
#include "rmem.h"
#include "script_lang.h"
#include "stackword.h"

#define DATA_DIR "tests/unit/data"
#define SCRIPT "/work/wt/python/tests/targets/pystacks.py"

/* --- rmem ---------------------------------------------------------------- */

static void test_rmem_image(void **state)
{
    (void)state;
    uint8_t a[100], b[50];
    for (int i = 0; i < 100; i++)
        a[i] = (uint8_t)i;
    memset(b, 0xee, sizeof b);
    b[49] = 0;
    struct rmem_seg segs[] = {{0x1000, a, sizeof a}, {0x1050, b, sizeof b},
                              {0x8000, "abc", 4}, {0x9000, "abcd", 4}};
    struct rmem *m = rmem_open_image(segs, 4);
    assert_non_null(m);
    uint8_t buf[128];
    assert_int_equal(rmem_copy(m, 0x1000, buf, 100), 0);
    assert_memory_equal(buf, a, 64);
    /* overlap: the first listed wins; a read across two segments fails */
    assert_int_equal(rmem_copy(m, 0x1050, buf, 4), 0);
    assert_int_equal(buf[0], 0x50);
    assert_int_equal(rmem_copy(m, 0x1060, buf, 0x30), -1);
    assert_int_equal(rmem_copy(m, 0x1070, buf, 16), 0);
    assert_int_equal(buf[0], 0xee);
    assert_int_equal(rmem_copy(m, 0x0fff, buf, 2), -1);
    assert_int_equal(rmem_copy(m, 0x1000, buf, 0), -1);
    assert_int_equal(rmem_copy(m, UINT64_MAX - 2, buf, 8), -1);
    assert_int_equal(rmem_copy(m, 0x1000, buf, RMEM_MAX_READ + 1), -1);
    uint64_t w;
    assert_int_equal(rmem_u64(m, 0x1008, &w), 0);
    assert_int_equal(w, 0x0f0e0d0c0b0a0908ull);
    char s[16];
    assert_int_equal(rmem_cstring(m, 0x8000, s, sizeof s), 0);
    assert_string_equal(s, "abc");
    /* no NUL before the segment ends, or before the cap: no string */
    assert_int_equal(rmem_cstring(m, 0x9000, s, sizeof s), -1);
    assert_int_equal(rmem_cstring(m, 0x8000, s, 3), -1);
    assert_int_equal(rmem_cstring(m, 0x8000, s, 4), 0);
    /* the tests' way to change the target: seen past the page cache,
     * after rmem_forget */
    assert_int_equal(rmem_image_poke(m, 0x8000, "xy", 2), 0);
    assert_int_equal(rmem_cstring(m, 0x8000, s, sizeof s), 0);
    assert_string_equal(s, "xyc");
    static uint8_t page[4096];
    struct rmem_seg whole = {0x20000, page, sizeof page};
    struct rmem *pm = rmem_open_image(&whole, 1);
    uint64_t nine = 9;
    assert_int_equal(rmem_u64(pm, 0x20008, &w), 0);
    assert_int_equal(w, 0);
    assert_int_equal(rmem_image_poke(pm, 0x20008, &nine, 8), 0);
    assert_int_equal(rmem_u64(pm, 0x20008, &w), 0);
    assert_int_equal(w, 0);
    rmem_forget(pm);
    assert_int_equal(rmem_u64(pm, 0x20008, &w), 0);
    assert_int_equal(w, 9);
    rmem_free(pm);
    assert_int_equal(rmem_image_poke(m, 0x8002, "xyzw", 4), -1);
    struct rmem_stats st;
    rmem_get_stats(m, &st);
    assert_true(st.failed >= 6);
    assert_false(rmem_gone(m));
    assert_int_equal(rmem_image_exit(m), 0);
    assert_true(rmem_gone(m));
    assert_int_equal(rmem_u64(m, 0x1008, &w), -1);
    rmem_free(m);
}

/* A live process's memory is gone once it has exited (a zombie, not yet
 * reaped, has none either), and not before. */
static void test_rmem_gone(void **state)
{
    (void)state;
    static const uint64_t word = 0x1122334455667788ull;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char c;
        close(fd[1]);
        _exit(read(fd[0], &c, 1) < 0);
    }
    close(fd[0]);
    struct rmem *m = rmem_open_pid(pid);
    uint64_t w = 0;
    assert_int_equal(rmem_u64(m, (uint64_t)(uintptr_t)&word, &w), 0);
    assert_true(w == word);
    assert_int_equal(rmem_u64(m, 8, &w), -1); /* unmapped: not gone */
    assert_false(rmem_gone(m));
    close(fd[1]);
    siginfo_t si;
    assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
    rmem_forget(m); /* the page read before is cached */
    assert_int_equal(rmem_u64(m, (uint64_t)(uintptr_t)&word, &w), -1);
    assert_true(rmem_gone(m));
    assert_int_equal(rmem_image_exit(m), -1);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    rmem_free(m);
}

/* --- pyline -------------------------------------------------------------- */

static int hexval(char c)
{
    return c >= 'a' ? c - 'a' + 10 : c - '0';
}

/* Every instruction of 200 real code objects gets the line CPython gives
 * it (co_lines(), written by tests/unit/data/pylines.py). */
static void test_pyline_cpython(void **state)
{
    (void)state;
    FILE *f = fopen(DATA_DIR "/pylines.txt", "r");
    assert_non_null(f);
    static char line[1 << 16];
    static uint8_t tab[1 << 15];
    size_t len = 0, codes = 0, checked = 0;
    int first = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'F') {
            char hex[sizeof line];
            assert_int_equal(sscanf(line, "F %d %s", &first, hex), 2);
            len = strlen(hex) / 2;
            assert_true(len <= sizeof tab);
            for (size_t i = 0; i < len; i++)
                tab[i] = (uint8_t)(hexval(hex[2 * i]) << 4 |
                                   hexval(hex[2 * i + 1]));
            codes++;
        } else if (line[0] == 'R') {
            long start, end, want;
            assert_int_equal(sscanf(line, "R %ld %ld %ld", &start, &end,
                                    &want), 3);
            for (long u = start; u < end; u++, checked++)
                if (pyline_find(tab, len, first, u) != (uint32_t)want)
                    fail_msg("unit %ld: line %u, CPython says %ld", u,
                             pyline_find(tab, len, first, u), want);
        }
    }
    fclose(f);
    assert_int_equal(codes, 200);
    assert_true(checked > 10000);
}

static void test_pyline_bounds(void **state)
{
    (void)state;
    /* a frame that has not started is at its first line */
    assert_int_equal(pyline_find(NULL, 0, 7, -1), 7);
    assert_int_equal(pyline_find(NULL, 0, 7, 0), 0);
    /* one entry: kind 13 (line delta only), 2 units, delta +3 (6) */
    const uint8_t t1[] = {0x80 | 13 << 3 | 1, 6};
    assert_int_equal(pyline_find(t1, 2, 10, 1), 13);
    assert_int_equal(pyline_find(t1, 2, 10, 2), 0); /* past the table */
    assert_int_equal(pyline_find(t1, 1, 10, 0), 0); /* varint cut off */
    /* a varint that never ends, or is too wide */
    const uint8_t t2[] = {0x80 | 14 << 3, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
                          0x7f, 0x7f};
    assert_int_equal(pyline_find(t2, sizeof t2, 1, 0), 0);
    /* kind 15: no line; kinds 10-12: the next lines */
    const uint8_t t3[] = {0x80 | 15 << 3, 0x80 | 11 << 3, 1, 2,
                          0x80 | 12 << 3, 1, 2};
    assert_int_equal(pyline_find(t3, sizeof t3, 5, 0), 0);
    assert_int_equal(pyline_find(t3, sizeof t3, 5, 1), 6);
    assert_int_equal(pyline_find(t3, sizeof t3, 5, 2), 8);
    /* a table that does not start with an entry byte */
    const uint8_t t4[] = {0x05};
    assert_int_equal(pyline_find(t4, 1, 5, 0), 0);
    /* lines at or below 0 are unknown, never a huge number */
    const uint8_t t5[] = {0x80 | 13 << 3, 0x3d}; /* delta -30 */
    assert_int_equal(pyline_find(t5, 2, 5, 0), 0);
}

/* --- images -------------------------------------------------------------- */

struct want_frame {
    const char *name, *file;
    uint32_t line;
    bool entry;
};

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t buf[1 << 20];
    *n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint8_t *copy = malloc(*n);
    assert_non_null(copy);
    memcpy(copy, buf, *n);
    return copy;
}

/* What the reader makes of an image: the version in info, and up to max
 * frames (names copied into names[]), or -1 when it found no Python. */
struct result {
    char version[24];
    bool supported;       /* a reader was made */
    bool own_offsets;     /* Python 3.13: the target's own offsets */
    uint64_t eval_lo, eval_hi;
    int status;
    bool torn;
    int n;
    char name[PYWALK_MAX_DEPTH][PYREAD_MAX_NAME];
    char file[PYWALK_MAX_DEPTH][PYREAD_MAX_FILE];
    uint32_t line[PYWALK_MAX_DEPTH];
    bool entry[PYWALK_MAX_DEPTH];
    uint32_t flags;       /* the walk's PYWALK_F_* */
};

static int read_image(const struct pyimage *im, struct result *res)
{
    memset(res, 0, sizeof *res);
    struct rmem *m = rmem_open_image(im->segs, im->nsegs);
    assert_non_null(m);
    int rc = -1;
    static struct script_found fd;
    if (script_lang_probe(m, im->base, im->path, &fd) == 0) {
        rc = 0;
        snprintf(res->version, sizeof res->version, "%s",
                 fd.ops->version(&fd.info));
        void *r = fd.ops->open(m, &fd.info);
        res->supported = r != NULL;
        if (r) {
            fd.ops->eval(r, &res->eval_lo, &res->eval_hi);
            res->own_offsets = fd.ops->lang == SCRIPT_PYTHON &&
                               pyread_info(r)->own_offsets;
            static struct pyread_stack st;
            struct pyread_frame fr[PYWALK_MAX_DEPTH];
            res->status = fd.ops->walk(r, (int64_t)im->tid, &st);
            res->n = fd.ops->resolve(r, &st, fr, &res->torn);
            res->flags = st.flags;
            for (int i = 0; i < res->n; i++) {
                struct pyread_code c;
                assert_int_equal(fd.ops->code(r, fr[i].code, &c), 0);
                snprintf(res->name[i], sizeof res->name[i], "%s", c.qualname);
                snprintf(res->file[i], sizeof res->file[i], "%s", c.filename);
                res->line[i] = fr[i].line;
                res->entry[i] = fr[i].entry;
            }
            fd.ops->free(r);
        }
    }
    rmem_free(m);
    return rc;
}

static const struct want_frame want_main[] = {
    {"slow_key", SCRIPT, 35, true},
    {"f\xf0\xa0\x80\x80", SCRIPT, 40, false},
    {"\xe5\x87\xbd\xe6\x95\xb0", SCRIPT, 44, false},
    {"Outer.Inner.m\xc3\xa9thode", SCRIPT, 50, false},
    {"main", SCRIPT, 56, false},
    {"<module>", SCRIPT, 59, true},
};

/* read_image over the image in file. */
static void read_one(const char *file, struct result *res)
{
    size_t len;
    uint8_t *data = slurp(file, &len);
    static struct pyimage im;
    assert_int_equal(pyimage_parse(data, len, &im), 0);
    assert_int_equal(read_image(&im, res), 0);
    free(data);
}

static void check_image(const char *file, const char *version,
                        const struct want_frame *want, int n, bool own)
{
    size_t len;
    uint8_t *data = slurp(file, &len);
    static struct pyimage im;
    assert_int_equal(pyimage_parse(data, len, &im), 0);
    static struct result res;
    assert_int_equal(read_image(&im, &res), 0);
    assert_string_equal(res.version, version);
    assert_true(res.supported);
    assert_true(res.eval_lo && res.eval_hi > res.eval_lo);
    assert_int_equal(res.own_offsets, own);
    assert_int_equal(res.status, PYWALK_OK);
    assert_false(res.torn);
    assert_int_equal(res.n, n);
    for (int i = 0; i < n; i++) {
        if (want[i].name)
            assert_string_equal(res.name[i], want[i].name);
        if (want[i].file)
            assert_string_equal(res.file[i], want[i].file);
        if (want[i].line)
            assert_int_equal(res.line[i], want[i].line);
        assert_int_equal(res.entry[i], want[i].entry);
    }
    free(data);
}

/* Each version's images.  The main thread's frames are want_main; the
 * worker's are the script's gen and consume over threading.py's
 * Thread.run, _bootstrap_inner and _bootstrap, at lines that differ by
 * release. */
static const struct {
    const char *tag, *version;  /* the images' names, the release */
    bool own;                   /* the offsets are the target's own */
    bool consume_entry;         /* consume is marked an entry frame */
    const char *threading;      /* threading.py's path, where checked */
    uint32_t run, inner, boot;  /* its lines of the three frames */
} versions[] = {
    { "py311", "3.11.2", false, true, "/usr/lib/python3.11/threading.py",
      975, 1038, 995 },
    /* 3.12: entry frames are marked by the shim frame below them. */
    { "py312", "3.12.1", false, false, NULL, 1010, 1073, 1030 },
    /* 3.13: the offsets are the target's own. */
    { "py313", "3.13.0", true, false, NULL, 992, 1041, 1012 },
};

static void test_images(void **state)
{
    char path[128];

    (void)state;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        const struct want_frame worker[] = {
            {"gen", SCRIPT, 23, true},
            {"consume", SCRIPT, 28, versions[i].consume_entry},
            {"Thread.run", versions[i].threading, versions[i].run, false},
            {"Thread._bootstrap_inner", NULL, versions[i].inner, false},
            {"Thread._bootstrap", NULL, versions[i].boot, true},
        };

        snprintf(path, sizeof path, DATA_DIR "/%s_main.img", versions[i].tag);
        check_image(path, versions[i].version, want_main, 6, versions[i].own);
        snprintf(path, sizeof path, DATA_DIR "/%s_worker.img",
                 versions[i].tag);
        check_image(path, versions[i].version, worker, 5, versions[i].own);
    }
}

/* Ruby 3.1 (Debian 12's /usr/bin/ruby running tests/targets/rbstacks.rb):
 * C methods by their Ruby names, iseqs at their current lines, an entry
 * where each vm_exec began (VM_FRAME_FLAG_FINISH). */
#define RB "tests/targets/rbstacks.rb"
static void test_image_rb31(void **state)
{
    (void)state;
    const struct want_frame m[] = {
        {"Kernel#sleep", "<cfunc>", 0, false},
        {"slow_key", RB, 12, false},
        {"block in m\xc3\xa9thode", RB, 20, true},
        {"Array#each", "<cfunc>", 0, false},
        {"Enumerable#sort_by", "<cfunc>", 0, false},
        {"m\xc3\xa9thode", RB, 20, false},
        {"<main>", RB, 33, true},
    };
    check_image(DATA_DIR "/rb31_main.img", "3.1.2", m, 7, false);
    const struct want_frame w[] = {
        {"Kernel#sleep", "<cfunc>", 0, false},
        {"block in worker_loop", RB, 27, true},
        {"Kernel#loop", "<cfunc>", 0, false},
        {"worker_loop", RB, 27, false},
        {"block in <main>", RB, 30, true},
    };
    check_image(DATA_DIR "/rb31_worker.img", "3.1.2", w, 5, false);
    static struct result res;
    read_one(DATA_DIR "/rb31_worker.img", &res);
    assert_int_equal(res.flags, 0);
}

/* A thread of tests/targets/rbgvl.rb waiting for the GVL while the other
 * runs: the walk says so (PYWALK_F_GVL), its frames as they stand. */
static void test_image_rb31_gvl(void **state)
{
    (void)state;
    const char *g = "tests/targets/rbgvl.rb";
    const struct want_frame w[] = {
        {"Process.clock_gettime", "<cfunc>", 0, false},
        {"spin", g, 12, false},
        {"gvl_b", g, 21, false},
        {"block in <main>", g, 25, true},
    };
    check_image(DATA_DIR "/rb31_gvl.img", "3.1.2", w, 4, false);
    static struct result res;
    read_one(DATA_DIR "/rb31_gvl.img", &res);
    assert_int_equal(res.flags, PYWALK_F_GVL);
}

/* Each read the reader made, missing or cut short: the reader says less,
 * never something else. */
static void test_image_truncated(void **state)
{
    (void)state;
    const char *files[] = {"py311_main", "py311_worker", "py312_main",
                           "py313_worker", "rb31_main", "rb31_worker",
                           "rb31_gvl"};
    static struct pyimage full, cut;
    static struct result whole, part;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[128];
        snprintf(path, sizeof path, DATA_DIR "/%s.img", files[k]);
        size_t len;
        uint8_t *data = slurp(path, &len);
        assert_int_equal(pyimage_parse(data, len, &full), 0);
        assert_int_equal(read_image(&full, &whole), 0);
        for (size_t drop = 0; drop < full.nsegs; drop++) {
            for (int mode = 0; mode < 2; mode++) {
                cut = full;
                if (mode == 0) { /* the read is gone */
                    memmove(&cut.segs[drop], &cut.segs[drop + 1],
                            (cut.nsegs - drop - 1) * sizeof cut.segs[0]);
                    cut.nsegs--;
                } else { /* it ends half way */
                    cut.segs[drop].len /= 2;
                }
                if (read_image(&cut, &part) < 0)
                    continue;
                if (!part.supported || part.n <= 0)
                    continue;
                assert_true(part.n <= whole.n);
                for (int i = 0; i < part.n; i++) {
                    assert_string_equal(part.name[i], whole.name[i]);
                    assert_string_equal(part.file[i], whole.file[i]);
                    /* a line table cut short may not know the line */
                    assert_true(part.line[i] == whole.line[i] ||
                                part.line[i] == 0);
                }
                if (part.n < whole.n)
                    assert_true(part.torn || part.status != PYWALK_OK);
            }
        }
        free(data);
    }
}

/* A reader on an image file, and what it reads (reader_on). */
struct image_reader {
    uint8_t *data;              /* the file's bytes */
    struct pyimage im;          /* their parse */
    struct rmem *m;             /* the image's memory */
    struct pyread_info info;    /* the probe's findings */
    struct pyread *r;
};

/* x, a reader on the image at path; returns x->r.  reader_off frees it. */
static struct pyread *reader_on(const char *path, struct image_reader *x)
{
    size_t len;

    x->data = slurp(path, &len);
    assert_int_equal(pyimage_parse(x->data, len, &x->im), 0);
    x->m = rmem_open_image(x->im.segs, x->im.nsegs);
    assert_int_equal(pyread_probe(x->m, x->im.base, x->im.path, &x->info), 0);
    x->r = pyread_new(x->m, &x->info);
    assert_non_null(x->r);
    return x->r;
}

static void reader_off(struct image_reader *x)
{
    pyread_free(x->r);
    rmem_free(x->m);
    free(x->data);
}

/* The code cache: one read per code object per generation, a replaced
 * object read again under a new id, a freed one never named. */
static void test_code_cache(void **state)
{
    (void)state;
    static struct image_reader x;
    struct pyread *r = reader_on(DATA_DIR "/py311_main.img", &x);
    struct rmem *m = x.m;
    static struct pyread_stack st;
    struct pyread_frame fr[PYWALK_MAX_DEPTH];
    bool torn;
    struct pyread_stats s0, s1;
    assert_int_equal(pyread_walk(r, (int64_t)x.im.tid, &st), PYWALK_OK);
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), 6);
    pyread_get_stats(r, &s0);
    assert_int_equal(s0.codes_read, 6);
    assert_int_equal(pyread_code_count(r), 6);
    /* the same generation: no read at all */
    assert_int_equal(pyread_walk(r, (int64_t)x.im.tid, &st), PYWALK_OK);
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), 6);
    pyread_get_stats(r, &s1);
    assert_int_equal(s1.codes_read, 6);
    assert_int_equal(s1.codes_checked, 0);
    /* the next one: each checked once, none read again */
    pyread_next_generation(r);
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), 6);
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), 6);
    pyread_get_stats(r, &s1);
    assert_int_equal(s1.codes_read, 6);
    assert_int_equal(s1.codes_checked, 6);
    /* the leaf's code object is freed and its memory reused by another
     * object: its type is no longer PyCode_Type */
    const struct py_layout *l = pyread_layout(r);
    uint64_t leaf = st.f[0].code, junk = 0x4141414141414141ull;
    uint32_t old_id = fr[0].code;
    pyread_next_generation(r);
    assert_int_equal(rmem_image_poke(m, leaf + l->ob_type, &junk, 8), 0);
    int n = pyread_resolve(r, &st, fr, &torn);
    assert_int_equal(n, -1);
    assert_true(torn);
    /* another code object at the same address (its name moved): read
     * again under a new id; the old id names nothing any more */
    uint64_t type = x.info.code_type, qual;
    assert_int_equal(rmem_image_poke(m, leaf + l->ob_type, &type, 8), 0);
    assert_int_equal(rmem_u64(m, st.f[1].code + l->code_qualname, &qual), 0);
    assert_int_equal(rmem_image_poke(m, leaf + l->code_qualname, &qual, 8), 0);
    pyread_next_generation(r);
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), 6);
    assert_false(torn);
    assert_int_not_equal(fr[0].code, old_id);
    struct pyread_code c;
    assert_int_equal(pyread_code(r, old_id, &c), -1);
    assert_int_equal(pyread_code(r, fr[0].code, &c), 0);
    assert_string_equal(c.qualname, "f\xf0\xa0\x80\x80");
    /* the target ends: its last samples, drained a generation later,
     * keep the names checked before (unchecked, the same ids); a
     * generation after that, nothing is named */
    uint32_t ids[6];
    for (int i = 0; i < 6; i++)
        ids[i] = fr[i].code;
    pyread_get_stats(r, &s0);
    pyread_next_generation(r);
    assert_int_equal(rmem_image_exit(m), 0);
    assert_true(rmem_gone(m));
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), 6);
    assert_false(torn);
    for (int i = 0; i < 6; i++)
        assert_int_equal(fr[i].code, ids[i]);
    pyread_get_stats(r, &s1);
    assert_int_equal(s1.codes_unchecked - s0.codes_unchecked, 6);
    assert_int_equal(s1.codes_read, s0.codes_read);
    pyread_next_generation(r);
    assert_int_equal(pyread_resolve(r, &st, fr, &torn), -1);
    assert_true(torn);
    reader_off(&x);
}

/* A language of the test's own for the cache: a code object is 5 words
 * (its check) at an address of a page-sized image, named by its first. */
static int fake_head(void *ctx, uint64_t addr, uint64_t *check)
{
    struct rmem *m = ctx;
    uint8_t b[CODECACHE_CHECK * 8];
    if (rmem_copy(m, addr, b, sizeof b) < 0)
        return -1;
    memcpy(check, b, sizeof b); /* little-endian host */
    return check[0] ? 0 : -1;
}

static int fake_fill(void *ctx, struct codecache_entry *e)
{
    (void)ctx;
    char name[32];
    snprintf(name, sizeof name, "code%llu", (unsigned long long)e->check[0]);
    e->name = strdup(name);
    e->file = strdup("fake.py");
    return 0;
}

static uint32_t fake_line(void *ctx, const struct codecache_entry *e,
                          const struct pywalk_frame *f)
{
    (void)ctx;
    (void)e;
    (void)f;
    return 1;
}

/* The cache's checks in a new generation read the target again, not the
 * pages cached in the one before (the perf backend walks frames in BPF,
 * so no walk of the reader forgets them); once the target is gone, an
 * entry checked a generation before still names, an older one not. */
static void test_code_cache_pages(void **state)
{
    (void)state;
    static const struct codecache_ops ops = {fake_head, fake_fill,
                                             fake_line};
    static uint64_t page[512];
    page[0] = 7;
    page[8] = 8;
    struct rmem_seg seg = {0x40000, page, sizeof page};
    struct rmem *m = rmem_open_image(&seg, 1);
    struct codecache c;
    codecache_init(&c, &ops, m, m);
    const struct codecache_entry *e = codecache_get(&c, 0x40000);
    assert_non_null(e);
    assert_string_equal(e->name, "code7");
    uint32_t id7 = e->id;
    assert_non_null(codecache_get(&c, 0x40040));
    /* another object at the same address, the page still cached */
    uint64_t nine = 9;
    assert_int_equal(rmem_image_poke(m, 0x40000, &nine, 8), 0);
    assert_int_equal(codecache_get(&c, 0x40000)->id, id7);
    codecache_next_generation(&c);
    e = codecache_get(&c, 0x40000);
    assert_non_null(e);
    assert_string_equal(e->name, "code9");
    assert_int_not_equal(e->id, id7);
    /* the target ends */
    codecache_next_generation(&c);
    assert_int_equal(rmem_image_exit(m), 0);
    e = codecache_get(&c, 0x40000);
    assert_non_null(e);
    assert_string_equal(e->name, "code9");
    assert_null(codecache_get(&c, 0x40040)); /* checked 2 generations ago */
    assert_int_equal(c.st.unchecked, 1);
    codecache_free(&c);
    rmem_free(m);
}

/* A target that did not run for a while before it ended (a generation
 * with no sample resolves nothing): its last samples keep the names
 * checked in its last generation with samples, up to
 * CODECACHE_GONE_GENS generations back; older, nothing is named. */
static void test_code_cache_idle_end(void **state)
{
    (void)state;
    static const struct codecache_ops ops = {fake_head, fake_fill,
                                             fake_line};
    static uint64_t page[512];
    for (int idle = 0; idle <= CODECACHE_GONE_GENS; idle++) {
        page[0] = 7;
        struct rmem_seg seg = {0x40000, page, sizeof page};
        struct rmem *m = rmem_open_image(&seg, 1);
        struct codecache c;
        codecache_init(&c, &ops, m, m);
        assert_non_null(codecache_get(&c, 0x40000));
        /* the generation of that get ends, then `idle` with no samples */
        for (int g = 0; g <= idle; g++)
            codecache_next_generation(&c);
        assert_int_equal(rmem_image_exit(m), 0);
        const struct codecache_entry *e = codecache_get(&c, 0x40000);
        if (idle < CODECACHE_GONE_GENS) {
            assert_non_null(e);
            assert_string_equal(e->name, "code7");
        } else {
            assert_null(e);
        }
        codecache_free(&c);
        rmem_free(m);
    }
}

/* A chain that loops, or runs deeper than the cap: the walk ends. */
static void test_walk_bounds(void **state)
{
    (void)state;
    static struct image_reader x;
    struct pyread *r = reader_on(DATA_DIR "/py311_main.img", &x);
    struct rmem *m = x.m;
    const struct py_layout *l = pyread_layout(r);
    static struct pyread_stack st;
    assert_int_equal(pyread_walk(r, (int64_t)x.im.tid, &st), PYWALK_OK);
    /* the frames' addresses, by hand: the thread state of the TID, its
     * cframe's current frame, then `previous` */
    uint64_t f[6], prev, cframe, interp, tstate;
    assert_int_equal(rmem_u64(m, x.info.runtime + l->walk.runtime_interp_head,
                              &interp), 0);
    assert_int_equal(rmem_u64(m, interp + l->walk.interp_threads_head,
                              &tstate), 0);
    for (int i = 0; i < 8; i++) {
        uint64_t tid;
        assert_int_equal(rmem_u64(m, tstate + l->walk.tstate_native_tid,
                                  &tid), 0);
        if (tid == x.im.tid)
            break;
        assert_int_equal(rmem_u64(m, tstate + l->walk.tstate_next, &tstate),
                         0);
    }
    assert_int_equal(rmem_u64(m, tstate + l->walk.tstate_cframe, &cframe), 0);
    assert_int_equal(rmem_u64(m, cframe + l->walk.current_frame, &f[0]), 0);
    for (int i = 1; i < 6; i++)
        assert_int_equal(rmem_u64(m, f[i - 1] + l->walk.frame_previous,
                                  &f[i]), 0);
    /* frame 3's previous is frame 1: a loop */
    prev = f[1];
    assert_int_equal(rmem_image_poke(m, f[3] + l->walk.frame_previous, &prev,
                                     8), 0);
    assert_int_equal(pyread_walk(r, (int64_t)x.im.tid, &st), PYWALK_TORN);
    assert_true(st.n < PYWALK_MAX_DEPTH);
    /* an owner no frame has: torn at that frame */
    prev = f[4];
    assert_int_equal(rmem_image_poke(m, f[3] + l->walk.frame_previous, &prev,
                                     8), 0);
    uint8_t owner = 9;
    assert_int_equal(rmem_image_poke(m, f[2] + l->walk.frame_owner, &owner,
                                     1), 0);
    assert_int_equal(pyread_walk(r, (int64_t)x.im.tid, &st), PYWALK_TORN);
    assert_int_equal(st.n, 2);
    owner = 0;
    assert_int_equal(rmem_image_poke(m, f[2] + l->walk.frame_owner, &owner,
                                     1), 0);
    /* a thread that is not Python's */
    assert_int_equal(pyread_walk(r, 1, &st), PYWALK_NONE_THREAD);
    assert_int_equal(pyread_walk(r, (int64_t)x.im.tid, &st), PYWALK_OK);
    assert_int_equal(st.n, 6);
    reader_off(&x);
}

/* --- probing -------------------------------------------------------------- */

static void test_probe(void **state)
{
    (void)state;
    assert_true(pyread_candidate("/usr/bin/python3.11"));
    assert_true(pyread_candidate("/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"));
    assert_true(pyread_candidate("python2.7"));
    assert_false(pyread_candidate("/usr/bin/perl"));
    assert_false(pyread_candidate("/opt/pythonista/bin/x"));
    assert_false(pyread_candidate("/usr/lib/libpythonx.so"));
    /* not ELF: no runtime, but the name says the version */
    uint8_t zero[64] = {0};
    struct rmem_seg seg = {0x400000, zero, sizeof zero};
    struct rmem *m = rmem_open_image(&seg, 1);
    struct pyread_info info;
    struct relf e;
    assert_int_equal(relf_open(m, 0x400000, &e), -1);
    assert_int_equal(pyread_probe(m, 0x400000, "/usr/lib/libpython3.9.so.1.0",
                                  &info), 0);
    assert_string_equal(info.version, "3.9");
    assert_false(info.supported);
    assert_null(pyread_new(m, &info));
    assert_int_equal(pyread_probe(m, 0x400000, "/usr/bin/perl", &info), -1);
    rmem_free(m);
    /* an ELF header with absurd counts */
    uint8_t eh[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    eh[54] = 56; /* e_phentsize */
    eh[56] = 0xff; eh[57] = 0xff; /* e_phnum 65535 */
    seg.data = eh;
    m = rmem_open_image(&seg, 1);
    assert_int_equal(relf_open(m, 0x400000, &e), -1);
    rmem_free(m);
    assert_null(pylayout_find(3, 10));
    assert_non_null(pylayout_find(3, 11));
    char vers[64];
    pylayout_supported(vers, sizeof vers);
    assert_string_equal(vers, "3.11, 3.12, 3.13");
    pylayout_supported(vers, 6);
    assert_string_equal(vers, "3.11,"); /* cut, NUL-terminated */
}

static void test_debug_offsets(void **state)
{
    (void)state;
    uint8_t b[PYLAYOUT_DEBUG_BYTES] = {0};
    struct py_layout l = *pylayout_find(3, 13);
    memcpy(b, "xdebugpy", 8);
    uint64_t ver = 0x030d00f0;
    memcpy(b + 8, &ver, 8);
    /* every offset 0 is plausible; then one far too large */
    assert_int_equal(pylayout_from_debug_offsets(b, sizeof b, &l), 0);
    assert_int_equal(l.walk.frame_previous, 0);
    l = *pylayout_find(3, 13);
    uint64_t big = 1u << 21;
    memcpy(b + 40, &big, 8);
    assert_int_equal(pylayout_from_debug_offsets(b, sizeof b, &l), -1);
    assert_int_equal(l.walk.runtime_interp_head, 632);
    big = 0;
    memcpy(b + 40, &big, 8);
    uint64_t frame_far = PYWALK_FRAME_BYTES;
    memcpy(b + 232, &frame_far, 8);
    assert_int_equal(pylayout_from_debug_offsets(b, sizeof b, &l), -1);
    /* another version's block, a wrong cookie, a short one, a row that
     * does not read them */
    memcpy(b + 232, &big, 8);
    ver = 0x030e00f0;
    memcpy(b + 8, &ver, 8);
    assert_int_equal(pylayout_from_debug_offsets(b, sizeof b, &l), -1);
    ver = 0x030d00f0;
    memcpy(b + 8, &ver, 8);
    assert_int_equal(pylayout_from_debug_offsets(b, 100, &l), -1);
    b[0] = 'X';
    assert_int_equal(pylayout_from_debug_offsets(b, sizeof b, &l), -1);
    b[0] = 'x';
    l = *pylayout_find(3, 11);
    assert_int_equal(pylayout_from_debug_offsets(b, sizeof b, &l), -1);
}

/* --- splice --------------------------------------------------------------- */

static void test_splice(void **state)
{
    (void)state;
    /* leaf first: a C leaf, eval (A), a C call, eval (B), main */
    const uint64_t pcs[] = {0x500, 0x1010, 0x600, 0x1020, 0x700};
    const uint64_t py[] = {stackword_script(1, 10), stackword_script(2, 20),
                           stackword_script(3, 30), stackword_script(4, 40)};
    const bool entry[] = {false, true, false, true};
    struct stackword_splice_in in = {pcs, 5, 0x1000, 0x1100, py, entry, 4};
    uint64_t out[16];
    size_t n = stackword_splice(&in, out, 16);
    const uint64_t want[] = {0x500, py[0], py[1], 0x600, py[2], py[3], 0x700};
    assert_int_equal(n, 7);
    assert_memory_equal(out, want, sizeof want);
    /* more Python than eval calls (the native stack was cut): the bottom
     * eval frame takes the rest, in order */
    const uint64_t pcs2[] = {0x500, 0x1010, 0x600};
    in.pcs = pcs2;
    in.npcs = 3;
    n = stackword_splice(&in, out, 16);
    const uint64_t want2[] = {0x500, py[0], py[1], py[2], py[3], 0x600};
    assert_int_equal(n, 6);
    assert_memory_equal(out, want2, sizeof want2);
    /* fewer: the eval frames left stay native */
    in.pcs = pcs;
    in.npcs = 5;
    in.nscript = 2;
    n = stackword_splice(&in, out, 16);
    const uint64_t want3[] = {0x500, py[0], py[1], 0x600, 0x1020, 0x700};
    assert_int_equal(n, 6);
    assert_memory_equal(out, want3, sizeof want3);
    /* no eval frame (no symbol, or an unwind that stopped at once): the
     * Python frames go below */
    in.eval_lo = in.eval_hi = 0;
    in.nscript = 4;
    n = stackword_splice(&in, out, 16);
    assert_int_equal(n, 9);
    assert_memory_equal(out, pcs, sizeof pcs);
    assert_memory_equal(out + 5, py, sizeof py);
    /* a return address just past the eval function's end is still in it,
     * an exact IP there is not */
    const uint64_t pcs4[] = {0x1100, 0x1100};
    in.pcs = pcs4;
    in.npcs = 2;
    in.eval_lo = 0x1000;
    in.eval_hi = 0x1100;
    n = stackword_splice(&in, out, 16);
    const uint64_t want4[] = {0x1100, py[0], py[1], py[2], py[3]};
    assert_int_equal(n, 5);
    assert_memory_equal(out, want4, sizeof want4);
    /* the cap holds */
    assert_int_equal(stackword_splice(&in, out, 3), 3);
    /* words */
    uint64_t w = stackword_script(0xabcdef, 123456);
    assert_true(stackword_is_script(w));
    assert_false(stackword_is_script(0x7fffffffe000ull));
    assert_false(stackword_is_script(0xffffffff81000000ull));
    assert_int_equal(stackword_code(w), 0xabcdef);
    assert_int_equal(stackword_line(w), 123456);
    assert_int_equal(stackword_line(stackword_script(1, 1u << 25)), 0);
}

UNIT_MAIN(
    cmocka_unit_test(test_rmem_image),
    cmocka_unit_test(test_rmem_gone),
    cmocka_unit_test(test_pyline_cpython),
    cmocka_unit_test(test_pyline_bounds),
    cmocka_unit_test(test_images),
    cmocka_unit_test(test_image_rb31),
    cmocka_unit_test(test_image_rb31_gvl),
    cmocka_unit_test(test_image_truncated),
    cmocka_unit_test(test_code_cache),
    cmocka_unit_test(test_code_cache_pages),
    cmocka_unit_test(test_code_cache_idle_end),
    cmocka_unit_test(test_walk_bounds),
    cmocka_unit_test(test_probe),
    cmocka_unit_test(test_debug_offsets),
    cmocka_unit_test(test_splice))
