/* perf_pybpf.c - Python frames read at sample time by a BPF program; see
 * perf_pybpf.h. */
#include "perf_pybpf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pybpf.h"
#include "pyframes.skel.h"
#include "pyread.h"
#include "script_frames.h"
#include "sorted.h"
#include "vec.h"

#define PAGE 4096u

/* A record read from the ring, waiting for its sample. */
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

struct pf_pybpf {
    struct pyframes *sk;
    struct ring_buffer *rb;
    struct prec *recs;
    size_t nrecs, caprecs;
    struct pywalk_frame *frames;
    size_t nframes, capframes;
    bool sorted;             /* recs by (tid, time) */
    struct pf_pybpf_stats st;
};

/* libbpf's messages: kept for the reason a load failed, never printed
 * (the live view owns the terminal).  Sampler thread only. */
static char last_msg[160];

static int on_libbpf_msg(enum libbpf_print_level level, const char *fmt,
                         va_list ap)
{
    if (level == LIBBPF_DEBUG)
        return 0;
    char buf[sizeof last_msg];
    vsnprintf(buf, sizeof buf, fmt, ap);
    buf[strcspn(buf, "\n")] = '\0';
    if (buf[0])
        memcpy(last_msg, buf, sizeof buf);
    return 0;
}

static int on_record(void *ctx, void *data, size_t len);

struct pf_pybpf *pf_pybpf_new(size_t ring_bytes, char *why, size_t whylen)
{
    libbpf_set_print(on_libbpf_msg);
    last_msg[0] = '\0';
    struct pf_pybpf *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    size_t bytes = PAGE;
    while (bytes < ring_bytes && bytes < (64u << 20))
        bytes <<= 1;
    b->sk = pyframes__open();
    int err = b->sk ? 0 : -errno;
    if (!err)
        err = bpf_map__set_max_entries(b->sk->maps.frames, (uint32_t)bytes);
    if (!err)
        err = pyframes__load(b->sk);
    if (err) {
        int e = err < 0 ? -err : err;
        if (e == EPERM || e == EACCES)
            snprintf(why, whylen, "BPF refused: needs root, or CAP_BPF and "
                     "CAP_PERFMON (or --sampler ptrace)");
        else
            snprintf(why, whylen, "its BPF program did not load: %s",
                     last_msg[0] ? last_msg : strerror(e));
        pf_pybpf_free(b);
        return NULL;
    }
    b->rb = ring_buffer__new(bpf_map__fd(b->sk->maps.frames), on_record, b,
                             NULL);
    if (!b->rb) {
        snprintf(why, whylen, "the BPF ring of interpreter frames: %s",
                 strerror(errno));
        pf_pybpf_free(b);
        return NULL;
    }
    return b;
}

void pf_pybpf_free(struct pf_pybpf *b)
{
    if (!b)
        return;
    ring_buffer__free(b->rb);
    pyframes__destroy(b->sk);
    free(b->recs);
    free(b->frames);
    free(b);
}

int pf_pybpf_attach(struct pf_pybpf *b, int fd)
{
    return ioctl(fd, PERF_EVENT_IOC_SET_BPF,
                 bpf_program__fd(b->sk->progs.pyframes)) < 0 ? -1 : 0;
}

int pf_pybpf_add(struct pf_pybpf *b, pid_t pid,
                 const struct script_proc *sp)
{
    struct pybpf_proc p;
    if (script_proc_bpf(sp, &p) < 0)
        return -1;
    uint32_t key = (uint32_t)pid;
    return bpf_map_update_elem(bpf_map__fd(b->sk->maps.procs), &key, &p,
                               BPF_ANY) < 0 ? -1 : 0;
}

void pf_pybpf_remove(struct pf_pybpf *b, pid_t pid)
{
    uint32_t key = (uint32_t)pid;
    bpf_map_delete_elem(bpf_map__fd(b->sk->maps.procs), &key);
}

/* One record from the ring (libbpf's callback). */
static int on_record(void *ctx, void *data, size_t len)
{
    struct pf_pybpf *b = ctx;
    const struct pybpf_rec *r = data;
    size_t head = sizeof *r - sizeof r->f;
    b->st.records++;
    if (len < head || r->n > PYWALK_MAX_DEPTH ||
        len < head + (size_t)r->n * sizeof r->f[0] ||
        VEC_RESERVE(b->recs, b->caprecs, b->nrecs + 1) < 0 ||
        VEC_RESERVE(b->frames, b->capframes, b->nframes + r->n) < 0)
        return 0;
    b->recs[b->nrecs++] = (struct prec){
        .tid = r->tid, .n = r->n, .time = r->time,
        .off = (uint32_t)b->nframes, .status = (uint8_t)(r->status & 0xff),
        .flags = (uint8_t)(r->status >> 8),
        .exact = (r->status & PYBPF_SAMPLE_TIME) != 0,
    };
    if (r->n)
        memcpy(b->frames + b->nframes, r->f, r->n * sizeof r->f[0]);
    b->nframes += r->n;
    b->sorted = false;
    return 0;
}

void pf_pybpf_consume(struct pf_pybpf *b)
{
    ring_buffer__consume(b->rb);
}

static int rec_cmp(const void *x, const void *y)
{
    const struct prec *a = x, *c = y;
    if (a->tid != c->tid)
        return a->tid < c->tid ? -1 : 1;
    return (a->time > c->time) - (a->time < c->time);
}

bool pf_pybpf_take(struct pf_pybpf *b, pid_t tid, uint64_t time,
                   uint64_t window, struct script_stack *st)
{
    st->have = false;
    if (!b->sorted) {
        sorted_sort(b->recs, b->nrecs, sizeof *b->recs, rec_cmp);
        b->sorted = true;
    }
    /* the records of tid on either side of time: the one stamped with
     * the sample's own time; else (a kernel that stamps samples after
     * the program) the nearer one read near it, within the window, that
     * no sample took.  A record of the sample's own time never goes to
     * another sample. */
    size_t lo = 0, hi = b->nrecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct prec *m = &b->recs[mid];
        if (m->tid < (uint32_t)tid ||
            (m->tid == (uint32_t)tid && m->time <= time))
            lo = mid + 1;
        else
            hi = mid;
    }
    struct prec *r = NULL;
    for (size_t k = lo; k > 0 && b->recs[k - 1].tid == (uint32_t)tid &&
                        b->recs[k - 1].time == time; k--)
        if (b->recs[k - 1].exact && !b->recs[k - 1].taken) {
            r = &b->recs[k - 1];
            break;
        }
    uint64_t best = window + 1;
    for (size_t k = lo > 0 ? lo - 1 : 0; !r && k <= lo && k < b->nrecs; k++) {
        struct prec *c = &b->recs[k];
        uint64_t d = c->time > time ? c->time - time : time - c->time;
        if (c->tid == (uint32_t)tid && !c->exact && !c->taken && d < best) {
            r = c;
            best = d;
        }
    }
    if (!r)
        return false;
    r->taken = true;
    b->st.matched++;
    b->st.near += !r->exact;
    st->py.n = r->n;
    st->py.status = r->status;
    st->py.flags = r->flags;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct pywalk_frame *f = &b->frames[r->off + i];
        /* the entry flag rides in bit 0 of the instruction pointer */
        st->py.f[i].code = f->code;
        st->py.f[i].instr = f->instr & ~1ull;
        st->py.entry[i] = (uint8_t)(f->instr & 1);
    }
    st->have = true;
    return true;
}

void pf_pybpf_trim(struct pf_pybpf *b, uint64_t upto)
{
    /* the frames of the records kept move to the front, in the order of
     * their offsets (records are sorted by thread, not by offset) */
    size_t k = 0;
    for (size_t i = 0; i < b->nrecs; i++) {
        if (b->recs[i].time <= upto) {
            b->st.orphans += !b->recs[i].taken;
            continue;
        }
        b->recs[k++] = b->recs[i];
    }
    b->nrecs = k;
    if (k == 0 || b->nframes == 0) {
        b->nframes = 0;
        return;
    }
    struct pywalk_frame *nf = malloc(b->nframes * sizeof *nf);
    if (!nf)
        return; /* keep the arena as it is: offsets still hold */
    size_t used = 0;
    for (size_t i = 0; i < k; i++) {
        if (b->recs[i].n)
            memcpy(nf + used, b->frames + b->recs[i].off,
                   b->recs[i].n * sizeof *nf);
        b->recs[i].off = (uint32_t)used;
        used += b->recs[i].n;
    }
    if (used)
        memcpy(b->frames, nf, used * sizeof *nf);
    free(nf);
    b->nframes = used;
}

void pf_pybpf_get_stats(struct pf_pybpf *b, struct pf_pybpf_stats *out)
{
    *out = b->st;
    int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0 || ncpu > 4096)
        return;
    uint64_t *v = calloc((size_t)ncpu, sizeof *v);
    uint32_t zero = 0;
    if (v && bpf_map_lookup_elem(bpf_map__fd(b->sk->maps.dropped), &zero,
                                 v) == 0)
        for (int i = 0; i < ncpu; i++)
            out->dropped += v[i];
    free(v);
}
