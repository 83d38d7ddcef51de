/* dbgfetch.c - debuginfod fetches on a thread of their own; see
 * dbgfetch.h.
 *
 * The fetcher is shared by its owner (the collector's) and its thread,
 * and freed by whichever lets go last, so dbgfetch_free never has to wait
 * long for a fetch: libdebuginfod checks its progress callback about once
 * a second, and only then can a fetch be cancelled.  A thread that ends
 * in time is joined (so its thread-local state, such as OpenSSL's, is
 * gone before the program exits); one that does not is detached.  The callback also
 * enforces the time bound, whatever the client's own settings.
 */
#include "dbgfetch.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define FREE_WAIT_NS 1000000000ull  /* dbgfetch_free waits this long for
                                       the thread to end */

/* A build-id asked for, not fetched yet. */
struct req {
    struct req *next;
    char build_id[];
};

struct dbgfetch {
    pthread_mutex_t lock;
    pthread_cond_t wake;              /* a request came, or quit */
    pthread_cond_t ended;             /* the thread is done */
    struct req *head, *tail;          /* asked, not started: oldest first */
    struct dbgfetch_result *done;     /* answered, not taken: oldest first */
    struct dbgfetch_result *done_tail;
    bool quit;                        /* dbgfetch_free was called */
    bool running;                     /* the thread has not ended */
    pthread_t thread;
    int refs;                         /* the owner and the thread */
    struct dbgfetch_stats st;
    atomic_bool cancel;               /* give up the fetch in flight */
    uint64_t timeout_ns;              /* the bound on one fetch */
    uint64_t deadline_ns;             /* fetch thread only: the bound of
                                         the fetch in flight */
};

static void destroy(struct dbgfetch *f)
{
    while (f->head) {
        struct req *r = f->head;
        f->head = r->next;
        free(r);
    }
    dbgfetch_result_free(f->done);
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->wake);
    pthread_cond_destroy(&f->ended);
    free(f);
}

/* Drop one reference (under no lock); the last frees. */
static void release(struct dbgfetch *f)
{
    pthread_mutex_lock(&f->lock);
    bool last = --f->refs == 0;
    pthread_mutex_unlock(&f->lock);
    if (last)
        destroy(f);
}

/* libdebuginfod's progress callback, on the fetch thread: non-zero
 * cancels the transfer. */
static int progress(debuginfod_client *c, long a, long b)
{
    (void)a;
    (void)b;
    struct dbgfetch *f = debuginfod_get_user_data(c);
    return atomic_load(&f->cancel) || clock_mono_ns() >= f->deadline_ns;
}

/* Fetch one build-id and post the answer. */
static void fetch_one(struct dbgfetch *f, debuginfod_client *c,
                      const struct req *r)
{
    char *path = NULL;
    int rc = -ENOSYS;
    f->deadline_ns = clock_mono_ns() + f->timeout_ns;
    if (c) {
        rc = debuginfod_find_debuginfo(c, (const unsigned char *)r->build_id,
                                       0, &path);
        if (rc >= 0) {
            close(rc);
            rc = 0;
        }
    }
    bool late = rc < 0 && clock_mono_ns() >= f->deadline_ns;
    char why[96] = "", buf[80];
    if (rc < 0 && !late && !atomic_load(&f->cancel))
        snprintf(why, sizeof why, "%s", c ? strerror_r(-rc, buf, sizeof buf)
                                          : "no debuginfod client");
    if (rc < 0) {
        free(path);
        path = NULL;
    }
    size_t n = strlen(r->build_id) + 1;
    struct dbgfetch_result *res = malloc(sizeof *res + n);
    if (res) {
        res->next = NULL;
        res->path = path;
        memcpy(res->build_id, r->build_id, n);
    } else {
        free(path);
    }
    pthread_mutex_lock(&f->lock);
    f->st.pending--;
    if (res && res->path)
        f->st.found++;
    else if (late)
        f->st.gave_up++;
    else
        f->st.missing++;
    if (why[0])
        memcpy(f->st.error, why, sizeof why);
    if (res) {
        if (f->done_tail)
            f->done_tail->next = res;
        else
            f->done = res;
        f->done_tail = res;
    }
    pthread_mutex_unlock(&f->lock);
}

static void *fetch_main(void *arg)
{
    struct dbgfetch *f = arg;
    sigset_t all;
    /* Signals are for the main thread (stop flags) and the sampler. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    debuginfod_client *c = debuginfod_begin();
    if (c) {
        debuginfod_set_user_data(c, f);
        debuginfod_set_progressfn(c, progress);
        /* $DEBUGINFOD_VERBOSE would write to the terminal curses owns */
        debuginfod_set_verbose_fd(c, -1);
    }
    for (;;) {
        pthread_mutex_lock(&f->lock);
        while (!f->quit && !f->head)
            pthread_cond_wait(&f->wake, &f->lock);
        struct req *r = f->quit ? NULL : f->head;
        if (r) {
            f->head = r->next;
            if (!f->head)
                f->tail = NULL;
        }
        pthread_mutex_unlock(&f->lock);
        if (!r)
            break;
        fetch_one(f, c, r);
        free(r);
    }
    if (c)
        debuginfod_end(c);
    pthread_mutex_lock(&f->lock);
    f->running = false;
    pthread_cond_broadcast(&f->ended);
    pthread_mutex_unlock(&f->lock);
    release(f);
    return NULL;
}

/* True when the servers list has something besides spaces. */
static bool names_a_server(const char *urls)
{
    for (; urls && *urls; urls++)
        if (*urls != ' ' && *urls != '\t' && *urls != '\n')
            return true;
    return false;
}

struct dbgfetch *dbgfetch_new(void)
{
    if (!names_a_server(getenv(DEBUGINFOD_URLS_ENV_VAR)))
        return NULL;
    struct dbgfetch *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    const char *max = getenv(DEBUGINFOD_MAXTIME_ENV_VAR);
    long secs = max ? strtol(max, NULL, 10) : 0;
    f->st.timeout_s = secs > 0 && secs < 86400 ? (uint32_t)secs
                                               : DBGFETCH_TIMEOUT_S;
    f->timeout_ns = (uint64_t)f->st.timeout_s * 1000000000ull;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->wake, NULL);
    pthread_cond_init(&f->ended, NULL);
    f->refs = 2;
    f->running = true;
    if (pthread_create(&f->thread, NULL, fetch_main, f) != 0) {
        destroy(f);
        return NULL;
    }
    return f;
}

void dbgfetch_free(struct dbgfetch *f)
{
    if (!f)
        return;
    atomic_store(&f->cancel, true);
    pthread_mutex_lock(&f->lock);
    f->quit = true;
    struct req *left = f->head;
    f->head = f->tail = NULL;
    pthread_cond_signal(&f->wake);
    /* pthread_cond_timedwait's default clock is CLOCK_REALTIME */
    uint64_t until = clock_wall_ns() + FREE_WAIT_NS;
    struct timespec ts = {(time_t)(until / 1000000000ull),
                          (long)(until % 1000000000ull)};
    while (f->running &&
           pthread_cond_timedwait(&f->ended, &f->lock, &ts) != ETIMEDOUT)
        ;
    bool ended = !f->running;
    pthread_mutex_unlock(&f->lock);
    if (ended)
        pthread_join(f->thread, NULL);
    else
        pthread_detach(f->thread);
    while (left) {
        struct req *r = left;
        left = r->next;
        free(r);
    }
    release(f);
}

void dbgfetch_request(struct dbgfetch *f, const char *build_id)
{
    size_t n = strlen(build_id) + 1;
    struct req *r = malloc(sizeof *r + n);
    if (!r)
        return;
    r->next = NULL;
    memcpy(r->build_id, build_id, n);
    pthread_mutex_lock(&f->lock);
    if (f->tail)
        f->tail->next = r;
    else
        f->head = r;
    f->tail = r;
    f->st.pending++;
    pthread_mutex_unlock(&f->lock);
    pthread_cond_signal(&f->wake);
}

struct dbgfetch_result *dbgfetch_take(struct dbgfetch *f)
{
    pthread_mutex_lock(&f->lock);
    struct dbgfetch_result *r = f->done;
    f->done = f->done_tail = NULL;
    pthread_mutex_unlock(&f->lock);
    return r;
}

void dbgfetch_result_free(struct dbgfetch_result *r)
{
    while (r) {
        struct dbgfetch_result *next = r->next;
        free(r->path);
        free(r);
        r = next;
    }
}

void dbgfetch_get_stats(struct dbgfetch *f, struct dbgfetch_stats *out)
{
    if (!f) {
        memset(out, 0, sizeof *out);
        return;
    }
    pthread_mutex_lock(&f->lock);
    *out = f->st;
    pthread_mutex_unlock(&f->lock);
}
