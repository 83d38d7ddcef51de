/* draw.h - colours, glyphs and text drawing shared by every part of the TUI.
 *
 * A theme maps semantic colours (heat levels, cursor, header bar...) to
 * curses attributes, in colour or monochrome (NO_COLOR / --no-color), and
 * picks UTF-8 tree guides or their ASCII fallback from the locale's
 * codeset.  draw_text is the one place that measures and clips strings to
 * a column count, so every view aligns the same way whatever the names
 * contain.  Only the UI thread calls these (they draw on stdscr).
 */
#ifndef SPROFTOP_DRAW_H
#define SPROFTOP_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ui_color {
    UC_NORMAL = 0,
    UC_DIM,        /* "... N hidden" rows, secondary text */
    UC_HEAT1,      /* share >= 1% */
    UC_HEAT2,      /* share >= 5% */
    UC_HEAT3,      /* share >= 10% */
    UC_HEAT4,      /* share >= 25% */
    UC_CURSOR,     /* the selected row */
    UC_COLHDR,     /* column header bar */
    UC_TAB,        /* inactive view tab */
    UC_TAB_ACTIVE, /* active view tab */
    UC_LABEL,      /* header labels ("Samples:") */
    UC_VALUE,      /* header values */
    UC_FKEY,       /* footer key name */
    UC_FLABEL,     /* footer label */
    UC_PAUSED,     /* the PAUSED badge */
    UC_ERROR,      /* error messages */
    UC_INFO,       /* informational messages */
    UC_LOC,        /* module / file:line column */
    UC_MORE,       /* diff: a share that grew */
    UC_LESS,       /* diff: a share that shrank */
    UC_SELECT,     /* timeline: the seconds the views show */
    UC_MATCH,      /* flame graph: a frame the search matches */
    UC_KERNEL,     /* a kernel function's name (with its [k] tag) */
    UC_REASON,     /* an off-CPU reason frame, "[off-CPU: lock]" */
    UC_FLK,        /* flame graph: a kernel function's fill */
    UC_FL0,        /* flame graph frames: six fills, by module or heat */
    UC_FL1,
    UC_FL2,
    UC_FL3,
    UC_FL4,
    UC_FL5,
    UC_COUNT
};

/* Tree guides and marks; UTF-8 box drawing or ASCII. */
struct glyphs {
    const char *vert;     /* "│ " ancestor with more siblings below */
    const char *blank;    /* "  " ancestor that was the last child */
    const char *tee;      /* "├─" a child with more siblings below */
    const char *elbow;    /* "└─" the last child */
    const char *open;     /* expanded node */
    const char *closed;   /* collapsed node with children */
    const char *leaf;     /* node without children */
    const char *ellipsis; /* "…" clipped text, hidden rows */
    const char *up;       /* caller mark */
    const char *down;     /* callee mark */
    const char *bars[9];  /* timeline levels: blank, then 1/8 .. 8/8 */
    const char *edge;     /* flame graph: a frame's right edge */
};

struct theme {
    attr_t attr[UC_COUNT]; /* attribute (colour pair included) per colour */
    bool color;            /* colours in use */
    bool utf8;             /* the locale's codeset is UTF-8 */
    struct glyphs g;
};

/* Fill *t for the current screen: colours when `color` and the terminal
 * has them (call after initscr/newterm), guides from `utf8`. */
void theme_init(struct theme *t, bool color, bool utf8);

/* Heat colour for a share in [0,1]. */
attr_t theme_heat(const struct theme *t, double share);

/* Flags for draw_text. */
#define DT_RIGHT    0x1 /* right-align in the field */
#define DT_PAD      0x2 /* fill the rest of the field with spaces in attr */
#define DT_ELLIPSIS 0x4 /* mark clipped text with the ellipsis glyph */

/* Display width of s in columns (invalid or unprintable bytes count as one
 * column each, drawn as '?'); never more than strlen(s) (a character two
 * columns wide takes at least three bytes in UTF-8).  UI thread. */
int text_width(const struct theme *t, const char *s);

/* Draw s at (y, x) on stdscr, at most w columns, with attr a.  Returns the
 * number of columns drawn (w when DT_PAD).  Nothing is drawn when w <= 0
 * or (y, x) is off the screen. */
int draw_text(const struct theme *t, int y, int x, int w, const char *s,
              attr_t a, int flags);

/* printf-style draw_text (flags 0, no padding); returns columns drawn. */
int draw_fmt(const struct theme *t, int y, int x, int w, attr_t a,
             const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Change the attribute of w cells from (y, x), keeping their text (the
 * cursor bar over a row drawn with heat colours). */
void draw_recolor(int y, int x, int w, attr_t a);

/* --- formatting (no curses) --------------------------------------------- */

/* A sample count in at most `width` characters: digits, or k/M/G units
 * when the digits do not fit.  Writes to buf (n bytes), returns buf. */
const char *fmt_count(uint64_t v, int width, char *buf, size_t n);

/* A duration: "850ns", "12.3us", "4.00ms", "1.50s". */
const char *fmt_duration(uint64_t ns, char *buf, size_t n);

/* Elapsed time, rounded to the nearest: "4.2s" under a minute, then
 * "3:05", "1:02:03". */
const char *fmt_elapsed(uint64_t ns, char *buf, size_t n);

/* A rate as the header shows it: "99.0 Hz", "250 Hz". */
const char *fmt_hz(double hz, char *buf, size_t n);

/* A percentage of part/whole in 6 characters ("100.0%", "  0.5%");
 * whole 0 gives "  0.0%". */
const char *fmt_pct(double part, double whole, char *buf, size_t n);

/* A change of share in points, signed, in 6 characters ("+12.5", " -0.3",
 * "   0.0"; "+100" past 99.95). */
const char *fmt_delta(double points, char *buf, size_t n);

#endif
