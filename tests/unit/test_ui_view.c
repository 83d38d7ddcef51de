/* test_ui_view.c - the view helpers that need no terminal (ui/view.c):
 * the Backspace history that the callers, flame and source views keep
 * (view_history_push, view_history_pop), and where a refresh puts the
 * cursor and the first line on screen (view_refresh).
 *
 * view.h's types reach curses, so this test links the UI's objects and
 * curses, as test_ui_keys does (but opens no terminal). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit_main.h"
#include "view.h"

/* Pushes fill the history in order; once it is full, each push drops
 * the oldest entry, so the newest cap entries stay, newest last. */
static void test_history_push(void **state)
{
    uint32_t h[3];
    size_t n = 0;

    (void)state;
    for (uint32_t i = 1; i <= 2; i++)
        *(uint32_t *)view_history_push(h, &n, 3, sizeof(h[0])) = i;
    assert_int_equal(n, 2);
    assert_int_equal(h[0], 1);
    assert_int_equal(h[1], 2);
    for (uint32_t i = 3; i <= 5; i++)
        *(uint32_t *)view_history_push(h, &n, 3, sizeof(h[0])) = i;
    assert_int_equal(n, 3);
    assert_int_equal(h[0], 3);
    assert_int_equal(h[1], 4);
    assert_int_equal(h[2], 5);
}

/* Entries of any size (the flame view keeps a struct per zoom). */
static void test_history_push_structs(void **state)
{
    struct entry { uint64_t key; uint32_t depth; } h[2];
    size_t n = 0;

    (void)state;
    for (uint32_t i = 0; i < 3; i++)
        *(struct entry *)view_history_push(h, &n, 2, sizeof(h[0])) =
            (struct entry){ 100 + i, i };
    assert_int_equal(n, 2);
    assert_int_equal(h[0].key, 101);
    assert_int_equal(h[0].depth, 1);
    assert_int_equal(h[1].key, 102);
    assert_int_equal(h[1].depth, 2);
}

/* Pops give the entries back newest first, then NULL; with no view
 * needed while there is an entry, and no message asked for on empty. */
static void test_history_pop(void **state)
{
    uint32_t h[4];
    size_t n = 0;

    (void)state;
    for (uint32_t i = 1; i <= 3; i++)
        *(uint32_t *)view_history_push(h, &n, 4, sizeof(h[0])) = i;
    for (uint32_t want = 3; want >= 1; want--) {
        const uint32_t *e = view_history_pop(NULL, h, &n, sizeof(h[0]),
                                             NULL);

        assert_non_null(e);
        assert_int_equal(*e, want);
        assert_int_equal(n, want - 1);
    }
    assert_null(view_history_pop(NULL, h, &n, sizeof(h[0]), NULL));
    assert_int_equal(n, 0);
}

/* A view of ranked lines whose order the test sets: line i shows the
 * item keys[i]. */
static uint64_t keys[64];
static size_t nkeys;

static void ranked_refresh(struct view *v)
{
    v->lines = nkeys;
}

static uint64_t ranked_key(struct view *v, size_t line)
{
    (void)v;
    return keys[line];
}

static const struct view_ops ranked_ops = {
    .name = "ranked", .refresh = ranked_refresh, .line_key = ranked_key,
};

/* items 100, 101, ... ranked in that order, but `first` put at rank r */
static void rank(uint64_t first, size_t r)
{
    nkeys = 40;
    size_t k = 0;
    for (uint64_t item = 100; k < nkeys; item++)
        if (item != first) {
            if (k == r)
                keys[k++] = first;
            if (k < nkeys)
                keys[k++] = item;
        }
}

/* The model changes (the cursor saved first, as ui.c does): `item` is
 * now at rank r, or gone when r is SIZE_MAX; then the view refreshes. */
static void rerank(struct view *v, uint64_t item, size_t r)
{
    view_save_cursor(v);
    if (r == SIZE_MAX) {
        nkeys = 30;
        for (size_t i = 0; i < nkeys; i++)
            keys[i] = 200 + i;
    } else {
        rank(item, r);
    }
    view_refresh(v);
}

/* The cursor follows its item.  A view showing its first lines goes on
 * showing them while the item is on screen (a live ranking's top stays
 * in sight); scrolled, or once the item leaves the screen, the item
 * keeps its screen row. */
static void test_refresh_follows(void **state)
{
    (void)state;
    struct view v = {.ops = &ranked_ops, .height = 10};
    static const struct {
        size_t rank, cursor, offset;
    } steps[] = {
        {3, 3, 0},     /* the hottest sinks to rank 3: the top in sight */
        {15, 15, 12},  /* ...off the first screen: it keeps its row, 3 */
        {20, 20, 17},  /* scrolled: it keeps its row when it moves */
    };

    rank(100, 0);
    view_refresh(&v);
    assert_int_equal(v.cursor, 0);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        rerank(&v, 100, steps[i].rank);
        assert_int_equal(v.cursor, steps[i].cursor);
        assert_int_equal(v.offset, steps[i].offset);
    }
    /* its item gone: the cursor stays on the line it was on */
    rerank(&v, 100, SIZE_MAX);
    assert_int_equal(v.cursor, 20);
}

UNIT_MAIN(
    cmocka_unit_test(test_refresh_follows),
    cmocka_unit_test(test_history_push),
    cmocka_unit_test(test_history_push_structs),
    cmocka_unit_test(test_history_pop))
