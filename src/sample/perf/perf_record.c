/* perf_record.c - parsing ring-buffer records; see perf_record.h. */
#include "perf_record.h"

#include <string.h>

/* The sample_id trailer for PERF_RECORD_TYPE: {pid, tid} {time} {cpu,
 * res} {identifier}. */
#define TRAILER 32u

/* asm/perf_regs.h order of the PERF_RECORD_REGS bits, as they come in a
 * sample (lowest bit first), mapped to the DWARF numbers of unwind.h. */
static const int8_t dwarf_of[PERF_RECORD_NREGS] = {
    0,  /* ax */ 3,  /* bx */ 2,  /* cx */ 1,  /* dx */
    4,  /* si */ 5,  /* di */ 6,  /* bp */ 7,  /* sp */
    16, /* ip */
    8, 9, 10, 11, 12, 13, 14, 15, /* r8..r15 */
};

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

int perf_record_sample(const struct perf_event_header *h,
                       struct perf_sample *out)
{
    const uint8_t *p = (const uint8_t *)(h + 1);
    const uint8_t *end = (const uint8_t *)h + h->size;
    /* identifier ip pid/tid time cpu/res period nr, then nr entries, abi */
    if (p + 7 * 8 > end)
        return -1;
    out->id = u64_at(p);
    out->ip = u64_at(p + 8);
    memcpy(&out->pid, p + 16, 4);
    memcpy(&out->tid, p + 20, 4);
    out->time = u64_at(p + 24);
    memcpy(&out->cpu, p + 32, 4);
    out->period = u64_at(p + 40);
    uint64_t nr = u64_at(p + 48);
    p += 56;
    if (nr > (uint64_t)(end - p) / 8 || (uint64_t)(end - p) - nr * 8 < 8)
        return -1;
    out->chain = p;
    out->chain_n = (uint32_t)nr;
    p += nr * 8;
    uint64_t abi = u64_at(p);
    p += 8;
    out->user_regs = abi == PERF_SAMPLE_REGS_ABI_64;
    memset(out->regs, 0, sizeof out->regs);
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
        if (p + PERF_RECORD_NREGS * 8 > end)
            return -1;
        for (int i = 0; i < PERF_RECORD_NREGS; i++)
            out->regs[dwarf_of[i]] = u64_at(p + 8 * i);
        p += PERF_RECORD_NREGS * 8;
    }
    /* size, data[size], dyn_size (absent when size is 0) */
    if (p + 8 > end)
        return -1;
    uint64_t size = u64_at(p);
    p += 8;
    out->stack = p;
    out->stack_len = 0;
    out->stack_full = false;
    if (size) {
        if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 8)
            return -1;
        uint64_t dyn = u64_at(p + size);
        out->stack_len = dyn < size ? dyn : size;
        out->stack_full = dyn >= size;
    }
    return 0;
}

int perf_record_kernel_chain(const struct perf_sample *s, uint64_t *out,
                             int max)
{
    int n = 0;
    bool kernel = false;

    for (uint32_t i = 0; i < s->chain_n && n < max; i++) {
        uint64_t v = u64_at(s->chain + 8 * (size_t)i);
        if (v >= (uint64_t)PERF_CONTEXT_MAX) {
            /* a context marker: the kernel's part, or the end of it */
            if (kernel)
                break;
            kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
            continue;
        }
        if (kernel)
            out[n++] = v;
    }
    return n;
}

int perf_record_id(const struct perf_event_header *h,
                   struct perf_sample_id *out)
{
    if (h->size < sizeof *h + TRAILER)
        return -1;
    const uint8_t *t = (const uint8_t *)h + h->size - TRAILER;
    memcpy(&out->pid, t, 4);
    memcpy(&out->tid, t + 4, 4);
    out->time = u64_at(t + 8);
    memcpy(&out->cpu, t + 16, 4);
    out->id = u64_at(t + 24);
    return 0;
}

uint64_t perf_record_time(const struct perf_event_header *h)
{
    if (h->type == PERF_RECORD_SAMPLE)
        return h->size >= sizeof *h + 32 ? u64_at((const uint8_t *)(h + 1) + 24) : 0;
    struct perf_sample_id id;
    return perf_record_id(h, &id) == 0 ? id.time : 0;
}
