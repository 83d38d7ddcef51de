/* pyimage.h - a captured memory image of a Python process, for replaying
 * the frame reader (src/frames/pyread.h) without the process: the unit
 * tests (tests/unit/test_pyframes.c), the fuzz target (fuzz_pyframes.c)
 * and the capture tool (tests/tools/pystack.c) share this format.
 *
 *   "SPYIMG1\n"
 *   u64 base      where the interpreter's ELF object (offset 0) is mapped
 *   u64 tid       the thread to walk
 *   u16 n, path   its file name (n bytes, no NUL)
 *   u32 nsegs     then nsegs times: u64 addr, u32 len, len bytes
 * Little-endian.  The parser bounds everything by the input's size and
 * PYIMAGE_MAX_SEGS; segments point into the input.
 *
 * Not a module of the program: static functions for the test programs.
 */
#ifndef SPROFTOP_PYIMAGE_H
#define SPROFTOP_PYIMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rmem.h"

#define PYIMAGE_MAGIC "SPYIMG1\n"
#define PYIMAGE_MAX_SEGS 4096

struct pyimage {
    uint64_t base, tid;
    char path[256];
    struct rmem_seg segs[PYIMAGE_MAX_SEGS];
    size_t nsegs;
};

static inline int pyimage_get(const uint8_t *d, size_t n, size_t *at, void *out,
                       size_t len)
{
    if (n - *at < len || *at > n)
        return -1;
    memcpy(out, d + *at, len);
    *at += len;
    return 0;
}

/* Parse an image (the segments point into d).  0, or -1 when malformed. */
static inline int pyimage_parse(const uint8_t *d, size_t n, struct pyimage *im)
{
    size_t at = 0;
    char magic[8];
    uint16_t plen;
    uint32_t nsegs;
    if (pyimage_get(d, n, &at, magic, 8) < 0 ||
        memcmp(magic, PYIMAGE_MAGIC, 8) != 0 ||
        pyimage_get(d, n, &at, &im->base, 8) < 0 ||
        pyimage_get(d, n, &at, &im->tid, 8) < 0 ||
        pyimage_get(d, n, &at, &plen, 2) < 0 || plen >= sizeof im->path ||
        pyimage_get(d, n, &at, im->path, plen) < 0 ||
        pyimage_get(d, n, &at, &nsegs, 4) < 0 || nsegs > PYIMAGE_MAX_SEGS)
        return -1;
    im->path[plen] = '\0';
    im->nsegs = 0;
    for (uint32_t i = 0; i < nsegs; i++) {
        uint64_t addr;
        uint32_t len;
        if (pyimage_get(d, n, &at, &addr, 8) < 0 ||
            pyimage_get(d, n, &at, &len, 4) < 0 || n - at < len)
            return -1;
        im->segs[im->nsegs++] = (struct rmem_seg){addr, d + at, len};
        at += len;
    }
    return 0;
}

/* Write an image's header (its segments follow: pyimage_write_seg). */
static inline void pyimage_write_head(FILE *f, uint64_t base, uint64_t tid,
                               const char *path, uint32_t nsegs)
{
    uint16_t plen = (uint16_t)strlen(path);
    fwrite(PYIMAGE_MAGIC, 1, 8, f);
    fwrite(&base, 8, 1, f);
    fwrite(&tid, 8, 1, f);
    fwrite(&plen, 2, 1, f);
    fwrite(path, 1, plen, f);
    fwrite(&nsegs, 4, 1, f);
}

static inline void pyimage_write_seg(FILE *f, uint64_t addr, const void *data,
                              uint32_t len)
{
    fwrite(&addr, 8, 1, f);
    fwrite(&len, 4, 1, f);
    fwrite(data, 1, len, f);
}

#endif
