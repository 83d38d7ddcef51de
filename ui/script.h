/* script.h - scripted input for tests (--script FILE), tig style.
 *
 * A script is a text file, one item per line:
 *   <Down> <Enter> <Tab> <Esc> <Backspace> <F10> <C-l> ...  a named key
 *   q                     a single character is that key
 *   :type TEXT            the characters of TEXT, one key each
 *   :dump PATH            write the screen (curses' own buffer) to PATH
 *   :print PATH           write every line of the view on screen to PATH,
 *                         whole (columns.h: columns_print)
 *   :refresh              take a snapshot and redraw now
 *   :load PATH            show the profile in PATH from now on, as if the
 *                         data had changed under the views (a refresh
 *                         with other data)
 *   :resize COLS LINES    resize the screen (as a terminal resize would)
 *   # comment             (a line longer than one character starting '#')
 * Blank lines are skipped.  ui.c feeds these events through the same
 * input choke point as real keys; when the script ends, the UI quits.
 */
#ifndef SPROFTOP_SCRIPT_H
#define SPROFTOP_SCRIPT_H

#include <stddef.h>

enum script_kind {
    SCRIPT_KEY,       /* key: a curses key code */
    SCRIPT_DUMP,      /* path: dump the screen */
    SCRIPT_REFRESH,   /* take a snapshot now */
    SCRIPT_RESIZE,    /* cols, lines */
    SCRIPT_LOAD,      /* path: load a profile file */
    SCRIPT_PRINT,     /* path: print the view's lines */
};

struct script_event {
    enum script_kind kind;
    int key;           /* SCRIPT_KEY */
    int cols, lines;   /* SCRIPT_RESIZE */
    char *path;        /* SCRIPT_DUMP, SCRIPT_LOAD, SCRIPT_PRINT; owned by
                          the script */
    int lineno;        /* line in the script file, for messages */
};

struct script;

/* Read and parse a script file.  NULL on error, with a one-line reason
 * ("FILE:LINE: unknown key <Foo>") in err. */
struct script *script_load(const char *path, char *err, size_t errlen);

/* The next event, or NULL at the end.  Valid until script_free. */
const struct script_event *script_next(struct script *s);

/* Free a script.  NULL is a no-op. */
void script_free(struct script *s);

#endif
