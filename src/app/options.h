/* options.h - the command line: one table of options.
 *
 * Each option is declared once, in options.c's table (git's
 * parse-options, tig's settings): its names, its value, what a missing
 * value should be, its group and its help text, and where it goes in
 * struct opts.  getopt_long's long options and short string, `--help`,
 * `--help-options` (the Markdown that tests/docs/options.sh turns into
 * the man page's OPTIONS section and README.md's option tables) and the
 * "option '-o' needs an output file name" errors all come from it, so
 * they cannot disagree.  Called by main.c on the main thread only.
 */
#ifndef SPROFTOP_OPTIONS_H
#define SPROFTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct format;
struct profile;

#define OPTS_MAX_INPUTS 64  /* -i FILE, repeated */
#define OPTS_MAX_PIDS 64    /* -p PID[,PID...] */

/* What the command line asked for. */
struct opts {
    pid_t pid;            /* pids[0] */
    pid_t pids[OPTS_MAX_PIDS]; /* -p PID[,PID...] */
    size_t npids;
    bool all;             /* -a */
    bool children;        /* --children */
    char **argv;          /* -- CMD [ARG...], NULL-terminated */
    const char *cmd_output; /* --cmd-output FILE */
    bool keep_cmd;        /* --keep-cmd */
    const char *inputs[OPTS_MAX_INPUTS]; /* -i FILE... */
    int ninputs;
    bool dump;            /* --dump */
    double freq;          /* -F; 0: each backend's default */
    double duration;      /* -d, seconds; 0: until the end */
    bool idle;            /* --idle */
    int sampler;          /* --sampler or SPROFTOP_SAMPLER: enum
                             sampler_kind */
    size_t stack_size;    /* --stack-size, 0: the backend's default */
    size_t ring_size;     /* --ring-size, 0: the backend's default */
    uint64_t exited_nodes; /* --exited-nodes, 0: the default */
    bool no_debuginfod;   /* --no-debuginfod */
    bool no_kernel;       /* --no-kernel */
    const char *output;   /* -o FILE */
    const char *format;   /* -f NAME */
    bool no_thread_root, no_process_root; /* folded's roots */
    bool python_only;     /* --python-only */
    const char *baseline; /* --baseline FILE */
    struct profile *base; /* its profile, loaded by main (given to
                             ui_run, which frees it, or freed by main) */
    const char *annotate; /* --annotate NAME */
    bool dump_instr;      /* --dump-instr */
    bool stats;           /* --stats */
    double refresh;       /* -r, seconds */
    double hide_self, hide_subs; /* --hide-self, --hide-subs, percent */
    const char *snapshot_dir; /* --snapshot-dir */
    bool no_color;        /* --no-color */
    bool no_confirm;      /* --no-confirm */
    const char *script;   /* --script FILE */
};

/* Parse argv into *o (defaults first, SPROFTOP_SAMPLER included) and
 * check the options against each other.  --help, --help-keys,
 * --help-options and --version print and exit.  Returns 0, or 2 after
 * printing one line on stderr (a usage error). */
int options_parse(int argc, char **argv, struct opts *o);

/* The format -o's file is written in: -f's, else the one its extension
 * names, else folded. */
const struct format *options_format(const struct opts *o);

/* `sproftop --help`, to f. */
void options_usage(FILE *f);

/* The options as Markdown: per group a "### Group" heading and a
 * "| Option | Meaning |" table, in --help's order and words.  Returns 0,
 * or -1 when writing failed. */
int options_markdown(FILE *f);

#endif
