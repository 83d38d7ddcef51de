/* draw.c - theme, glyphs, clipped text drawing and number formatting.
 *
 * See draw.h.  One palette table gives every semantic colour (enum
 * ui_color) its colours and its monochrome attributes; theme_init
 * allocates the pairs from it once, and no other module calls init_pair.
 */
#include "draw.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Special colours of the palette. */
#define C_NONE (-3)  /* no colour pair: attributes only */
#define C_BG   (-2)  /* the terminal's own background */
#define C_GREY (-4)  /* grey on 16 colours, else white and dimmed */

/* Every semantic colour in colour mode (a pair, numbered by its
 * ui_color, and attributes) and in monochrome mode (attributes only). */
static const struct {
    short fg, bg;
    attr_t color;   /* attributes besides the pair */
    attr_t mono;    /* attributes without colours */
} palette[UC_COUNT] = {
    [UC_NORMAL] = { C_NONE, C_NONE, 0, 0 },
    [UC_DIM] = { C_GREY, C_BG, 0, A_DIM },
    [UC_HEAT1] = { COLOR_GREEN, C_BG, 0, 0 },
    [UC_HEAT2] = { COLOR_YELLOW, C_BG, 0, 0 },
    [UC_HEAT3] = { COLOR_RED, C_BG, 0, A_BOLD },
    [UC_HEAT4] = { COLOR_RED, C_BG, A_BOLD, A_BOLD },
    [UC_CURSOR] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [UC_COLHDR] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
    [UC_TAB] = { C_NONE, C_NONE, 0, 0 },
    [UC_TAB_ACTIVE] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
    [UC_LABEL] = { COLOR_CYAN, C_BG, 0, 0 },
    [UC_VALUE] = { C_NONE, C_NONE, A_BOLD, A_BOLD },
    [UC_FKEY] = { C_NONE, C_NONE, A_BOLD, A_BOLD },
    [UC_FLABEL] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [UC_PAUSED] = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD },
    [UC_ERROR] = { COLOR_RED, C_BG, A_BOLD, A_BOLD },
    [UC_INFO] = { COLOR_GREEN, C_BG, 0, 0 },
    [UC_LOC] = { COLOR_CYAN, C_BG, 0, A_DIM },
    [UC_MORE] = { COLOR_RED, C_BG, A_BOLD, A_BOLD },
    [UC_LESS] = { COLOR_BLUE, C_BG, A_BOLD, A_UNDERLINE },
    [UC_SELECT] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [UC_MATCH] = { COLOR_WHITE, COLOR_MAGENTA, A_BOLD, A_REVERSE | A_BOLD },
    [UC_KERNEL] = { COLOR_MAGENTA, C_BG, 0, 0 },
    [UC_REASON] = { COLOR_BLUE, C_BG, A_BOLD, A_BOLD },
    [UC_FLK] = { COLOR_BLACK, COLOR_MAGENTA, 0, A_REVERSE },
    [UC_FL0] = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
    [UC_FL1] = { COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE },
    [UC_FL2] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
    [UC_FL3] = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE },
    [UC_FL4] = { COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
    [UC_FL5] = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
};

static const struct glyphs glyphs_utf8 = {
    .vert = "\u2502 ", .blank = "  ", .tee = "\u251c\u2500",
    .elbow = "\u2514\u2500", .open = "\u25be", .closed = "\u25b8",
    .leaf = "\u2500", .ellipsis = "\u2026", .up = "\u2191",
    .down = "\u2193",
    .bars = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585",
              "\u2586", "\u2587", "\u2588" },
    .edge = "\u258f",
};

static const struct glyphs glyphs_ascii = {
    .vert = "| ", .blank = "  ", .tee = "|-", .elbow = "`-", .open = "-",
    .closed = "+", .leaf = " ", .ellipsis = "~", .up = "^", .down = "v",
    .bars = { " ", "_", ".", "-", ":", "=", "+", "*", "#" },
    .edge = "|",
};

void theme_init(struct theme *t, bool color, bool utf8)
{
    memset(t, 0, sizeof(*t));
    t->utf8 = utf8;
    t->g = utf8 ? glyphs_utf8 : glyphs_ascii;
    t->color = color && has_colors() && start_color() == OK;

    if (!t->color) {
        for (int c = 0; c < UC_COUNT; c++)
            t->attr[c] = palette[c].mono;
        return;
    }
    short bg = -1;
    if (use_default_colors() != OK)
        bg = COLOR_BLACK;
    /* Bright black reads as grey on both dark and light terminals; with 8
     * colours fall back to the terminal's dim attribute. */
    bool grey = COLORS >= 16;
    for (int c = 0; c < UC_COUNT; c++) {
        short fg = palette[c].fg;
        t->attr[c] = palette[c].color;
        if (fg == C_NONE)
            continue;
        if (fg == C_GREY && !grey)
            t->attr[c] |= A_DIM;
        init_pair((short)c, fg == C_GREY ? (grey ? 8 : COLOR_WHITE) : fg,
                  palette[c].bg == C_BG ? bg : palette[c].bg);
        t->attr[c] |= COLOR_PAIR(c);
    }
}

attr_t theme_heat(const struct theme *t, double share)
{
    if (share >= 0.25)
        return t->attr[UC_HEAT4];
    if (share >= 0.10)
        return t->attr[UC_HEAT3];
    if (share >= 0.05)
        return t->attr[UC_HEAT2];
    if (share >= 0.01)
        return t->attr[UC_HEAT1];
    return t->attr[UC_NORMAL];
}

/* Decode one displayable character of s: its byte length (*len), its
 * width in columns (return) and whether it must be drawn as '?' (*bad). */
static int char_cell(const struct theme *t, const char *s, size_t *len,
                     bool *bad)
{
    unsigned char c = (unsigned char)*s;

    *len = 1;
    *bad = false;
    if (c < 0x20 || c == 0x7f) {
        *bad = true;
        return 1;
    }
    if (c < 0x80)
        return 1;
    if (!t->utf8) {
        *bad = true;
        return 1;
    }
    mbstate_t st;
    wchar_t wc;
    memset(&st, 0, sizeof(st));
    size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *bad = true;
        return 1;
    }
    int w = wcwidth(wc);
    *len = n;
    if (w < 0) {
        *bad = true;
        return 1;
    }
    return w;
}

int text_width(const struct theme *t, const char *s)
{
    int w = 0;

    while (*s) {
        size_t len;
        bool bad;
        w += char_cell(t, s, &len, &bad);
        s += len;
    }
    return w;
}

/* Longest widths ncurses is ever asked to draw in one call; wider
 * terminals are clipped there. */
#define DRAW_MAX_COLS 1024

int draw_text(const struct theme *t, int y, int x, int w, const char *s,
              attr_t a, int flags)
{
    if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
        return 0;
    if (w > COLS - x)
        w = COLS - x;
    if (w > DRAW_MAX_COLS)
        w = DRAW_MAX_COLS;

    char out[DRAW_MAX_COLS * 4 + 8];
    size_t o = 0;
    int used = 0;
    int total = text_width(t, s);
    int ell_w = (flags & DT_ELLIPSIS) && total > w ? 1 : 0;
    int room = total > w ? w - ell_w : w;

    while (*s) {
        size_t len;
        bool bad;
        int cw = char_cell(t, s, &len, &bad);
        /* Zero-width characters cost bytes but no columns: bound both. */
        if (used + cw > room || o + len + 8 > sizeof(out))
            break;
        if (bad) {
            out[o++] = '?';
        } else {
            memcpy(out + o, s, len);
            o += len;
        }
        used += cw;
        s += len;
    }
    if (ell_w && used < w) {
        size_t el = strlen(t->g.ellipsis);
        memcpy(out + o, t->g.ellipsis, el);
        o += el;
        used += 1;
    }
    out[o] = '\0';

    if ((flags & DT_RIGHT) && used < w)
        x += w - used;
    attr_t old_attr;
    short old_pair;
    attr_get(&old_attr, &old_pair, NULL);
    attrset(a);
    mvaddstr(y, x, out);
    if ((flags & DT_PAD) && !(flags & DT_RIGHT) && used < w)
        for (int i = used; i < w; i++)
            addch(' ');
    attr_set(old_attr, old_pair, NULL);
    return (flags & DT_PAD) ? w : used;
}

int draw_fmt(const struct theme *t, int y, int x, int w, attr_t a,
             const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return draw_text(t, y, x, w, buf, a, 0);
}

void draw_recolor(int y, int x, int w, attr_t a)
{
    if (y < 0 || y >= LINES || x < 0 || x >= COLS || w <= 0)
        return;
    if (w > COLS - x)
        w = COLS - x;
    mvchgat(y, x, w, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
}

const char *fmt_count(uint64_t v, int width, char *buf, size_t n)
{
    static const char units[] = "kMGTP";
    int len = snprintf(buf, n, "%" PRIu64, v);

    if (len <= width)
        return buf;
    double d = (double)v;
    for (size_t u = 0; u < sizeof(units) - 1; u++) {
        d /= 1000.0;
        if (d < 9.95)
            len = snprintf(buf, n, "%.1f%c", d, units[u]);
        else
            len = snprintf(buf, n, "%.0f%c", d, units[u]);
        if (len <= width)
            return buf;
    }
    return buf;
}

const char *fmt_duration(uint64_t ns, char *buf, size_t n)
{
    if (ns < 1000)
        snprintf(buf, n, "%" PRIu64 "ns", ns);
    else if (ns < 1000000)
        snprintf(buf, n, "%.1fus", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, n, "%.2fms", (double)ns / 1e6);
    else
        snprintf(buf, n, "%.2fs", (double)ns / 1e9);
    return buf;
}

const char *fmt_elapsed(uint64_t ns, char *buf, size_t n)
{
    /* Rounded to the nearest tenth under a minute, second above. */
    uint64_t s = (ns + 500000000u) / 1000000000u;

    if (ns < 59950000000u)
        snprintf(buf, n, "%.1fs", (double)((ns + 50000000u) / 100000000u) / 10);
    else if (s < 3600)
        snprintf(buf, n, "%" PRIu64 ":%02" PRIu64, s / 60, s % 60);
    else
        snprintf(buf, n, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600,
                 s / 60 % 60, s % 60);
    return buf;
}

const char *fmt_hz(double hz, char *buf, size_t n)
{
    if (hz >= 100 || hz == 0)
        snprintf(buf, n, "%.0f Hz", hz);
    else
        snprintf(buf, n, "%.1f Hz", hz);
    return buf;
}

const char *fmt_pct(double part, double whole, char *buf, size_t n)
{
    double p = whole > 0 ? 100.0 * part / whole : 0.0;

    snprintf(buf, n, "%5.1f%%", p);
    return buf;
}

const char *fmt_delta(double points, char *buf, size_t n)
{
    if (points >= 99.95 || points <= -99.95)
        snprintf(buf, n, "%s100", points > 0 ? "+" : "-");
    else if (points > -0.05 && points < 0.05)
        snprintf(buf, n, "   0.0");
    else
        snprintf(buf, n, "%+6.1f", points);
    return buf;
}
