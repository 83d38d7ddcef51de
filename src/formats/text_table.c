/* text_table.c - see text_table.h. */
#include "text_table.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"

void text_table_begin(struct text_table *t)
{
    t->n = 0;
    t->alen = 0;
}

void text_table_cell_n(struct text_table *t, uint8_t kind, const char *s,
                       size_t len)
{
    if (t->n == TEXT_TABLE_COLS || len > UINT32_MAX / 2)
        return;
    if (VEC_RESERVE(t->arena, t->acap, t->alen + len) < 0) {
        t->oom = true;
        return;
    }
    memcpy(t->arena + t->alen, s, len);
    t->c[t->n++] = (struct text_cell){ .kind = kind, .off = (uint32_t)t->alen,
                                  .len = (uint32_t)len };
    t->alen += len;
}

void text_table_cell(struct text_table *t, const char *s)
{
    text_table_cell_n(t, TEXT_CELL_STR, s, strlen(s));
}

/* Text at `off` in the row's arena, which stays NULL until the row's
 * first string cell (pointer arithmetic on NULL is undefined). */
static const char *arena_at(const struct text_table *t, size_t off)
{
    return t->arena ? t->arena + off : "";
}

void text_table_end(struct text_table *t)
{
    size_t len = 0, need = 1;

    if (!t->print) {
        for (uint8_t k = 0; k < t->n; k++) {
            size_t w = util_utf8_count(arena_at(t, t->c[k].off), t->c[k].len);

            if (t->c[k].kind == TEXT_CELL_STR && w > t->width[k])
                t->width[k] = w;
        }
        return;
    }
    for (uint8_t k = 0; k < t->n; k++)
        need += t->width[k] + t->c[k].len;
    if (VEC_RESERVE(t->line, t->lcap, need) < 0) {
        t->oom = true;
        return;
    }
    for (uint8_t k = 0; k < t->n; k++) {
        const struct text_cell *c = &t->c[k];
        size_t w = c->kind == TEXT_CELL_FILL ? t->width[k]
                   : util_utf8_count(arena_at(t, c->off), c->len);
        size_t pad = t->width[k] > w ? t->width[k] - w : 0;

        if (t->align[k] == 'r') {
            memset(t->line + len, ' ', pad);
            len += pad;
        }
        if (c->kind == TEXT_CELL_FILL) {
            memset(t->line + len, c->fill, t->width[k]);
            len += t->width[k];
        } else {
            memcpy(t->line + len, t->arena + c->off, c->len);
            len += c->len;
        }
        if (t->align[k] == 'l') {
            memset(t->line + len, ' ', pad);
            len += pad;
        }
    }
    while (len > 0 && t->line[len - 1] == ' ')
        len--;
    t->line[len++] = '\n';
    fwrite(t->line, 1, len, t->f);
}

void text_table_strs(struct text_table *t, const char *const *s, size_t n)
{
    text_table_begin(t);
    for (size_t i = 0; i < n; i++)
        text_table_cell(t, s[i]);
    text_table_end(t);
}

void text_table_rule(struct text_table *t, char ch, int ncols)
{
    text_table_begin(t);
    for (int i = 0; i < ncols && t->n < TEXT_TABLE_COLS; i++)
        t->c[t->n++] = (struct text_cell){ .kind = TEXT_CELL_FILL,
                                           .fill = ch };
    text_table_end(t);
}

void text_table_free(struct text_table *t)
{
    free(t->arena);
    free(t->line);
}
