/* rmem.c - bounded reads of another process's memory; see rmem.h. */
#include "rmem.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define PAGE 4096u
#define NPAGES 16u  /* a walk touches a few frame-stack pages and one page
                       per code object: 16 hold a deep stack's */

struct page {
    uint64_t addr;  /* page-aligned; valid when `used` */
    bool used;
    uint32_t age;   /* last use, for the eviction */
    uint8_t *data;  /* PAGE bytes in pages_mem */
};

struct rmem {
    pid_t pid;               /* live backend; 0 for an image */
    bool gone;               /* the target ended (rmem_gone) */
    struct rmem_seg *segs;   /* image backend, in the order given */
    size_t nsegs;
    uint8_t *image;          /* every segment's bytes (segs point here) */
    uint8_t *pages_mem;      /* NPAGES * PAGE, made on first use */
    struct page pages[NPAGES];
    uint32_t clock;
    struct rmem_stats st;
    void (*tap)(void *ctx, uint64_t addr, const void *buf, size_t len);
    void *tap_ctx;
};

struct rmem *rmem_open_pid(pid_t pid)
{
    struct rmem *m = calloc(1, sizeof *m);
    if (m)
        m->pid = pid;
    return m;
}

struct rmem *rmem_open_image(const struct rmem_seg *segs, size_t n)
{
    struct rmem *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += segs[i].len;
    m->segs = calloc(n ? n : 1, sizeof *m->segs);
    m->image = malloc(total ? total : 1);
    if (!m->segs || !m->image) {
        rmem_free(m);
        return NULL;
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        if (segs[i].len)
            memcpy(m->image + off, segs[i].data, segs[i].len);
        m->segs[i] = (struct rmem_seg){segs[i].addr, m->image + off,
                                       segs[i].len};
        off += segs[i].len;
    }
    m->nsegs = n;
    return m;
}

void rmem_free(struct rmem *m)
{
    if (!m)
        return;
    free(m->image);
    free(m->segs);
    free(m->pages_mem);
    free(m);
}

int rmem_image_poke(struct rmem *m, uint64_t addr, const void *data,
                    size_t len)
{
    for (size_t i = 0; !m->pid && i < m->nsegs; i++) {
        const struct rmem_seg *g = &m->segs[i];
        if (addr >= g->addr && addr - g->addr <= g->len &&
            len <= g->len - (addr - g->addr)) {
            memcpy((uint8_t *)g->data + (addr - g->addr), data, len);
            return 0;
        }
    }
    return -1;
}

int rmem_image_exit(struct rmem *m)
{
    if (m->pid)
        return -1;
    m->gone = true;
    rmem_forget(m);
    return 0;
}

bool rmem_gone(const struct rmem *m)
{
    return m->gone;
}

void rmem_forget(struct rmem *m)
{
    for (unsigned i = 0; i < NPAGES; i++)
        m->pages[i].used = false;
}

/* Read exactly len bytes at addr from the backend.  0 or -1. */
static int raw_read(struct rmem *m, uint64_t addr, void *buf, size_t len)
{
    if (m->gone)
        return -1;
    m->st.syscalls++;
    if (m->pid) {
        struct iovec local = {buf, len};
        struct iovec remote = {(void *)(uintptr_t)addr, len};
        ssize_t got = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
        if (got < 0 && errno == ESRCH)
            m->gone = true;
        return got == (ssize_t)len ? 0 : -1;
    }
    /* an image: the first segment that holds the whole range */
    for (size_t i = 0; i < m->nsegs; i++) {
        const struct rmem_seg *g = &m->segs[i];
        if (addr >= g->addr && addr - g->addr <= g->len &&
            len <= g->len - (addr - g->addr)) {
            memcpy(buf, (const uint8_t *)g->data + (addr - g->addr), len);
            return 0;
        }
    }
    return -1;
}

/* The cached page at page-aligned pa, read now if need be; NULL when the
 * page cannot be read whole. */
static const uint8_t *get_page(struct rmem *m, uint64_t pa)
{
    struct page *victim = NULL;
    for (unsigned i = 0; i < NPAGES; i++) {
        struct page *p = &m->pages[i];
        if (p->used && p->addr == pa) {
            p->age = ++m->clock;
            return p->data;
        }
        if (!victim || !p->used || (victim->used && p->age < victim->age))
            victim = p;
    }
    if (!m->pages_mem) {
        m->pages_mem = malloc((size_t)NPAGES * PAGE);
        if (!m->pages_mem)
            return NULL;
        for (unsigned i = 0; i < NPAGES; i++)
            m->pages[i].data = m->pages_mem + (size_t)i * PAGE;
    }
    if (raw_read(m, pa, victim->data, PAGE) < 0)
        return NULL;
    victim->used = true;
    victim->addr = pa;
    victim->age = ++m->clock;
    return victim->data;
}

static int copy(struct rmem *m, uint64_t addr, void *buf, size_t len);

int rmem_copy(struct rmem *m, uint64_t addr, void *buf, size_t len)
{
    if (copy(m, addr, buf, len) < 0)
        return -1;
    if (m->tap)
        m->tap(m->tap_ctx, addr, buf, len);
    return 0;
}

static int copy(struct rmem *m, uint64_t addr, void *buf, size_t len)
{
    m->st.copies++;
    if (len == 0 || len > RMEM_MAX_READ || addr + len < addr) {
        m->st.failed++;
        return -1;
    }
    if (len <= PAGE) {
        /* at most two pages; either may be unreadable as a whole page (an
         * image's segment, a mapping's end) while the bytes asked are
         * not: then read exactly those */
        uint64_t pa = addr & ~(uint64_t)(PAGE - 1);
        size_t first = PAGE - (size_t)(addr - pa);
        if (first > len)
            first = len;
        const uint8_t *p = get_page(m, pa);
        if (p) {
            memcpy(buf, p + (addr - pa), first);
            if (first == len)
                return 0;
            const uint8_t *q = get_page(m, pa + PAGE);
            if (q) {
                memcpy((uint8_t *)buf + first, q, len - first);
                return 0;
            }
        }
    }
    if (raw_read(m, addr, buf, len) == 0)
        return 0;
    m->st.failed++;
    return -1;
}

int rmem_u64(struct rmem *m, uint64_t addr, uint64_t *out)
{
    uint8_t b[8];
    if (rmem_copy(m, addr, b, sizeof b) < 0)
        return -1;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    *out = v;
    return 0;
}

int rmem_cstring(struct rmem *m, uint64_t addr, char *buf, size_t cap)
{
    size_t have = 0;
    while (have < cap) {
        /* up to the end of the page: never past the page of the NUL */
        uint64_t a = addr + have;
        if (a < addr)
            return -1;
        size_t chunk = PAGE - (size_t)(a & (PAGE - 1));
        if (chunk > cap - have)
            chunk = cap - have;
        if (rmem_copy(m, a, buf + have, chunk) == 0) {
            if (memchr(buf + have, '\0', chunk))
                return 0;
            have += chunk;
            continue;
        }
        /* not all of it is readable (a mapping's or segment's end): the
         * string may still end before that */
        for (size_t i = 0; i < chunk; i++) {
            if (rmem_copy(m, a + i, buf + have + i, 1) < 0)
                return -1;
            if (buf[have + i] == '\0')
                return 0;
        }
        return -1;
    }
    return -1;
}

void rmem_set_tap(struct rmem *m,
                  void (*tap)(void *ctx, uint64_t addr, const void *buf,
                              size_t len),
                  void *ctx)
{
    m->tap = tap;
    m->tap_ctx = ctx;
}

void rmem_get_stats(const struct rmem *m, struct rmem_stats *out)
{
    *out = m->st;
}
