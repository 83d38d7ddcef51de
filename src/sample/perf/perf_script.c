/* perf_script.c - Python frames on the perf backend: which processes run
 * an interpreter, the BPF program that walks their threads at sample
 * time (perf_pybpf.h), and each sample's walk; see perf_int.h.
 *
 * The program is loaded when the first Python process is found (or at
 * once for a launched command whose name is python's, so that the
 * threads it creates inherit events that carry it), and goes on every
 * sampling event: the ones open then and every one opened later.  A
 * process is walked from its registration on; its samples taken before
 * have no record and keep their native frames, as do the samples of
 * every process when the kernel refuses the program (the header and
 * --stats say why).
 *
 * SPROFTOP_PY_READ=drain (script_frames.h) reads the frames from user space
 * when the sample is drained instead (up to 200 ms late): the design
 * this one replaced, kept to measure what it costs in accuracy (make
 * bench).
 */
#include "perf_int.h"

#include "clock.h"
#include "perf_pybpf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_FILL_MS 600u     /* the BPF ring holds this long at the rate
                                 asked, as the perf rings do */
#define RECORD_BYTES 400u     /* a record of about 20 frames */
#define MATCH_MAX_NS 1000000ull /* a sample's BPF record is at most this
                                   much older than it (the walk runs in
                                   the same interrupt, just before the
                                   sample is written) */

static size_t ring_bytes(const struct pf_sampler *s)
{
    uint64_t iv = atomic_load(&s->interval_ns);
    uint64_t rate = 1000000000ull / (iv ? iv : 1);
    if (s->cfg.idle)
        rate += rate > 1000 ? rate : 1000;
    return (size_t)(rate * (uint64_t)s->ncpus * RECORD_BYTES * RING_FILL_MS
                    / 1000);
}

static bool read_at_drain(void)
{
    return script_read_mode() == SCRIPT_READ_DRAIN;
}

/* Load the program once; false when it cannot be (pybpf_why says why). */
static bool load(struct pf_sampler *s)
{
    if (s->pybpf || s->pybpf_tried)
        return s->pybpf != NULL;
    s->pybpf_tried = true;
    s->pybpf = pf_pybpf_new(ring_bytes(s), s->pybpf_why,
                            sizeof s->pybpf_why);
    if (!s->pybpf)
        return false;
    for (size_t i = 0; i < s->nevs; i++)
        if (s->evs[i].fd >= 0)
            pf_pybpf_attach(s->pybpf, s->evs[i].fd);
    return true;
}

void pf_script_attach(struct pf_sampler *s, int fd)
{
    if (!s->pybpf && s->cfg.argv && !s->pybpf_tried && !read_at_drain() &&
        script_candidate(s->cfg.argv[0]))
        load(s); /* a launched python or ruby: before its first thread
                  * exists */
    if (s->pybpf)
        pf_pybpf_attach(s->pybpf, fd);
}

void pf_script_found(struct pf_sampler *s, struct pproc *p)
{
    const char *label = script_proc_label(p->script);
    bool r = script_proc_readable(p->script);
    if (r && read_at_drain())
        p->script_since = clock_mono_ns();
    else if (r && load(s) && pf_pybpf_add(s->pybpf, p->pid, p->script) == 0)
        p->script_since = clock_mono_ns();
    if (s->live.script[0])
        return; /* the header names the first interpreter found */
    if (r && !s->pybpf && !read_at_drain())
        snprintf(s->live.script, sizeof s->live.script,
                 "%.24s: not read, %.120s", label, s->pybpf_why);
    else
        snprintf(s->live.script, sizeof s->live.script, "%s", label);
}

void pf_script_forget(struct pf_sampler *s, struct pproc *p)
{
    if (!p->script)
        return;
    if (s->pybpf && p->script_since)
        pf_pybpf_remove(s->pybpf, p->pid);
    script_proc_free(p->script);
    p->script = NULL;
    p->script_since = 0;
}

void pf_script_sample(struct pf_sampler *s, struct pthr *t, uint64_t time,
                      struct script_stack *py)
{
    const struct pproc *p = &s->procs[t->proc];
    py->have = false;
    if (!p->script_since || time < p->script_since)
        return;
    if (read_at_drain()) {
        script_walk(p->script, t->tid, py);
        return;
    }
    uint64_t window = s->cur_interval / 2;
    if (window > MATCH_MAX_NS || window == 0)
        window = MATCH_MAX_NS;
    if (!pf_pybpf_take(s->pybpf, t->tid, time, window, py)) {
        /* its walk is missing: the sample keeps its native frames and
         * is counted as unreadable */
        py->have = true;
        py->py.n = 0;
        py->py.status = PYWALK_TORN;
        py->py.flags = 0;
    }
}
