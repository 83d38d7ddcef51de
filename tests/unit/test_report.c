/* test_report.c - the batch summary on hand-made profiles, compared line
 * for line with the expected text. */
#include "fixture.h"

#include "report.h"

/* FORMATS.md's example, with metadata. */
static struct profile *example(void)
{
    struct profile *p = fixture_example(fixture_example_frame, false);
    struct profile_meta meta = {
        .pid = 1234, .cmdline = "./prog --fast", .comm = "prog",
        .interval_ns = 10000000, .duration_ns = 60000000,
    };

    assert_int_equal(profile_set_meta(p, &meta), 0);
    return p;
}

static char *summary(const struct profile *p, int top_n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_int_equal(report_write_summary(p, f, top_n), 0);
    fclose(f);
    return buf;
}

static void test_example(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());

    FIXTURE_ASSERT_TEXT(summary(p, 10),
        "sproftop summary\n"
        "  pid:       1234\n"
        "  command:   ./prog --fast\n"
        "  samples:   6\n"
        "  threads:   2\n"
        "  interval:  10 ms (100 Hz)\n"
        "  duration:  0.060 s\n"
        "  mode:      on-CPU\n"
        "\n"
        "Top functions by self\n"
        "  samples       %  function  location\n"
        "        3   50.0%  b         prog prog.c:30\n"
        "        2   33.3%  d         prog prog.c:50\n"
        "        1   16.7%  c         prog prog.c:40\n"
        "\n"
        "Top functions by total\n"
        "  samples       %  function  location\n"
        "        6  100.0%  main      prog prog.c:10\n"
        "        4   66.7%  a         prog prog.c:20\n"
        "        3   50.0%  b         prog prog.c:30\n"
        "        2   33.3%  d         prog prog.c:50\n"
        "        1   16.7%  c         prog prog.c:40\n");
}

static void test_top_n_and_columns(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    uint32_t t = profile_thread(p, 102, "x");
    uint32_t longname = profile_intern_frame(p, &(struct frame_desc){
        .name = "a_rather_long_function_name\nwith_a_newline" });
    char *got;

    FIXTURE_ADD_IDS(p, t, 1234567, longname);
    got = fixture_keep(state, summary(p, 2));
    FIXTURE_ASSERT_HAS(got,
        "Top functions by self\n"
        "  samples       %  function                                    "
        "location\n"
        "  1234567  100.0%  a_rather_long_function_name?with_a_newline  -\n"
        "        3    0.0%  b                                           "
        "prog prog.c:30\n"
        "\n",
        "Top functions by total\n"
        "  samples       %  function                                    "
        "location\n"
        "  1234567  100.0%  a_rather_long_function_name?with_a_newline  -\n"
        "        6    0.0%  main                                        "
        "prog prog.c:10\n",
        "  samples:   1234573\n",
        "  threads:   3\n");
}

static void test_empty_and_unknowns(void **state)
{
    struct profile *p = fixture_profile(state);
    char *got;

    FIXTURE_ASSERT_TEXT(summary(p, 10),
        "sproftop summary\n"
        "  pid:       -\n"
        "  command:   -\n"
        "  samples:   0\n"
        "  threads:   0\n"
        "  interval:  -\n"
        "  duration:  -\n"
        "  mode:      on-CPU\n"
        "\n"
        "no samples\n");
    FIXTURE_META(p, .interval_ns = 250000, .idle = true);
    got = fixture_keep(state, summary(p, 10));
    FIXTURE_ASSERT_HAS(got,
        "  interval:  0.25 ms (4000 Hz)\n",
        "  mode:      wall-clock (--idle)\n");
}

UNIT_MAIN(
    FIXTURE_TEST(test_example),
    FIXTURE_TEST(test_top_n_and_columns),
    FIXTURE_TEST(test_empty_and_unknowns))
