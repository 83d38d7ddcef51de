/* test_kernel_model.c - kernel frames and off-CPU reasons in the model and
 * the formats: a kernel function is its own frame (origin is part of the
 * identity), hiding kernel frames folds their samples into the user
 * frame below them, the on/off-CPU filter keeps the stacks it names, a
 * thread's reasons are counted, and the folded, pprof and speedscope
 * writers mark kernel frames so that the readers (folded, pprof) give
 * them back; a stack of native, Python and kernel frames keeps each
 * frame's one origin through the writers and readers and the filters. */
#include "fixture.h"

#include "load.h"
#include "view_model.h"

static uint32_t kframe(struct profile *p, const char *name)
{
    struct frame_desc d = { .name = name, .module = PROFILE_KERNEL_MODULE,
                            .addr = 0xffffffff81002010ull,
                            .kind = FRAME_FUNC,
                            .origin = FRAME_ORIGIN_KERNEL };
    uint32_t id = profile_intern_frame(p, &d);

    assert_int_not_equal(id, PROFILE_NONE);
    return id;
}

static uint32_t rframe(struct profile *p, const char *name)
{
    struct frame_desc d = { .name = name, .kind = FRAME_REASON };
    uint32_t id = profile_intern_frame(p, &d);

    assert_int_not_equal(id, PROFILE_NONE);
    return id;
}

/* main;read;[k]entry_SYSCALL_64;[k]read_zero x5 (on CPU, in the kernel),
 * main;work x3, main;read;[k]entry_SYSCALL_64;[k]schedule;
 * [off-CPU: disk I/O] x4, and main;[off-CPU: waiting for a CPU] x2; a
 * second thread: main;[off-CPU: lock] x6. */
static struct profile *kernel_profile(void)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 10, "app"), t2 = profile_thread(p, 11, "w");
    uint32_t m = fixture_frame(p, "main", "app", NULL, 0);
    uint32_t rd = fixture_frame(p, "read", "libc.so.6", NULL, 0);
    uint32_t wk = fixture_frame(p, "work", "app", NULL, 0);
    uint32_t e = kframe(p, "entry_SYSCALL_64"), z = kframe(p, "read_zero");
    uint32_t sc = kframe(p, "schedule");
    uint32_t disk = rframe(p, "[off-CPU: disk I/O]");
    uint32_t cpu = rframe(p, "[off-CPU: waiting for a CPU]");
    uint32_t lock = rframe(p, "[off-CPU: lock]");

    FIXTURE_ADD_IDS(p, t, 5, m, rd, e, z);
    FIXTURE_ADD_IDS(p, t, 3, m, wk);
    FIXTURE_ADD_IDS(p, t, 4, m, rd, e, sc, disk);
    FIXTURE_ADD_IDS(p, t, 2, m, cpu);
    FIXTURE_ADD_IDS(p, t2, 6, m, lock);
    return p;
}

static void test_identity(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    struct frame_desc user = { .name = "read", .module = "m",
                               .kind = FRAME_FUNC };
    struct frame_desc kern = user;
    uint32_t a, b;

    kern.origin = FRAME_ORIGIN_KERNEL;
    a = profile_intern_frame(p, &user);
    b = profile_intern_frame(p, &kern);
    assert_int_not_equal(a, b);
    assert_int_equal(profile_intern_frame(p, &kern), b);
    assert_false(profile_frame_is_kernel(profile_frame(p, a)));
    assert_true(profile_frame_is_kernel(profile_frame(p, b)));
    /* a clone keeps it */
    struct profile *q = profile_clone(p);
    assert_true(profile_frame_is_kernel(profile_frame(q, b)));
    profile_free(q);
    profile_free(p);
    assert_int_equal(profile_name_kind("[off-CPU: lock]"), FRAME_REASON);
    assert_int_equal(profile_name_kind("[unknown]"), FRAME_SPECIAL);
    assert_int_equal(profile_name_kind("[kernel]+0xffffffff81000000"),
                     FRAME_FUNC);
    assert_int_equal(profile_name_kind("read"), FRAME_FUNC);
}

/* The leaf's samples of a derived tree, by path "a;b;c". */
static uint64_t self_of(const struct profile *p, uint32_t thread,
                        const char *path)
{
    char copy[256], *save = NULL;
    uint32_t node = profile_thread_at(p, thread)->node;

    snprintf(copy, sizeof(copy), "%s", path);
    for (char *s = strtok_r(copy, ";", &save); s; s = strtok_r(NULL, ";", &save)) {
        node = profile_child(p, node, fixture_find_frame(p, s));
        if (node == PROFILE_NONE)
            return 0;
    }
    return profile_node(p, node)->self;
}

static void test_filters(void **state)
{
    (void)state;
    struct profile *p = kernel_profile();
    struct profile_filter f = { .thread = PROFILE_NONE, .focus = PROFILE_NONE,
                                .hide_kernel = true };
    struct profile *q = profile_derive(p, &f);

    /* kernel frames hidden: their time on the user frame that called */
    assert_int_equal(self_of(q, 0, "main;read"), 5);
    assert_int_equal(self_of(q, 0, "main;read;[off-CPU: disk I/O]"), 4);
    assert_int_equal(self_of(q, 0, "main;read;read_zero"), 0);
    assert_int_equal(profile_samples(q), profile_samples(p));
    profile_free(q);
    /* inverted too: the reason is the root of its stack */
    f.inverted = true;
    q = profile_derive(p, &f);
    assert_int_equal(self_of(q, 0, "[off-CPU: disk I/O];read;main"), 4);
    profile_free(q);
    f.inverted = false;
    f.hide_kernel = false;
    f.cpu = PROFILE_CPU_ON;
    q = profile_derive(p, &f);
    assert_int_equal(profile_samples(q), 8);
    assert_int_equal(self_of(q, 0, "main;read;entry_SYSCALL_64;read_zero"), 5);
    profile_free(q);
    f.cpu = PROFILE_CPU_OFF;
    q = profile_derive(p, &f);
    assert_int_equal(profile_samples(q), 12);
    assert_int_equal(self_of(q, 1, "main;[off-CPU: lock]"), 6);
    profile_free(q);

    /* the view model applies them (and only when there is something to
     * hide) */
    struct model_filter mf = { .focus = PROFILE_NONE, .hide_kernel = true,
                               .cpu = PROFILE_CPU_OFF };
    struct model *m = model_new(p, &mf, 0, 0);
    assert_non_null(m);
    assert_int_equal(m->total, 12);
    assert_null(model_flat_of(m, fixture_find_frame(p, "schedule")));
    assert_non_null(model_flat_of(m, fixture_find_frame(p, "read")));
    model_free(m);
    profile_free(p);
}

static void test_thread_reasons(void **state)
{
    (void)state;
    struct profile *p = kernel_profile();
    struct profile_reason_count r[8];
    char label[64];

    size_t n = profile_thread_reasons(p, 0, r, 8);
    assert_int_equal(n, 2);
    assert_string_equal(profile_reason_label(profile_frame(p, r[0].frame),
                                             label, sizeof(label)),
                        "disk I/O");
    assert_int_equal(r[0].samples, 4);
    assert_int_equal(r[1].samples, 2);
    assert_int_equal(profile_thread_reasons(p, 1, r, 8), 1);
    assert_int_equal(r[0].samples, 6);
    /* at most cap */
    assert_int_equal(profile_thread_reasons(p, 0, r, 1), 1);
    assert_int_equal(profile_thread_reasons(p, 7, r, 8), 0);
    assert_null(profile_reason_label(profile_frame(p, 0), label,
                                     sizeof(label)));
    profile_free(p);
}

/* Frame `name` of q is a kernel function (or not). */
static void assert_kernel(const struct profile *q, const char *name, bool k)
{
    const struct frame_desc *d = profile_frame(q, fixture_find_frame(q, name));

    assert_int_equal(profile_frame_is_kernel(d), k);
    if (k)
        assert_string_equal(d->module, PROFILE_KERNEL_MODULE);
}

static void test_formats(void **state)
{
    (void)state;
    struct profile *p = kernel_profile();
    char err[256];
    size_t len;
    struct export_opts o;

    export_opts_default(&o);
    /* folded: "_[k]" on kernel functions, the reason as a frame */
    char *folded = fixture_write(format_find("folded"), p, &o, &len);
    assert_non_null(strstr(folded, "app-10;main;read;entry_SYSCALL_64_[k];"
                                   "read_zero_[k] 5\n"));
    assert_non_null(strstr(folded, ";schedule_[k];[off-CPU: disk I/O] 4\n"));
    struct profile *q = load_folded(folded, len, "k.folded", err, sizeof(err));
    assert_non_null(q);
    assert_kernel(q, "read_zero", true);
    assert_kernel(q, "read", false);
    assert_int_equal(profile_frame(q, fixture_find_frame(q, "[off-CPU: lock]"))
                         ->kind, FRAME_REASON);
    char *again = fixture_write(format_find("folded"), q, &o, NULL);
    assert_string_equal(again, folded);
    free(again);
    /* no options at all: the defaults' output, kernel marks and all */
    again = fixture_write(format_find("folded"), p, NULL, NULL);
    assert_string_equal(again, folded);
    free(again);
    free(folded);
    profile_free(q);

    /* pprof: the [kernel.kallsyms] mapping; back the same, byte for byte */
    char *pb = fixture_write(format_find("pprof"), p, &o, &len);
    q = load_pprof(pb, len, "k.pb.gz", err, sizeof(err));
    assert_non_null(q);
    assert_kernel(q, "schedule", true);
    assert_kernel(q, "main", false);
    assert_int_equal(profile_frame(q, fixture_find_frame(
                         q, "[off-CPU: disk I/O]"))
                         ->kind, FRAME_REASON);
    size_t len2;
    char *pb2 = fixture_write(format_find("pprof"), q, &o, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(pb2, pb, len);
    free(pb2);
    free(pb);
    profile_free(q);

    /* speedscope: the kernel's module as a kernel function's file */
    char *ss = fixture_write(format_find("speedscope"), p, &o, NULL);
    assert_non_null(strstr(ss, "{\"name\": \"read_zero\", \"file\": "
                               "\"[kernel.kallsyms]\"}"));
    assert_non_null(strstr(ss, "{\"name\": \"[off-CPU: disk I/O]\"}"));
    /* ...read back: kernel functions again, written the same */
    q = load_speedscope(ss, strlen(ss), "k.speedscope.json", err,
                        sizeof(err));
    assert_non_null(q);
    assert_kernel(q, "read_zero", true);
    assert_kernel(q, "read", false);
    char *ss2 = fixture_write(format_find("speedscope"), q, &o, NULL);
    assert_string_equal(ss2, ss);
    free(ss2);
    profile_free(q);
    free(ss);
    profile_free(p);
}

/* origin: the one origin of frame `name` of q */
static int origin_of(const struct profile *q, const char *name)
{
    return profile_frame(q, fixture_find_frame(q, name))->origin;
}

/* main (native) -> handle (Python) -> read (native) -> [k] read_zero,
 * x4, and the same ending in [k] schedule;[off-CPU: disk I/O], x2. */
static struct profile *mixed_profile(void)
{
    struct profile *p = profile_new();
    uint32_t t = profile_thread(p, 10, "app");
    uint32_t m = fixture_frame(p, "main", "app", NULL, 0);
    struct frame_desc py = { .name = "handle", .module = "srv.py",
                             .file = "/srv/srv.py", .line = 12,
                             .kind = FRAME_FUNC,
                             .origin = FRAME_ORIGIN_PYTHON };
    uint32_t h = profile_intern_frame(p, &py);
    uint32_t rd = fixture_frame(p, "read", "libc.so.6", NULL, 0);
    uint32_t z = kframe(p, "read_zero"), sc = kframe(p, "schedule");
    uint32_t disk = rframe(p, "[off-CPU: disk I/O]");

    assert_int_not_equal(h, PROFILE_NONE);
    FIXTURE_ADD_IDS(p, t, 4, m, h, rd, z);
    FIXTURE_ADD_IDS(p, t, 2, m, h, rd, sc, disk);
    return p;
}

static void assert_origins(const struct profile *q)
{
    assert_int_equal(origin_of(q, "main"), FRAME_ORIGIN_NATIVE);
    assert_int_equal(origin_of(q, "handle"), FRAME_ORIGIN_PYTHON);
    assert_int_equal(origin_of(q, "read"), FRAME_ORIGIN_NATIVE);
    assert_int_equal(origin_of(q, "read_zero"), FRAME_ORIGIN_KERNEL);
    assert_int_equal(origin_of(q, "schedule"), FRAME_ORIGIN_KERNEL);
    assert_int_equal(profile_frame(q, fixture_find_frame(
                         q, "[off-CPU: disk I/O]"))->kind, FRAME_REASON);
}

static void test_one_origin(void **state)
{
    (void)state;
    struct profile *p = mixed_profile(), *q;
    struct export_opts o;
    char err[256];
    size_t len;

    export_opts_default(&o);
    assert_origins(p);
    /* folded, pprof and speedscope: the same origins back */
    static const char *const back[][2] = {
        { "folded", "m.folded" },
        { "pprof", "m.pb.gz" },
        { "speedscope", "m.speedscope.json" },
    };
    for (size_t i = 0; i < sizeof(back) / sizeof(back[0]); i++) {
        const struct format *fmt = format_find(back[i][0]);
        char *f = fixture_write(fmt, p, &o, &len);
        /* folded: py-spy's "name (file:line)" and stackcollapse's "_[k]" */
        if (i == 0)
            assert_non_null(strstr(f, "app-10;main;handle (srv.py:12);read;"
                                      "read_zero_[k] 4\n"));
        q = fmt->load(f, len, back[i][1], err, sizeof(err));
        assert_non_null(q);
        assert_origins(q);
        profile_free(q);
        free(f);
    }

    /* K and P together: the Python frame and the reason stay, main (a
     * native caller of Python) and read, read_zero, schedule go */
    struct profile_filter pf = { .thread = PROFILE_NONE,
                                 .focus = PROFILE_NONE,
                                 .hide_kernel = true, .python_only = true };
    q = profile_derive(p, &pf);
    assert_non_null(q);
    char *t = fixture_write(format_find("folded"), q, &o, NULL);
    assert_string_equal(t, "app-10;handle (srv.py:12) 4\n"
                           "app-10;handle (srv.py:12);[off-CPU: disk I/O] 2\n");
    free(t);
    profile_free(q);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_thread_reasons),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_one_origin),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
