/* columns.h - a view's columns, declared once in a table.
 *
 * A view lists its columns (perf's perf_hpp_fmt, htop's Process_fields[]):
 * title, width, alignment, the gap before it, whether it sorts.  From
 * that one table columns.c lays the row out, draws the column header and
 * draws every line cell by cell through the view's cell() op, so the
 * header and the cells cannot disagree about where a column is.  UI
 * thread only (draws with curses).
 */
#ifndef SPROFTOP_COLUMNS_H
#define SPROFTOP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "draw.h"

struct view;

/* Flags of a column, besides draw.h's DT_RIGHT and DT_ELLIPSIS (which
 * apply to its title and its cells). */
#define VIEW_COL_TAIL 0x100  /* at the right edge of the row, as wide as
                                the widest cell (view->tail_want) within
                                a third of the room after the fixed
                                columns, or left out under 6 columns; the
                                flexible column gives way to it */

/* One column of a view's table.  Columns are laid out left to right from
 * column 1 (column 0 holds the cursor mark): each starts `gap` blanks
 * after the one before. */
struct view_col {
    int id;              /* the view's own column id, for its cell() */
    const char *title;   /* column header text (NULL: none) */
    int width;           /* columns; 0: the rest of the row (the one
                            flexible column, last but for a tail) */
    int gap;             /* blanks before it; 0: two */
    int inset;           /* cells start this far into the column, the
                            title does not (help's keys under headings) */
    int flags;           /* DT_RIGHT, DT_ELLIPSIS, VIEW_COL_TAIL */
    const char *sort;    /* name of the order it sorts by ("self"), NULL
                            when the view cannot sort by it */
    int min;             /* the flexible column: the fewest columns worth
                            drawing it in; with less it takes from the
                            columns that have a `least`, else it is left
                            out (0: any width) */
    int least;           /* a fixed column: how narrow it may become to
                            give the flexible column its min (0: never
                            narrower than width) */
    const char *brief;   /* the title when the column is narrower than
                            its title (NULL: the title, clipped) */
};

/* A cell as a view's cell() fills it in.  text NULL leaves it blank. */
struct view_cell {
    const char *text;    /* what to draw (often buf), or NULL */
    attr_t attr;         /* preset to the normal colour */
    bool span;           /* a note across the row: drawn from this
                            column to the row's end, left-aligned with an
                            ellipsis, and the cells after it are left out
                            ("... 3 hidden", a section title) */
    int width;           /* in: the column's width on this row */
    bool print;          /* in: for :print, not the screen: the whole
                            text, nothing clipped to the width */
    char buf[1024];      /* room for the text */
};

/* The columns of a view_ops initializer: VIEW_COLUMNS(flat_cols). */
#define VIEW_COLUMNS(table) \
    .cols = (table), .ncols = sizeof(table) / sizeof((table)[0])

/* Most columns a view may have. */
#define VIEW_MAX_COLS 12

/* Where the shown columns are on a row of a given width. */
struct col_layout {
    int x[VIEW_MAX_COLS];    /* first screen column */
    int w[VIEW_MAX_COLS];    /* width (the flexible one: what is left) */
    bool on[VIEW_MAX_COLS];  /* shown and given room */
};

/* Lay v's columns out on a row `width` columns wide. */
void columns_layout(struct view *v, int width, struct col_layout *lay);

/* Draw the column titles on row y (over the header bar). */
void columns_draw_titles(struct view *v, const struct col_layout *lay, int y,
                         int width);

/* Draw line `line` of v on row y, cell by cell. */
void columns_draw_line(struct view *v, const struct col_layout *lay,
                       size_t line, int y, int width);

/* Write every line of v to f as the screen shows it, but whole: the
 * column titles, then each line with the cursor's mark in column 0,
 * the fixed columns where the screen has them, the flexible column
 * unclipped and the tail column after the widest of it (perf's
 * hist_browser__fprintf).  Trailing blanks trimmed.  0, or -1 with
 * errno set on a write error. */
int columns_print(struct view *v, FILE *f);

/* A view's sort order: a column of its table that sorts (has a sort
 * name), maybe reversed.  o and O change it (view.c). */
struct view_sort {
    size_t col;          /* index in the view's column table */
    bool reverse;
};

/* The index of the next column of a table that sorts (has a sort name)
 * after `cur`, cycling; cur itself when it is the only one.  The first
 * one: cur = n - 1. */
size_t columns_next_sort(const struct view_col *cols, size_t n, size_t cur);

/* Cell helpers for views: a sample count fitted to the cell's width
 * (fmt_count), and a percentage of whole with its heat colour (fmt_pct,
 * theme_heat; whole 0 gives 0.0% uncoloured). */
void cell_count(struct view_cell *c, uint64_t n);
/* A weight of the view's snapshot (profile.h, "Weights") as the count it
 * stands for (profile_weight_count: its samples, at one rate). */
void cell_weight(struct view *v, struct view_cell *c, uint64_t w);
void cell_pct(struct view *v, struct view_cell *c, double part, double whole);
/* The cell shows text formatted into its own buffer (c->buf). */
void cell_printf(struct view_cell *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The row that stands for n rows under the hide thresholds, dimmed
 * across the row: "INDENT… n hidden (hide-self X%, hide-subs Y%)", or
 * "dimmed" when they are shown dimmed (revealed). */
void cell_hidden_note(struct view *v, struct view_cell *c,
                      const char *indent, size_t n, bool revealed);

/* A change column's cell, from a row's change from the baseline: the
 * mark (CHANGE_SIDE: "+" for a row only the current data has, "-" for one
 * only the baseline has) or the change of its self or total share in
 * points (fmt_delta), red when it grew and blue when it shrank. */
enum cell_change { CHANGE_SIDE, CHANGE_SELF, CHANGE_TOTAL };
struct model_delta;
void cell_change(struct view *v, struct view_cell *c,
                 const struct model_delta *d, enum cell_change what);
/* Which change a view's change column shows: CHANGE_SIDE for its mark
 * column (side_col), CHANGE_SELF for its self-change column (self_col),
 * CHANGE_TOTAL for its total-change one (any other col).  Pure; any
 * thread. */
enum cell_change cell_change_of(int col, int side_col, int self_col);
/* That cell for function `frame` (its change in the view's model);
 * empty when the model has no change for it. */
void cell_frame_change(struct view *v, struct view_cell *c, uint32_t frame,
                       enum cell_change what);

struct frame_desc;

/* A frame's name as every view writes it: "[k] read_zero" for a kernel
 * function (perf's tag), the name otherwise ("[unknown]" for an empty
 * one), into buf (n bytes); returns buf. */
const char *view_frame_label(const struct frame_desc *d, char *buf, size_t n);

/* The colour of a frame's name: UC_KERNEL for a kernel function,
 * UC_REASON for an off-CPU reason, else `other`. */
attr_t view_frame_attr(const struct view *v, const struct frame_desc *d,
                       attr_t other);

/* A function's cell: its label (view_frame_label) in its colour
 * (view_frame_attr; `other` for a plain function). */
void cell_function(struct view *v, struct view_cell *c,
                   const struct frame_desc *d, attr_t other);
/* A function's module (none: empty) in the location colour. */
void cell_module(struct view *v, struct view_cell *c,
                 const struct frame_desc *d);

/* The title of a change column: the UTF-8 one ("ΔSelf%") or, without
 * UTF-8, the ASCII one ("dSelf%"). */
#define COL_DELTA_TITLE(v, u8_title, ascii_title) \
    ((v)->ctx->theme->utf8 ? (u8_title) : (ascii_title))

#endif
