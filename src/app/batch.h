/* batch.h - batch mode: sample until the end condition, then write.
 *
 * Ends when the duration is over, the target exits, or a stop signal
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT) sets *stop; then detaches, folds in
 * the pending samples and writes the output file (atomically) or, with no
 * output file, the text summary to stdout.  A launched command is then
 * ended or kept as launch.h says, for batch mode and the live view
 * alike.
 */
#ifndef SPROFTOP_BATCH_H
#define SPROFTOP_BATCH_H

#include <signal.h>
#include <stdbool.h>

#include "export.h"

struct source;

struct batch_opts {
    double duration_s;               /* 0: until the target exits */
    const char *output;              /* NULL: summary report on stdout */
    const struct format *format;     /* with output */
    struct export_opts eopts;
    bool stats;                      /* --stats to stderr */
    bool launched;                   /* a command was launched: its end
                                        is launch_finish's (launch.h) */
    bool keep_cmd;                   /* --keep-cmd */
    const char *cmd_name;            /* the command, for messages */
    const char *annotate;            /* --annotate NAME: eopts.annotation
                                        is NAME's code, from the source */
    volatile sig_atomic_t *stop;     /* signal number set by the handlers */
};

/* Run batch mode on any source, through its ops (closing it): a live
 * source is sampled until the end condition, then finished; a file is
 * written at once.  The writers get the source's machine code
 * (eopts.code: its annotate op) for --dump-instr and --annotate; a
 * function --annotate cannot show is a one-line error.  Returns the
 * exit code: launch_finish's when a command was launched, else 0, or 1
 * on a write error.  Main thread. */
int batch_run(struct source *src, const struct batch_opts *o);

#endif
