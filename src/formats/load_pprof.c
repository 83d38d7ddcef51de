/* load_pprof.c - the pprof reader (sproftop -i x.pb.gz).
 *
 * Reads profile.proto, gzip-compressed (as pprof tools write it) or raw,
 * from sproftop itself or from any other producer (Go's runtime/pprof,
 * Parca, ...).  FORMATS.md section 3 lists the fields.
 *
 * Mapping to the aggregate:
 *   - threads come from the sample labels thread_id (num) and
 *     thread_name (str); a sample with neither goes to thread "all"
 *     (tid 0), one with only a name to a thread with a synthetic tid
 *     (2^40 + the name's string index, far above any Linux tid);
 *   - a location's lines are innermost first and a sample's locations
 *     leaf first: both are reversed into the bottom-first stack that
 *     profile_add_stack takes, so an inlined call expands to one frame per
 *     line, the inner ones marked inlined;
 *   - a frame is (function name, function file, the location's mapping
 *     file as module); its first line is Function.start_line and its
 *     address the address of a location it is the outermost line of;
 *   - a mapping's build_id goes to its frames, with their file offsets
 *     (address - memory_start + file_offset), so that code named without
 *     debug info ("[module+0x...]", or a bare address) can be named once
 *     the module's debug info is found (profile_rename_frames); such a
 *     frame is code (FRAME_FUNC) even when its name is in brackets;
 *   - the count is the samples/count value, or the first sample type's
 *     when there is no samples/count; a sample type in units of time
 *     (cpu/nanoseconds, wall/...) is each sample's weight (profile.h,
 *     "Weights") when it is not count x period for every sample (off-CPU
 *     stretches that are not whole periods, another producer's weights):
 *     the samples are then added again with their times, in that type's
 *     unit; otherwise the counts are the weights, each one period long
 *     (sproftop writes counts of the shortest period, so a live run
 *     whose rate changed loads so), and a round trip keeps the bytes;
 *   - a sample's time is its num label timestamp_ns (as export_pprof
 *     writes it) or end_timestamp_ns (Datadog's), wall-clock ns: a file
 *     with times gets per-second counts (window.h) over its newest hour,
 *     so the TUI shows its timeline;
 *   - metadata: period (when period_type's unit is nanoseconds),
 *     time_nanos, duration_nanos, "wall" as a sample type for idle
 *     profiles, and the comments "pid: N", "cmdline: ...", "comm: ..."
 *     that export_pprof writes;
 *   - strings are UTF-8 in protobuf: bytes that are not become U+FFFD.
 *
 * Untrusted input: the gunzipped size is capped (PPROF_MAX_INFLATED),
 * every length is checked by the pb decoder before use, message nesting
 * is fixed by the schema (nothing recurses on input), ids must be
 * non-zero and unique, every reference (string index, mapping, function,
 * location id) must resolve, stacks are bounded by LOAD_MAX_DEPTH, the
 * total count by PROFILE_COUNT_LIMIT, and the memory the records take and
 * the frames the samples expand to by budgets tied to the message's size
 * (pprof.h).  The first problem stops the load with
 * "NAME: byte N: why", N counting bytes of the protobuf message (after
 * gunzip for compressed files) or of the gzip stream for gzip errors.
 *
 * Pass 1 (gunzip, the Profile message into records) is in pprof.c; this
 * file resolves strings and ids (pass 2), interns frames (pass 3), adds
 * the samples (pass 4) and sets the metadata.
 */
#include "load.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idtab.h"
#include "pprof.h"
#include "profile.h"
#include "util.h"
#include "window.h"
#include "sorted.h"

#define SYNTH_TID_BASE (1ll << 40)    /* tids for threads known by name only */

/* --- pass 2: strings and ids --------------------------------------------- */

/* Bytes string s takes once each invalid UTF-8 byte becomes U+FFFD (3
 * bytes); with dst, also write it there. */
static size_t utf8_clean(const struct span *s, char *dst)
{
    size_t n = 0;

    for (size_t i = 0; i < s->len;) {
        size_t k = pb_utf8_seq(s->data + i, s->len - i);

        if (k == 0) {
            if (dst)
                memcpy(dst + n, "\xef\xbf\xbd", 3);
            n += 3;
            i++;
        } else {
            if (dst)
                memcpy(dst + n, s->data + i, k);
            n += k;
            i += k;
        }
    }
    return n;
}

/* NUL-terminated copies of the string table.  Protobuf strings are UTF-8:
 * invalid bytes become U+FFFD here, as export_pprof writes them, so names
 * that differ only in invalid bytes are one name from the start. */
static int copy_strings(struct loader *ld, size_t total)
{
    size_t need = 0;
    char *o;

    if (ld->nstrs == 0)
        return pprof_fail(ld, total, "no string table");
    if (ld->strs[0].len != 0)
        return pprof_fail(ld, ld->strs[0].off, "string_table[0] is not empty");
    for (size_t i = 0; i < ld->nstrs; i++) {
        const struct span *s = &ld->strs[i];
        const void *nul = memchr(s->data, '\0', s->len);

        if (nul)
            return pprof_fail(ld, s->off + (size_t)((const uint8_t *)nul - s->data),
                        "NUL byte in string %zu", i);
        need += utf8_clean(s, NULL) + 1;
    }
    if (pprof_charge(ld, ld->nstrs * sizeof(*ld->str) + need,
                     ld->strs[ld->nstrs - 1].off))
        return -1;
    ld->str = malloc(ld->nstrs * sizeof(*ld->str));
    ld->str_arena = malloc(need);
    if (!ld->str || !ld->str_arena)
        return pprof_oom(ld);
    o = ld->str_arena;
    for (size_t i = 0; i < ld->nstrs; i++) {
        size_t n = utf8_clean(&ld->strs[i], o);

        o[n] = '\0';
        ld->str[i] = o;
        o += n + 1;
    }
    return 0;
}

/* The string at index idx (referenced at byte off); NULL with an error
 * when out of range. */
static const char *string_at(struct loader *ld, uint64_t idx, size_t off)
{
    if (idx >= ld->nstrs) {
        pprof_fail(ld, off, "string index %" PRIu64 " out of range (%zu strings)",
             idx, ld->nstrs);
        return NULL;
    }
    return ld->str[idx];
}

/* qsort context-free comparators over index arrays need the arrays: sort
 * (id, index) pairs instead. */
struct idpair {
    uint64_t id;
    uint32_t idx;
};

static int cmp_idpair(const void *a, const void *b)
{
    const struct idpair *x = a, *y = b;

    return util_cmp_pair(x->id, x->idx, y->id, y->idx);
}

/* Sort the ids of n records (id at byte offset id_off of each elem-sized
 * record, message offset at off_off) into *out; ids must be non-zero and
 * unique. */
static int index_ids(struct loader *ld, const void *recs, size_t n,
                     size_t elem, size_t id_off, size_t off_off,
                     const char *what, struct idpair **out)
{
    struct idpair *v = malloc((n ? n : 1) * sizeof(*v));
    const char *base = recs;

    *out = v;
    if (!v)
        return pprof_oom(ld);
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        size_t off;

        memcpy(&id, base + i * elem + id_off, sizeof(id));
        memcpy(&off, base + i * elem + off_off, sizeof(off));
        if (id == 0)
            return pprof_fail(ld, off, "%s with id 0", what);
        v[i] = (struct idpair){ id, (uint32_t)i };
    }
    sorted_sort(v, n, sizeof(*v), cmp_idpair);
    for (size_t i = 1; i < n; i++)
        if (v[i].id == v[i - 1].id) {
            size_t off;

            memcpy(&off, base + v[i].idx * elem + off_off, sizeof(off));
            return pprof_fail(ld, off, "duplicate %s id %" PRIu64, what, v[i].id);
        }
    return 0;
}

/* Index of the record with this id, NONE if absent. */
static uint32_t find_id(const struct idpair *v, size_t n, uint64_t id)
{
    size_t i = sorted_upper_bound(v, n, sizeof(*v),
                                  offsetof(struct idpair, id), id);

    return i > 0 && v[i - 1].id == id ? v[i - 1].idx : NONE;
}

/* --- pass 3: frames ------------------------------------------------------ */

static uint64_t key_hash(uint32_t fn, uint32_t map)
{
    return util_mix64((uint64_t)fn << 32 | map);
}

/* Index of key (fn, map), added if new (met at byte off); NONE on OOM
 * or past the memory budget (reported). */
static uint32_t key_of(struct loader *ld, uint32_t fn, uint32_t map,
                       size_t off)
{
    uint64_t h = key_hash(fn, map);
    uint32_t id = idtab_find(&ld->key_ix, h, NULL, NULL);
    struct fkey *k;

    if (id != IDTAB_NONE)
        return id;
    if (ld->nkeys >= NONE - 1 ||
        idtab_insert(&ld->key_ix, h, (uint32_t)ld->nkeys) < 0) {
        pprof_oom(ld);
        return NONE;
    }
    k = PUSH(ld, ld->keys, ld->nkeys, ld->keys_cap, off);
    if (!k)
        return NONE;
    *k = (struct fkey){ .fn = fn, .map = map, .frame = NONE };
    return (uint32_t)(ld->nkeys - 1);
}

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

/* The module of mapping index `map` in d->module (NULL for NONE or an
 * empty name), and the frame's origin: the kernel's for a mapping named
 * "[kernel.kallsyms]" (sproftop's and perf's) or lying in the kernel's
 * half of the address space (a module's).  0, or -1 with the error set
 * on a bad string index. */
static int map_module(struct loader *ld, uint32_t map, struct frame_desc *d)
{
    const char *s = NULL;

    if (map != NONE) {
        s = string_at(ld, ld->maps[map].filename, ld->maps[map].off);
        if (!s)
            return -1;
        if (profile_origin_of(s, NULL) == FRAME_ORIGIN_KERNEL ||
            ld->maps[map].memory_start >= PROFILE_KERNEL_ADDR)
            d->origin = FRAME_ORIGIN_KERNEL;
    }
    d->module = nonempty(s);
    return 0;
}

/* The build-id of mapping index `map` (NULL for NONE or none), and the
 * file offset of addr in it (0 when unknown), into d.  A build-id counts
 * only beside a module (d->module, from map_module first): the writer
 * puts build-ids on the mappings of named modules, so a nameless one's
 * would not come back, and two frames that differ by it alone would
 * merge on the next load.  0, or -1 with the error set on a bad string
 * index. */
static int map_build_id(struct loader *ld, uint32_t map, uint64_t addr,
                        struct frame_desc *d)
{
    const struct mapping *m = map != NONE ? &ld->maps[map] : NULL;
    const char *s;

    if (!m || !m->build_id || !d->module)
        return 0;
    s = string_at(ld, m->build_id, m->off);
    if (!s)
        return -1;
    d->build_id = nonempty(s);
    if (d->build_id) {
        d->kind = FRAME_FUNC;
        if (addr >= m->memory_start)
            d->offset = addr - m->memory_start + m->file_offset;
    }
    return 0;
}

/* Resolve each location's mapping and its lines' functions to frame keys
 * (function, mapping); a key is inlined when it is ever a non-outermost
 * line.  Sets *nframes to the frames all locations will hold. */
static int resolve_keys(struct loader *ld, const struct idpair *maps,
                        const struct idpair *fns, size_t *nframes)
{
    *nframes = 0;
    for (size_t i = 0; i < ld->nlocs; i++) {
        struct location *loc = &ld->locs[i];

        loc->map = NONE;
        if (loc->mapping_id) {
            loc->map = find_id(maps, ld->nmaps, loc->mapping_id);
            if (loc->map == NONE)
                return pprof_fail(ld, loc->off, "unknown mapping id %" PRIu64,
                            loc->mapping_id);
        }
        for (uint32_t k = 0; k < loc->nlines; k++) {
            struct line *l = &ld->lines[loc->line0 + k];

            l->fn = find_id(fns, ld->nfns, l->function_id);
            if (l->fn == NONE)
                return pprof_fail(ld, loc->off, "unknown function id %" PRIu64,
                            l->function_id);
            l->key = key_of(ld, l->fn, loc->map, loc->off);
            if (l->key == NONE)
                return -1;
            if (k + 1 < loc->nlines)
                ld->keys[l->key].inlined = true;
            else if (!ld->keys[l->key].addr)
                ld->keys[l->key].addr = loc->address;
        }
        *nframes += loc->nlines ? loc->nlines : 1;
    }
    return 0;
}

/* Intern the frame of every key. */
static int intern_keys(struct loader *ld)
{
    for (size_t k = 0; k < ld->nkeys; k++) {
        struct fkey *key = &ld->keys[k];
        const struct function *fn = &ld->fns[key->fn];
        const char *name = string_at(ld, fn->name, fn->off);
        const char *file = string_at(ld, fn->filename, fn->off);
        struct frame_desc d = { .addr = key->addr, .inlined = key->inlined };

        if (!name || !file || map_module(ld, key->map, &d))
            return -1;
        d.name = *name ? name : "[unknown]";
        d.file = nonempty(file);
        d.line = fn->start_line <= UINT32_MAX ? (uint32_t)fn->start_line : 0;
        d.kind = (uint8_t)profile_name_kind(d.name);
        /* map_module found a kernel mapping by its address, or not */
        if (d.origin != FRAME_ORIGIN_KERNEL)
            d.origin = (uint8_t)profile_origin_of(d.module, d.file);
        if (map_build_id(ld, key->map, key->addr, &d))
            return -1;
        key->frame = profile_intern_frame(ld->p, &d);
        if (key->frame == PROFILE_NONE)
            return pprof_oom(ld);
    }
    return 0;
}

/* The frame of a location without lines (not symbolized): named by its
 * address, as pprof prints it; PROFILE_NONE with the error set. */
static uint32_t address_frame(struct loader *ld, const struct location *loc)
{
    char name[32];
    struct frame_desc d = { .name = name, .addr = loc->address,
                            .kind = FRAME_FUNC };
    uint32_t id;

    if (map_module(ld, loc->map, &d) ||
        map_build_id(ld, loc->map, loc->address, &d))
        return PROFILE_NONE;
    snprintf(name, sizeof(name), "0x%" PRIx64, loc->address);
    id = profile_intern_frame(ld->p, &d);
    if (id == PROFILE_NONE)
        pprof_oom(ld);
    return id;
}

/* Every location's frames (bottom first) and their lines into frames[]
 * and frame_lines[]. */
static int fill_frames(struct loader *ld)
{
    size_t nframes = 0;

    for (size_t i = 0; i < ld->nlocs; i++) {
        struct location *loc = &ld->locs[i];

        loc->frame0 = (uint32_t)nframes;
        if (loc->nlines == 0) {
            ld->frames[nframes] = address_frame(ld, loc);
            if (ld->frames[nframes] == PROFILE_NONE)
                return -1;
            ld->frame_lines[nframes++] = 0;
            continue;
        }
        for (uint32_t k = loc->nlines; k-- > 0;) {
            const struct line *l = &ld->lines[loc->line0 + k];

            ld->frames[nframes] = ld->keys[l->key].frame;
            ld->frame_lines[nframes++] =
                l->line <= UINT32_MAX ? (uint32_t)l->line : 0;
        }
    }
    return 0;
}

/* Resolve every location's mapping and functions and intern its frames:
 * first the keys, then their frames, then each location's run. */
static int build_frames(struct loader *ld, const struct idpair *maps,
                        const struct idpair *fns)
{
    size_t nframes;

    if (resolve_keys(ld, maps, fns, &nframes) ||
        pprof_charge(ld, nframes * (sizeof(*ld->frames) +
                                    sizeof(*ld->frame_lines)), 0))
        return -1;
    ld->frames = malloc((nframes ? nframes : 1) * sizeof(*ld->frames));
    ld->frame_lines = malloc((nframes ? nframes : 1) *
                             sizeof(*ld->frame_lines));
    if (!ld->frames || !ld->frame_lines)
        return pprof_oom(ld);
    if (intern_keys(ld) || fill_frames(ld))
        return -1;
    return 0;
}

/* --- pass 4: samples ----------------------------------------------------- */

/* Packed or not, a repeated varint field: call back per value. */
static int each_varint(struct loader *ld, const struct pb_field *f,
                       const char *what,
                       int (*fn)(struct loader *, void *, uint64_t, size_t),
                       void *ctx)
{
    struct pb_reader r;

    if (f->wire == PB_VARINT)
        return fn(ld, ctx, f->v, f->off);
    if (f->wire != PB_LEN)
        return pprof_wrong_wire(ld, f, what);
    pb_reader_sub(&r, f);
    while (r.pos < r.len) {
        uint64_t v;
        size_t at = r.base + r.pos;

        if (pb_read_varint(&r, &v))
            return pprof_reader_fail(ld, &r);
        if (fn(ld, ctx, v, at))
            return -1;
    }
    return 0;
}

struct sample {
    const struct idpair *locs;   /* location ids, sorted */
    uint32_t nlocids;            /* location ids in this sample */
    uint64_t nvalues;            /* values in this sample */
    uint64_t value;              /* the one we count */
    uint32_t value_index;        /* which one that is */
    size_t value_off;
    uint64_t tvalue;             /* the time value (loader.time_index) */
    size_t tvalue_off;
    bool has_tid, has_name, has_time, has_pid, has_pname;
    int64_t tid;
    int64_t pid;                 /* label pid */
    uint64_t pname;              /* label process_name: string index */
    uint64_t time;               /* wall-clock ns */
    uint64_t name;               /* string index */
    size_t name_off;
};

static int on_location_id(struct loader *ld, void *ctx, uint64_t id,
                          size_t off)
{
    struct sample *s = ctx;
    uint32_t idx = find_id(s->locs, ld->nlocs, id);

    if (idx == NONE)
        return pprof_fail(ld, off, "unknown location id %" PRIu64, id);
    if (s->nlocids == LOAD_MAX_DEPTH)
        return pprof_fail(ld, off, "stack deeper than %u frames", LOAD_MAX_DEPTH);
    ld->loc_scratch[s->nlocids++] = idx;
    return 0;
}

static int on_value(struct loader *ld, void *ctx, uint64_t v, size_t off)
{
    struct sample *s = ctx;

    if (s->nvalues == s->value_index) {
        s->value = v;
        s->value_off = off;
    }
    if (s->nvalues == ld->time_index) {
        s->tvalue = v;
        s->tvalue_off = off;
    }
    s->nvalues++;
    return 0;
}

/* Pass 1 (counts): note whether the sample's time value is its count x
 * period, and sum the times. */
static void note_time(struct loader *ld, const struct sample *s)
{
    unsigned __int128 t = (unsigned __int128)s->tvalue * ld->time_ns;

    if (ld->time_index == NONE)
        return;
    if (t != (unsigned __int128)s->value * ld->period_ns)
        ld->times_agree = false;
    if (!s->tvalue || (int64_t)s->tvalue < 0)
        ld->times_known = false;
    ld->time_total = t > UINT64_MAX - ld->time_total
                         ? UINT64_MAX
                         : ld->time_total + (uint64_t)t;
}

static int parse_label(struct loader *ld, const struct pb_field *mf,
                       struct sample *s)
{
    uint64_t key = 0, str = 0, num = 0;
    bool has_str = false, has_num = false;
    const char *k;
    struct pb_reader r;
    struct pb_field f;
    int rc;

    pb_reader_sub(&r, mf);
    while ((rc = pb_next(&r, &f)) == 1) {
        if (f.num == PPROF_LABEL_KEY &&
            pprof_get_varint(ld, &f, "Label.key", &key))
            return -1;
        if (f.num == PPROF_LABEL_STR) {
            if (pprof_get_varint(ld, &f, "Label.str", &str))
                return -1;
            has_str = true;
        }
        if (f.num == PPROF_LABEL_NUM) {
            if (pprof_get_varint(ld, &f, "Label.num", &num))
                return -1;
            has_num = true;
        }
    }
    if (pprof_sub_end(ld, &r, rc))
        return -1;
    k = string_at(ld, key, mf->off);
    if (!k || (has_str && !string_at(ld, str, mf->off)))
        return -1;
    if (strcmp(k, "thread_id") == 0 && has_num) {
        s->has_tid = true;
        s->tid = (int64_t)num;
    } else if (strcmp(k, "thread_name") == 0 && has_str) {
        s->has_name = true;
        s->name = str;
        s->name_off = mf->off;
    } else if (strcmp(k, "pid") == 0 && has_num && (int64_t)num > 0) {
        s->has_pid = true;
        s->pid = (int64_t)num;
    } else if (strcmp(k, "process_name") == 0 && has_str) {
        s->has_pname = true;
        s->pname = str;
    } else if ((strcmp(k, "timestamp_ns") == 0 ||
                strcmp(k, "end_timestamp_ns") == 0) && has_num &&
               (int64_t)num > 0) {
        s->has_time = true;
        s->time = num;
    }
    return 0;
}

static uint32_t sample_thread(struct loader *ld, const struct sample *s)
{
    const char *name = s->has_name ? ld->str[s->name] : NULL;

    if (name && !*name)
        name = NULL;
    if (s->has_tid)
        return profile_thread(ld->p, s->tid, name);
    if (name)
        return profile_thread(ld->p, SYNTH_TID_BASE + (int64_t)s->name, name);
    return profile_thread(ld->p, 0, "all");
}

/* Read the Sample at sp into s and check its values: as many as the
 * sample types, none negative.  0, or -1 with the loader's error set. */
static int read_sample(struct loader *ld, const struct span *sp,
                       struct sample *s)
{
    struct pb_field mf = { .data = sp->data, .len = sp->len,
                           .data_off = sp->off, .off = sp->off };
    struct pb_reader r;
    struct pb_field f;
    int rc;

    pb_reader_sub(&r, &mf);
    while ((rc = pb_next(&r, &f)) == 1) {
        switch (f.num) {
        case PPROF_SAMPLE_LOCATION_ID:
            if (each_varint(ld, &f, "Sample.location_id", on_location_id, s))
                return -1;
            break;
        case PPROF_SAMPLE_VALUE:
            if (each_varint(ld, &f, "Sample.value", on_value, s))
                return -1;
            break;
        case PPROF_SAMPLE_LABEL:
            if (f.wire != PB_LEN)
                return pprof_wrong_wire(ld, &f, "Sample.label");
            if (parse_label(ld, &f, s))
                return -1;
            break;
        default:
            break;
        }
    }
    if (pprof_sub_end(ld, &r, rc))
        return -1;
    if (s->nvalues != ld->ntypes)
        return pprof_fail(ld, sp->off, "sample has %" PRIu64 " values for %zu "
                    "sample types", s->nvalues, ld->ntypes);
    if ((int64_t)s->value < 0)
        return pprof_fail(ld, s->value_off, "negative sample value");
    return 0;
}

/* s's stack into ld->stack: its locations leaf first, each location's
 * frames bottom first, within LOAD_MAX_DEPTH and the message's frame
 * budget.  Its depth in *depth; 0, or -1 with the loader's error set. */
static int sample_stack(struct loader *ld, const struct span *sp,
                        const struct sample *s, size_t *depth)
{
    size_t d = 0;

    for (uint32_t i = s->nlocids; i-- > 0;) {
        const struct location *loc = &ld->locs[ld->loc_scratch[i]];
        uint32_t n = loc->nlines ? loc->nlines : 1;

        if (d + n > LOAD_MAX_DEPTH)
            return pprof_fail(ld, sp->off, "stack deeper than %u frames",
                        LOAD_MAX_DEPTH);
        if (n > ld->frames_budget - ld->frames_used)
            return pprof_fail(ld, sp->off, "the samples expand to more than "
                              "%" PRIu64 " frames for a %zu KiB profile "
                              "message", ld->frames_budget,
                              (ld->msg_len + 1023) >> 10);
        ld->frames_used += n;
        for (uint32_t k = 0; k < n; k++)
            ld->stack[d++] = (struct stack_frame){
                .frame = ld->frames[loc->frame0 + k],
                .line = ld->frame_lines[loc->frame0 + k],
                .addr = loc->address,
            };
    }
    *depth = d;
    return 0;
}

static int add_sample(struct loader *ld, const struct span *sp,
                      const struct idpair *locs, uint32_t value_index)
{
    struct sample s = { .locs = locs, .value_index = value_index };
    size_t depth = 0;
    uint32_t thread;
    uint64_t weight;

    if (read_sample(ld, sp, &s))
        return -1;
    if (s.value == 0)
        return 0;
    if (ld->weigh) {
        /* pass 2: note_time saw each of these time values positive, and
         * their sum below the limit */
        weight = s.tvalue;
    } else {
        if (s.value >= PROFILE_COUNT_LIMIT ||
            profile_samples(ld->p) + s.value >= PROFILE_COUNT_LIMIT)
            return pprof_fail(ld, s.value_off, "total count reaches 2^53");
        note_time(ld, &s);
        weight = s.value;
    }
    if (sample_stack(ld, sp, &s, &depth))
        return -1;
    thread = sample_thread(ld, &s);
    if (thread == PROFILE_NONE ||
        (s.has_pid && !profile_thread_at(ld->p, thread)->pid &&
         profile_thread_set_process(ld->p, thread, s.pid,
                                    s.has_pname && *ld->str[s.pname]
                                        ? ld->str[s.pname] : NULL) < 0))
        return pprof_oom(ld);
    if (s.has_time && !profile_time_enabled(ld->p) &&
        profile_time_enable(ld->p, WINDOW_MAX_SECONDS) < 0)
        return pprof_oom(ld);
    if (s.has_time ? profile_add_weighted_at(ld->p, thread, ld->stack, depth,
                                             s.value, weight, s.time)
                   : profile_add_weighted(ld->p, thread, ld->stack, depth,
                                          s.value, weight))
        return pprof_oom(ld);
    return 0;
}

/* ns per unit of a sample type's unit, 0 when it is not a time. */
static uint64_t time_unit_ns(const char *unit)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = { { "nanoseconds", 1 }, { "microseconds", 1000 },
                  { "milliseconds", 1000000 }, { "seconds", 1000000000 } };

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(unit, units[i].name) == 0)
            return units[i].ns;
    return 0;
}

/* Add every sample (pass 4); then, when their times do not agree with
 * their counts, again weighing their times.  0 or -1. */
static int add_samples(struct loader *ld, const struct idpair *locs,
                       uint32_t value_index)
{
    ld->times_agree = ld->times_known = true;
    for (size_t i = 0; i < ld->nsamples; i++)
        if (add_sample(ld, &ld->samples[i], locs, value_index))
            return -1;
    /* Without a period no count comes back out of a time: keep counts. */
    if (ld->time_index == NONE || !ld->period_ns || ld->times_agree ||
        !ld->times_known || ld->time_total >= PROFILE_COUNT_LIMIT)
        return 0;
    profile_reset(ld->p);
    if (profile_set_weight_unit(ld->p, ld->time_ns) < 0)
        return pprof_oom(ld);
    ld->weigh = true;
    ld->frames_used = 0;
    for (size_t i = 0; i < ld->nsamples; i++)
        if (add_sample(ld, &ld->samples[i], locs, value_index))
            return -1;
    return 0;
}

/* --- metadata ------------------------------------------------------------ */

static int set_meta(struct loader *ld)
{
    struct profile_meta m = { 0 };
    const char *s;

    if (ld->has_period_type) {
        s = string_at(ld, ld->period_type.unit, ld->period_type.off);
        if (!s || !string_at(ld, ld->period_type.type, ld->period_type.off))
            return -1;
        if (strcmp(s, "nanoseconds") == 0 && (int64_t)ld->period > 0)
            m.interval_ns = ld->period;
    }
    if ((int64_t)ld->time_nanos > 0)
        m.start_ns = ld->time_nanos;
    if ((int64_t)ld->duration_nanos > 0)
        m.duration_ns = ld->duration_nanos;
    for (size_t i = 0; i < ld->ntypes; i++)
        if (strcmp(ld->str[ld->types[i].type], "wall") == 0)
            m.idle = true;
    for (size_t i = 0; i < ld->ncomments; i++) {
        s = string_at(ld, ld->comments[i].str, ld->comments[i].off);
        if (!s)
            return -1;
        if (strncmp(s, "pid: ", 5) == 0) {
            char *end;
            long long pid = strtoll(s + 5, &end, 10);

            if (*end == '\0' && end != s + 5 && pid > 0)
                m.pid = pid;
        } else if (strncmp(s, "cmdline: ", 9) == 0) {
            m.cmdline = s + 9;
        } else if (strncmp(s, "comm: ", 6) == 0) {
            m.comm = s + 6;
        }
    }
    if (profile_set_meta(ld->p, &m) != 0)
        return pprof_oom(ld);
    return 0;
}

/* --- entry point --------------------------------------------------------- */

/* Which values count: the "samples"/"count" type's (else the first) in
 * *value_index; the period in ns when its unit is nanoseconds; the first
 * other value in a unit of time as ld->time_index (NONE without one).
 * 0, or -1 with the loader's error set. */
static int choose_values(struct loader *ld, uint32_t *value_index)
{
    *value_index = NONE;
    for (size_t i = 0; i < ld->ntypes; i++) {
        const char *t = string_at(ld, ld->types[i].type, ld->types[i].off);
        const char *u = string_at(ld, ld->types[i].unit, ld->types[i].off);

        if (!t || !u)
            return -1;
        if (strcmp(t, "samples") == 0 && strcmp(u, "count") == 0 &&
            *value_index == NONE)
            *value_index = (uint32_t)i;
    }
    if (*value_index == NONE)
        *value_index = 0;
    ld->time_index = NONE;
    if (ld->has_period_type && (int64_t)ld->period > 0) {
        const char *u = string_at(ld, ld->period_type.unit,
                                  ld->period_type.off);

        if (!u)
            return -1;
        if (strcmp(u, "nanoseconds") == 0)
            ld->period_ns = ld->period;
    }
    for (size_t i = 0; i < ld->ntypes && ld->time_index == NONE; i++) {
        uint64_t ns = time_unit_ns(ld->str[ld->types[i].unit]);

        if (ns && i != *value_index) {
            ld->time_index = (uint32_t)i;
            ld->time_ns = ns;
        }
    }
    return 0;
}

static struct profile *decode(struct loader *ld, const uint8_t *data,
                              size_t len)
{
    struct idpair *maps = NULL, *fns = NULL, *locs = NULL;
    uint32_t value_index;
    struct profile *res = NULL;

    if (pprof_parse(ld, data, len) || copy_strings(ld, len))
        goto out;
    if (ld->nsamples == 0) {
        util_errf(ld->err, ld->errlen, "%s: no samples", ld->name);
        goto out;
    }
    if (ld->ntypes == 0) {
        pprof_fail(ld, ld->samples[0].off, "samples but no sample_type");
        goto out;
    }
    if (choose_values(ld, &value_index))
        goto out;
    if (index_ids(ld, ld->maps, ld->nmaps, sizeof(*ld->maps),
                  offsetof(struct mapping, id), offsetof(struct mapping, off),
                  "mapping", &maps) ||
        index_ids(ld, ld->fns, ld->nfns, sizeof(*ld->fns),
                  offsetof(struct function, id),
                  offsetof(struct function, off), "function", &fns) ||
        index_ids(ld, ld->locs, ld->nlocs, sizeof(*ld->locs),
                  offsetof(struct location, id),
                  offsetof(struct location, off), "location", &locs))
        goto out;
    ld->p = profile_new();
    ld->stack = malloc(LOAD_MAX_DEPTH * sizeof(*ld->stack));
    ld->loc_scratch = malloc(LOAD_MAX_DEPTH * sizeof(*ld->loc_scratch));
    if (!ld->p || !ld->stack || !ld->loc_scratch) {
        pprof_oom(ld);
        goto out;
    }
    if (build_frames(ld, maps, fns))
        goto out;
    if (add_samples(ld, locs, value_index))
        goto out;
    if (profile_samples(ld->p) == 0) {
        util_errf(ld->err, ld->errlen, "%s: no samples (all values are 0)",
                  ld->name);
        goto out;
    }
    if (set_meta(ld))
        goto out;
    if (profile_time_fit(ld->p) < 0) {
        pprof_oom(ld);
        goto out;
    }
    res = ld->p;
    ld->p = NULL;
out:
    free(maps);
    free(fns);
    free(locs);
    return res;
}

struct profile *load_pprof(const char *buf, size_t len, const char *name,
                           char *err, size_t errlen)
{
    struct loader ld = {
        .name = name ? name : "<pprof>",
        .err = err,
        .errlen = errlen,
    };
    const uint8_t *data = (const uint8_t *)buf;
    uint8_t *inflated = NULL;
    struct profile *res = NULL;

    if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        if (pprof_gunzip(&ld, data, len, &inflated, &len))
            goto out;
        data = inflated;
    }
    pprof_budgets(&ld, len);
    res = decode(&ld, data, len);
out:
    profile_free(ld.p);
    free(inflated);
    free(ld.types);
    free(ld.samples);
    free(ld.maps);
    free(ld.fns);
    free(ld.locs);
    free(ld.lines);
    free(ld.strs);
    free(ld.comments);
    free(ld.str);
    free(ld.str_arena);
    free(ld.keys);
    idtab_free(&ld.key_ix);
    free(ld.frames);
    free(ld.frame_lines);
    free(ld.stack);
    free(ld.loc_scratch);
    return res;
}
