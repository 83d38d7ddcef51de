/* progress.h - a work counter a benchmark target shares with the driver.
 *
 * Each worker thread adds to its own cache-line-sized slot of a file in
 * /dev/shm; the driver reads the slots at window boundaries, so it measures
 * the target's throughput without stopping or signalling it.
 */
#ifndef SPROFTOP_BENCH_PROGRESS_H
#define SPROFTOP_BENCH_PROGRESS_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PROGRESS_SLOTS 128

struct progress_slot {
    volatile uint64_t count;
    char pad[56];
};

/* Map (creating) the counter file; exits on failure. */
static inline struct progress_slot *progress_map(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, sizeof(struct progress_slot) * PROGRESS_SLOTS) < 0) {
        perror(path);
        exit(2);
    }
    void *p = mmap(NULL, sizeof(struct progress_slot) * PROGRESS_SLOTS,
                   PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

#endif
