/* help_view.c - the help view and the Markdown key table.
 *
 * See help_view.h.  Rows: per REQ_INFO group a heading and one row per
 * request with its keys, then what the header's figures mean.
 */
#include "help_view.h"

#include <stdio.h>
#include <stdlib.h>

/* Width of the keys column. */
#define HELP_KEYS_W 16

/* The header's figures, in the request table's shape: a heading (req
 * REQ_NONE) then one row per field, its name where the keys go. */
static const struct request_info header_rows[] = {
    { REQ_NONE, NULL, "The header" },
    { REQ_NONE, "Rate", "Samples per second asked, per thread" },
    { REQ_NONE, "On CPU", "How much of their time the live threads ran: "
                          "the mean of their CPU% (threads view); one busy "
                          "and one sleeping: 50%" },
    { REQ_NONE, "Achieved", "With --idle: samples per second each thread "
                            "got" },
    { REQ_NONE, "Stop/sample", "Median time a thread stays stopped for one "
                               "sample" },
    { REQ_NONE, "Sampling", "Time spent sampling, pauses left out" },
    { REQ_NONE, "Unwind failures", "Stacks not unwound to their end "
                                   "([truncated])" },
    { REQ_NONE, "Lost", "Samples dropped before they reached the profile" },
    { REQ_NONE, "Debuginfod", "Debug info fetched (ok), coming (wait), not "
                              "found (miss)" },
};

#define HEADER_ROWS (sizeof(header_rows) / sizeof(header_rows[0]))

struct help_row {
    const struct request_info *ri; /* NULL: blank row */
};

struct help_priv {
    struct help_row rows[REQ_COUNT * 2 + 16 + HEADER_ROWS];
};

/* A group heading: REQ_NONE without a name in `footer`. */
static bool is_heading(const struct request_info *ri)
{
    return ri->req == REQ_NONE && !ri->footer;
}

static void help_refresh(struct view *v)
{
    struct help_priv *hp = v->priv;
    size_t n;
    const struct request_info *t = request_table(&n);

    v->lines = 0;
    for (size_t i = 0; i < n + HEADER_ROWS; i++) {
        const struct request_info *ri = i < n ? &t[i] : &header_rows[i - n];
        if (is_heading(ri) && v->lines)
            hp->rows[v->lines++].ri = NULL;
        hp->rows[v->lines++].ri = ri;
    }
}

enum help_col { HC_KEYS, HC_ACTION };

/* The keys sit one column in from the group headings above them. */
static const struct view_col help_cols[] = {
    { .id = HC_KEYS, .title = "Keys", .width = HELP_KEYS_W, .inset = 1,
      .flags = DT_ELLIPSIS },
    { .id = HC_ACTION, .title = "Action", .gap = 1, .flags = DT_ELLIPSIS },
};

static void help_cell(struct view *v, size_t line, int col,
                      struct view_cell *c)
{
    const struct help_priv *hp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct request_info *ri = hp->rows[line].ri;

    if (!ri)
        return;
    if (is_heading(ri)) {
        c->text = ri->help;
        c->attr = t->attr[UC_LABEL] | A_BOLD;
        c->span = true;
        return;
    }
    switch ((enum help_col)col) {
    case HC_KEYS:
        c->text = ri->req == REQ_NONE
                      ? ri->footer
                      : request_keys_string(ri->req, c->buf, sizeof(c->buf));
        c->attr = t->attr[UC_VALUE];
        break;
    case HC_ACTION:
        c->text = ri->help;
        break;
    }
}

static uint64_t help_line_key(struct view *v, size_t line)
{
    (void)v;
    return line;
}

/* A search matches a row's keys and action. */
static const char *help_line_name(struct view *v, size_t line, char *buf,
                                  size_t n)
{
    const struct help_priv *hp = v->priv;
    const struct request_info *ri = hp->rows[line].ri;
    char keys[64];

    if (!ri)
        return "";
    if (is_heading(ri))
        return ri->help;
    if (ri->req == REQ_NONE) {
        snprintf(buf, n, "%s %s", ri->footer, ri->help);
        return buf;
    }
    snprintf(buf, n, "%s %s", request_keys_string(ri->req, keys, sizeof(keys)),
             ri->help);
    return buf;
}

const struct view_ops help_view_ops = {
    .name = "Help", .priv_size = sizeof(struct help_priv),
    .refresh = help_refresh,
    VIEW_COLUMNS(help_cols), .cell = help_cell,
    .line_key = help_line_key, .line_name = help_line_name,
};

int help_print_markdown(FILE *f)
{
    size_t n;
    const struct request_info *t = request_table(&n);
    char keys[64];

    for (size_t i = 0; i < n; i++) {
        if (t[i].req == REQ_NONE) {
            fprintf(f, "%s### %s\n\n| Keys | Action |\n|---|---|\n",
                    i ? "\n" : "", t[i].help);
            continue;
        }
        request_keys_string(t[i].req, keys, sizeof(keys));
        fprintf(f, "| `%s` | %s |\n", keys, t[i].help);
    }
    return ferror(f) ? -1 : 0;
}
