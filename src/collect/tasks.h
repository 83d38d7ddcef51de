/* tasks.h - the live table of a session's threads and processes, for the
 * source's tasks op (source.h: what the threads and processes views show
 * of a live target: state, CPU time, %CPU).
 *
 * The threads are the sampler's own (sampler_foreach_thread: those it
 * samples, and those gone); their figures are read from /proc through
 * kept-open stat files (taskstat.h) on the collector thread, every
 * TASKS_PERIOD_NS while a reader asked within TASKS_WANTED_NS, so a
 * session nobody looks at reads nothing, and the UI thread never opens a
 * /proc file for them.  The reader copies the last table under a short
 * lock (memcpy only; the collector swaps in a new table in O(1)).
 *
 * Threads: tasks_refresh on the collector thread (or the controlling
 * one once it has ended); tasks_copy on the controlling thread.
 */
#ifndef SPROFTOP_TASKS_H
#define SPROFTOP_TASKS_H

#include <stdbool.h>
#include <stdint.h>

#define TASKS_PERIOD_NS 500000000ull  /* a refresh at most this often */
#define TASKS_WANTED_NS 10000000000ull /* ...while asked this recently */

struct sampler;
struct source_tasks;
struct tasks;

/* An empty table.  NULL on OOM. */
struct tasks *tasks_new(void);

/* Free it.  NULL is a no-op. */
void tasks_free(struct tasks *t);

/* Collector thread, at now_ns (CLOCK_MONOTONIC): when a reader asked
 * within TASKS_WANTED_NS and the last refresh is TASKS_PERIOD_NS old,
 * read the figures of s's threads and of their processes and publish
 * them.  Takes s's stats lock (through sampler_foreach_thread) and the
 * table's lock, neither while allocating or reading /proc. */
void tasks_refresh(struct tasks *t, struct sampler *s, uint64_t now_ns);

/* Controlling thread: copy the last table into *out (grown as needed)
 * and note the ask at now_ns.  *wake is set when nobody had asked for a
 * while, so the caller may wake the collector for a refresh now.  0, or
 * -1 on OOM (*out unchanged). */
int tasks_copy(struct tasks *t, struct source_tasks *out, uint64_t now_ns,
               bool *wake);

#endif
