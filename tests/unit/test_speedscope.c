/* test_speedscope.c - the speedscope JSON exporter: layout, units, one
 * profile per thread, and JSON string escaping.  tests/formats_a.t
 * validates real files against the schema of the npm package. */
#include "fixture.h"

/* Frames as in FORMATS.md's example: module prog, file prog.c, main at
 * line 10, a 20, ... d 50. */
#define ADD(p, t, count, ...)                                               \
    FIXTURE_ADD_NAMES(p, t, fixture_example_frame, count, __VA_ARGS__)

static char *write_ss(const struct profile *p)
{
    return fixture_write(format_find("speedscope"), p, NULL, NULL);
}

/* The text with all whitespace outside strings removed, so checks do not
 * depend on layout. */
static char *squeeze(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    bool in_str = false;

    for (; *s; s++) {
        if (in_str) {
            *o++ = *s;
            if (*s == '\\' && s[1])
                *o++ = *++s;
            else if (*s == '"')
                in_str = false;
        } else if (*s == '"') {
            in_str = true;
            *o++ = *s;
        } else if (*s != ' ' && *s != '\n') {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

/* The speedscope export of p, squeezed. */
static char *write_ss_squeezed(const struct profile *p)
{
    char *out = write_ss(p), *sq = squeeze(out);

    free(out);
    return sq;
}

static void test_example(void **state)
{
    struct profile *p = fixture_example(fixture_example_frame, false);
    struct profile_meta m = { .pid = 4242, .cmdline = "./prog" };
    char *sq;

    (void)state;
    assert_int_equal(profile_set_meta(p, &m), 0);
    profile_thread(p, 102, "idle"); /* no samples: no profile */
    sq = write_ss_squeezed(p);
    /* FORMATS.md's example, exactly (frames in first-use order). */
    assert_string_equal(
        sq,
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
        "\"shared\":{\"frames\":["
        "{\"name\":\"main\",\"file\":\"prog.c\",\"line\":10},"
        "{\"name\":\"a\",\"file\":\"prog.c\",\"line\":20},"
        "{\"name\":\"b\",\"file\":\"prog.c\",\"line\":30},"
        "{\"name\":\"c\",\"file\":\"prog.c\",\"line\":40},"
        "{\"name\":\"d\",\"file\":\"prog.c\",\"line\":50}]},"
        "\"profiles\":["
        "{\"type\":\"sampled\",\"name\":\"main (tid 100)\",\"unit\":\"none\","
        "\"startValue\":0,\"samples\":[[0,1,2],[0,1,3]],\"weights\":[3,1],"
        "\"endValue\":4},"
        "{\"type\":\"sampled\",\"name\":\"worker (tid 101)\",\"unit\":\"none\","
        "\"startValue\":0,\"samples\":[[0,4]],\"weights\":[2],"
        "\"endValue\":2}],"
        "\"name\":\"sproftop pid 4242: ./prog\",\"activeProfileIndex\":0,"
        "\"exporter\":\"sproftop " SPROFTOP_VERSION "\"}");
    free(sq);
    profile_free(p);
}

static void test_nanoseconds_and_empty_stack(void **state)
{
    struct profile *p = profile_new();
    uint32_t t0 = profile_thread(p, 7, "solo");
    struct profile_meta m = { .interval_ns = 1000000 };
    char *sq;

    (void)state;
    ADD(p, t0, 3, "main", "x");
    assert_int_equal(profile_add_stack(p, t0, NULL, 0, 2), 0);
    assert_int_equal(profile_set_meta(p, &m), 0);
    sq = write_ss_squeezed(p);
    assert_non_null(strstr(sq, "\"frames\":[{\"name\":\"main\",\"file\":"
                               "\"prog.c\",\"line\":10},{\"name\":\"x\","
                               "\"file\":\"prog.c\"}]"));
    assert_non_null(strstr(sq, "\"unit\":\"nanoseconds\",\"startValue\":0,"
                               "\"samples\":[[],[0,1]],"
                               "\"weights\":[2000000,3000000],"
                               "\"endValue\":5000000}"));
    assert_non_null(strstr(sq, "\"name\":\"sproftop\","));
    free(sq);
    profile_free(p);
}

static void test_escaping(void **state)
{
    struct profile *p = profile_new();
    uint32_t t0 = profile_thread(p, 1, "t\"1");
    char *out;

    (void)state;
    ADD(p, t0, 1, "q\"uote", "back\\slash", "nl\ntab\tcr\r",
        "ctl\x01\x1f", "caf\xc3\xa9 \xe2\x82\xac", "bad\xff\xc3(", "",
        "std::vector<int>::operator[]", "a;b,c:d e");
    out = write_ss(p);
    assert_non_null(strstr(out, "\"q\\\"uote\""));
    assert_non_null(strstr(out, "\"back\\\\slash\""));
    assert_non_null(strstr(out, "\"nl\\ntab\\tcr\\r\""));
    assert_non_null(strstr(out, "\"ctl\\u0001\\u001f\""));
    assert_non_null(strstr(out, "\"caf\xc3\xa9 \xe2\x82\xac\""));
    assert_non_null(strstr(out, "\"bad\\ufffd\\ufffd(\""));
    assert_non_null(strstr(out, "\"[unknown]\""));
    assert_non_null(strstr(out, "\"std::vector<int>::operator[]\""));
    assert_non_null(strstr(out, "\"a;b,c:d e\""));
    assert_non_null(strstr(out, "\"t\\\"1 (tid 1)\""));
    /* No raw control byte anywhere in the file but the layout's '\n'. */
    for (const char *c = out; *c; c++)
        assert_true((unsigned char)*c >= 0x20 || *c == '\n');
    free(out);
    profile_free(p);
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(format_find("speedscope"), format_find("speedscope"));
    assert_ptr_equal(format_for_path("x.speedscope.json", false),
                     format_find("speedscope"));
    assert_ptr_equal(format_find("pprof"), format_find("pprof"));
    assert_ptr_equal(format_for_path("cpu.pb.gz", false), format_find("pprof"));
    assert_ptr_equal(format_for_path("cpu.pprof", false), format_find("pprof"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),
        cmocka_unit_test(test_nanoseconds_and_empty_stack),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_registry),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
