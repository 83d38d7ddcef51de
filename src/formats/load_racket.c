/* load_racket.c - the Racket JSON reader (sproftop -i x.racket.json).
 *
 * Reads what profile->json of Racket's profile/render-json writes, and
 * export_racket_json with it (docs/FORMATS.md, racket-json): a call graph, not
 * stacks.  The profile it builds holds the graph (profile.h, "a call
 * graph without stacks"): per function its self and total samples, per
 * edge Racket's caller and callee times, per thread its samples.
 *
 *   - Weights: a node's time in whole nanoseconds (profile.h, "Weights":
 *     a unit of 1 ns, as a live profile's), edge times as fractions of
 *     them; sample_number is the samples taken, total_time / that their
 *     interval (Racket's own profiler weighs each sample by the time
 *     around it, sproftop by its interval).
 *   - Node 0 must be the "*" node (id and src false); its edges are
 *     read from the other nodes' lists.  Each edge between two nodes
 *     must be in its caller's callees and its callee's callers, once;
 *     an edge to or from "*" is a leaf's or a stack bottom's.
 *   - Names: an id false reads "???", as Racket prints it; a src
 *     "FILE:LINE:COL" gives the file and the line, anything else none.
 *     Two nodes of one name and file (Racket tells them by line) get the
 *     second's source after its name.
 *   - Threads: thread_times' ids, a number (the thread id, named
 *     "thread") or a string (the name); nodes' thread_ids must be among
 *     them.
 *
 * The input is untrusted: json.h bounds the text; indexes out of range,
 * times that are not finite and non-negative or that make more than 2^53
 * samples, self above total, repeated or one-sided edges each end the
 * load with one line, "NAME: node N: why".  Cycles are a call graph's
 * right (recursion): they are kept, and what orders the graph (the text
 * report's topological sort) breaks them as Racket does.
 */
#include "load.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "profile.h"
#include "util.h"
#include "vec.h"
#include "sorted.h"

#define SNIFF_BYTES 65536  /* where an edge's "caller_time" is looked for */

struct rk_load {
    struct json j;
    struct profile *p;
    const char *name;
    char *err;
    size_t errlen;
    uint64_t total;             /* weight of all samples, in ns */
    uint64_t count;             /* samples taken */
    uint64_t interval;          /* ns one stands for (their mean) */
    uint32_t nodes;             /* the nodes array */
    uint32_t nnodes;            /* its length, "*" included */
    uint32_t *node_at;          /* JSON node of each index */
    uint32_t *frame_of;         /* index -> frame id (0: "*") */
    struct profile_flat *flat;  /* by index - 1 */
    struct profile_edge *edges; /* between two nodes, then from "*" */
    size_t nedges, ecap;
    uint32_t nthreads;
    uint32_t *thread_json;      /* thread index -> its id's JSON node */
    uint32_t *by_id;            /* thread indexes sorted by their id */
    uint64_t *thread_samples;
    uint32_t *ft;               /* the nodes' thread lists, in node order */
    uint32_t *ft_end;           /* per node: where its list ends in ft */
    uint32_t *ft_off;           /* the same by frame (profile_frame_threads) */
};

bool load_racket_sniff(const char *buf, size_t len)
{
    size_t lim = len < SNIFF_BYTES ? len : SNIFF_BYTES;

    return json_starts_object(buf, lim) &&
           (memmem(buf, lim, "\"sample_number\"", 15) ||
            memmem(buf, lim, "\"caller_time\"", 13));
}

/* "NAME: why" into the load's error; -1. */
#define fail(l, ...) load_error((l)->err, (l)->errlen, (l)->name, __VA_ARGS__)

/* A time in ms (finite, non-negative) from member key of obj. */
static bool time_of(const struct rk_load *l, uint32_t obj, const char *key,
                    double *ms)
{
    return json_number(&l->j, json_get(&l->j, obj, key), ms) && *ms >= 0;
}

/* ms as a weight: whole nanoseconds, below 2^53; false past it. */
static bool weight_of(double ms, uint64_t *w)
{
    double ns = nearbyint(ms * 1e6);

    if (!(ns < (double)PROFILE_COUNT_LIMIT))
        return false;
    *w = (uint64_t)ns;
    return true;
}

/* total_time, sample_number: the weight of all samples, their count,
 * and the interval one stands for. */
static int read_totals(struct rk_load *l)
{
    double total;
    int64_t n;

    if (!time_of(l, 0, "total_time", &total) ||
        !json_int(&l->j, json_get(&l->j, 0, "sample_number"), 0,
                  (int64_t)PROFILE_COUNT_LIMIT - 1, &n))
        return fail(l, "not a Racket profile: no total_time and "
                    "sample_number");
    if (!weight_of(total, &l->total))
        return fail(l, "total_time is not a time in range");
    if (n == 0 || l->total == 0)
        return fail(l, "no samples");
    l->count = (uint64_t)n;
    l->interval = (l->total + l->count / 2) / l->count;
    return 0;
}

/* Two ids (JSON nodes) by type, then their text. */
static int cmp_id(const struct json *j, uint32_t x, uint32_t y)
{
    const struct json_node *a = &j->nodes[x], *b = &j->nodes[y];
    int c;

    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    c = memcmp(j->text + a->off, j->text + b->off,
               a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int cmp_thread(const void *x, const void *y, void *ctx)
{
    const struct rk_load *l = ctx;

    return cmp_id(&l->j, l->thread_json[*(const uint32_t *)x],
                  l->thread_json[*(const uint32_t *)y]);
}

/* The thread whose id is JSON node id, or PROFILE_NONE (by_id sorted). */
static uint32_t thread_of(const struct rk_load *l, uint32_t id)
{
    uint32_t lo = 0, hi = l->nthreads;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = cmp_id(&l->j, l->thread_json[l->by_id[mid]], id);

        if (c == 0)
            return l->by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return PROFILE_NONE;
}

/* thread_times: the threads, in order, and their samples; the ids, which
 * nodes name their threads by, once each. */
static int read_threads(struct rk_load *l)
{
    const struct json *j = &l->j;
    uint32_t list = json_get(j, 0, "thread_times"), n;

    if (json_type(j, list) != JSON_ARRAY)
        return fail(l, "no thread_times list");
    n = j->nodes[list].len;
    l->thread_json = malloc((n ? n : 1) * sizeof(*l->thread_json));
    l->by_id = malloc((n ? n : 1) * sizeof(*l->by_id));
    l->thread_samples = calloc(n ? n : 1, sizeof(*l->thread_samples));
    if (!l->thread_json || !l->by_id || !l->thread_samples)
        return fail(l, "out of memory");
    for (uint32_t t = json_first(j, list); t != JSON_NONE;
         t = json_next(j, list, t)) {
        uint32_t id = json_get(j, t, "id"), k = l->nthreads;
        int64_t tid = k;
        double ms;
        char *tname = NULL;

        if (json_type(j, id) != JSON_STRING &&
            !json_int(j, id, INT64_MIN, INT64_MAX, &tid))
            return fail(l, "thread %" PRIu32 ": its id is not a number or "
                        "a string", k);
        if (!time_of(l, t, "time", &ms) ||
            !weight_of(ms, &l->thread_samples[k]))
            return fail(l, "thread %" PRIu32 ": no time in range", k);
        if (json_type(j, id) == JSON_STRING &&
            !(tname = json_string(j, id, NULL)))
            return fail(l, "out of memory");
        l->thread_json[k] = id;
        l->by_id[k] = k;
        if (profile_thread(l->p, tid, tname ? tname : "thread") != k) {
            free(tname);
            return fail(l, "thread %" PRIu32 ": its id comes twice", k);
        }
        free(tname);
        l->nthreads++;
    }
    sorted_sort_r(l->by_id, l->nthreads, sizeof(*l->by_id), cmp_thread, l);
    for (uint32_t k = 1; k < l->nthreads; k++)
        if (cmp_id(j, l->thread_json[l->by_id[k - 1]],
                   l->thread_json[l->by_id[k]]) == 0)
            return fail(l, "thread %" PRIu32 ": its id comes twice",
                        l->by_id[k]);
    return 0;
}

/* A node's src "FILE:LINE:COL" into file (malloc'd) and line; no line
 * unless it reads so. */
static void parse_src(char *src, char **file, uint32_t *line)
{
    char *col = strrchr(src, ':'), *ln, *end;
    unsigned long v;

    *file = src;
    *line = 0;
    if (!col || col == src)
        return;
    *col = '\0';
    ln = strrchr(src, ':');
    if (!ln) {
        *col = ':';
        return;
    }
    v = strtoul(ln + 1, &end, 10);
    if (*end || end == ln + 1 || v == 0 || v > UINT32_MAX) {
        *col = ':';
        return;
    }
    *ln = '\0';
    *line = (uint32_t)v;
}

/* The frame of node i (from 1): interned by name and file; a second node
 * of the same name and file (Racket tells them by line) gets its source
 * after its name.  seen: per frame id, taken by a node already. */
static int node_frame(struct rk_load *l, uint32_t i, uint32_t node,
                      bool *seen)
{
    const struct json *j = &l->j;
    uint32_t id = json_get(j, node, "id"), src = json_get(j, node, "src");
    bool oom = false, id_false = json_type(j, id) == JSON_FALSE;
    bool src_false = json_type(j, src) == JSON_FALSE;
    char *name = id_false ? NULL : json_string(j, id, &oom);
    char *s = src_false ? NULL : json_string(j, src, &oom), *alt = NULL;
    struct frame_desc d = { 0 };
    char *file = NULL;
    uint32_t f = PROFILE_NONE;
    int rc = 0;

    if (oom) {
        rc = fail(l, "out of memory");
        goto out;
    }
    if ((!id_false && !name) || (!src_false && !s)) {
        rc = fail(l, "node %" PRIu32 ": id and src are not strings or "
                  "false", i);
        goto out;
    }
    d.name = name && *name ? name : "???";
    d.kind = (uint8_t)profile_name_kind(d.name);
    if (s) {
        parse_src(s, &file, &d.line);
        d.file = file;
    }
    f = profile_intern_frame(l->p, &d);
    if (f != PROFILE_NONE && seen[f]) {
        size_t n = strlen(d.name) + (file ? strlen(file) : 0) + 32;

        if (!(alt = malloc(n))) {
            rc = fail(l, "out of memory");
            goto out;
        }
        snprintf(alt, n, "%s <%s:%" PRIu32 ">", d.name, file ? file : "?",
                 d.line);
        d.name = alt;
        f = profile_intern_frame(l->p, &d);
    }
    if (f == PROFILE_NONE)
        rc = fail(l, "out of memory");
    else if (seen[f])
        rc = fail(l, "node %" PRIu32 ": the same function and source as "
                  "another node", i);
    else {
        seen[f] = true;
        l->frame_of[i] = f;
    }
out:
    free(name);
    free(s);
    free(alt);
    return rc;
}

/* Member "sproftop_first" of obj (our writer's rank of first use) when it
 * is below `limit`, else `fallback`. */
static uint32_t rank_of(const struct json *j, uint32_t obj, uint32_t limit,
                        uint32_t fallback)
{
    int64_t r;

    if (json_int(j, json_get(j, obj, "sproftop_first"), 0,
                 (int64_t)limit - 1, &r))
        return (uint32_t)r;
    return fallback;
}

/* Whether the n ranks at v (stride bytes apart) are 0..n-1, once each:
 * when the file's are not, the readers number by position instead. */
static bool ranks_valid(const void *v, size_t stride, size_t n)
{
    bool *seen = calloc(n ? n : 1, sizeof(*seen)), ok = seen != NULL;

    for (size_t k = 0; k < n && ok; k++) {
        uint32_t r = *(const uint32_t *)((const char *)v + k * stride);

        ok = r < n && !seen[r];
        if (ok)
            seen[r] = true;
    }
    free(seen);
    return ok;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return (x > y) - (x < y);
}

/* Node i's counts and threads: its flat row and its frame's thread list
 * (filled into ft at *used, sorted, once each). */
static int node_counts(struct rk_load *l, uint32_t i, uint32_t node,
                       uint32_t *used)
{
    const struct json *j = &l->j;
    struct profile_flat *row = &l->flat[i - 1];
    uint32_t ids = json_get(j, node, "thread_ids"), start = *used;
    double total, self;

    if (!time_of(l, node, "total", &total) || !time_of(l, node, "self", &self)
        || !weight_of(total, &row->total) ||
        !weight_of(self, &row->self) || self > total)
        return fail(l, "node %" PRIu32 ": total and self are not times in "
                    "range, self at most total", i);
    row->frame = l->frame_of[i];
    row->first = rank_of(j, node, l->nnodes - 1, i - 1);
    if (json_type(j, ids) != JSON_ARRAY)
        return fail(l, "node %" PRIu32 ": no thread_ids list", i);
    for (uint32_t t = json_first(j, ids); t != JSON_NONE;
         t = json_next(j, ids, t)) {
        uint32_t th = thread_of(l, t);

        if (th == PROFILE_NONE)
            return fail(l, "node %" PRIu32 ": a thread id is not in "
                        "thread_times", i);
        l->ft[(*used)++] = th;
    }
    /* sorted, once each */
    sorted_sort(l->ft + start, *used - start, sizeof(*l->ft), cmp_u32);
    uint32_t w = start;
    for (uint32_t k = start; k < *used; k++)
        if (w == start || l->ft[k] != l->ft[w - 1])
            l->ft[w++] = l->ft[k];
    *used = w;
    return 0;
}

/* An edge object of node i's list: its two ends (indexes) and times. */
static int read_edge(struct rk_load *l, uint32_t i, uint32_t e,
                     struct profile_edge *out, uint32_t *caller,
                     uint32_t *callee)
{
    const struct json *j = &l->j;
    int64_t a, b;
    double ct, et, total;

    if (!json_int(j, json_get(j, e, "caller"), 0, l->nnodes - 1, &a) ||
        !json_int(j, json_get(j, e, "callee"), 0, l->nnodes - 1, &b))
        return fail(l, "node %" PRIu32 ": an edge's caller or callee is not "
                    "one of the %" PRIu32 " nodes", i, l->nnodes);
    if (!time_of(l, e, "caller_time", &ct) ||
        !time_of(l, e, "callee_time", &et) || !time_of(l, e, "total", &total)
        || !weight_of(total, &out->samples) ||
        !weight_of(ct, &(uint64_t){ 0 }) || !weight_of(et, &(uint64_t){ 0 }))
        return fail(l, "node %" PRIu32 ": an edge's times are not times in "
                    "range", i);
    *caller = (uint32_t)a;
    *callee = (uint32_t)b;
    out->caller = a ? l->frame_of[a] : PROFILE_NONE;
    out->callee = l->frame_of[b];
    out->caller_time = ct * 1e6;
    out->callee_time = et * 1e6;
    return 0;
}

static int cmp_pair(const void *x, const void *y)
{
    const struct profile_edge *a = x, *b = y;

    if (a->caller != b->caller)
        return a->caller < b->caller ? -1 : 1;
    return (a->callee > b->callee) - (a->callee < b->callee);
}

/* Each node's callers: the edges between two nodes again, each once,
 * with the same numbers, and its edge from "*" (appended). */
static int read_callers(struct rk_load *l, size_t between)
{
    const struct json *j = &l->j;
    bool *seen = calloc(between ? between : 1, sizeof(*seen));
    int rc = 0;

    if (!seen)
        return fail(l, "out of memory");
    for (uint32_t i = 1; i < l->nnodes && rc == 0; i++) {
        uint32_t list = json_get(j, l->node_at[i], "callers"), a, b;
        bool top = false;

        if (json_type(j, list) != JSON_ARRAY) {
            rc = fail(l, "node %" PRIu32 ": no callers list", i);
            break;
        }
        for (uint32_t e = json_first(j, list); e != JSON_NONE && rc == 0;
             e = json_next(j, list, e)) {
            struct profile_edge pe = { 0 }, *in;

            if ((rc = read_edge(l, i, e, &pe, &a, &b)) < 0)
                break;
            if (b != i) {
                rc = fail(l, "node %" PRIu32 ": its callers list holds an "
                          "edge of node %" PRIu32, i, b);
            } else if (a == 0) {    /* the stack bottom: "*" -> it */
                if (top)
                    rc = fail(l, "node %" PRIu32 ": two edges from \"*\"", i);
                else if (VEC_RESERVE(l->edges, l->ecap, l->nedges + 1) < 0)
                    rc = fail(l, "out of memory");
                else {
                    pe.seq = (uint32_t)l->nedges;
                    l->edges[l->nedges++] = pe;
                    top = true;
                }
            } else if (between == 0 ||
                       !(in = bsearch(&pe, l->edges, between, sizeof(pe),
                                      cmp_pair)) || seen[in - l->edges]) {
                rc = fail(l, "node %" PRIu32 ": the edge from node %" PRIu32
                          " is not once in that node's callees", i, a);
            } else if (in->caller_time != pe.caller_time ||
                       in->callee_time != pe.callee_time ||
                       in->samples != pe.samples) {
                rc = fail(l, "node %" PRIu32 ": the edge from node %" PRIu32
                          " has other times in its callees list", i, a);
            } else {
                seen[in - l->edges] = true;
            }
        }
    }
    for (size_t k = 0; k < between && rc == 0; k++)
        if (!seen[k])
            rc = fail(l, "an edge of a callees list is in no callers list");
    free(seen);
    return rc;
}

/* The edges: node i's callees (edges to other nodes, its leaf edge to
 * "*"), then each node's callers, which must be those edges again (or
 * its edge from "*").  seen: per edge, found in a callers list. */
static int read_edges(struct rk_load *l)
{
    const struct json *j = &l->j;
    size_t between;

    for (uint32_t i = 1; i < l->nnodes; i++) {
        uint32_t list = json_get(j, l->node_at[i], "callees"), a, b;

        if (json_type(j, list) != JSON_ARRAY)
            return fail(l, "node %" PRIu32 ": no callees list", i);
        for (uint32_t e = json_first(j, list); e != JSON_NONE;
             e = json_next(j, list, e)) {
            struct profile_edge pe = { 0 };

            if (read_edge(l, i, e, &pe, &a, &b) < 0)
                return -1;
            if (a != i)
                return fail(l, "node %" PRIu32 ": its callees list holds "
                            "an edge of node %" PRIu32, i, a);
            if (b == 0) {   /* the leaf edge: it -> "*" */
                l->flat[i - 1].leaf_time = pe.callee_time;
                continue;
            }
            if (VEC_RESERVE(l->edges, l->ecap, l->nedges + 1) < 0)
                return fail(l, "out of memory");
            pe.seq = rank_of(j, e, UINT32_MAX, (uint32_t)l->nedges);
            l->edges[l->nedges++] = pe;
        }
    }
    between = l->nedges;
    if (between && !ranks_valid(&l->edges[0].seq, sizeof(*l->edges), between))
        for (size_t k = 0; k < between; k++)
            l->edges[k].seq = (uint32_t)k;
    if (between > 1)
        sorted_sort(l->edges, between, sizeof(*l->edges), cmp_pair);
    for (size_t k = 1; k < between; k++)
        if (cmp_pair(&l->edges[k - 1], &l->edges[k]) == 0)
            return fail(l, "an edge between two nodes comes twice");
    return read_callers(l, between);
}

/* The nodes: node 0 the "*" node, then one function each, whose frame
 * ids grow with their index (each node's frame is new). */
static int read_nodes(struct rk_load *l)
{
    const struct json *j = &l->j;
    uint32_t nthr = 0, used = 0, i = 0;
    bool *seen;
    int rc = 0;

    l->nodes = json_get(j, 0, "nodes");
    if (json_type(j, l->nodes) != JSON_ARRAY || j->nodes[l->nodes].len == 0)
        return fail(l, "no nodes list");
    l->nnodes = j->nodes[l->nodes].len;
    for (uint32_t n = json_first(j, l->nodes); n != JSON_NONE;
         n = json_next(j, l->nodes, n)) {
        uint32_t ids = json_get(j, n, "thread_ids");

        nthr += json_type(j, ids) == JSON_ARRAY ? j->nodes[ids].len : 0;
    }
    l->node_at = malloc(l->nnodes * sizeof(*l->node_at));
    l->frame_of = calloc(l->nnodes, sizeof(*l->frame_of));
    l->ft_end = calloc(l->nnodes, sizeof(*l->ft_end));
    l->flat = calloc(l->nnodes, sizeof(*l->flat));
    l->ft = malloc((nthr ? nthr : 1) * sizeof(*l->ft));
    /* frames: the threads', then at most two per node */
    seen = calloc((size_t)l->nthreads + 2 * (size_t)l->nnodes + 1,
                  sizeof(*seen));
    if (!l->node_at || !l->frame_of || !l->ft_end || !l->flat || !l->ft ||
        !seen) {
        free(seen);
        return fail(l, "out of memory");
    }
    for (uint32_t n = json_first(j, l->nodes); n != JSON_NONE;
         n = json_next(j, l->nodes, n))
        l->node_at[i++] = n;
    if (json_type(j, json_get(j, l->node_at[0], "id")) != JSON_FALSE ||
        json_type(j, json_get(j, l->node_at[0], "src")) != JSON_FALSE)
        rc = fail(l, "node 0 is not the \"*\" node (id and src false)");
    for (i = 1; i < l->nnodes && rc == 0; i++) {
        if (json_type(j, l->node_at[i]) != JSON_OBJECT)
            rc = fail(l, "node %" PRIu32 ": not an object", i);
        else if ((rc = node_frame(l, i, l->node_at[i], seen)) == 0)
            rc = node_counts(l, i, l->node_at[i], &used);
        l->ft_end[i] = used;
    }
    free(seen);
    if (rc == 0 && !ranks_valid(&l->flat[0].first, sizeof(*l->flat),
                                l->nnodes - 1))
        for (i = 1; i < l->nnodes; i++)
            l->flat[i - 1].first = i - 1;
    return rc;
}

/* The threads of each frame as profile_frame_threads has them: node i's
 * list is ft[ft_end[i - 1] .. ft_end[i]), in frame order. */
static uint32_t *frame_threads_off(const struct rk_load *l)
{
    uint32_t nf = profile_frame_count(l->p), pos = 0;
    uint32_t *off = calloc((size_t)nf + 1, sizeof(*off));
    uint32_t *node_of = calloc(nf ? nf : 1, sizeof(*node_of));

    if (off && node_of) {
        for (uint32_t i = 1; i < l->nnodes; i++)
            node_of[l->frame_of[i]] = i;
        for (uint32_t f = 0; f < nf; f++) {
            off[f] = pos;
            if (node_of[f])
                pos = l->ft_end[node_of[f]];
        }
        off[nf] = pos;
    } else {
        free(off);
        off = NULL;
    }
    free(node_of);
    return off;
}

/* The threads' weights add up to total_time: each thread's time in
 * whole ns, the last one taking what rounding left (at most half a ns a
 * thread); a file without threads gets one. */
static int thread_totals(struct rk_load *l)
{
    uint64_t sum = 0, diff, n = l->total;

    if (l->nthreads == 0) {
        if (profile_thread(l->p, 0, "thread") != 0)
            return fail(l, "out of memory");
        l->thread_samples[0] = n;
        l->nthreads = 1;
        return 0;
    }
    for (uint32_t t = 0; t < l->nthreads; t++)
        sum += l->thread_samples[t];
    diff = sum > n ? sum - n : n - sum;
    if (2 * diff > l->nthreads ||
        (sum > n && l->thread_samples[l->nthreads - 1] < diff))
        return fail(l, "thread_times do not add up to total_time");
    if (sum > n)
        l->thread_samples[l->nthreads - 1] -= diff;
    else
        l->thread_samples[l->nthreads - 1] += diff;
    return 0;
}

static int read_file(struct rk_load *l)
{
    struct profile_meta m = { 0 };
    struct profile_graph_desc d;

    if (read_totals(l) < 0 || read_threads(l) < 0 || read_nodes(l) < 0 ||
        read_edges(l) < 0 || thread_totals(l) < 0)
        return -1;
    if (!(l->ft_off = frame_threads_off(l)))
        return fail(l, "out of memory");
    d = (struct profile_graph_desc){
        .flat = l->flat, .nflat = l->nnodes - 1, .edges = l->edges,
        .nedges = l->nedges, .thread_samples = l->thread_samples,
        .sample_count = l->count, .frame_threads_off = l->ft_off,
        .frame_threads = l->ft };
    if (profile_set_graph(l->p, &d) < 0)
        return fail(l, "%s", errno == ENOMEM ? "out of memory"
                    : "the call graph does not hold together (a function's "
                      "total above all samples, or its self above its "
                      "total)");
    m.interval_ns = l->interval;
    if (profile_set_meta(l->p, &m) < 0)
        return fail(l, "out of memory");
    return 0;
}

struct profile *load_racket(const char *buf, size_t len, const char *name,
                            char *err, size_t errlen)
{
    struct rk_load l = { .name = name ? name : "<buffer>", .err = err,
                         .errlen = errlen };
    char why[200];
    int rc = -1;

    if (json_parse(&l.j, buf, len, why, sizeof(why)) < 0)
        fail(&l, "%s", why);
    else if (!(l.p = profile_new()) || profile_set_weight_unit(l.p, 1) < 0)
        fail(&l, "out of memory");
    else
        rc = read_file(&l);
    if (rc < 0) {
        profile_free(l.p);
        l.p = NULL;
    }
    json_free(&l.j);
    free(l.node_at);
    free(l.frame_of);
    free(l.ft_end);
    free(l.flat);
    free(l.edges);
    free(l.thread_json);
    free(l.by_id);
    free(l.thread_samples);
    free(l.ft_off);
    free(l.ft);
    return l.p;
}
