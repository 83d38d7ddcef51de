/* test_escape.c - the writers' escaping helpers (escape.h): JSON strings
 * in their three modes and the line formats' substitutions. */
#include "fixture.h"

#include "escape.h"

/* What escape_json writes for s with flags. */
static char *json(const char *s, unsigned flags)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    assert_non_null(f);
    escape_json(f, s, flags);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void expect_json(const char *s, unsigned flags, const char *want)
{
    char *got = json(s, flags);

    assert_string_equal(got, want);
    free(got);
}

static void test_json(void **state)
{
    /* quote, backslash, the named escapes, another control, DEL, a
     * 2-byte and a 4-byte character, an invalid byte, ';' */
    static const char s[] = "a\"b\\c\n\r\t\x01\x7f\xc3\xbc"
                            "\xf0\x9f\x98\x80\xff;";

    (void)state;
    expect_json(s, 0, "\"a\\\"b\\\\c\\n\\r\\t\\u0001\x7f\xc3\xbc"
                      "\xf0\x9f\x98\x80\\ufffd;\"");
    expect_json(s, ESC_JSON_ASCII, "\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u007f"
                                   "\\u00fc\\ud83d\\ude00\\ufffd;\"");
    expect_json(s, ESC_JSON_ASCII | ESC_JSON_NAME,
                "\"a\\\"b\\\\c     \\u00fc\\ud83d\\ude00\\ufffd:\"");
    expect_json("", 0, "\"\"");
}

static void test_map(void **state)
{
    static const struct escape_map m = { ":,\n", ".; ", false };
    static const struct escape_map controls = { ";", ":", true };
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    (void)state;
    assert_non_null(f);
    escape_put(f, "a:b,c\nd\te", SIZE_MAX, &m);
    putc('|', f);
    escape_put(f, "x;y\tz\x7f", SIZE_MAX, &controls);
    putc('|', f);
    escape_put(f, "abc:def", 4, &m);   /* the first 4 bytes */
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, "a.b;c d\te|x:y z |abc.");
    free(buf);
}

UNIT_MAIN(
    cmocka_unit_test(test_json),
    cmocka_unit_test(test_map))
