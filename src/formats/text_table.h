/* text_table.h - Racket's display-table, for the text report
 * (export_text.c): columns as wide as their widest cell, each cell
 * padded to its column's width, aligned right or left, and no spaces at
 * the end of a line.
 *
 * The caller writes the same rows twice: the first pass (print false)
 * only measures each column's widest cell, the second prints.  So no
 * row is kept.  Widths count UTF-8 characters.  One caller; no locks.
 */
#ifndef SPROFTOP_TEXT_TABLE_H
#define SPROFTOP_TEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TEXT_TABLE_COLS 12

enum text_cell_kind {
    TEXT_CELL_STR,      /* text that counts for the column width */
    TEXT_CELL_FILL,     /* the column's width of one character */
    TEXT_CELL_NOWIDTH,  /* text that does not count (a last, long column) */
};

struct text_cell {
    uint32_t off;  /* text in the row's arena */
    uint32_t len;
    uint8_t kind;  /* enum text_cell_kind */
    char fill;     /* TEXT_CELL_FILL's character */
};

struct text_table {
    FILE *f;
    const char *align;     /* 'l' or 'r' per column, TEXT_TABLE_COLS */
    bool print;            /* the second pass */
    size_t width[TEXT_TABLE_COLS]; /* measured by the first pass */
    struct text_cell c[TEXT_TABLE_COLS]; /* the current row */
    uint8_t n;             /* its cells */
    char *arena;           /* its text */
    size_t alen, acap;
    char *line;            /* the row as printed */
    size_t lcap;
    bool oom;              /* a row was lost to OOM */
};

/* Start a row. */
void text_table_begin(struct text_table *t);

/* Add a cell of len bytes of s (a kind of enum text_cell_kind). */
void text_table_cell_n(struct text_table *t, uint8_t kind, const char *s,
                       size_t len);

/* Add a TEXT_CELL_STR cell. */
void text_table_cell(struct text_table *t, const char *s);

/* End the row: measure it, or print it. */
void text_table_end(struct text_table *t);

/* A row of n TEXT_CELL_STR cells. */
void text_table_strs(struct text_table *t, const char *const *s, size_t n);

/* A rule: ncols columns filled with ch. */
void text_table_rule(struct text_table *t, char ch, int ncols);

/* Free the buffers (the struct itself is the caller's). */
void text_table_free(struct text_table *t);

#endif
