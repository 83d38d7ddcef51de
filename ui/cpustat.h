/* cpustat.h - how the threads and processes views show a live task's
 * figures (state, %CPU, TIME+), as htop and top do.
 *
 * The figures come from the source (source.h: the tasks op), gathered off
 * the UI thread from the sampler's own tables; here they are only put
 * into words.  UI thread.
 */
#ifndef SPROFTOP_CPUSTAT_H
#define SPROFTOP_CPUSTAT_H

#include <stddef.h>

#include "columns.h"
#include "source.h"

/* The state letter in words ("running", "sleeping", "disk wait"...);
 * "exited" for 0 (gone). */
const char *cpustat_state(char state);

/* "12.5", or "-" when t is NULL or its %CPU not known yet, into buf (n
 * bytes); returns buf. */
const char *cpustat_pct(const struct source_task *t, char *buf, size_t n);

/* top's TIME+ ("1:02.35") of t's CPU time into buf; returns buf. */
const char *cpustat_time(const struct source_task *t, char *buf, size_t n);

/* The columns of a live task both views show, declared once: %CPU,
 * TIME+ and State, in this order.  A view gives them three consecutive
 * ids of its own column enum, the first `cpu_id` (CPUSTAT_COLS in its
 * column table; %CPU sorts by `cpu_sort` when not NULL), and hands
 * cpustat_cell the column's offset from cpu_id. */
enum cpustat_col { CPUSTAT_CPU, CPUSTAT_TIME, CPUSTAT_STATE };
#define CPUSTAT_COLS(cpu_id, cpu_sort)                                      \
    { .id = (cpu_id) + CPUSTAT_CPU, .title = "CPU%", .width = 5,            \
      .flags = DT_RIGHT, .sort = (cpu_sort) },                              \
    { .id = (cpu_id) + CPUSTAT_TIME, .title = "TIME+", .width = 9,          \
      .flags = DT_RIGHT },                                                  \
    { .id = (cpu_id) + CPUSTAT_STATE, .title = "State", .width = 9 }

/* Column `col`'s cell of task t (NULL: no figures: "-" for %CPU, TIME+
 * left empty), whose state in words is `state`. */
void cpustat_cell(enum cpustat_col col, const struct source_task *t,
                  const char *state, struct view_cell *c);

#endif
