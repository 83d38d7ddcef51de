/* view.h - the view abstraction: an ops table plus shared cursor logic.
 *
 * Each view (tree, flat, callers/callees, threads, source, flame,
 * processes, help) fills in
 * a struct view_ops, like tig's view_ops or perf's ui_browser callbacks:
 * it builds its lines in refresh() from the current model.  Its columns
 * are declared once, in a table (perf's perf_hpp_fmt, htop's
 * Process_fields[]): the column header, the layout, every cell and the
 * sort keys all come from that table, so they cannot disagree.  Cursor
 * movement, scrolling, mouse clicks, searching by function name and
 * keeping the cursor on the same line across refreshes are written once,
 * here, on top of line_key/line_frame.
 *
 * Views talk back to the UI through struct ui_ctx: they read the model,
 * thresholds and the selected function, and set want_model to ask ui.c
 * for a new model after changing the filter, or want_view to go to
 * another view.  Only the UI thread uses
 * views (they draw with curses).
 */
#ifndef SPROFTOP_VIEW_H
#define SPROFTOP_VIEW_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "draw.h"
#include "scope.h"
#include "view_model.h"
#include "request.h"
#include "source.h"

enum view_id {
    VIEW_TREE = 0, VIEW_FLAT, VIEW_CALLERS, VIEW_THREADS, VIEW_SOURCE,
    VIEW_FLAME, VIEW_PROCS, VIEW_HELP, VIEW_COUNT
};

/* State the UI shares with its views. */
struct ui_ctx {
    const struct model *model;         /* NULL before the first snapshot */
    const struct theme *theme;
    const struct source_status *status;
    double hide_self, hide_subs;       /* thresholds, percent */
    struct model_filter filter;        /* process/thread/focus/inverted in
                                          use */
    uint32_t selected;                 /* function for the callers and
                                          source views, PROFILE_NONE */
    const regex_t *search;             /* last search, NULL if none */
    const struct scope *scope;         /* time window, timeline, baseline */
    const struct profile *timeline;    /* the whole snapshot, with its
                                          per-second ring (model->snap
                                          may be a window of it) */
    struct source *source;             /* where the data comes from: its
                                          live tasks (ctx_tasks), machine
                                          code (the code view: its
                                          annotate op); NULL in unit
                                          tests */
    /* Set by views, acted on by ui.c after the request: */
    bool want_model;                   /* filter changed: rebuild */
    enum view_id want_view;            /* show this view (VIEW_COUNT: stay) */
    char msg[256];                     /* message for the status line */
    bool msg_error;
    bool redraw;                       /* something changed: the shell
                                          draws the frame again */
};

/* Set the status line message (printf-style). */
void ctx_message(struct ui_ctx *c, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Show only thread th in every view (the thread filter), and say so.
 * A process filter stays when th is one of its threads. */
void ctx_show_thread(struct ui_ctx *c, const struct profile_thread *th);

/* Show only the process of thread th in every view (the process filter,
 * which replaces a thread filter), and say so. */
void ctx_show_process(struct ui_ctx *c, const struct profile_thread *th);

/* The live threads' and processes' figures (the source's tasks op) into
 * *out, which the view owns (source_tasks_free); false when the source
 * has none (a file) or could not copy them. */
bool ctx_tasks(struct ui_ctx *c, struct source_tasks *out);

struct view;

/* Where a search landed: match `nth` (from 1) of `count`, in the order
 * the view would list them; `note` says what the view did to show it
 * ("" when nothing: it was on a line already). */
struct search_hit {
    size_t nth, count;
    char note[128];
};

/* What a view does on one request (tig's view requests): run returns
 * false when the request does not apply to the view as it is, and the UI
 * then says it is not available. */
struct view_action {
    enum request req;
    bool (*run)(struct view *v, enum request req);
    bool on_line;      /* acts on the cursor's line: not available (and
                          run is not called) when the view has none */
};

struct view_ops {
    const char *name;  /* tab label */
    size_t priv_size;  /* bytes of private state view_init allocates
                          (zeroed) in view->priv, and view_close frees */
    /* Set up the private state past zeroes (NULL: nothing); 0, or -1 on
     * OOM. */
    int (*open)(struct view *v);
    /* Rebuild v->lines from the model (v->ctx->model may be NULL). */
    void (*refresh)(struct view *v);
    /* The columns, left to right, and how many (VIEW_COLUMNS fills both;
     * at most VIEW_MAX_COLS). */
    const struct view_col *cols;
    size_t ncols;
    /* Fill in the cell of column `col` (a view_col id) of line `line`. */
    void (*cell)(struct view *v, size_t line, int col, struct view_cell *c);
    /* A column's title when it depends on the view's state; NULL (the
     * op or its result): the table's title. */
    const char *(*title)(struct view *v, int col);
    /* Whether a column is shown now (NULL: every column is).  Hidden
     * columns take no room. */
    bool (*shown)(struct view *v, int col);
    /* The view's sort order, which o and O change (view.c does, and
     * rebuilds the view); NULL: the view does not sort.  view_init starts
     * it on the first column that sorts. */
    struct view_sort *(*sort)(struct view *v);
    /* The view's own requests, ended by { REQ_NONE, NULL, false };
     * NULL: none. */
    const struct view_action *actions;
    /* Stable identity of a line across refreshes (node key, frame id). */
    uint64_t (*line_key)(struct view *v, size_t line);
    /* The function a line shows, PROFILE_NONE if none. */
    uint32_t (*line_frame)(struct view *v, size_t line);
    /* The thread a line stands for as a whole (a thread row), NULL if
     * none (NULL op: no line does). */
    const struct profile_thread *(*line_thread)(struct view *v, size_t line);
    /* The PID of the process a line stands for as a whole (a process
     * row), 0 if none (NULL op: no line does). */
    int64_t (*line_process)(struct view *v, size_t line);
    /* The text a search matches on a line when it is not the name of
     * line_frame (threads: "NAME-TID"); NULL (the op or its result):
     * that name.  May write into buf (n bytes). */
    const char *(*line_name)(struct view *v, size_t line, char *buf,
                             size_t n);
    /* Search from the cursor for a line matching re; `forward` picks the
     * direction.  Moves the cursor, fills *hit and returns true when
     * found (the cursor's own line when it is the only match).  NULL
     * means the generic search over the lines' names (line_name). */
    bool (*search)(struct view *v, const regex_t *re, bool forward,
                   struct search_hit *hit);
    /* What to show when there are no lines (NULL: a generic text). */
    const char *(*empty)(struct view *v, char *buf, size_t n);
    /* The user acted on the view: a key it handled, a click or the
     * wheel (NULL: nothing to do). */
    void (*touch)(struct view *v);
    /* One line of status for the tab bar ("sort: self"), or NULL. */
    const char *(*info)(struct view *v, char *buf, size_t n);
    /* Free what the private state points to (not the state itself). */
    void (*close)(struct view *v);
    /* Draw the body itself instead of the column table (the flame
     * graph): the title row at header_y, the body on rows top ..
     * top+height-1, `width` columns.  NULL: the column table. */
    void (*draw)(struct view *v, int header_y, int top, int height,
                 int width);
    /* The view shows stacks (or what only stacks give: per-thread and
     * per-line counts), which a profile that holds a call graph has not
     * (profile.h): view_draw says PROFILE_NO_STACKS instead. */
    bool needs_stacks;
    /* Its lines show the live tasks' figures (ctx_tasks: CPU%, state,
     * TIME+): rebuilt at every refresh tick with the header's On CPU
     * (tabs_mark_tasks_stale), not only when new samples come. */
    bool live_tasks;
};

struct view {
    const struct view_ops *ops;
    struct ui_ctx *ctx;
    void *priv;           /* the view's own state */
    size_t lines;         /* number of lines built by refresh */
    size_t cursor;        /* selected line */
    size_t offset;        /* first line on screen */
    int height;           /* body rows at the last draw */
    bool placed;          /* refresh put the cursor itself: do not move it
                             back to the previous line's key */
    bool saved;           /* saved_key/saved_row hold the cursor from
                             before a model change */
    uint64_t saved_key;   /* line_key of the cursor line */
    size_t saved_row;     /* its screen row */
    int tail_want;        /* widest cell of the VIEW_COL_TAIL column, set
                             by refresh */
};

/* Set up a view: ops->priv_size zeroed bytes in v->priv, then ops->open.
 * 0, or -1 on OOM. */
int view_init(struct view *v, const struct view_ops *ops,
              struct ui_ctx *ctx);

/* Free a view's state (ops->close, then v->priv).  A view that was
 * zeroed and never set up is a no-op. */
void view_close(struct view *v);

/* Remember the cursor's line key before the model its lines point into
 * is replaced (the next view_refresh puts the cursor back on it).  Call
 * for every view while the old model is still alive. */
void view_save_cursor(struct view *v);

/* Rebuild the lines, keeping the cursor on the line with the same
 * line_key when that line still exists: at the same screen row, but for
 * a view showing its first lines, which goes on showing them while that
 * line is on screen. */
void view_refresh(struct view *v);

/* Draw the column titles on row header_y and the lines on rows top ..
 * top+height-1 (the cursor row recoloured), `width` columns, all laid out
 * from the view's column table. */
void view_draw(struct view *v, int header_y, int top, int height,
               int width);

/* The view's own actions, then the generic requests (movement, search)
 * it does not override.  True if the request was handled. */
bool view_request(struct view *v, enum request req);

/* Move the cursor to `line` (clamped) and scroll it into view. */
void view_goto(struct view *v, size_t line);

/* The line that has line_key == key, or SIZE_MAX. */
size_t view_find_key(struct view *v, uint64_t key);

/* Where to write a new entry of a view's Backspace history: arr holds *n
 * entries of `size` bytes, at most cap; a full history drops its oldest
 * entry.  Counts the new entry in *n and returns its slot.  UI thread. */
void *view_history_push(void *arr, size_t *n, size_t cap, size_t size);

/* The newest entry of that history, taken off it (*n counts one fewer;
 * the slot stays as it is until the next push); NULL when it is empty,
 * then with `empty` as an error message, when not NULL.  UI thread. */
const void *view_history_pop(struct view *v, const void *arr, size_t *n,
                             size_t size, const char *empty);

/* Whether the view shows the change from the baseline (a baseline is
 * set, its change is shown, and the model has it). */
bool view_diff(const struct view *v);

/* Whether the flat table shows the recent window beside the totals. */
bool view_recent(const struct view *v);

/* The function the callers and code views show: ctx->selected, or the
 * first of the flat table (which becomes the selection) when nothing is
 * selected yet or a filter left it out; PROFILE_NONE without a model or
 * functions. */
uint32_t view_selected(struct view *v);

/* The function under the cursor, PROFILE_NONE if none. */
uint32_t view_cursor_frame(struct view *v);

/* The thread row under the cursor, NULL if none. */
const struct profile_thread *view_cursor_thread(struct view *v);

/* The PID of the process row under the cursor, 0 if none. */
int64_t view_cursor_process(struct view *v);


/* Run a search from the cursor (ops->search or view_search_lines); the
 * message says "match N of M", or that nothing matches, and then, when
 * the view's lines are functions, how many functions that match the
 * thresholds hide ("press t to show"). */
void view_search(struct view *v, const regex_t *re, bool forward);

/* How many functions of the model match re and are hidden by the
 * thresholds (model->hidden, Racket's rule). */
size_t view_hidden_matches(const struct view *v, const regex_t *re);

/* The generic search: the next line (wrapping, the cursor's own line
 * last) whose line_name, else its function's name, matches re; moves
 * the cursor and fills *hit.  False when no line matches. */
bool view_search_lines(struct view *v, const regex_t *re, bool forward,
                       struct search_hit *hit);

/* A descending sort key for a view's row compare function (most first):
 * -1 when x is the larger, 0 when x == y, else 1.  Pure; any thread. */
int view_cmp_desc(double x, double y);
int view_cmp_desc_u64(uint64_t x, uint64_t y);

/* Mouse: a click on body row `row` (0-based from the first body row). */
void view_click(struct view *v, int row);

/* Mouse wheel: scroll by n lines (negative = up), moving the cursor only
 * when it would leave the screen. */
void view_scroll(struct view *v, int n);

#endif
