/* test_json.c - the bounded JSON reader (src/formats/json.c): what it
 * indexes, how values are read back, and that every malformed or hostile
 * text is one error naming the byte. */
#include "fixture.h"

#include "json.h"

static struct json parse_ok(const char *text)
{
    struct json j;
    char err[200] = "";

    if (json_parse(&j, text, strlen(text), err, sizeof(err)) != 0)
        fail_msg("%s: %s", text, err);
    return j;
}

/* The error json_parse gives text, "" when it parses. */
static const char *parse_err(const char *text, size_t len)
{
    static char err[200];
    struct json j;

    err[0] = '\0';
    if (json_parse(&j, text, len, err, sizeof(err)) == 0) {
        json_free(&j);
        return "";
    }
    assert_null(j.nodes);
    return err;
}

static void test_values(void **state)
{
    struct json j = parse_ok(" {\"a\": [1, -2.5e1, true, false, null, {}, []],"
                             " \"b\": \"x\", \"a\": 3} ");
    uint32_t a = json_get(&j, 0, "a"), e;
    double d;
    int64_t n;

    (void)state;
    assert_int_equal(json_type(&j, 0), JSON_OBJECT);
    assert_int_equal(j.nodes[0].len, 3);           /* members */
    assert_int_equal(json_type(&j, a), JSON_ARRAY); /* the first "a" */
    assert_int_equal(j.nodes[a].len, 7);
    e = json_first(&j, a);
    assert_true(json_int(&j, e, 0, 10, &n) && n == 1);
    e = json_next(&j, a, e);
    assert_true(json_number(&j, e, &d) && d == -25.0);
    assert_true(json_int(&j, e, -100, 0, &n) && n == -25); /* whole */
    assert_int_equal(json_type(&j, e = json_next(&j, a, e)), JSON_TRUE);
    assert_int_equal(json_type(&j, e = json_next(&j, a, e)), JSON_FALSE);
    assert_int_equal(json_type(&j, e = json_next(&j, a, e)), JSON_NULL);
    assert_int_equal(json_type(&j, e = json_next(&j, a, e)), JSON_OBJECT);
    assert_int_equal(json_first(&j, e), JSON_NONE);
    assert_int_equal(json_type(&j, e = json_next(&j, a, e)), JSON_ARRAY);
    assert_int_equal(json_next(&j, a, e), JSON_NONE);
    assert_true(json_string_is(&j, json_get(&j, 0, "b"), "x"));
    assert_int_equal(json_get(&j, 0, "c"), JSON_NONE);
    assert_int_equal(json_get(&j, a, "a"), JSON_NONE);  /* not an object */
    assert_int_equal(json_type(&j, JSON_NONE), -1);
    json_free(&j);
    json_free(&j);  /* twice is fine */
}

static void test_numbers(void **state)
{
    struct json j = parse_ok("[0, 1.5, 9007199254740993, 1e400, -0, 12e2, "
                             "-9223372036854775808, 99999999999999999999]");
    uint32_t e = json_first(&j, 0);
    double d;
    int64_t n;

    (void)state;
    assert_true(json_int(&j, e, 0, 0, &n) && n == 0);
    e = json_next(&j, 0, e);
    assert_false(json_int(&j, e, 0, 10, &n));         /* a fraction */
    assert_true(json_number(&j, e, &d) && d == 1.5);
    e = json_next(&j, 0, e);
    assert_true(json_int(&j, e, 0, INT64_MAX, &n) && n == 9007199254740993);
    e = json_next(&j, 0, e);
    assert_false(json_number(&j, e, &d));             /* past a double */
    assert_false(json_int(&j, e, 0, INT64_MAX, &n));
    e = json_next(&j, 0, e);
    assert_true(json_int(&j, e, 0, 0, &n) && n == 0);
    e = json_next(&j, 0, e);
    assert_true(json_int(&j, e, 0, 2000, &n) && n == 1200);
    assert_false(json_int(&j, e, 0, 1199, &n));       /* out of range */
    e = json_next(&j, 0, e);
    assert_true(json_int(&j, e, INT64_MIN, 0, &n) && n == INT64_MIN);
    e = json_next(&j, 0, e);
    assert_false(json_int(&j, e, 0, INT64_MAX, &n));  /* overflows */
    assert_false(json_int(&j, json_first(&j, 0) - 1, 0, 1, &n)); /* array */
    json_free(&j);
}

static void test_strings(void **state)
{
    struct json j = parse_ok("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", "
                             "\"\\u00e9\\u20ac\\ud83d\\ude00\", "
                             "\"\\ud800x\\u0000\", \"caf\xc3\xa9\"]");
    uint32_t e = json_first(&j, 0);
    char *s;

    (void)state;
    s = json_string(&j, e, NULL);
    assert_string_equal(s, "a\"b\\c/d\b\f\n\r\t");
    free(s);
    e = json_next(&j, 0, e);
    s = json_string(&j, e, NULL);
    assert_string_equal(s, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    assert_true(json_string_is(&j, e, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
    assert_false(json_string_is(&j, e, "\xc3\xa9"));
    free(s);
    /* a lone surrogate and a NUL become U+FFFD: a C string, valid UTF-8 */
    e = json_next(&j, 0, e);
    s = json_string(&j, e, NULL);
    assert_string_equal(s, "\xef\xbf\xbdx\xef\xbf\xbd");
    free(s);
    e = json_next(&j, 0, e);
    assert_true(json_string_is(&j, e, "caf\xc3\xa9"));
    assert_null(json_string(&j, 0, NULL));            /* not a string */
    json_free(&j);
}

/* Bad texts and what json_parse says of them. */
static const struct fixture_case bad[] = {
    FIXTURE_CASE("", "byte 0: unexpected end of the text"),
    FIXTURE_CASE("[1,]", "byte 3: expected a value"),
    FIXTURE_CASE("[1 2]", "byte 3: expected ',' or ']'"),
    FIXTURE_CASE("{\"a\" 1}", "byte 5: expected ':'"),
    FIXTURE_CASE("{1: 2}", "byte 1: expected a member name"),
    FIXTURE_CASE("{\"a\": 1", "byte 7: expected ',' or '}'"),
    FIXTURE_CASE("[01]", "byte 1: bad number"),
    FIXTURE_CASE("[1.]", "byte 1: bad number"),
    FIXTURE_CASE("[-]", "byte 1: bad number"),
    FIXTURE_CASE("[1e]", "byte 1: bad number"),
    FIXTURE_CASE("[\"a\nb\"]", "byte 3: control character in a string"),
    FIXTURE_CASE("[\"\\x\"]", "byte 3: bad escape in a string"),
    FIXTURE_CASE("[\"\\u12g4\"]", "byte 3: bad \\u escape in a string"),
    FIXTURE_CASE("[\"abc", "byte 5: string not closed"),
    FIXTURE_CASE("[\"a\\", "byte 4: string not closed"),
    FIXTURE_CASE("[tru]", "byte 1: expected a value"),
    FIXTURE_CASE("{} x", "byte 3: text after the value"),
    FIXTURE_CASE("[1]\0", "byte 3: text after the value"),
    FIXTURE_CASE("[\"a\0\"]", "byte 3: control character in a string"),
    /* a number longer than JSON_MAX_NUMBER */
    FIXTURE_CASE("[1111111111111111111111111111111111111111"
        "1111111111111111111111111]", "byte 1: number too long"),
};

static void test_errors(void **state)
{
    char deep[2 * JSON_MAX_DEPTH + 8];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_string_equal(parse_err(bad[i].buf, bad[i].len), bad[i].want);
    /* nesting: JSON_MAX_DEPTH levels parse, one more does not */
    memset(deep, '[', JSON_MAX_DEPTH);
    memset(deep + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
    assert_string_equal(parse_err(deep, 2 * JSON_MAX_DEPTH), "");
    memset(deep, '[', JSON_MAX_DEPTH + 1);
    memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
    assert_string_equal(parse_err(deep, 2 * JSON_MAX_DEPTH + 2),
                        "byte 64: nested too deep");
}

/* Every prefix of a valid text fails cleanly, and every one-byte change
 * either parses or fails cleanly: no crash, one line. */
static void test_truncations(void **state)
{
    static const char text[] = "{\"shared\": {\"frames\": [{\"name\": "
                               "\"m\\u00e9\", \"line\": 10}]}, \"x\": "
                               "[1, -2.5e3, true, null]}";
    char buf[sizeof(text)];
    size_t n = sizeof(text) - 1;

    (void)state;
    assert_string_equal(parse_err(text, n), "");
    for (size_t k = 0; k < n; k++) {
        const char *e = parse_err(text, k);

        assert_true(e[0] != '\0');
        assert_null(strchr(e, '\n'));
    }
    for (size_t k = 0; k < n; k++) {
        memcpy(buf, text, n);
        buf[k] = '"';
        assert_null(strchr(parse_err(buf, n), '\n'));
    }
}

UNIT_MAIN(
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_numbers),
    cmocka_unit_test(test_strings),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_truncations))
