/* request.h - every user action of the TUI, its key bindings and names.
 *
 * One X-macro, REQ_INFO, lists each request with its footer label and its
 * help line (tig's REQ_INFO idea).  The key table in request.c maps keys
 * to requests; the main loop's key handling, the help view, the footer and
 * the README key table (ui_print_keys) are all generated from these two
 * tables, so bindings and their documentation cannot drift apart.
 *
 * Called by ui.c (dispatch, footer), help_view.c (help screen) and
 * script.c (key names in --script files).
 */
#ifndef SPROFTOP_REQUEST_H
#define SPROFTOP_REQUEST_H

#include <stddef.h>

/* G(title) starts a group of the help screen; R(NAME, footer, help)
 * defines REQ_NAME.  `footer` is the short label shown in the footer bar,
 * or NULL when the request is not shown there. */
#define REQ_INFO(G, R) \
    G("Views") \
    R(VIEW_TREE,     NULL,      "Call tree from the bottom of the stack (thread, main, ...)") \
    R(VIEW_FLAT,     NULL,      "Flat table of functions: self and total samples") \
    R(VIEW_CALLERS,  NULL,      "Callers and callees of the selected function") \
    R(VIEW_THREADS,  NULL,      "Threads and their %CPU; Enter or f: only that one") \
    R(VIEW_SOURCE,   NULL,      "Code of the selected function, per line or (x) instruction") \
    R(VIEW_FLAME,    NULL,      "Flame graph (icicle): Enter zooms in, Backspace out") \
    R(VIEW_PROCS,    NULL,      "Processes and their share; Enter or f: only that one") \
    R(VIEW_HELP,     "Help",    "This help screen; again, Esc or q: back") \
    R(CLOSE,         NULL,      "Help: back to the view before it") \
    R(VIEW_NEXT,     "View",    "Next view") \
    R(VIEW_PREV,     NULL,      "Previous view") \
    G("Moving") \
    R(MOVE_UP,       NULL,      "Move the cursor up") \
    R(MOVE_DOWN,     NULL,      "Move the cursor down") \
    R(MOVE_PAGE_UP,  NULL,      "Move one page up") \
    R(MOVE_PAGE_DOWN, NULL,     "Move one page down") \
    R(MOVE_FIRST,    NULL,      "Move to the first line") \
    R(MOVE_LAST,     NULL,      "Move to the last line") \
    G("Tree and navigation") \
    R(ENTER,         NULL,      "Open/close, hidden rows; flat: callers; pick; annotate: follow") \
    R(EXPAND,        NULL,      "Tree: expand, or go to the first child; source: scroll right") \
    R(COLLAPSE,      NULL,      "Tree: collapse, or go to the parent; source: scroll left") \
    R(EXPAND_ALL,    NULL,      "Tree: expand the whole subtree under the cursor") \
    R(EXPAND_HOT,    "Hot",     "Tree: open the hottest path; cursor on its most self time") \
    R(NEXT_HOT,      NULL,      "Tree, annotate: next row by self time (first: the hottest)") \
    R(COLLAPSE_ALL,  NULL,      "Tree: collapse everything") \
    R(INVERT,        NULL,      "Tree, flame: bottom-up (inverted) tree, and back") \
    R(MERGE_THREADS, NULL,      "Tree: threads merged into one tree, or one per thread") \
    R(MERGE_COMMANDS, NULL,     "Every view: processes of one command merged (all workers)") \
    R(SORT,          NULL,      "Sort flat, threads, procs, callers; with a baseline, by change") \
    R(SORT_REVERSE,  NULL,      "Flat, threads, procs: reverse the sort order") \
    R(CALLERS,       "Callers", "Callers/callees of the function under the cursor") \
    R(ANNOTATE,      NULL,      "Annotate: the function's instructions (Python: its lines)") \
    R(BACK,          NULL,      "Callers, annotate: back to the previous function; flame: out") \
    R(TOGGLE_ADDRS,  NULL,      "Source: its instructions (annotate) or its source lines") \
    R(FLAME_COLOR,   NULL,      "Flame: colour frames by module or by heat") \
    G("Filters") \
    R(SEARCH,        "Search",  "Search function names (extended regex, any case)") \
    R(SEARCH_NEXT,   NULL,      "Next match (expands the tree to reach it)") \
    R(SEARCH_PREV,   NULL,      "Previous match") \
    R(FOCUS,         "Focus",   "Only stacks through the function (thread, process) under the cursor") \
    R(UNFOCUS,       NULL,      "Clear the focus") \
    R(ALL_THREADS,   NULL,      "Show all threads and processes again") \
    R(HIDE_EXITED,   NULL,      "Procs: hide the exited processes, or show them again") \
    R(PYTHON_ONLY,   NULL,      "Python/Ruby frames only; native ones fold into their caller") \
    R(HIDE_PROMPT,   NULL,      "Set the hide-self% and hide-subs% thresholds") \
    R(HIDE_SELF_LESS, NULL,     "Lower hide-self% by 0.5") \
    R(HIDE_SELF_MORE, NULL,     "Raise hide-self% by 0.5") \
    R(HIDE_SUBS_LESS, NULL,     "Lower hide-subs% by 0.5") \
    R(HIDE_SUBS_MORE, NULL,     "Raise hide-subs% by 0.5") \
    R(TOGGLE_KERNEL, NULL,      "Kernel frames [k] shown, or hidden (their time to the caller)") \
    R(CPU_FILTER,    NULL,      "With --idle: all time, on-CPU only, or off-CPU by reason") \
    G("Time and baseline") \
    R(WINDOW,        NULL,      "Every view: the recent window (last N s) or since start") \
    R(WINDOW_PROMPT, NULL,      "Set the recent window's length in seconds (default 5)") \
    R(TIME_EARLIER,  NULL,      "Timeline: move the time cursor earlier") \
    R(TIME_LATER,    NULL,      "Timeline: move the time cursor later") \
    R(TIME_MARK,     NULL,      "Timeline: mark a range end at the cursor (again: keep range)") \
    R(TIME_CLEAR,    NULL,      "Timeline: clear the time range") \
    R(RECENT_COLUMN, NULL,      "Flat: recent-window columns beside the totals") \
    R(PIN,           NULL,      "Pin what is shown as the diff baseline (again: unpin)") \
    R(DIFF,          NULL,      "Show or hide the change from the baseline (delta columns)") \
    G("Sampling") \
    R(PAUSE,         "Pause",   "Pause/resume sampling (the target runs free)") \
    R(INTERVAL_HALVE, NULL,     "Halve the sampling interval (twice the rate)") \
    R(INTERVAL_DOUBLE, NULL,    "Double the sampling interval (half the rate)") \
    R(INTERVAL_PROMPT, NULL,    "Set the interval (\"5ms\", \"250us\") or rate (\"200hz\")") \
    R(REFRESH_PROMPT, NULL,     "Set the screen refresh interval (seconds)") \
    R(REFRESH_NOW,   NULL,      "Take a snapshot and redraw now") \
    R(SAVE,          "Save",    "Save the view or (Up) every sample; Tab: format, pprof first") \
    R(RESET,         NULL,      "Forget all samples so far (asks first)") \
    R(QUIT,          "Quit",    "Quit (asks once if samples are unsaved); ends a launched CMD")

#define REQ_ENUM_GROUP_(title)
#define REQ_ENUM_(name, footer, help) REQ_##name,

enum request {
    REQ_NONE = 0,
    REQ_INFO(REQ_ENUM_GROUP_, REQ_ENUM_)
    REQ_COUNT
};

/* One line of the request table: a group title (req == REQ_NONE) or a
 * request with its footer label (may be NULL) and help text. */
struct request_info {
    enum request req;
    const char *footer;
    const char *help;
};

/* The request table in REQ_INFO order, groups included; *n gets its
 * length.  Static storage. */
const struct request_info *request_table(size_t *n);

/* The request bound to a curses key code, REQ_NONE if unbound. */
enum request request_for_key(int key);

/* The keys bound to `req`, in table order: fills keys[] (at most cap) and
 * returns how many there are. */
size_t request_keys(enum request req, int *keys, size_t cap);

/* The keys of `req` as one string, each name once: "h, ?, F1".  Writes
 * into buf (n bytes, NUL-terminated) and returns buf ("" if unbound). */
const char *request_keys_string(enum request req, char *buf, size_t n);

/* Human name of a key: "Enter", "Down", "F10", "C-l", "q"...  Writes into
 * buf (NUL-terminated, at most n bytes) and returns buf. */
const char *request_key_name(int key, char *buf, size_t n);

/* Parse a key name as written in --script files: "<Down>", "<Enter>",
 * "<F10>", "<C-l>", "<Space>", or a single character.  Returns the curses
 * key code, or -1 if the name is unknown. */
int request_key_parse(const char *name);

#endif
