/* ui.h - the live ncurses front end: entry point and options.
 *
 * main.c parses the command line into struct ui_options and calls ui_run
 * with a source (live sampler or loaded file).  ui_run owns the terminal
 * until the user quits; it reads data only through the source's ops and
 * the profile API, and writes snapshots only through export_to_file.
 * Everything here runs on the calling thread, the only one that touches
 * curses.
 */
#ifndef SPROFTOP_UI_H
#define SPROFTOP_UI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

struct source;

struct ui_options {
    double refresh_s;           /* -r/--refresh SECONDS: new data at most this
                                   often (default 1.0; 0.1 .. 3600) */
    bool no_color;              /* --no-color; NO_COLOR set and non-empty in
                                   the environment has the same effect */
    const char *snapshot_dir;   /* --snapshot-dir DIR: where 's' proposes to
                                   save (NULL: the current directory) */
    const char *script;         /* --script FILE: keys from FILE instead of
                                   the keyboard, curses drawing to /dev/null
                                   (tests); NULL for interactive use */
    const char *export_format;  /* -f NAME: the format 's' offers first
                                   (NULL: "folded", else the first one) */
    double hide_self;           /* --hide-self PCT (default 1.0) */
    double hide_subs;           /* --hide-subs PCT (default 2.0) */
    double duration_s;          /* -d SECONDS: ui_run returns after this long
                                   (0: until the user quits) */
    volatile sig_atomic_t *quit_flag; /* set non-zero by a signal handler
                                   (SIGINT, SIGTERM...): ui_run returns */
};

/* Fill *o with the defaults above. */
void ui_options_default(struct ui_options *o);

/* Run the TUI on `src` until the user quits (q/F10) or the script ends.
 * Does not close the source: the caller does (which detaches).  Returns
 * the process exit code: 0 normally; 1 when the terminal cannot be set up
 * or a scripted :dump could not be written; 2 when the script file is
 * unreadable or invalid (a one-line error goes to stderr). */
int ui_run(struct source *src, const struct ui_options *opts);

/* The curses library and version, e.g. "ncurses 6.4.20221231", for
 * --version.  Static storage. */
const char *ui_library_version(void);

/* Print the key bindings as Markdown tables (from the same table as the
 * help screen), for README.md and docs.  0, or -1 on a write error. */
int ui_print_keys(FILE *f);

#endif
