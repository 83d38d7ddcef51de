/* code_view.c - the code of the selected function: its source lines, or
 * its instructions annotated (the "Source" tab).
 *
 * See code_view.h.  The source file is read once per selected function,
 * the machine code asked of the source once per function (its annotate
 * op: the engine reads the module's file); every refresh only counts the
 * new samples on them (profile_lines, then annot_count and annot_rows of
 * the model's annotate.h, which the exporters use too).
 */
#include "code_view.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "srcfile.h"
#include "util.h"

/* Columns Right and Left scroll the text by. */
#define SRC_HSTEP 8
/* Source files an annotated listing quotes, kept open at once (a
 * function's own file and the headers its inlined code comes from). */
#define CODE_FILES 4
/* Functions Enter on a call leaves, for Backspace. */
#define CODE_BACK 32

/* A source file the listing quotes, or why it could not be read. */
struct code_file {
    const char *path;          /* interned in the annotation, NULL: free */
    struct srcfile sf;
    bool ok;
};

struct src_priv {
    uint32_t shown;            /* function loaded, PROFILE_NONE */
    bool insns;                /* annotate: its instructions, not its
                                  source lines */
    bool by_addr;              /* rows are sampled addresses (no readable
                                  source, or no machine code) */
    bool note;                 /* row 0 says what is not shown, and why */
    struct srcfile src;        /* the function's source file */
    char err[256];             /* why it could not be read */
    size_t hscroll;            /* text columns scrolled off to the left */
    char title[PATH_MAX + 200]; /* the text column's title, when built */
    struct profile_linecount *counts; /* by line, or by address */
    size_t ncounts;
    uint64_t fn_total;         /* the function's total samples */

    /* annotate (insns) */
    struct annotation *code;   /* the shown function's code; NULL: none
                                  (not asked, OOM, or no annotate op) */
    uint32_t code_of;          /* the function it is of, PROFILE_NONE */
    char why[256];             /* why there is no code to list */
    struct annot_counts k;     /* its samples per instruction */
    struct annot_row *rows;    /* the listing */
    size_t nrows;
    uint32_t *hot;             /* instructions, hottest first */
    size_t nhot, hot_at;       /* e steps through them */
    struct code_file files[CODE_FILES];
    size_t next_file;          /* the slot the next file takes */
    uint32_t back[CODE_BACK];  /* functions Enter on a call left */
    size_t nback;
    bool callee;               /* code is a callee's that has no samples
                                  (Enter on its call), not code_of's */
};

static void files_free(struct src_priv *sp)
{
    for (size_t i = 0; i < CODE_FILES; i++) {
        srcfile_free(&sp->files[i].sf);
        sp->files[i].path = NULL;
    }
}

static void code_free(struct src_priv *sp)
{
    files_free(sp);
    annotation_free(sp->code);
    annot_counts_free(&sp->k);
    free(sp->rows);
    free(sp->hot);
    sp->code = NULL;
    sp->code_of = PROFILE_NONE;
    sp->callee = false;
    sp->rows = NULL;
    sp->hot = NULL;
    sp->nrows = sp->nhot = sp->hot_at = 0;
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

/* Whether the lines are an annotated listing. */
static bool listing(const struct src_priv *sp)
{
    return sp->insns && sp->code && sp->code->n && !sp->by_addr;
}

/* Row of the hottest line: most self samples, else most total. */
static size_t hottest_row(const struct view *v)
{
    const struct src_priv *sp = v->priv;
    const struct profile_linecount *best = NULL;

    if (listing(sp)) {
        for (size_t i = 0; sp->nhot && i < sp->nrows; i++)
            if (sp->rows[i].kind == ANNOT_ROW_INSN &&
                sp->rows[i].insn == sp->hot[0])
                return i;
        return 0;
    }
    for (size_t i = 0; i < sp->ncounts; i++) {
        const struct profile_linecount *c = &sp->counts[i];
        if (!sp->by_addr && (c->key == 0 || c->key > sp->src.nlines))
            continue;
        if (!best || c->self > best->self ||
            (c->self == best->self && c->total > best->total))
            best = c;
    }
    if (!best)
        return 0;
    return sp->by_addr ? (size_t)(best - sp->counts) : (size_t)best->key - 1;
}

/* Ask the source for the machine code of function f, once. */
static void code_load(struct view *v, uint32_t f)
{
    struct src_priv *sp = v->priv;
    struct source *src = v->ctx->source;
    const struct model *m = v->ctx->model;
    struct annot_request rq;
    uint64_t *addrs = NULL;

    code_free(sp);
    sp->code_of = f;
    sp->why[0] = '\0';
    if (!src || !src->ops->annotate) {
        snprintf(sp->why, sizeof(sp->why), "this source has no machine "
                 "code (a file of stacks)");
        return;
    }
    if (annot_request_init(&rq, m->base, f, sp->counts, sp->ncounts,
                           &addrs) < 0 ||
        !(sp->code = src->ops->annotate(src, &rq)))
        snprintf(sp->why, sizeof(sp->why), "out of memory");
    else if (!sp->code->n)
        snprintf(sp->why, sizeof(sp->why), "%s", sp->code->why);
    free(addrs);
}

/* The samples of the listing, counted anew at each refresh. */
static void code_count(struct view *v)
{
    struct src_priv *sp = v->priv;
    long n;

    annot_counts_free(&sp->k);
    free(sp->rows);
    free(sp->hot);
    sp->rows = NULL;
    sp->hot = NULL;
    sp->nrows = sp->nhot = 0;
    /* every sample in the function's code, whichever frame (an inlined
     * one) it was named by, as perf annotate counts */
    struct profile_linecount *c = NULL;
    long nc = profile_code_counts(v->ctx->model->base, sp->code->module,
                                  sp->code->start, sp->code->end, &c);
    if (nc >= 0) {
        free(sp->counts);
        sp->counts = c;
        sp->ncounts = (size_t)nc;
    }
    if (nc < 0 || annot_count(sp->code, sp->counts, sp->ncounts, &sp->k) < 0 ||
        (n = annot_rows(sp->code, &sp->k, true, &sp->rows)) < 0) {
        snprintf(sp->why, sizeof(sp->why), "out of memory");
        sp->by_addr = true;
        return;
    }
    sp->nrows = (size_t)n;
    if ((n = annot_hot_order(sp->code, &sp->k, &sp->hot)) > 0)
        sp->nhot = (size_t)n;
    if (sp->hot_at >= sp->nhot)
        sp->hot_at = 0;
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
        srcfile_free(&sp->src);
        sp->err[0] = '\0';
        sp->shown = f;
        sp->hscroll = 0;
        if (!d->file)
            snprintf(sp->err, sizeof(sp->err), "no source file known");
        else
            srcfile_load(&sp->src, d->file, sp->err, sizeof(sp->err));
    }
    sp->by_addr = sp->insns || !sp->src.line;
    sp->fn_total = model_flat_of(m, f)->total;

    struct profile_linecount *c = NULL;
    long n = profile_lines(m->base, f, sp->by_addr, &c);
    if (n > 0) {
        sp->counts = c;
        sp->ncounts = (size_t)n;
    } else {
        free(c);
    }
    if (sp->insns) {
        if (sp->code_of != f)
            code_load(v, f);
        sp->by_addr = !sp->code || !sp->code->n;
        if (!sp->by_addr)
            code_count(v);
    }
    /* Addresses for want of a source or of machine code, or a listing
     * that is not the whole function: the first row says why, whole (a
     * title or the tab bar would clip it). */
    if (listing(sp))
        sp->note = sp->code->why[0];
    else
        sp->note = sp->by_addr && sp->ncounts &&
                   (sp->insns ? sp->why[0] : sp->err[0]);
    v->lines = (listing(sp) ? sp->nrows
                : sp->by_addr ? sp->ncounts : sp->src.nlines) + sp->note;
    if (fresh) {
        v->cursor = hottest_row(v) + sp->note;
        /* Centre the hottest line when the screen allows. */
        size_t half = v->height > 2 ? (size_t)v->height / 2 : 0;
        v->offset = v->cursor > half ? v->cursor - half : 0;
        v->placed = true;
    }
}

enum src_col { SC_SELF, SC_SHARE, SC_TOTAL, SC_LINE, SC_ADDR, SC_OFFSET,
               SC_TEXT };

/* By line: Self, Total, Line, the text.  By address: Self, Total,
 * Address, symbol+offset.  Annotated: Self, Self%, Total, Offset, the
 * source lines and instructions. */
static const struct view_col src_cols[] = {
    { .id = SC_SELF, .title = "Self", .width = 7, .flags = DT_RIGHT },
    { .id = SC_SHARE, .title = "Self%", .width = 6, .flags = DT_RIGHT },
    { .id = SC_TOTAL, .title = "Total", .width = 7, .flags = DT_RIGHT },
    { .id = SC_LINE, .title = "Line", .width = 6, .flags = DT_RIGHT },
    { .id = SC_ADDR, .title = "Address", .width = 18, .flags = DT_RIGHT },
    { .id = SC_OFFSET, .title = "Offset", .width = 9, .flags = DT_RIGHT },
    { .id = SC_TEXT, .title = "Symbol+offset", .flags = DT_ELLIPSIS },
};

/* Nothing at all, not even titles, until a function is shown. */
static bool src_shown(struct view *v, int col)
{
    const struct src_priv *sp = v->priv;

    if (!v->ctx->model || sp->shown == PROFILE_NONE)
        return false;
    switch ((enum src_col)col) {
    case SC_SHARE:
    case SC_OFFSET:
        return listing(sp);
    case SC_LINE:
        return !sp->by_addr && !listing(sp);
    case SC_ADDR:
        return sp->by_addr;
    case SC_SELF:
    case SC_TOTAL:
    case SC_TEXT:
        break;
    }
    return true;
}

/* By line, the text column's title is the file, and how far it is
 * scrolled sideways; annotated, the function, its module and range. */
static const char *src_title(struct view *v, int col)
{
    struct src_priv *sp = v->priv;

    if (col != SC_TEXT || (sp->by_addr && !listing(sp)))
        return NULL;
    if (listing(sp)) {
        const struct annotation *a = sp->code;
        snprintf(sp->title, sizeof(sp->title), "%s in %s  0x%" PRIx64
                 "-0x%" PRIx64 "%s", a->name, a->module ? a->module : "?",
                 a->start, a->end, sp->hscroll ? "  [scrolled]" : "");
        return sp->title;
    }
    const char *file = profile_frame(v->ctx->model->snap, sp->shown)->file;
    if (!sp->hscroll)
        return file;
    snprintf(sp->title, sizeof(sp->title), "%s  [+%zu columns]", file,
             sp->hscroll);
    return sp->title;
}

/* Text s from column sp->hscroll on, after `lead`, tabs expanded so the
 * gutter stays aligned (a column per character: the bytes of a UTF-8
 * sequence count once). */
static void text_cell(const struct src_priv *sp, const char *lead,
                      const char *s, struct view_cell *c)
{
    size_t o = (size_t)snprintf(c->buf, sizeof(c->buf), "%s", lead), col = 0;

    for (; *s && o + 9 < sizeof(c->buf); s++) {
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

/* The source file at path (interned in the annotation), read at most
 * once while the listing lasts; NULL when it cannot be read. */
static const struct srcfile *code_file(struct src_priv *sp, const char *path)
{
    char err[256];

    for (size_t i = 0; i < CODE_FILES; i++)
        if (sp->files[i].path == path)
            return sp->files[i].ok ? &sp->files[i].sf : NULL;
    struct code_file *cf = &sp->files[sp->next_file];
    sp->next_file = (sp->next_file + 1) % CODE_FILES;
    srcfile_free(&cf->sf);
    cf->path = path;
    cf->ok = srcfile_load(&cf->sf, path, err, sizeof(err)) == 0;
    return cf->ok ? &cf->sf : NULL;
}

/* A source row: "  41  for (...)", or "loops.c:41" without the file. */
static void source_text(struct view *v, const struct annot_insn *in,
                        struct view_cell *c)
{
    struct src_priv *sp = v->priv;
    const struct srcfile *sf = in->file ? code_file(sp, in->file) : NULL;
    const char *text = sf ? srcfile_line(sf, in->line) : NULL;
    char lead[64];

    c->attr = v->ctx->theme->attr[UC_LOC];
    if (!text) {
        cell_printf(c, "%s:%" PRIu32,
                    in->file ? util_basename(in->file) : "?", in->line);
        return;
    }
    snprintf(lead, sizeof(lead), "%5" PRIu32 "  ", in->line);
    text_cell(sp, lead, text, c);
}

/* The self or total cell of a line or an instruction: its weight in the
 * heat colour of its share of the function, blank when it has none. */
static void heat_weight_cell(struct view *v, struct view_cell *c, uint64_t k,
                             double share)
{
    if (!k)
        return;
    cell_weight(v, c, k);
    c->attr = theme_heat(v->ctx->theme, share);
}

/* An instruction as the listing shows it (annot_insn_label). */
static void insn_text(struct view *v, const struct annot_insn *in,
                      struct view_cell *c)
{
    const struct src_priv *sp = v->priv;
    const struct glyphs *g = &v->ctx->theme->g;
    char ins[512];

    text_cell(sp, "    ", annot_insn_label(sp->code, in, g->up, g->down, ins,
                                           sizeof(ins)), c);
}

static void listing_cell(struct view *v, size_t line, int col,
                         struct view_cell *c)
{
    const struct src_priv *sp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct annot_row *r = &sp->rows[line];
    const struct annot_insn *in = &sp->code->insn[r->insn];
    double share = annot_share(&sp->k, r->self);

    switch ((enum src_col)col) {
    case SC_SELF:
    case SC_TOTAL: {
        uint64_t k = col == SC_SELF ? r->self : r->total;
        heat_weight_cell(v, c, k, col == SC_SELF ? share
                                  : annot_share(&sp->k, k));
        return;
    }
    case SC_SHARE:
        if (r->self)
            cell_pct(v, c, (double)r->self, (double)sp->k.fn_self);
        return;
    case SC_OFFSET:
        if (r->kind == ANNOT_ROW_INSN) {
            cell_printf(c, "+0x%" PRIx64, in->addr - sp->code->start);
            c->attr = t->attr[UC_DIM];
        }
        return;
    case SC_LINE:
    case SC_ADDR:
        return;
    case SC_TEXT:
        break;
    }
    if (r->kind == ANNOT_ROW_SOURCE) {
        source_text(v, in, c);
        return;
    }
    insn_text(v, in, c);
    c->attr = in->kind == ANNOT_BAD ? t->attr[UC_ERROR]
              : r->self ? theme_heat(t, share) : t->attr[UC_NORMAL];
}

static void src_cell(struct view *v, size_t line, int col,
                     struct view_cell *c)
{
    const struct src_priv *sp = v->priv;
    const struct theme *t = v->ctx->theme;
    const struct frame_desc *d = profile_frame(v->ctx->model->snap, sp->shown);

    if (sp->note && line == 0) {
        if (col == SC_SELF) {
            if (listing(sp))
                cell_printf(c, "%s", sp->code->why);
            else if (sp->insns)
                cell_printf(c, "no machine code: %s", sp->why);
            else
                cell_printf(c, "no source: %s", sp->err);
            c->attr = t->attr[UC_DIM];
            c->span = true;
        }
        return;
    }
    line -= sp->note;
    if (listing(sp)) {
        listing_cell(v, line, col, c);
        return;
    }
    const struct profile_linecount *n = sp->by_addr ? &sp->counts[line]
                                                    : count_of(sp, line + 1);
    double fn = (double)sp->fn_total;

    switch ((enum src_col)col) {
    case SC_SELF:
    case SC_TOTAL: {
        uint64_t k = !n ? 0 : col == SC_SELF ? n->self : n->total;
        heat_weight_cell(v, c, k, fn > 0 ? (double)k / fn : 0);
        return;
    }
    case SC_LINE:
        cell_printf(c, "%zu", line + 1);
        c->attr = t->attr[UC_DIM];
        return;
    case SC_ADDR:
        cell_printf(c, "0x%016" PRIx64, n->key);
        c->attr = t->attr[UC_LOC];
        return;
    case SC_SHARE:
    case SC_OFFSET:
        return;
    case SC_TEXT:
        break;
    }
    if (!sp->by_addr)
        text_cell(sp, "", sp->src.line[line], c);
    else if (d->addr && n->key >= d->addr)
        cell_printf(c, "%s+0x%" PRIx64, d->name, n->key - d->addr);
    else
        cell_printf(c, "%s", d->name);
    if (n)
        c->attr = theme_heat(t, fn > 0 ? (double)n->total / fn : 0);
}

static uint64_t src_line_key(struct view *v, size_t line)
{
    const struct src_priv *sp = v->priv;

    if (sp->note && line == 0)
        return UINT64_MAX;
    line -= sp->note;
    /* (asked before a refresh: the lines may be of the other mode) */
    if (listing(sp) ? line >= sp->nrows
                    : sp->by_addr ? line >= sp->ncounts : false)
        return UINT64_MAX;
    if (listing(sp)) {
        const struct annot_row *r = &sp->rows[line];
        return sp->code->insn[r->insn].addr << 1 |
               (r->kind == ANNOT_ROW_SOURCE);
    }
    return sp->by_addr ? sp->counts[line].key : line + 1;
}

static uint32_t src_line_frame(struct view *v, size_t line)
{
    (void)line;
    return ((const struct src_priv *)v->priv)->shown;
}

/* The listing's row of instruction i, or SIZE_MAX. */
static size_t row_of_insn(const struct view *v, size_t i)
{
    const struct src_priv *sp = v->priv;

    for (size_t r = 0; r < sp->nrows; r++)
        if (sp->rows[r].kind == ANNOT_ROW_INSN && sp->rows[r].insn == i)
            return r + sp->note;
    return SIZE_MAX;
}

/* x: the instructions instead of the source lines, and back. */
static bool src_toggle_addrs(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;

    (void)req;
    sp->insns = !sp->insns;
    sp->shown = PROFILE_NONE; /* re-place the cursor on the hottest row */
    view_refresh(v);
    if (sp->insns && !listing(sp))
        ctx_message(v->ctx, true, "no machine code: %s", sp->why);
    else if (!sp->insns && sp->by_addr)
        ctx_message(v->ctx, true, "%s", sp->err[0] ? sp->err
                                                   : "no source file");
    return true;
}

/* Right and Left: the text scrolls sideways, as less -S does. */
static bool src_hscroll(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;

    if (sp->by_addr && !listing(sp))
        return true;
    if (req == REQ_EXPAND)
        sp->hscroll += SRC_HSTEP;
    else
        sp->hscroll = sp->hscroll > SRC_HSTEP ? sp->hscroll - SRC_HSTEP : 0;
    return true;
}

/* e: the next-hottest instruction (from the hottest, round again). */
static bool src_next_hot(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;
    size_t row;

    (void)req;
    if (!listing(sp) || !sp->nhot)
        return false;
    size_t at = sp->hot_at;
    uint32_t i = sp->hot[at];
    sp->hot_at = (at + 1) % sp->nhot;
    if ((row = row_of_insn(v, i)) != SIZE_MAX)
        view_goto(v, row);
    ctx_message(v->ctx, false, "hottest %zu of %zu: +0x%" PRIx64 ", %.1f%%",
                at + 1, sp->nhot, sp->code->insn[i].addr - sp->code->start,
                100 * annot_share(&sp->k, sp->k.self[i]));
    return true;
}

/* The function of the profile that starts at target address t. */
static uint32_t frame_at(const struct model *m, uint64_t t)
{
    for (uint32_t f = 0; f < profile_frame_count(m->snap); f++) {
        const struct frame_desc *d = profile_frame(m->snap, f);
        if (d->addr == t && d->kind == FRAME_FUNC && !d->inlined &&
            model_flat_of(m, f))
            return f;
    }
    return PROFILE_NONE;
}

/* Enter on a call to a function without samples: its code all the
 * same, asked of the source by its start, with no counts to show. */
static bool follow_unsampled(struct view *v, const struct annot_insn *in)
{
    struct src_priv *sp = v->priv;
    struct source *src = v->ctx->source;
    const char *name = in->target_name ? in->target_name : "the callee";
    struct annot_request rq = {
        .frame = { .name = name, .module = sp->code->module,
                   .addr = in->target, .kind = FRAME_FUNC },
        .at_start = true,
    };
    struct annotation *a = src && src->ops->annotate
                               ? src->ops->annotate(src, &rq) : NULL;

    if (!a || !a->n) {
        ctx_message(v->ctx, true, "%s: %s", name,
                    a ? a->why : "no machine code");
        annotation_free(a);
        return true;
    }
    uint32_t f = sp->shown;
    *(uint32_t *)view_history_push(sp->back, &sp->nback, CODE_BACK,
                                   sizeof(sp->back[0])) = f;
    v->lines = 0;  /* they are the caller's rows, freed now */
    code_free(sp);
    sp->code = a;
    sp->code_of = f;
    sp->callee = true;
    view_refresh(v);
    view_goto(v, 0);
    ctx_message(v->ctx, false, "%s has no samples: its code alone "
                "(Backspace: back)", a->name);
    return true;
}

/* Enter: on a call, the callee's listing (Backspace comes back); on a
 * jump in the function, its target. */
static bool src_follow(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;
    const struct model *m = v->ctx->model;
    size_t row;

    (void)req;
    if (!listing(sp) || (sp->note && v->cursor == 0))
        return false;
    const struct annot_row *r = &sp->rows[v->cursor - sp->note];
    const struct annot_insn *in = &sp->code->insn[r->insn];
    if (r->kind != ANNOT_ROW_INSN || !in->target)
        return false;
    if (in->kind == ANNOT_JUMP && in->target >= sp->code->start &&
        in->target < sp->code->end) {
        size_t i = annotation_find(sp->code, in->target);
        if (i == SIZE_MAX || (row = row_of_insn(v, i)) == SIZE_MAX) {
            ctx_message(v->ctx, true, "the jump's target is not shown");
            return true;
        }
        view_goto(v, row);
        return true;
    }
    uint32_t f = frame_at(m, in->target);
    if (f == PROFILE_NONE)
        return follow_unsampled(v, in);
    *(uint32_t *)view_history_push(sp->back, &sp->nback, CODE_BACK,
                                   sizeof(sp->back[0])) = sp->shown;
    v->ctx->selected = f;
    view_refresh(v);
    return true;
}

/* Backspace: the function Enter left. */
static bool src_back(struct view *v, enum request req)
{
    struct src_priv *sp = v->priv;
    const uint32_t *f = view_history_pop(v, sp->back, &sp->nback,
                                         sizeof(sp->back[0]), NULL);

    (void)req;
    if (!f)
        return false;
    if (sp->callee) {
        v->lines = 0;
        code_free(sp);  /* the function's own code again */
    }
    v->ctx->selected = *f;
    view_refresh(v);
    return true;
}

static const struct view_action src_actions[] = {
    { REQ_TOGGLE_ADDRS, src_toggle_addrs, false },
    { REQ_EXPAND, src_hscroll, true },
    { REQ_COLLAPSE, src_hscroll, true },
    { REQ_NEXT_HOT, src_next_hot, false },
    { REQ_ENTER, src_follow, true },
    { REQ_BACK, src_back, false },
    { REQ_NONE, NULL, false },
};

/* The label of the function shown into name, or false when none is. */
static bool shown_label(struct view *v, char *name, size_t n)
{
    const struct src_priv *sp = v->priv;
    const struct model *m = v->ctx->model;

    if (!m || sp->shown == PROFILE_NONE)
        return false;
    view_frame_label(profile_frame(m->snap, sp->shown), name, n);
    return true;
}

static const char *src_info(struct view *v, char *buf, size_t n)
{
    const struct src_priv *sp = v->priv;
    const struct model *m = v->ctx->model;
    char name[512];

    if (!shown_label(v, name, sizeof(name)))
        return NULL;
    /* Line and address counts are kept per function, not per thread: a
     * thread or process filter cannot narrow them, so say so. */
    if (listing(sp) && sp->callee)
        snprintf(buf, n, "annotate: %s (called by %s)", sp->code->name, name);
    else
        snprintf(buf, n, "%s%s%s", sp->insns ? "annotate: " : "", name,
                 m->thread != PROFILE_NONE || m->pid
                     ? " (counts: all threads)" : "");
    return buf;
}

static const char *src_empty(struct view *v, char *buf, size_t n)
{
    const struct src_priv *sp = v->priv;
    char name[512];

    if (!shown_label(v, name, sizeof(name)))
        return NULL;
    if (sp->insns)
        snprintf(buf, n, "%s: no machine code: %s, and no sampled "
                 "addresses", name, sp->why);
    else
        snprintf(buf, n, "%s: %s, and no sampled addresses", name,
                 sp->err[0] ? sp->err : "no sampled lines");
    return buf;
}

static int src_open(struct view *v)
{
    struct src_priv *sp = v->priv;

    sp->shown = sp->code_of = PROFILE_NONE;
    return 0;
}

static void src_close(struct view *v)
{
    struct src_priv *sp = v->priv;

    srcfile_free(&sp->src);
    code_free(sp);
    free(sp->counts);
}

void code_view_annotate(struct view *v, bool insns)
{
    struct src_priv *sp = v->priv;

    if (sp->insns != insns)
        sp->shown = PROFILE_NONE;  /* place the cursor anew */
    sp->insns = insns;
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
