/* export_callgrind.c - the callgrind profile format (FORMATS.md section
 * 2), read by kcachegrind, callgrind_annotate and speedscope.
 *
 * One event, Samples.  Each thread is a function of its own, "NAME-TID",
 * that calls the bottom frames of its stacks: callgrind has no threads,
 * and this keeps the per-thread split visible in kcachegrind's call graph.
 * Every other function gets a block with its self cost, split over source
 * lines where the profile counted them (the rest on the function's first
 * line), and one call record per callee with the inclusive cost.
 *
 * Inclusive costs under recursion: callgrind_annotate computes a called
 * function's inclusive cost as the sum of its incoming call costs, and a
 * root's as self plus outgoing calls.  So each sample must count once per
 * function, on exactly one incoming edge: the edge into the function's
 * outermost occurrence in the stack, which the model's edges count as
 * `outer` (profile_edges).  This also collapses direct recursion (f -> f
 * never gets a cost).  With this, every function's inclusive cost equals
 * its total in profile_flat, and the thread functions (the only roots)
 * call their thread node's children, so self plus outgoing = their
 * thread's samples.  The call count is not known from aggregated samples:
 * calls=1, as FORMATS.md says.
 *
 * Names: callgrind is line-based, so newlines and carriage returns in
 * names become spaces, a name with nothing visible (spaces, control
 * characters) is written "[unknown]", and every name is written with
 * name compression
 * ("fn=(3) name", later "fn=(3)") so a name that itself starts with
 * "(digits)" cannot be mistaken for a compressed one.  summary: and
 * totals: equal the sum of all self costs (callgrind_annotate trusts
 * them blindly).
 *
 * Per instruction (export_opts.dump_instr, --dump-instr): "positions:
 * instr line", as valgrind --dump-instr=yes writes, so KCachegrind can
 * show the costs on the disassembly.  Every cost line leads with an
 * address: a function's self cost per sampled address (each an
 * instruction's, the leaf's program counter), on the source line its
 * code (export_opts.code: the source's annotate op) gives the address;
 * a call record at the call instruction that targets the callee, or 0
 * when none does (through a pointer, the PLT, or inlined code).
 */
#include "export.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "escape.h"
#include "idtab.h"
#include "profile.h"
#include "util.h"
#include "vec.h"
#include "sorted.h"

#ifndef SPROFTOP_VERSION
#define SPROFTOP_VERSION "unknown"
#endif

#define NO_ID UINT32_MAX
/* callgrind's spelling of "no file/object"; one object, compared by
 * address like the profile's interned strings. */
static const char unknown_name[] = "???";

/* Name compression ids of one namespace (fl, fn or ob), keyed by the
 * string's address: the profile interns strings, so equal strings of one
 * profile share an address, and util_mix64 of an address is unique. */
struct names {
    struct idtab ix;   /* mixed address -> id */
    uint32_t n;        /* ids handed out */
};

/* A call from a thread function: one child of its thread node. */
struct root_call {
    uint32_t callee;   /* frame id */
    uint64_t cost;     /* the child's total */
};

struct cg {
    const struct profile *p;
    FILE *f;
    uint32_t nf;          /* frames */
    uint64_t *self;       /* per frame id */
    bool *caller;         /* per frame id: has outgoing calls */
    uint32_t *thread_of;  /* per frame id: thread index or NO_ID */
    struct profile_edge *edges; /* the model's, sorted by caller, callee */
    long nedges;
    struct root_call *roots;    /* scratch for a thread's calls */
    size_t roots_cap;
    uint32_t *fn_id;      /* per frame id: fn compression id, 0 if none */
    uint32_t fn_n;
    struct names fl, ob;
    const char *cur_fl;   /* file and object of the current block */
    const char *cur_ob;
    char *thread_name;    /* scratch for "NAME-TID" */
    const struct export_opts *o;
    bool instr;           /* positions: instr line (o->dump_instr) */
    struct annotation *code; /* the current block's function's code, or
                             NULL (o->code; instr only) */
};

/* --- costs --------------------------------------------------------------- */

/* Self costs per function (thread functions: their thread node's own
 * samples) and the model's edges; marks the functions that call. */
static int collect(struct cg *c)
{
    struct profile_flat *flat;
    long n = profile_flat(c->p, &flat);

    if (n < 0)
        return -1;
    for (long i = 0; i < n; i++)
        c->self[flat[i].frame] = flat[i].self;
    free(flat);
    for (uint32_t t = 0; t < profile_thread_count(c->p); t++) {
        const struct profile_thread *th = profile_thread_at(c->p, t);
        const struct profile_node *tn = profile_node(c->p, th->node);

        c->self[th->frame] = tn->self;
        c->caller[th->frame] = tn->first_child != PROFILE_NONE;
    }
    c->nedges = profile_edges(c->p, &c->edges);
    if (c->nedges < 0)
        return -1;
    for (long i = 0; i < c->nedges; i++)
        if (c->edges[i].caller != PROFILE_NONE && c->edges[i].outer)
            c->caller[c->edges[i].caller] = true;
    return 0;
}

/* --- names --------------------------------------------------------------- */

/* Whether s has a character that is neither a space nor a control
 * character: callgrind_annotate reads "cfn=(37)   " as a reference to id
 * 37, so a name of spaces would be one that never was defined. */
static bool has_visible(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s > ' ' && *s != 0x7f)
            return true;
    return false;
}

/* Write a name on the rest of a line: newlines would end the record. */
static void put_name(FILE *f, const char *s)
{
    static const struct escape_map line = { "\n\r", "  ", false };

    if (!s || !has_visible(s))
        fputs("[unknown]", f);
    else
        escape_put(f, s, SIZE_MAX, &line);
}

/* Compression id of s in ns (1-based), and whether it is new.  0 on OOM. */
static uint32_t names_id(struct names *ns, const char *s, bool *fresh)
{
    uint64_t h = util_mix64((uint64_t)(uintptr_t)s);
    uint32_t id = idtab_find(&ns->ix, h, NULL, NULL);

    *fresh = id == IDTAB_NONE;
    if (!*fresh)
        return id;
    if (idtab_insert(&ns->ix, h, ns->n + 1) < 0)
        return 0;
    return ++ns->n;
}

/* "KEY=(id) name" the first time, "KEY=(id)" after. */
static int put_compressed(struct cg *c, struct names *ns, const char *key,
                          const char *s)
{
    bool fresh;
    uint32_t id = names_id(ns, s, &fresh);

    if (!id)
        return -1;
    fprintf(c->f, "%s=(%" PRIu32 ")", key, id);
    if (fresh) {
        putc_unlocked(' ', c->f);
        put_name(c->f, s);
    }
    putc_unlocked('\n', c->f);
    return 0;
}

static const char *file_of(const struct frame_desc *d)
{
    return d->file && *d->file ? d->file : unknown_name;
}

static const char *object_of(const struct frame_desc *d)
{
    return d->module && *d->module ? d->module : unknown_name;
}

/* The name of a function as written: a thread's current name and tid. */
static const char *fn_name(struct cg *c, uint32_t frame)
{
    const struct frame_desc *d = profile_frame(c->p, frame);
    const struct profile_thread *t;

    if (c->thread_of[frame] == NO_ID)
        return d->name;
    t = profile_thread_at(c->p, c->thread_of[frame]);
    free(c->thread_name);
    if (asprintf(&c->thread_name, "%s-%lld", t->name, (long long)t->tid) < 0)
        c->thread_name = NULL;
    return c->thread_name ? c->thread_name : d->name;
}

static void put_fn(struct cg *c, const char *key, uint32_t frame)
{
    fprintf(c->f, "%s=(%" PRIu32 ")", key,
            c->fn_id[frame] ? c->fn_id[frame] : c->fn_n + 1);
    if (!c->fn_id[frame]) {
        c->fn_id[frame] = ++c->fn_n;
        putc_unlocked(' ', c->f);
        put_name(c->f, fn_name(c, frame));
    }
    putc_unlocked('\n', c->f);
}

/* --- output -------------------------------------------------------------- */

/* The line of address addr in the current function's code, else
 * `line`. */
static uint32_t line_at(const struct cg *c, uint64_t addr, uint32_t line)
{
    size_t i = c->code ? annotation_find(c->code, addr) : SIZE_MAX;

    return i != SIZE_MAX && c->code->insn[i].line ? c->code->insn[i].line
                                                   : line;
}

/* Self cost lines: per source line where known, the rest at `line`;
 * per instruction (instr), "ADDRESS LINE COST" per sampled address (its
 * line from the function's code), the rest at address 0. */
static int put_self(struct cg *c, uint32_t frame, uint32_t line)
{
    struct profile_linecount *lc = NULL;
    long n = 0;
    uint64_t known = 0, self = c->self[frame];

    if (c->thread_of[frame] == NO_ID) {
        n = profile_lines(c->p, frame, c->instr, &lc);
        if (n < 0)
            return -1;
    }
    for (long i = 0; i < n; i++)
        known += lc[i].self;
    if (known > self)  /* line counts of a derived profile: unfiltered */
        n = 0, known = 0;
    for (long i = 0; i < n; i++) {
        if (!lc[i].self)
            continue;
        if (c->instr)
            fprintf(c->f, "0x%" PRIx64 " %" PRIu32 " ", lc[i].key,
                    line_at(c, lc[i].key, line));
        else
            fprintf(c->f, "%" PRIu64 " ", lc[i].key);
        fprintf(c->f, "%" PRIu64 "\n", lc[i].self);
    }
    if (self > known || (self == 0 && n == 0))
        fprintf(c->f, "%s%" PRIu32 " %" PRIu64 "\n", c->instr ? "0 " : "",
                line, self - known);
    free(lc);
    return 0;
}

/* Index of the first edge from `caller` (edges are sorted). */
static long first_edge(const struct cg *c, uint32_t caller)
{
    long lo = 0, hi = c->nedges;

    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;

        if (c->edges[mid].caller < caller)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where the current function calls function d: the call instruction
 * whose target is d's start, else 0 (a call through a pointer or the
 * PLT, or code inlined). */
static uint64_t call_site(const struct cg *c, const struct frame_desc *d)
{
    for (size_t i = 0; c->code && d->addr && i < c->code->n; i++)
        if (c->code->insn[i].kind == ANNOT_CALL &&
            c->code->insn[i].target == d->addr)
            return c->code->insn[i].addr;
    return 0;
}

/* One call record: "cfn=", "calls=1 TARGETLINE", "LINE COST"; with
 * instr positions, each with its address first. */
static int put_call(struct cg *c, uint32_t callee, uint32_t line,
                    uint64_t cost)
{
    const struct frame_desc *cd = profile_frame(c->p, callee);

    if (object_of(cd) != c->cur_ob &&
        put_compressed(c, &c->ob, "cob", object_of(cd)))
        return -1;
    if (file_of(cd) != c->cur_fl &&
        put_compressed(c, &c->fl, "cfl", file_of(cd)))
        return -1;
    put_fn(c, "cfn", callee);
    if (c->instr) {
        uint64_t site = call_site(c, cd);
        fprintf(c->f, "calls=1 0x%" PRIx64 " %" PRIu32 "\n0x%" PRIx64
                " %" PRIu32 " %" PRIu64 "\n", cd->addr, cd->line, site,
                line_at(c, site, line), cost);
        return 0;
    }
    fprintf(c->f, "calls=1 %" PRIu32 "\n%" PRIu32 " %" PRIu64 "\n", cd->line,
            line, cost);
    return 0;
}

static int cmp_root_call(const void *a, const void *b)
{
    const struct root_call *x = a, *y = b;

    return (x->callee > y->callee) - (x->callee < y->callee);
}

/* A thread function calls the bottom frames of its stacks: its thread
 * node's children, by frame id. */
static int put_thread_calls(struct cg *c, uint32_t thread)
{
    const struct profile_node *tn =
        profile_node(c->p, profile_thread_at(c->p, thread)->node);
    size_t n = 0;

    for (uint32_t ch = tn->first_child; ch != PROFILE_NONE;
         ch = profile_node(c->p, ch)->next_sibling) {
        const struct profile_node *cn = profile_node(c->p, ch);

        if (VEC_RESERVE(c->roots, c->roots_cap, n + 1) < 0)
            return -1;
        c->roots[n++] = (struct root_call){ cn->frame, cn->total };
    }
    if (n > 1)
        sorted_sort(c->roots, n, sizeof(*c->roots), cmp_root_call);
    for (size_t i = 0; i < n; i++)
        if (put_call(c, c->roots[i].callee, 0, c->roots[i].cost))
            return -1;
    return 0;
}

/* A function calls into its callees' outermost occurrences. */
static int put_calls(struct cg *c, uint32_t frame, uint32_t line)
{
    for (long ei = first_edge(c, frame);
         ei < c->nedges && c->edges[ei].caller == frame; ei++)
        if (c->edges[ei].outer &&
            put_call(c, c->edges[ei].callee, line, c->edges[ei].outer))
            return -1;
    return 0;
}

/* The code of function frame, for its lines and call sites (NULL when
 * the source has none).  0, or -1 on OOM. */
static int load_code(struct cg *c, uint32_t frame)
{
    struct profile_linecount *lc = NULL;
    struct annot_request rq;
    uint64_t *addrs = NULL;
    long n = profile_lines(c->p, frame, true, &lc);
    int rc = -1;

    if (n >= 0 &&
        annot_request_init(&rq, c->p, frame, lc, (size_t)n, &addrs) == 0) {
        c->code = c->o->code(c->o->code_ctx, &rq);
        rc = 0;
    }
    free(addrs);
    free(lc);
    return rc;
}

static int put_block(struct cg *c, uint32_t frame)
{
    const struct frame_desc *d = profile_frame(c->p, frame);
    bool thread = c->thread_of[frame] != NO_ID;
    const char *ob = thread ? unknown_name : object_of(d);
    const char *fl = thread ? unknown_name : file_of(d);
    uint32_t line = thread ? 0 : d->line;

    putc_unlocked('\n', c->f);
    if (ob != c->cur_ob && put_compressed(c, &c->ob, "ob", ob))
        return -1;
    c->cur_ob = ob;
    if (put_compressed(c, &c->fl, "fl", fl))
        return -1;
    c->cur_fl = fl;
    put_fn(c, "fn", frame);
    annotation_free(c->code);
    c->code = NULL;
    if (c->instr && !thread && c->o->code && load_code(c, frame) < 0)
        return -1;
    if (put_self(c, frame, line) ||
        (thread ? put_thread_calls(c, c->thread_of[frame])
                : put_calls(c, frame, line)))
        return -1;
    return ferror(c->f) ? -1 : 0;
}

static void put_header(struct cg *c, uint64_t summary)
{
    const struct profile_meta *m = profile_meta(c->p);

    fputs("# callgrind format\nversion: 1\ncreator: sproftop "
          SPROFTOP_VERSION "\n", c->f);
    char pids[256];
    size_t np = profile_pid_list(c->p, pids, sizeof pids);
    /* callgrind's pid: is one number; several go in a description */
    if (np == 1)
        fprintf(c->f, "pid: %s\n", pids);
    else if (np > 1)
        fprintf(c->f, "desc: Processes: %s\n", pids);
    if (m->cmdline && *m->cmdline) {
        fputs("cmd: ", c->f);
        put_name(c->f, m->cmdline);
        putc_unlocked('\n', c->f);
    }
    fprintf(c->f, "desc: Trigger: sampling (%s)\n",
            m->idle ? "wall-clock, idle threads included" : "on-CPU");
    if (m->interval_ns)
        fprintf(c->f, "desc: Interval: %" PRIu64 " ns\n", m->interval_ns);
    if (m->duration_ns)
        fprintf(c->f, "desc: Duration: %" PRIu64 " ns\n", m->duration_ns);
    fputs(c->instr ? "positions: instr line\n" : "positions: line\n", c->f);
    if (m->interval_ns)
        fprintf(c->f, "event: Samples : Samples (%" PRIu64 " ns each)\n",
                m->interval_ns);
    fprintf(c->f, "events: Samples\nsummary: %" PRIu64 "\n", summary);
}

static int write_callgrind(const struct profile *p, const struct export_opts *o,
                           FILE *f)
{
    uint32_t nf = profile_frame_count(p), alloc = nf ? nf : 1;
    struct cg c = {
        .p = p,
        .f = f,
        .nf = nf,
        .self = calloc(alloc, sizeof(*c.self)),
        .caller = calloc(alloc, sizeof(*c.caller)),
        .thread_of = malloc(alloc * sizeof(*c.thread_of)),
        .fn_id = calloc(alloc, sizeof(*c.fn_id)),
        .o = o,
        .instr = o && o->dump_instr,
    };
    uint64_t summary = 0;
    int rc = -1;

    if (!c.self || !c.caller || !c.thread_of || !c.fn_id)
        goto out;
    memset(c.thread_of, 0xff, alloc * sizeof(*c.thread_of));
    for (uint32_t t = 0; t < profile_thread_count(p); t++)
        c.thread_of[profile_thread_at(p, t)->frame] = t;
    if (collect(&c) != 0)
        goto out;
    for (uint32_t i = 0; i < nf; i++)
        summary += c.self[i];
    put_header(&c, summary);
    /* Threads first, in thread order, then functions in frame order; a
     * block for every function with self cost or callees. */
    for (uint32_t t = 0; t < profile_thread_count(p); t++) {
        uint32_t fr = profile_thread_at(p, t)->frame;

        if ((c.self[fr] || c.caller[fr]) && put_block(&c, fr))
            goto out;
    }
    for (uint32_t fr = 0; fr < nf; fr++)
        if (c.thread_of[fr] == NO_ID && (c.self[fr] || c.caller[fr]) &&
            put_block(&c, fr))
            goto out;
    fprintf(f, "\ntotals: %" PRIu64 "\n", summary);
    rc = ferror(f) ? -1 : 0;
out:
    free(c.self);
    free(c.caller);
    free(c.thread_of);
    free(c.edges);
    free(c.roots);
    free(c.fn_id);
    idtab_free(&c.fl.ix);
    idtab_free(&c.ob.ix);
    free(c.thread_name);
    annotation_free(c.code);
    return rc;
}

EXPORT_COUNTS_WRITER(export_callgrind_write, write_callgrind)
