/* cpustat.c - CPU time and state from /proc; see cpustat.h.
 *
 * The threads view and the processes view read /proc through these, one
 * way for both.
 */
#include "cpustat.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "vec.h"

bool cpustat_read(int64_t pid, int64_t tid, char *state, size_t n,
                  uint64_t *ticks)
{
    char path[96], line[1024];
    FILE *f;

    if (tid)
        snprintf(path, sizeof(path), "/proc/%" PRId64 "/task/%" PRId64
                 "/stat", pid, tid);
    else
        snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
    f = fopen(path, "re");
    if (!f) {
        snprintf(state, n, "exited");
        return false;
    }
    size_t len = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[len] = '\0';
    /* The comm field may hold spaces and parentheses: the state follows
     * the last ')', then ppid ... cmajflt (fields 4-13), utime, stime. */
    const char *p = strrchr(line, ')');
    char c = p && p[1] == ' ' ? p[2] : '?';
    unsigned long long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                     "%llu %llu", &ut, &st) != 2)
        ut = st = 0;
    *ticks = ut + st;
    const char *word;
    switch (c) {
    case 'R': word = "running"; break;
    case 'S': word = "sleeping"; break;
    case 'D': word = "disk wait"; break;
    case 'T': word = "stopped"; break;
    case 't': word = "traced"; break;
    case 'Z': word = "zombie"; break;
    case 'X': word = "dead"; break;
    case 'I': word = "idle"; break;
    default: word = "?"; break;
    }
    snprintf(state, n, "%s", word);
    return true;
}

static uint64_t clock_hz(void)
{
    long hz = sysconf(_SC_CLK_TCK);

    return hz > 0 ? (uint64_t)hz : 100;
}

uint32_t cpu_meter_update(struct cpu_meter *m, int64_t id, uint64_t ticks,
                          uint64_t now)
{
    uint64_t h = util_mix64((uint64_t)id);
    uint32_t i = idtab_find(&m->ix, h, NULL, NULL);

    if (i == IDTAB_NONE) {
        if (VEC_RESERVE(m->v, m->cap, m->n + 1) < 0 ||
            idtab_insert(&m->ix, h, (uint32_t)m->n) < 0)
            return IDTAB_NONE;
        i = (uint32_t)m->n++;
        m->v[i] = (struct cpu_sample){ id, ticks, now, -1 };
        return i;
    }
    struct cpu_sample *c = &m->v[i];
    if (now - c->at_ns >= CPU_WINDOW_NS) {
        double used = (double)(ticks - c->ticks) / (double)clock_hz();
        c->pct = ticks >= c->ticks
                     ? 100.0 * used * 1e9 / (double)(now - c->at_ns)
                     : -1;
        c->ticks = ticks;
        c->at_ns = now;
    }
    return i;
}

void cpu_meter_free(struct cpu_meter *m)
{
    free(m->v);
    idtab_free(&m->ix);
    memset(m, 0, sizeof(*m));
}

const char *cpustat_pct(const struct cpu_sample *s, char *buf, size_t n)
{
    if (s && s->pct >= 0)
        snprintf(buf, n, "%.1f", s->pct);
    else
        snprintf(buf, n, "-");
    return buf;
}

const char *cpustat_time(const struct cpu_sample *s, char *buf, size_t n)
{
    uint64_t cs = s->ticks * 100 / clock_hz();

    snprintf(buf, n, "%" PRIu64 ":%02" PRIu64 ".%02" PRIu64, cs / 6000,
             cs / 100 % 60, cs % 100);
    return buf;
}
