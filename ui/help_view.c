/* help_view.c - the help view and the Markdown key table.
 *
 * See help_view.h.  Rows: a title, then per REQ_INFO group a heading and
 * one row per request with its keys.
 */
#include "help_view.h"

#include <stdio.h>
#include <stdlib.h>

/* Width of the keys column. */
#define HELP_KEYS_W 16

struct help_row {
    const struct request_info *ri; /* NULL: blank row */
};

struct help_priv {
    struct help_row rows[REQ_COUNT * 2 + 16];
};

static void help_refresh(struct view *v)
{
    struct help_priv *hp = v->priv;
    size_t n;
    const struct request_info *t = request_table(&n);

    v->lines = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].req == REQ_NONE && v->lines)
            hp->rows[v->lines++].ri = NULL;
        hp->rows[v->lines++].ri = &t[i];
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
    if (ri->req == REQ_NONE) {
        c->text = ri->help;
        c->attr = t->attr[UC_LABEL] | A_BOLD;
        c->span = true;
        return;
    }
    switch ((enum help_col)col) {
    case HC_KEYS:
        c->text = request_keys_string(ri->req, c->buf, sizeof(c->buf));
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
    if (ri->req == REQ_NONE)
        return ri->help;
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
