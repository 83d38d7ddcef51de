/* test_tree_walk.c - the one walk over a call tree (tree_walk.h) that
 * the tree view, the flame view and the SVG writer share: display
 * order, parents and levels, `last` for the guides, folded rows,
 * skipped children, offsets (a flame graph's x), closed rows, the
 * start as a row or not, and a row function that drops or prunes.
 *
 * The profile (one thread "t-1", threads not merged):
 *   t;main;a;x 50   t;main;a;y 10   t;main;b 30   t;main;c 6
 *   t;main;d 4      t;main 0 (main has no self)
 */
#include "fixture.h"

#include "tree_walk.h"
#include "view_model.h"

static uint32_t fn(struct profile *p, const char *name)
{
    return fixture_frame(p, name, NULL, NULL, 0);
}

static struct profile *sample(void)
{
    return fixture_folded(fn, "main;a;x 50\nmain;a;y 10\nmain;b 30\n"
                              "main;c 6\nmain;d 4\n");
}

/* The walk's rows as text, one per line: "level name parent last kids
 * open offset", a folded row as "level [N folded, T] parent". */
struct rec {
    const struct profile *p;
    char out[4096];
    size_t o;
    const char *drop;          /* a row of this name is dropped */
    const char *prune;         /* ...pruned */
};

static int record(void *arg, const struct tree_row *r)
{
    struct rec *c = arg;
    int n;

    if (r->node == PROFILE_NONE) {
        n = snprintf(c->out + c->o, sizeof(c->out) - c->o,
                     "%u [%u folded, %llu] %d\n", r->level, r->nfolded,
                     (unsigned long long)r->folded_total, (int)r->parent);
    } else {
        const char *name = profile_frame(
            c->p, profile_node(c->p, r->node)->frame)->name;
        if (c->drop && strcmp(name, c->drop) == 0)
            return TREE_DROP;
        n = snprintf(c->out + c->o, sizeof(c->out) - c->o,
                     "%u %s %d %c%c%c %llu\n", r->level, name,
                     (int)r->parent, r->last ? 'L' : '-',
                     r->kids ? 'K' : '-', r->open ? 'O' : '-',
                     (unsigned long long)r->offset);
        if (c->prune && strcmp(name, c->prune) == 0) {
            c->o += (size_t)n;
            return TREE_PRUNE;
        }
    }
    c->o += (size_t)n;
    return TREE_ON;
}

/* Children under 10% of all samples folded; "c" closed. */
static enum tree_keep fold10(void *arg, uint32_t node)
{
    const struct profile *p = arg;

    return profile_node(p, node)->total * 10 <
                   profile_node(p, PROFILE_ROOT)->total
               ? TREE_FOLD : TREE_SHOW;
}

static enum tree_keep skip_b(void *arg, uint32_t node)
{
    const struct profile *p = arg;

    return strcmp(profile_frame(p, profile_node(p, node)->frame)->name,
                  "b") == 0 ? TREE_SKIP : TREE_SHOW;
}

static bool closed_a(void *arg, uint32_t node)
{
    const struct profile *p = arg;

    return strcmp(profile_frame(p, profile_node(p, node)->frame)->name,
                  "a") != 0;
}

/* Walk the sample profile's model tree with w (its tree, comparator
 * and callback argument filled in here; start_main: the walk starts at
 * main's node) and compare the rows with `want`. */
static void check_walk(struct tree_walk w, struct rec c, bool start_main,
                       const char *want)
{
    const struct model_filter all = { .focus = PROFILE_NONE };
    struct profile *p = sample();
    struct model *m = model_new(p, &all, 0, 0);

    assert_non_null(m);
    w.tree = c.p = m->tree;
    w.cmp = model_node_cmp;
    w.cmp_arg = m;
    w.arg = (void *)m->tree;
    w.start = PROFILE_ROOT;
    if (start_main) /* the thread's only child */
        w.start = profile_node(m->tree, profile_node(m->tree, PROFILE_ROOT)->
                                            first_child)->first_child;
    assert_int_equal(tree_walk(&w, record, &c), 0);
    assert_string_equal(c.out, want);
    model_free(m);
    profile_free(p);
}

/* Hottest first (the views' order), every row open, nothing folded:
 * parents are row indexes, offsets add up the siblings before. */
static void test_order_and_offsets(void **state)
{
    (void)state;
    check_walk((struct tree_walk){ 0 }, (struct rec){ 0 }, false,
               "0 t-1 -1 LKO 0\n"
               "1 main 0 LKO 0\n"
               "2 a 1 -KO 0\n"
               "3 x 2 --- 0\n"
               "3 y 2 L-- 50\n"
               "2 b 1 --- 60\n"
               "2 c 1 --- 90\n"
               "2 d 1 L-- 96\n");
}

/* The start as a row (a flame graph's zoomed frame): level 0, its
 * children level 1; folded children make one last row after the others,
 * at the offset after them; a closed row's children are not walked. */
static void test_start_fold_closed(void **state)
{
    (void)state;
    check_walk((struct tree_walk){ .keep = fold10, .open = closed_a,
                                   .with_start = true },
               (struct rec){ 0 }, true,
               "0 main -1 LKO 0\n"
               "1 a 0 -K- 0\n"
               "1 b 0 --- 60\n"
               "1 [2 folded, 10] 0\n");
}

/* A skipped child is no row and takes no room: the next sibling's
 * offset closes up.  A dropped row (the row function's call) is no row
 * either, but keeps its room and gives no index; a pruned row is a row
 * whose children are not walked. */
static void test_skip_drop_prune(void **state)
{
    (void)state;
    check_walk((struct tree_walk){ .keep = skip_b },
               (struct rec){ .drop = "c", .prune = "a" }, false,
               "0 t-1 -1 LKO 0\n"
               "1 main 0 LKO 0\n"
               "2 a 1 -KO 0\n"
               "2 d 1 L-- 66\n");
}

static int stop_at_two(void *arg, const struct tree_row *r)
{
    int *n = arg;

    (void)r;
    return ++*n == 2 ? -7 : TREE_ON;
}

/* A negative answer stops the walk and is returned; a 400-deep chain is
 * walked without recursion, each row one level below the last. */
static void test_stop_and_deep(void **state)
{
    struct profile *p = profile_new();
    uint32_t ids[FIXTURE_MAX_DEPTH], t = profile_thread(p, 1, "t");
    const struct tree_walk w = { .tree = p, .start = PROFILE_ROOT };
    int n = 0;

    (void)state;
    for (size_t i = 0; i < FIXTURE_MAX_DEPTH; i++)
        ids[i] = fn(p, "r");
    fixture_add_ids(p, t, ids, FIXTURE_MAX_DEPTH, 3, false);
    assert_int_equal(tree_walk(&w, stop_at_two, &n), -7);
    assert_int_equal(n, 2);

    struct rec c = { .p = p };
    const struct tree_walk start_deep = {
        .tree = p, .start = profile_node_count(p) - 4, .with_start = true };
    assert_int_equal(tree_walk(&start_deep, record, &c), 0);
    assert_string_equal(c.out, "0 r -1 LKO 0\n1 r 0 LKO 0\n2 r 1 LKO 0\n"
                               "3 r 2 L-- 0\n");
    profile_free(p);
}

UNIT_MAIN(
    cmocka_unit_test(test_order_and_offsets),
    cmocka_unit_test(test_start_fold_closed),
    cmocka_unit_test(test_skip_drop_prune),
    cmocka_unit_test(test_stop_and_deep))
