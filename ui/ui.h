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

#include <stdio.h>

#include "ui_options.h"

struct source;

/* Fill *o with the defaults (ui_options.h). */
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
