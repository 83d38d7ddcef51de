/* test_collect.c - the collector's fold (src/collect/fold.c) with a fake
 * symbolizer: raw stacks in ingest records become symbolized stacks in
 * the profile, with the maps of their generation, through a pc cache.
 *
 * The fake symbolizer below takes the place of symbols.c at link time
 * (symbols.h is the seam).  It names an address after the maps text it
 * was last given and the address it looks at, "TEXT.fADDR" in hex, where
 * ADDR is pc-1 for a return address, as the real one looks at the call;
 * an address with bit 0x100 set expands to an inlined frame "TEXT.iADDR"
 * inside "TEXT.fADDR"; an address of 0xdead has no frame at all.
 * Addresses with bit 0x1000 set are in a stripped module, build-id
 * "b1d", whose functions are 16 bytes long: "[strip+0xSTART]" until its
 * debug info arrives (arriving set: the next symbols_update attaches
 * it), then "fnSTART", with an inlined "inl" in its last 8 bytes. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit_main.h"

#include "fold.h"
#include "ingest.h"
#include "profile.h"
#include "script_frames.h"
#include "stackword.h"
#include "symbols.h"

/* --- the fake symbolizer ------------------------------------------------- */

struct symbols {
    char maps[16];       /* text of the last load */
    int loads;           /* symbols_load_maps calls */
    uint64_t lookups;    /* symbols_lookup calls */
    bool arriving;       /* the stripped module's debug info is on its way */
    bool named;          /* ...and was attached */
    bool gained;         /* ...by the last symbols_update */
};

static struct symbols *fake;  /* the one the test made */
static char names[2][64];     /* names handed out by the last lookup */

struct symbols *symbols_new(struct sym_store *store, pid_t pid, char *err,
                            size_t errlen)
{
    (void)store, (void)pid, (void)err, (void)errlen;
    return calloc(1, sizeof(struct symbols));
}

void symbols_free(struct symbols *s)
{
    if (s == fake)
        fake = NULL;
    free(s);
}

int symbols_load_maps(struct symbols *s, const char *maps, size_t len)
{
    snprintf(s->maps, sizeof s->maps, "%.*s", (int)len, maps);
    s->loads++;
    return 0;
}

/* Frames of address a in the stripped module. */
static int stripped(const struct symbols *s, uint64_t a, struct sym_frame *out)
{
    uint64_t start = a & ~0xfull;
    int n = 0;
    if (!s->named) {
        snprintf(names[0], sizeof names[0], "[strip+0x%llx]",
                 (unsigned long long)start);
        out[0] = (struct sym_frame){.name = names[0], .module = "strip",
                                    .build_id = "b1d", .offset = start};
        return 1;
    }
    if (a & 0x8)
        out[n++] = (struct sym_frame){.name = "inl", .module = "strip",
                                      .inlined = true, .known = true};
    /* as the real one: a name stays valid after the next lookup */
    static char fn[256][24];
    char *name = fn[(start >> 4) & 0xff];
    snprintf(name, sizeof fn[0], "fn%llx", (unsigned long long)start);
    out[n++] = (struct sym_frame){.name = name, .module = "strip",
                                  .file = "strip.c", .known = true};
    return n;
}

int symbols_lookup(struct symbols *s, uint64_t pc, bool is_return_addr,
                   struct sym_frame *out, int max)
{
    s->lookups++;
    uint64_t a = is_return_addr ? pc - 1 : pc;
    if (pc == 0xdead || max < 2)
        return 0;
    if (a & 0x1000)
        return stripped(s, a, out);
    int n = 0;
    if (a & 0x100) {
        snprintf(names[n], sizeof names[n], "%s.i%llx", s->maps,
                 (unsigned long long)a);
        out[n] = (struct sym_frame){.name = names[n], .line = 7,
                                    .inlined = true, .known = true};
        n++;
    }
    snprintf(names[n], sizeof names[n], "%s.f%llx", s->maps,
             (unsigned long long)a);
    out[n] = (struct sym_frame){.name = names[n], .module = "mod",
                                .line = 3, .sym_addr = a, .known = true};
    return n + 1;
}

int symbols_update(struct symbols *s)
{
    s->gained = s->arriving && !s->named;
    s->named |= s->gained;
    return s->gained;
}

bool symbols_gained(const struct symbols *s, const char *build_id)
{
    return s->gained && strcmp(build_id, "b1d") == 0;
}

int symbols_lookup_offset(struct symbols *s, const char *build_id,
                          uint64_t offset, struct sym_frame *out, int max)
{
    if (strcmp(build_id, "b1d") != 0 || max < 2)
        return 0;
    return stripped(s, offset, out);
}

void symbols_get_stats(const struct symbols *s, struct symbols_stats *out)
{
    memset(out, 0, sizeof *out);
    out->lookups = s->lookups;
}

/* --- helpers ---------------------------------------------------------------- */

/* Each test gets a fold with the fake symbolizer and an ingest buffer. */
struct fx {
    struct fold *f;
    struct ingest *in;
};

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof *x);
    if (!x || !(x->f = fold_new()) || !(x->in = ingest_new(1 << 16)) ||
        !(fake = symbols_new(NULL, 1, NULL, 0)))
        return -1;
    fold_set_symbols(x->f, fake);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fx *x = *state;
    ingest_free(x->in);
    fold_free(x->f);
    free(x);
    return 0;
}

static void push_sample(struct ingest *in, int tid, uint64_t gen,
                        uint32_t flags, const uint64_t *pcs, size_t n)
{
    struct ingest_rec h = {.type = INGEST_SAMPLE, .tid = tid, .flags = flags,
                           .gen = gen};
    assert_int_equal(ingest_push(in, &h, pcs, n * sizeof *pcs), 0);
}

static void push_name(struct ingest *in, int tid, const char *name)
{
    struct ingest_rec h = {.type = INGEST_THREAD, .tid = tid};
    assert_int_equal(ingest_push(in, &h, name, strlen(name)), 0);
}

/* Fold what was pushed to in. */
static void fold_pushed(struct fold *f, struct ingest *in)
{
    const uint8_t *data;
    size_t len;
    ingest_swap(in, &data, &len);
    fold_records(f, data, len);
}

struct dump {
    const struct profile *p;
    char text[4096];
    size_t len;
};

static int dump_stack(void *ctx, uint32_t thread, const uint32_t *frames,
                      size_t n, uint64_t count)
{
    struct dump *d = ctx;
    const struct profile_thread *t = profile_thread_at(d->p, thread);
    d->len += (size_t)snprintf(d->text + d->len, sizeof d->text - d->len,
                               "%s", profile_frame(d->p, t->frame)->name);
    for (size_t i = 0; i < n; i++)
        d->len += (size_t)snprintf(d->text + d->len, sizeof d->text - d->len,
                                   ";%s", profile_frame(d->p, frames[i])->name);
    d->len += (size_t)snprintf(d->text + d->len, sizeof d->text - d->len,
                               " %llu\n", (unsigned long long)count);
    return 0;
}

/* The folded stacks of a snapshot, "thread;root;...;leaf COUNT" lines. */
static void assert_folded(struct fold *f, const char *want)
{
    struct profile *p = fold_snapshot(f);
    assert_non_null(p);
    struct dump d = {.p = p};
    assert_int_equal(profile_foreach_stack(p, dump_stack, &d), 0);
    assert_string_equal(d.text, want);
    profile_free(p);
}

/* --- tests --------------------------------------------------------------------- */

static void test_stack_order_and_names(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    static const uint64_t pcs[] = {0x10, 0x21, 0x31};  /* leaf first */

    fold_add_maps(f, 1, "A", 1);
    push_name(in, 7, "worker");
    push_sample(in, 7, 1, 0, pcs, 3);
    uint64_t g0 = fold_generation(f);
    fold_pushed(f, in);
    /* root first; callers looked up at the call (pc-1) */
    assert_folded(f, "worker-7;A.f30;A.f20;A.f10 1\n");
    assert_int_equal(fold_samples(f), 1);
    assert_true(fold_generation(f) != g0);
    assert_int_equal(fake->loads, 1);
    fold_free(f);
    x->f = NULL;
    assert_null(fake);  /* the fold freed its symbolizer */
}

static void test_pc_cache(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    static const uint64_t a[] = {0x10, 0x21};
    static const uint64_t b[] = {0x21, 0x10};  /* same pcs, other roles */

    fold_add_maps(f, 1, "A", 1);
    for (int i = 0; i < 100; i++)
        push_sample(in, 1, 1, 0, a, 2);
    push_sample(in, 1, 1, 0, b, 2);
    fold_pushed(f, in);
    /* once per (pc, leaf or return address) */
    assert_int_equal(fake->lookups, 4);
    assert_folded(f, "thread-1;A.f20;A.f10 100\nthread-1;A.ff;A.f21 1\n");
}

static void test_generations(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    static const uint64_t pc[] = {0x40};

    fold_add_maps(f, 1, "A", 1);
    fold_add_maps(f, 3, "C", 1);
    push_sample(in, 1, 1, 0, pc, 1);
    push_sample(in, 1, 2, 0, pc, 1);  /* no maps of its own: the newest older */
    push_sample(in, 1, 3, 0, pc, 1);
    fold_pushed(f, in);
    assert_folded(f, "thread-1;A.f40 2\nthread-1;C.f40 1\n");
    /* a new generation empties the cache: the pc is looked up again */
    assert_int_equal(fake->lookups, 3);
    assert_int_equal(fake->loads, 3);

    /* maps handed over later are found when their samples come */
    fold_add_maps(f, 4, "D", 1);
    push_sample(in, 1, 4, 0, pc, 1);
    fold_pushed(f, in);
    assert_folded(f, "thread-1;A.f40 2\nthread-1;C.f40 1\nthread-1;D.f40 1\n");
}

/* -p with a list: a sibling fold has its own maps, generations and
 * symbolizer, and adds into the base's profile. */
static void test_sibling(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in2 = ingest_new(1 << 16);
    struct fold *g = fold_new_sibling(f);
    struct symbols *sym2 = symbols_new(NULL, 2, NULL, 0);
    assert_non_null(in2);
    assert_non_null(g);
    assert_non_null(sym2);
    fold_set_symbols(g, sym2);
    static const uint64_t pc[] = {0x40};

    /* the same generation number means other maps in each process */
    fold_add_maps(f, 1, "A", 1);
    fold_add_maps(g, 1, "B", 1);
    push_sample(x->in, 10, 1, 0, pc, 1);
    push_sample(in2, 20, 1, 0, pc, 1);
    push_sample(in2, 20, 1, 0, pc, 1);
    uint64_t g0 = fold_generation(f);
    fold_pushed(f, x->in);
    fold_pushed(g, in2);
    assert_folded(f, "thread-10;A.f40 1\nthread-20;B.f40 2\n");
    assert_int_equal(fold_samples(f), 3);
    assert_true(fold_generation(g) == fold_generation(f));
    assert_true(fold_generation(f) != g0);
    assert_int_equal(sym2->loads, 1);
    assert_int_equal(fake->loads, 1);
    fold_free(g);              /* siblings first: the base's profile stays */
    assert_folded(f, "thread-10;A.f40 1\nthread-20;B.f40 2\n");
    ingest_free(in2);
}

/* A leader met again once gone from /proc comes named "?": it keeps its
 * process's command, and the command stays (it was once copied onto
 * itself, and a build's compilers became processes of no name). */
static void test_leader_unknown_name(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    static const uint64_t pc[] = {0x40};

    fold_set_process(f, 5, "cc1");
    fold_add_maps(f, 1, "A", 1);
    push_name(in, 5, "cc1");
    push_sample(in, 5, 1, 0, pc, 1);
    push_name(in, 5, "?");
    push_sample(in, 5, 1, 0, pc, 1);
    fold_pushed(f, in);
    struct profile *p = fold_snapshot(f);
    assert_non_null(p);
    assert_int_equal(profile_thread_count(p), 1);
    assert_string_equal(profile_thread_at(p, 0)->name, "cc1");
    assert_non_null(profile_thread_at(p, 0)->process);
    assert_string_equal(profile_thread_at(p, 0)->process, "cc1");
    profile_free(p);
}

static void test_truncated_inlined_unknown(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    static const uint64_t inl[] = {0x110, 0x21};
    static const uint64_t bad[] = {0x10, 0xdead};

    fold_add_maps(f, 1, "A", 1);
    push_sample(in, 5, 1, INGEST_F_TRUNCATED, inl, 2);
    push_sample(in, 5, 1, 0, bad, 2);   /* cannot be symbolized: dropped */
    push_name(in, 5, "");               /* a nameless thread is "?" */
    fold_pushed(f, in);
    /* the inlined callee is inside (after) its function; the marker is the
     * root */
    assert_folded(f, "?-5;[truncated];A.f20;A.f110;A.i110 1\n");
    assert_int_equal(fold_samples(f), 1);

    uint64_t g = fold_generation(f);
    fold_reset(f);
    assert_int_equal(fold_samples(f), 0);
    assert_true(fold_generation(f) != g);
}

/* Code of a stripped module is keyed by build-id and offset, so when its
 * debug info arrives its frames are renamed, and the samples taken before
 * merge with those taken after under the function's name. */
static void test_late_names(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    static const uint64_t a[] = {0x1004, 0x21}, b[] = {0x100c, 0x21},
                          c[] = {0x1024, 0x21};

    fold_add_maps(f, 1, "A", 1);
    for (int i = 0; i < 3; i++)
        push_sample(in, 1, 1, 0, a, 2);
    push_sample(in, 1, 1, 0, b, 2);
    push_sample(in, 1, 1, 0, c, 2);
    push_sample(in, 1, 1, 0, c, 2);
    fold_pushed(f, in);
    /* one frame per function (its start), not per address */
    assert_folded(f, "thread-1;A.f20;[strip+0x1000] 4\n"
                     "thread-1;A.f20;[strip+0x1020] 2\n");
    uint64_t g = fold_generation(f);
    fold_update_names(f);  /* nothing arrived */
    assert_int_equal(fold_generation(f), g);

    fake->arriving = true;
    fold_update_names(f);
    assert_true(fold_generation(f) != g);
    assert_folded(f, "thread-1;A.f20;fn1000 4\nthread-1;A.f20;fn1020 2\n");
    /* later samples are looked up again: the inlined frame shows */
    push_sample(in, 1, 1, 0, a, 2);
    push_sample(in, 1, 1, 0, b, 2);
    fold_pushed(f, in);
    assert_folded(f, "thread-1;A.f20;fn1000 5\n"
                     "thread-1;A.f20;fn1000;inl 1\n"
                     "thread-1;A.f20;fn1020 2\n");
    struct profile *p = fold_snapshot(f);
    uint32_t fn = PROFILE_NONE;
    for (uint32_t i = 0; i < profile_frame_count(p); i++)
        if (strcmp(profile_frame(p, i)->name, "fn1000") == 0)
            fn = i;
    assert_int_not_equal(fn, PROFILE_NONE);
    assert_string_equal(profile_frame(p, fn)->file, "strip.c");
    assert_null(profile_frame(p, fn)->build_id);
    profile_free(p);
}

/* The sampler hands maps over while the collector folds: under TSan this
 * checks the hand-over's locking; everywhere, that no generation's
 * samples are lost or named with another's maps. */
struct feeder {
    struct fold *f;
    int gens;
    atomic_int handed;  /* generations handed over so far */
};

static void *feed_maps(void *arg)
{
    struct feeder *fd = arg;
    for (int g = 1; g <= fd->gens; g++) {
        char text[16];
        int n = snprintf(text, sizeof text, "g%d", g);
        fold_add_maps(fd->f, (uint64_t)g, text, (size_t)n);
        atomic_store(&fd->handed, g);
    }
    return NULL;
}

/* Python frames: code objects announced (INGEST_CODE) before the samples
 * whose words name them; each word becomes its Python frame (origin,
 * module, file, first line) with the sample's line; a word whose code was
 * never announced is left out; native words around stay. */
static void push_code(struct ingest *in, uint32_t id, int32_t first,
                      const char *name, const char *file)
{
    uint8_t buf[256];
    struct ingest_code ic = {.id = id, .firstlineno = first,
                             .lang = SCRIPT_PYTHON,
                             .name_len = (uint16_t)strlen(name),
                             .file_len = (uint16_t)strlen(file)};
    memcpy(buf, &ic, sizeof ic);
    memcpy(buf + sizeof ic, name, ic.name_len);
    memcpy(buf + sizeof ic + ic.name_len, file, ic.file_len);
    struct ingest_rec h = {.type = INGEST_CODE, .tid = 3};
    assert_int_equal(ingest_push(in, &h, buf,
                                 sizeof ic + ic.name_len + ic.file_len), 0);
}

static void test_python_words(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    const uint64_t pcs[] = {0x10, stackword_script(1, 42),
                            stackword_script(0, 7), stackword_script(9, 1),
                            0x21};

    fold_add_maps(f, 1, "A", 1);
    push_name(in, 3, "py");
    push_code(in, 0, 5, "<module>", "/srv/app.py");
    push_code(in, 1, 40, "Handler.get", "/srv/app.py");
    push_sample(in, 3, 1, 0, pcs, 5);
    push_sample(in, 3, 1, 0, pcs, 5);
    fold_pushed(f, in);
    /* code 9 was never announced: no frame for it */
    assert_folded(f, "py-3;A.f20;<module>;Handler.get;A.f10 2\n");
    struct profile *p = fold_snapshot(f);
    bool seen = false;
    for (uint32_t i = 0; i < profile_frame_count(p); i++) {
        const struct frame_desc *d = profile_frame(p, i);
        if (strcmp(d->name, "Handler.get") != 0)
            continue;
        seen = true;
        assert_true(profile_frame_is_python(d));
        assert_string_equal(d->module, "app.py");
        assert_string_equal(d->file, "/srv/app.py");
        assert_int_equal(d->line, 40);
        struct profile_linecount *lc;
        assert_int_equal(profile_lines(p, i, false, &lc), 1);
        assert_int_equal(lc[0].key, 42);  /* the sampled line */
        assert_int_equal(lc[0].self, 0);
        assert_int_equal(lc[0].total, 2);
        free(lc);
    }
    assert_true(seen);
    profile_free(p);
}

static void test_concurrent_maps(void **state)
{
    struct fx *x = *state;
    struct fold *f = x->f;
    struct ingest *in = x->in;
    struct feeder fd = {.f = f, .gens = 2000};
    pthread_t t;
    static const uint64_t pc[] = {0x10};

    atomic_init(&fd.handed, 0);
    assert_int_equal(pthread_create(&t, NULL, feed_maps, &fd), 0);
    for (int g = 1; g <= fd.gens; g++) {
        /* as the sampler does: no sample before its generation's maps */
        while (atomic_load(&fd.handed) < g)
            sched_yield();
        push_sample(in, 1, (uint64_t)g, 0, pc, 1);
        fold_pushed(f, in);
        char want[16];
        snprintf(want, sizeof want, "g%d", g);
        assert_string_equal(fake->maps, want);
    }
    pthread_join(t, NULL);
    assert_int_equal(fold_samples(f), fd.gens);
}

UNIT_MAIN(
    cmocka_unit_test_setup_teardown(test_stack_order_and_names, setup, teardown),
    cmocka_unit_test_setup_teardown(test_pc_cache, setup, teardown),
    cmocka_unit_test_setup_teardown(test_generations, setup, teardown),
    cmocka_unit_test_setup_teardown(test_sibling, setup, teardown),
    cmocka_unit_test_setup_teardown(test_leader_unknown_name, setup, teardown),
    cmocka_unit_test_setup_teardown(test_truncated_inlined_unknown, setup, teardown),
    cmocka_unit_test_setup_teardown(test_late_names, setup, teardown),
    cmocka_unit_test_setup_teardown(test_python_words, setup, teardown),
    cmocka_unit_test_setup_teardown(test_concurrent_maps, setup, teardown))
