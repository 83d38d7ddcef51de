/* request.c - the request table, the key table and key names.
 *
 * See request.h.  The key table is global (one keymap for every view):
 * requests a view does not understand are ignored by it, and the help
 * line of such a request says which view it acts in.
 */
#include "request.h"

#include <curses.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REQ_TABLE_GROUP_(title) { REQ_NONE, NULL, title },
#define REQ_TABLE_(name, footer, help) { REQ_##name, footer, help },

static const struct request_info requests[] = {
    REQ_INFO(REQ_TABLE_GROUP_, REQ_TABLE_)
};

struct keybinding {
    int key;          /* curses key code */
    enum request req;
};

#define CTRL_KEY(c) ((c) & 0x1f)

/* Several codes may name the same key (Enter arrives as '\r', '\n' or
 * KEY_ENTER depending on the terminal); the help view shows each name once. */
static const struct keybinding keymap[] = {
    { '1', REQ_VIEW_TREE },
    { '2', REQ_VIEW_FLAT },
    { '3', REQ_VIEW_CALLERS },
    { '4', REQ_VIEW_THREADS },
    { '5', REQ_VIEW_SOURCE },
    { '6', REQ_VIEW_FLAME },
    { '7', REQ_VIEW_PROCS },
    { 'h', REQ_VIEW_HELP },
    { '?', REQ_VIEW_HELP },
    { KEY_F(1), REQ_VIEW_HELP },
    { '8', REQ_VIEW_HELP },
    { '\t', REQ_VIEW_NEXT },
    { KEY_BTAB, REQ_VIEW_PREV },
    { 27, REQ_CLOSE },

    { KEY_UP, REQ_MOVE_UP },
    { 'k', REQ_MOVE_UP },
    { KEY_DOWN, REQ_MOVE_DOWN },
    { 'j', REQ_MOVE_DOWN },
    { KEY_PPAGE, REQ_MOVE_PAGE_UP },
    { KEY_NPAGE, REQ_MOVE_PAGE_DOWN },
    { KEY_HOME, REQ_MOVE_FIRST },
    { 'g', REQ_MOVE_FIRST },
    { KEY_END, REQ_MOVE_LAST },
    { 'G', REQ_MOVE_LAST },

    { '\n', REQ_ENTER },
    { '\r', REQ_ENTER },
    { KEY_ENTER, REQ_ENTER },
    { KEY_RIGHT, REQ_EXPAND },
    { KEY_LEFT, REQ_COLLAPSE },
    { '*', REQ_EXPAND_ALL },
    { 'E', REQ_EXPAND_HOT },
    { 'e', REQ_NEXT_HOT },
    { 'C', REQ_COLLAPSE_ALL },
    { 'I', REQ_INVERT },
    { 'T', REQ_MERGE_THREADS },
    { 'J', REQ_MERGE_COMMANDS },
    { 'o', REQ_SORT },
    { 'O', REQ_SORT_REVERSE },
    { 'c', REQ_CALLERS },
    { 'a', REQ_ANNOTATE },
    { KEY_BACKSPACE, REQ_BACK },
    { 127, REQ_BACK },
    { CTRL_KEY('h'), REQ_BACK },
    { 'x', REQ_TOGGLE_ADDRS },
    { 'H', REQ_FLAME_COLOR },

    { '/', REQ_SEARCH },
    { 'n', REQ_SEARCH_NEXT },
    { 'N', REQ_SEARCH_PREV },
    { 'f', REQ_FOCUS },
    { 'F', REQ_UNFOCUS },
    { 'A', REQ_ALL_THREADS },
    { 'X', REQ_HIDE_EXITED },
    { 'P', REQ_PYTHON_ONLY },
    { 't', REQ_HIDE_PROMPT },
    { '[', REQ_HIDE_SELF_LESS },
    { ']', REQ_HIDE_SELF_MORE },
    { '{', REQ_HIDE_SUBS_LESS },
    { '}', REQ_HIDE_SUBS_MORE },
    { 'K', REQ_TOGGLE_KERNEL },
    { 'z', REQ_CPU_FILTER },

    { 'w', REQ_WINDOW },
    { 'W', REQ_WINDOW_PROMPT },
    { ',', REQ_TIME_EARLIER },
    { '.', REQ_TIME_LATER },
    { 'm', REQ_TIME_MARK },
    { 'M', REQ_TIME_CLEAR },
    { 'R', REQ_RECENT_COLUMN },
    { 'b', REQ_PIN },
    { 'D', REQ_DIFF },

    { 'p', REQ_PAUSE },
    { ' ', REQ_PAUSE },
    { '<', REQ_INTERVAL_HALVE },
    { '>', REQ_INTERVAL_DOUBLE },
    { 'i', REQ_INTERVAL_PROMPT },
    { 'd', REQ_REFRESH_PROMPT },
    { CTRL_KEY('l'), REQ_REFRESH_NOW },
    { 's', REQ_SAVE },
    { 'r', REQ_RESET },
    { 'q', REQ_QUIT },
    { KEY_F(10), REQ_QUIT },
};

const struct request_info *request_table(size_t *n)
{
    *n = sizeof(requests) / sizeof(requests[0]);
    return requests;
}

enum request request_for_key(int key)
{
    for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
        if (keymap[i].key == key)
            return keymap[i].req;
    return REQ_NONE;
}

size_t request_keys(enum request req, int *keys, size_t cap)
{
    size_t n = 0;

    for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
        if (keymap[i].req == req) {
            if (n < cap)
                keys[n] = keymap[i].key;
            n++;
        }
    return n;
}

const char *request_keys_string(enum request req, char *buf, size_t n)
{
    int keys[16];
    size_t nk = request_keys(req, keys, 16), o = 0;

    buf[0] = '\0';
    if (nk > 16)
        nk = 16;
    for (size_t i = 0; i < nk; i++) {
        char name[16], prev[16];
        bool dup = false;
        request_key_name(keys[i], name, sizeof(name));
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(request_key_name(keys[j], prev, sizeof(prev)), name) == 0;
        if (dup || o >= n)
            continue;
        int w = snprintf(buf + o, n - o, "%s%s", o ? ", " : "", name);
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}

/* Named keys, both for display and for --script files.  The first name of
 * a code is the one displayed. */
static const struct {
    const char *name;
    int key;
} key_names[] = {
    { "Enter", '\n' }, { "Enter", '\r' }, { "Enter", KEY_ENTER },
    { "Tab", '\t' }, { "BackTab", KEY_BTAB }, { "Esc", 27 },
    { "Backspace", KEY_BACKSPACE }, { "Backspace", 127 },
    { "Space", ' ' }, { "Up", KEY_UP }, { "Down", KEY_DOWN },
    { "Left", KEY_LEFT }, { "Right", KEY_RIGHT }, { "Home", KEY_HOME },
    { "End", KEY_END }, { "PgUp", KEY_PPAGE }, { "PgDown", KEY_NPAGE },
    { "PageUp", KEY_PPAGE }, { "PageDown", KEY_NPAGE }, { "Del", KEY_DC },
    { "Ins", KEY_IC },
};

const char *request_key_name(int key, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
        if (key_names[i].key == key) {
            snprintf(buf, n, "%s", key_names[i].name);
            return buf;
        }
    if (key >= KEY_F(1) && key <= KEY_F(12))
        snprintf(buf, n, "F%d", key - KEY_F0);
    else if (key > 0 && key < 32)
        snprintf(buf, n, "C-%c", key + 'a' - 1);
    else if (key > 32 && key < 127)
        snprintf(buf, n, "%c", key);
    else
        snprintf(buf, n, "key%d", key);
    return buf;
}

int request_key_parse(const char *name)
{
    size_t len = strlen(name);
    char inner[32];

    if (len == 1)
        return (unsigned char)name[0];
    if (len < 3 || name[0] != '<' || name[len - 1] != '>' ||
        len - 2 >= sizeof(inner))
        return -1;
    memcpy(inner, name + 1, len - 2);
    inner[len - 2] = '\0';

    for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
        if (strcasecmp(inner, key_names[i].name) == 0)
            return key_names[i].key;
    if ((inner[0] == 'F' || inner[0] == 'f') && inner[1] != '\0') {
        char *end;
        long f = strtol(inner + 1, &end, 10);
        if (*end == '\0' && f >= 1 && f <= 12)
            return KEY_F((int)f);
    }
    if ((inner[0] == 'C' || inner[0] == 'c') && inner[1] == '-' &&
        inner[2] != '\0' && inner[3] == '\0') {
        char c = inner[2];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c >= 'a' && c <= 'z')
            return CTRL_KEY(c);
    }
    return -1;
}
