/* pyframes.bpf.c - the perf backend's Python and Ruby frames, read in the
 * kernel at the moment of each sample (see perf_pybpf.h).
 *
 * Attached to every sampling event (PERF_EVENT_IOC_SET_BPF), this runs in
 * the sampled thread's own context, in the same interrupt that takes the
 * sample, just before the kernel writes it.  For a thread of a process
 * user space registered as Python (the `procs` map: its _PyRuntime and
 * its version's offsets), it walks the thread's frame chain with the one
 * walk src/frames/pywalk.h defines, reading the target's memory with
 * bpf_probe_read_user (which fails rather than fault), and writes the
 * code objects and instruction pointers it met to the `frames` ring, with
 * the TID and the time, by which user space matches the record to its
 * sample.  The time is the sample's own stamp where the kernel stamps it
 * before running the program (perf_sample_data's time, read through
 * CO-RE: 6.3 and later), so the match is exact whatever stalls the CPU
 * between the two; else the clock now (CLOCK_MONOTONIC, as the samples
 * carry), and user space takes the nearest record.  Names are read
 * later by user space through its code cache.  Any other sample costs one
 * map lookup.  It always returns 1: the sample is kept.
 *
 * A record the ring has no room for is counted in `dropped`.  Each walk
 * is bpf_loop over pywalk.h's step functions, their state in the per-CPU
 * `scratch` map.  Built with clang -target bpf; embedded into sproftop by
 * bpftool's skeleton (the Makefile).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/perf_event.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

typedef __u8 uint8_t;
typedef __u32 uint32_t;
typedef __u64 uint64_t;

#define PYWALK_INLINE static __always_inline
#define PYWALK_READ(ctx, dst, len, addr) \
    bpf_probe_read_user((dst), (len), (const void *)(unsigned long)(addr))
#include "pywalk.h"
#include "rbwalk.h"
#include "pybpf.h"

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PYBPF_MAX_PROCS);
    __type(key, __u32);                 /* tgid */
    __type(value, struct pybpf_proc);
} procs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, PYBPF_MAX_THREADS);
    __type(key, __u32);                 /* tid */
    __type(value, __u64);               /* its thread state, last seen */
} tstates SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct pybpf_scratch);
} scratch SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);               /* records the ring had no room for */
} dropped SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 1 << 20);       /* set by user space before load */
} frames SEC(".maps");

/* The kernel's own types, as far as the program reads them: CO-RE
 * relocates the fields' offsets against the running kernel's BTF, and a
 * field it lacks reads as absent (bpf_core_field_exists). */
struct perf_sample_data___sp {
    __u64 sample_flags;
    __u64 time;
} __attribute__((preserve_access_index));

struct bpf_perf_event_data_kern___sp {
    struct perf_sample_data___sp *data;
} __attribute__((preserve_access_index));

/* The time the kernel stamped the sample being taken, or 0 when it has
 * not yet (kernels before 6.3 prepare the sample after the program), or
 * its fields are unknown.  ctx is the kernel's bpf_perf_event_data_kern. */
static __always_inline __u64 sample_time(void *ctx)
{
    struct bpf_perf_event_data_kern___sp *k = ctx;
    struct perf_sample_data___sp *d = 0;
    __u64 flags = 0, t = 0;
    if (!bpf_core_field_exists(k->data) ||
        !bpf_core_field_exists(d->sample_flags) ||
        !bpf_core_field_exists(d->time))
        return 0;
    if (bpf_probe_read_kernel(&d, sizeof d, &k->data) != 0 || !d ||
        bpf_probe_read_kernel(&flags, sizeof flags, &d->sample_flags) != 0 ||
        !(flags & PERF_SAMPLE_TIME) ||
        bpf_probe_read_kernel(&t, sizeof t, &d->time) != 0)
        return 0;
    return t;
}

/* bpf_loop's context must be on the stack: it holds the scratch's
 * address. */
struct loop_ctx {
    struct pybpf_scratch *s;
};

static long find_step(__u32 i, void *arg)
{
    (void)i;
    struct pybpf_scratch *s = ((struct loop_ctx *)arg)->s;
    return pywalk_find_step(0, &s->walk, &s->find);
}

static long chain_step(__u32 i, void *arg)
{
    (void)i;
    struct pybpf_scratch *s = ((struct loop_ctx *)arg)->s;
    return pywalk_chain_step(0, &s->walk, &s->chain, s->rec.f, s->entry);
}

static long rfind_step(__u32 i, void *arg)
{
    (void)i;
    struct pybpf_scratch *s = ((struct loop_ctx *)arg)->s;
    return rbwalk_find_step(0, &s->rb, &s->rfind);
}

static long rchain_step(__u32 i, void *arg)
{
    (void)i;
    struct pybpf_scratch *s = ((struct loop_ctx *)arg)->s;
    return rbwalk_chain_step(0, &s->rb, &s->rchain, s->rec.f, s->entry);
}

/* A Ruby thread's control frames (rbwalk.h) into s->rec. */
static __always_inline void ruby_walk(struct pybpf_scratch *s,
                                      const struct pybpf_proc *p, __u32 tid)
{
    struct pybpf_rec *r = &s->rec;
    struct loop_ctx lc = {s};
    __u64 vm = 0;
    s->rb = p->rb;
    if (bpf_probe_read_user(&vm, sizeof vm,
                            (const void *)(unsigned long)p->runtime) != 0 ||
        !vm)
        return;
    __u64 *hint = bpf_map_lookup_elem(&tstates, &tid);
    if (!rbwalk_find_start(0, &s->rb, vm, tid, hint ? *hint : 0, &s->rfind))
        bpf_loop(RBWALK_FIND_STEPS, rfind_step, &lc, 0);
    __u64 th = s->rfind.found;
    if (!th)
        return;
    if (!hint || *hint != th)
        bpf_map_update_elem(&tstates, &tid, &th, BPF_ANY);
    if (!rbwalk_chain_start(0, &s->rb, th, PYWALK_MAX_DEPTH, &s->rchain) &&
        bpf_loop(RBWALK_CHAIN_STEPS, rchain_step, &lc, 0) ==
            RBWALK_CHAIN_STEPS && !s->rchain.done)
        s->rchain.status = PYWALK_DEPTH;
    r->status = s->rchain.status;
    if (rbwalk_gvl_waiting(0, &s->rb, s->rfind.ractor, th))
        r->status |= PYWALK_F_GVL << 8;
    r->n = s->rchain.k;
}

SEC("perf_event")
int pyframes(struct bpf_perf_event_data *ctx)
{
    (void)ctx;
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tgid = (__u32)(id >> 32), tid = (__u32)id;
    const struct pybpf_proc *p = bpf_map_lookup_elem(&procs, &tgid);
    if (!p)
        return 1;
    __u32 zero = 0;
    struct pybpf_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
    if (!s)
        return 1;
    struct pybpf_rec *r = &s->rec;
    r->pid = tgid;
    r->tid = tid;
    __u64 stamp = sample_time(ctx);
    r->time = stamp ? stamp : bpf_ktime_get_ns();
    r->n = 0;
    r->status = PYWALK_NONE_THREAD;
    s->walk = p->walk;
    struct loop_ctx lc = {s};
    __u64 *hint = NULL, ts = 0, frame;
    if (p->lang == 2) {
        ruby_walk(s, p, tid);
    } else {
        hint = bpf_map_lookup_elem(&tstates, &tid);
        if (!pywalk_find_start(0, &s->walk, p->runtime, tid,
                               hint ? *hint : 0, &s->find))
            bpf_loop(PYWALK_FIND_STEPS, find_step, &lc, 0);
        ts = s->find.found;
    }
    if (ts) {
        if (!hint || *hint != ts)
            bpf_map_update_elem(&tstates, &tid, &ts, BPF_ANY);
        if (pywalk_current(0, &s->walk, ts, &frame) < 0) {
            r->status = PYWALK_TORN;
        } else {
            pywalk_chain_start(&s->chain, frame, PYWALK_MAX_DEPTH);
            if (bpf_loop(PYWALK_CHAIN_STEPS, chain_step, &lc, 0) ==
                    PYWALK_CHAIN_STEPS && !s->chain.done)
                s->chain.status = PYWALK_DEPTH;
            r->status = s->chain.status;
            r->n = s->chain.k;
        }
    }
    /* the entry flags ride in bit 0 of the instruction pointers, which
     * point at 2-byte code units (Python) or 8-byte VALUEs (Ruby; 0 for a
     * C method) */
    for (__u32 i = 0; i < PYWALK_MAX_DEPTH; i++) {
        if (i >= r->n)
            break;
        r->f[i].instr |= s->entry[i] & 1;
    }
    if (stamp)
        r->status |= PYBPF_SAMPLE_TIME;
    __u32 n = r->n;
    if (n > PYWALK_MAX_DEPTH)
        return 1;
    __u64 size = sizeof(struct pybpf_rec) -
                 sizeof(struct pywalk_frame) * (PYWALK_MAX_DEPTH - n);
    if (bpf_ringbuf_output(&frames, r, size, 0) < 0) {
        __u64 *d = bpf_map_lookup_elem(&dropped, &zero);
        if (d)
            *d += 1;
    }
    return 1;
}

char LICENSE[] SEC("license") = "GPL";
