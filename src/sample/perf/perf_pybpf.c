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

#include "perf_pymatch.h"
#include "pybpf.h"
#include "pyframes.skel.h"
#include "pyread.h"
#include "script_frames.h"

#define PAGE 4096u
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

struct pf_pybpf {
    struct pyframes *sk;
    struct ring_buffer *rb;
    struct pf_pymatch *match;  /* the walks read, waiting for samples */
    uint64_t records;          /* read from the ring */
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
    b->match = pf_pymatch_new();
    if (!b->match) {
        snprintf(why, whylen, "out of memory");
        pf_pybpf_free(b);
        return NULL;
    }
    /* the program reads the sample's stamp through CO-RE, against the
     * kernel's own type information */
    if (access(KERNEL_BTF, R_OK) != 0) {
        snprintf(why, whylen, "the kernel has no BTF (%s): "
                 "CONFIG_DEBUG_INFO_BTF, or --sampler ptrace", KERNEL_BTF);
        pf_pybpf_free(b);
        return NULL;
    }
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
    pf_pymatch_free(b->match);
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
    b->records++;
    if (len < head || r->n > PYWALK_MAX_DEPTH ||
        len < head + (size_t)r->n * sizeof r->f[0])
        return 0;
    pf_pymatch_add(b->match, r->tid, r->time,
                   (r->status & PYBPF_SAMPLE_TIME) != 0,
                   (uint8_t)(r->status & 0xff), (uint8_t)(r->status >> 8),
                   r->f, r->n);
    return 0;
}

void pf_pybpf_consume(struct pf_pybpf *b)
{
    ring_buffer__consume(b->rb);
}

bool pf_pybpf_take(struct pf_pybpf *b, pid_t tid, uint64_t time,
                   uint64_t window, struct script_stack *st)
{
    return pf_pymatch_take(b->match, tid, time, window, st);
}

void pf_pybpf_trim(struct pf_pybpf *b, uint64_t upto)
{
    pf_pymatch_trim(b->match, upto);
}

void pf_pybpf_get_stats(struct pf_pybpf *b, struct pf_pybpf_stats *out)
{
    *out = (struct pf_pybpf_stats){.records = b->records};
    pf_pymatch_get_stats(b->match, &out->match);
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
