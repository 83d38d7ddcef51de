/* header_cpu.c - the header's "On CPU" figures from /proc; see
 * header_cpu.h.
 */
#include "header_cpu.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "idtab.h"
#include "oncpu.h"
#include "vec.h"

static int cmp_pid(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The distinct processes to read: st's target and snap's threads'. */
static size_t target_pids(struct header_cpu *h, const struct profile *snap,
                          const struct source_status *st)
{
    uint32_t nt = profile_thread_count(snap);
    size_t n = 0, k = 0;

    if (VEC_RESERVE(h->pids, h->pids_cap, (size_t)nt + 1) < 0)
        return 0;
    if (st->pid > 0)
        h->pids[n++] = st->pid;
    for (uint32_t i = 0; i < nt; i++)
        if (profile_thread_at(snap, i)->pid > 0)
            h->pids[n++] = profile_thread_at(snap, i)->pid;
    qsort(h->pids, n, sizeof(*h->pids), cmp_pid);
    for (size_t i = 0; i < n; i++)
        if (!k || h->pids[k - 1] != h->pids[i])
            h->pids[k++] = h->pids[i];
    return k;
}

/* Add the %CPU of every live thread of process pid to h->pct[*n]. */
static void read_process(struct header_cpu *h, int64_t pid, uint64_t now,
                         size_t *n)
{
    char path[64], state[16];
    struct dirent *e;
    DIR *d;

    snprintf(path, sizeof(path), "/proc/%" PRId64 "/task", pid);
    if (!(d = opendir(path)))
        return;  /* gone since */
    while ((e = readdir(d))) {
        int64_t tid = strtoll(e->d_name, NULL, 10);
        uint64_t ticks;
        uint32_t i;

        if (tid <= 0 || !cpustat_read(pid, tid, state, sizeof(state), &ticks))
            continue;
        i = cpu_meter_update(&h->meter, tid, ticks, now);
        if (i == IDTAB_NONE ||
            VEC_RESERVE(h->pct, h->cap, *n + 1) < 0)
            break;
        h->pct[(*n)++] = h->meter.v[i].pct;
    }
    closedir(d);
}

void header_cpu_update(struct header_cpu *h, const struct profile *snap,
                       const struct source_status *st)
{
    uint64_t now = clock_mono_ns();
    size_t n = 0, np;

    h->on_cpu = -1;
    if (!st || st->is_file ||
        (st->state != TARGET_RUNNING && st->state != TARGET_STOPPED))
        return;
    np = target_pids(h, snap, st);
    for (size_t i = 0; i < np; i++)
        read_process(h, h->pids[i], now, &n);
    h->on_cpu = oncpu_share(h->pct, n);
}

void header_cpu_free(struct header_cpu *h)
{
    cpu_meter_free(&h->meter);
    free(h->pct);
    free(h->pids);
    h->pct = NULL;
    h->pids = NULL;
    h->cap = h->pids_cap = 0;
}
