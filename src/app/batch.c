/* batch.c - batch mode; see batch.h. */
#include "batch.h"

#include "annotate.h"
#include "clock.h"
#include "launch.h"
#include "profile.h"
#include "report.h"
#include "source.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wait until the duration is over, a stop signal came, or the source has
 * nothing more to give (the target exited, sampling ended, or a file). */
static void wait_for_end(struct source *src, const struct batch_opts *o)
{
    uint64_t t0 = clock_mono_ns();
    for (;;) {
        if (o->stop && *o->stop)
            return;
        if (o->duration_s > 0 &&
            (double)(clock_mono_ns() - t0) / 1e9 >= o->duration_s)
            return;
        struct source_status st;
        src->ops->status(src, &st);
        if (st.state == TARGET_EXITED || st.state == TARGET_DETACHED ||
            st.state == TARGET_NONE)
            return;
        /* every 250 ms (a wake-up is most of an idle session's cost),
         * or when the duration ends */
        uint64_t nap = 250000000ull;
        if (o->duration_s > 0) {
            double left = o->duration_s - (double)(clock_mono_ns() - t0) / 1e9;
            if (left * 1e9 < (double)nap)
                nap = left > 0 ? (uint64_t)(left * 1e9) + 1 : 1;
        }
        struct timespec ts = {0, (long)nap};
        nanosleep(&ts, NULL);
    }
}

/* export_opts.code: the source's annotate op. */
static struct annotation *source_code(void *ctx,
                                      const struct annot_request *rq)
{
    struct source *src = ctx;
    return src->ops->annotate ? src->ops->annotate(src, rq) : NULL;
}

/* --annotate NAME: NAME's code in p, from the source; NULL with a
 * one-line reason in err. */
static struct annotation *annotate_function(struct source *src,
                                            const struct profile *p,
                                            const char *name, char *err,
                                            size_t errlen)
{
    uint32_t f = annot_function(p, name);
    if (f == PROFILE_NONE) {
        snprintf(err, errlen, "--annotate: no function '%s' with samples "
                 "in the profile", name);
        return NULL;
    }
    struct profile_linecount *lc = NULL;
    struct annot_request rq;
    uint64_t *addrs = NULL;
    struct annotation *a = NULL;
    long n = profile_lines(p, f, true, &lc);
    if (n >= 0 && annot_request_init(&rq, p, f, lc, (size_t)n, &addrs) == 0)
        a = source_code(src, &rq);
    free(addrs);
    free(lc);
    if (!a) {
        snprintf(err, errlen, "--annotate %s: %s", name,
                 src->ops->annotate ? "out of memory"
                                    : "this source has no machine code");
    } else if (!a->n) {
        snprintf(err, errlen, "--annotate %s: %s", name, a->why);
        annotation_free(a);
        a = NULL;
    }
    return a;
}

/* The summary on stdout, or the output file.  0, or 1 on an error. */
static int write_output(struct source *src, const struct batch_opts *o)
{
    int rc = 0;
    struct profile *p = src->ops->snapshot(src);
    if (!p) {
        fprintf(stderr, "sproftop: out of memory taking the profile\n");
        return 1;
    }
    if (o->output) {
        char err[512];
        struct export_opts eo = o->eopts;
        struct annotation *a = NULL;
        eo.code = source_code;
        eo.code_ctx = src;
        if (o->annotate)
            eo.annotation = a = annotate_function(src, p, o->annotate, err,
                                                  sizeof err);
        if (o->annotate && !a) {
            fprintf(stderr, "sproftop: %s\n", err);
            rc = 1;
        } else if (export_to_file(o->format, p, &eo, o->output, err,
                                  sizeof err) < 0) {
            fprintf(stderr, "sproftop: %s\n", err);
            rc = 1;
        }
        annotation_free(a);
    } else if (report_write_summary(p, stdout, 15) < 0 || fflush(stdout) == EOF) {
        fprintf(stderr, "sproftop: cannot write the report to stdout\n");
        rc = 1;
    }
    profile_free(p);
    return rc;
}

int batch_run(struct source *src, const struct batch_opts *o)
{
    wait_for_end(src, o);
    if (src->ops->finish)
        src->ops->finish(src);
    int rc = write_output(src, o);
    if (o->stats && src->ops->print_stats)
        src->ops->print_stats(src, stderr);
    if (o->launched) {
        int status = launch_finish(src, o->stop ? (int)*o->stop : 0,
                                   o->keep_cmd, o->cmd_name);
        if (rc == 0)
            rc = status;
    }
    src->ops->close(src);
    return rc;
}
