/* profile_query.c - what is computed from a profile's tree: merging one
 * profile into another, derived profiles (a thread, a focus frame, the
 * inverted tree), the flat per-function table and the caller->callee
 * edges with Racket's times.  See profile.h; the storage is in
 * profile_impl.h.
 *
 * Called by the UI's model (view_model.c) once per snapshot or filter
 * change, by the exporters once per file and by -i merging: plain
 * O(nodes) or O(stacks x depth) passes.
 */
#include "profile_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"
#include "sorted.h"

/* --- merge --------------------------------------------------------------- */

struct merge_ctx {
    struct profile *dst;
    const uint32_t *fmap;  /* src frame id -> dst frame id */
    const uint32_t *tmap;  /* src thread index -> dst thread index */
    uint32_t *buf;         /* mapped frames */
    uint64_t k;            /* src weight -> dst weight factor */
};

static int merge_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t weight)
{
    struct merge_ctx *m = ctx;

    for (size_t i = 0; i < n; i++)
        m->buf[i] = m->fmap[frames[i]];
    return profile_tree_add(m->dst, m->dst->th[m->tmap[thread]].node, m->buf,
                            n, weight * m->k);
}

/* Weights of dst and src in one unit: dst's weights are to be multiplied
 * by fd, src's by fs, to weigh in units of *unit ns.  The same unit needs
 * nothing (two files of counts add up, whatever their intervals); an
 * empty dst takes src's unit; otherwise the unit is the greatest common
 * divisor of both sides' ns per unit, a count of unknown length taking
 * the other side's interval. */
struct merge_units {
    uint64_t fd, fs, unit;
};

static struct merge_units merge_units(const struct profile *dst,
                                      const struct profile *src)
{
    struct merge_units u = { 1, 1, dst->unit_ns };
    uint64_t ed = dst->unit_ns ? dst->unit_ns : dst->meta.interval_ns;
    uint64_t es = src->unit_ns ? src->unit_ns : src->meta.interval_ns;

    if (dst->unit_ns == src->unit_ns)
        return u;
    if (dst->samples == 0) {
        u.unit = src->unit_ns;
        return u;
    }
    if (!ed)
        ed = es;
    if (!es)
        es = ed;
    u.unit = util_gcd(ed, es);
    u.fd = ed / u.unit;
    u.fs = es / u.unit;
    return u;
}

/* Thread of dst that src thread `t` merges into, created if needed. */
static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* by_command: a thread matches only one of a process with the same
 * command (and both without a process match). */
static uint32_t merge_thread(struct profile *dst,
                             const struct profile_thread *t, bool by_command)
{
    int64_t tid = t->tid;
    uint32_t same = profile_tid_find(dst, tid);

    /* The same thread (a later snapshot of one session): its tid, name
     * and process, before any other thread of that name. */
    if (!by_command && same != PROFILE_NONE &&
        strcmp(dst->th[same].name, t->name) == 0 &&
        dst->th[same].pid == t->pid)
        return same;
    for (uint32_t i = 0; i < dst->nthreads; i++)
        if (strcmp(dst->th[i].name, t->name) == 0 &&
            (!by_command || (!dst->th[i].pid == !t->pid &&
                             same_str(dst->th[i].process, t->process))))
            return i;
    /* A new name whose tid dst already uses for another name: give it an
     * unused tid rather than renaming dst's thread. */
    if (profile_tid_find(dst, tid) != PROFILE_NONE) {
        for (uint32_t i = 0; i < dst->nthreads; i++)
            if (dst->th[i].tid >= tid)
                tid = dst->th[i].tid + 1;
    }
    return profile_thread(dst, tid, t->name);
}

const char *profile_merge_refusal(const struct profile *dst,
                                  const struct profile *src)
{
    struct merge_units u = merge_units(dst, src);
    unsigned __int128 a = (unsigned __int128)profile_samples(dst) * u.fd;
    unsigned __int128 b = (unsigned __int128)profile_samples(src) * u.fs;

    if (!profile_has_stacks(dst) || !profile_has_stacks(src))
        return PROFILE_NO_STACKS;
    if (a + b >= PROFILE_COUNT_LIMIT)
        return "the total sample count would reach 2^53";
    if (dst->meta.duration_ns > PROFILE_DURATION_MAX ||
        src->meta.duration_ns > PROFILE_DURATION_MAX - dst->meta.duration_ns)
        return "the total duration would pass 2^63 ns";
    return NULL;
}

static int merge_impl(struct profile *dst, const struct profile *src,
                      bool by_command);

/* After merging src by command into dst: each thread of a known process
 * learns how many processes of its command src has (the exited ones of
 * an aggregate counted), and takes the PID of the first, so the command
 * is one process.  0 or -1 on OOM. */
static int count_processes(struct profile *dst, const struct profile *src)
{
    bool *first = calloc(src->nthreads ? src->nthreads : 1, sizeof(*first));

    if (!first)
        return -1;
    /* The first thread of each PID stands for its process. */
    for (uint32_t t = 0; t < src->nthreads; t++) {
        uint32_t u = 0;

        while (u < t && src->th[u].pid != src->th[t].pid)
            u++;
        first[t] = src->th[t].pid && u == t;
    }
    for (uint32_t i = 0; i < dst->nthreads; i++) {
        struct profile_thread *d = &dst->th[i];
        int64_t pid = 0;

        d->processes = 0;
        for (uint32_t t = 0; d->pid && t < src->nthreads; t++)
            if (first[t] && same_str(src->th[t].process, d->process)) {
                /* an aggregate stands for its exited processes */
                d->processes += src->th[t].exited ? src->th[t].exited : 1;
                if (!pid)
                    pid = src->th[t].pid;
            }
        if (pid)
            d->pid = pid;  /* one process per command: its first one's */
    }
    free(first);
    return 0;
}

struct mod_heat {
    const char *name;
    uint64_t self;
};

size_t profile_hot_nodebug(const struct profile *p, double min_share,
                           const char **mods, size_t max)
{
    uint64_t *self = p && p->nframes ? calloc(p->nframes, sizeof(*self))
                                     : NULL;
    struct mod_heat *m = NULL;
    size_t nm = 0, cap = 0, n = 0;
    uint64_t all = p ? p->nodes[PROFILE_ROOT].total : 0;

    if (!self || !all) {
        free(self);
        return 0;
    }
    for (uint32_t i = 1; i < p->nnodes; i++)
        if (p->nodes[i].frame < p->nframes)
            self[p->nodes[i].frame] += p->nodes[i].self;
    for (uint32_t f = 0; f < p->nframes; f++) {
        const struct frame_desc *d = &p->fd[f];
        size_t k = 0;

        if (!self[f] || !d->build_id || !d->module)
            continue;
        while (k < nm && strcmp(m[k].name, d->module) != 0)
            k++;
        if (k == nm) {
            if (VEC_RESERVE(m, cap, nm + 1) < 0)
                break;
            m[nm++] = (struct mod_heat){ d->module, 0 };
        }
        m[k].self += self[f];
    }
    /* the hot ones, hottest first (a few modules: a selection sort) */
    for (size_t i = 0; i < nm; i++) {
        size_t best = i;
        for (size_t k = i + 1; k < nm; k++)
            if (m[k].self > m[best].self)
                best = k;
        struct mod_heat t = m[i];
        m[i] = m[best];
        m[best] = t;
        if ((double)m[i].self < min_share * (double)all)
            break;
        if (n < max)
            mods[n] = m[i].name;
        n++;
    }
    free(m);
    free(self);
    return n;
}

size_t profile_command_members(const struct profile *p, const char *process,
                               int64_t *pids, size_t max, uint32_t *threads)
{
    size_t n = 0;

    *threads = 0;
    for (uint32_t t = 0; process && p && t < p->nthreads; t++) {
        uint32_t u = 0;

        /* merge_thread's rule: a known process of the same command */
        if (!p->th[t].pid || !same_str(p->th[t].process, process))
            continue;
        (*threads)++;
        while (u < t && p->th[u].pid != p->th[t].pid)
            u++;
        if (u < t)
            continue;
        if (n < max)
            pids[n] = p->th[t].pid;
        n++;
    }
    return n;
}

int profile_merge(struct profile *dst, const struct profile *src)
{
    return merge_impl(dst, src, false);
}

struct profile *profile_merge_commands(const struct profile *p)
{
    struct profile *q;

    /* a call graph knows no processes: nothing to merge */
    if (!profile_has_stacks(p))
        return profile_clone(p);
    q = profile_new();

    /* into an empty profile: its metadata is p's */
    if (q && (merge_impl(q, p, true) < 0 || count_processes(q, p) < 0)) {
        profile_free(q);
        return NULL;
    }
    return q;
}

static int merge_impl(struct profile *dst, const struct profile *src,
                      bool by_command)
{
    struct merge_ctx m = { .dst = dst, .k = 1 };
    struct merge_units u;
    uint32_t *fmap = NULL, *tmap = NULL;
    const struct profile_meta *sm = &src->meta;
    struct profile_meta meta;
    int rc = -1;

    if (profile_merge_refusal(dst, src))
        return PROFILE_MERGE_REFUSED;
    if (dst == src) {
        struct profile *copy = profile_clone(src);

        rc = copy ? merge_impl(dst, copy, by_command) : -1;
        profile_free(copy);
        return rc;
    }
    fmap = malloc((src->nframes ? src->nframes : 1) * sizeof(*fmap));
    tmap = malloc((src->nthreads ? src->nthreads : 1) * sizeof(*tmap));
    m.buf = malloc((src->max_depth ? src->max_depth : 1) * sizeof(*m.buf));
    if (!fmap || !tmap || !m.buf)
        goto out;
    for (uint32_t i = 0; i < src->nframes; i++) {
        fmap[i] = profile_intern_frame(dst, &src->fd[i]);
        if (fmap[i] == PROFILE_NONE)
            goto out;
    }
    for (uint32_t t = 0; t < src->nthreads; t++) {
        tmap[t] = merge_thread(dst, &src->th[t], by_command);
        if (tmap[t] == PROFILE_NONE ||
            (src->th[t].pid && !dst->th[tmap[t]].pid &&
             profile_thread_set_process(dst, tmap[t], src->th[t].pid,
                                        src->th[t].process) < 0))
            goto out;
    }
    m.fmap = fmap;
    m.tmap = tmap;
    u = merge_units(dst, src);
    /* Room first, so the rescaled dst cannot be left half merged. */
    if (profile_tree_reserve(dst, src->nnodes))
        goto out;
    profile_scale_weights(dst, u.fd);
    dst->unit_ns = u.unit;
    m.k = u.fs;
    if (profile_foreach_stack(src, merge_stack, &m) ||
        profile_lc_merge(&dst->lines, &src->lines, fmap, u.fs) ||
        profile_lc_merge(&dst->addrs, &src->addrs, fmap, u.fs))
        goto out;
    dst->nsamples += src->nsamples;
    /* dst's metadata wins; fields it never set are taken from src. */
    meta = dst->meta;
    meta.duration_ns += sm->duration_ns;
    if (!meta.pid)
        meta.pid = sm->pid;
    if (!meta.cmdline)
        meta.cmdline = sm->cmdline;
    if (!meta.comm)
        meta.comm = sm->comm;
    if (!meta.interval_ns)
        meta.interval_ns = sm->interval_ns;
    if (!meta.start_ns || (sm->start_ns && sm->start_ns < meta.start_ns))
        meta.start_ns = sm->start_ns;
    rc = profile_set_meta(dst, &meta);
out:
    free(fmap);
    free(tmap);
    free(m.buf);
    return rc;
}

/* --- late names ---------------------------------------------------------- */

/* Rebuild p's tree, counters and per-second ring with every frame id
 * mapped through fmap (some frames merged into others).  Built in a copy
 * and swapped in, so an OOM leaves p as it was.  0 or -1. */
static int remap_frames(struct profile *p, const uint32_t *fmap)
{
    struct profile *q = profile_copy(p, false);
    struct merge_ctx m = { .dst = q, .fmap = fmap, .k = 1 };
    uint32_t *tmap = malloc((p->nthreads ? p->nthreads : 1) * sizeof(*tmap));
    int rc = -1;

    m.buf = malloc((p->max_depth ? p->max_depth : 1) * sizeof(*m.buf));
    if (!q || !tmap || !m.buf)
        goto out;
    for (uint32_t t = 0; t < p->nthreads; t++)
        tmap[t] = t;
    m.tmap = tmap;
    profile_lc_clear(&q->lines);
    profile_lc_clear(&q->addrs);
    if (profile_foreach_stack(p, merge_stack, &m) ||
        profile_lc_merge(&q->lines, &p->lines, fmap, 1) ||
        profile_lc_merge(&q->addrs, &p->addrs, fmap, 1) ||
        profile_time_remap(q, p, tmap, fmap) < 0)
        goto out;
    q->nsamples = p->nsamples;
    struct profile tmp = *p;
    *p = *q;
    *q = tmp;
    rc = 0;
out:
    profile_free(q);
    free(tmap);
    free(m.buf);
    return rc;
}

int profile_rename_frames(struct profile *p, const struct profile_rename *r,
                          size_t n)
{
    uint32_t *fmap = NULL;
    bool merged = false;
    int rc = 0;

    if (!p)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t f = r[i].frame, g;

        if (f >= p->nframes || !r[i].to.name ||
            r[i].to.kind != p->fd[f].kind)
            continue;
        g = profile_frame_lookup(p, &r[i].to);
        if (g == f)
            continue;
        if (g == PROFILE_NONE) {
            if (profile_frame_set(p, f, &r[i].to) < 0)
                rc = -1;
            continue;
        }
        if (!fmap) {
            fmap = malloc(p->nframes * sizeof(*fmap));
            if (!fmap)
                return -1;
            for (uint32_t k = 0; k < p->nframes; k++)
                fmap[k] = k;
        }
        fmap[f] = g;
        merged = true;
    }
    if (merged) {
        /* f -> g where g itself merged on: follow to the end (a cycle,
         * which takes names swapped in one batch, stops after n steps). */
        for (uint32_t k = 0; k < p->nframes; k++)
            for (size_t hop = 0; hop < n && fmap[fmap[k]] != fmap[k]; hop++)
                fmap[k] = fmap[fmap[k]];
        if (remap_frames(p, fmap) < 0)
            rc = -1;
    }
    free(fmap);
    return rc;
}

/* --- derived views ------------------------------------------------------- */

struct derive_ctx {
    struct profile *q;
    const struct profile_filter *f;
    uint32_t *buf;    /* the levels, then the stack (reversed when
                         inverted) */
    uint32_t *proc;   /* with process_roots: each thread's process frame */
    uint32_t *kept;   /* with hide_kernel or python_only: the stack
                         without what they leave out */
};

static int derive_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                        size_t n, uint64_t count)
{
    struct derive_ctx *d = ctx;
    const struct profile_filter *f = d->f;
    uint32_t *out = d->buf;

    if (f->thread != PROFILE_NONE && f->thread != thread)
        return 0;
    if (f->pid && d->q->th[thread].pid != f->pid)
        return 0;
    if (f->focus != PROFILE_NONE) {
        size_t i = 0;

        while (i < n && frames[i] != f->focus)
            i++;
        if (i == n)
            return 0;
    }
    if (f->cpu != PROFILE_CPU_BOTH &&
        (n > 0 && d->q->fd[frames[n - 1]].kind == FRAME_REASON) !=
            (f->cpu == PROFILE_CPU_OFF))
        return 0;
    if (f->hide_kernel || f->python_only) {
        size_t k = 0, py = 0;

        for (size_t i = 0; f->python_only && i < n; i++)
            py += profile_frame_is_script(&d->q->fd[frames[i]]);
        for (size_t i = 0; i < n; i++) {
            const struct frame_desc *fd = &d->q->fd[frames[i]];

            if (f->hide_kernel && profile_frame_is_kernel(fd))
                continue;
            /* with script (Python, Ruby) frames: they, the special
             * frames and the off-CPU reason */
            if (py && !profile_frame_is_script(fd) &&
                fd->kind != FRAME_SPECIAL && fd->kind != FRAME_REASON)
                continue;
            d->kept[k++] = frames[i];
        }
        if (f->hide_kernel || py) {
            frames = d->kept;
            n = k;
        }
    }
    if (!f->process_roots && !f->inverted)
        return profile_tree_add(d->q, f->merge_threads ? PROFILE_ROOT
                                                       : d->q->th[thread].node,
                                frames, n, count);
    if (f->process_roots) {
        *out++ = d->proc[thread];
        if (!f->merge_threads)
            *out++ = d->q->th[thread].frame;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = frames[f->inverted ? n - 1 - i : i];
    n += (size_t)(out - d->buf);
    if (f->process_roots)
        return profile_tree_add(d->q, PROFILE_ROOT, d->buf, n, count);
    return profile_tree_add(d->q, f->merge_threads ? PROFILE_ROOT
                                                   : d->q->th[thread].node,
                            d->buf, n, count);
}

/* The process frame of every thread of q, interned into q and named by
 * profile_process_label; NULL on OOM. */
static uint32_t *process_frames(struct profile *q)
{
    uint32_t *proc = malloc((q->nthreads ? q->nthreads : 1) * sizeof(*proc));

    for (uint32_t t = 0; proc && t < q->nthreads; t++) {
        const struct profile_thread *th = &q->th[t];
        char name[256];

        profile_process_label(th, true, name, sizeof(name));
        struct frame_desc fd = { .name = name, .kind = FRAME_PROCESS,
                                 .addr = (uint64_t)th->pid };
        proc[t] = profile_intern_frame(q, &fd);
        if (proc[t] == PROFILE_NONE) {
            free(proc);
            return NULL;
        }
    }
    return proc;
}

int profile_intern_process_frames(struct profile *p)
{
    uint32_t *proc = process_frames(p);

    free(proc);
    return proc ? 0 : -1;
}

struct profile *profile_derive(const struct profile *p,
                               const struct profile_filter *f)
{
    struct derive_ctx d = { .f = f };

    if (!p || !f)
        return NULL;
    d.q = profile_copy(p, false);
    d.buf = malloc((p->max_depth + 2) * sizeof(*d.buf));
    if (f->hide_kernel || f->python_only)
        d.kept = malloc((p->max_depth + 1) * sizeof(*d.kept));
    if (((f->hide_kernel || f->python_only) && !d.kept) ||
        (d.q && f->process_roots && !(d.proc = process_frames(d.q)))) {
        profile_free(d.q);
        d.q = NULL;
    }
    if (!d.q || !d.buf || profile_foreach_stack(p, derive_stack, &d)) {
        profile_free(d.q);
        d.q = NULL;
    } else if (d.q->samples == p->samples) {
        d.q->nsamples = p->nsamples;  /* reshaped, nothing left out */
    } else {
        profile_count_from_weight(d.q);
    }
    free(d.buf);
    free(d.proc);
    free(d.kept);
    return d.q;
}

size_t profile_thread_reasons(const struct profile *p, uint32_t idx,
                              struct profile_reason_count *out, size_t cap)
{
    const struct profile_thread *th = profile_thread_at(p, idx);
    size_t n = 0;

    if (!th)
        return 0;
    /* Every node below the thread's, without a stack: down to the first
     * child, else across, else up until a parent has a next sibling. */
    for (uint32_t id = p->nodes[th->node].first_child; id != PROFILE_NONE;) {
        const struct profile_node *nd = &p->nodes[id];

        if (nd->self && p->fd[nd->frame].kind == FRAME_REASON) {
            size_t i = 0;

            while (i < n && i < cap && out[i].frame != nd->frame)
                i++;
            if (i < cap) {
                if (i == n)
                    out[n++] = (struct profile_reason_count){ nd->frame, 0 };
                out[i].samples += nd->self;
            }
        }
        if (nd->first_child != PROFILE_NONE) {
            id = nd->first_child;
            continue;
        }
        while (id != th->node && p->nodes[id].next_sibling == PROFILE_NONE)
            id = p->nodes[id].parent;
        id = id == th->node ? PROFILE_NONE : p->nodes[id].next_sibling;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && (out[j].samples > out[j - 1].samples ||
                                     (out[j].samples == out[j - 1].samples &&
                                      out[j].frame < out[j - 1].frame)); j--) {
            struct profile_reason_count t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Flat table: a walk that keeps, per frame, how many times it is on the
 * current path, and adds a node's total only at the topmost occurrence,
 * so recursion never counts a sample twice. */
struct flat_ctx {
    const struct profile *p;
    struct profile_flat *acc; /* by frame id */
    uint32_t *onpath;         /* by frame id */
    uint32_t nseen;           /* functions met so far */
};

static int flat_enter(void *ctx, uint32_t node)
{
    struct flat_ctx *c = ctx;
    const struct profile_node *n = &c->p->nodes[node];

    if (c->p->fd[n->frame].kind == FRAME_THREAD)
        return 0;
    /* Preorder meets a function first on the path of the first stack
     * that holds it, as profile_foreach_stack does: every leaf has self. */
    if (c->acc[n->frame].total == 0)
        c->acc[n->frame].first = c->nseen++;
    if (c->onpath[n->frame]++ == 0)
        c->acc[n->frame].total += n->total;
    c->acc[n->frame].self += n->self;
    /* the samples ending here have the frame onpath times in the stack */
    c->acc[n->frame].leaf_time += (double)n->self / c->onpath[n->frame];
    return 0;
}

static void flat_leave(void *ctx, uint32_t node)
{
    struct flat_ctx *c = ctx;
    const struct profile_node *n = &c->p->nodes[node];

    if (c->p->fd[n->frame].kind != FRAME_THREAD)
        c->onpath[n->frame]--;
}

/* Flat entries by one count descending, then the other, then frame id;
 * *by_total says which count comes first. */
static int cmp_flat(const void *a, const void *b, void *by_total)
{
    const struct profile_flat *x = a, *y = b;
    uint64_t x1 = x->self, x2 = x->total, y1 = y->self, y2 = y->total;

    if (*(const bool *)by_total) {
        x1 = x->total, x2 = x->self;
        y1 = y->total, y2 = y->self;
    }
    if (x1 != y1)
        return x1 < y1 ? 1 : -1;
    if (x2 != y2)
        return x2 < y2 ? 1 : -1;
    return (x->frame > y->frame) - (x->frame < y->frame);
}

/* profile_flat of a call graph: its rows, sorted as the tree's are. */
static long graph_flat(const struct profile *p, struct profile_flat **out)
{
    size_t n = p->graph->nflat;

    if (!(*out = malloc((n ? n : 1) * sizeof(**out))))
        return -1;
    memcpy(*out, p->graph->flat, n * sizeof(**out));
    sorted_sort_r(*out, n, sizeof(**out), cmp_flat, &(bool){ false });
    return (long)n;
}

void profile_flat_sort_total(struct profile_flat *v, size_t n)
{
    if (v && n > 1)
        sorted_sort_r(v, n, sizeof(*v), cmp_flat, &(bool){ true });
}

long profile_flat(const struct profile *p, struct profile_flat **out)
{
    size_t nf = p->nframes ? p->nframes : 1;
    struct flat_ctx c = { p, calloc(nf, sizeof(*c.acc)),
                          calloc(nf, sizeof(*c.onpath)), 0 };
    long n = 0;

    *out = NULL;
    if (!c.acc || !c.onpath) {
        free(c.acc);
        free(c.onpath);
        return -1;
    }
    if (p->graph) {
        free(c.acc);
        free(c.onpath);
        return graph_flat(p, out);
    }
    profile_tree_walk(p, PROFILE_ROOT, flat_enter, flat_leave, &c);
    for (uint32_t i = 0; i < p->nframes; i++)
        if (c.acc[i].total) {
            c.acc[n] = c.acc[i];
            c.acc[n++].frame = i;
        }
    free(c.onpath);
    sorted_sort_r(c.acc, (size_t)n, sizeof(*c.acc), cmp_flat, &(bool){ false });
    *out = c.acc;
    return n;
}

long profile_first_use(const struct profile *p, uint32_t **order,
                       uint32_t **index)
{
    size_t nf = p->nframes ? p->nframes : 1;  /* at least n */
    struct profile_flat *flat;
    long n = profile_flat(p, &flat);

    *order = malloc(nf * sizeof(**order));
    if (index)
        *index = malloc(nf * sizeof(**index));
    if (n < 0 || !*order || (index && !*index)) {
        free(flat);
        free(*order);
        *order = NULL;
        if (index) {
            free(*index);
            *index = NULL;
        }
        return -1;
    }
    if (index)
        memset(*index, 0xff, nf * sizeof(**index));
    for (long i = 0; i < n; i++) {
        (*order)[flat[i].first] = flat[i].frame;
        if (index)
            (*index)[flat[i].frame] = flat[i].first;
    }
    free(flat);
    return n;
}

/* Edges: accumulated in a dense array, indexed by (caller, callee). */
struct edge_acc {
    struct profile_edge e;
    uint64_t stamp;  /* stack that last counted e.samples */
};

struct edge_ctx {
    struct edge_acc *a;  /* edges found */
    size_t n;            /* edges used */
    size_t cap;          /* edges allocated */
    struct idtab ix;     /* util_mix64 of (caller, callee), a bijection,
                            -> index in a */
    uint32_t *occ;       /* per frame: occurrences in the current stack */
    bool *outer;         /* per depth: the frame's outermost occurrence */
    uint64_t stamp;      /* current stack */
};

static struct edge_acc *edge_get(struct edge_ctx *c, uint32_t caller,
                                 uint32_t callee)
{
    uint64_t h = util_mix64((uint64_t)caller << 32 | callee);
    uint32_t id = idtab_find(&c->ix, h, NULL, NULL);

    if (id != IDTAB_NONE)
        return &c->a[id];
    if (c->n >= ID_LIMIT || VEC_RESERVE(c->a, c->cap, c->n + 1) < 0 ||
        idtab_insert(&c->ix, h, (uint32_t)c->n) < 0)
        return NULL;
    id = (uint32_t)c->n++;
    c->a[id] = (struct edge_acc){ .e = { .caller = caller, .callee = callee,
                                         .seq = id } };
    return &c->a[id];
}

/* Racket's connect for the pair ending at depth i of the stack. */
static int edge_count(struct edge_ctx *c, const uint32_t *frames, size_t i,
                      uint64_t count)
{
    uint32_t caller = i ? frames[i - 1] : PROFILE_NONE, callee = frames[i];
    struct edge_acc *e = edge_get(c, caller, callee);

    if (!e)
        return -1;
    e->e.caller_time += (double)count / c->occ[callee];
    e->e.callee_time += (double)count / (i ? c->occ[caller] : 1);
    if (e->stamp != c->stamp) {
        e->stamp = c->stamp;
        e->e.samples += count;
    }
    if (c->outer[i])
        e->e.outer += count;
    return 0;
}

static int edge_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t count)
{
    struct edge_ctx *c = ctx;
    int rc = 0;

    (void)thread;
    c->stamp++;
    for (size_t i = 0; i < n; i++)
        c->outer[i] = c->occ[frames[i]]++ == 0;
    /* Racket's order: the bottom edge, then the pairs from the leaf. */
    if (n)
        rc = edge_count(c, frames, 0, count);
    for (size_t i = n; i-- > 1 && rc == 0;)
        rc = edge_count(c, frames, i, count);
    for (size_t i = 0; i < n; i++)
        c->occ[frames[i]]--;
    return rc;
}

static int cmp_edge(const void *a, const void *b)
{
    const struct profile_edge *x = a, *y = b;

    return util_cmp_pair(x->caller, x->callee, y->caller, y->callee);
}

long profile_edges(const struct profile *p, struct profile_edge **out)
{
    struct edge_ctx c = { 0 };
    struct profile_edge *res = NULL;
    long n = -1;

    *out = NULL;
    if (p->graph) {
        size_t ne = p->graph->nedges;

        if (!(res = malloc((ne ? ne : 1) * sizeof(*res))))
            return -1;
        memcpy(res, p->graph->edges, ne * sizeof(*res));
        sorted_sort(res, ne, sizeof(*res), cmp_edge);
        *out = res;
        return (long)ne;
    }
    c.occ = calloc(p->nframes ? p->nframes : 1, sizeof(*c.occ));
    c.outer = malloc((p->max_depth ? p->max_depth : 1) * sizeof(*c.outer));
    if (!c.occ || !c.outer || profile_foreach_stack(p, edge_stack, &c))
        goto out;
    res = malloc((c.n ? c.n : 1) * sizeof(*res));
    if (!res)
        goto out;
    for (size_t i = 0; i < c.n; i++)
        res[i] = c.a[i].e;
    sorted_sort(res, c.n, sizeof(*res), cmp_edge);
    *out = res;
    n = (long)c.n;
out:
    free(c.occ);
    free(c.outer);
    free(c.a);
    idtab_free(&c.ix);
    return n;
}
