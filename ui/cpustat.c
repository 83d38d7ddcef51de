/* cpustat.c - a live task's figures in words; see cpustat.h. */
#include "cpustat.h"

#include <inttypes.h>
#include <stdio.h>

const char *cpustat_state(char state)
{
    switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "disk wait";
    case 'T': return "stopped";
    case 't': return "traced";
    case 'Z': return "zombie";
    case 'X': return "dead";
    case 'I': return "idle";
    case 0: return "exited";
    default: return "?";
    }
}

const char *cpustat_pct(const struct source_task *t, char *buf, size_t n)
{
    if (t && t->cpu_pct >= 0)
        snprintf(buf, n, "%.1f", t->cpu_pct);
    else
        snprintf(buf, n, "-");
    return buf;
}

const char *cpustat_time(const struct source_task *t, char *buf, size_t n)
{
    uint64_t cs = t->cpu_ns / 10000000u;   /* hundredths of a second */

    snprintf(buf, n, "%" PRIu64 ":%02" PRIu64 ".%02" PRIu64, cs / 6000,
             cs / 100 % 60, cs % 100);
    return buf;
}

void cpustat_cell(enum cpustat_col col, const struct source_task *t,
                  const char *state, struct view_cell *c)
{
    switch (col) {
    case CPUSTAT_CPU:
        c->text = cpustat_pct(t, c->buf, sizeof(c->buf));
        break;
    case CPUSTAT_TIME:
        if (t)
            c->text = cpustat_time(t, c->buf, sizeof(c->buf));
        break;
    case CPUSTAT_STATE:
        c->text = state;
        break;
    }
}
