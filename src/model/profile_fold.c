/* profile_fold.c - exited processes folded by command; see profile.h
 * ("exited processes") for what it promises.
 *
 * profile_fold_processes builds a new profile from the old one: the
 * same frame ids (the folded threads' FRAME_THREAD frames become free
 * ones, named "" and out of the index, which aggregates and new threads
 * take), the threads that stay in their order, then the aggregates;
 * every stack re-added under its thread's new index; the line and
 * address counts as they were; the per-second ring remapped
 * (profile_time_remap).  Strings are interned again from what is left,
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

struct readd {
    struct profile *q;
    const uint32_t *tmap;
};

static int readd_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                       size_t n, uint64_t weight)
{
    struct readd *r = ctx;

    return profile_tree_add(r->q, r->q->th[r->tmap[thread]].node, frames, n,
                            weight);
}

struct profile *profile_fold_processes(const struct profile *p,
                                       const int64_t *pids_in, size_t n,
                                       const int64_t *threads_in, size_t m)
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
    struct readd r = { q, pl.tmap };

    if (copy_frames(q, p, pl.free_frame) < 0 || copy_threads(q, &pl) < 0 ||
        profile_tree_reserve(q, 1 + (uint64_t)q->nthreads) < 0)
        goto out;
    profile_tree_rebuild(q);
    if (profile_foreach_stack(p, readd_stack, &r) != 0 ||
        profile_lc_copy(&q->lines, &p->lines) < 0 ||
        profile_lc_copy(&q->addrs, &p->addrs) < 0 ||
        profile_time_remap(q, p, pl.tmap, NULL) < 0 ||
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
