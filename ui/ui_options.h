/* ui_options.h - what the caller of ui_run sets: struct ui_options.
 *
 * main.c fills these from the command line (through ui.h, which
 * includes this header); the parts of the TUI read them without
 * seeing ui_run's own header, so no part of the shell reaches up to the
 * file that runs it.  Plain types only.
 */
#ifndef SPROFTOP_UI_OPTIONS_H
#define SPROFTOP_UI_OPTIONS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "source.h"

struct profile;

/* The output formats, as the save prompt ('s') offers them. */
struct ui_save_ops {
    /* Name ("folded") of format i, or NULL when i is past the last one. */
    const char *(*name)(size_t i);
    /* Its file name words, space-separated (".folded .collapsed"); the
     * first is proposed, as a suffix, or as a prefix when it ends in '.'
     * ("callgrind.out."). */
    const char *(*exts)(size_t i);
    /* The format a file name asks for by its extension (as -o picks it):
     * its index, with in note (n bytes) what to tell the user when the
     * extension is one several formats end with (".json"), else "";
     * -1 when the name has no extension; -2 when no format has its
     * extension, with the refusal and the formats in note. */
    long (*for_path)(const char *path, char *note, size_t n);
    /* Write p to `path` in format i with these thresholds (formats that
     * hide rows use them).  0, or -1 with a one-line reason in err. */
    int (*write)(size_t i, const struct profile *p, const char *path,
                 double hide_self, double hide_subs, char *err,
                 size_t errlen);
};

/* The refresh interval's range, for -r and the 'd' prompt. */
#define UI_REFRESH_MIN_S 0.1
#define UI_REFRESH_MAX_S 3600.0
#define UI_REFRESH_DEFAULT_S 1.0

struct ui_options {
    double refresh_s;           /* -r/--refresh SECONDS: new data at most this
                                   often (UI_REFRESH_DEFAULT_S;
                                   UI_REFRESH_MIN_S .. UI_REFRESH_MAX_S) */
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
    /* Machine code for the profile a :load opens (main.c: annot_file),
     * as a file source serves it; NULL: none. */
    source_annotate_fn *annotate_file;
    double hide_self;           /* --hide-self PCT (SP_HIDE_SELF_DEFAULT) */
    double hide_subs;           /* --hide-subs PCT (SP_HIDE_SUBS_DEFAULT) */
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

#endif
