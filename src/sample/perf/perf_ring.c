/* perf_ring.c - reading a perf_event ring buffer; see perf_ring.h. */
#include "perf_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RECORD_MAX 65536u /* header.size is a u16 */

int perf_ring_map(struct perf_ring *r, int fd, size_t bytes, size_t min_bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data = page;
    while (data < bytes)
        data *= 2;
    memset(r, 0, sizeof *r);
    r->fd = fd;
    if (!(r->scratch = malloc(RECORD_MAX)))
        return -1;
    for (;;) {
        void *m = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) {
            r->map = m;
            r->map_len = data + page;
            break;
        }
        if (errno != EPERM || data / 2 < min_bytes || data / 2 < page) {
            int e = errno;
            free(r->scratch);
            r->scratch = NULL;
            errno = e;
            return -1;
        }
        data /= 2;
    }
    struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r->map;
    /* data_offset/data_size exist since Linux 4.1; older kernels leave
     * them 0 and put the data right after the control page. */
    r->data = r->map + (mp->data_offset ? mp->data_offset : page);
    r->size = mp->data_size ? mp->data_size : data;
    return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
    if (r->map)
        munmap(r->map, r->map_len);
    free(r->scratch);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}

uint64_t perf_ring_begin(struct perf_ring *r)
{
    struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r->map;
    /* acquire: the records up to head are written before head is */
    r->head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    r->pos = r->tail;
    return r->head - r->tail;
}

const struct perf_event_header *perf_ring_next(struct perf_ring *r)
{
    if (r->pos + sizeof(struct perf_event_header) > r->head)
        return NULL;
    uint64_t mask = r->size - 1;
    uint64_t off = r->pos & mask;
    struct perf_event_header h;
    if (off + sizeof h <= r->size) {
        memcpy(&h, r->data + off, sizeof h);
    } else {
        size_t first = (size_t)(r->size - off);
        memcpy(&h, r->data + off, first);
        memcpy((uint8_t *)&h + first, r->data, sizeof h - first);
    }
    if (h.size < sizeof h || r->pos + h.size > r->head) {
        /* cannot happen with a sane kernel: drop what is left */
        r->pos = r->head;
        return NULL;
    }
    const struct perf_event_header *rec;
    if (off + h.size <= r->size) {
        rec = (const struct perf_event_header *)(r->data + off);
    } else {
        size_t first = (size_t)(r->size - off);
        memcpy(r->scratch, r->data + off, first);
        memcpy(r->scratch + first, r->data, h.size - first);
        rec = (const struct perf_event_header *)r->scratch;
    }
    r->pos += h.size;
    return rec;
}

void perf_ring_end(struct perf_ring *r)
{
    struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r->map;
    r->tail = r->pos;
    /* release: we are done reading the records before the kernel may
     * overwrite them */
    __atomic_store_n(&mp->data_tail, r->tail, __ATOMIC_RELEASE);
}
