/* test_ui_keys.c - key names and --script files (ui/request.c,
 * ui/script.c): what tests and users type must reach the same requests
 * as the keys themselves.
 *
 * Key codes are curses constants, so this test links the UI's objects
 * and curses (but opens no terminal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curses.h>

#include "unit_main.h"
#include "request.h"
#include "script.h"

#define CTRL(c) ((c) & 0x1f)

/* Names as scripts write them, and the key each is; -1: refused. */
static const struct {
    const char *name;
    int key;
} names[] = {
    { "<Down>", KEY_DOWN }, { "<down>", KEY_DOWN }, { "<Enter>", '\n' },
    { "<Tab>", '\t' }, { "<Esc>", 27 }, { "<Space>", ' ' },
    { "<Backspace>", KEY_BACKSPACE }, { "<PgDown>", KEY_NPAGE },
    { "<PageDown>", KEY_NPAGE }, { "<F1>", KEY_F(1) }, { "<f10>", KEY_F(10) },
    { "<F12>", KEY_F(12) }, { "<C-l>", CTRL('l') }, { "<C-L>", CTRL('l') },
    { "<c-h>", CTRL('h') },
    /* One character is that key, whatever it is. */
    { "q", 'q' }, { "<", '<' }, { ">", '>' }, { "*", '*' }, { "\xc3", 0xc3 },
    { "", -1 }, { "<>", -1 }, { "<Nope>", -1 }, { "Down", -1 },
    { "<Down", -1 }, { "Down>", -1 }, { "<F0>", -1 }, { "<F13>", -1 },
    { "<F1x>", -1 }, { "<F>", -1 }, { "<C->", -1 }, { "<C-1>", -1 },
    { "<C-ab>", -1 },
    { "<AVeryLongKeyNameThatFitsNoBufferAtAllReally>", -1 },
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int key = request_key_parse(names[i].name);
        if (key != names[i].key)
            fail_msg("\"%s\" parsed as %d, not %d", names[i].name, key,
                     names[i].key);
    }
}

/* Every key bound to a request: its displayed name, typed in a script,
 * gives a key bound to the same request (the help screen never shows a
 * name a script cannot use), and no key is bound to two requests. */
static void test_bindings_round_trip(void **state)
{
    size_t n;
    const struct request_info *t = request_table(&n);

    (void)state;
    for (size_t i = 0; i < n; i++) {
        int keys[16];
        if (t[i].req == REQ_NONE)
            continue;
        size_t nk = request_keys(t[i].req, keys, 16);
        if (nk == 0)
            fail_msg("request \"%s\" has no key", t[i].help);
        for (size_t k = 0; k < nk && k < 16; k++) {
            char name[32], typed[40];
            assert_int_equal(request_for_key(keys[k]), t[i].req);
            request_key_name(keys[k], name, sizeof(name));
            snprintf(typed, sizeof(typed), strlen(name) == 1 ? "%s" : "<%s>",
                     name);
            int back = request_key_parse(typed);
            if (request_for_key(back) != t[i].req)
                fail_msg("key %d shown as %s, typed back as %d", keys[k],
                         typed, back);
        }
    }
}

static void test_key_names(void **state)
{
    char buf[64];

    (void)state;
    assert_string_equal(request_key_name('\r', buf, sizeof(buf)), "Enter");
    assert_string_equal(request_key_name(KEY_F(10), buf, sizeof(buf)), "F10");
    assert_string_equal(request_key_name(CTRL('l'), buf, sizeof(buf)), "C-l");
    assert_string_equal(request_key_name('E', buf, sizeof(buf)), "E");
    assert_string_equal(request_key_name(KEY_NPAGE, buf, sizeof(buf)),
                        "PgDown");
    /* Three codes for Enter, one name; two for Backspace. */
    assert_string_equal(request_keys_string(REQ_ENTER, buf, sizeof(buf)),
                        "Enter");
    assert_string_equal(request_keys_string(REQ_BACK, buf, sizeof(buf)),
                        "Backspace, C-h");
    assert_string_equal(request_keys_string(REQ_VIEW_HELP, buf, sizeof(buf)),
                        "h, ?, F1, 8");
    assert_string_equal(request_keys_string(REQ_NONE, buf, sizeof(buf)), "");
}

/* A script file with `text`; its path in path. */
static void write_script(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/test_ui_keys.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_script_events(void **state)
{
    char path[64], err[256];
    const struct script_event *e;

    (void)state;
    write_script(path, sizeof(path),
                 "# a comment\n\n<Down>\nq\n:type ab\n:dump out.1\n"
                 ":refresh\r\n:resize 100 40\n:load later.folded\n#\n");
    struct script *s = script_load(path, err, sizeof(err));
    unlink(path);
    assert_non_null(s);
    const struct { enum script_kind kind; int key; const char *path; }
    want[] = {
        { SCRIPT_KEY, KEY_DOWN, NULL }, { SCRIPT_KEY, 'q', NULL },
        { SCRIPT_KEY, 'a', NULL }, { SCRIPT_KEY, 'b', NULL },
        { SCRIPT_DUMP, 0, "out.1" }, { SCRIPT_REFRESH, 0, NULL },
        { SCRIPT_RESIZE, 0, NULL }, { SCRIPT_LOAD, 0, "later.folded" },
        /* "#" alone is the key '#' */
        { SCRIPT_KEY, '#', NULL },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        e = script_next(s);
        assert_non_null(e);
        assert_int_equal(e->kind, want[i].kind);
        if (want[i].kind == SCRIPT_KEY)
            assert_int_equal(e->key, want[i].key);
        if (want[i].path)
            assert_string_equal(e->path, want[i].path);
        if (want[i].kind == SCRIPT_RESIZE) {
            assert_int_equal(e->cols, 100);
            assert_int_equal(e->lines, 40);
        }
    }
    assert_null(script_next(s));
    script_free(s);
}

/* A bad line fails the whole script with FILE:LINE and the reason. */
static void refused_script(const char *text, const char *reason)
{
    char path[64], err[256], want[128];

    write_script(path, sizeof(path), text);
    struct script *s = script_load(path, err, sizeof(err));
    assert_null(s);
    snprintf(want, sizeof(want), "%s:%s", path, reason);
    assert_string_equal(err, want);
    unlink(path);
}

static void test_script_refused(void **state)
{
    (void)state;
    refused_script("<Down>\n<Nope>\n", "2: unknown key <Nope>");
    refused_script(":frobnicate\n", "1: unknown command :frobnicate");
    refused_script(":dump\n", "1: unknown command :dump");
    refused_script("q\n:resize 10\n", "2: usage: :resize COLS LINES");
    refused_script(":resize 0 10\n", "1: usage: :resize COLS LINES");
    refused_script(":resize 10 20 30\n", "1: usage: :resize COLS LINES");
}

UNIT_MAIN(
    cmocka_unit_test(test_parse),
    cmocka_unit_test(test_bindings_round_trip),
    cmocka_unit_test(test_key_names),
    cmocka_unit_test(test_script_events),
    cmocka_unit_test(test_script_refused))
