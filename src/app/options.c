/* options.c - the table of command-line options and what reads it.
 *
 * See options.h.  A new option is one row of options[] (and, when it
 * takes a value that is not a plain string, a set_ function), then
 * `make docs` to put it in the man page and README.md.
 */
#include "options.h"

#include <elfutils/version.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <libunwind.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "duration.h"
#include "format.h"
#include "ksyms.h"
#include "launch.h"
#include "sampler.h"
#include "target.h"
#include "ui.h"

enum opt_group { G_TARGET, G_SAMPLING, G_OUTPUT, G_LIVE, G_OTHER };

static const struct {
    const char *name;   /* the heading of --help, the man page, README */
    const char *scope;  /* --help adds it in parentheses; NULL: none */
} groups[] = {
    [G_TARGET] = { "Target", "one of" },
    [G_SAMPLING] = { "Sampling", NULL },
    [G_OUTPUT] = { "Output", "batch mode: -o, or stdout not a terminal" },
    [G_LIVE] = { "Live view", "a terminal on stdout and no -o" },
    [G_OTHER] = { "Other", NULL },
};

/* Long-only options get keys past any character. */
enum {
    K_IDLE = 1000, K_STATS, K_DUMP, K_NO_THREAD_ROOT, K_NO_COLOR,
    K_SNAPSHOT_DIR, K_SCRIPT, K_HIDE_SELF, K_HIDE_SUBS, K_HELP_KEYS,
    K_HELP_OPTIONS, K_BASELINE, K_NO_CONFIRM, K_CMD_OUTPUT, K_KEEP_CMD,
    K_SAMPLER, K_STACK_SIZE, K_NO_PROCESS_ROOT, K_CHILDREN, K_NO_DEBUGINFOD,
    K_PYTHON_ONLY,
    K_PID_OF,
    K_ANNOTATE, K_DUMP_INSTR, K_NO_KERNEL, K_RING_SIZE, K_EXITED_NODES,
};

typedef int set_fn(struct opts *o, const char *arg);
typedef void help_fn(char *buf, size_t n);

struct option_row {
    const char *name;   /* long name; NULL: not an option ("-- CMD") */
    int key;            /* its short letter, or a K_ value */
    const char *arg;    /* the value's name in the help; NULL: none */
    const char *need;   /* what the value is, for "option '-o' needs an
                           output file name" */
    enum opt_group group;
    const char *help;   /* the help text, or NULL and: */
    help_fn *help_fn;   /* writes help text that quotes a constant */
    /* What the option does: set a bool (flag) or a string (arg) of
     * struct opts at `field`, or call set. */
    set_fn *set;
    size_t field;
};

#define FIELD(f) .field = offsetof(struct opts, f)

__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "sproftop: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see sproftop --help)\n");
    va_end(ap);
    return 2;
}

/* Parse a decimal number in [lo, hi]; 0 on success. */
static int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v;

    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end || v != v || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* --- options that do more than store their value -------------------------- */

/* Add pid to -p's list (once); 0, or 2 when the list is full. */
static int add_pid(struct opts *o, pid_t pid)
{
    for (size_t k = 0; k < o->npids; k++)
        if (o->pids[k] == pid)
            return 0;
    if (o->npids == OPTS_MAX_PIDS)
        return usage_error("too many PIDs: at most %d", OPTS_MAX_PIDS);
    o->pids[o->npids++] = pid;
    o->pid = o->pids[0];
    return 0;
}

/* pgrep's way: every process whose name matches, all of them, and say
 * which when there are several (the header lists their PIDs too). */
static int set_pid_of(struct opts *o, const char *arg)
{
    pid_t found[OPTS_MAX_PIDS];
    char err[256];
    int n = target_find_by_name(arg, found, OPTS_MAX_PIDS, err, sizeof err);

    if (n < 0) {
        fprintf(stderr, "sproftop: %s\n", err);
        return 2;
    }
    if (n == 0) {
        fprintf(stderr, "sproftop: no process is named '%s' (matched as "
                "pgrep does; give -p PID, or see ps -e)\n", arg);
        return 1;
    }
    if (n > OPTS_MAX_PIDS)
        return usage_error("%d processes are named '%s': at most %d", n,
                           arg, OPTS_MAX_PIDS);
    for (int i = 0; i < n; i++)
        if (add_pid(o, found[i]) != 0)
            return 2;
    if (n > 1) {
        fprintf(stderr, "sproftop: '%s' names %d processes; taking all:",
                arg, n);
        for (int i = 0; i < n; i++) {
            char comm[64];
            target_thread_name(found[i], found[i], comm, sizeof comm);
            fprintf(stderr, " %d (%s)", (int)found[i], comm);
        }
        fputc('\n', stderr);
    }
    return 0;
}

/* perf's syntax: a comma-separated list; -p may be repeated.  What
 * starts like no number ("nginx", not "12x" or "-5", which are bad
 * lists) is a process name (set_pid_of). */
static int set_pid(struct opts *o, const char *arg)
{
    const char *q = arg;

    if (arg[0] && !strchr("0123456789+-, ", arg[0]))
        return set_pid_of(o, arg);

    do {
        char *end;

        errno = 0;
        long pid = strtol(q, &end, 10);
        if (errno || end == q || (*end && *end != ',') || pid <= 0 ||
            pid > INT_MAX)
            return usage_error("invalid PID list '%s': expected "
                               "PID[,PID...]", arg);
        if (add_pid(o, (pid_t)pid) != 0)
            return 2;
        q = *end ? end + 1 : end;
    } while (*q);
    return 0;
}

static int set_input(struct opts *o, const char *arg)
{
    if (o->ninputs == OPTS_MAX_INPUTS)
        return usage_error("too many -i files (at most %d)",
                           OPTS_MAX_INPUTS);
    o->inputs[o->ninputs++] = arg;
    return 0;
}

static int set_freq(struct opts *o, const char *arg)
{
    if (parse_num(arg, SP_FREQ_MIN_HZ, SP_FREQ_MAX_HZ, &o->freq) < 0)
        return usage_error("invalid frequency '%s': expected %g..%g Hz",
                           arg, SP_FREQ_MIN_HZ, SP_FREQ_MAX_HZ);
    return 0;
}

static void help_freq(char *buf, size_t n)
{
    char rate[64];

    snprintf(buf, n, "samples per second per thread (%g..%g; %s)",
             SP_FREQ_MIN_HZ, SP_FREQ_MAX_HZ,
             sampler_about(SAMPLER_ABOUT_RATE, rate, sizeof rate));
}

static int set_duration(struct opts *o, const char *arg)
{
    if (duration_parse_seconds(arg, 0.001, 1e7, &o->duration) < 0)
        return usage_error("invalid duration '%s': expected a positive "
                           "number of seconds", arg);
    return 0;
}

static int set_sampler(struct opts *o, const char *arg)
{
    if ((o->sampler = sampler_kind_parse(arg)) < 0)
        return usage_error("invalid sampler '%s': expected %s", arg,
                           SAMPLER_NAMES);
    return 0;
}

#define STACK_SIZE_MIN 64ull
#define STACK_SIZE_MAX (64ull << 20)
#define RING_SIZE_MIN (4ull << 10)
#define RING_SIZE_MAX (1ull << 30)

/* A size in bytes with an optional K or M suffix, in [lo, hi]; 0, or -1
 * when it is not one. */
static int parse_size(const char *arg, unsigned long long lo,
                      unsigned long long hi, unsigned long long *out)
{
    char *end;
    unsigned long long b;

    errno = 0;
    b = strtoull(arg, &end, 10);
    if (*end == 'K' || *end == 'k')
        b = b > ULLONG_MAX >> 10 ? ULLONG_MAX : b << 10, end++;
    else if (*end == 'M' || *end == 'm')
        b = b > ULLONG_MAX >> 20 ? ULLONG_MAX : b << 20, end++;
    if (errno || *end || !*arg || arg[0] == '-' || b < lo || b > hi)
        return -1;
    *out = b;
    return 0;
}

static int set_stack_size(struct opts *o, const char *arg)
{
    unsigned long long b;

    if (parse_size(arg, STACK_SIZE_MIN, STACK_SIZE_MAX, &b) < 0)
        return usage_error("invalid stack size '%s': expected %llu..%lluM "
                           "bytes", arg, STACK_SIZE_MIN, STACK_SIZE_MAX >> 20);
    o->stack_size = (size_t)b;
    return 0;
}

static int set_ring_size(struct opts *o, const char *arg)
{
    unsigned long long b;

    if (parse_size(arg, RING_SIZE_MIN, RING_SIZE_MAX, &b) < 0)
        return usage_error("invalid ring size '%s': expected %lluK..%lluM "
                           "bytes", arg, RING_SIZE_MIN >> 10,
                           RING_SIZE_MAX >> 20);
    o->ring_size = (size_t)b;
    return 0;
}

static int set_exited_nodes(struct opts *o, const char *arg)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (errno || *end || !*arg || arg[0] == '-' ||
        v < SP_EXITED_NODES_MIN || v > SP_EXITED_NODES_MAX)
        return usage_error("invalid node count '%s': expected %llu..%llu",
                           arg, SP_EXITED_NODES_MIN, SP_EXITED_NODES_MAX);
    o->exited_nodes = v;
    return 0;
}

static void help_exited_nodes(char *buf, size_t n)
{
    snprintf(buf, n, "keep the stacks of exited processes and threads "
             "near N nodes (default %llu, about %llu MiB): past it, their "
             "rarest are cut into [rare stacks], where each function keeps "
             "its samples unless rare there too; more keeps rarer stacks "
             "of a long -a, fewer takes less memory", SP_EXITED_NODES_DEFAULT,
             SP_EXITED_NODES_DEFAULT / 10000);
}

static void help_stack_size(char *buf, size_t n)
{
    char stack[96];

    snprintf(buf, n, "stack bytes copied per sample; K and M suffixes (%s)",
             sampler_about(SAMPLER_ABOUT_STACK, stack, sizeof stack));
}

static void help_keep_cmd(char *buf, size_t n)
{
    snprintf(buf, n, "CMD runs on when the session ends first (else it is "
             "ended: SIGTERM, SIGKILL %g s later)", LAUNCH_GRACE_MS / 1e3);
}

static void help_all(char *buf, size_t n)
{
    char all[96];

    snprintf(buf, n, "every process (and those started later): needs %s",
             sampler_about(SAMPLER_ABOUT_ALL, all, sizeof all));
}

static void help_no_kernel(char *buf, size_t n)
{
    char kernel[64];

    snprintf(buf, n, "no kernel frames above the stacks (%s: on where the "
             "kernel permits them)", sampler_about(SAMPLER_ABOUT_KERNEL,
                                                   kernel, sizeof kernel));
}

static void help_children(char *buf, size_t n)
{
    char children[64];

    snprintf(buf, n, "also sample every process the targets fork from now "
             "on (%s)", sampler_about(SAMPLER_ABOUT_CHILDREN, children,
                                      sizeof children));
}

/* The formats that can do something ("folded or svg"): those whose bool
 * capability at offset `can` of struct format is set (FORMAT_BASELINE,
 * ...), from the format table, into buf. */
#define FORMAT_BASELINE offsetof(struct format, baseline)
#define FORMAT_ANNOTATE offsetof(struct format, annotate)
#define FORMAT_INSTR offsetof(struct format, instr)
static const char *formats_with(char *buf, size_t n, size_t can)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < format_count() && used < n; i++)
        if (*(const bool *)((const char *)format_at(i) + can))
            used += (size_t)snprintf(buf + used, n - used, "%s%s",
                                     used ? " or " : "", format_at(i)->name);
    return buf;
}

static void help_annotate(char *buf, size_t n)
{
    char list[128];

    snprintf(buf, n, "-f %s: function NAME's instructions with their "
             "samples and source lines, not the call graph",
             formats_with(list, sizeof(list), FORMAT_ANNOTATE));
}

static void help_dump_instr(char *buf, size_t n)
{
    char list[128];

    snprintf(buf, n, "-f %s: a cost per instruction (positions: instr "
             "line, as valgrind --dump-instr=yes)",
             formats_with(list, sizeof(list), FORMAT_INSTR));
}

static void help_baseline(char *buf, size_t n)
{
    char list[128];

    snprintf(buf, n, "compare with the profile in FILE: the live view's "
             "change columns; -f %s: a differential profile (two counts per "
             "line; red/blue frames)", formats_with(list, sizeof(list), FORMAT_BASELINE));
}

static int set_refresh(struct opts *o, const char *arg)
{
    if (duration_parse_seconds(arg, UI_REFRESH_MIN_S, UI_REFRESH_MAX_S,
                               &o->refresh) < 0)
        return usage_error("invalid refresh interval '%s': expected %g..%g "
                           "seconds", arg, UI_REFRESH_MIN_S, UI_REFRESH_MAX_S);
    return 0;
}

static void help_refresh(char *buf, size_t n)
{
    snprintf(buf, n, "redraw interval (%g..%g; %g)", UI_REFRESH_MIN_S,
             UI_REFRESH_MAX_S, UI_REFRESH_DEFAULT_S);
}

static int set_hide(double *pct, const char *arg)
{
    if (parse_num(arg, 0, SP_HIDE_MAX, pct) < 0)
        return usage_error("invalid threshold '%s': expected a percentage "
                           "0..%g", arg, SP_HIDE_MAX);
    return 0;
}

static int set_hide_self(struct opts *o, const char *arg)
{
    return set_hide(&o->hide_self, arg);
}

static int set_hide_subs(struct opts *o, const char *arg)
{
    return set_hide(&o->hide_subs, arg);
}

static void help_hide_self(char *buf, size_t n)
{
    snprintf(buf, n, "hide functions below PCT%% self... (%g)",
             SP_HIDE_SELF_DEFAULT);
}

static void help_hide_subs(char *buf, size_t n)
{
    snprintf(buf, n, "...and with no caller/callee edge above PCT%% (%g)",
             SP_HIDE_SUBS_DEFAULT);
}

static int show_help(struct opts *o, const char *arg)
{
    (void)o, (void)arg;
    options_usage(stdout);
    exit(fflush(stdout) ? 1 : 0);
}

static int show_keys(struct opts *o, const char *arg)
{
    (void)o, (void)arg;
    exit(ui_print_keys(stdout) < 0 || fflush(stdout) ? 1 : 0);
}

static int show_options(struct opts *o, const char *arg)
{
    (void)o, (void)arg;
    exit(options_markdown(stdout) < 0 || fflush(stdout) ? 1 : 0);
}

/* --version's last line: whether auto's backend gives kernel frames here
 * and where their names come from, or why not with the fix. */
static void kernel_line(void)
{
    char how[200], names[200];
    const char *kallsyms = getenv("SPROFTOP_KALLSYMS");

    if (sampler_describe_kernel(how, sizeof how) < 0)
        printf("%s\n", how);
    else if (ksyms_refusal(kallsyms, names, sizeof names))
        printf("%s\n", names);
    else
        printf("kernel frames on (%s, named from %s)\n", how,
               kallsyms ? kallsyms : KSYMS_PROC);
}

static int show_version(struct opts *o, const char *arg)
{
    char auto_pick[256];

    (void)o, (void)arg;
    printf("sproftop %s\n", SPROFTOP_VERSION);
    printf("built with libunwind %d.%d.%d, elfutils %d.%03d, %s\n",
           UNW_VERSION_MAJOR, UNW_VERSION_MINOR, UNW_VERSION_EXTRA,
           _ELFUTILS_VERSION / 1000, _ELFUTILS_VERSION % 1000,
           ui_library_version());
    sampler_describe_auto(false, auto_pick, sizeof auto_pick);
    printf("sampler: auto picks %s\n", auto_pick);
    sampler_describe_auto(true, auto_pick, sizeof auto_pick);
    printf("sampler with --idle: auto picks %s\n", auto_pick);
    kernel_line();
    exit(fflush(stdout) ? 1 : 0);
}

/* --- the table ------------------------------------------------------------ */

static const struct option_row options[] = {
    { "pid", 'p', "PID[,PID...]", "a process id", G_TARGET,
      .help = "attach to running processes: all their threads, in one "
              "view and one profile; a name is --pid-of's",
      .set = set_pid },
    { "pid-of", K_PID_OF, "NAME", "a process name", G_TARGET,
      .help = "attach to every process whose name matches NAME, as pgrep "
              "matches (a regex; ^NAME$ for the exact name)",
      .set = set_pid_of },
    { NULL, 0, "CMD [ARG...]", NULL, G_TARGET,
      .help = "launch CMD under sampling" },
    { "cmd-output", K_CMD_OUTPUT, "FILE",
      "a file name for the command's output", G_TARGET,
      .help = "CMD's output and errors go to FILE (live view: /dev/null by "
              "default)",
      FIELD(cmd_output) },
    { "keep-cmd", K_KEEP_CMD, NULL, NULL, G_TARGET,
      .help_fn = help_keep_cmd, FIELD(keep_cmd) },
    { "input", 'i', "FILE", "an input file name", G_TARGET,
      .help = "load a saved profile (repeat to merge)", .set = set_input },
    { "dump", K_DUMP, NULL, NULL, G_TARGET,
      .help = "with -p: print every thread's stack once", FIELD(dump) },
    { "all", 'a', NULL, NULL, G_TARGET,
      .help_fn = help_all, FIELD(all) },
    { "children", K_CHILDREN, NULL, NULL, G_TARGET,
      .help_fn = help_children, FIELD(children) },

    { "freq", 'F', "HZ", "a frequency in Hz", G_SAMPLING,
      .help_fn = help_freq, .set = set_freq },
    { "duration", 'd', "S", "a duration in seconds", G_SAMPLING,
      .help = "stop after S seconds (decimals allowed)",
      .set = set_duration },
    { "idle", K_IDLE, NULL, NULL, G_SAMPLING,
      .help = "also sample threads blocked in the kernel (wall-clock "
              "view; each wait ends in its reason, [off-CPU: disk I/O], "
              "where kernel stacks are taken); default is on-CPU only",
      FIELD(idle) },
    { "sampler", K_SAMPLER, "NAME", "a sampler name (auto, perf, ptrace)",
      G_SAMPLING,
      .help = "auto (default: perf when permitted), perf, ptrace",
      .set = set_sampler },
    { "stack-size", K_STACK_SIZE, "B", "a size in bytes", G_SAMPLING,
      .help_fn = help_stack_size, .set = set_stack_size },
    { "ring-size", K_RING_SIZE, "B", "a size in bytes", G_SAMPLING,
      .help = "bytes of each CPU's ring buffer, where the kernel leaves "
              "samples until they are read (rounded up to a power of two "
              "pages; K and M suffixes; default: 0.6 s of samples at the "
              "rate, 256K to 16M); what does not fit is lost, counted in "
              "the header's Lost and --stats",
      .set = set_ring_size },
    { "exited-nodes", K_EXITED_NODES, "N", "a node count", G_SAMPLING,
      .help_fn = help_exited_nodes, .set = set_exited_nodes },
    { "no-debuginfod", K_NO_DEBUGINFOD, NULL, NULL, G_SAMPLING,
      .help = "fetch no debug info from $DEBUGINFOD_URLS",
      FIELD(no_debuginfod) },
    { "no-kernel", K_NO_KERNEL, NULL, NULL, G_SAMPLING,
      .help_fn = help_no_kernel, FIELD(no_kernel) },

    { "output", 'o', "FILE", "an output file name", G_OUTPUT,
      .help = "write the profile to FILE (- : stdout) at the end",
      FIELD(output) },
    { "format", 'f', "NAME", "a format name", G_OUTPUT,
      .help = "output format; default from FILE's extension",
      FIELD(format) },
    { "no-thread-root", K_NO_THREAD_ROOT, NULL, NULL, G_OUTPUT,
      .help = "folded: no thread frame at the root of stacks",
      FIELD(no_thread_root) },
    { "no-process-root", K_NO_PROCESS_ROOT, NULL, NULL, G_OUTPUT,
      .help = "folded: no process frame above the threads (written when "
              "the profile holds several processes)",
      FIELD(no_process_root) },
    { "python-only", K_PYTHON_ONLY, NULL, NULL, G_OUTPUT,
      .help = "stacks with Python or Ruby frames keep only those (native "
              "frames fold into their caller); live: starts with key P on",
      FIELD(python_only) },
    { "baseline", K_BASELINE, "FILE", "a profile file name", G_OUTPUT,
      .help_fn = help_baseline, FIELD(baseline) },
    { "annotate", K_ANNOTATE, "NAME", "a function name", G_OUTPUT,
      .help_fn = help_annotate, FIELD(annotate) },
    { "dump-instr", K_DUMP_INSTR, NULL, NULL, G_OUTPUT,
      .help_fn = help_dump_instr, FIELD(dump_instr) },
    { "stats", K_STATS, NULL, NULL, G_OUTPUT,
      .help = "print sampler statistics to stderr at the end",
      FIELD(stats) },

    { "refresh", 'r', "SECS", "a refresh interval in seconds", G_LIVE,
      .help_fn = help_refresh, .set = set_refresh },
    { "hide-self", K_HIDE_SELF, "PCT", "a percentage", G_LIVE,
      .help_fn = help_hide_self, .set = set_hide_self },
    { "hide-subs", K_HIDE_SUBS, "PCT", "a percentage", G_LIVE,
      .help_fn = help_hide_subs, .set = set_hide_subs },
    { "snapshot-dir", K_SNAPSHOT_DIR, "D", "a directory", G_LIVE,
      .help = "where `s` saves snapshots (current directory)",
      FIELD(snapshot_dir) },
    { "no-color", K_NO_COLOR, NULL, NULL, G_LIVE,
      .help = "no colours (also: NO_COLOR set)", FIELD(no_color) },
    { "no-confirm", K_NO_CONFIRM, NULL, NULL, G_LIVE,
      .help = "q quits at once, even with samples unsaved",
      FIELD(no_confirm) },
    { "script", K_SCRIPT, "FILE", "a script file name", G_LIVE,
      .help = "run keys from FILE (tests; see the man page)",
      FIELD(script) },

    { "help", 'h', NULL, NULL, G_OTHER, .help = "this help",
      .set = show_help },
    { "version", 'V', NULL, NULL, G_OTHER, .help = "version",
      .set = show_version },
    { "help-keys", K_HELP_KEYS, NULL, NULL, G_OTHER,
      .help = "the live view's keys, as Markdown tables", .set = show_keys },
    { "help-options", K_HELP_OPTIONS, NULL, NULL, G_OTHER,
      .help = "these options, as Markdown tables", .set = show_options },
};

#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

/* "-p, --pid PID[,PID...]", "    --idle" (indent keeps the long names in
 * one column) or "-- CMD [ARG...]", into buf. */
static const char *row_tag(const struct option_row *r, bool indent,
                           char *buf, size_t n)
{
    char shortname[8] = "";

    if (!r->name) {
        snprintf(buf, n, "-- %s", r->arg);
        return buf;
    }
    if (r->key < 256)
        snprintf(shortname, sizeof(shortname), "-%c, ", r->key);
    snprintf(buf, n, "%s--%s%s%s", r->key < 256 || !indent ? shortname
             : "    ", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
    return buf;
}

static const char *row_help(const struct option_row *r, char *buf, size_t n)
{
    if (r->help_fn)
        r->help_fn(buf, n);
    else
        snprintf(buf, n, "%s", r->help);
    return buf;
}

/* --- --help and --help-options -------------------------------------------- */

#define HELP_WIDTH 79  /* --help fits in 80 columns */
#define HELP_COLUMN 24 /* where the help texts start */

/* "  TAG  help..." wrapped at HELP_WIDTH, continuation lines under the
 * help text's first column. */
static void usage_row(FILE *f, const struct option_row *r)
{
    char tag[64], help[512];
    const char *w = row_help(r, help, sizeof(help));
    int col = fprintf(f, "  %-*s", HELP_COLUMN - 3, row_tag(r, true, tag,
                                                             sizeof(tag)));

    while (*w) {
        int len = (int)strcspn(w, " ");

        if (col + 1 + len > HELP_WIDTH && col > HELP_COLUMN) {
            col = fprintf(f, "\n%*s", HELP_COLUMN - 1, "") - 1;
        }
        col += fprintf(f, " %.*s", len, w);
        w += len;
        w += *w == ' ';
    }
    putc('\n', f);
}

void options_usage(FILE *f)
{
    fputs("usage: sproftop -p PID [options]           attach to a running "
          "process\n"
          "       sproftop [options] -- CMD [ARG...]  launch CMD under "
          "sampling\n"
          "       sproftop --dump -p PID              print every thread's "
          "stack once\n"
          "       sproftop -i FILE [-i FILE...] [-o OUT [-f FMT]]  open or "
          "convert\n", f);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct option_row *r = &options[i];

        if (i == 0 || r->group != options[i - 1].group)
            fprintf(f, "%s%s%s%s%s:\n", i ? "" : "\n", groups[r->group].name,
                    groups[r->group].scope ? " (" : "",
                    groups[r->group].scope ? groups[r->group].scope : "",
                    groups[r->group].scope ? ")" : "");
        usage_row(f, r);
    }
    int col = fprintf(f, "\nFormats:");
    for (size_t i = 0; i < format_count(); i++) {
        const char *name = format_at(i)->name;

        if (col + 1 + (int)strlen(name) > HELP_WIDTH) {
            fprintf(f, "\n        ");
            col = 8;
        }
        col += fprintf(f, " %s", name);
    }
    fprintf(f, "\nExit status: 0 ok, 1 runtime failure, 2 usage error;"
               " with CMD, CMD's status.\n");
}

int options_markdown(FILE *f)
{
    char tag[64], help[512];

    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct option_row *r = &options[i];

        if (i == 0 || r->group != options[i - 1].group)
            fprintf(f, "%s### %s\n\n| Option | Meaning |\n|---|---|\n",
                    i ? "\n" : "", groups[r->group].name);
        fprintf(f, "| `%s` | %s |\n", row_tag(r, false, tag, sizeof(tag)),
                row_help(r, help, sizeof(help)));
    }
    return ferror(f) ? -1 : 0;
}

/* --- parsing ------------------------------------------------------------ */

static const struct option_row *row_of(int key)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].name && options[i].key == key)
            return &options[i];
    return NULL;
}

/* getopt_long's view of the table: the long options, and the short
 * string ('+': options end at the command; ':': a missing value is ':'). */
static void getopt_tables(struct option *longs, char *shorts)
{
    size_t n = 0;

    *shorts++ = '+';
    *shorts++ = ':';
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const struct option_row *r = &options[i];

        if (!r->name)
            continue;
        longs[n++] = (struct option){ r->name, r->arg ? required_argument
                                                      : no_argument,
                                      NULL, r->key };
        if (r->key < 256) {
            *shorts++ = (char)r->key;
            if (r->arg)
                *shorts++ = ':';
        }
    }
    longs[n] = (struct option){ 0 };
    *shorts = '\0';
}

/* The error for getopt_long's ':' (a value missing) or '?' (an unknown
 * option, or a value given to one that takes none), naming the option as
 * it was typed.  optopt is the option's key for a long option and its
 * character for a short one (0 for an unknown long one).  A short option
 * is named from optopt, never from argv: in a cluster (-zq) optind has not
 * moved past the element yet, and argv[optind - 1] is the one before. */
static int option_error(int c, char **argv)
{
    const char *given = argv[optind - 1];
    bool long_form = strncmp(given, "--", 2) == 0;
    int name_len = (int)strcspn(given, "=");
    const struct option_row *r = row_of(optopt);

    if (c == ':') {
        const char *what = r && r->need ? r->need : "a value";

        /* the option ended its element, so argv[optind - 1] holds it */
        if (long_form)
            return usage_error("option '%.*s' needs %s", name_len, given,
                               what);
        return usage_error("option '-%c' needs %s", optopt, what);
    }
    if (optopt == 0)    /* an unknown long option: its element */
        return usage_error("unknown option '%.*s'", name_len, given);
    if (r)              /* --idle=3, --help=x */
        return usage_error("option '%.*s' takes no value", name_len, given);
    return usage_error("unknown option '-%c'", optopt);
}

static int apply(const struct option_row *r, struct opts *o, const char *arg)
{
    if (r->set)
        return r->set(o, arg);
    if (r->arg)
        *(const char **)((char *)o + r->field) = arg;
    else
        *(bool *)((char *)o + r->field) = true;
    return 0;
}

static void defaults(struct opts *o)
{
    memset(o, 0, sizeof *o);
    o->refresh = UI_REFRESH_DEFAULT_S;
    o->hide_self = SP_HIDE_SELF_DEFAULT;
    o->hide_subs = SP_HIDE_SUBS_DEFAULT;
}

const struct format *options_format(const struct opts *o)
{
    const struct format *e;

    if (o->format)
        return format_find(o->format);
    e = o->output ? format_for_path(o->output, false) : NULL;
    return e ? e : format_find("folded");
}

/* -o FILE without -f: a name whose extension no format has is refused,
 * one that other formats' extensions end with too (".json") is written
 * in the format that has it alone, and both say so on stderr.  0, or 2
 * when refused. */
static int output_format_note(const char *path)
{
    const struct format *f;
    char msg[768];
    enum format_ext how = format_for_name(path, &f, msg, sizeof msg);

    if (how == FORMAT_EXT_UNKNOWN || how == FORMAT_EXT_SHARED)
        fprintf(stderr, "sproftop: -o %s: %s%s\n", path, msg,
                how == FORMAT_EXT_UNKNOWN ? "; or give -f NAME" : "");
    return how == FORMAT_EXT_UNKNOWN ? 2 : 0;
}

/* The rules between options, once all are read. */
static int check(const struct opts *o)
{
    int sources = (o->pid > 0) + (o->argv != NULL) + (o->ninputs > 0) +
                  o->all;
    char list[512];

    if (sources == 0)
        return usage_error("%s", "nothing to profile: give -p PID, -a, -- "
                           "CMD, or -i FILE");
    if (sources > 1)
        return usage_error("%s", "give only one of -p PID, -a, -- CMD, -i "
                           "FILE");
    if (o->dump && !o->pid)
        return usage_error("%s", "--dump needs -p PID");
    if (o->dump && o->npids > 1)
        return usage_error("%s", "--dump takes one PID");
    if (o->children && o->ninputs > 0)
        return usage_error("%s", "--children follows live processes: give "
                           "-p PID or -- CMD");
    if (o->format && !format_find(o->format)) {
        fprintf(stderr, "sproftop: unknown format '%s' (formats: %s)\n",
                o->format, format_names(list, sizeof list, false));
        return 2;
    }
    if (o->format && !o->output && !o->inputs[0])
        return usage_error("%s", "-f needs -o FILE");
    if (o->output && !o->format && output_format_note(o->output) != 0)
        return 2;
    if (o->baseline && o->output && !options_format(o)->baseline)
        return usage_error("--baseline writes a differential profile only "
                           "as %s, not %s", formats_with(list, sizeof list, FORMAT_BASELINE),
                           options_format(o)->name);
    if (o->annotate && (!o->output || !options_format(o)->annotate))
        return usage_error("--annotate writes one function as %s: give -o "
                           "FILE in it", formats_with(list, sizeof list,
                                                    FORMAT_ANNOTATE));
    if (o->dump_instr && (!o->output || !options_format(o)->instr))
        return usage_error("--dump-instr is for %s: give -o FILE in it",
                           formats_with(list, sizeof list, FORMAT_INSTR));
    if ((o->cmd_output || o->keep_cmd) && !o->argv)
        return usage_error("%s %s", o->cmd_output ? "--cmd-output"
                           : "--keep-cmd", "needs a command to launch: -- CMD");
    return 0;
}

int options_parse(int argc, char **argv, struct opts *o)
{
    static struct option longs[N_OPTIONS + 1];
    static char shorts[2 * N_OPTIONS + 3];
    const char *env = getenv("SPROFTOP_SAMPLER");
    int c, rc;

    defaults(o);
    /* the environment's default backend; --sampler overrides it */
    if (env && *env && (o->sampler = sampler_kind_parse(env)) < 0)
        return usage_error("invalid SPROFTOP_SAMPLER '%s': expected %s",
                           env, SAMPLER_NAMES);
    getopt_tables(longs, shorts);
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const struct option_row *r = c == '?' || c == ':' ? NULL : row_of(c);

        if (!r)
            return option_error(c, argv);
        if ((rc = apply(r, o, optarg)) != 0)
            return rc;
    }
    if (optind < argc)
        o->argv = argv + optind;
    return check(o);
}
