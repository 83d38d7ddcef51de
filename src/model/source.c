/* source.c - what every reader of a source shares; see source.h. */
#include "source.h"

#include <stdlib.h>
#include <string.h>

static int task_cmp(int64_t pid, int64_t tid, const struct source_task *t)
{
    if (pid != t->pid)
        return pid < t->pid ? -1 : 1;
    return (tid > t->tid) - (tid < t->tid);
}

int source_task_cmp(const void *a, const void *b)
{
    const struct source_task *x = a;
    return task_cmp(x->pid, x->tid, b);
}

const struct source_task *source_task_find(const struct source_tasks *t,
                                           int64_t pid, int64_t tid)
{
    size_t lo = 0, hi = t ? t->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = task_cmp(pid, tid, &t->v[mid]);
        if (c == 0)
            return &t->v[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

void source_tasks_free(struct source_tasks *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}
