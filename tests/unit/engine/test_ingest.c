/* test_ingest.c - the double buffer between the sampler and the collector
 * (src/sample/ingest.c): records come out as they went in, padded and
 * whole; a full buffer drops and counts; a swap hands over what was
 * pushed and starts an empty buffer; a producer and a consumer on two
 * threads lose nothing that was not counted lost. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../unit_main.h"

#include "ingest.h"

static void push(struct ingest *in, uint32_t type, int tid, uint64_t gen,
                 const void *payload, size_t len, int want)
{
    struct ingest_rec h = {.type = type, .tid = tid, .flags = 3,
                           .time = 42, .gen = gen, .len = 999};
    assert_int_equal(ingest_push(in, &h, payload, len), want);
}

static void test_records(void **state)
{
    (void)state;
    struct ingest *in = ingest_new(4096);
    static const uint64_t pcs[3] = {1, 2, 3};

    assert_non_null(in);
    push(in, INGEST_SAMPLE, 10, 1, pcs, sizeof pcs, 0);
    push(in, INGEST_THREAD, 11, 1, "abc", 3, 0);   /* padded to 8 */
    push(in, INGEST_SAMPLE, 12, 2, NULL, 0, 0);    /* no payload */

    const uint8_t *data;
    size_t len, off = 0;
    const void *payload;
    ingest_swap(in, &data, &len);
    assert_int_equal(len, 3 * sizeof(struct ingest_rec) + 24 + 8);

    const struct ingest_rec *r = ingest_next(data, len, &off, &payload);
    assert_non_null(r);
    assert_int_equal(r->type, INGEST_SAMPLE);
    assert_int_equal(r->tid, 10);
    assert_int_equal(r->len, sizeof pcs);  /* from the argument, not *hdr */
    assert_int_equal(r->flags, 3);
    assert_int_equal(r->time, 42);
    assert_memory_equal(payload, pcs, sizeof pcs);
    r = ingest_next(data, len, &off, &payload);
    assert_int_equal(r->type, INGEST_THREAD);
    assert_int_equal(r->len, 3);
    assert_memory_equal(payload, "abc", 3);
    r = ingest_next(data, len, &off, &payload);
    assert_int_equal(r->tid, 12);
    assert_int_equal(r->gen, 2);
    assert_int_equal(r->len, 0);
    assert_null(ingest_next(data, len, &off, &payload));
    assert_int_equal(off, len);

    /* the next swap starts from an empty buffer */
    ingest_swap(in, &data, &len);
    assert_int_equal(len, 0);
    ingest_free(in);
    ingest_free(NULL);
}

static void test_full(void **state)
{
    (void)state;
    /* room for two records with an 8-byte payload */
    size_t rec = sizeof(struct ingest_rec) + 8;
    struct ingest *in = ingest_new(2 * rec + 7);
    uint64_t v = 7;

    push(in, INGEST_SAMPLE, 1, 0, &v, 8, 0);
    push(in, INGEST_SAMPLE, 2, 0, &v, 8, 0);
    push(in, INGEST_SAMPLE, 3, 0, &v, 8, -1);
    push(in, INGEST_SAMPLE, 4, 0, &v, 1, -1);  /* padded: does not fit */
    assert_int_equal(ingest_lost(in), 2);

    const uint8_t *data;
    size_t len, off = 0;
    const void *payload;
    ingest_swap(in, &data, &len);
    assert_int_equal(len, 2 * rec);
    /* the other buffer takes records while the consumer reads this one */
    push(in, INGEST_SAMPLE, 5, 0, &v, 8, 0);
    assert_int_equal(ingest_next(data, len, &off, &payload)->tid, 1);
    assert_int_equal(ingest_next(data, len, &off, &payload)->tid, 2);
    assert_null(ingest_next(data, len, &off, &payload));
    ingest_swap(in, &data, &len);
    off = 0;
    assert_int_equal(ingest_next(data, len, &off, &payload)->tid, 5);
    assert_int_equal(ingest_lost(in), 2);

    /* a record cut short (a bad length) is not read past the end */
    off = 0;
    assert_null(ingest_next(data, sizeof(struct ingest_rec) + 4, &off, &payload));
    assert_null(ingest_next(data, sizeof(struct ingest_rec) - 1, &off, &payload));
    ingest_free(in);
}

/* One sampler serves several processes: the consumer hands each run of
 * records naming one pid to that process's fold, whole and in order. */
static void test_runs(void **state)
{
    (void)state;
    struct ingest *in = ingest_new(4096);
    static const int32_t pids[] = {7, 7, 9, 7, 7, 7, 11};
    static const size_t want_n[] = {2, 1, 3, 1};
    static const int32_t want_pid[] = {7, 9, 7, 11};
    uint64_t v = 5;
    assert_non_null(in);
    for (size_t i = 0; i < sizeof pids / sizeof *pids; i++) {
        struct ingest_rec h = {.type = INGEST_SAMPLE, .pid = pids[i], .tid = (int)i};
        assert_int_equal(ingest_push(in, &h, &v, i % 2 ? sizeof v : 3), 0);
    }
    const uint8_t *data;
    size_t len, off = 0, n, k = 0;
    int32_t pid;
    ingest_swap(in, &data, &len);
    int tid = 0;
    while ((n = ingest_run(data, len, off, &pid)) > 0) {
        assert_true(k < 4);
        assert_int_equal(pid, want_pid[k]);
        /* the run holds exactly its records, each of that pid */
        size_t roff = 0, count = 0;
        const void *payload;
        const struct ingest_rec *r;
        while ((r = ingest_next(data + off, n, &roff, &payload))) {
            assert_int_equal(r->pid, pid);
            assert_int_equal(r->tid, tid++);
            count++;
        }
        assert_int_equal(roff, n);
        assert_int_equal(count, want_n[k]);
        off += n;
        k++;
    }
    assert_int_equal(k, 4);
    assert_int_equal(off, len);
    assert_int_equal(ingest_run(data, len, off, &pid), 0);
    ingest_free(in);
}

/* The producer pushes numbered records while the consumer swaps: every
 * record is either read once, in order, or counted lost. */
#define NRECS 200000

static void *produce(void *arg)
{
    struct ingest *in = arg;
    for (uint64_t i = 0; i < NRECS; i++) {
        struct ingest_rec h = {.type = INGEST_SAMPLE, .time = i};
        ingest_push(in, &h, &i, sizeof i);
    }
    return NULL;
}

struct consumed {
    uint64_t seen, last;
    int in_order;
};

static void consume(struct ingest *in, struct consumed *c)
{
    const uint8_t *data;
    size_t len, off = 0;
    const void *payload;
    const struct ingest_rec *r;
    ingest_swap(in, &data, &len);
    while ((r = ingest_next(data, len, &off, &payload))) {
        uint64_t v;
        memcpy(&v, payload, sizeof v);
        if (v != r->time || (c->seen && v <= c->last))
            c->in_order = 0;
        c->last = v;
        c->seen++;
    }
}

static void test_two_threads(void **state)
{
    (void)state;
    struct ingest *in = ingest_new(64 * 1024);
    struct consumed c = {.in_order = 1};
    pthread_t t;

    assert_int_equal(pthread_create(&t, NULL, produce, in), 0);
    for (int i = 0; i < 200; i++)
        consume(in, &c);
    pthread_join(t, NULL);
    consume(in, &c);
    consume(in, &c);
    assert_true(c.in_order);
    assert_int_equal(c.seen + ingest_lost(in), NRECS);
    ingest_free(in);
}

UNIT_MAIN(
    cmocka_unit_test(test_records),
    cmocka_unit_test(test_full),
    cmocka_unit_test(test_runs),
    cmocka_unit_test(test_two_threads))
