/* code_view.c - the annotated source view (the "Source" tab).
 *
 * See code_view.h.  The file is read once per selected function (not
 * per refresh); per-line counts are looked up by binary search in the
 * sorted profile_lines result.
 */
#include "code_view.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "vec.h"

/* Source files larger than this are shown as addresses: a profiler's
 * source pane is no editor, and a stray path must not eat memory. */
#define SRC_MAX_BYTES (16u << 20)

/* Columns Right and Left scroll the text by. */
#define SRC_HSTEP 8

struct src_priv {
    uint32_t shown;            /* function loaded, PROFILE_NONE */
    bool want_addrs;           /* user asked for addresses */
    bool by_addr;              /* rows are addresses (no readable source) */
    bool note;                 /* row 0 says why there is no source */
    char *text;                /* file contents, lines NUL-separated */
    char **line;               /* start of each line, nlines entries */
    size_t nlines;
    char err[160];             /* why the file could not be read */
    size_t hscroll;            /* text columns scrolled off to the left */
    char title[PATH_MAX + 200]; /* the text column's title, when built */
    struct profile_linecount *counts;
    size_t ncounts;
    uint64_t fn_total;         /* the function's total samples */
};

static void src_unload(struct src_priv *sp)
{
    free(sp->text);
    free(sp->line);
    sp->text = NULL;
    sp->line = NULL;
    sp->nlines = 0;
    sp->err[0] = '\0';
}

/* Read path, a name from the profile (untrusted: a crafted one can name
 * a FIFO or /dev/tty), as the symbolizer opens files: regular files
 * only, and no open that can block. */
static int src_load(struct src_priv *sp, const char *path)
{
    int fd = util_open_regular(path, NULL);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    size_t len = 0, cap = 0, n = 0;
    char buf[65536];

    if (!f) {
        int e = errno;

        if (fd >= 0)
            close(fd);
        errno = e;
        if (e == EINVAL)
            snprintf(sp->err, sizeof(sp->err), "%s: not a regular file",
                     path);
        else
            snprintf(sp->err, sizeof(sp->err), "%s: %m", path);
        return -1;
    }
    for (size_t r; (r = fread(buf, 1, sizeof(buf), f)) > 0;) {
        if (len + r + 1 > SRC_MAX_BYTES) {
            snprintf(sp->err, sizeof(sp->err), "%s: larger than %u MiB", path,
                     SRC_MAX_BYTES >> 20);
            goto fail;
        }
        if (VEC_RESERVE(sp->text, cap, len + r + 1) < 0)
            goto oom;
        memcpy(sp->text + len, buf, r);
        len += r;
    }
    if (ferror(f)) {
        snprintf(sp->err, sizeof(sp->err), "%s: read error", path);
        goto fail;
    }
    fclose(f);
    f = NULL;
    if (!sp->text && !(sp->text = malloc(1)))
        goto oom;
    sp->text[len] = '\0';
    for (size_t i = 0; i < len; i++)
        n += sp->text[i] == '\n';
    if (len && sp->text[len - 1] != '\n')
        n++;
    sp->line = malloc((n ? n : 1) * sizeof(*sp->line));
    if (!sp->line)
        goto oom;
    char *p = sp->text;
    for (size_t i = 0; i < n; i++) {
        sp->line[i] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    sp->nlines = n;
    return 0;
oom:
    snprintf(sp->err, sizeof(sp->err), "%s: out of memory", path);
fail:
    if (f)
        fclose(f);
    src_unload(sp);
    return -1;
}

static const struct profile_linecount *count_of(const struct src_priv *sp,
                                                uint64_t key)
{
    size_t lo = 0, hi = sp->ncounts;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->counts[mid].key < key)
            lo = mid + 1;
        else if (sp->counts[mid].key > key)
            hi = mid;
        else
            return &sp->counts[mid];
    }
    return NULL;
}

/* Row of the hottest line: most self samples, else most total. */
static size_t hottest_row(const struct view *v)
{
    const struct src_priv *sp = v->priv;
    const struct profile_linecount *best = NULL;

    for (size_t i = 0; i < sp->ncounts; i++) {
        const struct profile_linecount *c = &sp->counts[i];
        if (!sp->by_addr && (c->key == 0 || c->key > sp->nlines))
            continue;
        if (!best || c->self > best->self ||
            (c->self == best->self && c->total > best->total))
            best = c;
    }
    if (!best)
        return 0;
    return sp->by_addr ? (size_t)(best - sp->counts) : (size_t)best->key - 1;
}

static void src_refresh(struct view *v)
{
    struct src_priv *sp = v->priv;
    const struct model *m = v->ctx->model;
    uint32_t f = view_selected(v);

    v->lines = 0;
    free(sp->counts);
    sp->counts = NULL;
    sp->ncounts = 0;
    if (f == PROFILE_NONE)
        return;
    const struct frame_desc *d = profile_frame(m->snap, f);
    bool fresh = f != sp->shown;
    if (fresh) {
        src_unload(sp);
        sp->shown = f;
        sp->hscroll = 0;
        if (!d->file)
            snprintf(sp->err, sizeof(sp->err), "no source file known");
        else
            src_load(sp, d->file);
    }
    sp->by_addr = sp->want_addrs || !sp->line;
    sp->fn_total = model_flat_of(m, f)->total;

    struct profile_linecount *c = NULL;
    long n = profile_lines(m->base, f, sp->by_addr, &c);
    if (n > 0) {
        sp->counts = c;
        sp->ncounts = (size_t)n;
    } else {
        free(c);
    }
    /* Addresses for want of a source: the first row says why, whole (a
     * title or the tab bar would clip it). */
    sp->note = sp->by_addr && !sp->want_addrs && sp->err[0] && sp->ncounts;
    v->lines = (sp->by_addr ? sp->ncounts : sp->nlines) + sp->note;
    if (fresh) {
        v->cursor = hottest_row(v) + sp->note;
        /* Centre the hottest line when the screen allows. */
        size_t half = v->height > 2 ? (size_t)v->height / 2 : 0;
        v->offset = v->cursor > half ? v->cursor - half : 0;
        v->placed = true;
    }
}

enum src_col { SC_SELF, SC_TOTAL, SC_LINE, SC_ADDR, SC_TEXT };

/* By line: Self, Total, Line, the text.  By address: Self, Total,
 * Address, symbol+offset. */
static const struct view_col src_cols[] = {
    { .id = SC_SELF, .title = "Self", .width = 7, .flags = DT_RIGHT },
    { .id = SC_TOTAL, .title = "Total", .width = 7, .flags = DT_RIGHT },
    { .id = SC_LINE, .title = "Line", .width = 6, .flags = DT_RIGHT },
    { .id = SC_ADDR, .title = "Address", .width = 18, .flags = DT_RIGHT },
    { .id = SC_TEXT, .title = "Symbol+offset", .flags = DT_ELLIPSIS },
};

/* Nothing at all, not even titles, until a function is shown. */
static bool src_shown(struct view *v, int col)
{
    const struct src_priv *sp = v->priv;

    if (!v->ctx->model || sp->shown == PROFILE_NONE)
        return false;
    return col == SC_LINE ? !sp->by_addr : col == SC_ADDR ? sp->by_addr
                                                          : true;
}

/* By line, the text column's title is the file, and how far it is
 * scrolled sideways. */
static const char *src_title(struct view *v, int col)
{
    struct src_priv *sp = v->priv;

    if (col != SC_TEXT || sp->by_addr)
        return NULL;
    const char *file = profile_frame(v->ctx->model->snap, sp->shown)->file;
    if (!sp->hscroll)
        return file;
    snprintf(sp->title, sizeof(sp->title), "%s  [+%zu columns]", file,
             sp->hscroll);
    return sp->title;
}

/* The source line of `line`, tabs expanded so the gutter stays
 * aligned, from column sp->hscroll on (a column per character: the
 * bytes of a UTF-8 sequence count once). */
static void text_cell(const struct src_priv *sp, size_t line,
                      struct view_cell *c)
{
    size_t o = 0, col = 0;

    for (const char *s = sp->line[line]; *s && o + 9 < sizeof(c->buf); s++) {
        bool cont = ((unsigned char)*s & 0xc0) == 0x80;
        if (*s == '\t') {
            do
                if (col++ >= sp->hscroll)
                    c->buf[o++] = ' ';
            while (col % 8);
        } else if (cont ? col > sp->hscroll : col++ >= sp->hscroll) {
            c->buf[o++] = *s;
        }
    }
    c->buf[o] = '\0';
    c->text = c->buf;
}

static void src_cell(struct view *v, size_t line, int col,
                     struct view_cell *c)
{
    const struct src_priv *sp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct frame_desc *d = profile_frame(v->ctx->model->snap, sp->shown);

    if (sp->note && line == 0) {
        if (col == SC_SELF) {
            snprintf(c->buf, sizeof(c->buf), "no source: %s", sp->err);
            c->text = c->buf;
            c->attr = t->attr[UC_DIM];
            c->span = true;
        }
        return;
    }
    line -= sp->note;
    const struct profile_linecount *n = sp->by_addr ? &sp->counts[line]
                                                    : count_of(sp, line + 1);
    double fn = (double)sp->fn_total;

    switch ((enum src_col)col) {
    case SC_SELF:
    case SC_TOTAL: {
        uint64_t k = !n ? 0 : col == SC_SELF ? n->self : n->total;
        if (k) {
            cell_weight(v, c, k);
            c->attr = theme_heat(t, fn > 0 ? (double)k / fn : 0);
        }
        return;
    }
    case SC_LINE:
        snprintf(c->buf, sizeof(c->buf), "%zu", line + 1);
        c->text = c->buf;
        c->attr = t->attr[UC_DIM];
        return;
    case SC_ADDR:
        snprintf(c->buf, sizeof(c->buf), "0x%016" PRIx64, n->key);
        c->text = c->buf;
        c->attr = t->attr[UC_LOC];
        return;
    case SC_TEXT:
        break;
    }
    if (!sp->by_addr)
        text_cell(sp, line, c);
    else if (d->addr && n->key >= d->addr)
        snprintf(c->buf, sizeof(c->buf), "%s+0x%" PRIx64, d->name,
                 n->key - d->addr);
    else
        snprintf(c->buf, sizeof(c->buf), "%s", d->name);
    c->text = c->buf;
    if (n)
        c->attr = theme_heat(t, fn > 0 ? (double)n->total / fn : 0);
}

static uint64_t src_line_key(struct view *v, size_t line)
{
    const struct src_priv *sp = v->priv;

    if (sp->note && line == 0)
        return UINT64_MAX;
    line -= sp->note;
    return sp->by_addr ? sp->counts[line].key : line + 1;
}

static uint32_t src_line_frame(struct view *v, size_t line)
{
    (void)line;
    return ((const struct src_priv *)v->priv)->shown;
}

/* x: addresses instead of lines, and back. */
static bool src_toggle_addrs(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;

    (void)req;
    sp->want_addrs = !sp->want_addrs;
    sp->shown = PROFILE_NONE; /* re-place the cursor on the hottest row */
    view_refresh(v);
    if (!sp->want_addrs && sp->by_addr)
        ctx_message(v->ctx, true, "%s", sp->err[0] ? sp->err
                                                   : "no source file");
    return true;
}

/* Right and Left: the text scrolls sideways, as less -S does. */
static bool src_hscroll(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;

    if (sp->by_addr)
        return true;
    if (req == REQ_EXPAND)
        sp->hscroll += SRC_HSTEP;
    else
        sp->hscroll = sp->hscroll > SRC_HSTEP ? sp->hscroll - SRC_HSTEP : 0;
    return true;
}

static const struct view_action src_actions[] = {
    { REQ_TOGGLE_ADDRS, src_toggle_addrs, false },
    { REQ_EXPAND, src_hscroll, true },
    { REQ_COLLAPSE, src_hscroll, true },
    { REQ_NONE, NULL, false },
};

static const char *src_info(struct view *v, char *buf, size_t n)
{
    const struct src_priv *sp = v->priv;
    const struct model *m = v->ctx->model;

    if (!m || sp->shown == PROFILE_NONE)
        return NULL;
    /* Line and address counts are kept per function, not per thread: a
     * thread or process filter cannot narrow them, so say so. */
    snprintf(buf, n, "%s%s", model_frame_name(m, sp->shown),
             m->thread != PROFILE_NONE || m->pid ? " (counts: all threads)"
                                                 : "");
    return buf;
}

static const char *src_empty(struct view *v, char *buf, size_t n)
{
    const struct src_priv *sp = v->priv;
    const struct model *m = v->ctx->model;

    if (!m || sp->shown == PROFILE_NONE)
        return NULL;
    snprintf(buf, n, "%s: %s, and no sampled addresses",
             model_frame_name(m, sp->shown), sp->err[0] ? sp->err
                                                      : "no sampled lines");
    return buf;
}

static int src_open(struct view *v)
{
    ((struct src_priv *)v->priv)->shown = PROFILE_NONE;
    return 0;
}

static void src_close(struct view *v)
{
    struct src_priv *sp = v->priv;

    src_unload(sp);
    free(sp->counts);
}

const struct view_ops source_view_ops = {
    .name = "Source", .priv_size = sizeof(struct src_priv),
    .open = src_open, .refresh = src_refresh, .close = src_close,
    VIEW_COLUMNS(src_cols), .cell = src_cell, .title = src_title,
    .shown = src_shown,
    .actions = src_actions,
    .line_key = src_line_key, .line_frame = src_line_frame,
    .empty = src_empty, .info = src_info,
    .needs_stacks = true,
};
