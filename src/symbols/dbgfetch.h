/* dbgfetch.h - debug info from debuginfod servers, fetched on a thread of
 * its own, so that no network wait ever reaches the sampler, the
 * collector or the UI: a slow or dead server costs a late name, nothing
 * else.
 *
 * The session's symbol store (sym_store.h) asks (dbgfetch_request) for the build-ids of the modules
 * it finds without debug info.  The fetch thread takes them one at a time,
 * in the order asked (the first modules met are the hot ones), through
 * elfutils' libdebuginfod client.  The client reads the servers from
 * $DEBUGINFOD_URLS and keeps what it gets in its cache
 * ($DEBUGINFOD_CACHE_PATH, by default ~/.cache/debuginfod_client, which
 * gdb and perf share): a second run finds everything there at once.  Each
 * fetch is bounded ($DEBUGINFOD_MAXTIME seconds, default
 * DBGFETCH_TIMEOUT_S) and given up after that.  The collector takes the
 * answers (dbgfetch_take) on its own schedule.
 *
 * Threads: dbgfetch_request and dbgfetch_take are called by one thread
 * (the collector), dbgfetch_get_stats by any; each takes a short lock to
 * link or unlink a list, with no allocation or syscall under it, and
 * none waits for a fetch.
 */
#ifndef SPROFTOP_DBGFETCH_H
#define SPROFTOP_DBGFETCH_H

#include <stdint.h>

#define DBGFETCH_TIMEOUT_S 30  /* per fetch, unless $DEBUGINFOD_MAXTIME */

struct dbgfetch;

struct dbgfetch_stats {
    uint32_t pending;     /* asked, not answered yet */
    uint32_t found;       /* fetched, or found in the client's cache */
    uint32_t missing;     /* no server had it (or none could be reached) */
    uint32_t gave_up;     /* given up after timeout_s */
    uint32_t timeout_s;   /* the bound on each fetch */
    char error[96];       /* why the last unanswered fetch failed, "" if
                             none did */
};

/* One answer: the debug file of a build-id, or none. */
struct dbgfetch_result {
    struct dbgfetch_result *next;
    char *path;        /* the debug file (in the client's cache); NULL
                          when none was fetched */
    char build_id[];   /* as asked (lowercase hex) */
};

/* A fetcher, with its thread started, when $DEBUGINFOD_URLS names a
 * server; NULL when it names none (fetching is off), on OOM, or when no
 * thread can be started.  Any thread, before the collector starts. */
struct dbgfetch *dbgfetch_new(void);

/* Stop fetching and free the fetcher.  A fetch in flight is cancelled;
 * the thread is given a second to notice and is joined, or else left to
 * end on its own (it frees what is left).  NULL is a no-op. */
void dbgfetch_free(struct dbgfetch *f);

/* Ask for the debug info of build-id `build_id` (lowercase hex); the
 * caller asks once per build-id.  Returns at once; on OOM the request is
 * dropped (and the module stays without a name). */
void dbgfetch_request(struct dbgfetch *f, const char *build_id);

/* The answers that arrived since the last call, oldest first, owned by
 * the caller (dbgfetch_result_free); NULL when none. */
struct dbgfetch_result *dbgfetch_take(struct dbgfetch *f);

/* Free a list of answers.  NULL is a no-op. */
void dbgfetch_result_free(struct dbgfetch_result *r);

/* Counters since dbgfetch_new.  f may be NULL (all zero). */
void dbgfetch_get_stats(struct dbgfetch *f, struct dbgfetch_stats *out);

#endif
