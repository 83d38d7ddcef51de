/* export_top.c - a stackprof-style flat text report (FORMATS.md section 8).
 *
 * The table `stackprof FILE --text` prints, for every function, sorted by
 * self samples (then total):
 *
 *   ==================================
 *     Mode: cpu(10000)
 *     Samples: 6 (0.00% miss rate)
 *     GC: 0 (0.00%)
 *     Command: prog --flag (pid 1234)
 *     Threads: 2, interval 10.000 ms, duration 0.060 s
 *   ==================================
 *        TOTAL    (pct)     SAMPLES    (pct)     FRAME
 *            6 (100.0%)           0   (0.0%)     main (prog.c:10) [prog]
 *
 * Mode is "cpu" or "wall" (--idle) with the interval in microseconds, as
 * stackprof writes it; sproftop never misses samples it counts, so the
 * miss and GC lines read 0.  A FRAME is the function name, its source
 * file and first line when known, and its module in brackets; control
 * characters become spaces so each function is one line.  When the
 * profile has more than one thread, one table per thread follows
 * ("== thread main-100: 4 samples"), over that thread's samples only.
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "escape.h"
#include "profile.h"

static void put_clean(FILE *f, const char *s)
{
    static const struct escape_map one_line = { "", "", true };

    escape_put(f, s, SIZE_MAX, &one_line);
}

static void put_frame(FILE *f, const struct frame_desc *d)
{
    put_clean(f, *d->name ? d->name : "[unknown]");
    export_put_place(f, d, " (", ")", put_clean);
    if (d->module) {
        fputs(" [", f);
        put_clean(f, d->module);
        putc(']', f);
    }
}

/* "(12.3%)" of n over all; stackprof's "(%2.1f%%)". */
static void pct(char *out, size_t cap, uint64_t n, uint64_t all)
{
    snprintf(out, cap, "(%2.1f%%)", all ? 100.0 * (double)n / (double)all
                                        : 0.0);
}

static int write_table(const struct profile *p, FILE *f)
{
    struct profile_flat *flat = NULL;
    long n = profile_flat(p, &flat);
    uint64_t all = profile_samples(p);

    if (n < 0)
        return -1;
    fprintf(f, "%10s    (pct)  %10s    (pct)     FRAME\n", "TOTAL",
            "SAMPLES");
    for (long i = 0; i < n; i++) {
        char tp[32], sp[32];

        pct(tp, sizeof(tp), flat[i].total, all);
        pct(sp, sizeof(sp), flat[i].self, all);
        fprintf(f, "%10" PRIu64 " %8s  %10" PRIu64 " %8s     ",
                flat[i].total, tp, flat[i].self, sp);
        put_frame(f, profile_frame(p, flat[i].frame));
        putc('\n', f);
    }
    free(flat);
    return 0;
}

static int write_top(const struct profile *p, const struct export_opts *o,
                     FILE *f)
{
    const struct profile_meta *m = profile_meta(p);
    uint32_t nt = profile_thread_count(p);

    (void)o;
    fputs("==================================\n", f);
    fprintf(f, "  Mode: %s(%" PRIu64 ")\n", m->idle ? "wall" : "cpu",
            (m->interval_ns + 500) / 1000);
    fprintf(f, "  Samples: %" PRIu64 " (0.00%% miss rate)\n",
            profile_samples(p));
    fputs("  GC: 0 (0.00%)\n", f);
    if (m->cmdline || m->comm || m->pid) {
        fputs("  Command: ", f);
        put_clean(f, m->cmdline ? m->cmdline : m->comm ? m->comm : "?");
        char pids[256];
        size_t np = profile_pid_list(p, pids, sizeof pids);
        if (np)
            fprintf(f, " (%s %s)", np > 1 ? "pids" : "pid", pids);
        putc('\n', f);
    }
    fprintf(f, "  Threads: %" PRIu32, nt);
    if (m->interval_ns)
        fprintf(f, ", interval %.3f ms", (double)m->interval_ns / 1e6);
    if (m->duration_ns)
        fprintf(f, ", duration %.3f s", (double)m->duration_ns / 1e9);
    fputs("\n==================================\n", f);
    if (write_table(p, f) != 0)
        goto fail;
    for (uint32_t i = 0; nt > 1 && i < nt; i++) {
        const struct profile_thread *t = profile_thread_at(p, i);
        struct profile_filter flt = { .thread = i, .focus = PROFILE_NONE };
        struct profile *d = profile_derive(p, &flt);

        if (!d)
            goto fail;
        fputs("\n== thread ", f);
        put_clean(f, t->name ? t->name : "?");
        fprintf(f, "-%" PRId64 ": %" PRIu64 " samples\n", t->tid,
                profile_samples(d));
        if (write_table(d, f) != 0) {
            profile_free(d);
            goto fail;
        }
        profile_free(d);
    }
    if (!ferror(f))
        return 0;
fail:
    return -1;
}

EXPORT_COUNTS_WRITER(export_top_write, write_top)
