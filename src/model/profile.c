/* profile.c - the aggregate's identities and storage: its interned
 * strings and frames, its threads and its metadata, the node table and
 * the counter maps every part builds on, and their share of a copy.  The
 * whole profile's lifecycle is in profile_life.c, the call tree in
 * profile_tree.c, what is computed from it in profile_query.c;
 * profile_impl.h holds the storage they share.  At the bottom of the
 * model: it calls none of those.  See profile.h for the model.
 *
 * Called by the collector (interning frames and threads as it meets them,
 * profile_clone under its lock for each UI snapshot), by the loaders and
 * by the UI and exporters (through clones and derived profiles).
 */
#include "profile_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sorted.h"
#include "util.h"
#include "vec.h"

/* --- strings ------------------------------------------------------------- */

/* Id of string s (NULL gives STR_NULL), interning it if new;
 * PROFILE_NONE on OOM. */
static uint32_t str_intern(struct profile *p, const char *s)
{
    return s ? strarena_intern_id(&p->strs, s, strlen(s)) : STR_NULL;
}

/* Id of an existing string, STR_NULL for NULL, PROFILE_NONE if absent. */
static uint32_t str_lookup(const struct profile *p, const char *s)
{
    return s ? strarena_lookup(&p->strs, s, strlen(s)) : STR_NULL;
}

const char *profile_str(const struct profile *p, uint32_t id)
{
    return id == STR_NULL ? NULL : strarena_str(&p->strs, id);
}

uint32_t profile_str_intern(struct profile *p, const char *s)
{
    return str_intern(p, s);
}

/* --- frames -------------------------------------------------------------- */

/* A frame's kind and origin as one key of its identity. */
static uint32_t frame_key(const struct frame_desc *d)
{
    return (uint32_t)d->kind | (uint32_t)d->origin << 8;
}

static uint64_t frame_hash(uint32_t kind, const struct frame_ids *k)
{
    return util_mix64(((uint64_t)k->name << 32 | k->module) ^
                      util_mix64((uint64_t)k->file << 8 | kind) ^
                      util_mix64((uint64_t)k->build_id << 1 | 1));
}

struct frame_probe {
    const struct profile *p;
    uint32_t kind;
    const struct frame_ids *k;
};

static int frame_eq(void *ctx, uint32_t id)
{
    const struct frame_probe *q = ctx;
    const struct frame_ids *f = &q->p->fid[id];

    return frame_key(&q->p->fd[id]) == q->kind && f->name == q->k->name &&
           f->module == q->k->module && f->file == q->k->file &&
           f->build_id == q->k->build_id;
}

static uint32_t frame_find(const struct profile *p, uint32_t kind,
                           const struct frame_ids *k)
{
    struct frame_probe q = { p, kind, k };

    return idtab_find(&p->frame_ix, frame_hash(kind, k), frame_eq, &q);
}

static bool frame_ids_missing(const struct frame_ids *k)
{
    return k->name == PROFILE_NONE || k->module == PROFILE_NONE ||
           k->file == PROFILE_NONE || k->build_id == PROFILE_NONE;
}

/* The string ids of d's identity.  With intern NULL they are only looked
 * up in p (absent strings give PROFILE_NONE); otherwise intern is p
 * itself, writable, and new strings are added to it.  0, or -1 if one is
 * missing (on OOM, when interning). */
static int frame_ids_get(const struct profile *p, struct profile *intern,
                         const struct frame_desc *d, struct frame_ids *k)
{
    const char *s[] = { d->name, d->module, d->file, d->build_id };
    uint32_t *id[] = { &k->name, &k->module, &k->file, &k->build_id };

    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        *id[i] = intern ? str_intern(intern, s[i]) : str_lookup(p, s[i]);
    return frame_ids_missing(k) ? -1 : 0;
}

/* Point frame id's strings at the arena, from its string ids. */
static void frame_strs(struct profile *p, uint32_t id)
{
    p->fd[id].name = profile_str(p, p->fid[id].name);
    p->fd[id].module = profile_str(p, p->fid[id].module);
    p->fd[id].file = profile_str(p, p->fid[id].file);
    p->fd[id].build_id = profile_str(p, p->fid[id].build_id);
}

void profile_frame_adopt(struct profile *p, uint32_t id)
{
    frame_strs(p, id);
    (void)idtab_insert(&p->frame_ix, frame_hash(p->fd[id].kind, &p->fid[id]),
                       id);
}

uint32_t profile_frame_lookup(const struct profile *p,
                              const struct frame_desc *d)
{
    struct frame_ids k;

    if (!d->name || frame_ids_get(p, NULL, d, &k) != 0)
        return PROFILE_NONE;
    return frame_find(p, frame_key(d), &k);
}

int profile_frame_set(struct profile *p, uint32_t id,
                      const struct frame_desc *d)
{
    struct frame_ids k;
    uint8_t kind = p->fd[id].kind, origin = p->fd[id].origin;

    /* The old identity's slot stays in the index, but frame_eq no longer
     * matches it: only the new identity finds the frame. */
    if (frame_ids_get(p, p, d, &k) != 0 ||
        idtab_reserve(&p->frame_ix, p->frame_ix.n + 1) < 0)
        return -1;
    p->fd[id] = *d;
    p->fd[id].kind = kind;
    p->fd[id].origin = origin;
    p->fid[id] = k;
    frame_strs(p, id);
    (void)idtab_insert(&p->frame_ix, frame_hash(frame_key(&p->fd[id]), &k),
                       id);
    return 0;
}

uint32_t profile_intern_frame(struct profile *p, const struct frame_desc *d)
{
    struct frame_ids k;
    uint32_t id;

    if (!p || !d || !d->name)
        return PROFILE_NONE;
    if (frame_ids_get(p, NULL, d, &k) == 0) {
        id = frame_find(p, frame_key(d), &k);
        if (id != PROFILE_NONE)
            return id;
    }
    if (frame_ids_get(p, p, d, &k) != 0 || p->nframes >= ID_LIMIT ||
        VEC_RESERVE(p->fd, p->fd_cap, p->nframes + 1) < 0 ||
        VEC_RESERVE(p->fid, p->fid_cap, p->nframes + 1) < 0 ||
        idtab_reserve(&p->frame_ix, p->frame_ix.n + 1) < 0)
        return PROFILE_NONE;
    /* a frame a fold freed, if any (profile_fold.c), so frames grow with
     * what the profile holds, not with every function ever seen */
    id = p->nfree > 0 ? p->free_frames[--p->nfree] : p->nframes++;
    p->fd[id] = *d;
    p->fid[id] = k;
    frame_strs(p, id);
    (void)idtab_insert(&p->frame_ix, frame_hash(frame_key(d), &k), id);
    return id;
}

enum frame_kind profile_name_kind(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    size_t pre = sizeof(PROFILE_REASON_PREFIX) - 1;

    if (len < 2 || name[0] != '[' || name[len - 1] != ']')
        return FRAME_FUNC;
    return len > pre && strncmp(name, PROFILE_REASON_PREFIX, pre) == 0
               ? FRAME_REASON : FRAME_SPECIAL;
}

enum frame_origin profile_origin_of(const char *module, const char *file)
{
    if (module && strcmp(module, PROFILE_KERNEL_MODULE) == 0)
        return FRAME_ORIGIN_KERNEL;
    if (!module || !file || !*module)
        return FRAME_ORIGIN_NATIVE;
    const char *base = strrchr(file, '/');
    size_t n = strlen(file);

    base = base ? base + 1 : file;
    if (strcmp(module, base) != 0)
        return FRAME_ORIGIN_NATIVE;
    if ((n > 3 && strcmp(file + n - 3, ".rb") == 0) ||
        strcmp(file, "<cfunc>") == 0 || strncmp(file, "<internal:", 10) == 0)
        return FRAME_ORIGIN_RUBY;
    return (n > 3 && strcmp(file + n - 3, ".py") == 0) ||
                   (file[0] == '<' && file[n - 1] == '>')
               ? FRAME_ORIGIN_PYTHON : FRAME_ORIGIN_NATIVE;
}

const char *profile_reason_label(const struct frame_desc *d, char *buf,
                                 size_t n)
{
    size_t pre = sizeof(PROFILE_REASON_PREFIX) - 1, len;

    if (!profile_frame_is_reason(d) || n == 0)
        return NULL;
    len = strlen(d->name);
    if (len > pre && strncmp(d->name, PROFILE_REASON_PREFIX, pre) == 0 &&
        d->name[len - 1] == ']')
        snprintf(buf, n, "%.*s", (int)(len - pre - 1), d->name + pre);
    else
        snprintf(buf, n, "%s", d->name);
    return buf;
}

const struct frame_desc *profile_frame(const struct profile *p, uint32_t id)
{
    return p && id < p->nframes ? &p->fd[id] : NULL;
}

uint32_t profile_frame_count(const struct profile *p)
{
    return p ? p->nframes : 0;
}

/* --- threads ------------------------------------------------------------- */

/* A tid hashed by util_mix64, a bijection: the hash is the key. */
static uint64_t tid_hash(int64_t tid)
{
    return util_mix64((uint64_t)tid);
}

uint32_t profile_tid_find(const struct profile *p, int64_t tid)
{
    return idtab_find(&p->tid_ix, tid_hash(tid), NULL, NULL);
}

/* The FRAME_THREAD frame for a new thread: "NAME-TID", made unique with a
 * "#N" suffix in the odd case where another thread already uses that
 * name (e.g. "a-" with tid 1 and "a" with tid -1 both give "a--1"), since
 * thread nodes are keyed by frame under the root. */
static uint32_t thread_frame(struct profile *p, const char *name, int64_t tid)
{
    size_t cap = strlen(name) + 48;
    char *buf = malloc(cap);
    uint32_t id = PROFILE_NONE;

    if (!buf)
        return PROFILE_NONE;
    for (unsigned k = 1; k < 1000000; k++) {
        struct frame_desc d = { .name = buf, .kind = FRAME_THREAD };

        if (k == 1)
            snprintf(buf, cap, "%s-%lld", name, (long long)tid);
        else
            snprintf(buf, cap, "%s-%lld#%u", name, (long long)tid, k);
        id = profile_frame_lookup(p, &d);
        if (id == PROFILE_NONE) {
            /* a new name: the frame of a thread folded away, if any, so
             * frames do not grow with every thread ever seen */
            if (p->nfree > 0 &&
                profile_frame_set(p, p->free_frames[p->nfree - 1], &d) == 0)
                id = p->free_frames[--p->nfree];
            else
                id = profile_intern_frame(p, &d);
            break;
        }
        if (profile_tree_find(p, PROFILE_ROOT, id) == PROFILE_NONE)
            break;
    }
    free(buf);
    return id;
}

/* A new frame index over every frame, as they are now; 0 or -1 on OOM. */
/* After a rename (prctl, exec), give the thread's frame its new
 * "NAME-TID" so every view and format shows the current name.  Frame
 * identity is hashed, so the frame moves in the index: out under its old
 * key, in under the new (-a renames a thread at every exec, so this must
 * not cost the whole index); on OOM or a clash with an existing frame
 * the old name stays. */
static void rename_thread_frame(struct profile *p, uint32_t idx)
{
    const struct profile_thread *t = &p->th[idx];
    uint32_t f = t->frame;
    size_t cap = strlen(t->name) + 32;
    char *buf = malloc(cap);
    struct frame_ids k;
    uint64_t old_h;

    if (!buf)
        return;
    snprintf(buf, cap, "%s-%lld", t->name, (long long)t->tid);
    k = p->fid[f];
    k.name = str_intern(p, buf);
    free(buf);
    if (k.name == PROFILE_NONE ||
        frame_find(p, FRAME_THREAD, &k) != PROFILE_NONE)
        return;
    old_h = frame_hash(frame_key(&p->fd[f]), &p->fid[f]);
    /* the removal leaves room for the insert: it cannot fail */
    if (idtab_remove(&p->frame_ix, old_h, f) < 0)
        return;
    p->fid[f].name = k.name;
    (void)idtab_insert(&p->frame_ix, frame_hash(frame_key(&p->fd[f]), &k), f);
    p->fd[f].name = profile_str(p, k.name);
}

/* Rename thread idx to name (its frame too); PROFILE_NONE on OOM. */
static uint32_t thread_rename(struct profile *p, uint32_t idx,
                              const char *name)
{
    uint32_t sid = str_intern(p, name);

    if (sid == PROFILE_NONE)
        return PROFILE_NONE;
    p->th_name[idx] = sid;
    p->th[idx].name = profile_str(p, sid);
    rename_thread_frame(p, idx);
    return idx;
}

/* A new thread of this tid, which the tid index finds from now on. */
static uint32_t thread_add(struct profile *p, int64_t tid, const char *name)
{
    uint32_t idx, frame, sid;

    if (!name)
        name = "thread";
    sid = str_intern(p, name);
    if (sid == PROFILE_NONE)
        return PROFILE_NONE;
    frame = thread_frame(p, name, tid);
    if (frame == PROFILE_NONE || p->nthreads >= ID_LIMIT ||
        VEC_RESERVE(p->th, p->th_cap, p->nthreads + 1) < 0 ||
        VEC_RESERVE(p->th_name, p->th_name_cap, p->nthreads + 1) < 0 ||
        VEC_RESERVE(p->th_proc, p->th_proc_cap, p->nthreads + 1) < 0 ||
        idtab_reserve(&p->tid_ix, p->nthreads + 1) < 0 ||
        profile_tree_reserve(p, 1))
        return PROFILE_NONE;
    idx = p->nthreads++;
    p->th[idx] = (struct profile_thread){
        .tid = tid,
        .name = profile_str(p, sid),
        .node = profile_tree_node_add(p, PROFILE_ROOT, frame),
        .frame = frame,
        .serial = ++p->serial,
    };
    p->th_name[idx] = sid;
    p->th_proc[idx] = STR_NULL;
    (void)idtab_insert(&p->tid_ix, tid_hash(tid), idx);
    return idx;
}

/* Thread idx, found: renamed to name unless NULL or the same. */
static uint32_t thread_found(struct profile *p, uint32_t idx, const char *name)
{
    return name && strcmp(name, p->th[idx].name) != 0
               ? thread_rename(p, idx, name) : idx;
}

uint32_t profile_thread(struct profile *p, int64_t tid, const char *name)
{
    if (!p)
        return PROFILE_NONE;
    uint32_t idx = profile_tid_find(p, tid);
    return idx != PROFILE_NONE ? thread_found(p, idx, name)
                               : thread_add(p, tid, name);
}

struct tid_of {
    const struct profile *p;
    int64_t pid;
    uint64_t since;
};

/* A candidate of the tid's is the thread of pid (or of no process yet)
 * made since the process began. */
static int tid_of_pid(void *ctx, uint32_t id)
{
    const struct tid_of *c = ctx;
    const struct profile_thread *th = &c->p->th[id];
    return (th->pid == c->pid || th->pid == 0) && th->serial > c->since;
}

uint64_t profile_thread_serial(const struct profile *p)
{
    return p ? p->serial : 0;
}

uint32_t profile_process_thread(struct profile *p, int64_t pid,
                                uint64_t since, int64_t tid,
                                const char *name)
{
    if (!p)
        return PROFILE_NONE;
    if (!pid)
        return profile_thread(p, tid, name);
    struct tid_of c = {p, pid, since};
    uint32_t idx = idtab_find(&p->tid_ix, tid_hash(tid), tid_of_pid, &c);
    if (idx != PROFILE_NONE)
        return thread_found(p, idx, name);
    /* none, or only another process's thread of that tid (it exited and
     * the tid was reused): a new thread; the other keeps its samples */
    return thread_add(p, tid, name);
}

int profile_thread_set_process(struct profile *p, uint32_t idx, int64_t pid,
                               const char *name)
{
    if (!p || idx >= p->nthreads)
        return -1;
    if (name) {
        uint32_t sid = str_intern(p, name);
        if (sid == PROFILE_NONE)
            return -1;
        p->th_proc[idx] = sid;
        p->th[idx].process = profile_str(p, sid);
    }
    p->th[idx].pid = pid;
    return 0;
}

const char *profile_process_label(const struct profile_thread *th,
                                  bool with_pid, char *buf, size_t n)
{
    const char *comm = th->process ? th->process : th->name;

    char num[32];

    if (th->exited && !th->processes)
        snprintf(buf, n, "%s (%s exited)", comm,
                 util_thousands(th->exited, num, sizeof(num)));
    else if (th->processes)
        snprintf(buf, n, "%s (%s process%s)", comm,
                 util_thousands(th->processes, num, sizeof(num)),
                 th->processes == 1 ? "" : "es");
    else if (th->pid == PROFILE_KERNEL_PID)
        snprintf(buf, n, "%s", PROFILE_KERNEL_PROCESS);
    else if (!th->pid)
        snprintf(buf, n, "[unknown process]");
    else if (with_pid)
        snprintf(buf, n, "%s (pid %lld)", comm, (long long)th->pid);
    else
        snprintf(buf, n, "%s", comm);
    return buf;
}

bool profile_several_processes(const struct profile *p)
{
    int64_t first = 0;

    for (uint32_t i = 0; p && i < p->nthreads; i++) {
        if (!p->th[i].pid)
            continue;
        if (!first)
            first = p->th[i].pid;
        else if (p->th[i].pid != first)
            return true;
    }
    return false;
}

uint32_t profile_process_count(const struct profile *p)
{
    uint32_t n = 0;

    for (uint32_t i = 0; p && i < p->nthreads; i++) {
        uint32_t j = 0;
        if (!p->th[i].pid)
            continue;
        while (j < i && p->th[j].pid != p->th[i].pid)
            j++;
        n += j == i;
    }
    return n;
}

static int pid_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

size_t profile_pid_list(const struct profile *p, char *buf, size_t n)
{
    int64_t *v = p && p->nthreads ? malloc(p->nthreads * sizeof(*v)) : NULL;
    size_t k = 0, distinct = 0, len = 0;

    if (n)
        buf[0] = '\0';
    for (uint32_t i = 0; v && i < p->nthreads; i++)
        if (p->th[i].pid)
            v[k++] = p->th[i].pid;
    if (!k) {
        free(v);
        if (p && p->meta.pid && n)
            snprintf(buf, n, "%lld", (long long)p->meta.pid);
        return p && p->meta.pid ? 1 : 0;
    }
    sorted_sort(v, k, sizeof(*v), pid_cmp);
    for (size_t i = 0; i < k; i++) {
        if (i && v[i] == v[i - 1])
            continue;
        distinct++;
        char one[24];
        int w = snprintf(one, sizeof one, "%s%lld", len ? "," : "",
                         (long long)v[i]);
        /* room for this one and a last ",..." */
        if (len + (size_t)w + 5 > n) {
            if (len + 5 <= n)
                len += (size_t)snprintf(buf + len, n - len, ",...");
            len = n; /* full: count the rest only */
            continue;
        }
        memcpy(buf + len, one, (size_t)w + 1);
        len += (size_t)w;
    }
    free(v);
    return distinct;
}

uint32_t profile_thread_count(const struct profile *p)
{
    return p ? p->nthreads : 0;
}

const struct profile_thread *profile_thread_at(const struct profile *p,
                                               uint32_t idx)
{
    return p && idx < p->nthreads ? &p->th[idx] : NULL;
}

/* --- metadata ------------------------------------------------------------ */

const struct profile_meta *profile_meta(const struct profile *p)
{
    return &p->meta;
}

int profile_set_meta(struct profile *p, const struct profile_meta *m)
{
    uint32_t cmd = str_intern(p, m->cmdline);
    uint32_t comm = str_intern(p, m->comm);

    if (cmd == PROFILE_NONE || comm == PROFILE_NONE)
        return -1;
    p->meta = *m;
    p->meta_cmdline = cmd;
    p->meta_comm = comm;
    p->meta.cmdline = profile_str(p, cmd);
    p->meta.comm = profile_str(p, comm);
    return 0;
}

/* --- storage: the node table and the counter maps ----------------------- */

/* The primitives every part of the profile builds on (profile_impl.h):
 * the lifecycle above and the threads' nodes use them, and so do the
 * tree's ingest and walks (profile_tree.c), which sit above this file. */

static uint64_t child_key(uint32_t parent, uint32_t frame)
{
    return util_mix64((uint64_t)parent << 32 | frame);
}

uint32_t profile_tree_find(const struct profile *p, uint32_t parent,
                           uint32_t frame)
{
    return idtab_find(&p->child_ix, child_key(parent, frame), NULL, NULL);
}

int profile_tree_reserve(struct profile *p, uint64_t extra)
{
    uint64_t want = (uint64_t)p->nnodes + extra;

    if (want > ID_LIMIT || VEC_RESERVE(p->nodes, p->nodes_cap, want) < 0 ||
        VEC_RESERVE(p->aux, p->aux_cap, want) < 0 ||
        idtab_reserve(&p->child_ix, (size_t)want) < 0)
        return -1;
    return 0;
}

uint32_t profile_tree_node_add(struct profile *p, uint32_t parent,
                               uint32_t frame)
{
    uint32_t id = p->nnodes++;
    struct profile_node *par = &p->nodes[parent];

    p->nodes[id] = (struct profile_node){
        .frame = frame,
        .parent = parent,
        .first_child = PROFILE_NONE,
        .next_sibling = PROFILE_NONE,
        .depth = par->depth + 1,
    };
    p->aux[id] = (struct node_aux){ PROFILE_NONE, PROFILE_NONE,
                                    PROFILE_NONE };
    if (par->first_child == PROFILE_NONE)
        par->first_child = id;
    else
        p->nodes[p->aux[parent].last_child].next_sibling = id;
    p->aux[parent].last_child = id;
    if (p->nodes[id].depth > p->max_depth)
        p->max_depth = p->nodes[id].depth;
    (void)idtab_insert(&p->child_ix, child_key(parent, frame), id);
    return id;
}

void profile_tree_rebuild(struct profile *p)
{
    p->nnodes = 1;
    p->nodes[0] = (struct profile_node){
        .frame = PROFILE_NONE,
        .parent = PROFILE_NONE,
        .first_child = PROFILE_NONE,
        .next_sibling = PROFILE_NONE,
    };
    p->aux[0] = (struct node_aux){ PROFILE_NONE, PROFILE_NONE,
                                   PROFILE_NONE };
    p->max_depth = 0;
    p->samples = 0;
    idtab_clear(&p->child_ix);
    for (uint32_t t = 0; t < p->nthreads; t++)
        p->th[t].node = profile_tree_node_add(p, PROFILE_ROOT,
                                              p->th[t].frame);
}

int profile_lc_reserve(struct lcmap *m, uint64_t extra)
{
    uint64_t want = (uint64_t)m->n + extra;

    if (want > ID_LIMIT || VEC_RESERVE(m->e, m->cap, want) < 0 ||
        idtab_reserve(&m->ix, (size_t)want) < 0)
        return -1;
    return 0;
}

int profile_lc_init(struct lcmap *m)
{
    *m = (struct lcmap){ 0 };
    return profile_lc_reserve(m, 1);
}

void profile_lc_clear(struct lcmap *m)
{
    m->n = 0;
    idtab_clear(&m->ix);
}

int profile_lc_copy(struct lcmap *dst, const struct lcmap *src)
{
    *dst = (struct lcmap){ 0 };
    if (idtab_copy(&dst->ix, &src->ix) < 0 ||
        VEC_RESERVE(dst->e, dst->cap, src->n ? src->n : 1) < 0)
        return -1;
    memcpy(dst->e, src->e, src->n * sizeof(*dst->e));
    dst->n = src->n;
    return 0;
}

void profile_lc_free(struct lcmap *m)
{
    free(m->e);
    idtab_free(&m->ix);
}

void *profile_dup_n(const void *src, size_t n, size_t elem)
{
    void *d = malloc((n ? n : 1) * elem);

    if (d && n)
        memcpy(d, src, n * elem);
    return d;
}

void profile_graph_free(struct profile_graph *g)
{
    if (!g)
        return;
    free(g->flat);
    free(g->edges);
    free(g->thread_samples);
    free(g->ft_off);
    free(g->ft);
    free(g);
}

struct profile_graph *profile_graph_new(const struct profile_graph_desc *g,
                                        uint32_t nthreads, uint32_t nframes)
{
    struct profile_graph *q = calloc(1, sizeof(*q));
    uint32_t nft = g->frame_threads_off[nframes];

    if (!q)
        return NULL;
    q->nflat = g->nflat;
    q->nedges = g->nedges;
    q->nthreads = nthreads;
    q->nframes = nframes;
    q->flat = profile_dup_n(g->flat, g->nflat, sizeof(*q->flat));
    q->edges = profile_dup_n(g->edges, g->nedges, sizeof(*q->edges));
    q->thread_samples = profile_dup_n(g->thread_samples, nthreads,
                              sizeof(*q->thread_samples));
    q->ft_off = profile_dup_n(g->frame_threads_off, (size_t)nframes + 1,
                      sizeof(*q->ft_off));
    q->ft = profile_dup_n(g->frame_threads, nft, sizeof(*q->ft));
    if (!q->flat || !q->edges || !q->thread_samples || !q->ft_off || !q->ft) {
        profile_graph_free(q);
        return NULL;
    }
    for (uint32_t t = 0; t < nthreads; t++)
        q->samples += q->thread_samples[t];
    return q;
}

/* --- the core's share of a whole profile's lifecycle ---------------------- */

/* profile_dup_n, and *cap gets the allocated count. */
static void *dup_array(const void *src, size_t n, size_t elem, size_t *cap)
{
    *cap = n ? n : 1;
    return profile_dup_n(src, n, elem);
}

/* The copy's tree: p's, or empty thread nodes. */
static int copy_tree(struct profile *q, const struct profile *p,
                     bool with_tree)
{
    if (!with_tree) {
        if (profile_tree_reserve(q, 1 + (uint64_t)q->nthreads))
            return -1;
        profile_tree_rebuild(q);
        return 0;
    }
    q->nodes = dup_array(p->nodes, p->nnodes, sizeof(*q->nodes),
                         &q->nodes_cap);
    q->aux = dup_array(p->aux, p->nnodes, sizeof(*q->aux), &q->aux_cap);
    if (!q->nodes || !q->aux || idtab_copy(&q->child_ix, &p->child_ix))
        return -1;
    q->nnodes = p->nnodes;
    q->max_depth = p->max_depth;
    q->samples = p->samples;
    q->nsamples = p->nsamples;
    return 0;
}

int profile_core_copy(struct profile *q, const struct profile *p,
                      bool with_tree)
{
    q->fd = dup_array(p->fd, p->nframes, sizeof(*q->fd), &q->fd_cap);
    q->fid = dup_array(p->fid, p->nframes, sizeof(*q->fid), &q->fid_cap);
    q->th = dup_array(p->th, p->nthreads, sizeof(*q->th), &q->th_cap);
    q->th_name = dup_array(p->th_name, p->nthreads, sizeof(*q->th_name),
                           &q->th_name_cap);
    q->th_proc = dup_array(p->th_proc, p->nthreads, sizeof(*q->th_proc),
                           &q->th_proc_cap);
    q->free_frames = dup_array(p->free_frames, p->nfree,
                               sizeof(*q->free_frames), &q->free_cap);
    q->nfree = p->nfree;
    q->cool_frames = dup_array(p->cool_frames, p->ncool,
                               sizeof(*q->cool_frames), &q->cool_cap);
    q->ncool = p->ncool;
    q->next_agg = p->next_agg;
    q->serial = p->serial;
    q->cut = p->cut;
    if (!q->fd || !q->fid || !q->th || !q->th_name || !q->th_proc ||
        !q->free_frames || !q->cool_frames ||
        strarena_copy(&q->strs, &p->strs) ||
        idtab_copy(&q->frame_ix, &p->frame_ix) ||
        idtab_copy(&q->tid_ix, &p->tid_ix) ||
        profile_lc_copy(&q->lines, &p->lines) ||
        profile_lc_copy(&q->addrs, &p->addrs))
        return -1;
    q->nframes = p->nframes;
    for (uint32_t i = 0; i < q->nframes; i++)
        frame_strs(q, i);
    q->nthreads = p->nthreads;
    for (uint32_t t = 0; t < q->nthreads; t++) {
        q->th[t].name = profile_str(q, q->th_name[t]);
        q->th[t].process = profile_str(q, q->th_proc[t]);
    }
    q->stamp = p->stamp;
    q->unit_ns = p->unit_ns;
    q->meta = p->meta;
    q->meta_cmdline = p->meta_cmdline;
    q->meta_comm = p->meta_comm;
    q->meta.cmdline = profile_str(q, q->meta_cmdline);
    q->meta.comm = profile_str(q, q->meta_comm);
    return copy_tree(q, p, with_tree);
}

void profile_core_free(struct profile *p)
{
    strarena_free(&p->strs);
    free(p->fd);
    free(p->fid);
    idtab_free(&p->frame_ix);
    free(p->th);
    free(p->th_name);
    free(p->th_proc);
    idtab_free(&p->tid_ix);
    free(p->free_frames);
    free(p->cool_frames);
    free(p->nodes);
    free(p->aux);
    idtab_free(&p->child_ix);
    profile_lc_free(&p->lines);
    profile_lc_free(&p->addrs);
}
