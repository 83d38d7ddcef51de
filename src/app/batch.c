/* batch.c - batch mode; see batch.h. */
#include "batch.h"

#include "clock.h"
#include "collect.h"
#include "profile.h"
#include "report.h"
#include "source.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

int batch_run(struct source *src, const struct batch_opts *o)
{
    uint64_t t0 = clock_mono_ns();
    for (;;) {
        if (o->stop && *o->stop)
            break;
        if (o->duration_s > 0 && (double)(clock_mono_ns() - t0) / 1e9 >= o->duration_s)
            break;
        struct source_status st;
        src->ops->status(src, &st);
        if (st.state == TARGET_EXITED || st.state == TARGET_DETACHED)
            break;
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    collect_finish(src);
    int rc = 0;
    struct profile *p = src->ops->snapshot(src);
    if (!p) {
        fprintf(stderr, "sproftop: out of memory taking the profile\n");
        rc = 1;
    } else if (o->output) {
        char err[512];
        if (export_to_file(o->format, p, &o->eopts, o->output, err, sizeof err) < 0) {
            fprintf(stderr, "sproftop: %s\n", err);
            rc = 1;
        }
    } else {
        if (report_write_summary(p, stdout, 15) < 0 || fflush(stdout) == EOF) {
            fprintf(stderr, "sproftop: cannot write the report to stdout\n");
            rc = 1;
        }
    }
    profile_free(p);
    if (o->stats)
        collect_print_stats(src, stderr);
    struct sampler_stats ss;
    collect_sampler_stats(src, &ss);
    if (o->launched && !ss.exit_known && ss.pid > 0) {
        /* The command outlived the sampling (duration over, or we were
         * signalled): like timeout(1), pass the signal on, and wait for it
         * so that we can exit with its status. */
        if (o->stop && *o->stop)
            kill(ss.pid, (int)*o->stop);
        int status = 0;
        pid_t r;
        while ((r = waitpid(ss.pid, &status, 0)) < 0 && errno == EINTR)
            ;
        if (r == ss.pid && (WIFEXITED(status) || WIFSIGNALED(status))) {
            ss.exit_known = true;
            ss.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
            ss.exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        }
    }
    if (rc == 0 && o->launched && ss.exit_known)
        rc = ss.exit_signal ? 128 + ss.exit_signal : ss.exit_code;
    src->ops->close(src);
    return rc;
}
