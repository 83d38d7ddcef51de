/* fixture.h - what the unit tests share: a test's own profile, freed with
 * the outputs it keeps after the test (FIXTURE_TEST); profiles built from
 * frame names or ids, threads of a process, FORMATS.md's example
 * profile, metadata in one
 * statement; an exporter's output or a file's bytes in memory; checks of
 * substrings, of whole texts and of order-free lines; tables of byte
 * cases, and of texts a loader must refuse; temporary files.
 *
 * Every tests/unit/test_*.c is built into its own binary (see the
 * Makefile), so the helpers are static inline in this header rather than
 * a .c of their own: a test includes it and uses what it needs, and what
 * it does not use raises no -Wunused-function.  Each
 * helper fails the running cmocka test when something it needs fails.
 */
#ifndef SPROFTOP_FIXTURE_H
#define SPROFTOP_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit_main.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "format.h"
#include "load.h"
#include "profile.h"
#include "util.h"
#include "vec.h"

/* Deepest stack the add helpers take (the deep-recursion tests). */
#define FIXTURE_MAX_DEPTH 400

/* --- a test's own profile and texts -------------------------------------
 * FIXTURE_TEST(test) runs a cmocka test between fixture_setup and
 * fixture_teardown: its state holds a new profile (fixture_profile) and
 * what it hands fixture_keep / fixture_keep_profile, all freed after the
 * test whether it passes or fails (a failed assertion leaves the test by
 * longjmp, past any free of its own). */
struct fixture_state {
    struct profile *p;          /* fixture_profile's */
    char **texts;               /* fixture_keep's */
    size_t ntexts, texts_cap;
    struct profile **profiles;  /* fixture_keep_profile's */
    size_t nprofiles, profiles_cap;
};

static inline int fixture_setup(void **state)
{
    struct fixture_state *f = calloc(1, sizeof(*f));

    if (!f || !(f->p = profile_new())) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static inline int fixture_teardown(void **state)
{
    struct fixture_state *f = *state;

    util_strv_free(f->texts, f->ntexts);
    for (size_t i = 0; i < f->nprofiles; i++)
        profile_free(f->profiles[i]);
    free(f->profiles);
    profile_free(f->p);
    free(f);
    return 0;
}

#define FIXTURE_TEST(test)                                                  \
    cmocka_unit_test_setup_teardown(test, fixture_setup, fixture_teardown)

/* The FIXTURE_TEST's new profile, empty when the test starts. */
static inline struct profile *fixture_profile(void **state)
{
    return ((struct fixture_state *)*state)->p;
}

/* text (not NULL), freed after the FIXTURE_TEST; returns it. */
static inline char *fixture_keep(void **state, char *text)
{
    struct fixture_state *f = *state;

    assert_non_null(text);
    assert_int_equal(VEC_RESERVE(f->texts, f->texts_cap, f->ntexts + 1), 0);
    f->texts[f->ntexts++] = text;
    return text;
}

/* p (not NULL), freed after the FIXTURE_TEST; returns it. */
static inline struct profile *fixture_keep_profile(void **state,
                                                   struct profile *p)
{
    struct fixture_state *f = *state;

    assert_non_null(p);
    assert_int_equal(VEC_RESERVE(f->profiles, f->profiles_cap,
                                 f->nprofiles + 1), 0);
    f->profiles[f->nprofiles++] = p;
    return p;
}

/* The profile load_file makes of the file at path, kept as
 * fixture_keep_profile keeps it; fails the test with load_file's error
 * if it refuses the file. */
static inline struct profile *fixture_load_file(void **state,
                                                const char *path)
{
    char err[256] = "";
    struct profile *p = load_file(path, err, sizeof(err));

    if (!p)
        fail_msg("%s: %s", path, err);
    return fixture_keep_profile(state, p);
}

/* Intern a FRAME_FUNC frame in p and return its id; module and file may
 * be NULL, line 0 for unknown. */
static inline uint32_t fixture_frame(struct profile *p, const char *name,
                                     const char *module, const char *file,
                                     uint32_t line)
{
    struct frame_desc d = { .name = name, .module = module, .file = file,
                            .line = line, .kind = FRAME_FUNC };
    uint32_t id = profile_intern_frame(p, &d);

    assert_int_not_equal(id, PROFILE_NONE);
    return id;
}

/* The id of the first frame of p named `name`; fails the test if none. */
static inline uint32_t fixture_find_frame(const struct profile *p,
                                          const char *name)
{
    for (uint32_t i = 0; i < profile_frame_count(p); i++)
        if (strcmp(profile_frame(p, i)->name, name) == 0)
            return i;
    fail_msg("no frame %s", name);
    return PROFILE_NONE;
}

/* The index of a new thread tid named `name` of process pid (comm),
 * as the samplers make one; fails the test if p refuses either. */
static inline uint32_t fixture_thread_in(struct profile *p, int64_t tid,
                                         const char *name, int64_t pid,
                                         const char *comm)
{
    uint32_t t = profile_thread(p, tid, name);

    assert_int_not_equal(t, PROFILE_NONE);
    assert_int_equal(profile_thread_set_process(p, t, pid, comm), 0);
    return t;
}

/* The index of p's thread tid; fails the test if none. */
static inline uint32_t fixture_find_thread(const struct profile *p,
                                           int64_t tid)
{
    for (uint32_t i = 0; i < profile_thread_count(p); i++)
        if (profile_thread_at(p, i)->tid == tid)
            return i;
    fail_msg("no thread %lld", (long long)tid);
    return PROFILE_NONE;
}

/* The start line FORMATS.md's example gives function `name` (main 10,
 * a 20, b 30, c 40, d 50), 0 for any other name. */
static inline uint32_t fixture_example_line(const char *name)
{
    static const char *const known[] = { "main", "a", "b", "c", "d" };

    for (uint32_t i = 0; i < 5; i++)
        if (strcmp(name, known[i]) == 0)
            return 10 * (i + 1);
    return 0;
}

/* `name` as FORMATS.md's example has it: module "prog", file "prog.c",
 * the line of fixture_example_line. */
static inline uint32_t fixture_example_frame(struct profile *p,
                                             const char *name)
{
    return fixture_frame(p, name, "prog", "prog.c",
                         fixture_example_line(name));
}

/* FIXTURE_META(p, .field = value...): set p's metadata to the profile_meta
 * the fields make; fail the test if p refuses it. */
#define FIXTURE_META(p, ...)                                                \
    assert_int_equal(profile_set_meta(p, &(struct profile_meta){            \
                                              __VA_ARGS__ }), 0)

/* Add count samples of the stack ids[0..n) (root first) on thread.  With
 * call_lines each frame is sampled one line past its function's start
 * line (as a call from the body would be); without, at no line. */
static inline void fixture_add_ids(struct profile *p, uint32_t thread,
                                   const uint32_t *ids, size_t n,
                                   uint64_t count, bool call_lines)
{
    struct stack_frame f[FIXTURE_MAX_DEPTH];

    assert_true(n <= FIXTURE_MAX_DEPTH);
    for (size_t i = 0; i < n; i++) {
        uint32_t line = call_lines ? profile_frame(p, ids[i])->line : 0;

        f[i] = (struct stack_frame){ .frame = ids[i],
                                     .line = line ? line + 1 : 0 };
    }
    assert_int_equal(profile_add_stack(p, thread, f, n, count), 0);
}

/* FIXTURE_ADD_IDS_AT(p, thread, call_lines, count, id...): fixture_add_ids
 * with the stack written out; FIXTURE_ADD_IDS without call lines. */
#define FIXTURE_ADD_IDS_AT(p, t, call_lines, count, ...)                    \
    do {                                                                    \
        const uint32_t ids_[] = { __VA_ARGS__ };                            \
        fixture_add_ids(p, t, ids_, sizeof(ids_) / sizeof(ids_[0]), count,  \
                        call_lines);                                        \
    } while (0)
#define FIXTURE_ADD_IDS(p, t, count, ...)                                   \
    FIXTURE_ADD_IDS_AT(p, t, false, count, __VA_ARGS__)

/* Makes (or finds) the frame a test means by `name`; each test file has
 * the one whose attributes its expected output holds. */
typedef uint32_t (*fixture_frame_fn)(struct profile *p, const char *name);

/* Add count samples of the stack names[0..n) (root first), each frame
 * made by fn in stack order, on thread; no lines. */
static inline void fixture_add_names(struct profile *p, uint32_t thread,
                                     fixture_frame_fn fn,
                                     const char *const *names, size_t n,
                                     uint64_t count)
{
    uint32_t ids[FIXTURE_MAX_DEPTH];

    assert_true(n <= FIXTURE_MAX_DEPTH);
    for (size_t i = 0; i < n; i++)
        ids[i] = fn(p, names[i]);
    fixture_add_ids(p, thread, ids, n, count, false);
}

/* FIXTURE_ADD_NAMES(p, thread, fn, count, name...). */
#define FIXTURE_ADD_NAMES(p, t, fn, count, ...)                             \
    do {                                                                    \
        const char *const names_[] = { __VA_ARGS__ };                       \
        fixture_add_names(p, t, fn, names_,                                 \
                          sizeof(names_) / sizeof(names_[0]), count);       \
    } while (0)

/* Add count samples of a folded stack "main;a;b" (root first), each
 * frame made by fn, on thread; no lines. */
static inline void fixture_add_folded(struct profile *p, uint32_t thread,
                                      fixture_frame_fn fn, const char *stack,
                                      uint64_t count)
{
    const char *names[FIXTURE_MAX_DEPTH];
    char *copy = strdup(stack), *save = NULL;
    size_t n = 0;

    assert_non_null(copy);
    for (char *tok = strtok_r(copy, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        assert_true(n < FIXTURE_MAX_DEPTH);
        names[n++] = tok;
    }
    fixture_add_names(p, thread, fn, names, n, count);
    free(copy);
}

/* A profile with one thread (tid 1, "t") that ran the stacks of a folded
 * text, "main;a;b 3" per line, frames made by fn.  The caller frees it. */
static inline struct profile *fixture_folded(fixture_frame_fn fn,
                                             const char *text)
{
    struct profile *p = profile_new();
    char *copy = strdup(text), *save = NULL;
    uint32_t t;

    assert_non_null(p);
    assert_non_null(copy);
    t = profile_thread(p, 1, "t");
    for (char *l = strtok_r(copy, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *count = strrchr(l, ' ');

        assert_non_null(count);
        *count++ = '\0';
        fixture_add_folded(p, t, fn, l, strtoull(count, NULL, 10));
    }
    free(copy);
    return p;
}

/* FORMATS.md's example: threads 100 "main" and 101 "worker", frames
 * main, a, b, c, d made by fn in that order, then main;a;b x3 and
 * main;a;c x1 on "main", main;d x2 on "worker" (call_lines as for
 * fixture_add_ids).  No metadata.  The caller frees it. */
static inline struct profile *fixture_example(fixture_frame_fn fn,
                                              bool call_lines)
{
    struct profile *p = profile_new();
    uint32_t t0, t1, m, a, b, c, d;

    assert_non_null(p);
    t0 = profile_thread(p, 100, "main");
    t1 = profile_thread(p, 101, "worker");
    m = fn(p, "main");
    a = fn(p, "a");
    b = fn(p, "b");
    c = fn(p, "c");
    d = fn(p, "d");
    fixture_add_ids(p, t0, (const uint32_t[]){ m, a, b }, 3, 3, call_lines);
    fixture_add_ids(p, t0, (const uint32_t[]){ m, a, c }, 3, 1, call_lines);
    fixture_add_ids(p, t1, (const uint32_t[]){ m, d }, 2, 2, call_lines);
    return p;
}

/* What exporter e writes for p with options o (NULL as the exporter
 * takes it), NUL-terminated; its length in *len unless len is NULL.  The
 * caller frees it.  Not inlined: inlined, gcc 12 takes the returned
 * buffer for the local open_memstream was given (-Wdangling-pointer). */
__attribute__((unused, noinline))
static char *fixture_write(const struct format *e, const struct profile *p,
                           const struct export_opts *o, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    assert_non_null(f);
    assert_int_equal(e->write(p, o, f), 0);
    assert_int_equal(fclose(f), 0);
    if (len)
        *len = n;
    return buf;
}

/* FIXTURE_ASSERT_TEXT(text, want): fail the test unless the malloc'd
 * string text (an exporter's output, say) is exactly want; frees text.  A
 * macro, so that a failure names the test's line. */
#define FIXTURE_ASSERT_TEXT(text, want)                                     \
    do {                                                                    \
        char *text_ = (text);                                               \
                                                                            \
        assert_string_equal(text_, want);                                   \
        free(text_);                                                        \
    } while (0)

/* Fail the test (naming file:line and the text) unless text holds each
 * of the n strings want[]. */
static inline void fixture_assert_has(const char *file, int line,
                                      const char *text,
                                      const char *const *want, size_t n)
{
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        if (!strstr(text, want[i]))
            fail_msg("%s:%d: missing \"%s\" in:\n%s", file, line, want[i],
                     text);
}

/* FIXTURE_ASSERT_HAS(text, string...): each string is somewhere in text
 * (an exporter's output, say); text is not freed. */
#define FIXTURE_ASSERT_HAS(text, ...)                                       \
    do {                                                                    \
        const char *const want_[] = { __VA_ARGS__ };                        \
                                                                            \
        fixture_assert_has(__FILE__, __LINE__, text, want_,                 \
                           sizeof(want_) / sizeof(want_[0]));               \
    } while (0)

/* A case of a table-driven test: some bytes and what is wanted of them
 * (an error message, a format's name...).  FIXTURE_CASE(literal, want)
 * takes the whole literal, NULs inside included. */
struct fixture_case {
    const char *buf;
    size_t len;
    const char *want;
};
#define FIXTURE_CASE(lit, want) { lit, sizeof(lit) - 1, want }

/* A text a loader must refuse, and the error it must give for it. */
struct fixture_refusal {
    const char *text, *err;
};

/* Fail the test unless load refuses each of the n texts, named "t.json",
 * with its error. */
static inline void fixture_assert_refusals(load_fn *load,
                                           const struct fixture_refusal *c,
                                           size_t n)
{
    char err[256];

    for (size_t i = 0; i < n; i++) {
        struct profile *p;

        err[0] = '\0';
        p = load(c[i].text, strlen(c[i].text), "t.json", err, sizeof(err));
        if (p) {
            profile_free(p);
            fail_msg("refusal %zu: loaded", i);
        }
        assert_string_equal(err, c[i].err);
    }
}

/* The whole file at path, NUL-terminated (binary files too); its length
 * in *len unless len is NULL.  The caller frees it. */
static inline char *fixture_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0, cap = 0;
    char *buf = NULL;

    assert_non_null(f);
    for (size_t r = 1; r > 0; n += r) {
        assert_int_equal(VEC_RESERVE(buf, cap, n + 4096), 0);
        r = fread(buf + n, 1, cap - n - 1, f);
    }
    assert_false(ferror(f));
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* qsort comparator over an array of C strings. */
static inline int fixture_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The non-empty lines of text sorted, each ended by '\n' (for comparing
 * outputs whose line order is free).  The caller frees it. */
static inline char *fixture_sorted_lines(const char *text)
{
    char *copy = strdup(text), *save = NULL, *out, *o;
    char **lines = NULL;
    size_t n = 0, cap = 0;

    assert_non_null(copy);
    for (char *l = strtok_r(copy, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        assert_int_equal(VEC_RESERVE(lines, cap, n + 1), 0);
        lines[n++] = l;
    }
    if (n)
        qsort(lines, n, sizeof(lines[0]), fixture_cmp_str);
    out = o = malloc(strlen(text) + 2);
    assert_non_null(out);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(lines[i]);

        memcpy(o, lines[i], len);
        o += len;
        *o++ = '\n';
    }
    *o = '\0';
    free(lines);
    free(copy);
    return out;
}

/* Fail the test unless got and want hold the same lines in any order. */
static inline void fixture_assert_same_lines(const char *got,
                                             const char *want)
{
    char *g = fixture_sorted_lines(got), *w = fixture_sorted_lines(want);

    assert_string_equal(g, w);
    free(g);
    free(w);
}

/* Write len bytes of data to a new file /tmp/sproftop-test-XXXXXX<suffix>
 * and put its name in path (cap bytes; 64 is enough for a short suffix).
 * The caller unlinks it. */
static inline void fixture_tmp_file(char *path, size_t cap,
                                    const char *suffix, const void *data,
                                    size_t len)
{
    int fd;

    assert_true((size_t)snprintf(path, cap, "/tmp/sproftop-test-XXXXXX%s",
                                 suffix) < cap);
    fd = mkstemps(path, (int)strlen(suffix));
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

#endif
