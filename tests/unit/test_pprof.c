/* test_pprof.c - the pprof writer and reader, and the protobuf helpers.
 *
 * The golden input tests/formats/example.pb.gz is a copy of
 * shared/formats/example.pb.gz (checked with go tool pprof).  Written
 * files are gunzipped and decoded here field by field, so the tests see
 * what go tool pprof sees; the reader is fed hand-built messages to hit
 * each error path. */
#include "fixture.h"

#include <zlib.h>

#include "load.h"
#include "pb.h"
#include "util.h"

#define GOLDEN "tests/formats/example.pb.gz"

/* --- building profiles --------------------------------------------------- */

struct fspec {
    const char *name;
    const char *module;
    const char *file;
    uint32_t line;
    uint64_t addr;
    bool inlined;
};

static uint32_t frame(struct profile *p, const struct fspec *s)
{
    struct frame_desc d = {
        .name = s->name, .module = s->module, .file = s->file,
        .line = s->line, .addr = s->addr, .inlined = s->inlined,
        .kind = FRAME_FUNC,
    };
    uint32_t id;

    if (s->name[0] == '[')
        d.kind = FRAME_SPECIAL;
    id = profile_intern_frame(p, &d);
    assert_int_not_equal(id, PROFILE_NONE);
    return id;
}

static uint32_t fn(struct profile *p, const char *name)
{
    char file[64];
    uint32_t line = 10;

    snprintf(file, sizeof(file), "%s", "prog.c");
    for (const char *c = name; *c; c++)
        line += (uint32_t)(unsigned char)*c;
    return frame(p, &(struct fspec){ name, "prog", file, line,
                                     0x400000 + line * 16, false });
}

static void add_ids(struct profile *p, uint32_t thread, const uint32_t *ids,
                    size_t n, uint64_t count)
{
    fixture_add_ids(p, thread, ids, n, count, false);
}

#define ADD(p, t, count, ...) FIXTURE_ADD_NAMES(p, t, fn, count, __VA_ARGS__)

static void set_meta(struct profile *p, bool idle)
{
    struct profile_meta m = {
        .pid = 4242,
        .cmdline = "./prog --arg x",
        .comm = "prog",
        .interval_ns = 2000000,
        .start_ns = 1700000000123456789ull,
        .duration_ns = 3000000000ull,
        .idle = idle,
    };

    assert_int_equal(profile_set_meta(p, &m), 0);
}

/* FORMATS.md's example with metadata. */
static struct profile *example(void)
{
    struct profile *p = fixture_example(fn, false);

    set_meta(p, false);
    return p;
}

/* --- inspecting profiles ------------------------------------------------- */

struct dump {
    const struct profile *p;
    bool attrs;   /* with module, file, line and the inlined mark */
    FILE *f;
};

static int dump_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t count)
{
    struct dump *d = ctx;
    const struct profile_thread *t = profile_thread_at(d->p, thread);

    fprintf(d->f, "%s/%lld", t->name, (long long)t->tid);
    for (size_t i = 0; i < n; i++) {
        const struct frame_desc *fd = profile_frame(d->p, frames[i]);

        fprintf(d->f, ";%s", fd->name);
        if (d->attrs)
            fprintf(d->f, "{%s|%s|%u|%llx%s%s}",
                    fd->module ? fd->module : "-", fd->file ? fd->file : "-",
                    fd->line, (unsigned long long)fd->addr,
                    fd->inlined ? "|inl" : "",
                    fd->kind == FRAME_SPECIAL ? "|special" : "");
    }
    fprintf(d->f, " %llu\n", (unsigned long long)count);
    return 0;
}

/* Every stack of p in walk order, one line each. */
static char *dump(const struct profile *p, bool attrs)
{
    char *buf = NULL;
    size_t len = 0;
    struct dump d = { p, attrs, open_memstream(&buf, &len) };

    assert_non_null(d.f);
    assert_int_equal(profile_foreach_stack(p, dump_stack, &d), 0);
    fclose(d.f);
    return buf;
}

/* Bytes of the pprof export of p. */
static char *write_pprof(const struct profile *p, size_t *len)
{
    return fixture_write(format_find("pprof"), p, NULL, len);
}

/* p written as pprof is exactly want[0..len). */
static void assert_writes(const struct profile *p, const char *want, size_t len)
{
    size_t n;
    char *got = write_pprof(p, &n);

    assert_int_equal(n, len);
    assert_memory_equal(got, want, len);
    free(got);
}

static uint8_t *gunzip(const char *gz, size_t len, size_t *outlen)
{
    z_stream zs = { 0 };
    size_t cap = 1 << 20;
    uint8_t *out = malloc(cap);

    assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)gz;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
    assert_int_equal(zs.avail_in, 0);
    *outlen = cap - zs.avail_out;
    inflateEnd(&zs);
    return out;
}

/* gzip raw bytes, for feeding hand-built messages through the gzip path. */
static char *gzip(const uint8_t *data, size_t len, size_t *outlen)
{
    z_stream zs = { 0 };
    size_t cap = len + 1024;
    char *out = malloc(cap);

    assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
                                  Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)data;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)out;
    zs.avail_out = (uInt)cap;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    *outlen = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

struct dsample {
    uint64_t loc[64];
    size_t nloc;
    uint64_t val[4];
    size_t nval;
    uint64_t label[6][3]; /* key, str, num */
    size_t nlabels;
};

/* A decoded Profile, enough to check what the writer put where. */
struct decoded {
    char *strings[256];
    size_t nstrings;
    uint64_t sample_type[4][2];
    size_t ntypes;
    struct dsample samples[16];
    size_t nsamples;
    struct dloc {
        uint64_t id, mapping, addr, fn[8];
        size_t nlines;
    } locs[32];
    size_t nlocs;
    struct dfn {
        uint64_t id, name, system_name, filename, start_line;
    } fns[32];
    size_t nfns;
    struct dmap {
        uint64_t id, start, limit, filename, has_functions;
    } maps[8];
    size_t nmaps;
    uint64_t time_nanos, duration_nanos, period, period_type[2];
    uint64_t default_sample_type;
    uint64_t comments[8];
    size_t ncomments;
    bool first_field_is_empty_string; /* string_table[0] written as "" */
};

/* The next free element of a fixed array of a decoded message (arr, with
 * n in use); fails the test when the message holds more. */
#define NEXT_SLOT(arr, n) \
    (assert_true((n) < sizeof(arr) / sizeof((arr)[0])), &(arr)[(n)++])

/* A packed (or single) repeated varint field f into out[*n..cap);
 * PACKED(f, arr, n) into a fixed array. */
static void packed(const struct pb_field *f, uint64_t *out, size_t *n,
                   size_t cap)
{
    struct pb_reader r;

    if (f->wire == PB_VARINT) {
        assert_true(*n < cap);
        out[(*n)++] = f->v;
        return;
    }
    pb_reader_sub(&r, f);
    while (r.pos < r.len) {
        assert_true(*n < cap);
        assert_int_equal(pb_read_varint(&r, &out[(*n)++]), 0);
    }
}
#define PACKED(f, arr, n) packed(f, arr, &(n), sizeof(arr) / sizeof((arr)[0]))

/* A submessage's varint fields by number (1..15), 0 where absent. */
static void varints(const struct pb_field *f, uint64_t v[16])
{
    struct pb_reader s;
    struct pb_field g;

    memset(v, 0, 16 * sizeof(*v));
    pb_reader_sub(&s, f);
    while (pb_next(&s, &g) == 1)
        if (g.num < 16 && g.wire == PB_VARINT)
            v[g.num] = g.v;
}

static void decode_sample(const struct pb_field *f, struct dsample *sm)
{
    struct pb_reader s;
    struct pb_field g;
    uint64_t v[16];

    pb_reader_sub(&s, f);
    while (pb_next(&s, &g) == 1) {
        if (g.num == 1)
            PACKED(&g, sm->loc, sm->nloc);
        if (g.num == 2)
            PACKED(&g, sm->val, sm->nval);
        if (g.num == 3) {
            varints(&g, v);
            memcpy(*NEXT_SLOT(sm->label, sm->nlabels), v + 1, 3 * sizeof(*v));
        }
    }
}

static void decode_location(const struct pb_field *f, struct dloc *l)
{
    struct pb_reader s;
    struct pb_field g;
    uint64_t v[16];

    varints(f, v);
    *l = (struct dloc){ .id = v[1], .mapping = v[2], .addr = v[3] };
    pb_reader_sub(&s, f);
    while (pb_next(&s, &g) == 1)
        if (g.num == 4) {
            varints(&g, v);
            *NEXT_SLOT(l->fn, l->nlines) = v[1];
        }
}

static void decode(const uint8_t *data, size_t len, struct decoded *d)
{
    struct pb_reader r;
    struct pb_field f;
    uint64_t v[16];
    bool seen_string = false;

    memset(d, 0, sizeof(*d));
    pb_reader_init(&r, data, len, 0);
    while (pb_next(&r, &f) == 1) {
        switch (f.num) {
        case PPROF_SAMPLE_TYPE:
        case PPROF_PERIOD_TYPE:
            varints(&f, v);
            if (f.num == PPROF_PERIOD_TYPE) {
                memcpy(d->period_type, v + 1, 2 * sizeof(*v));
                break;
            }
            memcpy(*NEXT_SLOT(d->sample_type, d->ntypes), v + 1,
                   2 * sizeof(*v));
            break;
        case PPROF_SAMPLE:
            decode_sample(&f, NEXT_SLOT(d->samples, d->nsamples));
            break;
        case PPROF_MAPPING:
            varints(&f, v);
            *NEXT_SLOT(d->maps, d->nmaps) =
                (struct dmap){ v[1], v[2], v[3], v[5], v[7] };
            break;
        case PPROF_LOCATION:
            decode_location(&f, NEXT_SLOT(d->locs, d->nlocs));
            break;
        case PPROF_FUNCTION:
            varints(&f, v);
            *NEXT_SLOT(d->fns, d->nfns) =
                (struct dfn){ v[1], v[2], v[3], v[4], v[5] };
            break;
        case PPROF_STRING_TABLE:
            if (!seen_string)
                d->first_field_is_empty_string = f.len == 0;
            seen_string = true;
            *NEXT_SLOT(d->strings, d->nstrings) =
                strndup((const char *)f.data, f.len);
            break;
        case PPROF_TIME_NANOS:
            d->time_nanos = f.v;
            break;
        case PPROF_DURATION_NANOS:
            d->duration_nanos = f.v;
            break;
        case PPROF_PERIOD:
            d->period = f.v;
            break;
        case PPROF_COMMENT:
            PACKED(&f, d->comments, d->ncomments);
            break;
        case PPROF_DEFAULT_SAMPLE_TYPE:
            d->default_sample_type = f.v;
            break;
        default:
            fail_msg("unexpected field %u", f.num);
        }
    }
    assert_null(r.err);
}

static void decoded_free(struct decoded *d)
{
    for (size_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
}

static const char *str(const struct decoded *d, uint64_t i)
{
    assert_true(i < d->nstrings);
    return d->strings[i];
}

/* The value of label `key` of sample s: its str as text, or its num. */
static const char *label(const struct decoded *d, const struct dsample *s,
                         const char *key, uint64_t *num)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(str(d, s->label[i][0]), key) == 0) {
            if (num)
                *num = s->label[i][2];
            return str(d, s->label[i][1]);
        }
    fail_msg("no label %s", key);
    return NULL;
}

/* The function name of location id `loc`'s innermost line. */
static const char *loc_name(const struct decoded *d, uint64_t loc)
{
    for (size_t i = 0; i < d->nlocs; i++)
        if (d->locs[i].id == loc)
            for (size_t k = 0; k < d->nfns; k++)
                if (d->fns[k].id == d->locs[i].fn[0])
                    return str(d, d->fns[k].name);
    fail_msg("no location %llu", (unsigned long long)loc);
    return NULL;
}

/* --- the writer ---------------------------------------------------------- */

static void test_write_fields(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    size_t gzlen, len;
    char *gz = fixture_keep(state, write_pprof(p, &gzlen));
    uint8_t *raw;
    struct decoded d;
    char names[256] = "";

    /* gzip, mtime 0, so the bytes do not depend on the time. */
    assert_true(gzlen > 18);
    assert_int_equal((uint8_t)gz[0], 0x1f);
    assert_int_equal((uint8_t)gz[1], 0x8b);
    assert_int_equal(gz[4] | gz[5] | gz[6] | gz[7], 0);
    raw = gunzip(gz, gzlen, &len);
    decode(raw, len, &d);

    assert_true(d.first_field_is_empty_string);
    assert_string_equal(str(&d, 0), "");
    assert_int_equal(d.ntypes, 2);
    assert_string_equal(str(&d, d.sample_type[0][0]), "samples");
    assert_string_equal(str(&d, d.sample_type[0][1]), "count");
    assert_string_equal(str(&d, d.sample_type[1][0]), "cpu");
    assert_string_equal(str(&d, d.sample_type[1][1]), "nanoseconds");
    assert_string_equal(str(&d, d.period_type[0]), "cpu");
    assert_string_equal(str(&d, d.period_type[1]), "nanoseconds");
    assert_int_equal(d.period, 2000000);
    assert_int_equal(d.time_nanos, 1700000000123456789ull);
    assert_int_equal(d.duration_nanos, 3000000000ull);
    assert_int_equal(d.ncomments, 3);
    assert_string_equal(str(&d, d.comments[0]), "pid: 4242");
    assert_string_equal(str(&d, d.comments[1]), "cmdline: ./prog --arg x");
    assert_string_equal(str(&d, d.comments[2]), "comm: prog");
    assert_int_equal(d.default_sample_type, 0); /* pprof's default: last */

    /* One sample per unique stack, leaf first, two values each. */
    assert_int_equal(d.nsamples, 3);
    for (size_t i = 0; i < d.nsamples; i++) {
        assert_int_equal(d.samples[i].nval, 2);
        assert_int_equal(d.samples[i].val[1], d.samples[i].val[0] * 2000000);
        assert_int_equal(d.samples[i].nlabels, 2);
        for (size_t k = 0; k < d.samples[i].nloc; k++) {
            strcat(names, loc_name(&d, d.samples[i].loc[k]));
            strcat(names, k + 1 < d.samples[i].nloc ? "<" : " ");
        }
        uint64_t tid = 0;

        label(&d, &d.samples[i], "thread_id", &tid);
        snprintf(names + strlen(names), sizeof(names) - strlen(names),
                 "%llu %s/%llu\n", (unsigned long long)d.samples[i].val[0],
                 label(&d, &d.samples[i], "thread_name", NULL),
                 (unsigned long long)tid);
    }
    assert_string_equal(names, "b<a<main 3 main/100\n"
                               "c<a<main 1 main/100\n"
                               "d<main 2 worker/101\n");

    /* Ids are 1..n; one mapping for module "prog" spanning the
     * addresses; functions carry name, system_name, file, first line. */
    assert_int_equal(d.nlocs, 5);
    assert_int_equal(d.nfns, 5);
    for (size_t i = 0; i < d.nlocs; i++) {
        assert_int_equal(d.locs[i].id, i + 1);
        assert_int_equal(d.locs[i].mapping, 1);
        assert_int_equal(d.locs[i].nlines, 1);
        assert_true(d.locs[i].addr >= d.maps[0].start &&
                    d.locs[i].addr < d.maps[0].limit);
    }
    assert_int_equal(d.nmaps, 1);
    assert_int_equal(d.maps[0].id, 1);
    assert_string_equal(str(&d, d.maps[0].filename), "prog");
    assert_int_equal(d.maps[0].has_functions, 1);
    for (size_t i = 0; i < d.nfns; i++) {
        assert_int_equal(d.fns[i].id, i + 1);
        assert_int_equal(d.fns[i].name, d.fns[i].system_name);
        assert_string_equal(str(&d, d.fns[i].filename), "prog.c");
        assert_int_equal(d.fns[i].start_line,
                         profile_frame(p, fn(p, str(&d, d.fns[i].name)))->line);
    }
    decoded_free(&d);
    free(raw);
}

static void test_write_idle_and_no_interval(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    struct profile_meta m = *profile_meta(p);
    size_t gzlen, len;
    char *gz;
    uint8_t *raw;
    struct decoded d;

    m.idle = true;
    m.interval_ns = 0;
    m.pid = 0;
    m.cmdline = NULL;
    m.comm = "";
    assert_int_equal(profile_set_meta(p, &m), 0);
    gz = fixture_keep(state, write_pprof(p, &gzlen));
    raw = gunzip(gz, gzlen, &len);
    decode(raw, len, &d);
    assert_string_equal(str(&d, d.sample_type[1][0]), "wall");
    assert_string_equal(str(&d, d.period_type[0]), "wall");
    assert_int_equal(d.period, 0);
    assert_int_equal(d.ncomments, 0);
    /* Every time value is 0 without an interval: counts by default. */
    assert_string_equal(str(&d, d.default_sample_type), "samples");
    for (size_t i = 0; i < d.nsamples; i++)
        assert_int_equal(d.samples[i].val[1], 0);
    decoded_free(&d);
    free(raw);
}

static void test_write_deterministic(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    struct profile *q = profile_new();
    size_t l1;
    char *a;
    uint32_t t1, t0;

    /* Same stacks, frames interned in another order: same bytes. */
    fn(q, "d");
    fn(q, "c");
    t0 = profile_thread(q, 100, "main");
    t1 = profile_thread(q, 101, "worker");
    ADD(q, t0, 3, "main", "a", "b");
    ADD(q, t0, 1, "main", "a", "c");
    ADD(q, t1, 2, "main", "d");
    set_meta(q, false);
    a = fixture_keep(state, write_pprof(p, &l1));
    assert_writes(q, a, l1);
    profile_free(q);
}

/* --- round trips --------------------------------------------------------- */

/* Frames with inlining, modules, files, specials and hostile names. */
static struct profile *rich(void)
{
    struct profile *p = profile_new();
    uint32_t t0 = profile_thread(p, 4001, "main thread");
    uint32_t t1 = profile_thread(p, 4002, "w;o,r:k\"er");
    uint32_t start = frame(p, &(struct fspec){ "_start", "prog", NULL, 0,
                                               0x401000, false });
    uint32_t mainf = frame(p, &(struct fspec){ "main", "prog", "main.c", 12,
                                               0x401100, false });
    uint32_t inl1 = frame(p, &(struct fspec){ "inl_outer", "prog", "h.h", 3,
                                              0, true });
    uint32_t inl2 = frame(p, &(struct fspec){ "inl_inner", "prog", "h.h", 9,
                                              0, true });
    uint32_t memcpyf = frame(p, &(struct fspec){ "memcpy", "libc.so.6", NULL,
                                                 0, 0x7f0000001000, false });
    /* An inlined frame of another module stays a location of its own. */
    uint32_t odd = frame(p, &(struct fspec){ "odd_inline", "libm.so.6",
                                             "m.c", 5, 0, true });
    uint32_t tmpl = frame(p, &(struct fspec){
        "std::map<int, std::vector<char> >::operator[](int const&)",
        "prog", "map.h", 100, 0x402000, false });
    uint32_t weird = frame(p, &(struct fspec){
        "a;b,c:d e\nf\tg\"h'i\\j \xc3\xa9t\xc3\xa9 \xe2\x82\xac", "prog",
        "dir with space/f.c", 7, 0x403000, false });
    uint32_t trunc = frame(p, &(struct fspec){ "[truncated]", NULL, NULL, 0,
                                               0, false });
    uint32_t opcall = frame(p, &(struct fspec){
        "operator()", "prog", "x.cc", 1, 0x404000, false });
    uint32_t nomod = frame(p, &(struct fspec){ "jit_code", NULL, NULL, 0,
                                               0x9000, false });

    add_ids(p, t0, (uint32_t[]){ start, mainf, inl1, inl2, memcpyf }, 5, 7);
    add_ids(p, t0, (uint32_t[]){ start, mainf, inl1 }, 3, 2);
    add_ids(p, t0, (uint32_t[]){ start, mainf, tmpl, weird }, 4, 1);
    add_ids(p, t0, (uint32_t[]){ start, mainf, mainf, mainf }, 4, 4);
    add_ids(p, t1, (uint32_t[]){ trunc, inl2, memcpyf, odd }, 4, 5);
    add_ids(p, t1, (uint32_t[]){ start, opcall, nomod }, 3, 3);
    add_ids(p, t1, NULL, 0, 2);  /* a sample on the thread itself */
    set_meta(p, false);
    return p;
}

static struct profile *load_mem(const char *buf, size_t len, char *err,
                                size_t errlen)
{
    return load_pprof(buf, len, "mem.pb.gz", err, errlen);
}

/* p written as pprof (into *bytes, *len, which the caller frees) and read
 * back without error or warning. */
static struct profile *reload(const struct profile *p, char **bytes,
                              size_t *len)
{
    char err[256] = "";
    struct profile *q;

    *bytes = write_pprof(p, len);
    q = load_mem(*bytes, *len, err, sizeof(err));
    assert_non_null(q);
    assert_string_equal(err, "");
    return q;
}

static void test_roundtrip(void **state)
{
    struct profile *p = fixture_keep_profile(state, rich()), *q, *r;
    size_t l1;
    char *a, *want, *got;
    char err[256] = "";
    const struct profile_meta *m;

    q = reload(p, &a, &l1);
    assert_writes(q, a, l1);

    /* The loaded profile holds the same stacks, threads and frames.  Only
     * the addresses of inlined frames (which have none of their own) and
     * the inlined mark of a frame never seen inlined in a location may
     * differ, so compare names first, then attributes of the real ones. */
    want = fixture_keep(state, dump(p, false));
    got = fixture_keep(state, dump(q, false));
    assert_string_equal(got, want);
    got = fixture_keep(state, dump(q, true));
    FIXTURE_ASSERT_HAS(got,
        ";main{prog|main.c|12|401100};"
        "inl_outer{prog|h.h|3|0|inl};"
        "inl_inner{prog|h.h|9|0|inl};"
        "memcpy{libc.so.6|-|0|7f0000001000} 7\n",
        "[truncated]{-|-|0|0|special}",
        ";odd_inline{libm.so.6|m.c|5|0} 5\n",
        "jit_code{-|-|0|9000} 3\n",
        "w;o,r:k\"er/4002 2\n");
    assert_int_equal(profile_samples(q), profile_samples(p));
    assert_int_equal(profile_thread_count(q), 2);

    m = profile_meta(q);
    assert_int_equal(m->pid, 4242);
    assert_string_equal(m->cmdline, "./prog --arg x");
    assert_string_equal(m->comm, "prog");
    assert_int_equal(m->interval_ns, 2000000);
    assert_int_equal(m->start_ns, 1700000000123456789ull);
    assert_int_equal(m->duration_ns, 3000000000ull);
    assert_false(m->idle);

    /* And once more, through load_buffer's format detection. */
    r = load_buffer(a, l1, "no-suffix", err, sizeof(err));
    assert_non_null(r);
    assert_writes(r, a, l1);
    free(a);
    profile_free(q);
    profile_free(r);
}

/* Code named without debug info keeps its module's build-id and its file
 * offset through a pprof file (Mapping.build_id, memory_start,
 * file_offset), so that it can be named once the debug info is found;
 * the file reads back byte for byte. */
static void test_roundtrip_build_id(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    uint32_t t = profile_thread(p, 1, "t");
    struct frame_desc hot = { .name = "[lib.so+0x1180]", .module = "lib.so",
                              .kind = FRAME_FUNC, .addr = 0x7f0000001180,
                              .build_id = "0123abcd", .offset = 0x1180 };
    struct frame_desc cold = hot, named = { .name = "main", .module = "prog",
                                            .kind = FRAME_FUNC,
                                            .addr = 0x401000 };
    uint32_t ids[3];
    size_t l1;
    char *a;

    cold.name = "[lib.so+0x1400]";
    cold.addr = 0x7f0000001400;
    cold.offset = 0x1400;
    ids[0] = profile_intern_frame(p, &named);
    ids[1] = profile_intern_frame(p, &hot);
    ids[2] = profile_intern_frame(p, &cold);
    add_ids(p, t, ids, 2, 3);
    add_ids(p, t, (uint32_t[]){ ids[0], ids[2] }, 2, 1);
    q = reload(p, &a, &l1);
    for (uint32_t i = 0; i < 3; i++) {
        const struct frame_desc *want = profile_frame(p, ids[i]);
        const struct frame_desc *got =
            profile_frame(q, fixture_find_frame(q, want->name));

        /* "[...]" names are code here, not special frames */
        assert_int_equal(got->kind, FRAME_FUNC);
        if (want->build_id) {
            assert_string_equal(got->build_id, want->build_id);
            assert_int_equal(got->offset, want->offset);
        } else {
            assert_null(got->build_id);
        }
    }
    assert_writes(q, a, l1);
    free(a);
    profile_free(q);
}

static void test_roundtrip_idle_and_invalid_utf8(void **state)
{
    struct profile *p = fixture_profile(state), *q;
    uint32_t t = profile_thread(p, 7, "bad\xff name");
    uint32_t f = frame(p, &(struct fspec){ "caf\xc3\xa9\xff\xfe end", "m",
                                           NULL, 0, 0, false });
    size_t l1;
    char *a;
    struct profile_meta m = { .idle = true, .interval_ns = 1000 };

    add_ids(p, t, &f, 1, 9);
    assert_int_equal(profile_set_meta(p, &m), 0);
    q = reload(p, &a, &l1);
    /* Invalid bytes became U+FFFD; the valid é survived. */
    {
        char *got = dump(q, false);

        assert_string_equal(got, "bad\xef\xbf\xbd name/7;"
                                 "caf\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd end 9\n");
        free(got);
    }
    assert_true(profile_meta(q)->idle);
    assert_writes(q, a, l1);
    free(a);
    profile_free(q);
}

/* --- the golden file ----------------------------------------------------- */

static void test_load_golden(void **state)
{
    struct profile *p = fixture_load_file(state, GOLDEN);
    const struct profile_meta *m;
    char *got;

    assert_non_null(p);
    FIXTURE_ASSERT_TEXT(dump(p, false),
        "main/100;main;a;b 3\n"
        "main/100;main;a;c 1\n"
        "worker/101;main;d 2\n");
    got = fixture_keep(state, dump(p, true));
    assert_non_null(strstr(got, "main{/usr/bin/prog|prog.c|10|400100};"
                                "a{/usr/bin/prog|prog.c|20|400200};"
                                "b{/usr/bin/prog|prog.c|30|400300} 3\n"));
    m = profile_meta(p);
    assert_int_equal(m->interval_ns, 10000000);
    assert_int_equal(m->start_ns, 1700000000000000000ull);
    assert_int_equal(m->duration_ns, 60000000);
    assert_int_equal(m->pid, 0);
    {
        /* The golden file's Line.line values feed the per-line counts. */
        struct profile_linecount *lc;
        long n = profile_lines(p, fixture_find_frame(p, "b"), false, &lc);

        assert_int_equal(n, 1);
        assert_int_equal(lc[0].key, 30);
        assert_int_equal(lc[0].self, 3);
        free(lc);
    }
}

/* --- hand-built messages ------------------------------------------------- */

/* Builds a Profile message: strings first registered by index. */
struct msg {
    struct pb_buf b;
    struct pb_buf s;   /* scratch submessage */
    struct pb_buf t;   /* scratch sub-submessage */
};

static void put_vt(struct msg *m, uint32_t field, uint64_t type,
                   uint64_t unit)
{
    pb_buf_clear(&m->s);
    pb_put_uint(&m->s, 1, type);
    pb_put_uint(&m->s, 2, unit);
    pb_put_bytes(&m->b, field, m->s.data, m->s.len);
}

static void put_strings(struct msg *m, const char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pb_put_bytes(&m->b, PPROF_STRING_TABLE, s[i], strlen(s[i]));
}

static void put_function(struct msg *m, uint64_t id, uint64_t name)
{
    pb_buf_clear(&m->s);
    pb_put_uint(&m->s, 1, id);
    pb_put_uint(&m->s, 2, name);
    pb_put_bytes(&m->b, PPROF_FUNCTION, m->s.data, m->s.len);
}

/* A location with lines for functions fns[0..n) (innermost first). */
static void put_location(struct msg *m, uint64_t id, uint64_t mapping,
                         uint64_t addr, const uint64_t *fns, size_t n)
{
    pb_buf_clear(&m->s);
    pb_put_uint(&m->s, 1, id);
    if (mapping)
        pb_put_uint(&m->s, 2, mapping);
    pb_put_uint(&m->s, 3, addr);
    for (size_t i = 0; i < n; i++) {
        pb_buf_clear(&m->t);
        pb_put_uint(&m->t, 1, fns[i]);
        pb_put_uint(&m->t, 2, 100 + i);
        pb_put_bytes(&m->s, 4, m->t.data, m->t.len);
    }
    pb_put_bytes(&m->b, PPROF_LOCATION, m->s.data, m->s.len);
}

/* A sample: location ids unpacked (as some writers do), values packed. */
static void put_sample(struct msg *m, const uint64_t *locs, size_t nlocs,
                       const uint64_t *vals, size_t nvals)
{
    pb_buf_clear(&m->s);
    for (size_t i = 0; i < nlocs; i++)
        pb_put_uint(&m->s, 1, locs[i]);
    pb_put_packed(&m->s, 2, vals, nvals);
    pb_put_bytes(&m->b, PPROF_SAMPLE, m->s.data, m->s.len);
}

static void msg_free(struct msg *m)
{
    pb_buf_free(&m->b);
    pb_buf_free(&m->s);
    pb_buf_free(&m->t);
}

/* As Go's runtime/pprof writes CPU profiles: no thread labels, inlined
 * lines, an unsymbolized location, cpu/nanoseconds before samples/count
 * is not the first type. */
static void test_load_foreign(void **state)
{
    static const char *const strings[] = {
        "", "cpu", "nanoseconds", "samples", "count", "main.main",
        "main.helper", "runtime.inlined", "/bin/goprog",
    };
    struct msg m = { 0 };
    char err[256] = "";
    struct profile *p;
    char *got;

    (void)state;
    put_vt(&m, PPROF_SAMPLE_TYPE, 1, 2);   /* cpu/nanoseconds */
    put_vt(&m, PPROF_SAMPLE_TYPE, 3, 4);   /* samples/count */
    pb_buf_clear(&m.s);
    pb_put_uint(&m.s, 1, 7);
    pb_put_uint(&m.s, 5, 8);
    pb_put_bytes(&m.b, PPROF_MAPPING, m.s.data, m.s.len);
    put_function(&m, 11, 5);
    put_function(&m, 12, 6);
    put_function(&m, 13, 7);
    put_location(&m, 21, 7, 0x1000, (uint64_t[]){ 11 }, 1);
    /* runtime.inlined inlined into main.helper */
    put_location(&m, 22, 7, 0x2000, (uint64_t[]){ 13, 12 }, 2);
    put_location(&m, 23, 0, 0xdead, NULL, 0);
    put_sample(&m, (uint64_t[]){ 22, 21 }, 2, (uint64_t[]){ 50000000, 5 }, 2);
    put_sample(&m, (uint64_t[]){ 23, 22, 21 }, 3,
               (uint64_t[]){ 10000000, 1 }, 2);
    put_sample(&m, (uint64_t[]){ 21 }, 1, (uint64_t[]){ 0, 0 }, 2);
    put_strings(&m, strings, sizeof(strings) / sizeof(strings[0]));
    put_vt(&m, PPROF_PERIOD_TYPE, 1, 2);
    pb_put_uint(&m.b, PPROF_PERIOD, 10000000);
    assert_false(m.b.oom);

    assert_true(load_pprof_sniff((const char *)m.b.data, m.b.len));
    p = load_pprof((const char *)m.b.data, m.b.len, "go.pb", err,
                   sizeof(err));
    assert_non_null(p);
    got = dump(p, true);
    assert_string_equal(
        got,
        "all/0;main.main{/bin/goprog|-|0|1000};"
        "main.helper{/bin/goprog|-|0|2000};"
        "runtime.inlined{/bin/goprog|-|0|0|inl} 5\n"
        "all/0;main.main{/bin/goprog|-|0|1000};"
        "main.helper{/bin/goprog|-|0|2000};"
        "runtime.inlined{/bin/goprog|-|0|0|inl};0xdead{-|-|0|dead} 1\n");
    free(got);
    assert_int_equal(profile_meta(p)->interval_ns, 10000000);
    assert_false(profile_meta(p)->idle);
    {
        /* Line numbers of the lines become per-line counts. */
        struct profile_linecount *lc;

        assert_int_equal(profile_lines(p, fixture_find_frame(p, "main.helper"), false,
                                       &lc), 1);
        assert_int_equal(lc[0].key, 101);
        assert_int_equal(lc[0].total, 6);
        free(lc);
    }
    profile_free(p);

    /* The same through gzip. */
    {
        size_t gzlen;
        char *gz = gzip(m.b.data, m.b.len, &gzlen);

        p = load_pprof(gz, gzlen, "go.pb.gz", err, sizeof(err));
        assert_non_null(p);
        assert_int_equal(profile_samples(p), 6);
        profile_free(p);
        free(gz);
    }
    msg_free(&m);
}

/* Threads with a process: labels pid and process_name, read back, and
 * written again byte for byte. */
static void test_process_labels(void **state)
{
    struct profile *p = fixture_keep_profile(state, example()), *q;
    size_t l1, l2;
    char *a, *b;
    char err[256] = "";
    struct decoded d;
    uint64_t num = 0;

    assert_true(profile_thread_count(p) >= 2);
    assert_int_equal(profile_thread_set_process(p, 0, 500, "nginx"), 0);
    assert_int_equal(profile_thread_set_process(p, 1, 600, "nginx"), 0);
    a = fixture_keep(state, write_pprof(p, &l1));
    size_t raw_len;
    uint8_t *raw = gunzip(a, l1, &raw_len);
    decode(raw, raw_len, &d);
    assert_true(d.nsamples > 0);
    for (size_t i = 0; i < d.nsamples; i++) {
        uint64_t tid = 0;
        label(&d, &d.samples[i], "thread_id", &tid);
        assert_string_equal(label(&d, &d.samples[i], "process_name", NULL), "nginx");
        label(&d, &d.samples[i], "pid", &num);
        assert_true(num == 500 || num == 600);
    }
    decoded_free(&d);
    free(raw);

    q = load_mem(a, l1, err, sizeof(err));
    assert_non_null(q);
    assert_int_equal(profile_process_count(q), 2);
    for (uint32_t i = 0; i < profile_thread_count(q); i++) {
        const struct profile_thread *t = profile_thread_at(q, i);
        const struct profile_thread *o = profile_thread_at(p, i);
        assert_int_equal(t->tid, o->tid);
        assert_int_equal(t->pid, o->pid);
        assert_string_equal(t->process, "nginx");
    }
    b = fixture_keep(state, write_pprof(q, &l2));
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    profile_free(q);
}

static void test_thread_labels(void **state)
{
    static const char *const strings[] = {
        "", "samples", "count", "f", "thread_name", "thread_id", "alpha",
        "beta",
    };
    struct msg m = { 0 };
    char err[256] = "";
    struct profile *p;
    char *got;

    (void)state;
    put_vt(&m, PPROF_SAMPLE_TYPE, 1, 2);
    put_function(&m, 1, 3);
    put_location(&m, 1, 0, 0x10, (uint64_t[]){ 1 }, 1);
    /* name only, twice; id and name; id only */
    for (int k = 0; k < 4; k++) {
        pb_buf_clear(&m.s);
        pb_put_uint(&m.s, 1, 1);
        pb_put_uint(&m.s, 2, (uint64_t)k + 1);
        if (k < 3) {
            pb_buf_clear(&m.t);
            pb_put_uint(&m.t, 1, 4);
            pb_put_uint(&m.t, 2, k == 2 ? 7 : 6);
            pb_put_bytes(&m.s, 3, m.t.data, m.t.len);
        }
        if (k >= 2) {
            pb_buf_clear(&m.t);
            pb_put_uint(&m.t, 1, 5);
            pb_put_uint(&m.t, 3, 99);
            pb_put_bytes(&m.s, 3, m.t.data, m.t.len);
        }
        pb_put_bytes(&m.b, PPROF_SAMPLE, m.s.data, m.s.len);
    }
    put_strings(&m, strings, sizeof(strings) / sizeof(strings[0]));
    p = load_pprof((const char *)m.b.data, m.b.len, "t.pb", err,
                   sizeof(err));
    assert_non_null(p);
    got = dump(p, false);
    /* alpha by name only: synthetic tid 2^40 + its string index (6);
     * beta with tid 99, which the id-only sample joins. */
    assert_string_equal(got, "alpha/1099511627782;f 3\nbeta/99;f 7\n");
    free(got);
    profile_free(p);
    msg_free(&m);
}

/* --- errors -------------------------------------------------------------- */

/* A valid message with room for one mistake, chosen by `bad`. */
enum bad {
    BAD_NONE,
    BAD_STRING_INDEX,
    BAD_LOCATION_ID,
    BAD_DUP_FUNCTION,
    BAD_ZERO_ID,
    BAD_VALUE_COUNT,
    BAD_NEGATIVE,
    BAD_FIRST_STRING,
    BAD_NUL,
    BAD_MAPPING,
    BAD_FUNCTION_ID,
    BAD_WIRE,
    BAD_NO_TYPES,
    BAD_DEEP,
};

static void build(struct msg *m, enum bad bad)
{
    const char *const strings[] = {
        bad == BAD_FIRST_STRING ? "x" : "", "samples", "count", "f",
        bad == BAD_NUL ? "g\0" : "g",
    };

    if (bad != BAD_NO_TYPES)
        put_vt(m, PPROF_SAMPLE_TYPE, 1, 2);
    if (bad == BAD_WIRE)
        pb_put_uint(&m->b, PPROF_SAMPLE, 5);
    put_function(m, bad == BAD_ZERO_ID ? 0 : 1,
                 bad == BAD_STRING_INDEX ? 57 : 3);
    if (bad == BAD_DUP_FUNCTION)
        put_function(m, 1, 3);
    put_location(m, 1, bad == BAD_MAPPING ? 9 : 0, 0x10,
                 (uint64_t[]){ bad == BAD_FUNCTION_ID ? 8 : 1 }, 1);
    if (bad == BAD_DEEP) {
        uint64_t locs[LOAD_MAX_DEPTH + 1];

        for (size_t i = 0; i <= LOAD_MAX_DEPTH; i++)
            locs[i] = 1;
        put_sample(m, locs, LOAD_MAX_DEPTH + 1, (uint64_t[]){ 1 }, 1);
    }
    put_sample(m, (uint64_t[]){ bad == BAD_LOCATION_ID ? 2 : 1 }, 1,
               (uint64_t[]){ bad == BAD_NEGATIVE ? (uint64_t)-3 : 3, 4 },
               bad == BAD_VALUE_COUNT ? 2 : 1);
    for (size_t i = 0; i < 5; i++)
        pb_put_bytes(&m->b, PPROF_STRING_TABLE, strings[i],
                     strlen(strings[i]) + (bad == BAD_NUL && i == 4));
}

static void expect_error(const char *buf, size_t len, const char *want)
{
    char err[256] = "";
    struct profile *p = load_pprof(buf, len, "bad.pb", err, sizeof(err));

    if (p)
        fail_msg("loaded, expected \"%s\"", want);
    if (!strstr(err, want))
        fail_msg("error \"%s\", expected \"%s\"", err, want);
    assert_null(strchr(err, '\n'));
}

static void test_errors_structure(void **state)
{
    static const struct {
        enum bad bad;
        const char *want;
    } cases[] = {
        { BAD_STRING_INDEX, ": string index 57 out of range (5 strings)" },
        { BAD_LOCATION_ID, ": unknown location id 2" },
        { BAD_DUP_FUNCTION, ": duplicate function id 1" },
        { BAD_ZERO_ID, ": function with id 0" },
        { BAD_VALUE_COUNT, ": sample has 2 values for 1 sample types" },
        { BAD_NEGATIVE, ": negative sample value" },
        { BAD_FIRST_STRING, ": string_table[0] is not empty" },
        { BAD_NUL, ": NUL byte in string 4" },
        { BAD_MAPPING, ": unknown mapping id 9" },
        { BAD_FUNCTION_ID, ": unknown function id 8" },
        { BAD_WIRE, ": Profile.sample has wire type 0" },
        { BAD_NO_TYPES, ": samples but no sample_type" },
        { BAD_DEEP, ": stack deeper than 4096 frames" },
    };
    struct msg m = { 0 };
    char err[256];
    struct profile *p;

    (void)state;
    build(&m, BAD_NONE);
    p = load_pprof((const char *)m.b.data, m.b.len, "ok.pb", err,
                   sizeof(err));
    assert_non_null(p);
    assert_int_equal(profile_samples(p), 3);
    profile_free(p);
    msg_free(&m);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        m = (struct msg){ 0 };
        build(&m, cases[i].bad);
        expect_error((const char *)m.b.data, m.b.len, cases[i].want);
        msg_free(&m);
    }
}

/* Files that cost far more than their size (issue 11, items 4 and 5): the
 * reader's budgets refuse them with one line, before the cost. */
static void test_bombs(void **state)
{
    static uint64_t fns[LOAD_MAX_DEPTH];
    struct msg m = { 0 };
    size_t gzlen;
    char *gz;

    (void)state;
    /* 4: 5 million empty strings, 2 bytes each in the file and 33 in
     * the reader (a span, a pointer, a NUL): past 64 MiB + 4 bytes a
     * byte of message */
    build(&m, BAD_NONE);
    for (size_t i = 0; i < 5000000; i++)
        pb_put_bytes(&m.b, PPROF_STRING_TABLE, "", 0);
    expect_error((const char *)m.b.data, m.b.len,
                 ": too many records: they would take more than 102 MiB of "
                 "memory for a 9766 KiB profile message");
    msg_free(&m);

    /* ... and gzipped: 68 MB of message from 66 KB of gzip, refused
     * while it inflates (past 64 MiB, at more than 64 times the file) */
    m = (struct msg){ 0 };
    build(&m, BAD_NONE);
    for (size_t i = 0; i < 34000000; i++)
        pb_put_bytes(&m.b, PPROF_STRING_TABLE, "", 0);
    gz = gzip(m.b.data, m.b.len, &gzlen);
    msg_free(&m);
    expect_error(gz, gzlen, ": gunzipped data larger than 64 MiB, over 64 "
                 "times the file");
    free(gz);

    /* 5: one location of 4,096 lines named by 8,000 samples: 33 million
     * frames from 85 KB */
    m = (struct msg){ 0 };
    build(&m, BAD_NONE);
    for (size_t i = 0; i < LOAD_MAX_DEPTH; i++)
        fns[i] = 1;
    put_location(&m, 2, 0, 0x20, fns, LOAD_MAX_DEPTH);
    for (size_t i = 0; i < 8000; i++)
        put_sample(&m, (uint64_t[]){ 2 }, 1, (uint64_t[]){ 1 }, 1);
    expect_error((const char *)m.b.data, m.b.len,
                 ": the samples expand to more than");
    msg_free(&m);
}

static void test_errors_wire(void **state)
{
    char err[256];

    (void)state;
    /* Exact messages with the byte offset of the problem. */
    expect_error("\x0a\x80", 2, "bad.pb: byte 1: truncated varint");
    expect_error("\x0a\x05\x08", 3,
                 "bad.pb: byte 0: length runs past the end of the message");
    expect_error("\x48\x01\x0b", 3,
                 "bad.pb: byte 2: unsupported wire type");
    expect_error("\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11,
                 "bad.pb: byte 1: varint overflows 64 bits");
    expect_error("\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01", 12,
                 "bad.pb: byte 1: varint longer than 10 bytes");
    expect_error("\x00", 1, "bad.pb: byte 0: invalid field number");
    /* Error inside a nested message: offset of the inner field. */
    expect_error("\x22\x03\x22\x01\x08", 5, "bad.pb: byte 5: truncated varint");
    expect_error("", 0, "bad.pb: byte 0: no string table");
    expect_error("\x32\x00", 2, "bad.pb: no samples");
    /* gzip: corrupt, truncated, trailing garbage. */
    {
        struct msg m = { 0 };
        size_t gzlen;
        char *gz;

        build(&m, BAD_NONE);
        gz = gzip(m.b.data, m.b.len, &gzlen);
        expect_error(gz, gzlen / 2, "truncated gzip data");
        gz[12] ^= 0x55;
        gz[13] ^= 0x55;
        expect_error(gz, gzlen, "corrupt gzip data");
        gz[12] ^= 0x55;
        gz[13] ^= 0x55;
        gz = realloc(gz, gzlen + 3);
        memcpy(gz + gzlen, "abc", 3);
        expect_error(gz, gzlen + 3, "unexpected bytes after the gzip data");
        /* Two members back to back are one stream (cat a.gz b.gz). */
        gz = realloc(gz, gzlen * 2);
        memcpy(gz + gzlen, gz, gzlen);
        {
            struct profile *p = load_pprof(gz, gzlen * 2, "two.pb.gz", err,
                                           sizeof(err));

            /* The second copy repeats every field: duplicate ids. */
            assert_null(p);
            assert_non_null(strstr(err, "duplicate function id 1"));
        }
        free(gz);
        msg_free(&m);
    }
}

/* A raw message sniffs as pprof whole, not cut short (the byte cases
 * are test_export's test_sniffers). */
static void test_sniff(void **state)
{
    struct msg m = { 0 };

    (void)state;
    build(&m, BAD_NONE);
    assert_true(load_pprof_sniff((const char *)m.b.data, m.b.len));
    assert_false(load_pprof_sniff((const char *)m.b.data, m.b.len - 1));
    msg_free(&m);
}

/* --- pb helpers ---------------------------------------------------------- */

static void test_pb_varints(void **state)
{
    static const uint64_t values[] = {
        0, 1, 127, 128, 300, 16383, 16384, (1ull << 32) - 1, 1ull << 32,
        (1ull << 63) - 1, 1ull << 63, UINT64_MAX,
    };
    struct pb_buf b = { 0 };
    struct pb_reader r;
    uint64_t v;

    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
        pb_put_varint(&b, values[i]);
    assert_false(b.oom);
    /* 1+1+1+2+2+2+3+5+5+9+10+10 bytes */
    assert_int_equal(b.len, 51);
    pb_reader_init(&r, b.data, b.len, 100);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        assert_int_equal(pb_read_varint(&r, &v), 0);
        assert_int_equal(v, values[i]);
    }
    assert_int_equal(pb_read_varint(&r, &v), -1);
    assert_string_equal(r.err, "truncated varint");
    assert_int_equal(r.err_off, 151);
    pb_buf_free(&b);

    pb_put_packed(&b, 3, NULL, 0);
    assert_int_equal(b.len, 0);
    pb_put_packed(&b, 3, values, 3);
    assert_int_equal(b.len, 2 + 3);
    pb_buf_free(&b);
}

static void test_pb_fields(void **state)
{
    struct pb_buf b = { 0 };
    struct pb_reader r;
    struct pb_field f;

    (void)state;
    pb_put_uint(&b, 1, 150);
    pb_put_bytes(&b, 2, "testing", 7);
    pb_put_raw(&b, "\x19\x01\x02\x03\x04\x05\x06\x07\x08", 9); /* i64 */
    pb_put_raw(&b, "\x25\x01\x00\x00\x00", 5);                 /* i32 */
    pb_reader_init(&r, b.data, b.len, 0);
    assert_int_equal(pb_next(&r, &f), 1);
    assert_int_equal(f.num, 1);
    assert_int_equal(f.wire, PB_VARINT);
    assert_int_equal(f.v, 150);
    assert_int_equal(pb_next(&r, &f), 1);
    assert_int_equal(f.num, 2);
    assert_int_equal(f.len, 7);
    assert_memory_equal(f.data, "testing", 7);
    assert_int_equal(f.off, 3);
    assert_int_equal(f.data_off, 5);
    assert_int_equal(pb_next(&r, &f), 1);
    assert_int_equal(f.v, 0x0807060504030201ull);
    assert_int_equal(pb_next(&r, &f), 1);
    assert_int_equal(f.v, 1);
    assert_int_equal(pb_next(&r, &f), 0);
    pb_buf_free(&b);
    pb_reader_init(&r, (const uint8_t *)"\x19\x01", 2, 0);
    assert_int_equal(pb_next(&r, &f), -1);
    assert_string_equal(r.err, "truncated 64-bit field");
    assert_int_equal(pb_next(&r, &f), -1); /* errors stick */
}

/* util_utf8_decode is what every exporter and loader trusts to keep
 * their output valid UTF-8; pb_utf8_seq must agree with it. */
static void test_utf8(void **state)
{
    static const struct {
        const char *s;
        size_t want;
        uint32_t cp;
    } cases[] = {
        { "a", 1, 'a' }, { "\xc3\xa9", 2, 0xe9 },
        { "\xe2\x82\xac", 3, 0x20ac }, { "\xf0\x9f\x98\x80", 4, 0x1f600 },
        { "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
        { "\xff", 0, 0 }, { "\x80", 0, 0 },
        { "\xc0\xaf", 0, 0 },          /* overlong '/' */
        { "\xe0\x80\xaf", 0, 0 },      /* overlong */
        { "\xed\xa0\x80", 0, 0 },      /* surrogate */
        { "\xf4\x90\x80\x80", 0, 0 },  /* above U+10FFFF */
        { "\xc3", 0, 0 },              /* cut short */
        { "\xe2\x82", 0, 0 },
        { "\xc3\x41", 0, 0 },          /* bad continuation */
    };
    uint32_t cp;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const unsigned char *s = (const unsigned char *)cases[i].s;
        size_t n = strlen(cases[i].s);

        cp = 0xdeadbeef;
        assert_int_equal(util_utf8_decode(s, n, &cp), cases[i].want);
        assert_int_equal(cp, cases[i].want ? cases[i].cp : 0xdeadbeef);
        assert_int_equal(util_utf8_decode(s, n, NULL), cases[i].want);
        assert_int_equal(pb_utf8_seq(s, n), cases[i].want);
    }
    /* n bounds the read even when the bytes past it would complete it */
    assert_int_equal(util_utf8_decode((const unsigned char *)"\xc3\xa9", 1,
                                      &cp), 0);
    assert_int_equal(util_utf8_count("a\xc3\xa9\xe2\x82\xac", 6), 3);
    assert_int_equal(util_utf8_count("a\xc3\xa9", 2), 2);
    assert_int_equal(util_utf8_count("", 0), 0);
}

UNIT_MAIN(
    FIXTURE_TEST(test_write_fields),
    FIXTURE_TEST(test_write_idle_and_no_interval),
    FIXTURE_TEST(test_write_deterministic),
    FIXTURE_TEST(test_roundtrip),
    FIXTURE_TEST(test_process_labels),
    FIXTURE_TEST(test_roundtrip_build_id),
    FIXTURE_TEST(test_roundtrip_idle_and_invalid_utf8),
    FIXTURE_TEST(test_load_golden),
    cmocka_unit_test(test_load_foreign),
    cmocka_unit_test(test_thread_labels),
    cmocka_unit_test(test_errors_structure),
    cmocka_unit_test(test_errors_wire),
    cmocka_unit_test(test_bombs),
    cmocka_unit_test(test_sniff),
    cmocka_unit_test(test_pb_varints),
    cmocka_unit_test(test_pb_fields),
    cmocka_unit_test(test_utf8))
