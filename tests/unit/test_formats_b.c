/* test_formats_b.c - the SamplingProf, stackprof JSON, graphviz dot and
 * SVG flame graph writers on hand-built profiles.
 *
 * Golden files (copies of shared/formats/): example.samplingprof and
 * example.stackprof.json.  Two documented differences: the first chunk of
 * example.samplingprof says 60000.0 but FORMATS.md and the gem define the
 * runtime in ms (6 samples x 10 ms = 60.0), and sproftop's stackprof
 * "metadata" carries the threads, which the golden leaves empty.  The
 * rest must match byte for byte.  The dot output for the example was
 * worked out by hand from stackprof's layout rules. */
#include "fixture.h"

#define DATA_DIR "tests/unit/data"

static uint32_t fn(struct profile *p, const char *name, uint32_t line)
{
    return fixture_frame(p, name, "prog", "prog.c", line);
}

/* Frames with sampled lines one past the function's first line, as the
 * golden stackprof file has them. */
#define ADD(p, t, count, ...)                                               \
    FIXTURE_ADD_IDS_AT(p, t, true, count, __VA_ARGS__)

static struct profile *example(void)
{
    struct profile *p = fixture_example(fixture_example_frame, true);
    struct profile_meta meta = { .interval_ns = 10000000 };

    assert_int_equal(profile_set_meta(p, &meta), 0);
    return p;
}

static char *write_mem(const struct format *e, const struct profile *p)
{
    return fixture_write(e, p, NULL, NULL);
}

/* What format `name` writes for the example, and in *want the golden
 * file DATA_DIR/file; both freed after the FIXTURE_TEST. */
static char *golden(void **state, const char *name, const char *file,
                    char **want)
{
    struct profile *p = fixture_keep_profile(state, example());
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", DATA_DIR, file);
    *want = fixture_keep(state, fixture_slurp(path, NULL));
    return fixture_keep(state, write_mem(format_find(name), p));
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle))
        n++;
    return n;
}

static void test_registry(void **state)
{
    (void)state;
    assert_ptr_equal(format_find("samplingprof"), format_find("samplingprof"));
    assert_ptr_equal(format_find("stackprof"), format_find("stackprof"));
    assert_ptr_equal(format_find("dot"), format_find("dot"));
    assert_ptr_equal(format_find("svg"), format_find("svg"));
    assert_ptr_equal(format_for_path("a.samplingprof", false), format_find("samplingprof"));
    assert_ptr_equal(format_for_path("a.stackprof.json", false), format_find("stackprof"));
    assert_ptr_equal(format_for_path("A.DOT", false), format_find("dot"));
    assert_ptr_equal(format_for_path("a.gv", false), format_find("dot"));
    assert_ptr_equal(format_for_path("flame.svg", false), format_find("svg"));
    assert_null(format_for_path("a.svg.txt.bak", false));
}

/* --- samplingprof ------------------------------------------------------------ */

static void test_samplingprof_golden(void **state)
{
    char *want, *got = golden(state, "samplingprof", "example.samplingprof",
                              &want);

    /* chunk 1 is the runtime in ms; chunks 2-4 are the golden's */
    assert_int_equal(strncmp(got, "60.0\n\n", 6), 0);
    assert_string_equal(strchr(got, '\n'), strchr(want, '\n'));
}

/* A reader of the four chunks, as the gem's report splits them: ids are
 * dense from 0, counts and edges agree with the profile's own tables. */
struct sp_parsed {
    double runtime;
    char *elem[32];   /* by id */
    int nelem;
    uint64_t self[32], total[32];
    int ncounts;
    int from[64], to[64];
    uint64_t count[64];
    int nedges;
};

static void parse_samplingprof(char *text, struct sp_parsed *r)
{
    char *chunk[4], *save = NULL;
    int n = 0;

    memset(r, 0, sizeof(*r));
    /* chunks are separated by "\n\n" */
    for (char *s = text; n < 4;) {
        char *sep = strstr(s, "\n\n");

        chunk[n++] = s;
        if (!sep)
            break;
        *sep = '\0';
        s = sep + 2;
    }
    assert_int_equal(n, 4);
    r->runtime = strtod(chunk[0], NULL);
    for (char *l = strtok_r(chunk[1], "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        char *comma = strrchr(l, ',');
        int colons = 0;

        assert_non_null(comma);
        *comma = '\0';
        for (char *c = l; *c; c++)
            colons += *c == ':';
        assert_int_equal(colons, 2);           /* file:line:method */
        assert_null(strchr(l, ','));
        assert_int_equal(atoi(comma + 1), r->nelem);   /* ids from 0 */
        r->elem[r->nelem++] = strchr(strchr(l, ':') + 1, ':') + 1;
    }
    for (char *l = strtok_r(chunk[2], "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned long long s, t;
        int id;

        assert_int_equal(sscanf(l, "%d,%llu,%llu", &id, &s, &t), 3);
        assert_int_equal(id, r->ncounts);
        r->self[id] = s;
        r->total[id] = t;
        r->ncounts++;
    }
    for (char *l = strtok_r(chunk[3], "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned long long c;

        assert_int_equal(sscanf(l, "%d,%d,%llu", &r->from[r->nedges],
                                &r->to[r->nedges], &c), 3);
        r->count[r->nedges++] = c;
    }
}

static void test_samplingprof_parse(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t0 = profile_thread(p, 1, "a"), t1 = profile_thread(p, 2, "b");
    uint32_t m = fn(p, "main", 1), f = fn(p, "f", 2), g = fn(p, "g", 3);
    struct profile_flat *flat;
    struct profile_edge *edges;
    long nflat, nedges;
    struct sp_parsed r;
    char *got;

    ADD(p, t0, 5, m, f, f, f, g);     /* recursion: f once per sample */
    ADD(p, t0, 2, m, g, f);
    ADD(p, t1, 4, m, f);
    assert_int_equal(profile_add_stack(p, t1, NULL, 0, 1), 0);
    FIXTURE_META(p, .interval_ns = 2500000);
    got = fixture_keep(state, write_mem(format_find("samplingprof"), p));
    assert_int_equal(got[strlen(got) - 1], '\n');
    parse_samplingprof(got, &r);
    assert_true(r.runtime > 29.99 && r.runtime < 30.01);   /* 12 x 2.5 ms */
    assert_int_equal(r.nelem, 3);
    assert_string_equal(r.elem[0], "main");   /* first use order */
    assert_string_equal(r.elem[1], "f");
    assert_string_equal(r.elem[2], "g");
    assert_int_equal(r.ncounts, 3);
    nflat = profile_flat(p, &flat);
    assert_int_equal(nflat, 3);
    for (long i = 0; i < nflat; i++) {
        const char *name = profile_frame(p, flat[i].frame)->name;
        int id = strcmp(name, "main") == 0 ? 0 : strcmp(name, "f") == 0 ? 1 : 2;

        assert_int_equal(r.self[id], flat[i].self);
        assert_int_equal(r.total[id], flat[i].total);
    }
    assert_int_equal(r.total[1], 11);   /* f: 5 + 2 + 4, not 3 x 5 */
    nedges = profile_edges(p, &edges);
    assert_int_equal(r.nedges, nedges);
    for (long i = 0; i < nedges; i++) {
        int from = edges[i].caller == PROFILE_NONE ? -1
                   : edges[i].caller == m ? 0 : edges[i].caller == f ? 1 : 2;
        int to = edges[i].callee == m ? 0 : edges[i].callee == f ? 1 : 2;
        bool found = false;

        for (int k = 0; k < r.nedges; k++)
            if (r.from[k] == from && r.to[k] == to) {
                assert_int_equal(r.count[k], edges[i].samples);
                found = true;
            }
        assert_true(found);
    }
    /* f -> f, once per sample: 5 */
    for (int k = 0; k < r.nedges; k++)
        if (r.from[k] == 1 && r.to[k] == 1)
            assert_int_equal(r.count[k], 5);
    free(flat);
    free(edges);
}

static void test_samplingprof_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t a = fixture_frame(p, "std::map<int, std::string>::operator[]",
                               NULL, "/usr/include/c++/12/bits/stl_map.h", 511);
    uint32_t b = fixture_frame(p, "a\nb,c:d", "lib:x,y.so", NULL, 0);
    uint32_t c = fixture_frame(p, "nothing", NULL, NULL, 0);
    char *got;

    ADD(p, t, 1, a, b, c);
    got = fixture_keep(state, write_mem(format_find("samplingprof"), p));
    assert_non_null(strstr(got, "\n\n/usr/include/c++/12/bits/stl_map.h:511:"
                                "std..map<int; std..string>..operator[],0\n"
                                "lib.x;y.so:0:a b;c.d,1\n"
                                "?:0:nothing,2\n\n"));
    /* no interval: 1 ms per sample */
    assert_int_equal(strncmp(got, "1.0\n\n", 5), 0);
}

/* --- stackprof ------------------------------------------------------------------ */

static const char EXAMPLE_META[] =
    " \"metadata\": {\n"
    "  \"threads\": [\n"
    "   {\n"
    "    \"tid\": 100,\n"
    "    \"name\": \"main\",\n"
    "    \"samples\": 4\n"
    "   },\n"
    "   {\n"
    "    \"tid\": 101,\n"
    "    \"name\": \"worker\",\n"
    "    \"samples\": 2\n"
    "   }\n"
    "  ]\n"
    " },\n";

/* Cut the line holding "metadata" and what belongs to it. */
static char *without_metadata(const char *json, char **meta)
{
    const char *start = strstr(json, " \"metadata\": ");
    const char *end = strstr(json, "\n \"frames\": ");
    size_t head = (size_t)(start - json);
    char *out;

    assert_non_null(start);
    assert_non_null(end);
    end++;
    out = malloc(strlen(json) + 1);
    memcpy(out, json, head);
    strcpy(out + head, end);
    *meta = strndup(start, (size_t)(end - start));
    return out;
}

static void test_stackprof_golden(void **state)
{
    char *want, *got = golden(state, "stackprof", "example.stackprof.json",
                              &want);
    char *gm, *wm;
    char *g = fixture_keep(state, without_metadata(got, &gm));
    char *w = fixture_keep(state, without_metadata(want, &wm));

    assert_string_equal(g, w);
    assert_string_equal(wm, " \"metadata\": {},\n");
    assert_string_equal(gm, EXAMPLE_META);
    free(gm);
    free(wm);
}

static void test_stackprof_meta_and_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 7, "w\"k");
    uint32_t a = fixture_frame(p, "q\"b\\s\nt\ta;b \xc3\xbc \xf0\x9f\x94\xa5 "
                                  "\xff<>&", NULL, NULL, 0);
    uint32_t b = fixture_frame(p, "f", "libm.so.6", NULL, 0);
    char *got;

    FIXTURE_META(p, .pid = 42, .cmdline = "prog \"x\"\n", .comm = "prog",
                 .interval_ns = 1000000, .start_ns = 5, .duration_ns = 7,
                 .idle = true);
    ADD(p, t, 2, b, a);
    assert_int_equal(profile_add_stack(p, t, NULL, 0, 1), 0);
    got = fixture_keep(state, write_mem(format_find("stackprof"), p));
    FIXTURE_ASSERT_HAS(got,
        " \"mode\": \"wall\",\n \"interval\": 1000,\n"
        " \"samples\": 3,\n",
        "  \"pid\": 42,\n"
        "  \"cmdline\": \"prog \\\"x\\\"\\n\",\n"
        "  \"comm\": \"prog\",\n"
        "  \"start_ns\": 5,\n"
        "  \"duration_ns\": 7,\n",
        "    \"name\": \"w\\\"k\",\n",
        /* control characters -> spaces, ';' -> ':', non-ASCII as \u escapes
         * (a surrogate pair past U+FFFF), an invalid byte as U+FFFD */
        "   \"name\": \"q\\\"b\\\\s t a:b \\u00fc "
        "\\ud83d\\udd25 \\ufffd<>&\",\n",
        /* no file: the module stands in; no line: no "line" key */
        "   \"name\": \"f\",\n"
        "   \"file\": \"libm.so.6\",\n"
        "   \"total_samples\": 2,\n",
        /* the empty stack (walked first: a thread's own samples come first)
         * is the one-frame stack "[unknown]", id 1 */
        "  \"1\": {\n"
        "   \"name\": \"[unknown]\",\n"
        "   \"total_samples\": 1,\n"
        "   \"samples\": 1\n"
        "  },\n",
        " \"raw\": [\n  1,\n  1,\n  1,\n  2,\n"
        "  2,\n  3,\n  2\n ],\n");
    assert_int_equal(count_of(got, "  1000"), 3);   /* one delta a sample */
}

/* --- dot ------------------------------------------------------------------------ */

static void test_dot_example(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());

    FIXTURE_ASSERT_TEXT(write_mem(format_find("dot"), p),
        "digraph profile {\n"
        "Legend [shape=plaintext,fontsize=24,label=\"Total samples: 6\\l"
        "Interval: 10.000 ms (on CPU)\\lShowing top 120 nodes, 5 shown\\l"
        "Dropped nodes with < 1 samples\\lDropped edges with < 1 samples\\l"
        "\"];\n"
        "  \"1\" [shape=box] [fontsize=10.0] [penwidth=\"2.50\"] "
        "[tooltip=\"prog prog.c:10\"] "
        "[label=\"main\\n0 (0.0%)\\rof 6 (100.0%)\\r\"];\n"
        "  \"2\" [shape=box] [fontsize=10.0] [penwidth=\"1.83\"] "
        "[tooltip=\"prog prog.c:20\"] "
        "[label=\"a\\n0 (0.0%)\\rof 4 (66.7%)\\r\"];\n"
        "  \"3\" [shape=box] [fontsize=24.0] [penwidth=\"1.50\"] "
        "[tooltip=\"prog prog.c:30\"] "
        "[label=\"b\\n3 (50.0%)\\rof 3 (50.0%)\\r\"];\n"
        "  \"5\" [shape=box] [fontsize=19.3] [penwidth=\"1.17\"] "
        "[tooltip=\"prog prog.c:50\"] "
        "[label=\"d\\n2 (33.3%)\\rof 2 (33.3%)\\r\"];\n"
        "  \"4\" [shape=box] [fontsize=14.7] [penwidth=\"0.83\"] "
        "[tooltip=\"prog prog.c:40\"] "
        "[label=\"c\\n1 (16.7%)\\rof 1 (16.7%)\\r\"];\n"
        "  \"1\" -> \"2\" [label=\"4\"] [weight=\"4\"] [penwidth=\"1.83\"];\n"
        "  \"1\" -> \"5\" [label=\"2\"] [weight=\"2\"] [penwidth=\"1.17\"];\n"
        "  \"2\" -> \"3\" [label=\"3\"] [weight=\"3\"] [penwidth=\"1.50\"];\n"
        "  \"2\" -> \"4\" [label=\"1\"] [weight=\"1\"] [penwidth=\"0.83\"];\n"
        "}\n");
}

static void test_dot_names_and_limits(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t top = fixture_frame(p, "op\"er\\a\ntor<int, \xff>", NULL, NULL, 0);
    uint32_t ids[2] = { top, 0 };
    char name[16], *got;

    FIXTURE_META(p, .pid = 9, .cmdline = "run \"it\"");
    /* 150 callees of 10 samples each: all above 0.5%, 120 shown; and
     * 300 callees of 1 sample: below the 0.5% floor, all dropped */
    for (int i = 0; i < 450; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        ids[1] = fn(p, name, 0);
        fixture_add_ids(p, t, ids, 2, i < 150 ? 10 : 1, true);
    }
    got = write_mem(format_find("dot"), p);
    FIXTURE_ASSERT_HAS(got,
        "label=\"run \\\"it\\\" (pid 9)\\l",
        "[label=\"op\\\"er\\\\a tor<int, \xef\xbf\xbd>\\n",
        "Showing top 120 nodes, 120 shown\\l"
        "Dropped nodes with < 9 samples\\l"
        "Dropped edges with < 2 samples\\l");
    assert_int_equal(count_of(got, "[shape=box]"), 120);
    assert_int_equal(count_of(got, " -> "), 119);   /* top -> 119 kept */
    assert_null(strstr(got, "f200"));
    free(got);
}

/* An edge with under 0.1% of the samples is left out, its nodes kept. */
static void test_dot_light_edges(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t m = fn(p, "main", 0), a = fn(p, "a", 0), b = fn(p, "b", 0);
    char *got;

    ADD(p, t, 1000, m, a);
    ADD(p, t, 1000, m, b);
    ADD(p, t, 1, m, a, b);     /* 1 of 2001 < 3 */
    got = fixture_keep(state, write_mem(format_find("dot"), p));
    FIXTURE_ASSERT_HAS(got,
        "Dropped edges with < 3 samples\\l",
        "  \"1\" -> \"2\" [label=\"1001\"]",
        "  \"1\" -> \"3\" [label=\"1000\"]");
    assert_null(strstr(got, "  \"2\" -> \"3\""));
    assert_int_equal(count_of(got, "[shape=box]"), 3);
}

/* --- svg --------------------------------------------------------------------------- */

static void test_svg_example(void **state)
{
    struct profile *p = fixture_keep_profile(state, example());
    char *got = fixture_keep(state, write_mem(format_find("svg"), p));

    assert_int_equal(strncmp(got, "<?xml version=\"1.0\"", 19), 0);
    assert_int_equal(count_of(got, "<g class=\"f\""), 9);
    FIXTURE_ASSERT_HAS(got,
        "<g class=\"f\" data-x=\"0\" data-w=\"6\" "
        "data-d=\"0\"><title>all\n6 samples "
        "(100.00%), self 0</title>",
        /* threads sorted by name, then main, a, and b before c */
        "data-x=\"0\" data-w=\"4\" data-d=\"1\">"
        "<title>main-100\n",
        "data-x=\"4\" data-w=\"2\" data-d=\"1\">"
        "<title>worker-101\n",
        "data-x=\"0\" data-w=\"3\" data-d=\"4\">"
        "<title>b\nprog prog.c:30\n3 samples "
        "(50.00%), self 3</title>",
        "data-x=\"3\" data-w=\"1\" data-d=\"4\">"
        "<title>c\n",
        "data-x=\"4\" data-w=\"2\" data-d=\"3\">"
        "<title>d\n",
        /* interactive and self-contained: a script, no remote reference */
        "<script type=\"text/ecmascript\"><![CDATA[",
        "function zoom(",
        "function search(");
    assert_int_equal(count_of(got, "http"), 1);   /* the xmlns only */
    assert_non_null(strstr(got, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_int_equal(count_of(got, "]]>"), 2);    /* style and script */
    assert_non_null(strstr(got, "</svg>\n"));
}

/* Every '&' starts an entity and no '<' sits inside a title or label. */
static void assert_escaped(const char *svg)
{
    for (const char *s = strstr(svg, "<g id=\"frames\">"); s && *s; s++) {
        if (*s == '&')
            assert_true(strncmp(s, "&amp;", 5) == 0 ||
                        strncmp(s, "&lt;", 4) == 0 ||
                        strncmp(s, "&gt;", 4) == 0 ||
                        strncmp(s, "&quot;", 6) == 0 ||
                        strncmp(s, "&apos;", 6) == 0);
        if (*s == '<')
            assert_true(strncmp(s, "<g ", 3) == 0 || strncmp(s, "</g>", 4) == 0 ||
                        strncmp(s, "<title>", 7) == 0 ||
                        strncmp(s, "</title>", 8) == 0 ||
                        strncmp(s, "<rect ", 6) == 0 ||
                        strncmp(s, "<text ", 6) == 0 ||
                        strncmp(s, "</text>", 7) == 0 ||
                        strncmp(s, "</svg>", 6) == 0);
    }
}

static void test_svg_names(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "<t&>");
    uint32_t f = fixture_frame(p, "std::map<int, std::string>::operator[] "
                                  "'q' \"d\" a&b \x01 \xc3\xbc \xff "
                                  "\xef\xbf\xbe", "lib<x>.so", NULL, 0);
    char *got;

    FIXTURE_META(p, .cmdline = "a <b> & \"c\"", .pid = 3);
    ADD(p, t, 1, f);
    got = fixture_keep(state, write_mem(format_find("svg"), p));
    assert_escaped(got);
    FIXTURE_ASSERT_HAS(got,
        "<title>std::map&lt;int, std::string&gt;::"
        "operator[] &apos;q&apos; &quot;d&quot; "
        "a&amp;b   \xc3\xbc \xef\xbf\xbd \xef\xbf\xbd\n"
        "lib&lt;x&gt;.so\n",
        "<title>&lt;t&amp;&gt;-1\n",
        "a &lt;b&gt; &amp; &quot;c&quot; (pid 3)");
}

static void test_svg_small_and_empty(void **state)
{
    struct profile *p = fixture_profile(state);
    uint32_t t = profile_thread(p, 1, "t");
    uint32_t big = fn(p, "big", 0), tiny = fn(p, "tiny", 0);
    char *got;

    got = fixture_keep(state, write_mem(format_find("svg"), p));
    assert_non_null(strstr(got, ">no samples</text>"));
    assert_int_equal(count_of(got, "<g class=\"f\""), 0);
    /* 1 sample in 100001 is 0.012 px wide: left out */
    ADD(p, t, 100000, big);
    ADD(p, t, 1, tiny);
    got = fixture_keep(state, write_mem(format_find("svg"), p));
    assert_non_null(strstr(got, "<title>big\n"));
    assert_null(strstr(got, "<title>tiny\n"));
    assert_int_equal(count_of(got, "<g class=\"f\""), 3);
}

UNIT_MAIN(
    cmocka_unit_test(test_registry),
    FIXTURE_TEST(test_samplingprof_golden),
    FIXTURE_TEST(test_samplingprof_parse),
    FIXTURE_TEST(test_samplingprof_names),
    FIXTURE_TEST(test_stackprof_golden),
    FIXTURE_TEST(test_stackprof_meta_and_names),
    FIXTURE_TEST(test_dot_example),
    FIXTURE_TEST(test_dot_names_and_limits),
    FIXTURE_TEST(test_dot_light_edges),
    FIXTURE_TEST(test_svg_example),
    FIXTURE_TEST(test_svg_names),
    FIXTURE_TEST(test_svg_small_and_empty))
