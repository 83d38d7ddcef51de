/* perf_pymatch.c - interpreter walks waiting for their samples; see
 * perf_pymatch.h. */
#include "perf_pymatch.h"

#include <stdlib.h>
#include <string.h>

#include "script_frames.h"
#include "sorted.h"
#include "vec.h"

/* A walk waiting for its sample. */
struct prec {
    uint32_t tid;
    uint32_t n;          /* frames, at frames[off..off+n) */
    uint64_t time;
    uint32_t off;
    uint8_t status;
    uint8_t flags;       /* PYWALK_F_* */
    bool exact;          /* time is its sample's own stamp */
    bool taken;
};

struct pf_pymatch {
    struct prec *recs;
    size_t nrecs, caprecs;
    struct pywalk_frame *frames;
    size_t nframes, capframes;
    bool sorted;             /* recs by (tid, time) */
    struct pf_pymatch_stats st;
};

struct pf_pymatch *pf_pymatch_new(void)
{
    return calloc(1, sizeof(struct pf_pymatch));
}

void pf_pymatch_free(struct pf_pymatch *m)
{
    if (m) {
        free(m->recs);
        free(m->frames);
    }
    free(m);
}

int pf_pymatch_add(struct pf_pymatch *m, uint32_t tid, uint64_t time,
                   bool exact, uint8_t status, uint8_t flags,
                   const struct pywalk_frame *f, uint32_t n)
{
    if (n > PYWALK_MAX_DEPTH ||
        VEC_RESERVE(m->recs, m->caprecs, m->nrecs + 1) < 0 ||
        VEC_RESERVE(m->frames, m->capframes, m->nframes + n) < 0)
        return -1;
    m->recs[m->nrecs++] = (struct prec){
        .tid = tid, .n = n, .time = time, .off = (uint32_t)m->nframes,
        .status = status, .flags = flags, .exact = exact,
    };
    if (n)
        memcpy(m->frames + m->nframes, f, n * sizeof *f);
    m->nframes += n;
    m->sorted = false;
    m->st.added++;
    return 0;
}

static int rec_cmp(const void *x, const void *y)
{
    const struct prec *a = x, *c = y;
    int by_tid = (a->tid > c->tid) - (a->tid < c->tid);
    return by_tid ? by_tid : (a->time > c->time) - (a->time < c->time);
}

/* tid's walk for its sample at `time` (perf_pymatch.h's rule), or NULL. */
static struct prec *find(struct pf_pymatch *m, uint32_t tid, uint64_t time,
                         uint64_t window)
{
    /* lo: the first walk after (tid, time) */
    size_t lo = 0, hi = m->nrecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct prec *r = &m->recs[mid];
        if (r->tid < tid || (r->tid == tid && r->time <= time))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k > 0 && m->recs[k - 1].tid == tid &&
                        m->recs[k - 1].time == time; k--)
        if (m->recs[k - 1].exact && !m->recs[k - 1].taken)
            return &m->recs[k - 1];
    /* the clock's walks on either side of time */
    struct prec *best = NULL;
    uint64_t gap = window + 1;
    for (size_t k = lo > 0 ? lo - 1 : 0; k <= lo && k < m->nrecs; k++) {
        struct prec *c = &m->recs[k];
        uint64_t d = c->time > time ? c->time - time : time - c->time;
        if (c->tid == tid && !c->exact && !c->taken && d < gap) {
            best = c;
            gap = d;
        }
    }
    return best;
}

bool pf_pymatch_take(struct pf_pymatch *m, pid_t tid, uint64_t time,
                     uint64_t window, struct script_stack *st)
{
    st->have = false;
    if (!m->sorted) {
        sorted_sort(m->recs, m->nrecs, sizeof *m->recs, rec_cmp);
        m->sorted = true;
    }
    struct prec *r = find(m, (uint32_t)tid, time, window);
    if (!r)
        return false;
    r->taken = true;
    m->st.matched++;
    m->st.near += !r->exact;
    st->py.n = r->n;
    st->py.status = r->status;
    st->py.flags = r->flags;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct pywalk_frame *f = &m->frames[r->off + i];
        /* the entry flag rides in bit 0 of the instruction pointer */
        st->py.f[i].code = f->code;
        st->py.f[i].instr = f->instr & ~1ull;
        st->py.entry[i] = (uint8_t)(f->instr & 1);
    }
    st->have = true;
    return true;
}

void pf_pymatch_trim(struct pf_pymatch *m, uint64_t upto)
{
    /* the frames of the walks kept move to the front, in the order of
     * their offsets (walks are sorted by thread, not by offset) */
    size_t k = 0;
    for (size_t i = 0; i < m->nrecs; i++) {
        if (m->recs[i].time <= upto) {
            m->st.orphans += !m->recs[i].taken;
            continue;
        }
        m->recs[k++] = m->recs[i];
    }
    m->nrecs = k;
    if (k == 0 || m->nframes == 0) {
        m->nframes = 0;
        return;
    }
    struct pywalk_frame *nf = malloc(m->nframes * sizeof *nf);
    if (!nf)
        return; /* keep the arena as it is: offsets still hold */
    size_t used = 0;
    for (size_t i = 0; i < k; i++) {
        if (m->recs[i].n)
            memcpy(nf + used, m->frames + m->recs[i].off,
                   m->recs[i].n * sizeof *nf);
        m->recs[i].off = (uint32_t)used;
        used += m->recs[i].n;
    }
    if (used)
        memcpy(m->frames, nf, used * sizeof *nf);
    free(nf);
    m->nframes = used;
}

void pf_pymatch_get_stats(const struct pf_pymatch *m,
                          struct pf_pymatch_stats *out)
{
    *out = m->st;
}
