/* main.c - command line, validation and dispatch.
 *
 * Modes: --dump (one stack per thread), batch (-o, or no terminal on
 * stdout), the TUI (a terminal and no -o), and loading saved profiles (-i).
 * Every error is one line on stderr; exit 1 for runtime failures, 2 for
 * usage errors.
 */
#include "batch.h"
#include "collect.h"
#include "dump.h"
#include "duration.h"
#include "export.h"
#include "late_names.h"
#include "launch.h"
#include "load.h"
#include "outfile.h"
#include "profile.h"
#include "report.h"
#include "sampler.h"
#include "source.h"
#include "ui.h"
#include "util.h"

#include <elfutils/version.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <libunwind.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INPUTS 64

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

#define MAX_PIDS 64

struct opts {
    pid_t pid;            /* pids[0] */
    pid_t pids[MAX_PIDS]; /* -p PID[,PID...] */
    size_t npids;
    double freq;          /* -F; 0: each backend's default */
    double duration;
    const char *output;
    const char *format;
    const char *inputs[MAX_INPUTS];
    int ninputs;
    bool idle, stats, dump, no_thread_root, no_process_root, children, all, no_color, no_confirm, keep_cmd;
    bool python_only;     /* --python-only */
    const char *cmd_output;  /* --cmd-output FILE */
    int sampler;         /* enum sampler_kind */
    size_t stack_size;   /* --stack-size, 0: the backend's default */
    bool no_debuginfod;
    double refresh;
    const char *snapshot_dir;
    const char *script;
    double hide_self, hide_subs;
    const char *baseline;   /* --baseline FILE */
    struct profile *base;   /* its profile, loaded by main (given to
                               ui_run, which frees it, or freed here) */
    char **argv;         /* command to launch */
};

enum {
    OPT_IDLE = 1000, OPT_STATS, OPT_DUMP, OPT_NO_THREAD_ROOT, OPT_NO_COLOR,
    OPT_SNAPSHOT_DIR, OPT_SCRIPT, OPT_HIDE_SELF, OPT_HIDE_SUBS, OPT_HELP_KEYS,
    OPT_BASELINE,
    OPT_NO_CONFIRM, OPT_CMD_OUTPUT, OPT_KEEP_CMD, OPT_SAMPLER, OPT_STACK_SIZE,
    OPT_NO_PROCESS_ROOT, OPT_CHILDREN,
    OPT_NO_DEBUGINFOD, OPT_PYTHON_ONLY,
};

static const struct option long_opts[] = {
    {"pid", required_argument, NULL, 'p'},
    {"all", no_argument, NULL, 'a'},
    {"freq", required_argument, NULL, 'F'},
    {"duration", required_argument, NULL, 'd'},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"input", required_argument, NULL, 'i'},
    {"refresh", required_argument, NULL, 'r'},
    {"idle", no_argument, NULL, OPT_IDLE},
    {"sampler", required_argument, NULL, OPT_SAMPLER},
    {"stack-size", required_argument, NULL, OPT_STACK_SIZE},
    {"stats", no_argument, NULL, OPT_STATS},
    {"dump", no_argument, NULL, OPT_DUMP},
    {"no-thread-root", no_argument, NULL, OPT_NO_THREAD_ROOT},
    {"no-process-root", no_argument, NULL, OPT_NO_PROCESS_ROOT},
    {"python-only", no_argument, NULL, OPT_PYTHON_ONLY},
    {"children", no_argument, NULL, OPT_CHILDREN},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"no-confirm", no_argument, NULL, OPT_NO_CONFIRM},
    {"cmd-output", required_argument, NULL, OPT_CMD_OUTPUT},
    {"keep-cmd", no_argument, NULL, OPT_KEEP_CMD},
    {"no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD},
    {"snapshot-dir", required_argument, NULL, OPT_SNAPSHOT_DIR},
    {"script", required_argument, NULL, OPT_SCRIPT},
    {"hide-self", required_argument, NULL, OPT_HIDE_SELF},
    {"hide-subs", required_argument, NULL, OPT_HIDE_SUBS},
    {"help", no_argument, NULL, 'h'},
    {"help-keys", no_argument, NULL, OPT_HELP_KEYS},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
    fprintf(f,
"usage: sproftop -p PID [options]           attach to a running process\n"
"       sproftop [options] -- CMD [ARG...]  launch CMD under sampling\n"
"       sproftop --dump -p PID              print every thread's stack once\n"
"       sproftop -i FILE [-i FILE...] [-o OUT [-f FMT]]  open or convert\n"
"\n"
"Target (one of):\n"
"  -p, --pid PID[,PID...] attach to running processes: all their threads,\n"
"                        in one view and one profile\n"
"  -- CMD [ARG...]       launch CMD under sampling\n"
"      --cmd-output FILE CMD's output and errors go to FILE (live view:\n"
"                        /dev/null by default)\n"
"      --keep-cmd        quitting the live view leaves CMD running (it is\n"
"                        ended: SIGTERM, SIGKILL 2 s later)\n"
"  -i, --input FILE      load a saved profile (repeat to merge)\n"
"      --dump            with -p: print every thread's stack once\n"
"  -a, --all             every process (and those started later): needs root,\n"
"                        CAP_PERFMON or perf_event_paranoid <= 0\n"
"      --children        also sample every process the targets fork from\n"
"                        now on (perf sampler)\n"
"Sampling:\n"
"  -F, --freq HZ         samples per second per thread (1..10000; perf\n"
"                        sampler %u, ptrace %u)\n"
"  -d, --duration S      stop after S seconds (decimals allowed)\n"
"      --idle            also sample threads blocked in the kernel\n"
"                        (wall-clock view); default is on-CPU only\n"
"      --sampler NAME    auto (default: perf when permitted), perf, ptrace\n"
"      --stack-size B    stack bytes copied per sample (perf: 16K, at most\n"
"                        65528; ptrace: 256K); K and M suffixes\n"
"      --no-debuginfod   fetch no debug info from $DEBUGINFOD_URLS\n"
"Output (batch mode: -o, or stdout not a terminal):\n"
"  -o, --output FILE     write the profile to FILE (- : stdout) at the end\n"
"  -f, --format NAME     output format; default from FILE's extension\n"
"      --no-thread-root  folded: no thread frame at the root of stacks\n"
"      --no-process-root folded: no process frame above the threads (written\n"
"                        when the profile holds several processes)\n"
"      --python-only     stacks with Python frames keep only those (native\n"
"                        frames fold into their Python caller; key P)\n"
"      --baseline FILE   compare with the profile in FILE: the live view's\n"
"                        change columns; -f folded or svg: a differential\n"
"                        profile (two counts per line; red/blue frames)\n"
"      --stats           print sampler statistics to stderr at the end\n"
"Live view (a terminal on stdout and no -o):\n"
"  -r, --refresh SECS    redraw interval (0.1..3600; 1)\n"
"      --hide-self PCT   hide functions below PCT%% self... (1)\n"
"      --hide-subs PCT   ...and with no caller/callee edge above PCT%% (2)\n"
"      --snapshot-dir D  where `s` saves snapshots (current directory)\n"
"      --no-color        no colours (also: NO_COLOR set)\n"
"      --no-confirm      q quits at once, even with samples unsaved\n"
"      --script FILE     run keys from FILE (tests; see the man page)\n"
"Other:\n"
"  -h, --help            this help;  -V, --version  version\n"
"      --help-keys       the live view's keys, as a Markdown table\n"
"\n", SAMPLER_PERF_HZ, SAMPLER_PTRACE_HZ);
    int col = fprintf(f, "Formats:");
    for (size_t i = 0; i < export_count(); i++) {
        const char *n = export_at(i)->name;
        if (col + 1 + (int)strlen(n) > 79) {
            fprintf(f, "\n        ");
            col = 8;
        }
        col += fprintf(f, " %s", n);
    }
    fprintf(f, "\nExit status: 0 ok, 1 runtime failure, 2 usage error;"
               " with CMD, CMD's status.\n");
}

static void version(void)
{
    char auto_pick[256];
    printf("sproftop %s\n", SPROFTOP_VERSION);
    printf("built with libunwind %d.%d.%d, elfutils %d.%03d, %s\n",
           UNW_VERSION_MAJOR, UNW_VERSION_MINOR, UNW_VERSION_EXTRA,
           _ELFUTILS_VERSION / 1000, _ELFUTILS_VERSION % 1000, ui_library_version());
    sampler_describe_auto(false, auto_pick, sizeof auto_pick);
    printf("sampler: auto picks %s\n", auto_pick);
    sampler_describe_auto(true, auto_pick, sizeof auto_pick);
    printf("sampler with --idle: auto picks %s\n", auto_pick);
}

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

/* What each option that takes a value needs, for "option -o needs an
 * output file name"; an option missing here needs "a value". */
static const struct {
    int val;
    const char *what;
} opt_values[] = {
    {'p', "a process id"},
    {'F', "a frequency in Hz"},
    {'d', "a duration in seconds"},
    {'o', "an output file name"},
    {'f', "a format name"},
    {'i', "an input file name"},
    {'r', "a refresh interval in seconds"},
    {OPT_SAMPLER, "a sampler name (auto, perf, ptrace)"},
    {OPT_STACK_SIZE, "a size in bytes"},
    {OPT_CMD_OUTPUT, "a file name for the command's output"},
    {OPT_BASELINE, "a profile file name"},
    {OPT_SNAPSHOT_DIR, "a directory"},
    {OPT_SCRIPT, "a script file name"},
    {OPT_HIDE_SELF, "a percentage"},
    {OPT_HIDE_SUBS, "a percentage"},
};

/* The error for getopt_long's ':' (a value missing) or '?' (an unknown
 * option, or a value given to one that takes none), naming the option as
 * it was typed.  optopt is the option's val for a long option and its
 * character for a short one (0 for an unknown long one).  A short option
 * is named from optopt, never from argv: in a cluster (-zq) optind has not
 * moved past the element yet, and argv[optind - 1] is the one before. */
static int option_error(int c, char **argv, const char *shorts)
{
    const char *given = argv[optind - 1];
    bool long_form = strncmp(given, "--", 2) == 0;
    int name_len = (int)strcspn(given, "=");

    if (c == ':') {
        const char *what = "a value";
        for (size_t i = 0; i < sizeof opt_values / sizeof opt_values[0]; i++)
            if (opt_values[i].val == optopt)
                what = opt_values[i].what;
        /* the option ended its element, so argv[optind - 1] holds it */
        if (long_form)
            return usage_error("option '%.*s' needs %s", name_len, given, what);
        return usage_error("option '-%c' needs %s", optopt, what);
    }
    if (optopt == 0)    /* an unknown long option: its element */
        return usage_error("unknown option '%.*s'", name_len, given);
    if (optopt > 255 || strchr(shorts, optopt))   /* --idle=3, --help=x */
        return usage_error("option '%.*s' takes no value", name_len, given);
    return usage_error("unknown option '-%c'", optopt);
}

/* Parse a decimal number in [lo, hi]; 0 on success. */
static int parse_num(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || v != v || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static const struct exporter *pick_format(const struct opts *o)
{
    if (o->format)
        return export_find(o->format);
    const struct exporter *e = o->output ? export_for_path(o->output) : NULL;
    return e ? e : export_find("folded");
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof *o);
    o->refresh = 1.0;
    o->hide_self = 1.0;
    o->hide_subs = 2.0;
    /* the environment's default backend; --sampler overrides it */
    const char *env = getenv("SPROFTOP_SAMPLER");
    if (env && *env && (o->sampler = sampler_kind_parse(env)) < 0)
        return usage_error("invalid SPROFTOP_SAMPLER '%s': expected auto, perf or ptrace", env);
    int c;
    /* '+': options end at the command; ':': a missing value is ':' */
    static const char shorts[] = "+:ap:F:d:o:f:i:r:hV";
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, long_opts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'p': {
            /* perf's syntax: a comma-separated list; -p may be repeated */
            const char *q = optarg;
            do {
                char *end;
                errno = 0;
                long pid = strtol(q, &end, 10);
                if (errno || end == q || (*end && *end != ',') || pid <= 0 || pid > INT_MAX)
                    return usage_error("invalid PID list '%s': expected PID[,PID...]", optarg);
                if (o->npids == MAX_PIDS)
                    return usage_error("too many PIDs: at most %d", MAX_PIDS);
                bool dup = false;
                for (size_t k = 0; k < o->npids; k++)
                    dup |= o->pids[k] == (pid_t)pid;
                if (!dup)
                    o->pids[o->npids++] = (pid_t)pid;
                q = *end ? end + 1 : end;
            } while (*q);
            o->pid = o->pids[0];
            break;
        }
        case 'F':
            if (parse_num(optarg, 1, 10000, &v) < 0)
                return usage_error("invalid frequency '%s': expected 1..10000 Hz", optarg);
            o->freq = v;
            break;
        case 'd':
            if (duration_parse_seconds(optarg, 0.001, 1e7, &v) < 0)
                return usage_error("invalid duration '%s': expected a positive number of seconds", optarg);
            o->duration = v;
            break;
        case 'r':
            if (duration_parse_seconds(optarg, UI_REFRESH_MIN_S, UI_REFRESH_MAX_S, &v) < 0)
                return usage_error("invalid refresh interval '%s': expected %g..%g seconds", optarg,
                                   UI_REFRESH_MIN_S, UI_REFRESH_MAX_S);
            o->refresh = v;
            break;
        case OPT_HIDE_SELF:
        case OPT_HIDE_SUBS:
            if (parse_num(optarg, 0, 100, &v) < 0)
                return usage_error("invalid threshold '%s': expected a percentage 0..100", optarg);
            *(c == OPT_HIDE_SELF ? &o->hide_self : &o->hide_subs) = v;
            break;
        case 'o': o->output = optarg; break;
        case 'f': o->format = optarg; break;
        case 'i':
            if (o->ninputs == MAX_INPUTS)
                return usage_error("too many -i files (at most %s)", "64");
            o->inputs[o->ninputs++] = optarg;
            break;
        case OPT_IDLE: o->idle = true; break;
        case OPT_SAMPLER:
            if ((o->sampler = sampler_kind_parse(optarg)) < 0)
                return usage_error("invalid sampler '%s': expected auto, perf or ptrace", optarg);
            break;
        case OPT_STACK_SIZE: {
            char *end;
            errno = 0;
            unsigned long long b = strtoull(optarg, &end, 10);
            if (*end == 'K' || *end == 'k')
                b <<= 10, end++;
            else if (*end == 'M' || *end == 'm')
                b <<= 20, end++;
            if (errno || *end || !*optarg || optarg[0] == '-' || b < 64 || b > (64u << 20))
                return usage_error("invalid stack size '%s': expected 64..64M bytes", optarg);
            o->stack_size = (size_t)b;
            break;
        }
        case OPT_STATS: o->stats = true; break;
        case OPT_DUMP: o->dump = true; break;
        case OPT_NO_THREAD_ROOT: o->no_thread_root = true; break;
        case OPT_NO_PROCESS_ROOT: o->no_process_root = true; break;
        case OPT_PYTHON_ONLY: o->python_only = true; break;
        case OPT_CHILDREN: o->children = true; break;
        case 'a': o->all = true; break;
        case OPT_NO_COLOR: o->no_color = true; break;
        case OPT_NO_CONFIRM: o->no_confirm = true; break;
        case OPT_CMD_OUTPUT: o->cmd_output = optarg; break;
        case OPT_KEEP_CMD: o->keep_cmd = true; break;
        case OPT_NO_DEBUGINFOD: o->no_debuginfod = true; break;
        case OPT_SNAPSHOT_DIR: o->snapshot_dir = optarg; break;
        case OPT_SCRIPT: o->script = optarg; break;
        case OPT_BASELINE: o->baseline = optarg; break;
        case 'h': usage(stdout); exit(0);
        case OPT_HELP_KEYS: exit(ui_print_keys(stdout) < 0 || fflush(stdout) ? 1 : 0);
        case 'V': version(); exit(0);
        default:
            return option_error(c, argv, shorts);
        }
    }
    if (optind < argc)
        o->argv = argv + optind;
    int sources = (o->pid > 0) + (o->argv != NULL) + (o->ninputs > 0) + o->all;
    if (sources == 0)
        return usage_error("%s", "nothing to profile: give -p PID, -a, -- CMD, or -i FILE");
    if (sources > 1)
        return usage_error("%s", "give only one of -p PID, -a, -- CMD, -i FILE");
    if (o->dump && !o->pid)
        return usage_error("%s", "--dump needs -p PID");
    if (o->dump && o->npids > 1)
        return usage_error("%s", "--dump takes one PID");
    if (o->all && (o->dump || o->sampler == SAMPLER_PTRACE))
        return usage_error("%s", "-a samples every process with the perf_event sampler (no --dump, no --sampler ptrace)");
    if (o->children && o->ninputs > 0)
        return usage_error("%s", "--children follows live processes: give -p PID or -- CMD");
    if (o->dump && o->sampler == SAMPLER_PERF)
        return usage_error("%s", "--dump stops every thread once: it uses ptrace, not --sampler perf");
    if (o->format && !export_find(o->format)) {
        static char list[512];
        size_t n = 0;
        for (size_t i = 0; i < export_count() && n < sizeof list - 32; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", export_at(i)->name);
        fprintf(stderr, "sproftop: unknown format '%s' (formats: %s)\n", o->format, list);
        return 2;
    }
    if (o->format && !o->output && !o->inputs[0])
        return usage_error("%s", "-f needs -o FILE");
    if (o->baseline && o->output && !export_takes_baseline(pick_format(o)))
        return usage_error("--baseline writes a differential profile only as folded or svg, not %s",
                           pick_format(o)->name);
    if ((o->cmd_output || o->keep_cmd) && !o->argv)
        return usage_error("%s %s", o->cmd_output ? "--cmd-output" : "--keep-cmd",
                           "needs a command to launch: -- CMD");
    return 0;
}

/* --- --dump ---------------------------------------------------------------- */

static int run_dump(const struct opts *o)
{
    char err[512];
    int code = 1;
    if (dump_run(o->pid, stdout, err, sizeof err, &code) < 0) {
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
    return i < export_count() ? export_at(i)->name : NULL;
}

static const char *ui_format_exts(size_t i)
{
    return i < export_count() ? export_at(i)->exts : NULL;
}

static long ui_format_for_path(const char *path)
{
    const struct exporter *e = export_for_path(path);
    for (size_t i = 0; e && i < export_count(); i++)
        if (export_at(i) == e)
            return (long)i;
    return -1;
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
    return export_to_file(export_at(i), p, &eo, path, err, errlen);
}

static void fill_ui_options(const struct opts *o, struct ui_options *u)
{
    static const struct ui_save_ops save = { ui_format_name, ui_format_exts, ui_format_for_path,
                                             ui_format_write };
    ui_options_default(u);
    u->save = &save;
    u->load = load_file;
    u->refresh_s = o->refresh;
    const char *nc = getenv("NO_COLOR");
    u->no_color = o->no_color || (nc && *nc);
    u->snapshot_dir = o->snapshot_dir;
    u->script = o->script;
    u->hide_self = o->hide_self;
    u->hide_subs = o->hide_subs;
    u->quit_flag = &stop_signal;
    u->export_format = o->format;
    u->baseline = o->base;
    u->baseline_name = o->baseline ? util_basename(o->baseline) : NULL;
    u->confirm_quit = !o->no_confirm;
    u->python_only = o->python_only;
}

static int run_inputs(const struct opts *o)
{
    char err[512];
    struct profile *p = NULL;
    for (int i = 0; i < o->ninputs; i++) {
        struct profile *q = load_file(o->inputs[i], err, sizeof err);
        if (!q) {
            fprintf(stderr, "sproftop: %s\n", err);
            profile_free(p);
            return 1;
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
            return 1;
        }
    }
    /* code saved without its names, with its build-ids: name it now */
    (void)late_names_resolve(p, NULL);
    if (o->output) {
        struct export_opts eo;
        export_opts_default(&eo);
        eo.no_thread_root = o->no_thread_root;
        eo.no_process_root = o->no_process_root;
        eo.python_only = o->python_only;
        eo.hide_self = o->hide_self;
        eo.hide_subs = o->hide_subs;
        eo.baseline = o->base;
        int rc = export_to_file(pick_format(o), p, &eo, o->output, err, sizeof err);
        profile_free(p);
        profile_free(o->base);
        if (rc < 0) {
            fprintf(stderr, "sproftop: %s\n", err);
            return 1;
        }
        return 0;
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
    struct ui_options u;
    fill_ui_options(o, &u);
    int rc = ui_run(src, &u);
    src->ops->close(src);
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    install_signals();
    /* Debug info is fetched from $DEBUGINFOD_URLS on a thread of its own
     * (src/engine/dbgfetch.h); without the variable nothing is fetched. */
    if (o.no_debuginfod)
        unsetenv("DEBUGINFOD_URLS");
    if (o.baseline) {
        char err[512];
        if (!(o.base = load_file(o.baseline, err, sizeof err))) {
            fprintf(stderr, "sproftop: --baseline: %s\n", err);
            return 1;
        }
    }
    if (o.ninputs)
        return run_inputs(&o);
    if (o.dump) {
        profile_free(o.base);
        return run_dump(&o);
    }
    if (o.output) {
        /* fail before attaching, not after the whole run */
        char err[512];
        if (export_check_path(o.output, err, sizeof err) < 0) {
            fprintf(stderr, "sproftop: %s\n", err);
            profile_free(o.base);
            return 1;
        }
    }

    bool tui = !o.output && (o.script || isatty(STDOUT_FILENO));
    struct sampler_config cfg;
    sampler_config_default(&cfg);
    cfg.pid = o.pid;
    cfg.argv = o.argv;
    cfg.quiet_child = tui;
    if (o.cmd_output) {
        /* As the shell's > would: created or truncated, followed if a
         * link (a terminal or a fifo may be meant).  The command gets its
         * own copies; this one closes at its exec and with sproftop. */
        cfg.child_out = open(o.cmd_output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
                             0666);
        if (cfg.child_out < 0) {
            fprintf(stderr, "sproftop: cannot open %s for the command's output: %s\n",
                    o.cmd_output, strerror(errno));
            profile_free(o.base);
            return 1;
        }
    }
    if (o.freq > 0) {
        cfg.interval_ns = (uint64_t)(1e9 / o.freq);
        cfg.interval_set = true;
    }
    cfg.idle = o.idle;
    cfg.kind = o.sampler;
    if (o.stack_size) {
        cfg.stack_max = o.stack_size;
        cfg.stack_max_set = true;
    }
    const char *env = getenv("SPROFTOP_PLACEMENT");
    if (env && strcmp(env, "follow") == 0)
        cfg.placement = SAMPLER_PLACE_FOLLOW;
    if ((env = getenv("SPROFTOP_SPIN_US")))
        cfg.spin_us = (uint32_t)strtoul(env, NULL, 10);

    char err[512];
    int code = 1;
    struct source *src = o.all ? collect_start_all(&cfg, err, sizeof err, &code)
        : o.npids > 1 || o.children
        ? collect_start_pids(&cfg, o.pids, o.npids, o.children, err, sizeof err, &code)
        : collect_start(&cfg, err, sizeof err, &code);
    if (cfg.child_out >= 0)
        close(cfg.child_out);
    if (!src) {
        fprintf(stderr, "sproftop: %s\n", err);
        profile_free(o.base);
        return code;
    }
    if (tui) {
        struct ui_options u;
        fill_ui_options(&o, &u);
        u.duration_s = o.duration;
        u.ends_command = o.argv && !o.keep_cmd;
        rc = ui_run(src, &u);
        src->ops->finish(src);
        if (o.stats)
            src->ops->print_stats(src, stderr);
        /* A command sproftop launched ends with the session, as under
         * perf record; an attached process (-p) is never touched. */
        if (u.ends_command) {
            struct source_status st;
            src->ops->status(src, &st);
            if (st.state != TARGET_EXITED && launch_end(st.pid, LAUNCH_GRACE_MS))
                fprintf(stderr, "sproftop: %s (PID %d) was still running %u s after SIGTERM: "
                        "killed\n", o.argv[0], (int)st.pid, LAUNCH_GRACE_MS / 1000);
        }
        src->ops->close(src);
        return rc;
    }
    struct batch_opts b = {
        .duration_s = o.duration,
        .output = o.output,
        .format = pick_format(&o),
        .stats = o.stats,
        .launched = o.argv != NULL,
        .stop = &stop_signal,
    };
    export_opts_default(&b.eopts);
    b.eopts.no_thread_root = o.no_thread_root;
    b.eopts.no_process_root = o.no_process_root;
    b.eopts.python_only = o.python_only;
    b.eopts.hide_self = o.hide_self;
    b.eopts.hide_subs = o.hide_subs;
    b.eopts.baseline = o.base;
    rc = batch_run(src, &b);
    profile_free(o.base);
    return rc;
}
