/* ui.h - the live ncurses front end: entry point and options.
 *
 * main.c parses the command line into struct ui_options and calls ui_run
 * with a source (live sampler or loaded file).  ui_run owns the terminal
 * until the user quits; it reads data only through the source's ops and
 * the profile API.  The UI sees no format: saving a snapshot and the
 * scripted :load go through the plain-typed callbacks below, which main.c
 * fills from the formats layer.  Everything here runs on the calling
 * thread, the only one that touches curses; a crash while the TUI owns
 * the terminal restores it first (crash.h).
 */
#ifndef SPROFTOP_UI_H
#define SPROFTOP_UI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct profile;
struct source;

/* The output formats, as the save prompt ('s') offers them. */
struct ui_save_ops {
    /* Name ("folded") of format i, or NULL when i is past the last one. */
    const char *(*name)(size_t i);
    /* Its file name words, space-separated (".folded .collapsed"); the
     * first is proposed, as a suffix, or as a prefix when it ends in '.'
     * ("callgrind.out."). */
    const char *(*exts)(size_t i);
    /* The format a file name asks for by its extension (as -o picks it),
     * or -1 when it names none. */
    long (*for_path)(const char *path);
    /* Write p to `path` in format i with these thresholds (formats that
     * hide rows use them).  0, or -1 with a one-line reason in err. */
    int (*write)(size_t i, const struct profile *p, const char *path,
                 double hide_self, double hide_subs, char *err,
                 size_t errlen);
};

/* The refresh interval's range, for -r and the 'd' prompt. */
#define UI_REFRESH_MIN_S 0.1
#define UI_REFRESH_MAX_S 3600.0

struct ui_options {
    double refresh_s;           /* -r/--refresh SECONDS: new data at most this
                                   often (default 1.0; UI_REFRESH_MIN_S ..
                                   UI_REFRESH_MAX_S) */
    bool no_color;              /* --no-color; NO_COLOR set and non-empty in
                                   the environment has the same effect */
    const char *snapshot_dir;   /* --snapshot-dir DIR: where 's' proposes to
                                   save (NULL: the current directory) */
    const char *script;         /* --script FILE: keys from FILE instead of
                                   the keyboard, curses drawing to /dev/null
                                   (tests); NULL for interactive use */
    const struct ui_save_ops *save; /* formats for 's' (NULL: none) */
    const char *export_format;  /* -f NAME: the format 's' offers first
                                   (NULL: "pprof", the richest one that
                                   -i reads back, else the first one) */
    /* Read a profile file for the scripted :load (main.c: load_file):
     * a new profile, or NULL with a one-line reason in err.  NULL: :load
     * fails the script. */
    struct profile *(*load)(const char *path, char *err, size_t errlen);
    double hide_self;           /* --hide-self PCT (default 1.0) */
    double hide_subs;           /* --hide-subs PCT (default 2.0) */
    double duration_s;          /* -d SECONDS: ui_run returns after this long
                                   (0: until the user quits) */
    volatile sig_atomic_t *quit_flag; /* set non-zero by a signal handler
                                   (SIGINT, SIGTERM...): ui_run returns */
    struct profile *baseline;   /* --baseline FILE: the views can show the
                                   change from it (ui_run frees it); NULL:
                                   none until the user pins one */
    const char *baseline_name;  /* what the header calls it */
    bool confirm_quit;          /* q asks once while a live source has
                                   samples not saved (default; --no-confirm
                                   turns it off) */
    bool ends_command;          /* quitting ends the command sproftop
                                   launched: the question says so */
    bool python_only;           /* --python-only: start with P on */
};

/* Fill *o with the defaults above. */
void ui_options_default(struct ui_options *o);

/* Run the TUI on `src` until the user quits (q/F10) or the script ends.
 * Does not close the source: the caller does (which detaches); frees
 * opts->baseline.  Returns
 * the process exit code: 0 normally; 1 when the terminal cannot be set up
 * or a scripted :dump or :load failed; 2 when the script file is
 * unreadable or invalid (a one-line error goes to stderr). */
int ui_run(struct source *src, const struct ui_options *opts);

/* The curses library and version, e.g. "ncurses 6.4.20221231", for
 * --version.  Static storage. */
const char *ui_library_version(void);

/* Print the key bindings as Markdown tables (from the same table as the
 * help screen), for README.md and docs.  0, or -1 on a write error. */
int ui_print_keys(FILE *f);

#endif
