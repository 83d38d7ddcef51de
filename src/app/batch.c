/* batch.c - batch mode; see batch.h. */
#include "batch.h"

#include "clock.h"
#include "launch.h"
#include "profile.h"
#include "report.h"
#include "source.h"

#include <signal.h>
#include <stdio.h>
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
        if (export_to_file(o->format, p, &o->eopts, o->output, err, sizeof err) < 0) {
            fprintf(stderr, "sproftop: %s\n", err);
            rc = 1;
        }
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
