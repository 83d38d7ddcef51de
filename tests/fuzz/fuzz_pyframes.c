/* fuzz_pyframes.c - libFuzzer target for the interpreter frame readers
 * (src/frames/: CPython's and CRuby's, through script_lang.h's table):
 * the input is a memory image (pyimage.h) that a reader probes, walks and
 * names as if it were a process (the seeds are images captured from real
 * python3 and ruby processes by tests/tools/pystack --capture), or, when
 * it is not an image, raw bytes for the location table decoder and the
 * _Py_DebugOffsets parser.  Whatever the memory
 * holds: no crash, no unbounded read, names that are NUL-terminated
 * within their bounds, and a splice that keeps every frame in order. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pyimage.h"
#include "pylayout.h"
#include "pyline.h"
#include "pyread.h"
#include "rmem.h"
#include "script_lang.h"
#include "stackword.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pyimage im;
static struct pyread_stack st;

static void check_splice(const struct pyread_frame *fr, int n,
                         uint64_t eval_lo, uint64_t eval_hi)
{
    uint64_t words[PYWALK_MAX_DEPTH];
    bool entry[PYWALK_MAX_DEPTH];
    for (int i = 0; i < n; i++) {
        words[i] = stackword_script(fr[i].code, fr[i].line);
        entry[i] = fr[i].entry;
    }
    /* a native stack with the eval function at two places */
    uint64_t pcs[] = {0x1000, eval_lo + 1, 0x2000, eval_lo + 2, 0x3000};
    struct stackword_splice_in in = {pcs, 5, eval_lo, eval_hi,
                                     words, entry, (size_t)n};
    uint64_t out[5 + PYWALK_MAX_DEPTH];
    size_t k = stackword_splice(&in, out, sizeof out / sizeof out[0]);
    size_t s = 0;
    for (size_t i = 0; i < k; i++)
        if (stackword_is_script(out[i]) && out[i] != words[s++])
            abort(); /* out of order */
    if (s != (size_t)n || k > 5 + (size_t)n)
        abort();
}

static void run_image(void)
{
    struct rmem *m = rmem_open_image(im.segs, im.nsegs);
    if (!m)
        return;
    struct script_found fd;
    if (script_lang_probe(m, im.base, im.path, &fd) == 0) {
        const char *v = fd.ops->version(&fd.info);
        if (strlen(v) >= sizeof fd.info.py.version)
            abort();
        void *r = fd.ops->open(m, &fd.info);
        if (r) {
            struct pyread_frame fr[PYWALK_MAX_DEPTH];
            bool torn;
            uint64_t lo, hi;
            fd.ops->eval(r, &lo, &hi);
            for (int round = 0; round < 2; round++) {
                fd.ops->walk(r, (int64_t)im.tid, &st);
                if (st.n > PYWALK_MAX_DEPTH)
                    abort();
                int n = fd.ops->resolve(r, &st, fr, &torn);
                if (n > (int)st.n)
                    abort();
                for (int i = 0; i < n; i++) {
                    struct pyread_code c;
                    if (fd.ops->code(r, fr[i].code, &c) < 0 ||
                        strlen(c.qualname) >= PYREAD_MAX_NAME ||
                        strlen(c.filename) >= PYREAD_MAX_FILE)
                        abort();
                }
                if (n > 0)
                    check_splice(fr, n, lo, hi);
                fd.ops->next_generation(r);
            }
            fd.ops->free(r);
        }
    }
    rmem_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (pyimage_parse(data, size, &im) == 0) {
        run_image();
        return 0;
    }
    if (size < 5)
        return 0;
    int32_t first;
    memcpy(&first, data, 4);
    int64_t unit = (int8_t)data[4] * 37;
    pyline_find(data + 5, size - 5, first, unit);
    struct py_layout l = *pylayout_find(3, 13);
    uint8_t block[PYLAYOUT_DEBUG_BYTES] = {0};
    memcpy(block, "xdebugpy", 8);
    memcpy(block + 8, data + 5, size - 5 < sizeof block - 8 ? size - 5
                                                            : sizeof block - 8);
    if (pylayout_from_debug_offsets(block, sizeof block, &l) == 0 &&
        (l.walk.frame_previous > PYWALK_FRAME_BYTES - 8 ||
         l.walk.frame_owner >= PYWALK_FRAME_BYTES))
        abort();
    return 0;
}
