/* test_fold.c - exited processes folded by command (profile.h, "exited
 * processes"; issue 24): a model of 10,000 short-lived processes of two
 * commands, folded in batches as the collector folds them, keeps every
 * total of every view and export, while its threads, frames and nodes
 * stop growing with the processes seen. */
#include "fixture.h"

#include "load.h"
#include "view_model.h"
#include "window.h"

#define S WINDOW_NS_PER_S
#define NPROC 10000
#define LIVE 3           /* processes that never exit */
#define BATCH 64         /* processes folded at a time */

/* The functions of the model: a compiler and an assembler. */
struct funcs {
    uint32_t start, main_, parse, lex, emit, as_main, as_write;
};

/* A new profile holding the functions, into *f.  timed: weights in ns
 * (unit 1) and the live per-second ring, as the collector keeps them. */
static struct profile *profile_with_funcs(struct funcs *f, bool timed)
{
    struct profile *p = profile_new();

    assert_non_null(p);
    if (timed) {
        assert_int_equal(profile_set_weight_unit(p, 1), 0);
        assert_int_equal(profile_time_enable(p, WINDOW_LIVE_SECONDS), 0);
    }
    f->start = fixture_frame(p, "_start", "ld.so", NULL, 0);
    f->main_ = fixture_frame(p, "main", "cc1", "main.c", 10);
    f->parse = fixture_frame(p, "parse", "cc1", "parse.c", 20);
    f->lex = fixture_frame(p, "lex", "cc1", "lex.c", 30);
    f->emit = fixture_frame(p, "emit", "cc1", "emit.c", 40);
    f->as_main = fixture_frame(p, "as_main", "as", "as.c", 50);
    f->as_write = fixture_frame(p, "as_write", "as", "as.c", 60);
    return p;
}

/* Process k: even ones are cc1 (a main thread and, every fourth, a
 * "cc1-worker" thread too), odd ones as; each adds a few stacks at
 * second k / 50 with lines and addresses, weighing k-dependent ns. */
static void add_process(struct profile *p, const struct funcs *f, int k)
{
    bool cc1 = k % 2 == 0;
    int64_t pid = 1000 + k * 3;
    const char *comm = cc1 ? "cc1" : "as";
    uint32_t t = fixture_thread_in(p, pid, comm, pid, comm);
    uint64_t t_ns = (uint64_t)(k / 50) * S + (uint64_t)(k % 50) * 1000;

    if (cc1) {
        struct stack_frame a[] = {
            { f->start, 0, 0x10 }, { f->main_, 12, 0x100 },
            { f->parse, 22 + (uint32_t)(k % 3), 0x200 + (uint64_t)(k % 3) },
            { f->lex, 31, 0x300 },
        };
        struct stack_frame b[] = {
            { f->start, 0, 0x10 }, { f->main_, 13, 0x104 },
            { f->emit, 41, 0x400 },
        };
        assert_int_equal(profile_add_weighted_at(p, t, a, 4, 1,
                                                 1000000 + (uint64_t)k,
                                                 t_ns), 0);
        assert_int_equal(profile_add_weighted_at(p, t, b, 3, 2, 3000000,
                                                 t_ns + 5), 0);
        if (k % 4 == 0) {
            uint32_t w = fixture_thread_in(p, pid + 1, "cc1-worker", pid,
                                           comm);

            assert_int_equal(profile_add_weighted_at(p, w, b + 1, 2, 1,
                                                     777, t_ns + 7), 0);
        }
    } else {
        struct stack_frame a[] = {
            { f->start, 0, 0x10 }, { f->as_main, 51, 0x500 },
            { f->as_write, 61 + (uint32_t)(k % 5), 0x600 },
        };
        assert_int_equal(profile_add_weighted_at(p, t, a, 3, 1,
                                                 2000000 - (uint64_t)k,
                                                 t_ns + 3), 0);
    }
}

/* What every view and export sums, to compare before and after. */
struct sums {
    uint64_t samples, count, flat_self, flat_total, edges, lines, addrs;
    uint64_t window, series, merged, procs_tree;
    uint64_t files[64];   /* per format that reads back: its total */
};

static uint64_t flat_sum(const struct profile *p, bool self,
                         uint64_t *flat_key)
{
    struct profile_flat *fl;
    long n = profile_flat(p, &fl);
    uint64_t v = 0, key = 0;

    assert_true(n >= 0);
    for (long i = 0; i < n; i++) {
        v += self ? fl[i].self : fl[i].total;
        key = key * 1000003u + fl[i].frame * 31u + fl[i].self + fl[i].total;
    }
    free(fl);
    *flat_key += key;
    return v;
}

static void take_sums(const struct profile *p, struct sums *s)
{
    struct profile_edge *e;
    long ne;
    uint64_t key = 0;

    memset(s, 0, sizeof(*s));
    s->samples = profile_samples(p);
    s->count = profile_sample_count(p);
    s->flat_self = flat_sum(p, true, &key);
    s->flat_total = flat_sum(p, false, &key) + key; /* and per function */
    ne = profile_edges(p, &e);
    assert_true(ne >= 0);
    for (long i = 0; i < ne; i++)
        s->edges += e[i].samples * (i + 1) + e[i].outer;
    free(e);
    for (uint32_t fr = 0; fr < profile_frame_count(p); fr++) {
        struct profile_linecount *lc;
        long n = profile_lines(p, fr, false, &lc);

        for (long i = 0; i < n; i++)
            s->lines += (lc[i].self + 3 * lc[i].total) * lc[i].key;
        free(lc);
        n = profile_lines(p, fr, true, &lc);
        for (long i = 0; i < n; i++)
            s->addrs += (lc[i].self + 5 * lc[i].total) * lc[i].key;
        free(lc);
    }
    struct profile_timespan sp;
    profile_time_span(p, &sp);
    struct profile *w = profile_window(p, sp.last - 20, sp.last);
    assert_non_null(w);
    s->window = profile_samples(w);
    profile_free(w);
    uint64_t series[64];
    profile_time_series(p, PROFILE_NONE, sp.last - 59, 60, series);
    for (int i = 0; i < 60; i++)
        s->series += series[i] * (uint64_t)(i + 1);
    struct profile *m = profile_merge_commands(p);
    assert_non_null(m);
    s->merged = profile_samples(m);
    profile_free(m);
    struct profile_filter pf = { .thread = PROFILE_NONE,
                                 .focus = PROFILE_NONE,
                                 .process_roots = true };
    struct profile *d = profile_derive(p, &pf);
    assert_non_null(d);
    s->procs_tree = profile_node(d, PROFILE_ROOT)->total;
    profile_free(d);
    for (size_t i = 0; i < format_count() && i < 64; i++) {
        const struct format *fm = format_at(i);
        char err[256];
        size_t len;
        char *buf;
        struct profile *back;

        if (!fm->load || fm->per_sample)
            continue;
        buf = fixture_write(fm, p, NULL, &len);
        back = fm->load(buf, len, fm->name, err, sizeof(err));
        assert_non_null(back);
        s->files[i] = profile_samples(back);
        profile_free(back);
        free(buf);
    }
}

static void assert_same(const struct sums *a, const struct sums *b)
{
    assert_int_equal(a->samples, b->samples);
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->flat_self, b->flat_self);
    assert_int_equal(a->flat_total, b->flat_total);
    assert_int_equal(a->edges, b->edges);
    assert_int_equal(a->lines, b->lines);
    assert_int_equal(a->addrs, b->addrs);
    assert_int_equal(a->window, b->window);
    assert_int_equal(a->series, b->series);
    assert_int_equal(a->merged, b->merged);
    assert_int_equal(a->procs_tree, b->procs_tree);
    for (int i = 0; i < 64; i++)
        assert_int_equal(a->files[i], b->files[i]);
}

/* Fold the processes pids[0..n) of p (replacing it). */
static void fold(struct profile *p, const int64_t *pids, size_t n)
{
    struct profile *q = profile_fold_processes(p, pids, n, NULL, 0, 0, NULL, 0);

    assert_non_null(q);
    profile_replace(p, q);
    profile_free(q);
}

/* The aggregate thread of command `comm` named `name`, or NULL. */
static const struct profile_thread *aggregate_of(const struct profile *p,
                                                 const char *comm,
                                                 const char *name)
{
    for (uint32_t t = 0; t < profile_thread_count(p); t++) {
        const struct profile_thread *th = profile_thread_at(p, t);

        if (profile_thread_is_exited(th) && strcmp(th->process, comm) == 0 &&
            strcmp(th->name, name) == 0)
            return th;
    }
    return NULL;
}

/* 10,000 processes start and exit one after the other (a few live ones
 * beside), the collector folding each batch of BATCH exited ones: every
 * total stays, at every batch and at the end, and the profile's threads,
 * frames and nodes stay as few as the live processes and the distinct
 * stacks make them. */
static void test_ten_thousand(void **state)
{
    (void)state;
    struct funcs f;
    struct profile *p = profile_with_funcs(&f, true);
    int64_t pending[BATCH];
    size_t npending = 0;
    uint32_t most_threads = 0, most_frames = 0, most_nodes = 0;

    uint32_t nfuncs = profile_frame_count(p);
    for (int k = 0; k < LIVE; k++)
        add_process(p, &f, NPROC + k);  /* pids beyond the others' */
    for (int k = 0; k < NPROC; k++) {
        add_process(p, &f, k);
        pending[npending++] = 1000 + k * 3;
        if (npending < BATCH && k != NPROC - 1)
            continue;
        struct sums before, after;
        bool check = k < 3 * BATCH || k == NPROC - 1 || (k + 1) % 1024 == 0;

        if (k >= 2 * BATCH && profile_thread_count(p) > most_threads)
            most_threads = profile_thread_count(p);
        if (check)
            take_sums(p, &before);
        fold(p, pending, npending);
        npending = 0;
        if (check) {
            take_sums(p, &after);
            assert_same(&before, &after);
        }
        if (k >= 2 * BATCH) {
            if (profile_thread_count(p) > most_threads)
                most_threads = profile_thread_count(p);
            if (profile_frame_count(p) > most_frames)
                most_frames = profile_frame_count(p);
            if (profile_node_count(p) > most_nodes)
                most_nodes = profile_node_count(p);
        }
    }
    /* the live ones (4 threads), BATCH processes of one batch (at most
     * 1.25 threads each), the three aggregates */
    assert_true(most_threads <= LIVE + 2 + BATCH * 5 / 4 + 1 + 3);
    assert_true(most_frames <= nfuncs + most_threads + 3);
    assert_true(most_nodes < 40 * most_threads);
    /* at the end: the 4 live threads and 3 aggregates, nothing else */
    assert_int_equal(profile_thread_count(p), LIVE + 1 + 3);
    const struct profile_thread *cc1 = aggregate_of(p, "cc1", "cc1");
    const struct profile_thread *wk = aggregate_of(p, "cc1", "cc1-worker");
    const struct profile_thread *as = aggregate_of(p, "as", "as");
    assert_non_null(cc1);
    assert_non_null(wk);
    assert_non_null(as);
    assert_int_equal(cc1->exited, NPROC / 2);
    assert_int_equal(wk->exited, NPROC / 2);  /* the command's count */
    assert_int_equal(as->exited, NPROC / 2);
    assert_true(cc1->pid == wk->pid && cc1->pid != as->pid && cc1->pid < 0);
    assert_true(cc1->tid < 0 && wk->tid < 0 && as->tid < 0);
    char label[64];
    assert_string_equal(profile_process_label(cc1, true, label,
                                              sizeof(label)),
                        "cc1 (5,000 exited)");
    /* J: the live cc1 processes and the exited ones are one command */
    struct profile *m = profile_merge_commands(p);
    assert_non_null(m);
    for (uint32_t t = 0; t < profile_thread_count(m); t++) {
        const struct profile_thread *th = profile_thread_at(m, t);

        if (strcmp(th->name, "cc1") == 0)
            assert_int_equal(th->processes, NPROC / 2 + 2);
    }
    profile_free(m);
    profile_free(p);
}

/* A process folded with nothing else changing: its threads are gone,
 * its thread frame is taken by the next new thread, a clone carries
 * the aggregate, and folding again adds to it. */
static void test_fold_reuses_frames(void **state)
{
    (void)state;
    struct funcs f;
    struct profile *p = profile_with_funcs(&f, false);

    add_process(p, &f, 1);   /* as, pid 1003 */
    add_process(p, &f, 3);   /* as, pid 1009 */
    uint32_t frames = profile_frame_count(p);
    const int64_t one[] = { 1003 };
    fold(p, one, 1);
    assert_int_equal(profile_thread_count(p), 2); /* 1009 and the aggregate */
    assert_int_equal(profile_frame_count(p), frames); /* took 1003's frame */
    add_process(p, &f, 5);   /* pid 1015: a frame of its own */
    assert_int_equal(profile_frame_count(p), frames + 1);
    const int64_t two[] = { 1009, 1015, 4242 /* unknown: ignored */ };
    fold(p, two, 3);
    assert_int_equal(profile_frame_count(p), frames + 1);
    add_process(p, &f, 7);   /* pid 1021 takes a freed frame */
    assert_int_equal(profile_frame_count(p), frames + 1);
    struct profile *c = profile_clone(p);
    assert_non_null(c);
    assert_int_equal(profile_thread_count(c), 2);
    const struct profile_thread *as = aggregate_of(c, "as", "as");
    assert_non_null(as);
    assert_int_equal(as->exited, 3);
    assert_string_equal(profile_frame(c, as->frame)->name, "as (exited)");
    assert_string_equal(profile_frame(c, profile_thread_at(c, 1)->frame)->name,
                        "as-1021");
    profile_free(c);
    profile_free(p);
}

/* A live process whose thread pool churns: 5,000 short threads, each
 * folded once it has exited (by its key, a batch at a time), join its
 * one thread of exited workers; every total stays, the threads do not
 * grow; when the process exits, all of it joins its command's
 * aggregates. */
static void test_thread_churn(void **state)
{
    (void)state;
    struct funcs f;
    struct profile *p = profile_with_funcs(&f, true);
    const int64_t pid = 500;
    int64_t keys[1024];
    size_t nkeys = 0;
    uint32_t most = 0;

    uint32_t lead = fixture_thread_in(p, pid, "pool", pid, "pool");
    for (int k = 0; k < 5000; k++) {
        int64_t tid = 10000 + k;
        uint32_t t = fixture_thread_in(p, tid, "worker", pid, "pool");
        struct stack_frame a[] = {
            { f.start, 0, 0x10 }, { f.parse, 20 + (uint32_t)(k % 4), 0x200 },
        };

        assert_int_equal(profile_add_weighted_at(p, t, a, 2, 1, 1000 + k,
                                                 (uint64_t)(k / 100) * S), 0);
        assert_int_equal(profile_add_weighted_at(p, lead, a, 1, 1, 7,
                                                 (uint64_t)(k / 100) * S), 0);
        keys[nkeys++] = profile_thread_key(pid, tid);
        if (nkeys < 1024 && k != 4999)
            continue;
        struct sums before, after;
        take_sums(p, &before);
        struct profile *q = profile_fold_processes(p, NULL, 0, keys, nkeys, 0, NULL, 0);
        assert_non_null(q);
        profile_replace(p, q);
        profile_free(q);
        nkeys = 0;
        take_sums(p, &after);
        assert_same(&before, &after);
        if (profile_thread_count(p) > most)
            most = profile_thread_count(p);
    }
    assert_int_equal(most, 2);  /* the leader, the exited workers */
    const struct profile_thread *w = profile_thread_at(p, 1);
    assert_true(profile_thread_is_folded(w) && !profile_thread_is_exited(w));
    assert_int_equal(w->pid, pid);
    assert_string_equal(w->name, "worker");
    assert_string_equal(w->process, "pool");
    assert_string_equal(profile_frame(p, w->frame)->name,
                        "pool: worker (exited)");
    assert_false(profile_thread_is_folded(profile_thread_at(p, 0)));
    /* the leader is never folded as a thread; an unknown key is ignored */
    const int64_t odd[] = { profile_thread_key(pid, pid),
                            profile_thread_key(pid, 99) };
    struct profile *q = profile_fold_processes(p, NULL, 0, odd, 2, 0, NULL, 0);
    assert_non_null(q);
    assert_int_equal(profile_thread_count(q), 2);
    profile_free(q);
    /* the process exits: both join the command's aggregates */
    struct sums before, after;
    take_sums(p, &before);
    const int64_t gone[] = { pid };
    fold(p, gone, 1);
    take_sums(p, &after);
    assert_same(&before, &after);
    assert_int_equal(profile_thread_count(p), 2);
    assert_non_null(aggregate_of(p, "pool", "pool"));
    assert_non_null(aggregate_of(p, "pool", "worker"));
    assert_int_equal(aggregate_of(p, "pool", "worker")->exited, 1);
    profile_free(p);
}

/* A tid reused by another process (pid_max wraps every ~30 s under
 * 1,000 threads a second): the collector's samples of each go to their
 * own thread, before and after the old one's process is folded; the old
 * one's samples were never the new one's. */
static void test_tid_reused(void **state)
{
    (void)state;
    struct funcs f;
    struct profile *p = profile_with_funcs(&f, false);

    struct stack_frame a[] = { { f.start, 0, 0x10 }, { f.parse, 20, 0x200 } };
    struct stack_frame b[] = { { f.start, 0, 0x10 }, { f.as_main, 50, 0x500 } };
    uint32_t old = profile_process_thread(p, 100, 0, 555, "churn");
    assert_int_not_equal(old, PROFILE_NONE);
    assert_int_equal(profile_thread_set_process(p, old, 100, "churn"), 0);
    assert_int_equal(profile_add_stack(p, old, a, 2, 3), 0);
    /* pid 200's thread takes tid 555: a thread of its own */
    uint32_t neu = profile_process_thread(p, 200, 0, 555, "bash");
    assert_int_not_equal(neu, PROFILE_NONE);
    assert_int_not_equal(neu, old);
    assert_int_equal(profile_thread_set_process(p, neu, 200, "bash"), 0);
    assert_int_equal(profile_add_stack(p, neu, b, 2, 5), 0);
    /* each finds its own again, whichever comes first */
    assert_int_equal(profile_process_thread(p, 200, 0, 555, NULL), neu);
    assert_int_equal(profile_process_thread(p, 100, 0, 555, NULL), old);
    assert_int_equal(profile_process_thread(p, 200, 0, 555, "bash"), neu);
    assert_int_equal(profile_thread_count(p), 2);
    assert_string_equal(profile_thread_at(p, old)->name, "churn");
    assert_string_equal(profile_thread_at(p, neu)->name, "bash");
    assert_int_equal(profile_thread_samples(p, old), 3);
    assert_int_equal(profile_thread_samples(p, neu), 5);
    /* without a process, it is profile_thread: one of them */
    uint32_t any = profile_process_thread(p, 0, 0, 555, NULL);
    assert_true(any == old || any == neu);
    /* the PID itself is reused: a new process 100 begins now, and its
     * thread 555 is not the earlier process 100's */
    uint64_t since = profile_thread_serial(p);
    assert_int_equal(since, 2);
    uint32_t again = profile_process_thread(p, 100, since, 555, "mkdir");
    assert_int_not_equal(again, PROFILE_NONE);
    assert_int_not_equal(again, old);
    assert_int_not_equal(again, neu);
    assert_int_equal(profile_thread_set_process(p, again, 100, "mkdir"), 0);
    assert_int_equal(profile_add_stack(p, again, b, 2, 4), 0);
    assert_int_equal(profile_process_thread(p, 100, since, 555, NULL), again);
    assert_string_equal(profile_thread_at(p, old)->name, "churn");
    assert_int_equal(profile_thread_samples(p, old), 3);
    assert_int_equal(profile_thread_at(p, again)->serial, 3);
    /* a copy keeps the serials */
    struct profile *c = profile_clone(p);
    assert_non_null(c);
    assert_int_equal(profile_thread_serial(c), 3);
    assert_int_equal(profile_process_thread(c, 100, since, 555, NULL), again);
    profile_free(c);
    /* both processes 100 have exited and are folded, each into its
     * command's aggregate: process 200's thread keeps its tid, samples
     * and serial, and is still the one its samples find */
    const int64_t gone2[] = { 100 };
    fold(p, gone2, 1);
    assert_int_equal(profile_thread_count(p), 3);
    assert_non_null(aggregate_of(p, "mkdir", "mkdir"));
    assert_int_equal(aggregate_of(p, "mkdir", "mkdir")->exited, 1);
    assert_int_equal(aggregate_of(p, "churn", "churn")->exited, 1);
    neu = profile_process_thread(p, 200, 0, 555, NULL);
    assert_int_not_equal(neu, PROFILE_NONE);
    assert_int_equal(profile_thread_at(p, neu)->pid, 200);
    assert_int_equal(profile_thread_samples(p, neu), 5);
    assert_int_equal(profile_thread_at(p, neu)->serial, 2);
    assert_non_null(aggregate_of(p, "churn", "churn"));
    profile_free(p);
}

/* The node of path[0..n) below thread node top, or PROFILE_NONE. */
static uint32_t node_at(const struct profile *p, uint32_t top,
                        const uint32_t *path, size_t n)
{
    for (size_t i = 0; i < n && top != PROFILE_NONE; i++)
        top = profile_child(p, top, path[i]);
    return top;
}

/* Fold pids[0..n) with a budget of nodes below folded threads. */
static void fold_budget(struct profile *p, const int64_t *pids, size_t n,
                        uint64_t budget)
{
    struct profile *q = profile_fold_processes(p, pids, n, NULL, 0, budget, NULL, 0);

    assert_non_null(q);
    profile_replace(p, q);
    profile_free(q);
}

/* 200 exited cc1 processes, each with one stack all share and one of
 * its own seen once (main > lexK > read > getc), and a live process
 * with 50 stacks of its own: the fold past a budget of 20 nodes picks
 * the weight a folded node needs and cuts the 200 rare stacks into
 * main > "[rare stacks]" > getc, so getc keeps its self.
 * The totals, the shared stack, the live process's stacks stay. */
static void test_rare_stacks(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    int64_t pids[200];
    struct profile_cut cut;

    assert_non_null(p);
    assert_int_equal(profile_set_weight_unit(p, 1), 0);
    uint32_t start = fixture_frame(p, "_start", "cc1", NULL, 0);
    uint32_t main_ = fixture_frame(p, "main", "cc1", "main.c", 1);
    uint32_t parse = fixture_frame(p, "parse", "cc1", "parse.c", 2);
    uint32_t rd = fixture_frame(p, "read", "libc", NULL, 0);
    uint32_t getc_ = fixture_frame(p, "getc", "libc", NULL, 0);
    uint32_t live = fixture_thread_in(p, 9, "server", 9, "server");
    for (int k = 0; k < 50; k++) {
        char name[32];
        snprintf(name, sizeof name, "handler%d", k);
        struct stack_frame s[] = {
            { start, 0, 0 }, { fixture_frame(p, name, "server", NULL, 0), 0, 0 },
        };
        assert_int_equal(profile_add_weighted(p, live, s, 2, 1, 1), 0);
    }
    for (int k = 0; k < 200; k++) {
        char name[32];
        pids[k] = 100 + k;
        uint32_t t = fixture_thread_in(p, pids[k], "cc1", pids[k], "cc1");
        snprintf(name, sizeof name, "lex%d", k);
        struct stack_frame heavy[] = {
            { start, 0, 0 }, { main_, 0, 0 }, { parse, 0, 0 },
        };
        struct stack_frame rare[] = {
            { start, 0, 0 }, { main_, 0, 0 },
            { fixture_frame(p, name, "cc1", NULL, 0), 0, 0 },
            { rd, 0, 0 }, { getc_, 0, 0 },
        };
        assert_int_equal(profile_add_weighted(p, t, heavy, 3, 1, 100), 0);
        assert_int_equal(profile_add_weighted(p, t, rare, 5, 1, 1), 0);
    }
    uint64_t samples = profile_samples(p), count = profile_sample_count(p);

    /* the fold: 603 nodes below cc1's aggregate, over 20: it picks the
     * weight a node needs (the 11th heaviest is 1) and cuts at once */
    fold_budget(p, pids, 200, 20);
    profile_cut_get(p, &cut);
    assert_int_equal(cut.cuts, 1);
    assert_int_equal(cut.min_total, 2);
    assert_int_equal(cut.nodes, 600);       /* lexK, read, getc: 200 each */
    assert_int_equal(cut.weight, 200);
    assert_int_equal(cut.folded_nodes, 5);  /* _start main parse [rare] getc */
    assert_int_equal(profile_samples(p), samples);
    /* the next fold has nothing more to cut */
    fold_budget(p, NULL, 0, 20);
    profile_cut_get(p, &cut);
    assert_int_equal(cut.nodes, 600);
    assert_int_equal(cut.cuts, 1);
    assert_int_equal(cut.folded_nodes, 5);
    assert_int_equal(profile_samples(p), samples);
    assert_int_equal(profile_sample_count(p), count);
    const struct profile_thread *agg = aggregate_of(p, "cc1", "cc1");
    assert_non_null(agg);
    uint32_t rare = PROFILE_NONE;
    for (uint32_t i = 0; i < profile_frame_count(p); i++)
        if (strcmp(profile_frame(p, i)->name, PROFILE_RARE_STACKS) == 0)
            rare = i;
    assert_int_not_equal(rare, PROFILE_NONE);
    assert_int_equal(profile_frame(p, rare)->kind, FRAME_SPECIAL);
    uint32_t path[] = { start, main_, rare, getc_ };
    uint32_t n = node_at(p, agg->node, path, 3);
    assert_int_not_equal(n, PROFILE_NONE);
    assert_int_equal(profile_node(p, n)->self, 0);
    assert_int_equal(profile_node(p, n)->total, 200);
    n = node_at(p, agg->node, path, 4);
    assert_int_not_equal(n, PROFILE_NONE);
    assert_int_equal(profile_node(p, n)->self, 200);
    assert_int_equal(profile_node(p, node_at(p, agg->node, path, 2))->total,
                     200 * 101);
    uint32_t keep[] = { start, main_, parse };
    assert_int_equal(profile_node(p, node_at(p, agg->node, keep, 3))->self,
                     200 * 100);
    /* the live process: all 50 of its stacks, uncut */
    uint32_t lt = PROFILE_NONE;
    for (uint32_t t = 0; t < profile_thread_count(p); t++)
        if (profile_thread_at(p, t)->tid == 9)
            lt = t;
    assert_int_not_equal(lt, PROFILE_NONE);
    uint32_t ls = profile_child(p, profile_thread_at(p, lt)->node, start);
    uint32_t kids = 0;
    for (uint32_t c = profile_node(p, ls)->first_child; c != PROFILE_NONE;
         c = profile_node(p, c)->next_sibling)
        kids++;
    assert_int_equal(kids, 50);
    profile_free(p);
}

/* The frame named name, or PROFILE_NONE. */
static uint32_t frame_named(const struct profile *p, const char *name)
{
    for (uint32_t i = 0; i < profile_frame_count(p); i++)
        if (strcmp(profile_frame(p, i)->name, name) == 0)
            return i;
    return PROFILE_NONE;
}

/* The budget holds however many a fold brings: 10 folds of 200 exited
 * processes, each with a shared stack and a rare one whose leaf is a
 * function of its own (main > lexK > leafK).  Each fold leaves at most
 * the budget below the folded threads: the cut comes in the fold that
 * passes it, and a leaf rare even below "[rare stacks]" ends in
 * "[rare stacks]" itself (else one leaf a process stayed, for ever).
 * Every sample stays. */
static void test_budget_held(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    int64_t pids[200];
    struct profile_cut cut;
    char name[32];

    assert_non_null(p);
    assert_int_equal(profile_set_weight_unit(p, 1), 0);
    uint32_t start = fixture_frame(p, "_start", "cc1", NULL, 0);
    uint32_t main_ = fixture_frame(p, "main", "cc1", "main.c", 1);
    uint32_t parse = fixture_frame(p, "parse", "cc1", "parse.c", 2);
    for (int f = 0; f < 10; f++) {
        for (int k = 0; k < 200; k++) {
            int id = f * 200 + k;
            pids[k] = 1000 + id;
            uint32_t t = fixture_thread_in(p, pids[k], "cc1", pids[k], "cc1");
            struct stack_frame heavy[] = {
                { start, 0, 0 }, { main_, 0, 0 }, { parse, 0, 0 },
            };
            snprintf(name, sizeof name, "lex%d", id);
            uint32_t lex = fixture_frame(p, name, "cc1", NULL, 0);
            snprintf(name, sizeof name, "leaf%d", id);
            struct stack_frame rare[] = {
                { start, 0, 0 }, { main_, 0, 0 }, { lex, 0, 0 },
                { fixture_frame(p, name, "cc1", NULL, 0), 0, 0 },
            };
            assert_int_equal(profile_add_weighted(p, t, heavy, 3, 1, 50), 0);
            assert_int_equal(profile_add_weighted(p, t, rare, 4, 1, 1), 0);
        }
        uint64_t samples = profile_samples(p);
        fold_budget(p, pids, 200, 20);
        profile_cut_get(p, &cut);
        assert_true(cut.folded_nodes <= 20);
        assert_int_equal(profile_samples(p), samples);
    }
    /* the rare leaves' samples end in "[rare stacks]" below main */
    const struct profile_thread *agg = aggregate_of(p, "cc1", "cc1");
    assert_non_null(agg);
    uint32_t path[] = { start, main_,
                        frame_named(p, PROFILE_RARE_STACKS) };
    uint32_t rare = node_at(p, agg->node, path, 3);
    assert_int_not_equal(rare, PROFILE_NONE);
    assert_int_equal(profile_node(p, rare)->total, 2000);
    assert_int_equal(profile_node(p, rare)->self, 2000);
    assert_int_equal(profile_node(p, node_at(p, agg->node, path, 2))->total,
                     2000 * 51);
    profile_free(p);
}

/* Frames nothing uses go: 20 exited processes, each with a stack all
 * share and a rare one of its own (main > lexK > getc, with addresses),
 * cut into "[rare stacks]" by the fold.  The lexK frames, which
 * no node holds any more, are freed with their address counters, but
 * lex0, which the caller keeps, and lex19, which a sample of the ring
 * still holds; a freed id is not reused before the next fold, and then
 * new frames take the freed ids and the frames do not grow. */
static void test_frames_freed(void **state)
{
    (void)state;
    struct profile *p = profile_new();
    int64_t pids[20];
    uint32_t lex[20];
    char name[32];

    assert_non_null(p);
    assert_int_equal(profile_set_weight_unit(p, 1), 0);
    assert_int_equal(profile_time_enable(p, WINDOW_LIVE_SECONDS), 0);
    uint32_t start = fixture_frame(p, "_start", "cc1", NULL, 0);
    uint32_t main_ = fixture_frame(p, "main", "cc1", "main.c", 1);
    uint32_t getc_ = fixture_frame(p, "getc", "libc", NULL, 0);
    for (int k = 0; k < 20; k++) {
        pids[k] = 100 + k;
        uint32_t t = fixture_thread_in(p, pids[k], "cc1", pids[k], "cc1");
        snprintf(name, sizeof name, "lex%d", k);
        lex[k] = fixture_frame(p, name, "cc1", NULL, 0);
        struct stack_frame heavy[] = { { start, 0, 0x10 },
                                       { main_, 0, 0x20 } };
        struct stack_frame rare[] = { { start, 0, 0x10 }, { main_, 0, 0x24 },
                                      { lex[k], 0, 0x300 },
                                      { getc_, 0, 0x500 } };
        /* the ring keeps the last minute: only lex19's sample is in it */
        uint64_t t_ns = k < 19 ? 1000000000ull : 200000000000ull;
        assert_int_equal(profile_add_weighted_at(p, t, heavy, 2, 1, 100,
                                                 t_ns), 0);
        assert_int_equal(profile_add_weighted_at(p, t, rare, 4, 1, 1, t_ns),
                         0);
    }
    uint64_t samples = profile_samples(p);
    struct profile_linecount *lc = NULL;

    assert_int_equal(profile_lines(p, lex[3], true, &lc), 1);
    free(lc);
    /* the fold picks the weight (kept: _start, main, [rare]) and cuts,
     * keeping lex0 as a cache of the caller would */
    struct profile *q = profile_fold_processes(p, pids, 20, NULL, 0, 6,
                                               &lex[0], 1);
    assert_non_null(q);
    profile_replace(p, q);
    profile_free(q);
    assert_int_equal(profile_samples(p), samples);
    assert_string_equal(profile_frame(p, lex[0])->name, "lex0");
    assert_string_equal(profile_frame(p, lex[19])->name, "lex19");
    assert_int_equal(profile_lines(p, lex[0], true, &lc), 1);
    free(lc);
    for (int k = 1; k < 19; k++) {
        assert_string_equal(profile_frame(p, lex[k])->name, "");
        assert_int_equal(profile_lines(p, lex[k], true, &lc), 0);
    }
    assert_int_equal(frame_named(p, "lex5"), PROFILE_NONE);
    /* getc keeps its self below "[rare stacks]", and its counter */
    assert_int_equal(profile_lines(p, getc_, true, &lc), 1);
    assert_int_equal(lc[0].self, 20);
    free(lc);
    struct profile_footprint fp;
    profile_footprint(p, &fp);
    assert_true(fp.free_frames >= 18);
    /* not reused before the next fold */
    uint32_t count = profile_frame_count(p);
    uint32_t fresh = fixture_frame(p, "fresh", "cc1", NULL, 0);
    for (int k = 1; k < 19; k++)
        assert_int_not_equal(fresh, lex[k]);
    /* after it, new frames take the freed ids */
    fold_budget(p, NULL, 0, 6);
    count = profile_frame_count(p);
    bool took = false;
    for (int k = 0; k < 18; k++) {
        snprintf(name, sizeof name, "new%d", k);
        uint32_t id = fixture_frame(p, name, "cc1", NULL, 0);
        assert_string_equal(profile_frame(p, id)->name, name);
        for (int j = 1; j < 19; j++)
            took |= id == lex[j];
    }
    assert_true(took);
    assert_int_equal(profile_frame_count(p), count);
    assert_int_equal(profile_samples(p), samples);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_thousand),
        cmocka_unit_test(test_rare_stacks),
        cmocka_unit_test(test_budget_held),
        cmocka_unit_test(test_frames_freed),
        cmocka_unit_test(test_fold_reuses_frames),
        cmocka_unit_test(test_thread_churn),
        cmocka_unit_test(test_tid_reused),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
