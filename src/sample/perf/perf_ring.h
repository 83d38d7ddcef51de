/* perf_ring.h - one perf_event ring buffer, read in place.
 *
 * The kernel appends records at data_head; we read from our tail up to a
 * snapshot of the head and then hand the space back by storing the tail
 * (tools/perf/util/mmap.c does the same).  Records are read where they
 * lie; the one record of a pass that wraps around the end of the buffer
 * is copied whole into a scratch buffer, so every record a pass returns
 * is contiguous and stays valid until perf_ring_end.
 *
 * Only the perf sampler thread (perf_sampler.c) uses a ring.
 */
#ifndef SPROFTOP_PERF_RING_H
#define SPROFTOP_PERF_RING_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_header;

struct perf_ring {
    int fd;              /* the event that owns the buffer (not owned) */
    uint8_t *map;        /* the mapping: control page, then data */
    size_t map_len;
    uint8_t *data;       /* data area */
    uint64_t size;       /* data bytes, a power of two */
    uint64_t tail;       /* consumed up to here */
    uint64_t head;       /* snapshot taken by perf_ring_begin */
    uint64_t pos;        /* next record to return */
    uint8_t *scratch;    /* the record that wraps, copied (64 KiB) */
};

/* Map a ring of at least `bytes` of data (rounded up to a power of two
 * of pages) for event fd; on EPERM (the locked-memory limit of an
 * unprivileged user) halve it down to `min_bytes` before giving up.
 * Returns 0, or -1 with errno set. */
int perf_ring_map(struct perf_ring *r, int fd, size_t bytes, size_t min_bytes);

/* Unmap (a zeroed or unmapped ring is a no-op). */
void perf_ring_unmap(struct perf_ring *r);

/* Snapshot the head: records written up to now may be read.  Returns the
 * bytes waiting. */
uint64_t perf_ring_begin(struct perf_ring *r);

/* The next record up to the snapshot, or NULL.  Valid until
 * perf_ring_end; a malformed size ends the pass (and is skipped). */
const struct perf_event_header *perf_ring_next(struct perf_ring *r);

/* Hand every record returned since perf_ring_begin back to the kernel. */
void perf_ring_end(struct perf_ring *r);

#endif
