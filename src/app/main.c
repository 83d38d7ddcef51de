/* main.c - the modes and their dispatch; the command line is options.c's.
 *
 * Modes: --dump (one stack per thread), batch (-o, or no terminal on
 * stdout), the TUI (a terminal and no -o), and loading saved profiles (-i).
 * Every error is one line on stderr; exit 1 for runtime failures, 2 for
 * usage errors.
 */
#include "annot.h"
#include "batch.h"
#include "collect.h"
#include "dump.h"
#include "export.h"
#include "format.h"
#include "late_names.h"
#include "launch.h"
#include "load.h"
#include "options.h"
#include "outfile.h"
#include "profile.h"
#include "report.h"
#include "sampler.h"
#include "source.h"
#include "ui.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* --- --dump ---------------------------------------------------------------- */

static int run_dump(const struct opts *o)
{
    char err[512];
    int code = 1;
    if (dump_run(o->pid, o->sampler, stdout, err, sizeof err, &code) < 0) {
        fprintf(stderr, "sproftop: %s\n", err);
        return code;
    }
    return fflush(stdout) == EOF ? 1 : 0;
}

/* --- main ------------------------------------------------------------------ */

static void install_signals(void)
{
    /* SIGCHLD stays blocked in every thread: the sampler waits for it with
     * sigtimedwait.  The stop signals only set a flag. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* Past a file size limit (ulimit -f) a write fails with EFBIG, which
     * export_to_file reports, removing its temporary file; SIGXFSZ would
     * kill sproftop first and leave that file behind. */
    signal(SIGXFSZ, SIG_IGN);
}

/* The save prompt's view of the formats (ui.h: struct ui_save_ops). */
static const char *ui_format_name(size_t i)
{
    return i < format_count() ? format_at(i)->name : NULL;
}

static const char *ui_format_exts(size_t i)
{
    return i < format_count() ? format_at(i)->exts : NULL;
}

static long ui_format_for_path(const char *path, char *note, size_t n)
{
    const struct format *e;
    enum format_ext how = format_for_name(path, &e, note, n);
    return e ? (long)(e - format_at(0)) : how == FORMAT_EXT_UNKNOWN ? -2 : -1;
}

static int ui_format_write(size_t i, const struct profile *p, const char *path,
                           double hide_self, double hide_subs, char *err, size_t errlen)
{
    struct export_opts eo;
    /* the live view draws on the terminal: a profile written there would
     * be drawn over, or break the screen */
    if (outfile_std_fd(path) >= 0) {
        snprintf(err, errlen, "cannot save to %s while the live view is on the terminal", path);
        return -1;
    }
    export_opts_default(&eo);
    eo.hide_self = hide_self;
    eo.hide_subs = hide_subs;
    return export_to_file(format_at(i), p, &eo, path, err, errlen);
}

static void fill_ui_options(const struct opts *o, struct ui_options *u)
{
    static const struct ui_save_ops save = { ui_format_name, ui_format_exts, ui_format_for_path,
                                             ui_format_write };
    ui_options_default(u);
    u->save = &save;
    u->load = load_file;
    u->annotate_file = annot_file;
    u->refresh_s = o->refresh;
    const char *nc = getenv("NO_COLOR");
    u->no_color = o->no_color || (nc && *nc);
    u->snapshot_dir = o->snapshot_dir;
    u->script = o->script;
    u->hide_self = o->hide_self;
    u->hide_subs = o->hide_subs;
    u->python_only = o->python_only;
    u->quit_flag = &stop_signal;
    u->export_format = o->format;
    u->baseline = o->base;
    u->baseline_name = o->baseline ? util_basename(o->baseline) : NULL;
    u->confirm_quit = !o->no_confirm;
}

/* The inputs, -i's files, loaded and merged into one profile; NULL
 * after saying why on stderr. */
static struct profile *load_inputs(const struct opts *o)
{
    char err[512];
    struct profile *p = NULL;
    for (int i = 0; i < o->ninputs; i++) {
        struct profile *q = load_file(o->inputs[i], err, sizeof err);
        if (!q) {
            fprintf(stderr, "sproftop: %s\n", err);
            profile_free(p);
            return NULL;
        }
        if (!p) {
            p = q;
            continue;
        }
        int rc = profile_merge(p, q);
        const char *why = rc == PROFILE_MERGE_REFUSED ? profile_merge_refusal(p, q) : NULL;
        profile_free(q);
        if (rc < 0) {
            if (why)
                fprintf(stderr, "sproftop: cannot merge %s: %s\n", o->inputs[i], why);
            else
                fprintf(stderr, "sproftop: out of memory merging %s\n", o->inputs[i]);
            profile_free(p);
            return NULL;
        }
    }
    return p;
}

/* -o with -i: p (taken) written to the output file; the exit status. */
static int inputs_to_file(const struct opts *o, struct profile *p)
{
    char err[512];
    if (o->annotate || o->dump_instr) {
        /* the writers read machine code through a source */
        struct source *src = source_file_new(p, o->inputs[0]);
        if (!src) {
            fprintf(stderr, "sproftop: out of memory\n");
            return 1;
        }
        source_file_set_annotate(src, annot_file);
        struct batch_opts b = { .output = o->output, .format = options_format(o),
                                .annotate = o->annotate };
        export_opts_default(&b.eopts);
        b.eopts.dump_instr = o->dump_instr;
        return batch_run(src, &b);
    }
    struct export_opts eo;
    export_opts_default(&eo);
    eo.no_thread_root = o->no_thread_root;
    eo.no_process_root = o->no_process_root;
    eo.python_only = o->python_only;
    eo.hide_self = o->hide_self;
    eo.hide_subs = o->hide_subs;
    eo.baseline = o->base;
    int rc = export_to_file(options_format(o), p, &eo, o->output, err, sizeof err);
    profile_free(p);
    if (rc < 0) {
        fprintf(stderr, "sproftop: %s\n", err);
        return 1;
    }
    return 0;
}

static int run_inputs(const struct opts *o)
{
    struct profile *p = load_inputs(o);
    if (!p)
        return 1;
    if (o->base && !profile_has_stacks(p)) {
        fprintf(stderr, "sproftop: --baseline: %s: %s\n", o->inputs[0], PROFILE_NO_STACKS);
        profile_free(p);
        profile_free(o->base);
        return 1;
    }
    /* code saved without its names, with its build-ids: name it now */
    (void)late_names_resolve(p, NULL);
    if (o->output) {
        int rc = inputs_to_file(o, p);
        profile_free(o->base);
        return rc;
    }
    if (!o->script && !isatty(STDOUT_FILENO)) {
        /* no terminal: the same text summary as batch mode */
        int rc = report_write_summary(p, stdout, 15) < 0 || fflush(stdout) == EOF;
        profile_free(p);
        profile_free(o->base);
        if (rc)
            fprintf(stderr, "sproftop: cannot write the report to stdout\n");
        return rc;
    }
    struct source *src = source_file_new(p, o->inputs[0]);
    if (!src) {
        fprintf(stderr, "sproftop: out of memory\n");
        return 1;
    }
    source_file_set_annotate(src, annot_file);
    struct ui_options u;
    fill_ui_options(o, &u);
    /* s offers first a format that holds a call graph and reads back */
    for (size_t i = 0; !o->format && !profile_has_stacks(p) && i < format_count(); i++)
        if (format_at(i)->graph && format_at(i)->load) {
            u.export_format = format_at(i)->name;
            break;
        }
    int rc = ui_run(src, &u);
    src->ops->close(src);
    return rc;
}

/* The sampler's configuration for a live target, from the options and
 * the environment's tuning knobs.  0, or 1 after printing why not. */
static int live_config(const struct opts *o, bool tui, struct sampler_config *cfg)
{
    sampler_config_default(cfg);
    cfg->pid = o->pid;
    cfg->argv = o->argv;
    cfg->quiet_child = tui;
    if (o->cmd_output) {
        /* As the shell's > would: created or truncated, followed if a
         * link (a terminal or a fifo may be meant).  The command gets its
         * own copies; this one closes at its exec and with sproftop. */
        cfg->child_out = open(o->cmd_output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
                              0666);
        if (cfg->child_out < 0) {
            fprintf(stderr, "sproftop: cannot open %s for the command's output: %s\n",
                    o->cmd_output, strerror(errno));
            return 1;
        }
    }
    if (o->freq > 0) {
        cfg->interval_ns = (uint64_t)(1e9 / o->freq);
        cfg->interval_set = true;
    }
    cfg->idle = o->idle;
    cfg->kind = o->sampler;
    if (o->stack_size) {
        cfg->stack_max = o->stack_size;
        cfg->stack_max_set = true;
    }
    cfg->ring_bytes = o->ring_size;
    cfg->exited_nodes = o->exited_nodes;
    const char *env = getenv("SPROFTOP_PLACEMENT");
    if (env && strcmp(env, "follow") == 0)
        cfg->placement = SAMPLER_PLACE_FOLLOW;
    if ((env = getenv("SPROFTOP_SPIN_US")))
        cfg->spin_us = (uint32_t)strtoul(env, NULL, 10);
    cfg->kernel_frames = !o->no_kernel;
    cfg->kallsyms = getenv("SPROFTOP_KALLSYMS"); /* tests: odd kallsyms */
    if ((env = getenv("SPROFTOP_OFFCPU_REASONS")) && strcmp(env, "0") == 0)
        cfg->reasons = false; /* a benchmark knob: --idle as before reasons */
    return 0;
}

/* The live view of a running source, until the user quits. */
static int run_tui(const struct opts *o, struct source *src)
{
    struct ui_options u;
    fill_ui_options(o, &u);
    u.duration_s = o->duration;
    u.ends_command = o->argv && !o->keep_cmd;
    int rc = ui_run(src, &u);
    src->ops->finish(src);
    if (o->stats)
        src->ops->print_stats(src, stderr);
    if (o->argv)   /* launch.h: ended with the session, or kept */
        launch_finish(src, stop_signal, o->keep_cmd, o->argv[0]);
    src->ops->close(src);
    return rc;
}

/* Batch mode: sample until the end, then write -o's file or a summary. */
static int run_batch(const struct opts *o, struct source *src)
{
    struct batch_opts b = {
        .duration_s = o->duration,
        .output = o->output,
        .format = options_format(o),
        .stats = o->stats,
        .launched = o->argv != NULL,
        .keep_cmd = o->keep_cmd,
        .cmd_name = o->argv ? o->argv[0] : NULL,
        .stop = &stop_signal,
        .annotate = o->annotate,
    };
    export_opts_default(&b.eopts);
    b.eopts.no_thread_root = o->no_thread_root;
    b.eopts.no_process_root = o->no_process_root;
    b.eopts.python_only = o->python_only;
    b.eopts.hide_self = o->hide_self;
    b.eopts.hide_subs = o->hide_subs;
    b.eopts.baseline = o->base;
    b.eopts.dump_instr = o->dump_instr;
    int rc = batch_run(src, &b);
    profile_free(o->base);
    return rc;
}

/* Attach to the targets (or launch the command) and sample them.  The
 * baseline goes to the live view, which frees it, or is freed here. */
static int run_live(const struct opts *o)
{
    char err[512];
    int code = 1;
    if (o->output && export_check_path(o->output, err, sizeof err) < 0) {
        /* fail before attaching, not after the whole run */
        fprintf(stderr, "sproftop: %s\n", err);
        profile_free(o->base);
        return 1;
    }
    bool tui = !o->output && (o->script || isatty(STDOUT_FILENO));
    struct sampler_config cfg;
    if (live_config(o, tui, &cfg) != 0) {
        profile_free(o->base);
        return 1;
    }
    struct source *src = o->all ? collect_start_all(&cfg, err, sizeof err, &code)
        : o->npids > 1 || o->children
        ? collect_start_pids(&cfg, o->pids, o->npids, o->children, err, sizeof err, &code)
        : collect_start(&cfg, err, sizeof err, &code);
    if (cfg.child_out >= 0)
        close(cfg.child_out);
    if (!src) {
        fprintf(stderr, "sproftop: %s\n", err);
        profile_free(o->base);
        return code;
    }
    return tui ? run_tui(o, src) : run_batch(o, src);
}

int main(int argc, char **argv)
{
    struct opts o;
    int rc = options_parse(argc, argv, &o);
    if (rc)
        return rc;
    install_signals();
    /* Debug info is fetched from $DEBUGINFOD_URLS on a thread of its own
     * (src/symbols/dbgfetch.h); without the variable nothing is fetched. */
    if (o.no_debuginfod)
        unsetenv("DEBUGINFOD_URLS");
    if (o.baseline) {
        char err[512];
        if (!(o.base = load_file(o.baseline, err, sizeof err))) {
            fprintf(stderr, "sproftop: --baseline: %s\n", err);
            return 1;
        }
        if (!profile_has_stacks(o.base)) {
            fprintf(stderr, "sproftop: --baseline: %s: %s\n", o.baseline,
                    PROFILE_NO_STACKS);
            profile_free(o.base);
            return 1;
        }
    }
    if (o.ninputs)
        return run_inputs(&o);
    if (o.dump) {
        profile_free(o.base);
        return run_dump(&o);
    }
    return run_live(&o);
}
