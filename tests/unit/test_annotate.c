/* test_annotate.c - the pure side of annotate (issue 25): a function's
 * code described plainly (annotate.h), its samples per instruction
 * (profile_code_counts, annot_count), the listing's rows and hot order,
 * an instruction's text, the text export's --annotate listing and the
 * callgrind export's per-instruction positions, and srcfile.h.
 *
 * The profile: module "m", function f at 0x1000 calling h (module "n")
 * from 0x100b, with g inlined into f at 0x1008:
 *   main@0x2010 (return) -> f@0x1004            3 samples  (f's own code)
 *   main@0x2010 -> f@0x1008 -> g@0x1008 inlined 5 samples  (g in f)
 *   main@0x2010 -> f@0x1010 (return) -> h@0x5000 2 samples (f calls h)
 * f's code, as the engine would describe it:
 *   0x1000 (4)  push %rbp           a.c:10
 *   0x1004 (4)  add  %rax,%rbx      a.c:10
 *   0x1008 (3)  imul %rcx,%rdx      b.h:20  inlined g
 *   0x100b (5)  call 0x5000  h      a.c:11
 *   0x1010 (2)  jne  0x1004         a.c:11
 */
#include "fixture.h"

#include "annotate.h"
#include "format.h"
#include "srcfile.h"

#include <errno.h>
#include <sys/stat.h>

struct fx {
    struct profile *p;
    uint32_t mainf, f, g, h;
    struct annotation *a;
    struct export_opts o;       /* for the exports' tests */
};

static void add(struct profile *p, uint32_t t, const struct stack_frame *s,
                size_t n, uint64_t count)
{
    assert_int_equal(profile_add_stack(p, t, s, n, count), 0);
}

static struct annotation *code_of_f(void)
{
    static const struct annot_insn in[] = {
        { .addr = 0x1000, .len = 4, .line = 10, .text = "push %rbp",
          .file = "/src/a.c" },
        { .addr = 0x1004, .len = 4, .line = 10, .text = "add %rax, %rbx",
          .file = "/src/a.c" },
        { .addr = 0x1008, .len = 3, .line = 20, .text = "imul %rcx, %rdx",
          .file = "/src/b.h", .inlined = "g" },
        { .addr = 0x100b, .len = 5, .line = 11, .kind = ANNOT_CALL,
          .text = "call 0x5000", .file = "/src/a.c", .target = 0x5000,
          .target_name = "h" },
        { .addr = 0x1010, .len = 2, .line = 11, .kind = ANNOT_JUMP,
          .text = "jne 0x1004", .file = "/src/a.c", .target = 0x1004 },
    };
    struct annotation *a = annotation_new();

    assert_non_null(a);
    a->name = annotation_str(a, "f");
    a->module = annotation_str(a, "m");
    a->path = annotation_str(a, "/bin/m");
    a->start = a->from = 0x1000;
    a->end = a->to = 0x1012;
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        assert_int_equal(annotation_add(a, &in[i]), 0);
    return a;
}

/* cmocka's setup: a new fx in *state, its export options the defaults. */
static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof(*x));
    struct profile *p = profile_new();
    struct frame_desc d = { .kind = FRAME_FUNC, .module = "m" };
    uint32_t t;

    assert_non_null(x);
    assert_non_null(p);
    d.name = "main";
    d.addr = 0x2000;
    x->mainf = profile_intern_frame(p, &d);
    d.name = "f";
    d.addr = 0x1000;
    x->f = profile_intern_frame(p, &d);
    d.name = "g";
    d.inlined = true;
    x->g = profile_intern_frame(p, &d);
    d = (struct frame_desc){ .kind = FRAME_FUNC, .module = "n", .name = "h",
                             .addr = 0x5000 };
    x->h = profile_intern_frame(p, &d);
    t = profile_thread(p, 1, "t");
    add(p, t, (const struct stack_frame[]){ { x->mainf, 0, 0x2010 },
                                            { x->f, 0, 0x1004 } }, 2, 3);
    add(p, t, (const struct stack_frame[]){ { x->mainf, 0, 0x2010 },
                                            { x->f, 0, 0x1008 },
                                            { x->g, 0, 0x1008 } }, 3, 5);
    add(p, t, (const struct stack_frame[]){ { x->mainf, 0, 0x2010 },
                                            { x->f, 0, 0x1010 },
                                            { x->h, 0, 0x5000 } }, 3, 2);
    x->p = p;
    x->a = code_of_f();
    export_opts_default(&x->o);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fx *x = *state;

    annotation_free(x->a);
    profile_free(x->p);
    free(x);
    return 0;
}

/* Every frame at an address counts, as perf annotate counts: g's samples
 * are f's code's; a return address counts the calls through it once
 * (the innermost frame's), not once per inline level. */
static void test_code_counts(void **state)
{
    struct fx *x = *state;
    struct profile_linecount *c;
    long n;

    n = profile_code_counts(x->p, "m", 0x1000, 0x1012, &c);
    assert_int_equal(n, 3);
    assert_int_equal(c[0].key, 0x1004);
    assert_int_equal(c[0].self, 3);
    assert_int_equal(c[0].total, 3);
    assert_int_equal(c[1].key, 0x1008);
    assert_int_equal(c[1].self, 5);   /* g's, at f's instruction */
    assert_int_equal(c[1].total, 5);  /* not 10: f is g's inline caller */
    assert_int_equal(c[2].key, 0x1010);
    assert_int_equal(c[2].self, 0);
    assert_int_equal(c[2].total, 2);  /* the calls to h */
    free(c);
    /* another module's addresses, and a range holding none */
    assert_int_equal(profile_code_counts(x->p, "n", 0x1000, 0x1012, &c), 0);
    assert_null(c);
    assert_int_equal(profile_code_counts(x->p, "zz", 0, UINT64_MAX, &c), 0);
    assert_int_equal(profile_code_counts(x->p, NULL, 0x5000, 0x5001, &c), 1);
    free(c);
}

static void test_count_rows_hot(void **state)
{
    struct fx *x = *state;
    struct profile_linecount *c;
    struct annot_counts k;
    struct annot_row *r;
    uint32_t *hot;
    long n;

    n = profile_code_counts(x->p, "m", x->a->start, x->a->end, &c);
    assert_int_equal(annot_count(x->a, c, (size_t)n, &k), 0);
    assert_int_equal(k.fn_self, 8);
    assert_int_equal(k.self[1], 3);
    assert_int_equal(k.self[2], 5);
    assert_int_equal(k.total[3], 2);   /* the call before 0x1010 */
    assert_int_equal(k.self[3], 0);
    assert_int_equal(k.outside, 0);
    assert_true(annot_share(&k, k.self[2]) > 0.62 &&
                annot_share(&k, k.self[2]) < 0.63);

    /* a source row over each run of one file:line, with the line's
     * samples over the whole function */
    n = annot_rows(x->a, &k, true, &r);
    assert_int_equal(n, 8);
    const uint8_t kinds[] = { ANNOT_ROW_SOURCE, ANNOT_ROW_INSN,
                              ANNOT_ROW_INSN, ANNOT_ROW_SOURCE,
                              ANNOT_ROW_INSN, ANNOT_ROW_SOURCE,
                              ANNOT_ROW_INSN, ANNOT_ROW_INSN };
    for (long i = 0; i < n; i++)
        assert_int_equal(r[i].kind, kinds[i]);
    assert_int_equal(r[0].self, 3);    /* a.c:10 */
    assert_int_equal(r[3].self, 5);    /* b.h:20 */
    assert_int_equal(r[5].total, 2);   /* a.c:11 */
    free(r);
    assert_int_equal(annot_rows(x->a, &k, false, &r), 5);
    free(r);

    assert_int_equal(annot_hot_order(x->a, &k, &hot), 2);
    assert_int_equal(hot[0], 2);
    assert_int_equal(hot[1], 1);
    free(hot);
    annot_counts_free(&k);

    /* a saved profile's one address per function: on no instruction */
    x->a->unplaced = true;
    assert_int_equal(annot_count(x->a, c, 3, &k), 0);
    assert_int_equal(k.outside, 8);
    assert_int_equal(k.self[2], 0);
    annot_counts_free(&k);
    free(c);
}

static void test_find_label_request(void **state)
{
    struct fx *x = *state;
    char buf[256];
    struct annot_request rq;
    struct profile_linecount *c;
    uint64_t *addrs;
    long n;

    assert_int_equal(annotation_find(x->a, 0x1000), 0);
    assert_int_equal(annotation_find(x->a, 0x100c), 3);  /* inside the call */
    assert_int_equal(annotation_find(x->a, 0x1011), 4);
    assert_int_equal(annotation_find(x->a, 0x1012), SIZE_MAX);
    assert_int_equal(annotation_find(x->a, 0xfff), SIZE_MAX);

    assert_string_equal(annot_insn_label(x->a, &x->a->insn[4], "^", "v", buf,
                                         sizeof(buf)), "jne    ^ +0x4");
    assert_string_equal(annot_insn_label(x->a, &x->a->insn[3], "^", "v", buf,
                                         sizeof(buf)), "call   h");
    assert_string_equal(annot_insn_label(x->a, &x->a->insn[2], "^", "v", buf,
                                         sizeof(buf)),
                        "imul   %rcx, %rdx   inlined: g");
    assert_null(annot_offset(x->a, 0x5000, buf, sizeof(buf)));

    /* the request: f, its sampled addresses, the hottest as focus */
    n = profile_lines(x->p, x->f, true, &c);
    assert_int_equal(n, 3);
    assert_int_equal(annot_request_init(&rq, x->p, x->f, c, (size_t)n,
                                        &addrs), 0);
    assert_string_equal(rq.frame.name, "f");
    assert_string_equal(rq.frame.module, "m");
    assert_int_equal(rq.naddrs, 3);
    assert_int_equal(rq.focus, 0x1004);  /* f's own self: 3 there */
    free(addrs);
    free(c);
    assert_int_equal(annot_function(x->p, "f"), x->f);
    assert_int_equal(annot_function(x->p, "nope"), PROFILE_NONE);
}

/* --- the exports ---------------------------------------------------------- */

static struct annotation *fake_code(void *ctx, const struct annot_request *rq)
{
    (void)ctx;
    return strcmp(rq->frame.name, "f") == 0 ? code_of_f() : NULL;
}

static void test_export_listing(void **state)
{
    struct fx *x = *state;
    char *out;

    x->o.annotation = x->a;
    out = fixture_write(format_find("text"), x->p, &x->o, NULL);
    FIXTURE_ASSERT_HAS(out,
        "sproftop annotate: f\n",
        "  samples:   8 in the function, 10 in the "
        "profile\n",
        /* the source row, then its instructions; a.c is not readable here */
        "       3   37.5%        3  "
        "                            a.c:10\n",
        "       5   62.5%        5  "
        "0x0000000000001008 +0x8          "
        "imul   %rcx, %rdx   inlined: g\n",
        "                    2  0x000000000000100b "
        "+0xb          call   h\n",
        "jne    ^ +0x4\n");
    free(out);
}

static void test_callgrind_instr(void **state)
{
    struct fx *x = *state;
    char *out;

    x->o.dump_instr = true;
    x->o.code = fake_code;
    out = fixture_write(format_find("callgrind"), x->p, &x->o, NULL);
    FIXTURE_ASSERT_HAS(out,
        "positions: instr line\n",
        /* f's own samples at their instruction, on its line */
        "fn=(3)\n0x1004 10 3\n",
        /* its call to h at the call instruction that targets h */
        "cfn=(5) h\ncalls=1 0x5000 0\n"
        "0x100b 11 2\n");
    free(out);
    /* without code: every address on the function's first line */
    x->o.code = NULL;
    out = fixture_write(format_find("callgrind"), x->p, &x->o, NULL);
    assert_non_null(strstr(out, "fn=(3)\n0x1004 0 3\n"));
    free(out);
    /* and positions: line as before without dump_instr */
    x->o.dump_instr = false;
    out = fixture_write(format_find("callgrind"), x->p, &x->o, NULL);
    assert_non_null(strstr(out, "positions: line\n"));
    free(out);
}

static void test_srcfile(void **state)
{
    char path[64], err[256];
    struct srcfile sf;

    (void)state;
    fixture_tmp_file(path, sizeof(path), ".c", "one\n\ttwo\nthree", 14);
    assert_int_equal(srcfile_load(&sf, path, err, sizeof(err)), 0);
    assert_int_equal(sf.nlines, 3);
    assert_string_equal(srcfile_line(&sf, 2), "\ttwo");
    assert_string_equal(srcfile_line(&sf, 3), "three");
    assert_null(srcfile_line(&sf, 4));
    assert_null(srcfile_line(&sf, 0));
    srcfile_free(&sf);
    unlink(path);
    assert_int_equal(srcfile_load(&sf, "/", err, sizeof(err)), -1);
    assert_string_equal(err, "/: not a regular file");
    assert_int_equal(srcfile_load(&sf, "/nonexistent/x.c", err,
                                  sizeof(err)), -1);
    assert_string_equal(err, "/nonexistent/x.c: No such file or directory");
    assert_null(sf.line);
}

/* A test run on a new fx of its own (setup, teardown). */
#define FX_TEST(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

UNIT_MAIN(
    FX_TEST(test_code_counts),
    FX_TEST(test_count_rows_hot),
    FX_TEST(test_find_label_request),
    FX_TEST(test_export_listing),
    FX_TEST(test_callgrind_instr),
    cmocka_unit_test(test_srcfile))
