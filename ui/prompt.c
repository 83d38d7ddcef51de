/* prompt.c - the line editor.
 *
 * See prompt.h.  Editing is byte-based; multi-byte UTF-8 characters are
 * kept whole when moving or deleting by skipping continuation bytes.
 */
#include "prompt.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#define CTRL_KEY(c) ((c) & 0x1f)

void prompt_open(struct prompt *p, int purpose, const char *label,
                 const char *initial, bool oneshot)
{
    p->active = true;
    p->oneshot = oneshot;
    p->purpose = purpose;
    snprintf(p->label, sizeof(p->label), "%s", label);
    prompt_set(p, initial ? initial : "");
    prompt_select(p);
}

void prompt_set(struct prompt *p, const char *text)
{
    snprintf(p->buf, sizeof(p->buf), "%s", text);
    p->len = strlen(p->buf);
    p->pos = p->len;
    p->selected = false;
}

void prompt_select(struct prompt *p)
{
    p->selected = p->len > 0;
}

static bool is_cont(char c)
{
    return ((unsigned char)c & 0xc0) == 0x80;
}

static size_t prev_char(const struct prompt *p, size_t pos)
{
    while (pos > 0 && is_cont(p->buf[--pos]))
        ;
    return pos;
}

static size_t next_char(const struct prompt *p, size_t pos)
{
    if (pos < p->len)
        pos++;
    while (pos < p->len && is_cont(p->buf[pos]))
        pos++;
    return pos;
}

/* Printable ASCII and the bytes of UTF-8 sequences (wgetch hands them
 * over one byte at a time). */
static bool is_text_key(int key)
{
    return key >= 32 && key < 256 && key != 127;
}

static bool is_delete_key(int key)
{
    return key == KEY_BACKSPACE || key == 127 || key == CTRL_KEY('h') ||
           key == KEY_DC || key == CTRL_KEY('d');
}

static void delete_range(struct prompt *p, size_t from, size_t to)
{
    memmove(p->buf + from, p->buf + to, p->len - to + 1);
    p->len -= to - from;
    p->pos = from;
}

/* A y/n question: Esc cancels, any other key is the answer. */
static enum prompt_result oneshot_key(struct prompt *p, int key)
{
    p->active = false;
    if (key == 27 || key == CTRL_KEY('g'))
        return PROMPT_CANCEL;
    p->buf[0] = key > 0 && key < 256 ? (char)key : '\0';
    p->buf[1] = '\0';
    p->len = strlen(p->buf);
    return PROMPT_SUBMIT;
}

/* Delete back to the start of the word before the cursor (C-w). */
static void delete_word(struct prompt *p)
{
    size_t from = p->pos;

    while (from > 0 && p->buf[from - 1] == ' ')
        from--;
    while (from > 0 && p->buf[from - 1] != ' ')
        from--;
    delete_range(p, from, p->pos);
}

/* An editing key: move, delete, or insert a character. */
static void edit_key(struct prompt *p, int key)
{
    switch (key) {
    case KEY_BACKSPACE:
    case 127:
    case CTRL_KEY('h'):
        if (p->pos > 0)
            delete_range(p, prev_char(p, p->pos), p->pos);
        break;
    case KEY_DC:
    case CTRL_KEY('d'):
        if (p->pos < p->len)
            delete_range(p, p->pos, next_char(p, p->pos));
        break;
    case KEY_LEFT:
    case CTRL_KEY('b'):
        p->pos = prev_char(p, p->pos);
        break;
    case KEY_RIGHT:
    case CTRL_KEY('f'):
        p->pos = next_char(p, p->pos);
        break;
    case KEY_HOME:
    case CTRL_KEY('a'):
        p->pos = 0;
        break;
    case KEY_END:
    case CTRL_KEY('e'):
        p->pos = p->len;
        break;
    case CTRL_KEY('u'):
        delete_range(p, 0, p->pos);
        break;
    case CTRL_KEY('k'):
        p->buf[p->pos] = '\0';
        p->len = p->pos;
        break;
    case CTRL_KEY('w'):
        delete_word(p);
        break;
    default:
        if (is_text_key(key) && p->len + 1 < sizeof(p->buf)) {
            memmove(p->buf + p->pos + 1, p->buf + p->pos, p->len - p->pos + 1);
            p->buf[p->pos++] = (char)key;
            p->len++;
        }
        break;
    }
}

enum prompt_result prompt_key(struct prompt *p, int key)
{
    if (p->oneshot)
        return oneshot_key(p, key);
    /* With the old value selected, typing replaces it and Backspace or
     * Delete clears it; any other key but Tab keeps the text (moving the
     * cursor to edit it) and drops the selection. */
    if (p->selected && key != '\t' && key != KEY_BTAB && key != KEY_UP &&
        key != KEY_DOWN) {
        p->selected = false;
        if (is_delete_key(key)) {
            delete_range(p, 0, p->len);
            return PROMPT_EDITING;
        }
        if (is_text_key(key))
            delete_range(p, 0, p->len);
    }
    switch (key) {
    case '\n':
    case '\r':
    case KEY_ENTER:
        p->active = false;
        return PROMPT_SUBMIT;
    case 27:
    case CTRL_KEY('g'):
        p->active = false;
        return PROMPT_CANCEL;
    case '\t':
        return PROMPT_TAB;
    case KEY_BTAB:
        return PROMPT_BACKTAB;
    case KEY_UP:
    case KEY_DOWN:
        return PROMPT_UPDOWN;
    default:
        edit_key(p, key);
        return PROMPT_EDITING;
    }
}

void prompt_draw(const struct prompt *p, const struct theme *t, int y,
                 int width)
{
    int lw = draw_text(t, y, 0, width, p->label, t->attr[UC_VALUE], 0);
    int room = width - lw - 1;

    if (room < 1)
        return;
    /* Scroll so the edit position stays visible: show the tail of the
     * text before the cursor. */
    char before[PROMPT_MAX];
    memcpy(before, p->buf, p->pos);
    before[p->pos] = '\0';
    const char *start = before;
    while (text_width(t, start) > room - 1 && *start)
        start++;
    while (is_cont(*start))
        start++;
    /* The selection is shown reversed, as an edit field shows it. */
    attr_t a = p->selected ? t->attr[UC_NORMAL] | A_REVERSE
                           : t->attr[UC_NORMAL];
    int cw = draw_text(t, y, lw, room, start, a, 0);
    draw_text(t, y, lw + cw, room - cw, p->buf + p->pos, a, 0);
    move(y, lw + cw);
}
