/* export_pprof.c - gzip-compressed profile.proto (FORMATS.md section 3).
 *
 * Read by `go tool pprof`, Pyroscope, Parca and speedscope, and by
 * load_pprof (sproftop -i).  It is the richest format we write and the
 * one that round-trips: save -> load -> save gives the same bytes.
 *
 * What goes where
 *   sample_type   samples/count, then cpu/nanoseconds (wall/nanoseconds
 *                 for --idle profiles): a stack's weight as a count of
 *                 nominal intervals (profile_weight_count: its samples,
 *                 sampled at one rate) and as time (profile_weight_ns),
 *                 so go tool pprof's Total is the time the samples stand
 *                 for even when the rate changed;
 *   sample        one per unique stack of each thread, with the labels
 *                 thread_id (num) and thread_name (str), and pid (num)
 *                 and process_name (str) for a thread whose process is
 *                 known (profile_thread_set_process); a profile that
 *                 keeps per-second counts (window.h) has one per stack
 *                 and second instead, with the label timestamp_ns (num,
 *                 unit nanoseconds): the second's wall-clock start, in
 *                 whole seconds, so load_pprof puts it back in the same
 *                 second; its samples older than the ring come last,
 *                 without a timestamp;
 *   mapping       one per module, its range spanning the sampled symbol
 *                 addresses we saw in it; the main executable (named like
 *                 argv[0]) first, as pprof tools expect; for a module
 *                 named without its debug info, its build_id and the
 *                 file_offset of memory_start, so that the names can be
 *                 found later (load_pprof keeps them);
 *   location      one per distinct run of frames that share an address:
 *                 a real frame and the frames inlined into it (same
 *                 module), lines innermost first, at the real frame's
 *                 symbol address;
 *   function      one per frame: name (also as system_name), file, first
 *                 line;
 *   period        the sampling interval, period_type cpu|wall/nanoseconds;
 *   time_nanos, duration_nanos, and comments "pid: N", "cmdline: ...",
 *                 "comm: ..." that load_pprof reads back.
 *
 * Line numbers: the call tree keys nodes by function, not by line, so the
 * sampled line of each stack is not known here; Line.line is left 0
 * (unknown) rather than made up.  Function.start_line carries the
 * function's first line.  A Python function's location is the function
 * itself (no address): its Line.line is that first line, the line py-spy
 * names a function by.
 *
 * Determinism: every id and string index is handed out in the order the
 * depth-first stack walk first needs it, and gzip is written by zlib with
 * a fixed level, mtime 0 and no file name, so equal profiles give equal
 * bytes whatever their frame ids.  Strings must be UTF-8 in protobuf:
 * invalid bytes become U+FFFD.
 */
#include "export.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "idtab.h"
#include "pb.h"
#include "profile.h"
#include "strarena.h"
#include "util.h"
#include "vec.h"
#include "window.h"

#define GZIP_LEVEL 6         /* zlib's default; fixed so output is stable */
#define GZIP_WBITS (15 + 16) /* 32 KiB window, gzip wrapper */
#define NO_ID UINT32_MAX

/* A location: a run of frames at one address. */
struct loc {
    size_t off;         /* first frame in w->pool (outermost first) */
    uint32_t n;         /* frames in the run */
    uint32_t mapping;   /* mapping id, 0 for none */
    uint64_t addr;      /* symbol address of the outermost frame */
};

struct mapping {
    uint32_t filename;  /* string index */
    uint64_t start;     /* lowest location address, 0 if none */
    uint64_t limit;     /* highest location address + 1, 0 if none */
    bool has_files;     /* a function in it names its source file */
    uint32_t build_id;  /* string index of its frames' build-id, 0 if none */
    uint64_t bias;      /* address - file offset of those frames */
    bool has_bias;      /* bias is known */
};

struct writer {
    const struct profile *p;
    const struct profile_meta *meta;
    struct strarena st;     /* the string table, in order (sanitized) */
    uint32_t *fn_of_frame;  /* frame id -> function id, 0 until used */
    uint32_t *fn_frames;    /* function id - 1 -> frame id */
    uint32_t nfn;
    uint32_t *map_of_str;   /* string index -> mapping id, 0 for none */
    size_t map_of_str_cap;
    struct mapping *maps;   /* mapping id - 1 -> mapping */
    size_t nmaps, maps_cap;
    struct loc *locs;       /* location id - 1 -> location */
    size_t nlocs, locs_cap;
    uint32_t *pool;         /* frame runs of all locations */
    size_t pool_n, pool_cap;
    struct idtab loc_ix;    /* hash of a run -> location id - 1 */
    uint64_t *ids;          /* scratch: a sample's location ids */
    size_t ids_cap;
    struct pb_buf samples;  /* encoded Sample fields */
    struct pb_buf msg;      /* scratch: one submessage */
    struct pb_buf sub;      /* scratch: a submessage inside msg */
    uint32_t s_thread_id;   /* string indexes of label keys */
    uint32_t s_thread_name;
    uint32_t s_pid;         /* "pid", "process_name": interned at the */
    uint32_t s_process_name;/* first thread with a process (0 before) */
    uint32_t s_timestamp;
    uint32_t s_ns;          /* "nanoseconds" */
    bool oom;
};

/* --- strings ------------------------------------------------------------- */

/* Intern a C string, replacing invalid UTF-8 with U+FFFD.  NULL and ""
 * are index 0. */
static uint32_t intern(struct writer *w, const char *s)
{
    static const char repl[] = "\xef\xbf\xbd";
    const uint8_t *u = (const uint8_t *)s;
    size_t len, i;
    char *clean, *o;
    uint32_t id;

    if (!s || !*s)
        return 0;
    len = strlen(s);
    for (i = 0; i < len;) {
        size_t k = util_utf8_decode(u + i, len - i, NULL);

        if (!k)
            break;
        i += k;
    }
    if (i == len) {
        id = strarena_intern_id(&w->st, s, len);
    } else {
        if (len > SIZE_MAX / 3)
            return NO_ID;
        clean = malloc(len * 3);
        if (!clean)
            return NO_ID;
        o = clean;
        for (i = 0; i < len;) {
            size_t k = util_utf8_decode(u + i, len - i, NULL);

            if (k) {
                memcpy(o, s + i, k);
                o += k;
                i += k;
            } else {
                memcpy(o, repl, 3);
                o += 3;
                i++;
            }
        }
        id = strarena_intern_id(&w->st, clean, (size_t)(o - clean));
        free(clean);
    }
    if (id == NO_ID)
        w->oom = true;
    return id;
}

/* --- functions, mappings, locations -------------------------------------- */

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

static uint32_t function_of(struct writer *w, uint32_t frame)
{
    const struct frame_desc *d = profile_frame(w->p, frame);

    if (w->fn_of_frame[frame])
        return w->fn_of_frame[frame];
    /* fn_frames has a slot per frame, allocated up front. */
    intern(w, d->name);
    intern(w, d->file);
    w->fn_frames[w->nfn++] = frame;
    w->fn_of_frame[frame] = w->nfn;
    return w->nfn;
}

static uint32_t mapping_of(struct writer *w, const char *module)
{
    uint32_t s;

    if (!nonempty(module))
        return 0;
    s = intern(w, module);
    if (s == NO_ID)
        return 0;
    if (VEC_RESERVE_ZERO(w->map_of_str, w->map_of_str_cap, (size_t)s + 1) < 0) {
        w->oom = true;
        return 0;
    }
    if (w->map_of_str[s])
        return w->map_of_str[s];
    if (VEC_RESERVE(w->maps, w->maps_cap, w->nmaps + 1) < 0) {
        w->oom = true;
        return 0;
    }
    w->maps[w->nmaps++] = (struct mapping){ .filename = s };
    w->map_of_str[s] = (uint32_t)w->nmaps;
    return (uint32_t)w->nmaps;
}

static uint64_t run_hash(const uint32_t *f, uint32_t n)
{
    return util_hash_bytes(f, (size_t)n * sizeof(*f), n);
}

struct run_probe {
    const struct writer *w;
    const uint32_t *run;
    uint32_t n;
};

static int run_eq(void *ctx, uint32_t id)
{
    const struct run_probe *q = ctx;
    const struct loc *l = &q->w->locs[id];

    return l->n == q->n &&
           memcmp(q->w->pool + l->off, q->run, q->n * sizeof(*q->run)) == 0;
}

/* The location id of run[0..n) (outermost frame first), created on first
 * use; 0 on OOM. */
static uint32_t location_of(struct writer *w, const uint32_t *run, uint32_t n)
{
    const struct frame_desc *outer = profile_frame(w->p, run[0]);
    struct run_probe q = { w, run, n };
    uint64_t h = run_hash(run, n);
    uint32_t mid, found = idtab_find(&w->loc_ix, h, run_eq, &q);
    struct loc *l;

    if (found != IDTAB_NONE)
        return found + 1;
    if (w->nlocs >= UINT32_MAX - 1 ||
        VEC_RESERVE(w->locs, w->locs_cap, w->nlocs + 1) < 0 ||
        VEC_RESERVE(w->pool, w->pool_cap, w->pool_n + n) < 0 ||
        idtab_insert(&w->loc_ix, h, (uint32_t)w->nlocs) < 0)
        goto oom;
    /* Mapping first, then functions innermost first: the order the
     * strings are needed in when the location is written. */
    mid = mapping_of(w, outer->module);
    if (mid && outer->build_id && !w->maps[mid - 1].build_id)
        w->maps[mid - 1].build_id = intern(w, outer->build_id);
    if (mid && outer->build_id && outer->addr && !w->maps[mid - 1].has_bias) {
        w->maps[mid - 1].bias = outer->addr - outer->offset;
        w->maps[mid - 1].has_bias = true;
    }
    for (uint32_t k = n; k-- > 0;)
        function_of(w, run[k]);
    l = &w->locs[w->nlocs];
    *l = (struct loc){ .off = w->pool_n, .n = n, .mapping = mid,
                       .addr = outer->addr };
    memcpy(w->pool + w->pool_n, run, n * sizeof(*run));
    w->pool_n += n;
    if (mid && l->addr) {
        struct mapping *m = &w->maps[mid - 1];

        if (!m->start || l->addr < m->start)
            m->start = l->addr;
        if (l->addr >= m->limit)
            m->limit = l->addr + 1;
    }
    for (uint32_t k = 0; mid && k < n; k++)
        if (nonempty(profile_frame(w->p, run[k])->file))
            w->maps[mid - 1].has_files = true;
    return (uint32_t)++w->nlocs;
oom:
    w->oom = true;
    return 0;
}

/* Does frame b continue the run that starts at frame a: inlined into it
 * and in the same module (so the location's mapping fits every line)? */
static bool same_run(const struct profile *p, uint32_t a, uint32_t b)
{
    const struct frame_desc *fa = profile_frame(p, a);
    const struct frame_desc *fb = profile_frame(p, b);
    const char *ma = nonempty(fa->module), *mb = nonempty(fb->module);

    if (!fb->inlined || fb->kind != FRAME_FUNC || fa->kind != FRAME_FUNC)
        return false;
    return ma == mb || (ma && mb && strcmp(ma, mb) == 0);
}

/* --- samples ------------------------------------------------------------- */

/* A weight as pprof's int64 time value (nanoseconds), capped. */
static uint64_t time_value(const struct profile *p, uint64_t weight)
{
    uint64_t ns = profile_weight_ns(p, weight);

    return ns > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : ns;
}

/* One Label of the Sample being built in w->msg: the key (a string
 * index) and v in `field`, PPROF_LABEL_NUM (then in `unit`, a string
 * index, when that is not 0) or PPROF_LABEL_STR (a string index). */
static void put_label(struct writer *w, uint32_t key, uint32_t field,
                      uint64_t v, uint32_t unit)
{
    pb_buf_clear(&w->sub);
    pb_put_uint(&w->sub, PPROF_LABEL_KEY, key);
    pb_put_uint(&w->sub, field, v);
    pb_put_nonzero(&w->sub, PPROF_LABEL_NUM_UNIT, unit);
    pb_put_bytes(&w->msg, PPROF_SAMPLE_LABEL, w->sub.data, w->sub.len);
}

/* One Sample: the stack, its count, its thread, and the wall-clock second
 * `second` of the profile's ring (UINT64_MAX: none). */
static int write_sample_at(void *ctx, uint32_t thread, const uint32_t *frames,
                           size_t n, uint64_t second, uint64_t weight)
{
    struct writer *w = ctx;
    const struct profile_thread *t = profile_thread_at(w->p, thread);
    uint64_t values[2];
    size_t nids = 0;

    if (VEC_RESERVE(w->ids, w->ids_cap, n) < 0)
        goto oom;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        uint32_t id;

        while (j < n && same_run(w->p, frames[i], frames[j]))
            j++;
        id = location_of(w, frames + i, (uint32_t)(j - i));
        if (!id)
            goto oom;
        w->ids[nids++] = id;
        i = j;
    }
    /* pprof lists a stack leaf first. */
    for (size_t i = 0; i < nids / 2; i++) {
        uint64_t tmp = w->ids[i];

        w->ids[i] = w->ids[nids - 1 - i];
        w->ids[nids - 1 - i] = tmp;
    }
    values[0] = profile_weight_count(w->p, weight);
    values[1] = time_value(w->p, weight);
    pb_buf_clear(&w->msg);
    pb_put_packed(&w->msg, PPROF_SAMPLE_LOCATION_ID, w->ids, nids);
    pb_put_packed(&w->msg, PPROF_SAMPLE_VALUE, values, 2);
    put_label(w, w->s_thread_id, PPROF_LABEL_NUM, (uint64_t)t->tid, 0);
    put_label(w, w->s_thread_name, PPROF_LABEL_STR, intern(w, t->name), 0);
    if (t->pid) {
        if (!w->s_pid) {
            w->s_pid = intern(w, "pid");
            w->s_process_name = intern(w, "process_name");
        }
        put_label(w, w->s_pid, PPROF_LABEL_NUM, (uint64_t)t->pid, 0);
        if (t->process)
            put_label(w, w->s_process_name, PPROF_LABEL_STR,
                      intern(w, t->process), 0);
    }
    if (second != UINT64_MAX) {
        int64_t wall = (int64_t)(second * WINDOW_NS_PER_S) +
                       profile_time_wall_offset(w->p);
        uint64_t whole = wall > 0 ? (uint64_t)wall / WINDOW_NS_PER_S : 0;

        put_label(w, w->s_timestamp, PPROF_LABEL_NUM,
                  whole * WINDOW_NS_PER_S, w->s_ns);
    }
    pb_put_bytes(&w->samples, PPROF_SAMPLE, w->msg.data, w->msg.len);
    return w->oom ? -1 : 0;
oom:
    w->oom = true;
    return -1;
}

static int write_sample(void *ctx, uint32_t thread, const uint32_t *frames,
                        size_t n, uint64_t count)
{
    return write_sample_at(ctx, thread, frames, n, UINT64_MAX, count);
}

/* --- the Profile message ------------------------------------------------- */

static void put_value_type(struct writer *w, struct pb_buf *out,
                           uint32_t field, uint32_t type, uint32_t unit)
{
    pb_buf_clear(&w->msg);
    pb_put_uint(&w->msg, PPROF_VT_TYPE, type);
    pb_put_uint(&w->msg, PPROF_VT_UNIT, unit);
    pb_put_bytes(out, field, w->msg.data, w->msg.len);
}

/* The records' messages: record i of n (w->maps, w->locs, w->fn_frames)
 * as a submessage `field` of out, built in w->msg by put: its id (field
 * id_field) is i + 1, then what put adds. */
static void put_records(struct writer *w, struct pb_buf *out, uint32_t field,
                        uint32_t id_field, size_t n,
                        void (*put)(struct writer *w, size_t i))
{
    for (size_t i = 0; i < n; i++) {
        pb_buf_clear(&w->msg);
        pb_put_uint(&w->msg, id_field, i + 1);
        put(w, i);
        pb_put_bytes(out, field, w->msg.data, w->msg.len);
    }
}

static void put_mapping(struct writer *w, size_t i)
{
    const struct mapping *m = &w->maps[i];

    pb_put_nonzero(&w->msg, PPROF_MAPPING_START, m->start);
    pb_put_nonzero(&w->msg, PPROF_MAPPING_LIMIT, m->limit);
    /* 0 is the field's default: written only when it says more, so
     * that what the reader makes of an absent one writes the same */
    if (m->build_id && m->has_bias && m->start > m->bias)
        pb_put_uint(&w->msg, PPROF_MAPPING_OFFSET, m->start - m->bias);
    pb_put_uint(&w->msg, PPROF_MAPPING_FILENAME, m->filename);
    if (m->build_id && m->build_id != NO_ID)
        pb_put_uint(&w->msg, PPROF_MAPPING_BUILD_ID, m->build_id);
    pb_put_uint(&w->msg, PPROF_MAPPING_HAS_FUNCTIONS, 1);
    if (m->has_files)
        pb_put_uint(&w->msg, PPROF_MAPPING_HAS_FILENAMES, 1);
}

static void put_location(struct writer *w, size_t i)
{
    const struct loc *l = &w->locs[i];

    pb_put_nonzero(&w->msg, PPROF_LOCATION_MAPPING_ID, l->mapping);
    pb_put_nonzero(&w->msg, PPROF_LOCATION_ADDRESS, l->addr);
    for (uint32_t k = l->n; k-- > 0;) {
        pb_buf_clear(&w->sub);
        const struct frame_desc *d = profile_frame(w->p, w->pool[l->off + k]);

        pb_put_uint(&w->sub, PPROF_LINE_FUNCTION_ID,
                    w->fn_of_frame[w->pool[l->off + k]]);
        /* a Python function's location is the function itself: its
         * line is the one that names it (py-spy's "name (file:line)") */
        if (profile_frame_is_script(d) && d->line)
            pb_put_uint(&w->sub, PPROF_LINE_LINE, d->line);
        pb_put_bytes(&w->msg, PPROF_LOCATION_LINE, w->sub.data, w->sub.len);
    }
}

static void put_function(struct writer *w, size_t i)
{
    const struct frame_desc *d = profile_frame(w->p, w->fn_frames[i]);
    uint32_t name = intern(w, d->name);

    pb_put_uint(&w->msg, PPROF_FUNCTION_NAME, name);
    pb_put_uint(&w->msg, PPROF_FUNCTION_SYSTEM_NAME, name);
    if (nonempty(d->file))
        pb_put_uint(&w->msg, PPROF_FUNCTION_FILENAME, intern(w, d->file));
    pb_put_nonzero(&w->msg, PPROF_FUNCTION_START_LINE, d->line);
}

/* Comments load_pprof reads back: "pid: N", "cmdline: ...", "comm: ...";
 * a profile of several processes says "pids: A,B" (profile_pid_list),
 * which it does not (every sample's "pid" label carries its own). */
static size_t meta_comments(struct writer *w, uint64_t out[3])
{
    const struct profile_meta *m = w->meta;
    size_t n = 0;
    char *s = NULL, pids[256];
    size_t np = profile_pid_list(w->p, pids, sizeof pids);

    if (np && asprintf(&s, "%s: %s", np > 1 ? "pids" : "pid", pids) >= 0) {
        out[n++] = intern(w, s);
        free(s);
        s = NULL;
    }
    if (nonempty(m->cmdline) && asprintf(&s, "cmdline: %s", m->cmdline) >= 0) {
        out[n++] = intern(w, s);
        free(s);
        s = NULL;
    }
    if (nonempty(m->comm) && asprintf(&s, "comm: %s", m->comm) >= 0) {
        out[n++] = intern(w, s);
        free(s);
    }
    return n;
}

/* pprof tools take the first mapping for the main binary ("File:" in
 * go tool pprof): make it the module named like the command's argv[0]
 * when a frame comes from it. */
static void main_mapping_first(struct writer *w)
{
    const char *cmd = w->meta->cmdline, *base, *end;
    uint32_t nf = profile_frame_count(w->p);
    size_t len;

    if (!nonempty(cmd))
        return;
    end = cmd + strcspn(cmd, " ");
    base = cmd;
    for (const char *c = cmd; c < end; c++)
        if (*c == '/')
            base = c + 1;
    len = (size_t)(end - base);
    for (uint32_t i = 0; i < nf && len; i++) {
        const char *m = profile_frame(w->p, i)->module;

        if (m && strlen(m) == len && memcmp(m, base, len) == 0) {
            mapping_of(w, m);
            return;
        }
    }
}

/* Encode the whole Profile message into out. */
static int encode(struct writer *w, struct pb_buf *out)
{
    const struct profile_meta *m = w->meta;
    uint32_t s_samples, s_count, s_time, s_ns;
    uint64_t comments[3];
    size_t ncomments;
    struct profile_timespan span;

    profile_time_span(w->p, &span);
    bool timed = span.any;

    if (strarena_intern_id(&w->st, "", 0) != 0)  /* string_table[0] is "" */
        return -1;
    s_samples = intern(w, "samples");
    s_count = intern(w, "count");
    s_time = intern(w, m->idle ? "wall" : "cpu");
    s_ns = intern(w, "nanoseconds");
    w->s_thread_id = intern(w, "thread_id");
    w->s_thread_name = intern(w, "thread_name");
    w->s_ns = s_ns;
    if (timed)
        w->s_timestamp = intern(w, "timestamp_ns");
    if (w->oom)
        return -1;
    main_mapping_first(w);
    if ((timed ? profile_time_foreach(w->p, write_sample_at, w)
               : profile_foreach_stack(w->p, write_sample, w)) != 0 ||
        w->oom)
        return -1;
    ncomments = meta_comments(w, comments);

    put_value_type(w, out, PPROF_SAMPLE_TYPE, s_samples, s_count);
    put_value_type(w, out, PPROF_SAMPLE_TYPE, s_time, s_ns);
    pb_put_raw(out, w->samples.data, w->samples.len);
    put_records(w, out, PPROF_MAPPING, PPROF_MAPPING_ID, w->nmaps,
                put_mapping);
    put_records(w, out, PPROF_LOCATION, PPROF_LOCATION_ID, w->nlocs,
                put_location);
    put_records(w, out, PPROF_FUNCTION, PPROF_FUNCTION_ID, w->nfn,
                put_function);
    for (uint32_t i = 0; i < w->st.nstr; i++) {
        const char *str = strarena_str(&w->st, i);

        pb_put_bytes(out, PPROF_STRING_TABLE, str, strlen(str));
    }
    if (m->start_ns)
        pb_put_uint(out, PPROF_TIME_NANOS, m->start_ns);
    if (m->duration_ns)
        pb_put_uint(out, PPROF_DURATION_NANOS, m->duration_ns);
    put_value_type(w, out, PPROF_PERIOD_TYPE, s_time, s_ns);
    if (m->interval_ns)
        pb_put_uint(out, PPROF_PERIOD, m->interval_ns);
    pb_put_packed(out, PPROF_COMMENT, comments, ncomments);
    /* Without an interval every time value is 0: show counts instead. */
    if (!profile_weight_timed(w->p))
        pb_put_uint(out, PPROF_DEFAULT_SAMPLE_TYPE, s_samples);
    return w->oom || out->oom || w->msg.oom || w->sub.oom || w->samples.oom
               ? -1
               : 0;
}

/* gzip data[0..len) to f: fixed level, zlib's default header (mtime 0,
 * no name), so the same bytes in give the same bytes out. */
static int gzip_write(const uint8_t *data, size_t len, FILE *f)
{
    z_stream zs = { 0 };
    uint8_t chunk[64 * 1024];
    int rc = 0, zr;

    if (deflateInit2(&zs, GZIP_LEVEL, Z_DEFLATED, GZIP_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        errno = ENOMEM;
        return -1;
    }
    zs.next_in = (Bytef *)(uintptr_t)data;
    do {
        /* avail_in is an unsigned int: feed huge buffers in slices. */
        size_t left = len - (size_t)(zs.next_in - data);
        uInt feed = left > 1u << 30 ? 1u << 30 : (uInt)left;
        int flush = feed == left ? Z_FINISH : Z_NO_FLUSH;

        zs.avail_in = feed;
        do {
            zs.next_out = chunk;
            zs.avail_out = sizeof(chunk);
            zr = deflate(&zs, flush);
            if (zr == Z_STREAM_ERROR) {
                errno = EIO;
                rc = -1;
                goto out;
            }
            if (fwrite(chunk, 1, sizeof(chunk) - zs.avail_out, f) !=
                sizeof(chunk) - zs.avail_out) {
                rc = -1;
                goto out;
            }
        } while (zs.avail_out == 0);
    } while (zr != Z_STREAM_END);
out:
    deflateEnd(&zs);
    return rc;
}

int export_pprof_write(const struct profile *p, const struct export_opts *o,
                       FILE *f)
{
    uint32_t nf = profile_frame_count(p);
    struct writer w = {
        .p = p,
        .meta = profile_meta(p),
        .fn_of_frame = calloc(nf ? nf : 1, sizeof(*w.fn_of_frame)),
        .fn_frames = malloc((nf ? nf : 1) * sizeof(*w.fn_frames)),
    };
    struct pb_buf out = { 0 };
    int rc = -1;

    (void)o;
    if (!w.fn_of_frame || !w.fn_frames || encode(&w, &out) != 0)
        goto done;
    rc = gzip_write(out.data, out.len, f);
done:
    pb_buf_free(&out);
    pb_buf_free(&w.samples);
    pb_buf_free(&w.msg);
    pb_buf_free(&w.sub);
    strarena_free(&w.st);
    free(w.fn_of_frame);
    free(w.fn_frames);
    free(w.map_of_str);
    free(w.maps);
    free(w.locs);
    free(w.pool);
    idtab_free(&w.loc_ix);
    free(w.ids);
    return rc;
}
