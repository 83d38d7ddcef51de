/* profile_fold.c - exited processes folded by command; see profile.h
 * ("exited processes") for what it promises.
 *
 * profile_fold_processes builds a new profile from the old one: the
 * same frame ids (the folded threads' FRAME_THREAD frames become free
 * ones, named "" and out of the index, which aggregates, new threads
 * and new frames take), the threads that stay in their order, then the
 * aggregates;
 * the tree copied node by node, each thread's below its new thread
 * node; the per-second ring remapped (profile_time_remap); then the
 * frames nothing uses freed, and the line and address counts copied but
 * theirs (sweep_frames).  Strings are interned again from what is left,
 * so the arena sheds the names of the threads folded away.  O(nodes +
 * frames + threads + the ring's samples): the collector calls it for a
 * batch of exited processes at a time.
 */
#include "profile_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vec.h"
#include "sorted.h"


/* A thread of the new profile. */
struct fthread {
    int32_t from;       /* the old thread it is, or -1: a new aggregate */
    uint32_t name;      /* string ids in the OLD profile */
    uint32_t proc;
    int64_t tid, pid;
    uint32_t frame;     /* frame id (PROFILE_NONE: give it one) */
    uint32_t exited;    /* exited processes it holds */
    uint64_t serial;    /* the old thread's, or 0: a new aggregate's */
    bool dead;          /* the exited threads of a live process */
    uint32_t had;       /* ...before this fold */
    uint32_t total;     /* what every aggregate of its command holds */
};

struct plan {
    const struct profile *p;
    uint32_t *tmap;         /* old thread -> new thread */
    struct fthread *th;     /* new threads */
    size_t nth, capth;
    bool *free_frame;       /* per frame: free in the new profile */
    int64_t next_agg;
};

static int pid_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The index of pid in pids (sorted), or -1. */
static long folded(const int64_t *pids, size_t n, int64_t pid)
{
    const int64_t *at = pid ? bsearch(&pid, pids, n, sizeof(*pids), pid_cmp)
                            : NULL;

    return at ? (long)(at - pids) : -1;
}

/* The command a thread's process goes by: its process name, else its
 * own name (string ids of the old profile). */
static uint32_t command_of(const struct profile *p, uint32_t t)
{
    return p->th_proc[t] != STR_NULL ? p->th_proc[t] : p->th_name[t];
}

/* The aggregate (new index) of command `cmd` and thread name `name`,
 * made when there is none; PROFILE_NONE on OOM. */
static uint32_t aggregate(struct plan *pl, uint32_t cmd, uint32_t name)
{
    int64_t pid = 0;

    for (size_t i = 0; i < pl->nth; i++) {
        struct fthread *f = &pl->th[i];

        if ((!f->exited && f->from >= 0) || f->dead || f->proc != cmd)
            continue;  /* not an aggregate, or another command's */
        if (f->name == name)
            return (uint32_t)i;
        pid = f->pid;
    }
    if (VEC_RESERVE(pl->th, pl->capth, pl->nth + 1) < 0)
        return PROFILE_NONE;
    if (!pid)
        pid = --pl->next_agg;
    pl->th[pl->nth] = (struct fthread){
        .from = -1, .name = name, .proc = cmd, .tid = --pl->next_agg,
        .pid = pid, .frame = PROFILE_NONE,
    };
    return (uint32_t)pl->nth++;
}

/* The thread (new index) of the exited threads named `name` of live
 * process pid (an old one: a negative tid, no exited processes), made
 * when there is none; PROFILE_NONE on OOM. */
static uint32_t dead_threads(struct plan *pl, int64_t pid, uint32_t proc,
                             uint32_t name)
{
    for (size_t i = 0; i < pl->nth; i++) {
        const struct fthread *f = &pl->th[i];

        if (f->pid == pid && f->name == name && f->tid < 0 && !f->exited)
            return (uint32_t)i;
    }
    if (VEC_RESERVE(pl->th, pl->capth, pl->nth + 1) < 0)
        return PROFILE_NONE;
    pl->th[pl->nth] = (struct fthread){
        .from = -1, .name = name, .proc = proc, .tid = --pl->next_agg,
        .pid = pid, .frame = PROFILE_NONE, .dead = true,
    };
    return (uint32_t)pl->nth++;
}

/* Whether live thread th is one of threads[0..m) (sorted keys). */
static bool thread_gone(const struct profile_thread *th,
                        const int64_t *threads, size_t m)
{
    int64_t k = profile_thread_key(th->pid, th->tid);

    return !th->exited && th->tid > 0 && th->tid != th->pid &&
           bsearch(&k, threads, m, sizeof(*threads), pid_cmp);
}

/* The threads that stay (aggregates among them), in their order: each
 * one's new index in tmap, the others' PROFILE_NONE.  0 or -1 on OOM. */
static int plan_kept(struct plan *pl, const int64_t *pids, size_t n,
                     const int64_t *threads, size_t m)
{
    const struct profile *p = pl->p;

    for (uint32_t t = 0; t < p->nthreads; t++) {
        const struct profile_thread *th = &p->th[t];

        pl->tmap[t] = PROFILE_NONE;
        if (!th->exited && (folded(pids, n, th->pid) >= 0 ||
                            thread_gone(th, threads, m)))
            continue;
        if (VEC_RESERVE(pl->th, pl->capth, pl->nth + 1) < 0)
            return -1;
        pl->th[pl->nth] = (struct fthread){
            .from = (int32_t)t, .name = p->th_name[t],
            .proc = th->exited ? command_of(p, t) : p->th_proc[t],
            .tid = th->tid, .pid = th->pid, .frame = th->frame,
            .exited = th->exited, .had = th->exited, .serial = th->serial,
        };
        pl->tmap[t] = (uint32_t)pl->nth++;
    }
    return 0;
}

/* Each thread that does not stay into its aggregate: a live process's
 * into its exited threads, an exited process's into its command's, each
 * exited process counted once, in the first of its aggregates
 * (counted: per pid, the command last counted + 1; two processes of one
 * pid, the pid reused, each count in their command's, the second's
 * threads coming after the first's).  0 or -1 on OOM. */
static int plan_folded(struct plan *pl, const int64_t *pids, size_t n,
                       uint32_t *counted)
{
    const struct profile *p = pl->p;

    for (uint32_t t = 0; t < p->nthreads; t++) {
        const struct profile_thread *th = &p->th[t];
        long k = folded(pids, n, th->pid);
        uint32_t a;

        if (pl->tmap[t] != PROFILE_NONE)
            continue;
        uint32_t cmd = command_of(p, t);
        a = k < 0 ? dead_threads(pl, th->pid, p->th_proc[t], p->th_name[t])
                  : aggregate(pl, cmd, p->th_name[t]);
        if (a == PROFILE_NONE)
            return -1;
        pl->tmap[t] = a;
        pl->free_frame[th->frame] = true;
        if (k >= 0 && counted[k] != cmd + 1) {
            counted[k] = cmd + 1;
            pl->th[a].exited++;
        }
    }
    return 0;
}

/* Every aggregate of a command: how many exited processes it has, what
 * its aggregates had (the same in each) plus what they gained. */
static void plan_totals(struct plan *pl)
{
    for (size_t i = 0; i < pl->nth; i++) {
        struct fthread *f = &pl->th[i];
        uint32_t had = 0, gained = 0;

        if ((!f->exited && f->from >= 0) || f->dead)
            continue;
        for (size_t j = 0; j < pl->nth; j++) {
            const struct fthread *g = &pl->th[j];

            if (g->proc != f->proc || (!g->exited && g->from >= 0) ||
                g->dead)
                continue;
            if (g->had > had)
                had = g->had;
            gained += g->exited - g->had;
        }
        f->total = had + gained;
    }
    for (size_t i = 0; i < pl->nth; i++)
        if ((pl->th[i].exited || pl->th[i].from < 0) && !pl->th[i].dead)
            pl->th[i].exited = pl->th[i].total;
}

/* Which threads stay, which fold into which aggregate, and how many
 * processes each command's aggregates gain.  0 or -1 on OOM. */
static int make_plan(struct plan *pl, const int64_t *pids, size_t n,
                     const int64_t *threads, size_t m)
{
    const struct profile *p = pl->p;
    uint32_t *counted = calloc(n ? n : 1, sizeof(*counted)); /* per pid */
    int rc = -1;

    pl->tmap = malloc((p->nthreads ? p->nthreads : 1) * sizeof(*pl->tmap));
    pl->free_frame = calloc(p->nframes ? p->nframes : 1,
                            sizeof(*pl->free_frame));
    if (pl->tmap && pl->free_frame && counted) {
        for (uint32_t i = 0; i < p->nfree; i++)
            pl->free_frame[p->free_frames[i]] = true;
        for (size_t i = 0; i < p->ncool; i++)
            pl->free_frame[p->cool_frames[i]] = true;
        if (plan_kept(pl, pids, n, threads, m) == 0 &&
            plan_folded(pl, pids, n, counted) == 0) {
            plan_totals(pl);
            rc = 0;
        }
    }
    free(counted);
    return rc;
}

static uint32_t aggregate_frame(struct profile *q, const struct profile *p,
                                const struct fthread *f);

/* q's frames: p's, with the same ids, strings interned in q; the free
 * ones named "" and left out of the index.  0 or -1 on OOM. */
static int copy_frames(struct profile *q, const struct profile *p,
                       const bool *free_frame)
{
    uint32_t empty = profile_str_intern(q, "");
    size_t nfree = 0;

    if (empty == PROFILE_NONE ||
        VEC_RESERVE(q->fd, q->fd_cap, p->nframes ? p->nframes : 1) < 0 ||
        VEC_RESERVE(q->fid, q->fid_cap, p->nframes ? p->nframes : 1) < 0 ||
        idtab_reserve(&q->frame_ix, p->nframes) < 0)
        return -1;
    for (uint32_t id = 0; id < p->nframes; id++)
        nfree += free_frame[id];
    if (VEC_RESERVE(q->free_frames, q->free_cap, nfree ? nfree : 1) < 0)
        return -1;
    for (uint32_t id = 0; id < p->nframes; id++) {
        const struct frame_desc *d = &p->fd[id];

        q->fd[id] = *d;
        if (free_frame[id]) {
            q->fd[id] = (struct frame_desc){ .kind = FRAME_THREAD };
            q->fid[id] = (struct frame_ids){ empty, STR_NULL, STR_NULL,
                                             STR_NULL };
            q->free_frames[q->nfree++] = id;
            q->fd[id].name = profile_str(q, empty);
            continue;
        }
        q->fid[id] = (struct frame_ids){
            profile_str_intern(q, d->name), profile_str_intern(q, d->module),
            profile_str_intern(q, d->file), profile_str_intern(q, d->build_id),
        };
        if (q->fid[id].name == PROFILE_NONE ||
            q->fid[id].module == PROFILE_NONE ||
            q->fid[id].file == PROFILE_NONE ||
            q->fid[id].build_id == PROFILE_NONE)
            return -1;
        q->nframes = id + 1;
        profile_frame_adopt(q, id);
    }
    q->nframes = p->nframes;
    return 0;
}

/* q's threads, as the plan says, with empty thread nodes.  0 or -1. */
static int copy_threads(struct profile *q, const struct plan *pl)
{
    const struct profile *p = pl->p;
    size_t n = pl->nth ? pl->nth : 1;

    if (VEC_RESERVE(q->th, q->th_cap, n) < 0 ||
        VEC_RESERVE(q->th_name, q->th_name_cap, n) < 0 ||
        VEC_RESERVE(q->th_proc, q->th_proc_cap, n) < 0 ||
        idtab_reserve(&q->tid_ix, pl->nth) < 0)
        return -1;
    for (size_t i = 0; i < pl->nth; i++) {
        const struct fthread *f = &pl->th[i];
        uint32_t name = profile_str_intern(q, profile_str(p, f->name));
        uint32_t proc = profile_str_intern(q, profile_str(p, f->proc));
        uint32_t frame = f->frame != PROFILE_NONE ? f->frame
                                                  : aggregate_frame(q, p, f);

        if (name == PROFILE_NONE || proc == PROFILE_NONE ||
            frame == PROFILE_NONE)
            return -1;
        q->th[i] = (struct profile_thread){
            .tid = f->tid, .name = profile_str(q, name), .frame = frame,
            .pid = f->pid, .process = profile_str(q, proc),
            .exited = f->exited,
            .serial = f->serial ? f->serial : ++q->serial,
        };
        q->th_name[i] = name;
        q->th_proc[i] = proc;
        q->nthreads = (uint32_t)i + 1;
    }
    /* newest first: of two threads with one tid (a tid reused by another
     * process, profile_process_thread), a find by the tid alone gives
     * the newer */
    for (size_t i = pl->nth; i-- > 0;)
        (void)idtab_insert(&q->tid_ix, util_mix64((uint64_t)pl->th[i].tid),
                           (uint32_t)i);
    return 0;
}

/* recopy's map: a node cut, or below one, maps to the "[rare stacks]"
 * node it went into, marked with this bit (node ids stay below
 * ID_LIMIT). */
#define CUT_BIT 0x80000000u

/* Copying p's tree into q node by node: map[old node] is its node in q,
 * PROFILE_NONE for one left out, "[rare stacks]" | CUT_BIT for one cut. */
struct recopy {
    const struct profile *p;
    struct profile *q;
    uint32_t *map;
    uint64_t min_total;  /* the thread walked now: cut below this weight
                            (0: a live thread, never cut) */
    bool folded;         /* the thread walked now is a folded one */
    uint32_t rare;       /* the "[rare stacks]" frame, when cutting */
    uint64_t folded_nodes, cut_nodes, cut_weight;
};

/* The child of par in q with frame `frame`, made when new; PROFILE_NONE
 * on OOM. */
static uint32_t recopy_child(struct recopy *r, uint32_t par, uint32_t frame)
{
    uint32_t c = profile_tree_find(r->q, par, frame);

    if (c == PROFILE_NONE) {
        if (profile_tree_reserve(r->q, 1) < 0)
            return PROFILE_NONE;
        c = profile_tree_node_add(r->q, par, frame);
        r->folded_nodes += r->folded;
    }
    return c;
}

/* Add these weights to node c of q. */
static void recopy_add(struct recopy *r, uint32_t c, uint64_t total,
                       uint64_t self)
{
    r->q->nodes[c].total += total;
    r->q->nodes[c].self += self;
    r->q->samples += self;
}

/* Node n, cut (or below a cut) into "[rare stacks]" node rare: what
 * ends in it goes to rare's child of its frame, so every function keeps
 * its self weight; the frames between are left out.  -1 on OOM. */
static int recopy_cut(struct recopy *r, uint32_t n, uint32_t rare)
{
    const struct profile_node *o = &r->p->nodes[n];
    uint32_t c;

    r->map[n] = rare | CUT_BIT;
    r->cut_nodes++;
    if (!o->self)
        return 0;
    if ((c = recopy_child(r, rare, o->frame)) == PROFILE_NONE)
        return -1;
    recopy_add(r, c, o->self, o->self);
    return 0;
}

/* Node n goes under its parent's node in q (found, or made), with its
 * weights; a node with no weight is left out with all below it, as
 * re-adding p's stacks would leave it; a folded thread's node under
 * min_total goes, with all below it, into its parent's "[rare stacks]"
 * (recopy_cut), and one that is a child of "[rare stacks]" already
 * ends there (its whole weight the rare node's self).  Non-zero on
 * OOM. */
static int recopy_enter(void *ctx, uint32_t n)
{
    struct recopy *r = ctx;
    const struct profile_node *o = &r->p->nodes[n];
    uint32_t par = r->map[o->parent], c;

    if (par != PROFILE_NONE && (par & CUT_BIT))
        return recopy_cut(r, n, par & ~CUT_BIT);
    r->map[n] = PROFILE_NONE;
    if (par == PROFILE_NONE || !o->total)
        return 0;
    if (o->total < r->min_total && r->q->nodes[par].frame == r->rare) {
        /* a function rare even among the rare stacks: its samples end
         * in "[rare stacks]" itself, so these leaves stay few too */
        recopy_add(r, par, 0, o->total);
        r->cut_nodes++;
        return 0;
    }
    if (o->total < r->min_total && o->frame != r->rare) {
        if ((c = recopy_child(r, par, r->rare)) == PROFILE_NONE)
            return -1;
        recopy_add(r, c, o->total, 0);
        r->cut_weight += o->total;
        return recopy_cut(r, n, c);
    }
    if ((c = recopy_child(r, par, o->frame)) == PROFILE_NONE)
        return -1;
    recopy_add(r, c, o->total, o->self);
    r->map[n] = c;
    return 0;
}

/* q's tree (thread nodes made, empty): every thread t of p's below
 * q's thread tmap[t], summed where two meet, the rare stacks of folded
 * threads cut (q->cut.min_total).  O(nodes of p): one probe per node,
 * where re-adding each stack from its thread would probe once per frame
 * of every stack.  Room for p's count is made at once when nothing is
 * cut (else as needed).  0 or -1 on OOM (q's tree half
 * made). */
static int recopy_tree(struct profile *q, const struct profile *p,
                       const uint32_t *tmap)
{
    struct recopy r = { p, q, malloc(p->nnodes * sizeof(uint32_t)), 0,
                        false, PROFILE_NONE, 0, 0, 0 };
    if (q->cut.min_total)
        r.rare = profile_intern_frame(q, &(struct frame_desc){
                     .name = PROFILE_RARE_STACKS, .kind = FRAME_SPECIAL });
    /* room for all of p's nodes at once, but when cutting (a cut keeps
     * few of them: the index would be written for all, in pages RSS
     * keeps) */
    if (!r.map || (q->cut.min_total && r.rare == PROFILE_NONE) ||
        (!q->cut.min_total && profile_tree_reserve(q, p->nnodes) < 0)) {
        free(r.map);
        return -1;
    }
    r.map[PROFILE_ROOT] = PROFILE_NONE;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        const struct profile_node *o = &p->nodes[p->th[t].node];
        uint32_t tn = q->th[tmap[t]].node;

        r.folded = profile_thread_is_folded(&q->th[tmap[t]]);
        r.min_total = r.folded ? q->cut.min_total : 0;
        r.map[p->th[t].node] = tn;
        q->nodes[tn].total += o->total;
        q->nodes[tn].self += o->self;
        q->nodes[PROFILE_ROOT].total += o->total;
        q->samples += o->self;
        if (profile_tree_walk(p, p->th[t].node, recopy_enter, NULL, &r)) {
            free(r.map);
            return -1;
        }
    }
    free(r.map);
    q->cut.folded_nodes = r.folded_nodes;
    q->cut.nodes += r.cut_nodes;
    q->cut.weight += r.cut_weight;
    return 0;
}

static int weight_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x < y) - (x > y);
}

struct gather {
    const struct profile *p;
    uint64_t *v;
    size_t n, cap;
};

/* A node's total into g (the walk stops when it is full). */
static int gather_enter(void *ctx, uint32_t node)
{
    struct gather *g = ctx;

    if (g->n == g->cap)
        return 1;
    g->v[g->n++] = g->p->nodes[node].total;
    return 0;
}

/* When q keeps more nodes below folded threads than budget: raise
 * q->cut.min_total so that the next fold keeps at most budget / 2 of
 * them (those heavier than the (budget / 2 + 1)-th heaviest).  0 or -1
 * on OOM (nothing changed). */
static int plan_cut(struct profile *q, uint64_t budget)
{
    struct gather g = { q, NULL, 0, (size_t)q->cut.folded_nodes };
    size_t keep = (size_t)(budget / 2);

    if (!budget || q->cut.folded_nodes <= budget)
        return 0;
    if (!(g.v = malloc(g.cap * sizeof(*g.v))))
        return -1;
    for (uint32_t t = 0; t < q->nthreads; t++)
        if (profile_thread_is_folded(&q->th[t]))
            (void)profile_tree_walk(q, q->th[t].node, gather_enter, NULL, &g);
    if (g.n > keep) {
        sorted_sort(g.v, g.n, sizeof(*g.v), weight_desc);
        if (g.v[keep] + 1 > q->cut.min_total) {
            q->cut.min_total = g.v[keep] + 1;
            q->cut.cuts++;
        }
    }
    free(g.v);
    return 0;
}

/* Which of q's frames are used: by a node of its tree, a thread, a
 * sample of its ring, or keep[0..nkeep) (ids the collector holds).
 * A calloc'd array by frame id, NULL on OOM. */
static bool *frames_used(const struct profile *q, const uint32_t *keep,
                         size_t nkeep)
{
    bool *used = calloc(q->nframes ? q->nframes : 1, sizeof(*used));

    if (!used)
        return NULL;
    for (uint32_t n = 1; n < q->nnodes; n++)
        used[q->nodes[n].frame] = true;
    for (uint32_t t = 0; t < q->nthreads; t++)
        used[q->th[t].frame] = true;
    profile_time_frames(q->time, used, q->nframes);
    for (size_t i = 0; i < nkeep; i++)
        if (keep[i] < q->nframes)
            used[keep[i]] = true;
    return used;
}

/* Free q's frames that nothing uses (the functions of stacks cut into
 * "[rare stacks]", of the old names late names replaced): named "" and
 * out of reach of the frame index as the folded threads' are, onto the
 * list that frees them at the next fold (cool_frames: a view's id does
 * not name another function in the refresh after).  Their strings go
 * at the next fold, which interns only the names in use.  0 or -1 on
 * OOM (nothing freed). */
static int free_unused(struct profile *q, const bool *used)
{
    uint32_t empty = profile_str_intern(q, "");
    size_t n = 0;

    for (uint32_t id = 0; id < q->nframes; id++)
        n += !used[id] && q->fd[id].name[0];
    if (empty == PROFILE_NONE ||
        VEC_RESERVE(q->cool_frames, q->cool_cap, q->ncool + n + 1) < 0)
        return -1;
    for (uint32_t id = 0; id < q->nframes; id++) {
        if (used[id] || !q->fd[id].name[0])
            continue;
        q->fd[id] = (struct frame_desc){ .kind = FRAME_THREAD,
                                         .name = profile_str(q, empty) };
        q->fid[id] = (struct frame_ids){ empty, STR_NULL, STR_NULL,
                                         STR_NULL };
        q->cool_frames[q->ncool++] = id;
    }
    return 0;
}

/* q's counters (p's, but those of frames nothing uses) and frames (those
 * freed): 0 or -1 on OOM. */
static int sweep_frames(struct profile *q, const struct profile *p,
                        const uint32_t *keep, size_t nkeep)
{
    bool *used = frames_used(q, keep, nkeep);
    int rc = -1;

    if (used && profile_lc_copy_kept(&q->lines, &p->lines, used) == 0 &&
        profile_lc_copy_kept(&q->addrs, &p->addrs, used) == 0 &&
        free_unused(q, used) == 0)
        rc = 0;
    free(used);
    return rc;
}

void profile_cut_get(const struct profile *p, struct profile_cut *out)
{
    *out = p->cut;
}

/* In a second pass over a fold's own result p: p's frames freed by the
 * first pass stay cool in q (copy_frames made them free), as they were
 * never out of sight for one fold.  0 or -1 on OOM. */
static int keep_cool(struct profile *q, const struct profile *p)
{
    bool *cool = calloc(q->nframes ? q->nframes : 1, sizeof(*cool));
    uint32_t w = 0;

    if (!cool || VEC_RESERVE(q->cool_frames, q->cool_cap,
                             q->ncool + p->ncool + 1) < 0) {
        free(cool);
        return -1;
    }
    for (size_t i = 0; i < p->ncool; i++) {
        cool[p->cool_frames[i]] = true;
        q->cool_frames[q->ncool++] = p->cool_frames[i];
    }
    for (uint32_t i = 0; i < q->nfree; i++)
        if (!cool[q->free_frames[i]])
            q->free_frames[w++] = q->free_frames[i];
    q->nfree = w;
    free(cool);
    return 0;
}

/* One copy of p with those folded (profile_fold_processes); `again`:
 * p is this fold's first pass (keep_cool). */
static struct profile *fold_once(const struct profile *p,
                                 const int64_t *pids_in, size_t n,
                                 const int64_t *threads_in, size_t m,
                                 uint64_t budget, const uint32_t *keep,
                                 size_t nkeep, bool again)
{
    struct plan pl = { .p = p, .next_agg = p->next_agg ? p->next_agg
                                                       : PROFILE_AGG_ID_TOP };
    struct profile *q = NULL;
    int64_t *pids = malloc((n ? n : 1) * sizeof(*pids));
    int64_t *threads = malloc((m ? m : 1) * sizeof(*threads));
    bool ok = false;

    if (!pids || !threads || !profile_has_stacks(p))
        goto out;
    if (n)
        memcpy(pids, pids_in, n * sizeof(*pids));
    if (m)
        memcpy(threads, threads_in, m * sizeof(*threads));
    sorted_sort(pids, n, sizeof(*pids), pid_cmp);
    sorted_sort(threads, m, sizeof(*threads), pid_cmp);
    if (make_plan(&pl, pids, n, threads, m) < 0 ||
        !(q = calloc(1, sizeof(*q))))
        goto out;
    q->meta_cmdline = q->meta_comm = STR_NULL;
    q->unit_ns = p->unit_ns;
    q->next_agg = pl.next_agg;
    q->serial = p->serial;
    q->cut = p->cut;
    if (copy_frames(q, p, pl.free_frame) < 0 ||
        (again && keep_cool(q, p) < 0) || copy_threads(q, &pl) < 0 ||
        profile_tree_reserve(q, 1 + (uint64_t)q->nthreads) < 0)
        goto out;
    profile_tree_rebuild(q);
    if (recopy_tree(q, p, pl.tmap) < 0 || plan_cut(q, budget) < 0 ||
        profile_time_remap(q, p, pl.tmap, NULL) < 0 ||
        sweep_frames(q, p, keep, nkeep) < 0 ||
        profile_set_meta(q, &p->meta) < 0)
        goto out;
    q->nsamples = p->nsamples;
    q->stamp = p->stamp;
    ok = true;
out:
    free(pids);
    free(threads);
    free(pl.tmap);
    free(pl.th);
    free(pl.free_frame);
    if (!ok) {
        profile_free(q);
        q = NULL;
    }
    return q;
}

struct profile *profile_fold_processes(const struct profile *p,
                                       const int64_t *pids, size_t n,
                                       const int64_t *threads, size_t m,
                                       uint64_t budget, const uint32_t *keep,
                                       size_t nkeep)
{
    struct profile *q = fold_once(p, pids, n, threads, m, budget, keep,
                                  nkeep, false), *r;

    /* Past the budget, more passes over the result cut in this fold, not
     * the next one, so the nodes kept stay within the budget however
     * many a fold brings: the second cuts below the weight the first
     * picked, the third weighs the leaves the second put below
     * "[rare stacks]" (summed only as it made them). */
    for (int pass = 1; pass < 3 && q != NULL && budget &&
                       q->cut.folded_nodes > budget; pass++) {
        r = fold_once(q, NULL, 0, NULL, 0, budget, keep, nkeep, true);
        if (r == NULL)
            break;  /* out of memory: the next fold cuts */
        profile_free(q);
        q = r;
    }
    return q;
}

#define EXITED_SUFFIX " (exited)"

/* The frame name of the aggregate of command cmd's threads named name:
 * "NAME (exited)", or "COMMAND: NAME (exited)" when the thread is not
 * named as its command, then "#K" for the K-th of that name (K > 1). */
static void exited_frame_name(char *buf, size_t cap, const char *cmd,
                              const char *name, unsigned k)
{
    int len = strcmp(name, cmd) == 0
                  ? snprintf(buf, cap, "%s" EXITED_SUFFIX, name)
                  : snprintf(buf, cap, "%s: %s" EXITED_SUFFIX, cmd, name);

    if (k > 1 && len >= 0 && (size_t)len < cap)
        snprintf(buf + len, cap - (size_t)len, "#%u", k);
}

/* A name for the FRAME_THREAD frame of the aggregate of cmd's threads
 * named name that no frame of q has, into *buf (malloc'd).  -1 on OOM. */
static int exited_frame_pick(const struct profile *q, const char *cmd,
                             const char *name, char **buf)
{
    size_t cap = strlen(name) + strlen(cmd) + 48;

    if (!(*buf = malloc(cap)))
        return -1;
    for (unsigned k = 1; k < 1000000; k++) {
        struct frame_desc d = { .name = *buf, .kind = FRAME_THREAD };

        exited_frame_name(*buf, cap, cmd, name, k);
        if (profile_frame_lookup(q, &d) == PROFILE_NONE)
            return 0;
    }
    free(*buf);
    return -1;
}

/* A FRAME_THREAD frame for that aggregate (a free frame when q has
 * one).  PROFILE_NONE on OOM. */
static uint32_t exited_frame(struct profile *q, const char *cmd,
                             const char *name)
{
    char *buf;
    uint32_t id;

    if (exited_frame_pick(q, cmd, name, &buf) < 0)
        return PROFILE_NONE;
    struct frame_desc d = { .name = buf, .kind = FRAME_THREAD };

    if (q->nfree > 0 &&
        profile_frame_set(q, q->free_frames[q->nfree - 1], &d) == 0)
        id = q->free_frames[--q->nfree];
    else
        id = profile_intern_frame(q, &d);
    free(buf);
    return id;
}

/* An aggregate with no frame yet gets one (exited_frame). */
static uint32_t aggregate_frame(struct profile *q, const struct profile *p,
                                const struct fthread *f)
{
    const char *name = profile_str(p, f->name);
    const char *proc = profile_str(p, f->proc);

    return exited_frame(q, proc ? proc : name, name);
}

bool profile_exited_parse(const char *proc, const char *thread, char *cmd,
                          size_t ncmd, char *name, size_t nname,
                          uint32_t *exited)
{
    /* "COMMAND (N exited)", N with commas between groups of three */
    size_t pl = strlen(proc), tl = strlen(thread);
    const char *open = strrchr(proc, '(');
    const char *tail = " exited)";
    uint64_t n = 0;

    if (!open || open == proc || open[-1] != ' ' || pl < strlen(tail) ||
        strcmp(proc + pl - strlen(tail), tail) != 0)
        return false;
    for (const char *c = open + 1; c < proc + pl - strlen(tail); c++) {
        if (*c == ',')
            continue;
        if (*c < '0' || *c > '9' || n > UINT32_MAX / 10)
            return false;
        n = n * 10 + (uint64_t)(*c - '0');
    }
    if (n == 0 || n > UINT32_MAX)
        return false;
    size_t cl = (size_t)(open - 1 - proc);
    /* "NAME (exited)", "COMMAND: NAME (exited)", maybe "#K" after */
    const char *end = strstr(thread, EXITED_SUFFIX);
    if (!end || cl == 0)
        return false;
    const char *after = end + strlen(EXITED_SUFFIX);
    if (*after == '#')
        for (after++; *after >= '0' && *after <= '9'; after++)
            ;
    if (*after || (size_t)(end - thread) > tl)
        return false;
    const char *nm = thread;
    if ((size_t)(end - thread) > cl + 2 && strncmp(thread, proc, cl) == 0 &&
        thread[cl] == ':' && thread[cl + 1] == ' ')
        nm = thread + cl + 2;
    if (end == nm)
        return false;
    snprintf(cmd, ncmd, "%.*s", (int)cl, proc);
    snprintf(name, nname, "%.*s", (int)(end - nm), nm);
    *exited = (uint32_t)n;
    return true;
}

uint32_t profile_exited_thread(struct profile *p, const char *cmd,
                               const char *name, uint32_t exited)
{
    int64_t pid = 0;
    uint32_t found = PROFILE_NONE;

    for (uint32_t t = 0; t < p->nthreads; t++) {
        struct profile_thread *th = &p->th[t];

        if (!th->exited || !th->process || strcmp(th->process, cmd) != 0)
            continue;
        pid = th->pid;
        if (strcmp(th->name, name) == 0)
            found = t;
    }
    if (found == PROFILE_NONE) {
        char *buf;

        if (!p->next_agg)
            p->next_agg = PROFILE_AGG_ID_TOP;
        if (!pid)
            pid = --p->next_agg;
        found = profile_thread(p, --p->next_agg, name);
        if (found == PROFILE_NONE ||
            profile_thread_set_process(p, found, pid, cmd) < 0 ||
            exited_frame_pick(p, cmd, name, &buf) < 0)
            return PROFILE_NONE;
        /* its own frame renamed: its node stays where it hangs */
        struct frame_desc d = { .name = buf, .kind = FRAME_THREAD };
        int rc = profile_frame_set(p, p->th[found].frame, &d);

        free(buf);
        if (rc < 0)
            return PROFILE_NONE;
    }
    /* every aggregate of the command holds the command's count */
    for (uint32_t t = 0; t < p->nthreads; t++) {
        struct profile_thread *th = &p->th[t];

        if ((th->exited || t == found) && th->process &&
            strcmp(th->process, cmd) == 0 && th->exited < exited)
            th->exited = exited;
    }
    return found;
}
